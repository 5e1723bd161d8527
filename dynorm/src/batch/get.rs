//! The batch reader: keys across models, checked before anything is sent, read in chunks
//! of 100 with bounded concurrency and retries.

use std::any::TypeId;
use std::collections::HashMap;

use aws_sdk_dynamodb::operation::batch_get_item::builders::BatchGetItemInputBuilder;
use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemInput;
use aws_sdk_dynamodb::types::{KeysAndAttributes, ReturnConsumedCapacity};
use futures_util::stream::{self, StreamExt};
use tracing::Instrument;

use super::in_flight::checked_concurrency;
use super::retry::{AfterFailure, Retry};
use super::{incomplete, BatchOptions, Tables};
use crate::client::Client;
use crate::error::Unprocessed;
use crate::error::{Error, Result};
use crate::item;
use crate::item::read_options::{read_setters, ReadOptions};
use crate::observe::reads::{self, ByKey};
use crate::observe::span::{self, request_span};
use crate::observe::{request, Metadata, Predicted, Reporting};
use crate::schema::{key_signature, Model};
use crate::value::Item;
use crate::Request;

const OPERATION: &str = "batch_get";

/// A pending batch of reads across models. Build it with [`Client::batch_get`].
///
/// ```no_run
/// # use dynorm::Model;
/// # #[derive(Model)] struct User { #[hash_key] id: String }
/// # async fn demo(db: dynorm::Client) -> Result<(), dynorm::Error> {
/// let found = db.batch_get().get_many::<User, _>(["u1", "u2"]).send().await?;
/// let users: Vec<User> = found.items::<User>()?;
/// # Ok(()) }
/// ```
#[must_use = "a batch does nothing until it is sent"]
pub struct BatchGet {
    client: Client,
    tables: Tables,
    /// Each key with the position of its table.
    keys: Vec<(usize, Item)>,
    /// Each (table, key signature) with the position of its first key.
    seen: HashMap<(usize, Vec<u8>), usize>,
    errors: Vec<Error>,
    read: ReadOptions,
    options: BatchOptions,
    report: Reporting,
    /// The attributes read of each table that names some (`ProjectionExpression`, and its
    /// names), by table name.
    projections: HashMap<String, Projection>,
}

/// A table's `ProjectionExpression` and its attribute names.
#[derive(Clone)]
struct Projection {
    expression: String,
    names: HashMap<String, String>,
}

impl BatchGet {
    pub(crate) fn new(client: &Client) -> Self {
        Self {
            client: client.clone(),
            tables: Tables::default(),
            keys: Vec::new(),
            seen: HashMap::new(),
            errors: Vec::new(),
            read: ReadOptions::default(),
            options: BatchOptions::default(),
            report: Reporting::default(),
            projections: HashMap::new(),
        }
    }

    /// Reads only `attributes` of `M`'s items, and what tells them apart and says whose
    /// they are: the table's key, the entity's identity and the `#[ttl]`.
    pub(crate) fn project<M: Model>(mut self, attributes: &[&'static str]) -> Self {
        let schema = &M::SCHEMA;
        let mut read: Vec<&'static str> = Vec::with_capacity(attributes.len() + 5);
        let identity = schema.entity.iter().flat_map(|entity| {
            std::iter::once(entity.attribute)
                .chain(entity.convention.version().map(|(attribute, _)| attribute))
        });
        let needed = std::iter::once(schema.hash_key.name)
            .chain(schema.range_key.map(|key| key.name))
            .chain(identity)
            .chain(schema.ttl);
        for attribute in attributes.iter().copied().chain(needed) {
            if !read.contains(&attribute) {
                read.push(attribute);
            }
        }
        let names: HashMap<String, String> = read
            .iter()
            .enumerate()
            .map(|(i, attribute)| (format!("#p{i}"), (*attribute).to_owned()))
            .collect();
        let expression = (0..read.len())
            .map(|i| format!("#p{i}"))
            .collect::<Vec<_>>()
            .join(", ");
        let table = self.client.table_name::<M>();
        self.projections
            .insert(table, Projection { expression, names });
        self
    }

    /// Reads the item of `M` with this key.
    pub fn get<M: Model>(mut self, key: impl Into<M::Key>) -> Self {
        match item::typed_key::<M>(&key.into(), OPERATION) {
            Ok(key) => {
                let table = self.tables.of::<M>(&self.client);
                let position = self.keys.len();
                let signature = (table, key_signature::of_item(&M::SCHEMA, &key));
                if let Some(first) = self.seen.insert(signature, position) {
                    self.errors.push(
                        Error::validation(format!(
                            "keys {first} and {position} are the same; DynamoDB refuses a batch that reads an item twice",
                        ))
                        .with_model(M::SCHEMA.model)
                        .with_operation(OPERATION),
                    );
                }
                self.keys.push((table, key));
            }
            Err(e) => self.errors.push(e),
        }
        self
    }

    /// Reads the item of `M` with this key, already encoded; the caller removed duplicates.
    pub(crate) fn get_key<M: Model>(mut self, key: Item) -> Self {
        match item::raw_key::<M>(key, OPERATION) {
            Ok(key) => {
                let table = self.tables.of::<M>(&self.client);
                self.keys.push((table, key));
            }
            Err(e) => self.errors.push(e),
        }
        self
    }

    /// Reads the items of `M` with these keys.
    pub fn get_many<M: Model, K: Into<M::Key>>(self, keys: impl IntoIterator<Item = K>) -> Self {
        keys.into_iter()
            .fold(self, |batch, key| batch.get::<M>(key))
    }

    read_setters!(
        read;
        /// Reads with strong consistency.
        ;
        /// Returns items whose `#[ttl]` has passed but that DynamoDB has not deleted yet. By
        /// default they read as absent, as with `get`.
    );

    /// Sets concurrency, attempts and delays.
    pub fn options(mut self, options: BatchOptions) -> Self {
        if let Err(e) = checked_concurrency(options.concurrency) {
            self.errors.push(e);
        }
        self.options = options;
        self
    }

    fn predicted(&self, size: Option<usize>) -> Result<Predicted> {
        let mut predicted = Predicted::default();
        predicted.add_requests(self.preview()?.len());
        for (table, _) in &self.keys {
            let bound = self.tables.bounds[*table];
            let table = &self.tables.names[*table];
            let consistent = self.read.consistent_read;
            reads::by_key(&mut predicted, table, ByKey::Batch, consistent, size, bound);
        }
        Ok(predicted)
    }

    /// Sends every read. Keys still unprocessed when their attempts run out give
    /// [`ErrorKind::BatchIncomplete`](crate::ErrorKind::BatchIncomplete), with the keys in
    /// [`Error::unprocessed`].
    pub async fn send(self) -> Result<BatchGetResults> {
        let BatchGet {
            client,
            tables,
            keys,
            errors,
            read:
                ReadOptions {
                    consistent_read,
                    include_expired,
                },
            options,
            report,
            projections,
            ..
        } = self;
        if let Some(error) = errors.into_iter().next() {
            return Err(error);
        }
        let mut chunks: Vec<Vec<(usize, Item)>> = Vec::new();
        let mut keys = keys.into_iter().peekable();
        while keys.peek().is_some() {
            chunks.push(keys.by_ref().take(super::MAX_BATCH_KEYS).collect());
        }
        let names = &tables.names;
        let batch_tables = &tables;
        let client = &client;
        let projections = &projections;
        let outcomes: Vec<ReadOutcome> = stream::iter(chunks)
            .map(|chunk| {
                read_chunk(
                    client,
                    batch_tables,
                    projections,
                    chunk,
                    consistent_read,
                    report.capacity(),
                )
            })
            .buffer_unordered(
                usize::try_from(options.concurrency)
                    .unwrap_or(usize::MAX)
                    .max(1),
            )
            .collect()
            .await;
        let mut items: Vec<Vec<Item>> = vec![Vec::new(); names.len()];
        let mut left = Unprocessed::default();
        let mut last_error = None;
        let mut metadata = Metadata::default();
        for outcome in outcomes {
            metadata.merge(&outcome.metadata);
            for (table, found) in outcome.found {
                if let Some(index) = names.iter().position(|n| *n == table) {
                    items[index].extend(found);
                }
            }
            left.keys.extend(outcome.left);
            last_error = outcome.error.or(last_error);
        }
        report.record(&metadata);
        if !left.is_empty() {
            let summary = format!(
                "{} keys were not read; they are in `unprocessed()`",
                left.len()
            );
            return Err(incomplete(OPERATION, summary, left, last_error));
        }
        Ok(BatchGetResults {
            models: tables.models,
            items,
            include_expired,
        })
    }
}

/// What one chunk of reads achieved.
struct ReadOutcome {
    /// The items found, by table name.
    found: HashMap<String, Vec<Item>>,
    /// The keys not read, with their table names.
    left: Vec<(String, Item)>,
    error: Option<Error>,
    metadata: Metadata,
}

/// The request of one chunk attempt: what is sent, and what a preview shows. Keys are
/// grouped by table in the order of their first key.
fn chunk_input(
    pending: &[(String, Item)],
    projections: &HashMap<String, Projection>,
    consistent: bool,
    capacity: Option<ReturnConsumedCapacity>,
) -> BatchGetItemInputBuilder {
    let mut by_table: HashMap<String, Vec<Item>> = HashMap::new();
    for (table, key) in pending {
        by_table.entry(table.clone()).or_default().push(key.clone());
    }
    let request: HashMap<String, KeysAndAttributes> = by_table
        .into_iter()
        .filter_map(|(table, keys)| {
            let projection = projections.get(&table);
            KeysAndAttributes::builder()
                .set_keys(Some(keys))
                .consistent_read(consistent)
                .set_projection_expression(projection.map(|p| p.expression.clone()))
                .set_expression_attribute_names(projection.map(|p| p.names.clone()))
                .build()
                .ok()
                .map(|k| (table, k))
        })
        .collect();
    BatchGetItemInput::builder()
        .set_request_items(Some(request))
        .set_return_consumed_capacity(capacity)
}

/// Reads one chunk of keys, retrying unprocessed keys, in at most the client's
/// `RetryPolicy::max_attempts` HTTP attempts: each request is sent with the SDK's retries
/// off. Keys are small, so each attempt sends a copy and keeps them until DynamoDB has
/// answered for them.
async fn read_chunk(
    client: &Client,
    batch_tables: &Tables,
    projections: &HashMap<String, Projection>,
    chunk: Vec<(usize, Item)>,
    consistent: bool,
    capacity: Option<ReturnConsumedCapacity>,
) -> ReadOutcome {
    let tables = batch_tables.names.as_slice();
    let mut pending: Vec<(String, Item)> = chunk
        .into_iter()
        .map(|(table, key)| (tables[table].clone(), key))
        .collect();
    let mut found: HashMap<String, Vec<Item>> = HashMap::new();
    let mut retry = Retry::new(client.retry_policy());
    let mut metadata = Metadata::default();
    while retry.next_attempt().await {
        let span = request_span!(
            "BatchGetItem",
            tracing::field::Empty,
            tracing::field::Empty,
            "aws.dynamodb.consistent_read" = consistent,
            "dynorm.attempt" = retry.attempt(),
            "dynorm.batch.requests" = pending.len(),
            "dynorm.batch.unprocessed" = tracing::field::Empty,
        );
        span::record_names(
            &span,
            || batch_tables.models_in(pending.iter().map(|(table, _)| table.as_str())),
            || span::joined(pending.iter().map(|(table, _)| table.as_str())),
        );
        match chunk_input(&pending, projections, consistent, capacity.clone())
            .send_with(client.sdk_once())
            .instrument(span.clone())
            .await
        {
            Ok(output) => {
                super::record_consumed(&span, &mut metadata, output.consumed_capacity.as_deref());
                for (table, items) in output.responses.unwrap_or_default() {
                    found.entry(table).or_default().extend(items);
                }
                pending = output
                    .unprocessed_keys
                    .unwrap_or_default()
                    .into_iter()
                    .flat_map(|(table, keys)| {
                        keys.keys.into_iter().map(move |key| (table.clone(), key))
                    })
                    .collect();
                span.record("dynorm.batch.unprocessed", pending.len());
                if pending.is_empty() {
                    return ReadOutcome {
                        found,
                        left: pending,
                        error: None,
                        metadata,
                    };
                }
            }
            Err(e) => {
                metadata.requests += 1;
                if let AfterFailure::GiveUp(error) = retry.failed(e, OPERATION, tables, &span) {
                    return ReadOutcome {
                        found,
                        left: pending,
                        error: Some(error),
                        metadata,
                    };
                }
            }
        }
    }
    ReadOutcome {
        found,
        left: pending,
        error: retry.into_last_error(),
        metadata,
    }
}

/// The items a batch read returned, by table. Order is not kept: DynamoDB does not.
#[derive(Debug, Clone, Default)]
pub struct BatchGetResults {
    /// Each model of the batch with the position of its table in `items`.
    models: Vec<(TypeId, &'static str, usize)>,
    items: Vec<Vec<Item>>,
    include_expired: bool,
}

impl BatchGetResults {
    /// The items of model `M` that exist. In a shared table, only the items of `M`'s
    /// entity are `M`'s, whatever other entities the batch read. Expired items are left
    /// out unless the batch asked for them.
    pub fn items<M: Model>(&self) -> Result<Vec<M>> {
        self.found::<M>().map(decode::<M>).collect()
    }

    /// The items of `M` read for `keys`, in their order, as stored: a key not found (or
    /// expired, or of another entity) is left out.
    pub(crate) fn in_order_items<M: Model>(&self, keys: &[Item]) -> Vec<&Item> {
        let mut found: HashMap<Vec<u8>, &Item> = self
            .found::<M>()
            .map(|item| (key_signature::of_item(&M::SCHEMA, item), item))
            .collect();
        keys.iter()
            .filter_map(|key| found.remove(&key_signature::of_item(&M::SCHEMA, key)))
            .collect()
    }

    /// The raw items of `M`: of its entity, and unexpired unless the batch asked for them.
    fn found<M: Model>(&self) -> impl Iterator<Item = &Item> {
        let model = TypeId::of::<M>();
        let table = self
            .models
            .iter()
            .find(|(m, ..)| *m == model)
            .map(|&(_, _, table)| table);
        let entity = M::SCHEMA.entity;
        table
            .and_then(|table| self.items.get(table))
            .into_iter()
            .flatten()
            .filter(move |item| entity.is_none_or(|e| e.accepts(item)))
            .filter(move |item| self.include_expired || !M::SCHEMA.is_expired(item))
    }
}

/// Decodes an item a batch read returned.
fn decode<M: Model>(item: &Item) -> Result<M> {
    M::from_item(item.clone()).map_err(|e| e.with_operation(OPERATION))
}

request! {
    impl[] BatchGet { report => Vec<BatchGetItemInput> }

    /// The `BatchGetItem` input of each chunk's first attempt, in order, exactly as
    /// [`send`](BatchGet::send) would send them, without sending anything.
    fn preview(&self) -> Result<Vec<BatchGetItemInput>> {
        if let Some(error) = self.errors.first() {
            return Err(error.clone());
        }
        let names = &self.tables.names;
        self.keys
            .chunks(super::MAX_BATCH_KEYS)
            .map(|chunk| {
                let pending: Vec<(String, Item)> = chunk
                    .iter()
                    .map(|(table, key)| (names[*table].clone(), key.clone()))
                    .collect();
                chunk_input(
                    &pending,
                    &self.projections,
                    self.read.consistent_read,
                    self.report.capacity(),
                )
                .build()
                .map_err(|e| Error::validation(e.to_string()).with_operation(OPERATION))
            })
            .collect()
    }

    /// The read units the batch would consume, predicted without sending it: one request
    /// per chunk of 100 keys, and for each key a range from nothing (no item has it) to
    /// what the largest item (its model's `max_item_bytes`, or 400 KB) costs, since an item's size is known only once it
    /// is read. Retries of unprocessed keys cost again and are not counted.
    fn predict(&self) -> Result<Predicted> {
        self.predicted(None)
    }
}

//! Reading a collection: its whole partition in one query, decoded into its enum.

use std::collections::HashMap;

use aws_sdk_dynamodb::operation::query::builders::QueryInputBuilder;
use aws_sdk_dynamodb::operation::query::QueryInput;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity, Select};
use tracing::Instrument;

use super::budget::{budget_setters, read_within, Budget};
use super::cursor::Binding;
use super::page::{self, Fetched, Page};
use crate::client::Client;
use crate::error::{sdk_error, Error, Result};
use crate::expr::{filters, Comparison, Condition, Conjunction, Expr, Placeholders};
use crate::observe::span::{self, request_span};
use crate::observe::{request, Predicted, Reporting};
use crate::schema::collection::Member;
use crate::schema::entity::{Entity, KeyTemplate};
use crate::schema::{collection, unique};
use crate::schema::{entity_name, Collection, Index, IndexSchema, Model, Schema};
use crate::value::Item;

const OPERATION: &str = "collection";

impl Client {
    /// Reads a collection's whole partition with one query (more only if it spans pages),
    /// decoding each item as the enum variant its entity name says; read it with
    /// [`all`](CollectionQuery::all).
    pub fn collection<C: Collection>(
        &self,
        hash: impl Into<<C::Partition as Index>::HashKey>,
    ) -> CollectionQuery<C> {
        CollectionQuery {
            client: self.clone(),
            hash: hash.into(),
            include_expired: false,
            descending: false,
            filter: Conjunction::default(),
            report: Reporting::default(),
            budget: None,
            max_item_bytes: super::budget::MAX_ITEM_BYTES,
        }
    }
}

/// A pending read of a collection's partition. Build it with [`Client::collection`], then
/// call [`all`](Self::all).
#[must_use = "a collection read does nothing until it is sent"]
pub struct CollectionQuery<C: Collection> {
    client: Client,
    hash: <C::Partition as Index>::HashKey,
    include_expired: bool,
    descending: bool,
    /// The caller's filter, on the attributes of one entity or another.
    filter: Conjunction,
    report: Reporting,
    budget: Option<f64>,
    max_item_bytes: u32,
}

/// The parts of the request that every page repeats.
#[derive(Clone)]
struct Prepared {
    table: String,
    index: Option<&'static str>,
    key_condition: String,
    names: Option<HashMap<String, String>>,
    values: Option<HashMap<String, AttributeValue>>,
    return_capacity: Option<ReturnConsumedCapacity>,
    limit: Option<i32>,
    /// `Some(false)` for a descending read; `None` (ascending) otherwise.
    forward: Option<bool>,
    /// The filter: the caller's condition, and for a count, the items of the
    /// collection's entities.
    filter: Option<String>,
    /// `COUNT` for a count.
    select: Option<Select>,
}

impl Prepared {
    /// The request of the page after `start`.
    fn input(&self, start: Option<Item>) -> QueryInputBuilder {
        QueryInput::builder()
            .set_limit(self.limit)
            .table_name(&self.table)
            .set_index_name(self.index.map(str::to_owned))
            .key_condition_expression(&self.key_condition)
            .set_expression_attribute_names(self.names.clone())
            .set_expression_attribute_values(self.values.clone())
            .set_exclusive_start_key(start)
            .set_return_consumed_capacity(self.return_capacity.clone())
            .set_scan_index_forward(self.forward)
            .set_filter_expression(self.filter.clone())
            .set_select(self.select.clone())
    }
}

/// What a count of the collection counts: the items of each of its entities (its name,
/// and ElectroDB's version), unexpired unless `include_expired`. A read decodes the same
/// items, and skips the rest as it reads them.
fn members(entities: &[&'static Schema], include_expired: bool) -> Expr {
    let mut members: Vec<Expr> = entities
        .iter()
        .map(|schema| {
            let expired = (!include_expired).then(|| filters::unexpired(schema));
            let mut parts = Vec::new();
            // One conjunction: DynamoDB refuses redundant parentheses.
            for part in filters::entity(schema).into_iter().chain(expired.flatten()) {
                match part {
                    Expr::And(inner) => parts.extend(inner),
                    other => parts.push(other),
                }
            }
            match parts.len() {
                1 => parts.remove(0),
                _ => Expr::And(parts),
            }
        })
        .collect();
    match members.len() {
        1 => members.remove(0),
        _ => Expr::Or(members),
    }
}

/// The range key condition every entity of the collection meets on `index`: `begins_with`
/// the text their range keys all start with, so the query reads only what the collection
/// can hold; `None` when they share none. Entities in ElectroDB collections share the
/// collection's text as ElectroDB queries it, `$assignments`, or for a sub-collection
/// the levels they all are in, `$owned#managed`. An entity without a key on `index` is
/// refused.
fn shared_range_prefix(entities: &[&'static Schema], index: &IndexSchema) -> Result<Option<Expr>> {
    let Some(attribute) = index.range_key.first() else {
        return Ok(None);
    };
    let mut shared: Option<&'static str> = None;
    let mut collections: Option<Vec<&'static str>> = Some(Vec::new());
    for (i, schema) in entities.iter().enumerate() {
        let keyed =
            index.request_name().is_none() || schema.indexes.iter().any(|i| i.name == index.name);
        let entity = schema.entity;
        let template = entity.and_then(|e| e.range_template(index.request_name()));
        let (true, Some(entity), Some(template)) = (keyed, entity, template) else {
            return Err(Error::config(format!(
                "entity `{}` of the collection has no key template on `{}`",
                schema.model,
                index.label()
            )));
        };
        let prefix = template.static_prefix();
        shared = Some(match shared {
            None => prefix,
            Some(so_far) => &so_far[..common_prefix_len(so_far, prefix)],
        });
        collections = match (collections, electrodb_collection(&entity, template, prefix)) {
            (Some(_), Some(levels)) if i == 0 => Some(levels),
            (Some(so_far), Some(levels)) => Some(
                so_far
                    .into_iter()
                    .zip(levels)
                    .take_while(|(a, b)| a == b)
                    .map(|(a, _)| a)
                    .collect(),
            ),
            _ => None,
        };
    }
    let text = match collections.filter(|levels| !levels.is_empty()) {
        Some(levels) => format!("${}", levels.join("#")),
        None => shared.unwrap_or_default().to_owned(),
    };
    Ok((!text.is_empty()).then(|| Expr::BeginsWith(attribute.name, AttributeValue::S(text))))
}

/// The collection levels an ElectroDB default key is in: `$owned#managed#issue_1#..`
/// (its static `prefix`) is in `owned`, then `managed`. `None` for a key in no collection.
fn electrodb_collection(
    entity: &Entity,
    template: &KeyTemplate,
    prefix: &'static str,
) -> Option<Vec<&'static str>> {
    let (_, version) = entity.convention.version()?;
    let marker = format!("#{}_{version}", template.casing.fold(entity.name));
    let path = prefix.strip_prefix('$')?;
    let end = path.find(&marker)?;
    Some(path[..end].split('#').collect())
}

/// The length in bytes of the text `a` and `b` start with, on a character boundary.
fn common_prefix_len(a: &str, b: &str) -> usize {
    a.char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or(a.len().min(b.len()), |((i, _), _)| i)
}

impl<C: Collection> CollectionQuery<C> {
    /// Returns items whose `#[ttl]` has passed but that DynamoDB has not deleted yet. By
    /// default they read as absent, as everywhere else.
    pub fn include_expired(mut self, include: bool) -> Self {
        self.include_expired = include;
        self
    }

    /// Reads the partition in descending range key order (`ScanIndexForward = false`):
    /// the newest first, where the range keys sort by time.
    pub fn descending(mut self) -> Self {
        self.descending = true;
        self
    }

    /// A condition for the filter expression, on the attributes of `M`, one of the
    /// collection's entities. DynamoDB applies it to every item the query reads, whatever
    /// its entity: an attribute another entity does not have is absent on its items, so
    /// `Task::PROJECT_ID.not_exists() | Task::PROJECT_ID.contains("murder")` keeps every
    /// employee and the tasks of murder projects, as ElectroDB's collection `where` does.
    /// Several filters are joined with `AND`.
    pub fn filter<M: Member<C>>(mut self, condition: Condition<M>) -> Self {
        self.filter.push(condition);
        self
    }

    /// How many items of the collection's entities the partition holds, counted by
    /// DynamoDB (`Select: COUNT`, with a filter that keeps the items [`all`](Self::all)
    /// would return), page after page: no item is sent back. Each page still consumes the
    /// read units of the items it reads.
    pub async fn count(self) -> Result<u32> {
        let prepared = self.prepare_as(Some(Select::Count))?;
        page::count_all(|start| self.fetch(&prepared, start)).await
    }

    /// The key condition on the partition and the filter, rendered once.
    fn prepare(&self) -> Result<Prepared> {
        self.prepare_as(None)
    }

    /// [`prepare`](Self::prepare), for a read that returns `select`: for a count, the
    /// filter keeps the items of the collection's entities, which a read keeps as it
    /// decodes them.
    fn prepare_as(&self, select: Option<Select>) -> Result<Prepared> {
        let schema = &<C::Anchor as Model>::SCHEMA;
        let fail = |e: Error| e.with_model(schema.model).with_operation(OPERATION);
        if schema.entity.is_none() {
            return Err(fail(Error::config(
                "a collection's entities need #[key(...)] templates",
            )));
        }
        let index = <C::Partition as Index>::INDEX;
        let values = <C::Partition as Index>::hash_values(&self.hash).map_err(fail)?;
        let partition = values.iter().map(|(name, value)| (*name, value));
        unique::refuse_guard_partition(schema, partition, OPERATION)?;
        let mut placeholders = Placeholders::default();
        let mut conditions: Vec<Expr> = values
            .into_iter()
            .map(|(name, value)| Expr::Compare(name, Comparison::Eq, value))
            .collect();
        if let Some(condition) = shared_range_prefix(C::__ENTITIES, &index).map_err(fail)? {
            conditions.push(condition);
        }
        let key_condition = placeholders.render_all(&conditions).unwrap_or_default();
        if let Some(error) = self.filter.first_error() {
            return Err(fail(error.clone()));
        }
        // DynamoDB refuses a key attribute of the queried index in a query's filter.
        let tested = self.filter.parts().iter().flat_map(Expr::tested_attributes);
        if let Some(key) = tested.into_iter().find(|a| {
            index
                .hash_key
                .iter()
                .chain(index.range_key)
                .any(|k| k.name == *a)
        }) {
            return Err(fail(
                Error::validation(format!(
                    "`{key}` is a key attribute of `{}`, which a collection reads a partition of: its filter cannot test it",
                    index.label()
                ))
                .with_attribute(key),
            ));
        }
        let counted = select
            .is_some()
            .then(|| members(C::__ENTITIES, self.include_expired));
        let filter: Vec<Expr> = counted
            .into_iter()
            .chain(self.filter.parts().iter().cloned())
            .collect();
        let filter = placeholders.render_all(&filter);
        Ok(Prepared {
            table: self.client.table_name::<C::Anchor>(),
            index: index.request_name(),
            key_condition,
            names: placeholders.take_names(),
            values: placeholders.take_values(),
            // A budget counts what each page consumed.
            return_capacity: match (self.report.capacity(), self.budget) {
                (None, Some(_)) => Some(ReturnConsumedCapacity::Total),
                (capacity, _) => capacity,
            },
            limit: None,
            forward: self.descending.then_some(false),
            filter,
            select,
        })
    }

    /// Reads the whole partition, page after page, and returns the items of the
    /// collection's entities in range key order (reversed when [`descending`](Self::descending)). Items of other entities are skipped and
    /// counted in the [`tally`](crate::Request::tally), never failed.
    pub async fn all(self) -> Result<Vec<C>> {
        let prepared = self.prepare()?;
        let mut start: Option<Item> = None;
        let mut items = Vec::new();
        loop {
            let fetched = self.fetch(&prepared, start.take()).await?;
            items.extend(self.decode(fetched.items)?);
            match fetched.last_key.filter(|k| !k.is_empty()) {
                Some(key) => start = Some(key),
                None => return Ok(items),
            }
        }
    }

    /// One page of the partition, starting after `cursor` (from a previous page) or at the
    /// beginning: one request, or with a [`budget`](Self::budget), as many as fit in it.
    pub async fn page(self, cursor: Option<&str>) -> Result<Page<C>> {
        let schema = &<C::Anchor as Model>::SCHEMA;
        let index = <C::Partition as Index>::INDEX;
        let mut prepared = self.prepare()?;
        let values = <C::Partition as Index>::hash_values(&self.hash)
            .map_err(|e| e.with_model(schema.model).with_operation(OPERATION))?;
        let binding = Binding::new(&self.client, schema, index, OPERATION)
            .collection(C::__ENTITIES)
            .partition(values.iter().map(|(name, value)| (*name, value)));
        let start = binding.start(cursor)?;
        let (items, last_key) = match self.budget {
            None => {
                let fetched = self.fetch(&prepared, start).await?;
                (fetched.items, fetched.last_key)
            }
            Some(units) => {
                let budget = Budget {
                    units,
                    max_item_bytes: self.max_item_bytes,
                    consistent: false,
                };
                budget
                    .check()
                    .map_err(|e| e.with_model(schema.model).with_operation(OPERATION))?;
                let limit = prepared.limit;
                let this = &self;
                read_within(budget, limit, start, |start, page_limit| {
                    prepared.limit = page_limit;
                    let page = prepared.clone();
                    async move { this.fetch(&page, start).await }
                })
                .await
                .map_err(|e| e.with_model(schema.model).with_operation(OPERATION))?
            }
        };
        let cursor = binding.next(last_key)?;
        Ok(Page {
            items: self.decode(items)?,
            cursor,
        })
    }

    budget_setters!();

    /// Sends one page's request after `start`.
    async fn fetch(&self, prepared: &Prepared, start: Option<Item>) -> Result<Fetched> {
        let schema = &<C::Anchor as Model>::SCHEMA;
        let span = request_span!(
            "Query",
            schema.model,
            prepared.table.as_str(),
            "aws.dynamodb.count" = tracing::field::Empty,
            "aws.dynamodb.scanned_count" = tracing::field::Empty,
            "dynorm.key_condition" = prepared.key_condition.as_str(),
            "dynorm.continued" = start.is_some(),
        );
        let output = prepared
            .input(start)
            .send_with(self.client.sdk())
            .instrument(span.clone())
            .await
            .map_err(|e| sdk_error(e, schema.model, OPERATION, &prepared.table))
            .inspect_err(|error| span::record_error(&span, error))?;
        Ok(page::fetched(
            &span,
            self.report.tally.as_ref(),
            output.count,
            output.scanned_count,
            output.consumed_capacity.as_slice(),
            output.items,
            output.last_evaluated_key,
        ))
    }

    /// Decodes the items of the collection's entities; items of other entities are
    /// skipped and counted in the tally, expired ones left out.
    fn decode(&self, items: Vec<Item>) -> Result<Vec<C>> {
        let mut out = Vec::with_capacity(items.len());
        let mut skipped = 0;
        for item in items {
            let Some(owner) = collection::owner(C::__ENTITIES, &item) else {
                skipped += 1;
                continue;
            };
            if !self.include_expired && owner.is_expired(&item) {
                continue;
            }
            match C::decode(entity_name(owner), item) {
                Some(decoded) => out.push(decoded.map_err(|e| e.with_operation(OPERATION))?),
                None => skipped += 1,
            }
        }
        if let Some(tally) = &self.report.tally {
            tally.add_skipped(skipped);
        }
        Ok(out)
    }
}

super::paged!(
    impl[C: Collection] CollectionQuery<C> => C
    where <C::Partition as Index>::HashKey: Send + Sync
);

request! {
    impl[C: Collection] CollectionQuery<C> { report => QueryInput }

    /// The `Query` input of the first page, exactly as [`all`](CollectionQuery::all) would
    /// send it. Later pages add only `ExclusiveStartKey`.
    fn preview(&self) -> Result<QueryInput> {
        let model = <C::Anchor as Model>::SCHEMA.model;
        self.prepare()?
            .input(None)
            .build()
            .map_err(|e| crate::item::built(e, model, OPERATION))
    }

    /// The read units one page would consume: from 0 (the partition is empty) up to what
    /// 1 MB of its largest items costs (a partition may hold items of any model: up to the
    /// collection's [`max_item_bytes`](CollectionQuery::max_item_bytes), 400 KB by
    /// default), read before items of other entities are skipped. Every page costs this
    /// much at most.
    fn predict(&self) -> Result<Predicted> {
        let input = self.preview()?;
        let bound = usize::try_from(self.max_item_bytes).unwrap_or(usize::MAX);
        Ok(page::predict(
            page::page_of!(&input),
            None,
            bound,
            self.budget,
        ))
    }
}

//! Batches that lose nothing: automatic chunking (25 writes or 100 keys per request, and
//! under 16 MB), bounded concurrency, bounded retries of unprocessed items with
//! exponential backoff and jitter, and whatever is still unprocessed handed back in the
//! error.

mod chunks;
mod get;
pub(crate) mod retry;
mod write;
mod write_chunk;
mod write_source;

pub use get::{BatchGet, BatchGetResults};
pub use write::BatchWrite;

use std::any::TypeId;
use std::marker::PhantomData;

use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemInput;
use aws_sdk_dynamodb::types::ReturnConsumedCapacity;

use crate::client::Client;
use crate::error::Unprocessed;
use crate::error::{Error, ErrorKind};
use crate::observe::span;
use crate::observe::{Predicted, Tally};
use crate::schema::Model;

impl Client {
    /// A batch of puts and deletes across models, chunked, retried and complete. It
    /// borrows the items it puts until it is sent.
    pub fn batch_write<'a>(&self) -> BatchWrite<'a> {
        BatchWrite::new(self)
    }

    /// A batch of reads across models, chunked, retried and complete.
    pub fn batch_get(&self) -> BatchGet {
        BatchGet::new(self)
    }

    /// Reads the items of `M` with these keys, in batches (a [`BatchGet`] of one model);
    /// missing items are left out. End it with [`send`](GetMany::send).
    pub fn get_many<M: Model, K: Into<M::Key>>(
        &self,
        keys: impl IntoIterator<Item = K>,
    ) -> GetMany<M> {
        GetMany {
            batch: self.batch_get().get_many::<M, K>(keys),
            model: PhantomData,
        }
    }
}

/// A pending read of many items of one model by key. Build it with [`Client::get_many`].
#[must_use = "a request does nothing until it is sent"]
pub struct GetMany<M: Model> {
    batch: BatchGet,
    model: PhantomData<fn() -> M>,
}

impl<M: Model> GetMany<M> {
    /// Reads with strong consistency.
    pub fn consistent_read(self, consistent: bool) -> Self {
        self.map(|batch| batch.consistent_read(consistent))
    }

    /// Returns items whose `#[ttl]` has passed but that DynamoDB has not deleted yet.
    pub fn include_expired(self, include: bool) -> Self {
        self.map(|batch| batch.include_expired(include))
    }

    /// Sets concurrency, attempts and delays.
    pub fn options(self, options: BatchOptions) -> Self {
        self.map(|batch| batch.options(options))
    }

    /// Asks DynamoDB for the capacity the requests consume; it is added to the
    /// [`tally`](Self::tally).
    pub fn return_consumed_capacity(self, capacity: ReturnConsumedCapacity) -> Self {
        self.map(|batch| batch.return_consumed_capacity(capacity))
    }

    /// Adds the requests sent and what they cost to `tally`.
    pub fn tally(self, tally: &Tally) -> Self {
        self.map(|batch| batch.tally(tally))
    }

    /// The `BatchGetItem` input of each chunk, without sending anything.
    pub fn preview(&self) -> crate::Result<Vec<BatchGetItemInput>> {
        self.batch.preview()
    }

    /// The read units the reads would consume, predicted without sending them, as
    /// [`BatchGet::predict`] does.
    pub fn predict(&self) -> crate::Result<Predicted> {
        self.batch.predict()
    }

    /// As [`predict`](Self::predict), for items of `item_bytes` bytes each, as
    /// [`BatchGet::predict_for`] does.
    pub fn predict_for(&self, item_bytes: usize) -> crate::Result<Predicted> {
        self.batch.predict_for(item_bytes)
    }

    /// Sends every read, and returns the items that exist; order is not kept.
    pub async fn send(self) -> crate::Result<Vec<M>> {
        self.batch.send().await?.items::<M>()
    }

    fn map(self, f: impl FnOnce(BatchGet) -> BatchGet) -> Self {
        Self {
            batch: f(self.batch),
            model: PhantomData,
        }
    }
}

/// DynamoDB's limit on the writes of one `BatchWriteItem` request.
pub const MAX_BATCH_WRITES: usize = 25;
/// DynamoDB's limit on the keys of one `BatchGetItem` request.
pub const MAX_BATCH_KEYS: usize = 100;

/// How a batch runs. How a chunk is retried is the client's
/// [`RetryPolicy`](crate::client::RetryPolicy), the one every path shares: a chunk makes at
/// most its `max_attempts` HTTP attempts in all.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct BatchOptions {
    /// Requests in flight at once.
    pub concurrency: usize,
}

impl BatchOptions {
    /// Sets the requests in flight at once (at least 1).
    pub fn concurrency(mut self, concurrency: usize) -> Self {
        self.concurrency = concurrency;
        self
    }
}

impl Default for BatchOptions {
    fn default() -> Self {
        Self { concurrency: 8 }
    }
}

/// Records what a chunk's request consumed on its span and in the batch's metadata.
fn record_consumed(
    span: &tracing::Span,
    metadata: &mut crate::observe::Metadata,
    consumed: Option<&[aws_sdk_dynamodb::types::ConsumedCapacity]>,
) {
    let consumed = consumed.unwrap_or_default();
    span::record_capacity(span, consumed);
    metadata.merge(&crate::observe::Metadata::single(consumed));
}

/// The error of a batch that ran out of attempts: what was done, what is left (in
/// [`Error::unprocessed`]) and the last failure.
fn incomplete(
    operation: &'static str,
    mut summary: String,
    left: Unprocessed,
    source: Option<Error>,
) -> Error {
    if let Some(source) = &source {
        summary.push_str("; the last failure: ");
        summary.push_str(source.code().unwrap_or(source.message()));
    }
    let mut error = Error::new(ErrorKind::BatchIncomplete, summary)
        .with_operation(operation)
        .with_unprocessed(left);
    if let Some(source) = source {
        if let Some(table) = source.table() {
            error = error.with_table(table.to_owned());
        }
        error = error.with_source(source);
    }
    error
}

/// The full table names of a batch, each kept once; writes and keys refer to them by
/// position, so a batch formats each model's table name once, not once per item.
#[derive(Default)]
struct Tables {
    names: Vec<String>,
    /// The largest item of each table, as its models bound them (`max_item_bytes`, or
    /// DynamoDB's 400 KB): the largest over the models added for it.
    bounds: Vec<usize>,
    /// Each model, its name and the position of its table, in the order models were added.
    models: Vec<(TypeId, &'static str, usize)>,
}

impl Tables {
    /// The position of `M`'s table.
    fn of<M: Model>(&mut self, client: &Client) -> usize {
        let model = TypeId::of::<M>();
        if let Some(&(_, _, index)) = self.models.iter().find(|(m, ..)| *m == model) {
            return index;
        }
        let name = client.table_name::<M>();
        let bound = M::SCHEMA.item_bound();
        let index = match self.names.iter().position(|n| *n == name) {
            Some(index) => {
                self.bounds[index] = self.bounds[index].max(bound);
                index
            }
            None => {
                self.names.push(name);
                self.bounds.push(bound);
                self.names.len() - 1
            }
        };
        self.models.push((model, M::SCHEMA.model, index));
        index
    }

    /// The models whose tables are among `tables`, each once, joined with `,`: the
    /// `dynorm.model` of a request's span.
    fn models_in<'a>(&self, tables: impl IntoIterator<Item = &'a str>) -> String {
        let present: Vec<usize> = tables
            .into_iter()
            .filter_map(|table| self.names.iter().position(|name| name == table))
            .collect();
        span::joined(
            self.models
                .iter()
                .filter(|(_, _, table)| present.contains(table))
                .map(|(_, model, _)| *model),
        )
    }
}

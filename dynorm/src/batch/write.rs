//! The batch writer: puts and deletes across models, their keys checked before anything
//! is sent, their items converted chunk by chunk as requests leave, and retried without
//! copying the items.

use std::collections::hash_map::{Entry, RandomState};
use std::collections::HashMap;

use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemInput;
use futures_util::stream::{self, StreamExt};

use super::chunks::{Chunks, Planned};
use super::in_flight::checked_concurrency;
use super::write_chunk::{chunk_input, group, send_chunk, ChunkOutcome};
use super::write_source::{Source, OPERATION};
use super::{incomplete, BatchOptions, Tables};
use crate::client::Client;
use crate::error::Unprocessed;
use crate::error::{Error, Result};
use crate::item;
use crate::observe::{request, Metadata, Predicted, RateLimiter, Reporting};
use crate::schema::key_signature::KeySignature;
use crate::schema::{BatchWritable, Model};

/// A pending batch of puts and deletes across models. Build it with
/// [`Client::batch_write`].
///
/// Before anything is sent, every write's key is checked, and a key written twice, or a
/// model with a `#[version]`, fails the batch. The batch borrows the items it puts and
/// converts them chunk by chunk as requests leave, so it never holds every converted item.
/// A request that fails as a whole is made again from the items. If an item cannot be
/// converted (a date out of range, an item over 400 KB), the writes before it are sent,
/// the writes after it are not, and the error names the item and returns those writes in
/// [`Error::unprocessed`].
///
/// ```no_run
/// # use dynorm::Model;
/// # #[derive(Model)] struct User { #[hash_key] id: String }
/// # async fn demo(db: dynorm::Client, users: Vec<User>) -> Result<(), dynorm::Error> {
/// let written = db.batch_write().put_many(&users).delete::<User>("gone").send().await?;
/// # Ok(()) }
/// ```
#[must_use = "a batch does nothing until it is sent"]
pub struct BatchWrite<'a> {
    client: Client,
    tables: Tables,
    writes: Vec<Planned<'a>>,
    /// The key of every write, as (table, hash of its signature), with the position of the
    /// first write with that hash. A hash found again is checked on the exact signatures.
    seen: HashMap<(usize, u64), usize>,
    /// Writes whose hash matched an earlier write of another key: (table, hash, position).
    collisions: Vec<(usize, u64, usize)>,
    hasher: RandomState,
    errors: Vec<Error>,
    options: BatchOptions,
    report: Reporting,
}

impl<'a> BatchWrite<'a> {
    pub(crate) fn new(client: &Client) -> Self {
        Self {
            client: client.clone(),
            tables: Tables::default(),
            writes: Vec::new(),
            seen: HashMap::new(),
            collisions: Vec::new(),
            hasher: RandomState::new(),
            errors: Vec::new(),
            options: BatchOptions::default(),
            report: Reporting::default(),
        }
    }

    /// Adds a write whose key has this signature hash, unless the batch already writes
    /// the key.
    fn plan<M: Model>(&mut self, hash: u64, source: Source<'a>) {
        let table = self.tables.of::<M>(&self.client);
        let position = self.writes.len();
        match self.seen.entry((table, hash)) {
            Entry::Vacant(slot) => {
                slot.insert(position);
            }
            Entry::Occupied(slot) => {
                let first = *slot.get();
                match self.same_key(table, hash, first, &source) {
                    Some(first) => self.errors.push(
                        Error::validation(format!(
                            "writes {first} and {position} have the same key; DynamoDB refuses a batch that writes an item twice",
                        ))
                        .with_model(M::SCHEMA.model)
                        .with_operation(OPERATION),
                    ),
                    None => self.collisions.push((table, hash, position)),
                }
            }
        }
        self.writes.push(Planned { table, source });
    }

    /// The earlier write, among those with this hash, whose key is exactly `source`'s.
    fn same_key(&self, table: usize, hash: u64, first: usize, source: &Source) -> Option<usize> {
        let exact = source.key_bytes().ok()?;
        let others = self
            .collisions
            .iter()
            .filter(|&&(t, h, _)| t == table && h == hash)
            .map(|&(_, _, position)| position);
        std::iter::once(first)
            .chain(others)
            .find(|&p| self.writes[p].source.key_bytes().ok().as_ref() == Some(&exact))
    }

    /// Puts an item. Models with a `#[version]` are refused: a batch cannot check versions;
    /// models with `#[unique]` attributes do not compile: a batch cannot keep their guards.
    pub fn put<M: BatchWritable>(mut self, item: &'a M) -> Self {
        if M::SCHEMA.version.is_some() {
            self.errors.push(
                Error::validation("a batch cannot check #[version]s; write versioned items with `put` or a transaction")
                    .with_model(M::SCHEMA.model)
                    .with_operation(OPERATION),
            );
            return self;
        }
        let mut signature = KeySignature::hashed(&M::SCHEMA, OPERATION, &self.hasher);
        match item.__key_signature(&mut signature) {
            Ok(()) => self.plan::<M>(signature.into_hash(), Source::Put(item)),
            Err(e) => self.errors.push(e),
        }
        self
    }

    /// Puts every item.
    pub fn put_many<M: BatchWritable>(mut self, items: impl IntoIterator<Item = &'a M>) -> Self {
        let items = items.into_iter();
        let expected = items.size_hint().0;
        self.writes.reserve(expected);
        self.seen.reserve(expected);
        items.fold(self, |batch, item| batch.put(item))
    }

    /// Deletes the item with this key.
    pub fn delete<M: BatchWritable>(mut self, key: impl Into<M::Key>) -> Self {
        match item::typed_key::<M>(&key.into(), OPERATION) {
            Ok(key) => {
                let mut signature = KeySignature::hashed(&M::SCHEMA, OPERATION, &self.hasher);
                match signature.push_item(&key) {
                    Ok(()) => {
                        self.plan::<M>(signature.into_hash(), Source::Delete(key, &M::SCHEMA))
                    }
                    Err(e) => self.errors.push(e),
                }
            }
            Err(e) => self.errors.push(e),
        }
        self
    }

    /// Deletes the items with these keys.
    pub fn delete_many<M: BatchWritable, K: Into<M::Key>>(
        self,
        keys: impl IntoIterator<Item = K>,
    ) -> Self {
        keys.into_iter()
            .fold(self, |batch, key| batch.delete::<M>(key))
    }

    /// Sets concurrency, attempts and delays.
    pub fn options(mut self, options: BatchOptions) -> Self {
        if let Err(e) = checked_concurrency(options.concurrency) {
            self.errors.push(e);
        }
        self.options = options;
        self
    }

    /// Sends every chunk, retries included, within `limiter`'s rate: each waits for the
    /// units spent before it and spends what it consumed (asked for as `Total` unless a
    /// [`tally`](crate::Request::tally) asks for it by index);
    /// writes handed back unprocessed lower the rate.
    pub fn rate_limiter(mut self, limiter: &RateLimiter) -> Self {
        self.report.limiter = Some(limiter.clone());
        self
    }

    /// Sends every write, and returns how many were applied.
    ///
    /// If some are still unprocessed when their attempts run out, the error is
    /// [`ErrorKind::BatchIncomplete`](crate::ErrorKind::BatchIncomplete) and
    /// [`Error::unprocessed`] holds them. Every item is converted once before anything is
    /// sent: if one cannot be stored, no write is sent, the error is that item's, and
    /// [`Error::unprocessed`] holds every write that could be made.
    pub async fn send(self) -> Result<u32> {
        let applied = self.send_all().await?;
        Ok(u32::try_from(applied).unwrap_or(u32::MAX))
    }

    async fn send_all(self) -> Result<usize> {
        let BatchWrite {
            client,
            tables,
            writes,
            errors,
            options,
            report,
            ..
        } = self;
        if let Some(error) = errors.into_iter().next() {
            return Err(error);
        }
        let total = writes.len();
        let batch_tables = &tables;
        let tables = &tables.names;
        check_every_write(&writes, tables)?;
        let client = &client;
        let mut chunks = Chunks::new(writes);
        let outcomes: Vec<ChunkOutcome> = stream::iter(&mut chunks)
            .map(|chunk| {
                send_chunk(
                    client,
                    batch_tables,
                    chunk,
                    report.capacity(),
                    report.limiter.as_ref(),
                )
            })
            .buffer_unordered(
                usize::try_from(options.concurrency)
                    .unwrap_or(usize::MAX)
                    .max(1),
            )
            .collect()
            .await;
        let mut written = 0;
        let mut left = Unprocessed::default();
        let mut last_error = None;
        let mut metadata = Metadata::default();
        for outcome in outcomes {
            metadata.merge(&outcome.metadata);
            written += outcome.written;
            left.writes.extend(outcome.left);
            last_error = outcome.error.or(last_error);
        }
        report.record(&metadata);
        let leftover = chunks.finish();
        left.writes.extend(
            leftover
                .unsent
                .into_iter()
                .map(|(table, request)| (tables[table].clone(), request)),
        );
        if written == total {
            return Ok(written);
        }
        let missing = total - written - left.writes.len();
        let mut summary = format!(
            "{written} of {total} writes were applied; the {} in `unprocessed()` were not",
            left.writes.len()
        );
        if let Some((position, failure)) = leftover.failure {
            summary = format!(
                "write {position} could not be made, so it and the writes after it were not sent; {summary}"
            );
            if missing > 1 {
                summary.push_str(&format!(
                    ", and {} more could not be made either",
                    missing - 1
                ));
            }
            let mut error = failure.with_context(&summary).with_unprocessed(left);
            if let Some(source) = last_error {
                error = error.with_source(source);
            }
            return Err(error);
        }
        if missing > 0 {
            summary.push_str(&format!(
                ", and {missing} could not be made again for a retry (see the source)"
            ));
        }
        Err(incomplete(OPERATION, summary, left, last_error))
    }
}

/// Converts every item of the batch once before anything is sent, so that a batch with an
/// item that cannot be stored is not started: its error is that item's, and
/// [`Error::unprocessed`] holds every write that could be made. The items are converted
/// again as their requests leave, so the batch still never holds them all converted.
fn check_every_write(writes: &[Planned<'_>], tables: &[String]) -> Result<()> {
    let failed = writes
        .iter()
        .enumerate()
        .find_map(|(position, planned)| match &planned.source {
            Source::Put(model) => model
                .put_item()
                .err()
                .map(|e| (position, e.with_model(model.schema().model))),
            Source::Delete(..) => None,
        });
    let Some((position, error)) = failed else {
        return Ok(());
    };
    let left = Unprocessed {
        writes: writes
            .iter()
            .filter_map(|planned| {
                let (request, _) = planned.source.build().ok()?;
                Some((tables[planned.table].clone(), request))
            })
            .collect(),
        ..Unprocessed::default()
    };
    let summary = format!(
        "write {position} could not be made, so no write of the batch was sent; the {} that \
         could be made are in `unprocessed()`",
        left.writes.len()
    );
    Err(error
        .with_operation(OPERATION)
        .with_context(&summary)
        .with_unprocessed(left))
}

request! {
    impl['a] BatchWrite<'a> { report => Vec<BatchWriteItemInput> }

    /// The `BatchWriteItem` input of each chunk's first attempt, in order, exactly as
    /// [`send`](BatchWrite::send) would send them, without sending anything. Every error `send`
    /// would find before sending is found here, and so is an item that cannot be converted.
    fn preview(&self) -> Result<Vec<BatchWriteItemInput>> {
        if let Some(error) = self.errors.first() {
            return Err(error.clone());
        }
        let tables = &self.tables.names;
        let mut chunks = Chunks::new(self.writes.clone());
        let inputs = (&mut chunks)
            .map(|chunk| {
                let requests = group(tables, chunk.into_iter().map(|m| (m.table, m.request)));
                chunk_input(requests, self.report.capacity())
                    .build()
                    .map_err(|e| Error::validation(e.to_string()).with_operation(OPERATION))
            })
            .collect::<Result<Vec<_>>>()?;
        match chunks.finish().failure {
            Some((_, error)) => Err(error),
            None => Ok(inputs),
        }
    }

    /// The capacity the batch would consume, predicted without sending it: one request
    /// per chunk, and each put and delete as a single one would cost (a range with its
    /// reasons, since each replaces or deletes whatever item is stored). Retries of
    /// unprocessed writes cost again and are not counted. Every error
    /// [`preview`](crate::Request::preview) finds is found here.
    fn predict(&self) -> Result<Predicted> {
        let mut predicted = Predicted::default();
        predicted.add_requests(self.preview()?.len());
        for write in &self.writes {
            let table = &self.tables.names[write.table];
            write.source.predict(table, &mut predicted)?;
        }
        Ok(predicted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(crate::Model)]
    struct Thing {
        #[hash_key]
        id: String,
    }

    fn thing(id: &str) -> Thing {
        Thing { id: id.into() }
    }

    fn client() -> Client {
        Client::offline()
    }

    #[test]
    fn equal_hashes_of_different_keys_are_told_apart_exactly() {
        let (a, b, b_again, c) = (thing("a"), thing("b"), thing("b"), thing("c"));
        let mut batch = BatchWrite::new(&client());
        // Force one hash for every key, as if they all collided.
        batch.plan::<Thing>(7, Source::Put(&a));
        batch.plan::<Thing>(7, Source::Put(&b));
        batch.plan::<Thing>(7, Source::Put(&c));
        assert!(batch.errors.is_empty(), "different keys");
        assert_eq!(batch.collisions.len(), 2);
        batch.plan::<Thing>(7, Source::Put(&b_again));
        let error = batch.errors.first().expect("a duplicate");
        assert!(error.message().contains("writes 1 and 3"), "{error}");
    }
}

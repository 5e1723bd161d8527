//! The batch writer: puts and deletes across models, their keys checked before anything
//! is sent, their items converted chunk by chunk as requests leave, and retried without
//! copying the items.

use std::collections::HashMap;

use futures::stream::{self, StreamExt};

use super::chunks::{Chunks, Planned};
use super::send_chunk::{send_chunk, ChunkOutcome};
use super::source::{Source, OPERATION};
use super::{incomplete, key_signature, BatchOptions, Tables, Unprocessed};
use crate::client::Client;
use crate::error::{Error, Result};
use crate::model::Model;
use crate::ops;

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
/// let written = db.batch_write().put_all(&users).delete::<User>("gone").send().await?;
/// # Ok(()) }
/// ```
#[must_use = "a batch does nothing until it is sent"]
pub struct BatchWrite<'a> {
    client: Client,
    tables: Tables,
    writes: Vec<Planned<'a>>,
    /// Each (table, key signature) with the position of its first write.
    seen: HashMap<(usize, Vec<u8>), usize>,
    errors: Vec<Error>,
    options: BatchOptions,
}

impl<'a> BatchWrite<'a> {
    pub(crate) fn new(client: &Client) -> Self {
        Self {
            client: client.clone(),
            tables: Tables::default(),
            writes: Vec::new(),
            seen: HashMap::new(),
            errors: Vec::new(),
            options: BatchOptions::default(),
        }
    }

    /// Adds a write of the key with this signature, unless the batch already writes it.
    fn plan<M: Model>(&mut self, signature: Vec<u8>, source: Source<'a>) {
        let table = self.tables.of::<M>(&self.client);
        let position = self.writes.len();
        if let Some(first) = self.seen.insert((table, signature), position) {
            self.errors.push(
                Error::validation(format!(
                    "writes {first} and {position} have the same key; DynamoDB refuses a batch that writes an item twice",
                ))
                .with_model(M::SCHEMA.model)
                .with_operation(OPERATION),
            );
        }
        self.writes.push(Planned { table, source });
    }

    /// Puts an item. Models with a `#[version]` are refused: a batch cannot check versions.
    pub fn put<M: Model>(mut self, item: &'a M) -> Self {
        if M::SCHEMA.version.is_some() {
            self.errors.push(
                Error::validation("a batch cannot check #[version]s; write versioned items with `put` or a transaction")
                    .with_model(M::SCHEMA.model)
                    .with_operation(OPERATION),
            );
            return self;
        }
        match item.__key_signature(OPERATION) {
            Ok(signature) => self.plan::<M>(signature, Source::Put(item)),
            Err(e) => self.errors.push(e),
        }
        self
    }

    /// Puts every item.
    pub fn put_all<M: Model>(mut self, items: impl IntoIterator<Item = &'a M>) -> Self {
        let items = items.into_iter();
        let expected = items.size_hint().0;
        self.writes.reserve(expected);
        self.seen.reserve(expected);
        items.fold(self, |batch, item| batch.put(item))
    }

    /// Deletes the item with this key.
    pub fn delete<M: Model>(mut self, key: impl Into<M::Key>) -> Self {
        match ops::typed_key::<M>(&key.into(), OPERATION) {
            Ok(key) => {
                let signature = key_signature(&M::SCHEMA, &key);
                self.plan::<M>(signature, Source::Delete(key));
            }
            Err(e) => self.errors.push(e),
        }
        self
    }

    /// Sets concurrency, attempts and delays.
    pub fn options(mut self, options: BatchOptions) -> Self {
        self.options = options;
        self
    }

    /// Sends every write, and returns how many were applied.
    ///
    /// If some are still unprocessed when their attempts run out, the error is
    /// [`ErrorKind::BatchIncomplete`](crate::ErrorKind::BatchIncomplete) and
    /// [`Error::unprocessed`] holds them. If an item cannot be converted, the error is that
    /// item's, and [`Error::unprocessed`] holds the writes not applied.
    pub async fn send(self) -> Result<usize> {
        let BatchWrite {
            client,
            tables,
            writes,
            errors,
            options,
            ..
        } = self;
        if let Some(error) = errors.into_iter().next() {
            return Err(error);
        }
        let total = writes.len();
        let tables = &tables.names;
        let client = &client;
        let mut chunks = Chunks::new(writes);
        let outcomes: Vec<ChunkOutcome> = stream::iter(&mut chunks)
            .map(|chunk| send_chunk(client, tables, chunk, options))
            .buffer_unordered(options.concurrency.max(1))
            .collect()
            .await;
        let mut written = 0;
        let mut left = Unprocessed::default();
        let mut last_error = None;
        for outcome in outcomes {
            written += outcome.written;
            left.writes.extend(outcome.left);
            last_error = outcome.error.or(last_error);
        }
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

//! The batch writer: puts and deletes across models, checked before anything is sent,
//! sent in chunks with bounded concurrency, and retried without copying the items.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::{AttributeValue, DeleteRequest, PutRequest, WriteRequest};
use futures::stream::{self, StreamExt};

use super::{backoff, incomplete, is_retryable, key_signature, BatchOptions, Tables, Unprocessed};
use crate::client::Client;
use crate::error::{Error, Result};
use crate::model::{Item, Model};
use crate::ops;

const OPERATION: &str = "batch_write";
/// DynamoDB's limit on the size of one request, with room for the request's own framing.
const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024 - 64 * 1024;
/// DynamoDB's limit on the size of one item.
const MAX_ITEM_BYTES: usize = 400 * 1024;

/// A pending batch of puts and deletes across models. Build it with
/// [`Client::batch_write`].
///
/// Every item is converted and checked (duplicate keys, item size, `#[version]`) before
/// the first request is sent. The batch borrows the items it puts: a request that fails
/// as a whole is built again from them, so no copy of an item is kept while it is sent.
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
    writes: Vec<PendingWrite<'a>>,
    /// Each (table, key signature) with the position of its first write.
    seen: HashMap<(usize, Vec<u8>), usize>,
    errors: Vec<Error>,
    options: BatchOptions,
}

/// One write of a batch.
struct PendingWrite<'a> {
    table: usize,
    request: WriteRequest,
    source: Source<'a>,
    size: usize,
}

/// What a write was made from, to make it again if a request that held it fails.
enum Source<'a> {
    Put(&'a dyn PutSource),
    Delete(Item),
}

/// A model, with its type erased, that a batch can convert again.
trait PutSource: Sync {
    fn put_item(&self) -> Result<Item>;
}

impl<M: Model> PutSource for M {
    fn put_item(&self) -> Result<Item> {
        put_item(self)
    }
}

/// An item as a batch puts it: converted, `updated_at` stamped, entity keys rendered.
fn put_item<M: Model>(model: &M) -> Result<Item> {
    let mut item = model.to_item().map_err(|e| e.with_operation(OPERATION))?;
    M::SCHEMA.touch_updated_at(&mut item);
    if M::SCHEMA.entity.is_some() {
        crate::entity::write_entity_keys(&M::SCHEMA, &mut item, true)
            .map_err(|e| e.with_operation(OPERATION))?;
    }
    Ok(item)
}

fn put_request(item: Item) -> Result<WriteRequest> {
    let put = PutRequest::builder()
        .set_item(Some(item))
        .build()
        .map_err(|e| Error::validation(e.to_string()).with_operation(OPERATION))?;
    Ok(WriteRequest::builder().put_request(put).build())
}

fn delete_request(key: Item) -> Result<WriteRequest> {
    let delete = DeleteRequest::builder()
        .set_key(Some(key))
        .build()
        .map_err(|e| Error::validation(e.to_string()).with_operation(OPERATION))?;
    Ok(WriteRequest::builder().delete_request(delete).build())
}

impl Source<'_> {
    /// The write again, as it was first built.
    fn rebuild(&self) -> Result<WriteRequest> {
        match self {
            Source::Put(model) => put_request(model.put_item()?),
            Source::Delete(key) => delete_request(key.clone()),
        }
    }
}

/// An estimate of an item's size as DynamoDB counts it: names plus values.
fn item_size(item: &Item) -> usize {
    fn value_size(value: &AttributeValue) -> usize {
        match value {
            AttributeValue::S(s) | AttributeValue::N(s) => s.len(),
            AttributeValue::B(b) => b.as_ref().len(),
            AttributeValue::Ss(v) | AttributeValue::Ns(v) => v.iter().map(String::len).sum(),
            AttributeValue::Bs(v) => v.iter().map(|b| b.as_ref().len()).sum(),
            AttributeValue::L(v) => 3 + v.iter().map(|e| 1 + value_size(e)).sum::<usize>(),
            AttributeValue::M(m) => {
                3 + m
                    .iter()
                    .map(|(k, v)| 1 + k.len() + value_size(v))
                    .sum::<usize>()
            }
            _ => 1,
        }
    }
    item.iter()
        .map(|(name, value)| name.len() + value_size(value))
        .sum()
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

    /// Adds a write, after the duplicate and size checks. `signature` and `size` are those
    /// of what it puts, or of the key it deletes.
    fn push<M: Model>(
        &mut self,
        signature: Vec<u8>,
        size: usize,
        source: Source<'a>,
        request: Result<WriteRequest>,
    ) {
        let request = match request {
            Ok(request) => request,
            Err(e) => return self.errors.push(e.with_model(M::SCHEMA.model)),
        };
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
        if size > MAX_ITEM_BYTES {
            self.errors.push(
                Error::validation(format!(
                    "write {position} is about {size} bytes; DynamoDB's limit for an item is 400 KB"
                ))
                .with_model(M::SCHEMA.model)
                .with_operation(OPERATION),
            );
        }
        self.writes.push(PendingWrite {
            table,
            request,
            source,
            size,
        });
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
        match put_item(item) {
            Ok(put) => {
                // The checks read the item before the request takes it: no copy is made.
                let (signature, size) = (key_signature(&M::SCHEMA, &put), item_size(&put));
                self.push::<M>(signature, size, Source::Put(item), put_request(put));
            }
            Err(e) => self.errors.push(e.with_model(M::SCHEMA.model)),
        }
        self
    }

    /// Puts every item.
    pub fn put_all<M: Model>(mut self, items: impl IntoIterator<Item = &'a M>) -> Self {
        let items = items.into_iter();
        self.writes.reserve(items.size_hint().0);
        items.fold(self, |batch, item| batch.put(item))
    }

    /// Deletes the item with this key.
    pub fn delete<M: Model>(mut self, key: impl Into<M::Key>) -> Self {
        match ops::typed_key::<M>(&key.into(), OPERATION) {
            Ok(key) => {
                let (signature, size) = (key_signature(&M::SCHEMA, &key), item_size(&key));
                let request = delete_request(key.clone());
                self.push::<M>(signature, size, Source::Delete(key), request);
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

    /// Sends every write, and returns how many were applied. If some are still unprocessed
    /// when their attempts run out, the error is
    /// [`ErrorKind::BatchIncomplete`](crate::ErrorKind::BatchIncomplete) and
    /// [`Error::unprocessed`] holds them.
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
        let outcomes: Vec<ChunkOutcome> = stream::iter(chunk_writes(writes))
            .map(|chunk| write_chunk(client, tables, chunk, options))
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
        if written == total {
            return Ok(written);
        }
        let lost = total - written - left.writes.len();
        let mut summary = format!(
            "{written} of {total} writes were applied; the {} in `unprocessed()` were not",
            left.writes.len()
        );
        if lost > 0 {
            summary.push_str(&format!(
                ", and {lost} could not be built again for a retry (see the source)"
            ));
        }
        Err(incomplete(OPERATION, summary, left, last_error))
    }
}

/// Splits writes into requests of at most 25 writes and under 16 MB.
fn chunk_writes(writes: Vec<PendingWrite<'_>>) -> Vec<Vec<PendingWrite<'_>>> {
    let mut chunks = Vec::with_capacity(writes.len() / super::MAX_BATCH_WRITES + 1);
    let mut current = Vec::with_capacity(super::MAX_BATCH_WRITES);
    let mut bytes = 0;
    for write in writes {
        if current.len() == super::MAX_BATCH_WRITES
            || (!current.is_empty() && bytes + write.size > MAX_REQUEST_BYTES)
        {
            chunks.push(std::mem::replace(
                &mut current,
                Vec::with_capacity(super::MAX_BATCH_WRITES),
            ));
            bytes = 0;
        }
        bytes += write.size;
        current.push(write);
    }
    if !current.is_empty() {
        chunks.push(current);
    }
    chunks
}

/// The writes of one request, by table name.
type Requests = HashMap<String, Vec<WriteRequest>>;

/// What one chunk achieved.
struct ChunkOutcome {
    written: usize,
    left: Vec<(String, WriteRequest)>,
    error: Option<Error>,
}

fn count(requests: &Requests) -> usize {
    requests.values().map(Vec::len).sum()
}

fn flatten(requests: Requests) -> Vec<(String, WriteRequest)> {
    requests
        .into_iter()
        .flat_map(|(table, writes)| writes.into_iter().map(move |write| (table.clone(), write)))
        .collect()
}

/// Groups writes by table name, moving them.
fn group<'w>(
    tables: &[String],
    writes: impl Iterator<Item = (usize, WriteRequest)> + 'w,
) -> Requests {
    let mut requests = Requests::new();
    for (table, request) in writes {
        let name = &tables[table];
        match requests.get_mut(name.as_str()) {
            Some(list) => list.push(request),
            None => {
                requests.insert(name.clone(), vec![request]);
            }
        }
    }
    requests
}

/// Writes one chunk, retrying what DynamoDB leaves unprocessed or throttles.
///
/// While no request has returned, the chunk's writes can be built again from their
/// sources, so the request moves them and keeps no copy. Once DynamoDB has taken part of
/// the chunk, what is left is what it handed back; that is copied before each send, as
/// retries are rare and small.
async fn write_chunk(
    client: &Client,
    tables: &[String],
    chunk: Vec<PendingWrite<'_>>,
    options: BatchOptions,
) -> ChunkOutcome {
    let mut sources = Vec::with_capacity(chunk.len());
    let mut requests = group(
        tables,
        chunk.into_iter().map(|write| {
            sources.push((write.table, write.source));
            (write.table, write.request)
        }),
    );
    let mut whole_chunk = true;
    let mut written = 0;
    let mut last_error = None;
    for attempt in 1..=options.max_attempts.max(1) {
        let sent = count(&requests);
        let copy = (!whole_chunk).then(|| requests.clone());
        match client
            .sdk()
            .batch_write_item()
            .set_request_items(Some(requests))
            .send()
            .await
        {
            Ok(output) => {
                let mut left = output.unprocessed_items.unwrap_or_default();
                left.retain(|_, writes| !writes.is_empty());
                written += sent.saturating_sub(count(&left));
                requests = left;
                whole_chunk = false;
                if requests.is_empty() {
                    return ChunkOutcome {
                        written,
                        left: Vec::new(),
                        error: None,
                    };
                }
            }
            Err(e) => {
                let retryable = is_retryable(&e);
                let error = Error::service(e).with_operation(OPERATION);
                requests = match copy {
                    Some(copy) => copy,
                    None => match rebuild(tables, &sources) {
                        (requests, None) => requests,
                        (requests, Some(failure)) => {
                            return ChunkOutcome {
                                written,
                                left: flatten(requests),
                                error: Some(failure),
                            }
                        }
                    },
                };
                if !retryable {
                    return ChunkOutcome {
                        written,
                        left: flatten(requests),
                        error: Some(error),
                    };
                }
                last_error = Some(error);
            }
        }
        if attempt < options.max_attempts {
            tokio::time::sleep(backoff(&options, attempt)).await;
        }
    }
    ChunkOutcome {
        written,
        left: flatten(requests),
        error: last_error,
    }
}

/// The chunk's writes again, from their sources, and the first failure to build one.
fn rebuild(tables: &[String], sources: &[(usize, Source<'_>)]) -> (Requests, Option<Error>) {
    let mut failure = None;
    let writes = sources
        .iter()
        .filter_map(|(table, source)| match source.rebuild() {
            Ok(request) => Some((*table, request)),
            Err(e) => {
                failure.get_or_insert(e);
                None
            }
        })
        .collect::<Vec<_>>();
    (group(tables, writes.into_iter()), failure)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(size: usize) -> PendingWrite<'static> {
        PendingWrite {
            table: 0,
            request: WriteRequest::builder().build(),
            source: Source::Delete(Item::new()),
            size,
        }
    }

    #[test]
    fn chunks_hold_at_most_25_writes_and_16_mb() {
        let chunks = chunk_writes((0..60).map(|_| write(10)).collect());
        assert_eq!(
            chunks.iter().map(Vec::len).collect::<Vec<_>>(),
            [25, 25, 10]
        );
        let big = 400 * 1024;
        let chunks = chunk_writes((0..50).map(|_| write(big)).collect());
        assert!(chunks
            .iter()
            .all(|c| c.iter().map(|w| w.size).sum::<usize>() <= MAX_REQUEST_BYTES));
        assert_eq!(chunks.iter().map(Vec::len).sum::<usize>(), 50);
        assert!(chunks.len() >= 2);
    }

    #[test]
    fn writes_are_grouped_by_table_without_loss() {
        let tables = ["a".to_owned(), "b".to_owned()];
        let writes = (0..7).map(|i| (i % 2, WriteRequest::builder().build()));
        let requests = group(&tables, writes);
        assert_eq!(requests["a"].len(), 4);
        assert_eq!(requests["b"].len(), 3);
        assert_eq!(flatten(requests).len(), 7);
    }
}

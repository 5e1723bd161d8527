//! Batches that lose nothing: automatic chunking (25 writes or 100 keys per request, and
//! under 16 MB), bounded concurrency, bounded retries of unprocessed items with
//! exponential backoff and jitter, and whatever is still unprocessed handed back in the
//! error.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::types::{
    AttributeValue, DeleteRequest, KeysAndAttributes, PutRequest, WriteRequest,
};
use futures::stream::{self, StreamExt};

use crate::client::Client;
use crate::error::{Error, ErrorKind, Result};
use crate::model::{Item, Model};
use crate::ops;

/// DynamoDB's limit on the writes of one `BatchWriteItem` request.
pub const MAX_BATCH_WRITES: usize = 25;
/// DynamoDB's limit on the keys of one `BatchGetItem` request.
pub const MAX_BATCH_KEYS: usize = 100;
/// DynamoDB's limit on the size of one request, with room for the request's own framing.
const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024 - 64 * 1024;

/// How a batch runs.
#[derive(Clone, Copy, Debug)]
pub struct BatchOptions {
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Attempts per chunk, the first included, before its leftovers are returned.
    pub max_attempts: u32,
    /// The first retry waits up to this long; each retry doubles it.
    pub base_delay: Duration,
    /// No retry waits longer than this.
    pub max_delay: Duration,
}

impl Default for BatchOptions {
    fn default() -> Self {
        Self {
            concurrency: 8,
            max_attempts: 10,
            base_delay: Duration::from_millis(25),
            max_delay: Duration::from_secs(3),
        }
    }
}

/// A random delay in `[0, min(max, base * 2^attempt)]`: exponential backoff with full jitter.
fn backoff(options: &BatchOptions, attempt: u32) -> Duration {
    static STATE: AtomicU64 = AtomicU64::new(0);
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1);
    let mut x = STATE.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed) ^ seed;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    let ceiling = options
        .base_delay
        .saturating_mul(1u32 << attempt.min(20))
        .min(options.max_delay);
    let nanos = u64::try_from(ceiling.as_nanos()).unwrap_or(u64::MAX).max(1);
    Duration::from_nanos(x % nanos)
}

/// Whether an error means "slow down and try again".
fn is_retryable<E: ProvideErrorMetadata, R>(error: &SdkError<E, R>) -> bool {
    match error {
        SdkError::ServiceError(e) => matches!(
            e.err().code(),
            Some(
                "ProvisionedThroughputExceededException"
                    | "ThrottlingException"
                    | "RequestLimitExceeded"
                    | "InternalServerError"
                    | "ServiceUnavailable"
            )
        ),
        SdkError::TimeoutError(_) | SdkError::DispatchFailure(_) | SdkError::ResponseError(_) => {
            true
        }
        _ => false,
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

/// What a batch could not do before its attempts ran out, to retry or inspect.
#[derive(Clone, Debug, Default)]
pub struct Unprocessed {
    /// Writes not applied, with their full table names.
    pub writes: Vec<(String, WriteRequest)>,
    /// Keys not read, with their full table names.
    pub keys: Vec<(String, Item)>,
}

impl Unprocessed {
    /// How many writes and keys are left.
    pub fn len(&self) -> usize {
        self.writes.len() + self.keys.len()
    }

    /// Whether nothing is left.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One write of a batch.
#[derive(Clone, Debug)]
struct PendingWrite {
    table: String,
    request: WriteRequest,
    size: usize,
}

/// A pending batch of puts and deletes across models. Build it with
/// [`Client::batch_write`].
///
/// ```no_run
/// # use dynorm::Model;
/// # #[derive(Model)] struct User { #[hash_key] id: String }
/// # async fn demo(db: dynorm::Client, users: Vec<User>) -> Result<(), dynorm::Error> {
/// let written = db.batch_write().put_all(&users).delete::<User>("gone").send().await?;
/// # Ok(()) }
/// ```
#[must_use = "a batch does nothing until it is sent"]
pub struct BatchWrite {
    client: Client,
    writes: Vec<PendingWrite>,
    keys: HashMap<(String, Vec<(String, String)>), usize>,
    errors: Vec<Error>,
    options: BatchOptions,
}

/// A sortable, hashable form of a key, for duplicate checks.
fn key_signature(key: &Item) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = key
        .iter()
        .map(|(k, v)| (k.clone(), format!("{v:?}")))
        .collect();
    out.sort();
    out
}

impl BatchWrite {
    pub(crate) fn new(client: &Client) -> Self {
        Self {
            client: client.clone(),
            writes: Vec::new(),
            keys: HashMap::new(),
            errors: Vec::new(),
            options: BatchOptions::default(),
        }
    }

    fn push<M: Model>(
        &mut self,
        key: Item,
        request: WriteRequest,
        size: usize,
        operation: &'static str,
    ) {
        let table = self.client.table_name::<M>();
        let signature = (table.clone(), key_signature(&key));
        if let Some(first) = self.keys.insert(signature, self.writes.len()) {
            self.errors.push(
                Error::validation(format!(
                    "writes {first} and {} have the same key; DynamoDB refuses a batch that writes an item twice",
                    self.writes.len()
                ))
                .with_model(M::SCHEMA.model)
                .with_operation(operation),
            );
        }
        if size > 400 * 1024 {
            self.errors.push(
                Error::validation(format!(
                    "the item is about {size} bytes; DynamoDB's limit is 400 KB"
                ))
                .with_model(M::SCHEMA.model)
                .with_operation(operation),
            );
        }
        self.writes.push(PendingWrite {
            table,
            request,
            size,
        });
    }

    /// Puts an item. Models with a `#[version]` are refused: a batch cannot check versions.
    pub fn put<M: Model>(mut self, item: &M) -> Self {
        const OPERATION: &str = "batch_write";
        if M::SCHEMA.version.is_some() {
            self.errors.push(
                Error::validation("a batch cannot check #[version]s; write versioned items with `put` or a transaction")
                    .with_model(M::SCHEMA.model)
                    .with_operation(OPERATION),
            );
            return self;
        }
        match item.to_item() {
            Ok(mut item) => {
                M::SCHEMA.touch_updated_at(&mut item);
                if M::SCHEMA.entity.is_some() {
                    if let Err(e) = crate::entity::write_entity_keys(&M::SCHEMA, &mut item, true) {
                        self.errors.push(e.with_operation(OPERATION));
                        return self;
                    }
                }
                let key = M::SCHEMA.key_of(&item);
                let size = item_size(&item);
                match PutRequest::builder().set_item(Some(item)).build() {
                    Ok(put) => self.push::<M>(
                        key,
                        WriteRequest::builder().put_request(put).build(),
                        size,
                        OPERATION,
                    ),
                    Err(e) => self
                        .errors
                        .push(Error::validation(e.to_string()).with_model(M::SCHEMA.model)),
                }
            }
            Err(e) => self.errors.push(e.with_operation(OPERATION)),
        }
        self
    }

    /// Puts every item.
    pub fn put_all<'a, M: Model>(self, items: impl IntoIterator<Item = &'a M>) -> Self {
        items.into_iter().fold(self, |batch, item| batch.put(item))
    }

    /// Deletes the item with this key.
    pub fn delete<M: Model>(mut self, key: impl Into<M::Key>) -> Self {
        const OPERATION: &str = "batch_write";
        match ops::typed_key::<M>(&key.into(), OPERATION) {
            Ok(key) => {
                let size = item_size(&key);
                match DeleteRequest::builder().set_key(Some(key.clone())).build() {
                    Ok(delete) => self.push::<M>(
                        key,
                        WriteRequest::builder().delete_request(delete).build(),
                        size,
                        OPERATION,
                    ),
                    Err(e) => self
                        .errors
                        .push(Error::validation(e.to_string()).with_model(M::SCHEMA.model)),
                }
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
    /// when their attempts run out, the error is [`ErrorKind::BatchIncomplete`] and
    /// [`Error::unprocessed`] holds them.
    pub async fn send(self) -> Result<usize> {
        if let Some(error) = self.errors.into_iter().next() {
            return Err(error);
        }
        let chunks = chunk_writes(self.writes);
        let options = self.options;
        let client = self.client;
        let outcomes: Vec<ChunkOutcome> = stream::iter(chunks)
            .map(|chunk| write_chunk(client.clone(), chunk, options))
            .buffer_unordered(options.concurrency.max(1))
            .collect()
            .await;
        let mut written = 0;
        let mut left = Unprocessed::default();
        let mut last_error = None;
        for outcome in outcomes {
            written += outcome.written;
            left.writes
                .extend(outcome.left.into_iter().map(|w| (w.table, w.request)));
            last_error = outcome.error.or(last_error);
        }
        if left.is_empty() {
            return Ok(written);
        }
        let mut error = Error::new(
            ErrorKind::BatchIncomplete,
            format!(
                "{written} writes were applied and {} were not; they are in `unprocessed()`",
                left.len()
            ),
        )
        .with_operation("batch_write")
        .with_unprocessed(left);
        if let Some(source) = last_error {
            error = error.with_source(source);
        }
        Err(error)
    }
}

/// Splits writes into requests of at most 25 writes and under 16 MB.
fn chunk_writes(writes: Vec<PendingWrite>) -> Vec<Vec<PendingWrite>> {
    let mut chunks = Vec::new();
    let mut current: Vec<PendingWrite> = Vec::new();
    let mut bytes = 0;
    for write in writes {
        if current.len() == MAX_BATCH_WRITES
            || (!current.is_empty() && bytes + write.size > MAX_REQUEST_BYTES)
        {
            chunks.push(std::mem::take(&mut current));
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

/// What one chunk achieved.
struct ChunkOutcome {
    written: usize,
    left: Vec<PendingWrite>,
    error: Option<Error>,
}

/// Writes one chunk, retrying what DynamoDB leaves unprocessed or throttles.
async fn write_chunk(
    client: Client,
    mut pending: Vec<PendingWrite>,
    options: BatchOptions,
) -> ChunkOutcome {
    let mut written = 0;
    let mut last_error = None;
    for attempt in 1..=options.max_attempts.max(1) {
        let mut request: HashMap<String, Vec<WriteRequest>> = HashMap::new();
        for write in &pending {
            request
                .entry(write.table.clone())
                .or_default()
                .push(write.request.clone());
        }
        match client
            .sdk()
            .batch_write_item()
            .set_request_items(Some(request))
            .send()
            .await
        {
            Ok(output) => {
                let left: Vec<PendingWrite> = output
                    .unprocessed_items
                    .unwrap_or_default()
                    .into_iter()
                    .flat_map(|(table, requests)| {
                        requests.into_iter().map(move |request| {
                            let size = request.put_request().map_or(0, |p| item_size(p.item()));
                            PendingWrite {
                                table: table.clone(),
                                request,
                                size,
                            }
                        })
                    })
                    .collect();
                written += pending.len().saturating_sub(left.len());
                pending = left;
                if pending.is_empty() {
                    return ChunkOutcome {
                        written,
                        left: pending,
                        error: None,
                    };
                }
            }
            Err(e) if is_retryable(&e) => {
                last_error = Some(Error::service(e).with_operation("batch_write"))
            }
            Err(e) => {
                return ChunkOutcome {
                    written,
                    left: pending,
                    error: Some(Error::service(e).with_operation("batch_write")),
                }
            }
        }
        if attempt < options.max_attempts {
            tokio::time::sleep(backoff(&options, attempt)).await;
        }
    }
    ChunkOutcome {
        written,
        left: pending,
        error: last_error,
    }
}

/// A pending batch of reads across models. Build it with [`Client::batch_get`].
#[must_use = "a batch does nothing until it is sent"]
pub struct BatchGet {
    client: Client,
    /// (table, model, key)
    keys: Vec<(String, &'static str, Item)>,
    seen: HashMap<(String, Vec<(String, String)>), usize>,
    errors: Vec<Error>,
    consistent_read: bool,
    options: BatchOptions,
}

impl BatchGet {
    pub(crate) fn new(client: &Client) -> Self {
        Self {
            client: client.clone(),
            keys: Vec::new(),
            seen: HashMap::new(),
            errors: Vec::new(),
            consistent_read: false,
            options: BatchOptions::default(),
        }
    }

    /// Reads the item of `M` with this key.
    pub fn get<M: Model>(mut self, key: impl Into<M::Key>) -> Self {
        match ops::typed_key::<M>(&key.into(), "batch_get") {
            Ok(key) => {
                let table = self.client.table_name::<M>();
                if let Some(first) = self
                    .seen
                    .insert((table.clone(), key_signature(&key)), self.keys.len())
                {
                    self.errors.push(
                        Error::validation(format!(
                            "keys {first} and {} are the same; DynamoDB refuses a batch that reads an item twice",
                            self.keys.len()
                        ))
                        .with_model(M::SCHEMA.model)
                        .with_operation("batch_get"),
                    );
                }
                self.keys.push((table, M::SCHEMA.model, key));
            }
            Err(e) => self.errors.push(e),
        }
        self
    }

    /// Reads the items of `M` with these keys.
    pub fn get_all<M: Model, K: Into<M::Key>>(self, keys: impl IntoIterator<Item = K>) -> Self {
        keys.into_iter()
            .fold(self, |batch, key| batch.get::<M>(key))
    }

    /// Reads with strong consistency.
    pub fn consistent_read(mut self, consistent: bool) -> Self {
        self.consistent_read = consistent;
        self
    }

    /// Sets concurrency, attempts and delays.
    pub fn options(mut self, options: BatchOptions) -> Self {
        self.options = options;
        self
    }

    /// Sends every read. Keys still unprocessed when their attempts run out give
    /// [`ErrorKind::BatchIncomplete`], with the keys in [`Error::unprocessed`].
    pub async fn send(self) -> Result<BatchGetItems> {
        if let Some(error) = self.errors.into_iter().next() {
            return Err(error);
        }
        let models: HashMap<String, &'static str> =
            self.keys.iter().map(|(t, m, _)| (t.clone(), *m)).collect();
        let chunks: Vec<Vec<(String, Item)>> = self
            .keys
            .into_iter()
            .map(|(table, _, key)| (table, key))
            .collect::<Vec<_>>()
            .chunks(MAX_BATCH_KEYS)
            .map(<[_]>::to_vec)
            .collect();
        let (client, options, consistent) = (self.client, self.options, self.consistent_read);
        let outcomes: Vec<ReadOutcome> = stream::iter(chunks)
            .map(|chunk| read_chunk(client.clone(), chunk, options, consistent))
            .buffer_unordered(options.concurrency.max(1))
            .collect()
            .await;
        let mut items: HashMap<&'static str, Vec<Item>> = HashMap::new();
        let mut left = Unprocessed::default();
        let mut last_error = None;
        for (found, unprocessed, error) in outcomes {
            for (table, item) in found {
                if let Some(model) = models.get(&table) {
                    items.entry(model).or_default().push(item);
                }
            }
            left.keys.extend(unprocessed);
            last_error = error.or(last_error);
        }
        if left.is_empty() {
            return Ok(BatchGetItems { items });
        }
        let mut error = Error::new(
            ErrorKind::BatchIncomplete,
            format!(
                "{} keys were not read; they are in `unprocessed()`",
                left.len()
            ),
        )
        .with_operation("batch_get")
        .with_unprocessed(left);
        if let Some(source) = last_error {
            error = error.with_source(source);
        }
        Err(error)
    }
}

/// What one chunk of reads achieved: the items found, the keys left, the last error.
type ReadOutcome = (Vec<(String, Item)>, Vec<(String, Item)>, Option<Error>);

/// Reads one chunk of keys, retrying unprocessed keys.
async fn read_chunk(
    client: Client,
    mut pending: Vec<(String, Item)>,
    options: BatchOptions,
    consistent: bool,
) -> ReadOutcome {
    let mut found = Vec::new();
    let mut last_error = None;
    for attempt in 1..=options.max_attempts.max(1) {
        let mut request: HashMap<String, Vec<Item>> = HashMap::new();
        for (table, key) in &pending {
            request.entry(table.clone()).or_default().push(key.clone());
        }
        let request: HashMap<String, KeysAndAttributes> = request
            .into_iter()
            .filter_map(|(table, keys)| {
                KeysAndAttributes::builder()
                    .set_keys(Some(keys))
                    .consistent_read(consistent)
                    .build()
                    .ok()
                    .map(|k| (table, k))
            })
            .collect();
        match client
            .sdk()
            .batch_get_item()
            .set_request_items(Some(request))
            .send()
            .await
        {
            Ok(output) => {
                for (table, items) in output.responses.unwrap_or_default() {
                    found.extend(items.into_iter().map(|item| (table.clone(), item)));
                }
                pending = output
                    .unprocessed_keys
                    .unwrap_or_default()
                    .into_iter()
                    .flat_map(|(table, keys)| {
                        keys.keys.into_iter().map(move |key| (table.clone(), key))
                    })
                    .collect();
                if pending.is_empty() {
                    return (found, pending, None);
                }
            }
            Err(e) if is_retryable(&e) => {
                last_error = Some(Error::service(e).with_operation("batch_get"))
            }
            Err(e) => {
                return (
                    found,
                    pending,
                    Some(Error::service(e).with_operation("batch_get")),
                )
            }
        }
        if attempt < options.max_attempts {
            tokio::time::sleep(backoff(&options, attempt)).await;
        }
    }
    (found, pending, last_error)
}

/// The items a batch read returned, by model. Order is not kept: DynamoDB does not.
#[derive(Debug, Clone, Default)]
pub struct BatchGetItems {
    items: HashMap<&'static str, Vec<Item>>,
}

impl BatchGetItems {
    /// The items of model `M` that exist.
    pub fn items<M: Model>(&self) -> Result<Vec<M>> {
        self.items
            .get(M::SCHEMA.model)
            .into_iter()
            .flatten()
            .map(|item| M::from_item(item.clone()).map_err(|e| e.with_operation("batch_get")))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(size: usize) -> PendingWrite {
        PendingWrite {
            table: "t".into(),
            request: WriteRequest::builder().build(),
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
    fn backoff_is_bounded_and_jittered() {
        let options = BatchOptions::default();
        for attempt in 1..30 {
            assert!(backoff(&options, attempt) <= options.max_delay);
        }
        let delays: std::collections::HashSet<_> = (0..20).map(|_| backoff(&options, 5)).collect();
        assert!(delays.len() > 1, "delays vary");
    }
}

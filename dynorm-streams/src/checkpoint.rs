//! Where a consumer of a change stream records how far it got in each shard.

use dynorm::__ext::error::Context as _;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::types::AttributeValue;
use futures_util::future::BoxFuture;

use dynorm::__ext::client::Client;
use dynorm::__ext::error::{from_sdk, Error, Result};
use dynorm::__ext::observe::span::request_span;
use tracing::Instrument;

/// How far a consumer got in one shard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Checkpoint {
    /// Every record up to and including this sequence number was handled.
    After(String),
    /// The shard is closed and every record in it was handled.
    ShardEnd,
}

impl Checkpoint {
    /// Whether this checkpoint is at or beyond `other` in the same shard: a checkpoint
    /// never moves back, whoever saves it.
    pub fn is_at_or_after(&self, other: &Checkpoint) -> bool {
        match (self, other) {
            (Self::ShardEnd, _) => true,
            (Self::After(_), Self::ShardEnd) => false,
            (Self::After(mine), Self::After(theirs)) => {
                compare_sequence_numbers(mine, theirs).is_ge()
            }
        }
    }
}

/// Orders two sequence numbers of one shard: decimal numbers of up to 40 digits, so
/// compared by value, not as text.
pub(crate) fn compare_sequence_numbers(a: &str, b: &str) -> Ordering {
    let a = a.trim_start_matches('0');
    let b = b.trim_start_matches('0');
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// A sequence number as text that sorts as the number does (zero-padded), for the
/// condition that keeps a stored checkpoint from moving back, and the key of a dead letter.
pub(crate) fn sortable(sequence: &str) -> String {
    format!("{:0>48}", sequence.trim_start_matches('0'))
}

/// The sortable position of a shard's end: after every sequence number.
const END_POSITION: &str = "~";

/// Stores checkpoints: one per consumer, stream and shard. `stream` is the stream's ARN,
/// so a new stream on the same table (after turning the stream off and on) starts afresh.
///
/// A checkpoint never moves back: `save` leaves a stored checkpoint that is further
/// ([`Checkpoint::is_at_or_after`]) as it is, and succeeds, so that a late writer (two
/// consumers of the same name, or a retried save) cannot make a restart read records
/// again.
///
/// Implement it to keep checkpoints anywhere; [`MemoryCheckpoints`] and
/// [`TableCheckpoints`] are provided.
pub trait CheckpointStore: Send + Sync + 'static {
    /// The checkpoint at `key`, if any.
    fn load<'a>(&'a self, key: CheckpointKey<'a>) -> BoxFuture<'a, Result<Option<Checkpoint>>>;

    /// Records a checkpoint at `key`.
    fn save<'a>(
        &'a self,
        key: CheckpointKey<'a>,
        checkpoint: Checkpoint,
    ) -> BoxFuture<'a, Result<()>>;
}

/// Whose checkpoint: a consumer's, in one shard of one stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CheckpointKey<'a> {
    /// The consumer's name.
    pub consumer: &'a str,
    /// The stream's ARN.
    pub stream: &'a str,
    /// The shard's id.
    pub shard: &'a str,
}

impl<'a> CheckpointKey<'a> {
    /// The checkpoint of `consumer` in `shard` of `stream`.
    pub fn new(consumer: &'a str, stream: &'a str, shard: &'a str) -> Self {
        Self {
            consumer,
            stream,
            shard,
        }
    }

    fn owned(self) -> ShardKey {
        (
            self.consumer.to_owned(),
            self.stream.to_owned(),
            self.shard.to_owned(),
        )
    }
}

/// `(consumer, stream, shard)`.
type ShardKey = (String, String, String);

/// Checkpoints kept in memory: a consumer resumes where it stopped for as long as the
/// process lives. Clones share the same checkpoints.
#[derive(Clone, Debug, Default)]
pub struct MemoryCheckpoints {
    inner: Arc<Mutex<HashMap<ShardKey, Checkpoint>>>,
}

impl MemoryCheckpoints {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// A copy of every checkpoint now: `((consumer, stream, shard), checkpoint)`.
    pub fn snapshot(&self) -> Vec<(ShardKey, Checkpoint)> {
        let map = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        map.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }
}

impl CheckpointStore for MemoryCheckpoints {
    fn load<'a>(&'a self, key: CheckpointKey<'a>) -> BoxFuture<'a, Result<Option<Checkpoint>>> {
        let map = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let found = map.get(&key.owned()).cloned();
        Box::pin(async move { Ok(found) })
    }

    fn save<'a>(
        &'a self,
        key: CheckpointKey<'a>,
        checkpoint: Checkpoint,
    ) -> BoxFuture<'a, Result<()>> {
        let mut map = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let key = key.owned();
        match map.get_mut(&key) {
            Some(stored) if stored.is_at_or_after(&checkpoint) => {}
            Some(stored) => *stored = checkpoint,
            None => {
                map.insert(key, checkpoint);
            }
        }
        Box::pin(async { Ok(()) })
    }
}

/// Checkpoints kept in a DynamoDB table of their own, so that a consumer resumes after a
/// restart. The table has hash key `consumer` (the consumer name and the stream ARN) and
/// range key `shard`; each item has `sequenceNumber` or `shardEnd`, and `position`, which
/// sorts as the checkpoint does: every save is conditional on it, so a checkpoint never
/// moves back.
#[derive(Clone, Debug)]
pub struct TableCheckpoints {
    table: OwnTable,
}

/// The hash key of the consumer's own tables: its name (and, for checkpoints, the stream).
pub(crate) const CONSUMER: &str = "consumer";
const SHARD: &str = "shard";
const SEQUENCE_NUMBER: &str = "sequenceNumber";
const SHARD_END: &str = "shardEnd";
/// Where a record stands in its shard, as text that sorts as the sequence number does.
pub(crate) const POSITION: &str = "position";

impl TableCheckpoints {
    own_table_methods!(
        "checkpoints",
        "keyed by consumer and stream, then shard",
        CONSUMER,
        SHARD,
        "ensure_checkpoint_table"
    );

    fn hash(consumer: &str, stream: &str) -> AttributeValue {
        AttributeValue::S(format!("{consumer}|{stream}"))
    }
}

impl CheckpointStore for TableCheckpoints {
    fn load<'a>(&'a self, key: CheckpointKey<'a>) -> BoxFuture<'a, Result<Option<Checkpoint>>> {
        Box::pin(async move {
            let sent = self
                .table
                .get_item()
                .key(CONSUMER, Self::hash(key.consumer, key.stream))
                .key(SHARD, AttributeValue::S(key.shard.to_owned()))
                .consistent_read(true)
                .send();
            let span = request_span!("GetItem", tracing::field::Empty, self.table.name.as_str());
            let output = self.table.send(span, "load_checkpoint", sent).await?;
            let Some(item) = output.item else {
                return Ok(None);
            };
            if matches!(item.get(SHARD_END), Some(AttributeValue::Bool(true))) {
                return Ok(Some(Checkpoint::ShardEnd));
            }
            match item.get(SEQUENCE_NUMBER) {
                Some(AttributeValue::S(s)) => Ok(Some(Checkpoint::After(s.clone()))),
                _ => Err(Error::new(dynorm::ErrorKind::Validation, format!(
                    "the checkpoint of shard `{}` has neither `{SEQUENCE_NUMBER}` nor `{SHARD_END}`",
                    key.shard
                ))
                .at_operation("load_checkpoint")
                .at_table(&self.table.name)),
            }
        })
    }

    fn save<'a>(
        &'a self,
        key: CheckpointKey<'a>,
        checkpoint: Checkpoint,
    ) -> BoxFuture<'a, Result<()>> {
        Box::pin(async move {
            let request = self
                .table
                .put_item()
                .item(CONSUMER, Self::hash(key.consumer, key.stream))
                .item(SHARD, AttributeValue::S(key.shard.to_owned()));
            let request = match checkpoint {
                Checkpoint::After(sequence) => request
                    .item(POSITION, AttributeValue::S(sortable(&sequence)))
                    .item(SEQUENCE_NUMBER, AttributeValue::S(sequence.clone()))
                    // Only forward: a stored checkpoint that is further stays.
                    .condition_expression(
                        "attribute_not_exists(#position) OR #position <= :position",
                    )
                    .expression_attribute_names("#position", POSITION)
                    .expression_attribute_values(
                        ":position",
                        AttributeValue::S(sortable(&sequence)),
                    ),
                // Nothing is further than a shard's end.
                Checkpoint::ShardEnd => request
                    .item(POSITION, AttributeValue::S(END_POSITION.to_owned()))
                    .item(SHARD_END, AttributeValue::Bool(true)),
            };
            let sent = self
                .table
                .send(self.table.put_span(), "save_checkpoint", request.send());
            match sent.await {
                Ok(_) => Ok(()),
                // Another writer got further: its checkpoint stays.
                Err(error) if error.kind() == dynorm::ErrorKind::ConditionFailed => Ok(()),
                Err(error) => Err(error),
            }
        })
    }
}

/// A table of a consumer's own (its checkpoints, its dead letters), named in full (no
/// prefix added).
#[derive(Clone, Debug)]
pub(crate) struct OwnTable {
    pub(crate) client: Client,
    pub(crate) name: String,
}

impl OwnTable {
    pub(crate) fn new(client: &Client, name: impl Into<String>) -> Self {
        Self {
            client: client.clone(),
            name: name.into(),
        }
    }

    /// Sends a request on the table in `span` (its `request_span!`); an error names
    /// `operation` and the table.
    pub(crate) async fn send<T, E>(
        &self,
        span: tracing::Span,
        operation: &'static str,
        request: impl std::future::Future<Output = std::result::Result<T, SdkError<E, HttpResponse>>>,
    ) -> Result<T>
    where
        E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    {
        request
            .instrument(span)
            .await
            .map_err(|e| from_sdk(e).at_operation(operation).at_table(&self.name))
    }

    /// A `GetItem` on the table.
    pub(crate) fn get_item(
        &self,
    ) -> aws_sdk_dynamodb::operation::get_item::builders::GetItemFluentBuilder {
        self.client.sdk().get_item().table_name(&self.name)
    }

    /// A `PutItem` on the table.
    pub(crate) fn put_item(
        &self,
    ) -> aws_sdk_dynamodb::operation::put_item::builders::PutItemFluentBuilder {
        self.client.sdk().put_item().table_name(&self.name)
    }

    /// A `Query` on the table.
    pub(crate) fn query(&self) -> aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder {
        self.client.sdk().query().table_name(&self.name)
    }

    /// The span of a `PutItem` on the table.
    pub(crate) fn put_span(&self) -> tracing::Span {
        request_span!("PutItem", tracing::field::Empty, self.name.as_str())
    }

    /// Creates the table with string keys `hash` and `range` unless it exists, and waits
    /// until it is active; an error names `operation`.
    pub(crate) async fn ensure(
        &self,
        hash: &str,
        range: &str,
        operation: &'static str,
    ) -> Result<()> {
        dynorm::__ext::client::ensure_keyed_table(&self.client, &self.name, hash, range)
            .await
            .map_err(|e| e.at_operation(operation))
    }
}

/// The constructor, `table()` and `ensure_table()` of a store kept in an [`OwnTable`]
/// (its field `table`), written once: what it holds, how it is keyed, its key attributes,
/// and the operation that names an error of `ensure_table`.
macro_rules! own_table_methods {
    ($holds:literal, $keyed:literal, $hash:expr, $range:expr, $operation:literal) => {
        #[doc = concat!("A store of ", $holds, " in table `table` (the full name, no prefix added).")]
        pub fn new(client: &Client, table: impl Into<String>) -> Self {
            Self {
                table: OwnTable::new(client, table),
            }
        }

        #[doc = concat!("The name of the table that holds the ", $holds, ".")]
        pub fn table(&self) -> &str {
            &self.table.name
        }

        #[doc = concat!("Creates the table of ", $holds, " unless it exists (on-demand billing), ", $keyed, ", and waits until it is active.")]
        pub async fn ensure_table(&self) -> Result<()> {
            self.table.ensure($hash, $range, $operation).await
        }
    };
}

pub(crate) use own_table_methods;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_numbers_compare_by_value_and_their_sortable_text_agrees() {
        let numbers = [
            "0",
            "7",
            "000000000000000000042",
            "100000000000000000001",
            "4421584500000000017450439091",
            "4421584500000000017450439092",
            "9999999999999999999999999999999999999999",
        ];
        for (i, a) in numbers.iter().enumerate() {
            for (j, b) in numbers.iter().enumerate() {
                assert_eq!(compare_sequence_numbers(a, b), i.cmp(&j), "{a} vs {b}");
                assert_eq!(sortable(a).cmp(&sortable(b)), i.cmp(&j), "{a} vs {b}");
                assert!(sortable(a).as_str() < END_POSITION);
            }
        }
    }

    #[tokio::test]
    async fn a_memory_checkpoint_never_moves_back() {
        let store = MemoryCheckpoints::new();
        let key = CheckpointKey::new("c", "arn", "s");
        let after = |s: &str| Checkpoint::After(s.to_owned());
        store.save(key, after("20")).await.unwrap();
        store.save(key, after("9")).await.unwrap();
        assert_eq!(store.load(key).await.unwrap(), Some(after("20")));
        store.save(key, after("100")).await.unwrap();
        assert_eq!(store.load(key).await.unwrap(), Some(after("100")));
        store.save(key, Checkpoint::ShardEnd).await.unwrap();
        store.save(key, after("200")).await.unwrap();
        assert_eq!(store.load(key).await.unwrap(), Some(Checkpoint::ShardEnd));
    }
}

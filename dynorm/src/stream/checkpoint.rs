//! Where a consumer of a change stream records how far it got in each shard.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType,
    ScalarAttributeType,
};
use futures::future::BoxFuture;

use crate::client::Client;
use crate::error::{from_sdk, Error, Result};

/// How far a consumer got in one shard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Checkpoint {
    /// Every record up to and including this sequence number was handled.
    After(String),
    /// The shard is closed and every record in it was handled.
    ShardEnd,
}

/// Stores checkpoints: one per consumer, stream and shard. `stream` is the stream's ARN,
/// so a new stream on the same table (after turning the stream off and on) starts afresh.
///
/// Implement it to keep checkpoints anywhere; [`MemoryCheckpoints`] and
/// [`TableCheckpoints`] are provided.
pub trait CheckpointStore: Send + Sync + 'static {
    /// The checkpoint of `consumer` in `shard` of `stream`, if any.
    fn load<'a>(
        &'a self,
        consumer: &'a str,
        stream: &'a str,
        shard: &'a str,
    ) -> BoxFuture<'a, Result<Option<Checkpoint>>>;

    /// Records a checkpoint of `consumer` in `shard` of `stream`.
    fn save<'a>(
        &'a self,
        consumer: &'a str,
        stream: &'a str,
        shard: &'a str,
        checkpoint: Checkpoint,
    ) -> BoxFuture<'a, Result<()>>;
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

    /// Every checkpoint: `((consumer, stream, shard), checkpoint)`.
    pub fn all(&self) -> Vec<(ShardKey, Checkpoint)> {
        let map = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        map.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }
}

impl CheckpointStore for MemoryCheckpoints {
    fn load<'a>(
        &'a self,
        consumer: &'a str,
        stream: &'a str,
        shard: &'a str,
    ) -> BoxFuture<'a, Result<Option<Checkpoint>>> {
        let map = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let found = map
            .get(&(consumer.to_owned(), stream.to_owned(), shard.to_owned()))
            .cloned();
        Box::pin(async move { Ok(found) })
    }

    fn save<'a>(
        &'a self,
        consumer: &'a str,
        stream: &'a str,
        shard: &'a str,
        checkpoint: Checkpoint,
    ) -> BoxFuture<'a, Result<()>> {
        let mut map = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        map.insert(
            (consumer.to_owned(), stream.to_owned(), shard.to_owned()),
            checkpoint,
        );
        Box::pin(async { Ok(()) })
    }
}

/// Checkpoints kept in a DynamoDB table of their own, so that a consumer resumes after a
/// restart. The table has hash key `consumer` (the consumer name and the stream ARN) and
/// range key `shard`; each item has `sequenceNumber` or `shardEnd`.
#[derive(Clone, Debug)]
pub struct TableCheckpoints {
    client: Client,
    table: String,
}

const CONSUMER: &str = "consumer";
const SHARD: &str = "shard";
const SEQUENCE_NUMBER: &str = "sequenceNumber";
const SHARD_END: &str = "shardEnd";

impl TableCheckpoints {
    /// A store in table `table` (the full name, no prefix added).
    pub fn new(client: &Client, table: impl Into<String>) -> Self {
        Self {
            client: client.clone(),
            table: table.into(),
        }
    }

    /// The table's name.
    pub fn table(&self) -> &str {
        &self.table
    }

    /// Creates the table unless it exists (on-demand billing), and waits until it is active.
    pub async fn ensure_table(&self) -> Result<()> {
        let attribute = |name: &str| {
            AttributeDefinition::builder()
                .attribute_name(name)
                .attribute_type(ScalarAttributeType::S)
                .build()
                .expect("an attribute definition with its name and type set is complete")
        };
        let key = |name: &str, key_type| {
            KeySchemaElement::builder()
                .attribute_name(name)
                .key_type(key_type)
                .build()
                .expect("a key schema element with its name and type set is complete")
        };
        let created = self
            .client
            .sdk()
            .create_table()
            .table_name(&self.table)
            .attribute_definitions(attribute(CONSUMER))
            .attribute_definitions(attribute(SHARD))
            .key_schema(key(CONSUMER, KeyType::Hash))
            .key_schema(key(SHARD, KeyType::Range))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .await;
        if let Err(e) = created {
            let error = from_sdk(e);
            if error.code() != Some("ResourceInUseException") {
                return Err(error
                    .with_operation("ensure_checkpoint_table")
                    .with_table(&self.table));
            }
        }
        self.client
            .wait_for_table(&self.table, std::time::Duration::from_secs(60))
            .await
            .map_err(|e| e.with_operation("ensure_checkpoint_table"))
    }

    fn hash(consumer: &str, stream: &str) -> AttributeValue {
        AttributeValue::S(format!("{consumer}|{stream}"))
    }
}

impl CheckpointStore for TableCheckpoints {
    fn load<'a>(
        &'a self,
        consumer: &'a str,
        stream: &'a str,
        shard: &'a str,
    ) -> BoxFuture<'a, Result<Option<Checkpoint>>> {
        Box::pin(async move {
            let output = self
                .client
                .sdk()
                .get_item()
                .table_name(&self.table)
                .key(CONSUMER, Self::hash(consumer, stream))
                .key(SHARD, AttributeValue::S(shard.to_owned()))
                .consistent_read(true)
                .send()
                .await
                .map_err(|e| {
                    from_sdk(e)
                        .with_operation("load_checkpoint")
                        .with_table(&self.table)
                })?;
            let Some(item) = output.item else {
                return Ok(None);
            };
            if matches!(item.get(SHARD_END), Some(AttributeValue::Bool(true))) {
                return Ok(Some(Checkpoint::ShardEnd));
            }
            match item.get(SEQUENCE_NUMBER) {
                Some(AttributeValue::S(s)) => Ok(Some(Checkpoint::After(s.clone()))),
                _ => Err(Error::validation(format!(
                    "the checkpoint of shard `{shard}` has neither `{SEQUENCE_NUMBER}` nor `{SHARD_END}`"
                ))
                .with_operation("load_checkpoint")
                .with_table(&self.table)),
            }
        })
    }

    fn save<'a>(
        &'a self,
        consumer: &'a str,
        stream: &'a str,
        shard: &'a str,
        checkpoint: Checkpoint,
    ) -> BoxFuture<'a, Result<()>> {
        Box::pin(async move {
            let request = self
                .client
                .sdk()
                .put_item()
                .table_name(&self.table)
                .item(CONSUMER, Self::hash(consumer, stream))
                .item(SHARD, AttributeValue::S(shard.to_owned()));
            let request = match checkpoint {
                Checkpoint::After(sequence) => {
                    request.item(SEQUENCE_NUMBER, AttributeValue::S(sequence))
                }
                Checkpoint::ShardEnd => request.item(SHARD_END, AttributeValue::Bool(true)),
            };
            request.send().await.map_err(|e| {
                from_sdk(e)
                    .with_operation("save_checkpoint")
                    .with_table(&self.table)
            })?;
            Ok(())
        })
    }
}

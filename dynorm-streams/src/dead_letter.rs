//! Where a consumer sends the records that do not decode, so that it moves past them.

use dynorm::__ext::error::Context as _;
use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::types::AttributeValue;
use futures_util::future::BoxFuture;

use crate::checkpoint::{own_table_methods, sortable, OwnTable, CONSUMER, POSITION};
#[cfg(feature = "consumer")]
use crate::record::Record;
use dynorm::__ext::client::Client;
use dynorm::__ext::error::{Error, Result};
use dynorm::__ext::observe::span::request_span;
use dynorm::__ext::value::Item;

/// A stream record that does not decode as the consumer's type, with why: what a
/// [`DeadLetters`] sink receives. The keys and images are the record's own attributes, as
/// DynamoDB sent them.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct DeadLetter {
    /// The consumer's name ([`ChangesBuilder::consumer`](crate::ChangesBuilder::consumer),
    /// or the name given to the Lambda handler).
    pub consumer: String,
    /// The full name of the table whose stream holds the record.
    pub table: String,
    /// The ARN of the stream.
    pub stream_arn: String,
    /// The shard that holds the record; `None` from a Lambda event, which does not name it.
    pub shard_id: Option<String>,
    /// The record's sequence number.
    pub sequence_number: String,
    /// The record's event id.
    pub event_id: String,
    /// `INSERT`, `MODIFY` or `REMOVE`, as the stream names it (a removal by time to live
    /// included).
    pub event_name: String,
    /// The record's `Keys`.
    pub keys: Item,
    /// The record's `NewImage`, when it has one.
    pub new_image: Option<Item>,
    /// The record's `OldImage`, when it has one.
    pub old_image: Option<Item>,
    /// The one-line message of the error that kept it from decoding.
    pub error: String,
}

impl DeadLetter {
    /// A letter of a record read by a consumer; its `error` is filled in once it failed.
    #[cfg(feature = "consumer")]
    pub(crate) fn of(record: Record, consumer: &str, table: &str, stream_arn: &str) -> Self {
        Self {
            consumer: consumer.to_owned(),
            table: table.to_owned(),
            stream_arn: stream_arn.to_owned(),
            shard_id: None,
            sequence_number: record.sequence_number,
            event_id: record.event_id,
            event_name: record.event_name.as_str().to_owned(),
            keys: record.keys,
            new_image: record.new_image,
            old_image: record.old_image,
            error: String::new(),
        }
    }
}

/// Where a consumer sends the records that do not decode, instead of stopping at them:
/// [`ChangesBuilder::dead_letters`](crate::ChangesBuilder::dead_letters), and
/// `lambda::handle_with_dead_letters` with the `lambda` feature.
///
/// The consumer moves its checkpoint past a record only once `save` returned `Ok`; an
/// error from `save` is the consumer's error, and the record is read again after a
/// restart, so `save` may receive the same letter more than once.
///
/// Implement it to keep letters anywhere (a queue, a log); [`MemoryDeadLetters`] and
/// [`TableDeadLetters`] are provided.
pub trait DeadLetters: Send + Sync + 'static {
    /// Keeps `letter`. `Ok` means it is kept: the consumer then moves past the record.
    fn save(&self, letter: DeadLetter) -> BoxFuture<'_, Result<()>>;
}

/// Dead letters kept in memory, for tests and tools. Clones share the same letters.
#[derive(Clone, Debug, Default)]
pub struct MemoryDeadLetters {
    inner: Arc<Mutex<Vec<DeadLetter>>>,
}

impl MemoryDeadLetters {
    /// An empty sink.
    pub fn new() -> Self {
        Self::default()
    }

    /// A copy of every letter now, in the order they came; the same record saved again is
    /// kept once.
    pub fn snapshot(&self) -> Vec<DeadLetter> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl DeadLetters for MemoryDeadLetters {
    fn save(&self, letter: DeadLetter) -> BoxFuture<'_, Result<()>> {
        let mut letters = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let again = letters
            .iter()
            .any(|kept| kept.consumer == letter.consumer && kept.event_id == letter.event_id);
        if !again {
            letters.push(letter);
        }
        Box::pin(async { Ok(()) })
    }
}

/// Dead letters kept in a DynamoDB table of their own. The table has hash key `consumer`
/// (the consumer's name) and range key `position` (the sequence number, zero-padded so
/// that a consumer's letters sort in stream order); each item has `table`, `stream`,
/// `shard` (when known), `sequenceNumber`, `eventId`, `eventName`, `keys`, `newImage` and
/// `oldImage` (maps, when the record has them), `error`, and `deadLetteredAt` (RFC 3339).
///
/// The same record saved again replaces its letter; another record at the same key is
/// refused, never overwritten. A letter is one item, so a record whose keys and images
/// together pass DynamoDB's 400 KB item limit (both images of a large item) is refused,
/// and the consumer stops at it with that error.
#[derive(Clone, Debug)]
pub struct TableDeadLetters {
    table: OwnTable,
}

const TABLE: &str = "table";
const STREAM: &str = "stream";
const SHARD: &str = "shard";
const SEQUENCE_NUMBER: &str = "sequenceNumber";
const EVENT_ID: &str = "eventId";
const EVENT_NAME: &str = "eventName";
const KEYS: &str = "keys";
const NEW_IMAGE: &str = "newImage";
const OLD_IMAGE: &str = "oldImage";
const ERROR: &str = "error";
const DEAD_LETTERED_AT: &str = "deadLetteredAt";

impl TableDeadLetters {
    own_table_methods!(
        "dead letters",
        "keyed by consumer, then position",
        CONSUMER,
        POSITION,
        "ensure_dead_letter_table"
    );

    /// Every letter of consumer `consumer`, in stream order: every page, read consistently.
    pub async fn all(&self, consumer: &str) -> Result<Vec<DeadLetter>> {
        let mut letters = Vec::new();
        let mut start = None;
        loop {
            let sent = self
                .table
                .query()
                .key_condition_expression("#consumer = :consumer")
                .expression_attribute_names("#consumer", CONSUMER)
                .expression_attribute_values(":consumer", AttributeValue::S(consumer.to_owned()))
                .consistent_read(true)
                .set_exclusive_start_key(start)
                .send();
            let span = request_span!("Query", tracing::field::Empty, self.table.name.as_str());
            let output = self.table.send(span, "read_dead_letters", sent).await?;
            for item in output.items.unwrap_or_default() {
                letters.push(self.letter_of(item)?);
            }
            start = output.last_evaluated_key;
            if start.is_none() {
                return Ok(letters);
            }
        }
    }

    /// A stored item as a letter.
    fn letter_of(&self, mut item: Item) -> Result<DeadLetter> {
        let mut text = |name: &str| match item.remove(name) {
            Some(AttributeValue::S(s)) => Ok(s),
            _ => Err(Error::new(
                dynorm::ErrorKind::Validation,
                format!("a dead letter has no text attribute `{name}`"),
            )
            .at_operation("read_dead_letters")
            .at_table(&self.table.name)),
        };
        let consumer = text(CONSUMER)?;
        let table = text(TABLE)?;
        let stream_arn = text(STREAM)?;
        let shard_id = text(SHARD).ok();
        let sequence_number = text(SEQUENCE_NUMBER)?;
        let event_id = text(EVENT_ID)?;
        let event_name = text(EVENT_NAME)?;
        let error = text(ERROR)?;
        let mut map = |name: &str| match item.remove(name) {
            Some(AttributeValue::M(m)) => Some(m),
            _ => None,
        };
        Ok(DeadLetter {
            consumer,
            table,
            stream_arn,
            shard_id,
            sequence_number,
            event_id,
            event_name,
            keys: map(KEYS).unwrap_or_default(),
            new_image: map(NEW_IMAGE),
            old_image: map(OLD_IMAGE),
            error,
        })
    }
}

impl DeadLetters for TableDeadLetters {
    fn save(&self, letter: DeadLetter) -> BoxFuture<'_, Result<()>> {
        Box::pin(async move {
            let s = AttributeValue::S;
            let request = self
                .table
                .put_item()
                .item(CONSUMER, s(letter.consumer))
                .item(POSITION, s(sortable(&letter.sequence_number)))
                .item(TABLE, s(letter.table))
                .item(STREAM, s(letter.stream_arn))
                .item(SEQUENCE_NUMBER, s(letter.sequence_number))
                .item(EVENT_ID, s(letter.event_id.clone()))
                .item(EVENT_NAME, s(letter.event_name))
                .item(KEYS, AttributeValue::M(letter.keys))
                .item(ERROR, s(letter.error))
                .item(
                    DEAD_LETTERED_AT,
                    s(dynorm::__ext::value::clock::iso_millis(
                        std::time::SystemTime::now(),
                    )),
                )
                // Another record at the same key is refused, never overwritten.
                .condition_expression("attribute_not_exists(#consumer) OR #eventId = :eventId")
                .expression_attribute_names("#consumer", CONSUMER)
                .expression_attribute_names("#eventId", EVENT_ID)
                .expression_attribute_values(":eventId", s(letter.event_id));
            let optional = [
                (SHARD, letter.shard_id.map(s)),
                (NEW_IMAGE, letter.new_image.map(AttributeValue::M)),
                (OLD_IMAGE, letter.old_image.map(AttributeValue::M)),
            ];
            let request =
                optional
                    .into_iter()
                    .fold(request, |request, (name, value)| match value {
                        Some(value) => request.item(name, value),
                        None => request,
                    });
            let sent = self
                .table
                .send(self.table.put_span(), "save_dead_letter", request.send());
            sent.await.map(|_| ()).map_err(|error| {
                if error.kind() == dynorm::ErrorKind::ConditionFailed {
                    error.in_context(
                        "the letter of another record has the same consumer and sequence number",
                    )
                } else {
                    error
                }
            })
        })
    }
}

//! Lambda events (feature `lambda`): the DynamoDB stream events a Lambda function
//! receives, decoded as typed changes, and the batch-item-failures response Lambda expects.
//!
//! ```no_run
//! # use dynorm::Model;
//! # #[derive(Model, Debug)] #[dynorm(stream = "new_and_old_images")] struct User { #[hash_key] id: String, name: String }
//! use aws_lambda_events::event::dynamodb::Event;
//! use dynorm::stream::{lambda, ModelChange};
//!
//! async fn handler(event: Event) -> aws_lambda_events::event::streams::DynamoDbEventResponse {
//!     lambda::handle::<User, _, _>(event, |change: ModelChange<User>| async move {
//!         println!("{} {:?}", change.kind_name(), change.key);
//!         Ok::<(), dynorm::Error>(())
//!     })
//!     .await
//! }
//! ```
//!
//! Turn on `ReportBatchItemFailures` on the event source mapping: Lambda then retries the
//! batch from the first record reported as failed, so the records after it are delivered
//! again too. Handling must be idempotent, as with [`Client::changes`](crate::Client::changes).

use std::future::Future;

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_lambda_events::event::streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse};

use crate::error::{Error, Result};
use crate::schema::{Collection, Streamed, View};
use crate::stream::change::{Change, Decoded, Decoder};
use crate::stream::record::{is_ttl_identity, EventName, Record};
use crate::value::Item;

/// The records of one event, decoded.
pub struct Batch<T: Send + 'static, V: View> {
    /// Every record, in order: its sequence number and its change, or why it could not
    /// be decoded. Records of entities the target type does not cover are left out.
    pub records: Vec<(String, Result<Change<T, V>>)>,
    /// How many records were left out: entities the target type does not cover.
    pub skipped: usize,
}

/// Decodes an event's records as `M`, under `M`'s view type.
pub fn decode<M: Streamed>(event: Event) -> Batch<M, M::View> {
    decode_with(event, Decoder::model())
}

/// Decodes an event's records of a shared table as the collection enum `C`.
pub fn decode_collection<C>(event: Event) -> Batch<C, <C::Anchor as Streamed>::View>
where
    C: Collection,
    C::Anchor: Streamed,
{
    decode_with(event, Decoder::collection())
}

fn decode_with<T: Send + 'static, V: View>(event: Event, decoder: Decoder<T>) -> Batch<T, V> {
    let mut batch = Batch {
        records: Vec::new(),
        skipped: 0,
    };
    for record in event.records {
        let sequence = record.change.sequence_number.clone().unwrap_or_default();
        match from_lambda(record) {
            Err(e) => batch.records.push((sequence, Err(e))),
            Ok(record) => match decoder.decode::<V>(record) {
                Decoded::Skipped => batch.skipped += 1,
                Decoded::Change(change) => batch.records.push((sequence, change)),
            },
        }
    }
    batch
}

/// Decodes the event as `M` and calls `handler` on each change in order. At the first
/// record that fails (to decode, or in `handler`), it stops and reports that record in
/// the batch-item-failures shape, so Lambda retries from there and the order per key holds.
pub async fn handle<M, F, Fut>(event: Event, handler: F) -> DynamoDbEventResponse
where
    M: Streamed,
    F: FnMut(Change<M, M::View>) -> Fut,
    Fut: Future<Output = Result<()>>,
{
    respond(decode::<M>(event), handler).await
}

/// Calls `handler` on each change of a decoded batch in order, and reports the first
/// failure in the batch-item-failures shape.
pub async fn respond<T, V, F, Fut>(batch: Batch<T, V>, mut handler: F) -> DynamoDbEventResponse
where
    T: Send + 'static,
    V: View,
    F: FnMut(Change<T, V>) -> Fut,
    Fut: Future<Output = Result<()>>,
{
    let mut response = DynamoDbEventResponse::default();
    for (sequence, change) in batch.records {
        let handled = match change {
            Ok(change) => handler(change).await,
            Err(e) => Err(e),
        };
        if handled.is_err() {
            let mut failure = DynamoDbBatchItemFailure::default();
            failure.item_identifier = Some(sequence);
            response.batch_item_failures.push(failure);
            break;
        }
    }
    response
}

/// A Lambda event record in dynorm's terms.
fn from_lambda(record: EventRecord) -> Result<Record> {
    let event_name = EventName::from_name(&record.event_name).ok_or_else(|| {
        Error::validation(format!("unknown stream event name `{}`", record.event_name))
            .with_operation("changes")
    })?;
    let by_ttl = record.user_identity.as_ref().is_some_and(|identity| {
        is_ttl_identity(Some(identity.type_.as_str()), Some(&identity.principal_id))
    });
    let change = record.change;
    let image = |item: serde_dynamo::Item| -> Option<Item> {
        let item: Item = item.into();
        (!item.is_empty()).then_some(item)
    };
    let created = change.approximate_creation_date_time;
    Ok(Record {
        event_name,
        keys: change.keys.into(),
        new_image: image(change.new_image),
        old_image: image(change.old_image),
        sequence_number: change.sequence_number.unwrap_or_default(),
        // A missing time is read as the epoch: keep `None` for it.
        approximate_creation_time: (created.timestamp() != 0).then_some(created),
        event_id: record.event_id,
        by_ttl,
    })
}

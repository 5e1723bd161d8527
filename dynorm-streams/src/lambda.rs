//! Lambda events (feature `lambda`): the DynamoDB stream events a Lambda function
//! receives, decoded as typed changes, and the batch-item-failures response Lambda expects.
//!
//! ```no_run
//! # use dynorm::Model;
//! # #[derive(Model, Debug)] #[dynorm(stream = "new_and_old_images")] struct User { #[hash_key] id: String, name: String }
//! use aws_lambda_events::event::dynamodb::Event;
//! use dynorm_streams::{lambda, ModelChange};
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
//! again too. Handling must be idempotent, as with [`changes`](crate::changes).
//!
//! A record that does not decode fails like a handler's error, and so Lambda delivers it
//! again and again; [`handle_with_dead_letters`] sends such a record to a
//! [`DeadLetters`] sink instead, and goes on. Every decoding error names the record's
//! sequence number and event id ([`Error::stream_record`]); a Lambda event does not name
//! the shard.

use dynorm::__ext::error::Context as _;
use std::future::Future;

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_lambda_events::event::streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse};

use crate::change::{Change, Decoded, Decoder};
use crate::dead_letter::{DeadLetter, DeadLetters};
use crate::record::{is_ttl_identity, EventName, Record};
use dynorm::__ext::error::WithStreamRecord as _;
use dynorm::__ext::error::{Error, Result, StreamRecordRef};
use dynorm::__ext::schema::{Collection, Keyed, Streamed, View};
use dynorm::__ext::value::Item;

/// The records of one event, decoded.
#[non_exhaustive]
pub struct Batch<T: Keyed, V: View> {
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

fn decode_with<T: Keyed, V: View>(event: Event, decoder: Decoder<T>) -> Batch<T, V> {
    let mut batch = Batch {
        records: Vec::new(),
        skipped: 0,
    };
    for record in event.records {
        let sequence = record.change.sequence_number.clone().unwrap_or_default();
        let at = record_ref(&record);
        match decode_one::<T, V>(record, decoder) {
            None => batch.skipped += 1,
            Some(change) => batch.records.push((
                sequence,
                change.map_err(|e| e.at_operation("changes").with_stream_record(at)),
            )),
        }
    }
    batch
}

/// One record decoded: `None` for an entity the target type does not cover.
fn decode_one<T: Keyed, V: View>(
    record: EventRecord,
    decoder: Decoder<T>,
) -> Option<Result<Change<T, V>>> {
    match from_lambda(record).map(|record| decoder.decode::<V>(record)) {
        Err(e) => Some(Err(e)),
        Ok(Decoded::Skipped) => None,
        Ok(Decoded::Change(change)) => Some(change),
    }
}

/// Where a record of an event sits: its stream, sequence number and event id.
fn record_ref(record: &EventRecord) -> StreamRecordRef {
    dynorm::__ext::error::stream_record(
        record.event_source_arn.as_deref().unwrap_or_default(),
        None,
        record.change.sequence_number.as_deref().unwrap_or_default(),
        &record.event_id,
    )
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

/// Decodes the event as `M` and calls `handler` on each change in order, as [`handle`]
/// does, except for a record that does not decode as `M`: it is sent to `sink` as a
/// [`DeadLetter`] of consumer `consumer` (with the record's keys and images as they came,
/// and the error), and the next record is handled. A record the sink does not take, and a
/// record whose handler fails, is reported in the batch-item-failures shape, and the
/// records after it are left for Lambda's retry.
///
/// The letter's table is the one the event's stream ARN names, or `M`'s table name
/// without any prefix when the event has no ARN. Each record is copied before it is
/// decoded, so that the sink gets it as it came.
///
/// ```no_run
/// # use dynorm::Model;
/// # #[derive(Model, Debug)] #[dynorm(stream = "new_and_old_images")] struct User { #[hash_key] id: String, name: String }
/// use aws_lambda_events::event::dynamodb::Event;
/// use dynorm_streams::{lambda, ModelChange, TableDeadLetters};
///
/// async fn handler(db: &dynorm::Client, event: Event) -> aws_lambda_events::event::streams::DynamoDbEventResponse {
///     let sink = TableDeadLetters::new(db, "DeadLetters");
///     lambda::handle_with_dead_letters::<User, _, _>(event, "mailer", &sink, |change: ModelChange<User>| async move {
///         println!("{} {:?}", change.kind_name(), change.key);
///         Ok::<(), dynorm::Error>(())
///     })
///     .await
/// }
/// ```
pub async fn handle_with_dead_letters<M, F, Fut>(
    event: Event,
    consumer: &str,
    sink: &dyn DeadLetters,
    mut handler: F,
) -> DynamoDbEventResponse
where
    M: Streamed,
    F: FnMut(Change<M, M::View>) -> Fut,
    Fut: Future<Output = Result<()>>,
{
    let decoder = Decoder::<M>::model();
    let mut response = DynamoDbEventResponse::default();
    for record in event.records {
        let sequence = record.change.sequence_number.clone().unwrap_or_default();
        let at = record_ref(&record);
        // Kept for the sink, which gets the record as it came.
        let mut letter = letter_of(&record, consumer, M::SCHEMA.table);
        let handled = match decode_one::<M, M::View>(record, decoder) {
            None => Ok(()),
            Some(Ok(change)) => handler(change).await,
            Some(Err(e)) => {
                letter.error = e.at_operation("changes").with_stream_record(at).to_string();
                sink.save(letter).await
            }
        };
        if handled.is_err() {
            fail_from(&mut response, sequence);
            break;
        }
    }
    response
}

/// Reports the batch as failed from the record at `sequence`: Lambda retries it and
/// every record after it.
fn fail_from(response: &mut DynamoDbEventResponse, sequence: String) {
    let mut failure = DynamoDbBatchItemFailure::default();
    failure.item_identifier = Some(sequence);
    response.batch_item_failures.push(failure);
}

/// The letter of an event's record, before it is decoded; `table` when the event's ARN
/// names none.
fn letter_of(record: &EventRecord, consumer: &str, table: &str) -> DeadLetter {
    let arn = record.event_source_arn.clone().unwrap_or_default();
    // `arn:aws:dynamodb:<region>:<account>:table/<table>/stream/<time>`
    let named = arn
        .split_once(":table/")
        .and_then(|(_, rest)| rest.split('/').next())
        .filter(|name| !name.is_empty());
    let image = |item: &serde_dynamo::Item| -> Option<Item> {
        let item: Item = item.clone().into();
        (!item.is_empty()).then_some(item)
    };
    let change = &record.change;
    DeadLetter {
        consumer: consumer.to_owned(),
        table: named.unwrap_or(table).to_owned(),
        shard_id: None,
        sequence_number: change.sequence_number.clone().unwrap_or_default(),
        event_id: record.event_id.clone(),
        event_name: record.event_name.clone(),
        keys: change.keys.clone().into(),
        new_image: image(&change.new_image),
        old_image: image(&change.old_image),
        error: String::new(),
        stream_arn: arn,
    }
}

/// Calls `handler` on each change of a decoded batch in order, and reports the first
/// failure in the batch-item-failures shape.
pub async fn respond<T, V, F, Fut>(batch: Batch<T, V>, mut handler: F) -> DynamoDbEventResponse
where
    T: Keyed,
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
            fail_from(&mut response, sequence);
            break;
        }
    }
    response
}

/// A Lambda event record in dynorm's terms.
fn from_lambda(record: EventRecord) -> Result<Record> {
    let event_name = EventName::from_name(&record.event_name).ok_or_else(|| {
        Error::new(
            dynorm::ErrorKind::Validation,
            format!("unknown stream event name `{}`", record.event_name),
        )
        .at_operation("changes")
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
        approximate_creation_time: (created.timestamp() != 0).then(|| created.into()),
        event_id: record.event_id,
        by_ttl,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ChangeKind;
    use crate::NoImage;

    /// The sample event of AWS's Lambda documentation for DynamoDB streams, with a fourth
    /// record: the removal of item 102 by time to live.
    const SAMPLE: &str = include_str!("fixtures/lambda_sample.json");

    /// A keys-only stream's records: no images at all.
    const KEYS_ONLY: &str = include_str!("fixtures/lambda_keys_only.json");

    #[derive(dynorm::Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "ExampleTableWithStream", stream = "new_and_old_images")]
    struct Message {
        #[hash_key]
        #[dynorm(rename = "Id")]
        id: i64,
        #[dynorm(rename = "Message")]
        message: String,
    }

    #[derive(dynorm::Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "Pings", stream = "keys_only")]
    struct Ping {
        #[hash_key]
        #[dynorm(rename = "Id")]
        id: i64,
    }

    fn event(json: &str) -> Event {
        serde_json::from_str(json).expect("the fixture is a valid event")
    }

    fn message(id: i64, text: &str) -> Message {
        Message {
            id,
            message: text.into(),
        }
    }

    #[test]
    fn the_documented_sample_event_decodes_into_each_kind() {
        let batch = decode::<Message>(event(SAMPLE));
        assert_eq!(batch.skipped, 0);
        let changes: Vec<_> = batch
            .records
            .into_iter()
            .map(|(_, change)| change.unwrap())
            .collect();
        assert!(
            matches!(&changes[0].kind, ChangeKind::Insert { new } if *new == message(101, "New item!"))
        );
        assert!(matches!(&changes[1].kind, ChangeKind::Modify { old, new }
            if *old == message(101, "New item!") && *new == message(101, "This item has changed")));
        assert!(
            matches!(&changes[2].kind, ChangeKind::Remove { old } if *old == message(101, "This item has changed"))
        );
        // The removal by time to live is its own case.
        assert!(
            matches!(&changes[3].kind, ChangeKind::Expire { old } if *old == message(102, "Short-lived"))
        );
        assert_eq!(changes[0].sequence_number, "4421584500000000017450439091");
        assert_eq!(changes[0].event_id, "c4ca4238a0b923820dcc509a6f75849b");
        assert_eq!(
            changes[0].approximate_creation_time,
            Some(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_428_537_600))
        );
        assert_eq!(changes[3].key, MessageKey { id: 102 });
    }

    #[test]
    fn a_keys_only_event_has_keys_and_no_images() {
        let batch = decode::<Ping>(event(KEYS_ONLY));
        let changes: Vec<_> = batch
            .records
            .into_iter()
            .map(|(_, change)| change.unwrap())
            .collect();
        assert!(matches!(
            changes[0].kind,
            ChangeKind::Insert { new: NoImage }
        ));
        assert!(matches!(
            changes[1].kind,
            ChangeKind::Expire { old: NoImage }
        ));
        assert_eq!(changes[1].key, PingKey { id: 7 });
    }

    /// A keys-only stream record of table `App`.
    fn keys_only_record(id: u32, name: &str, pk: &str, sk: &str) -> String {
        format!(
            r#"{{
              "eventID": "{id}", "eventName": "{name}", "eventVersion": "1.1",
              "eventSource": "aws:dynamodb", "awsRegion": "us-east-1",
              "dynamodb": {{
                "Keys": {{"pk": {{"S": "{pk}"}}, "sk": {{"S": "{sk}"}}}},
                "SequenceNumber": "{sequence}", "SizeBytes": 10, "StreamViewType": "KEYS_ONLY"
              }},
              "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/App/stream/2015-06-27T00:48:05.899"
            }}"#,
            sequence = 99 + id
        )
    }

    /// A keys-only stream of a shared table: the entity is known by the key's shape.
    fn shared_keys_only() -> String {
        let records = [
            keys_only_record(1, "INSERT", "TEAM#t1", "#METADATA"),
            keys_only_record(2, "INSERT", "TEAM#t1", "SEAT#12#ada"),
            keys_only_record(3, "REMOVE", "TEAM#t1", "INVITE#a@example.com"),
        ];
        format!(r#"{{"Records": [{}]}}"#, records.join(","))
    }

    #[derive(dynorm::Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "App", entity = "team", stream = "keys_only")]
    #[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
    struct Team {
        team_id: String,
    }

    #[derive(dynorm::Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "App", entity = "seat", stream = "keys_only")]
    #[key(pk = "TEAM#{team_id}", sk = "SEAT#{row}#{user_id}")]
    struct Seat {
        team_id: String,
        row: u32,
        user_id: String,
    }

    /// Teams and seats; invites are not listed. A keys-only stream never reads the items.
    #[derive(dynorm::Collection)]
    #[allow(dead_code)]
    enum TeamItem {
        Team(Team),
        Seat(Seat),
    }

    #[test]
    fn a_keys_only_shared_table_decodes_typed_keys_by_their_shape() {
        let batch = decode_collection::<TeamItem>(event(&shared_keys_only()));
        assert_eq!(
            batch.skipped, 1,
            "the invite fits no entity of the collection"
        );
        let keys: Vec<_> = batch
            .records
            .into_iter()
            .map(|(_, change)| change.unwrap().key)
            .collect();
        assert_eq!(
            keys,
            [
                TeamItemKey::Team(TeamKey {
                    team_id: "t1".into()
                }),
                TeamItemKey::Seat(SeatKey {
                    team_id: "t1".into(),
                    row: 12,
                    user_id: "ada".into()
                }),
            ]
        );
        // A model of the shared table reads only the keys of its own shape.
        let seats = decode::<Seat>(event(&shared_keys_only()));
        assert_eq!(seats.skipped, 2);
        assert_eq!(seats.records.len(), 1);
    }

    #[tokio::test]
    async fn the_first_failure_is_reported_in_the_batch_item_failures_shape() {
        let mut handled = Vec::new();
        let response = handle::<Message, _, _>(event(SAMPLE), |change| {
            handled.push(change.sequence_number.clone());
            let fail = change.kind_name() == "REMOVE";
            async move {
                if fail {
                    Err(Error::new(
                        dynorm::ErrorKind::Validation,
                        "the handler failed",
                    ))
                } else {
                    Ok(())
                }
            }
        })
        .await;
        // It stops at the failure, so the expiry after it is not handled in this attempt.
        assert_eq!(handled.len(), 3);
        let json = serde_json::to_value(&response).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"batchItemFailures": [{"itemIdentifier": "4421584500000000017450439093"}]})
        );
        let ok = handle::<Message, _, _>(event(SAMPLE), |_| async { Ok(()) }).await;
        assert!(ok.batch_item_failures.is_empty());
    }

    #[test]
    fn a_record_that_does_not_decode_is_an_error_not_a_panic() {
        let broken = SAMPLE.replace(
            r#"{"Message": {"S": "New item!"}, "Id": {"N": "101"}}"#,
            r#"{"Id": {"N": "101"}}"#,
        );
        let batch = decode::<Message>(event(&broken));
        let (sequence, first) = &batch.records[0];
        assert_eq!(sequence, "4421584500000000017450439091");
        assert!(first.is_err());
    }
}

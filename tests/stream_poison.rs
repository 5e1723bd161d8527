//! A stream record that does not decode as the model (written by another service, or before
//! a field became required): the default stops at it with an error naming its shard,
//! sequence number and event id; a dead-letter sink takes it and the consumer moves past it,
//! for good; `start_after` passes it by hand. The Lambda handler does the same.

mod common;

use std::time::Duration;

use aws_lambda_events::event::dynamodb::Event;
use aws_sdk_dynamodb::types::AttributeValue;
use dynorm::{Client, Item, Model};
use dynorm_streams::{
    lambda, ChangeKind, Changes, ChangesBuilder, MemoryCheckpoints, MemoryDeadLetters, ModelChange,
    NewAndOldImages, TableCheckpoints, TableDeadLetters,
};
use futures::StreamExt;

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(stream = "new_and_old_images")]
struct Account {
    #[hash_key]
    id: String,
    balance: i64,
}

const IDLE: Duration = Duration::from_millis(700);

fn account(id: &str, balance: i64) -> Account {
    Account {
        id: id.into(),
        balance,
    }
}

/// An item another service wrote: its balance is text, which `Account` cannot read.
fn bad_item() -> Item {
    Item::from([
        ("id".to_owned(), AttributeValue::S("bad".into())),
        ("balance".to_owned(), AttributeValue::S("lots".into())),
    ])
}

/// Writes `a = 1`, `b = 2`, the bad item, then `a = 3` and `c = 4`.
async fn poisoned(label: &str) -> Client {
    let db = common::db_with::<Account>(label).await;
    db.put(&account("a", 1)).send().await.unwrap();
    db.put(&account("b", 2)).send().await.unwrap();
    db.sdk()
        .put_item()
        .table_name(db.tables().name::<Account>())
        .set_item(Some(bad_item()))
        .send()
        .await
        .unwrap();
    db.put(&account("a", 3)).send().await.unwrap();
    db.put(&account("c", 4)).send().await.unwrap();
    db
}

fn consumer(db: &Client) -> ChangesBuilder<Account, NewAndOldImages> {
    dynorm_streams::changes::<Account>(db)
        .consumer("billing")
        .poll_interval(Duration::from_millis(50))
        .stop_when_idle(IDLE)
}

fn balance(change: ModelChange<Account>) -> (String, i64) {
    match change.kind {
        ChangeKind::Insert { new } | ChangeKind::Modify { new, .. } => (new.id, new.balance),
        other => panic!("unexpected {other:?}"),
    }
}

/// Every change up to the first error, and that error.
async fn until_error(
    mut changes: Changes<Account, NewAndOldImages>,
) -> (Vec<(String, i64)>, Option<dynorm::Error>) {
    let mut good = Vec::new();
    while let Some(change) = changes.next().await {
        match change {
            Ok(change) => good.push(balance(change)),
            Err(e) => return (good, Some(e)),
        }
    }
    (good, None)
}

fn pairs(expected: &[(&str, i64)]) -> Vec<(String, i64)> {
    expected
        .iter()
        .map(|(id, n)| ((*id).to_owned(), *n))
        .collect()
}

#[tokio::test]
async fn by_default_the_consumer_stops_at_the_record_and_names_its_shard_and_sequence_number() {
    let db = poisoned("stream_poison_stop").await;
    let store = MemoryCheckpoints::new();
    let (good, error) = until_error(consumer(&db).checkpoints(store.clone()).stream()).await;
    assert_eq!(good, pairs(&[("a", 1), ("b", 2)]));
    let error = error.expect("the bad record stops the consumer");
    assert!(error.kind() == dynorm::ErrorKind::Conversion, "{error}");
    assert_eq!(error.attribute(), Some("balance"), "{error}");
    let at = error
        .stream_record()
        .expect("the error says where it is")
        .clone();
    let shard = at.shard_id().expect("a shard").to_owned();
    let sequence = at.sequence_number().expect("a sequence number").to_owned();
    let event = at.event_id().expect("an event id").to_owned();
    assert!(at.stream_arn().is_some());
    let message = error.to_string();
    for part in [
        format!("shard `{shard}`"),
        format!("sequence number `{sequence}`"),
        format!("event `{event}`"),
        format!("table `{}`", db.tables().name::<Account>()),
        "in `changes`".to_owned(),
    ] {
        assert!(message.contains(&part), "{part} in {message}");
    }
    assert!(!message.contains('\n'), "{message}");

    // A restart from the same checkpoints stops at the same record again.
    let (again, error) = until_error(consumer(&db).checkpoints(store.clone()).stream()).await;
    assert!(again.is_empty(), "{again:?}");
    assert_eq!(error.unwrap().stream_record(), Some(&at));

    // Started after it, the consumer reads on, and its checkpoint moves there for good.
    let (rest, error) = until_error(
        consumer(&db)
            .checkpoints(store.clone())
            .start_after(shard, sequence)
            .stream(),
    )
    .await;
    assert!(error.is_none(), "{error:?}");
    assert_eq!(rest, pairs(&[("a", 3), ("c", 4)]));
    let (none, error) = until_error(consumer(&db).checkpoints(store).stream()).await;
    assert!(none.is_empty() && error.is_none(), "{none:?} {error:?}");
}

#[tokio::test]
async fn start_after_refuses_what_is_not_a_position_in_the_stream() {
    let db = poisoned("stream_poison_start_after").await;
    let error = consumer(&db)
        .start_after("shardId-1", "12a")
        .stream()
        .next()
        .await
        .unwrap()
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
    let error = consumer(&db)
        .start_after("shardId-00000000000000000000-nothere", "42")
        .stream()
        .next()
        .await
        .unwrap()
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
    assert!(error.to_string().contains("nothere"), "{error}");
}

#[tokio::test]
async fn a_dead_letter_sink_takes_the_record_and_the_consumer_never_stops_at_it_again() {
    let db = poisoned("stream_poison_dead_letters").await;
    let checkpoints = TableCheckpoints::new(&db, db.tables().full_name("Checkpoints"));
    checkpoints.ensure_table().await.unwrap();
    let sink = TableDeadLetters::new(&db, db.tables().full_name("DeadLetters"));
    sink.ensure_table().await.unwrap();

    let tally = dynorm::observe::Tally::default();
    let mut changes = consumer(&db)
        .checkpoints(checkpoints.clone())
        .dead_letters(sink.clone())
        .tally(&tally)
        .stream();
    let mut good = Vec::new();
    while let Some(change) = changes.next().await {
        good.push(balance(change.expect("nothing stops the consumer")));
    }
    // Every good change, once, in order.
    assert_eq!(good, pairs(&[("a", 1), ("b", 2), ("a", 3), ("c", 4)]));
    assert_eq!(tally.dead_lettered(), 1);
    assert_eq!(tally.skipped(), 0);
    assert!(
        tally.requests() >= 3,
        "DescribeStream, GetShardIterator, GetRecords"
    );

    let letters = sink.all("billing").await.unwrap();
    assert_eq!(letters.len(), 1, "{letters:?}");
    let letter = &letters[0];
    assert_eq!(letter.consumer, "billing");
    assert_eq!(letter.table, db.tables().name::<Account>());
    assert_eq!(letter.event_name, "INSERT");
    assert!(letter.shard_id.as_deref().is_some_and(|s| !s.is_empty()));
    assert!(letter.sequence_number.bytes().all(|b| b.is_ascii_digit()));
    assert!(!letter.sequence_number.is_empty() && !letter.event_id.is_empty());
    assert!(
        letter.stream_arn.contains("stream"),
        "{}",
        letter.stream_arn
    );
    assert_eq!(
        letter.keys,
        Item::from([("id".to_owned(), AttributeValue::S("bad".into()))])
    );
    assert_eq!(letter.new_image.as_ref(), Some(&bad_item()));
    assert_eq!(letter.old_image, None);
    assert!(letter.error.contains("balance"), "{}", letter.error);
    assert!(
        letter.error.contains(&letter.sequence_number),
        "{}",
        letter.error
    );

    // A restart with the same checkpoints, without a sink, does not stop at it.
    db.put(&account("d", 5)).send().await.unwrap();
    let (rest, error) = until_error(consumer(&db).checkpoints(checkpoints).stream()).await;
    assert!(error.is_none(), "{error:?}");
    assert_eq!(rest, pairs(&[("d", 5)]));
}

#[tokio::test]
async fn a_sink_that_fails_stops_the_consumer_before_its_checkpoint_moves() {
    let db = poisoned("stream_poison_sink_fails").await;
    let store = MemoryCheckpoints::new();
    // A sink whose table was never made.
    let missing = TableDeadLetters::new(&db, db.tables().full_name("NoSuchTable"));
    let (good, error) = until_error(
        consumer(&db)
            .checkpoints(store.clone())
            .dead_letters(missing)
            .stream(),
    )
    .await;
    assert_eq!(good, pairs(&[("a", 1), ("b", 2)]));
    let error = error.expect("the sink's failure is the consumer's");
    assert!(error.kind() == dynorm::ErrorKind::TableNotFound, "{error}");
    let sequence = error
        .stream_record()
        .and_then(|at| at.sequence_number())
        .expect("the record is named")
        .to_owned();
    assert!(error.to_string().contains(&sequence), "{error}");
    assert!(error.to_string().contains("does not decode"), "{error}");

    // The record was not passed: a working sink gets it after a restart.
    let sink = MemoryDeadLetters::new();
    let (rest, error) = until_error(
        consumer(&db)
            .checkpoints(store)
            .dead_letters(sink.clone())
            .stream(),
    )
    .await;
    assert!(error.is_none(), "{error:?}");
    assert_eq!(rest, pairs(&[("a", 3), ("c", 4)]));
    let letters = sink.snapshot();
    assert_eq!(letters.len(), 1);
    assert_eq!(letters[0].sequence_number, sequence);
}

/// A Lambda event with `a = 1`, the bad item, and `c = 4`, as inserts.
fn event() -> Event {
    let record = |id: &str, sequence: &str, image: Item| {
        let keys = Item::from([("id".to_owned(), AttributeValue::S(id.into()))]);
        serde_json::json!({
            "eventID": format!("event-{sequence}"),
            "eventName": "INSERT",
            "eventVersion": "1.1",
            "eventSource": "aws:dynamodb",
            "awsRegion": "us-east-1",
            "dynamodb": {
                "Keys": serde_dynamo::Item::from(keys),
                "NewImage": serde_dynamo::Item::from(image),
                "ApproximateCreationDateTime": 1428537600,
                "SequenceNumber": sequence,
                "SizeBytes": 26,
                "StreamViewType": "NEW_AND_OLD_IMAGES"
            },
            "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/Account/stream/2015-06-27T00:48:05.899"
        })
    };
    let good = |id: &str, balance: i64| account(id, balance).to_item().unwrap();
    let json = serde_json::json!({"Records": [
        record("a", "100", good("a", 1)),
        record("bad", "101", bad_item()),
        record("c", "102", good("c", 4)),
    ]});
    serde_json::from_value(json).expect("a valid event")
}

#[tokio::test]
async fn the_lambda_handler_reports_the_record_or_sends_it_to_the_sink() {
    // The error of a record that does not decode names it.
    let batch = lambda::decode::<Account>(event());
    let (sequence, error) = &batch.records[1];
    let error = error.as_ref().unwrap_err();
    assert_eq!(sequence, "101");
    let at = error.stream_record().unwrap();
    assert_eq!(
        (at.shard_id(), at.sequence_number(), at.event_id()),
        (None, Some("101"), Some("event-101"))
    );
    assert!(
        error.to_string().contains("sequence number `101`"),
        "{error}"
    );

    // By default the batch stops there, and Lambda retries from it.
    let mut handled = Vec::new();
    let response = lambda::handle::<Account, _, _>(event(), |change| {
        handled.push(balance(change));
        async { Ok(()) }
    })
    .await;
    assert_eq!(handled, pairs(&[("a", 1)]));
    assert_eq!(
        serde_json::to_value(&response).unwrap(),
        serde_json::json!({"batchItemFailures": [{"itemIdentifier": "101"}]})
    );

    // With a sink, it is sent there and the batch goes on.
    let sink = MemoryDeadLetters::new();
    let mut handled = Vec::new();
    let response =
        lambda::handle_with_dead_letters::<Account, _, _>(event(), "mailer", &sink, |change| {
            handled.push(balance(change));
            async { Ok(()) }
        })
        .await;
    assert!(response.batch_item_failures.is_empty());
    assert_eq!(handled, pairs(&[("a", 1), ("c", 4)]));
    let letters = sink.snapshot();
    assert_eq!(letters.len(), 1);
    let letter = &letters[0];
    assert_eq!(
        (letter.consumer.as_str(), letter.table.as_str()),
        ("mailer", "Account")
    );
    assert_eq!(
        (letter.sequence_number.as_str(), letter.event_id.as_str()),
        ("101", "event-101")
    );
    assert_eq!(letter.shard_id, None);
    assert_eq!(letter.new_image.as_ref(), Some(&bad_item()));
    assert!(letter.error.contains("balance"), "{}", letter.error);

    // A sink that fails is reported like a failed handler.
    let db = common::db("stream_poison_lambda").await;
    let missing = TableDeadLetters::new(&db, db.tables().full_name("NoSuchTable"));
    let response =
        lambda::handle_with_dead_letters::<Account, _, _>(event(), "mailer", &missing, |_| async {
            Ok(())
        })
        .await;
    assert_eq!(response.batch_item_failures.len(), 1);
    assert_eq!(
        response.batch_item_failures[0].item_identifier.as_deref(),
        Some("101")
    );
}

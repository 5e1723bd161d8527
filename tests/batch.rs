//! Batches against a real server, with faults injected between the client and the server:
//! every write arrives exactly once, and what cannot be written is handed back.

mod common;

use std::collections::HashSet;
use std::time::Duration;

use dynorm::client::RetryPolicy;
use dynorm::{Client, ErrorKind, Model};
use futures::TryStreamExt;

use common::Faults;

#[derive(Model, Debug, Clone, PartialEq)]
struct Event {
    #[hash_key]
    stream: String,
    #[range_key]
    seq: u32,
    payload: String,
}

#[derive(Model, Debug, Clone, PartialEq)]
struct Tag {
    #[hash_key]
    name: String,
    uses: u64,
}

#[derive(Model, Debug, Clone, PartialEq)]
struct Reading {
    #[hash_key]
    sensor: String,
    #[range_key]
    seq: u32,
    value: f64,
}

fn event(seq: u32) -> Event {
    Event {
        stream: format!("s{}", seq % 7),
        seq,
        payload: format!("payload {seq}"),
    }
}

/// `db` with fast retries, so that tests with many injected faults stay quick: each chunk
/// makes at most `max_attempts` HTTP attempts.
fn quick(db: &Client, max_attempts: u32) -> Client {
    db.to_builder()
        .retry_policy(
            RetryPolicy::new(max_attempts)
                .backoff(Duration::from_millis(1), Duration::from_millis(20)),
        )
        .build()
}

async fn all_events(db: &dynorm::Client) -> Vec<Event> {
    db.scan::<Event>().parallel(4).try_collect().await.unwrap()
}

#[tokio::test]
async fn ten_thousand_writes_arrive_exactly_once_despite_faults() {
    let db = common::db_with::<Event>("batch_faults").await;
    let faults = Faults::new().unprocessed(0.5).throttle(0.2);
    let faulty = faults.client(&db);
    let events: Vec<Event> = (0..10_000).map(event).collect();

    let written = quick(&faulty, 60)
        .batch_write()
        .put_many(&events)
        .send()
        .await
        .unwrap();
    assert_eq!(written, 10_000);
    assert!(faults.handed_back() > 1_000, "faults were injected");
    assert!(faults.throttled() > 10, "throttling was injected");

    let stored = all_events(&db).await;
    assert_eq!(stored.len(), 10_000);
    let keys: HashSet<(String, u32)> = stored.iter().map(|e| (e.stream.clone(), e.seq)).collect();
    assert_eq!(keys.len(), 10_000, "every item once");
    assert!(stored.iter().all(|e| *e == event(e.seq)));
}

#[tokio::test]
async fn what_cannot_be_written_is_returned_not_dropped() {
    let db = common::db_with::<Event>("batch_leftovers").await;
    // Every request keeps only one write; three attempts cannot finish 25 per chunk.
    let faults = Faults::new().unprocessed(1.0);
    let faulty = faults.client(&db);
    let events: Vec<Event> = (0..100).map(event).collect();
    let error = quick(&faulty, 3)
        .batch_write()
        .put_many(&events)
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::BatchIncomplete);
    let left = error.unprocessed().expect("the leftovers");
    let stored = all_events(&db).await;
    assert_eq!(
        stored.len() + left.writes.len(),
        100,
        "written plus returned is everything"
    );
    assert!(!left.writes.is_empty());
    // The leftovers are exactly the events not stored.
    let stored_seqs: HashSet<u32> = stored.iter().map(|e| e.seq).collect();
    for (table, write) in &left.writes {
        assert_eq!(table, &db.tables().name::<Event>());
        let item = write.put_request().unwrap().item().clone();
        let leftover = Event::from_item(item).unwrap();
        assert!(!stored_seqs.contains(&leftover.seq));
    }
}

/// The puts among returned writes, decoded, in order.
fn returned_events(left: &dynorm::error::Unprocessed) -> Vec<Event> {
    let mut events: Vec<Event> = left
        .writes
        .iter()
        .filter_map(|(_, write)| write.put_request())
        .map(|put| Event::from_item(put.item().clone()).unwrap())
        .collect();
    events.sort_by_key(|e| e.seq);
    events
}

#[tokio::test]
async fn a_request_refused_as_a_whole_returns_every_write() {
    let db = common::db("batch_no_table").await; // no table: every request is refused
    let events: Vec<Event> = (0..60).map(event).collect();
    let error = quick(&db, 3)
        .batch_write()
        .put_many(&events)
        .delete::<Event>(EventKey {
            stream: "s1".into(),
            seq: 1_000,
        })
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::BatchIncomplete);
    assert!(error.to_string().contains("0 of 61"), "{error}");
    let source = std::error::Error::source(&error).expect("the service's error");
    assert!(
        format!("{source:?}").contains("ResourceNotFound"),
        "{source:?}"
    );
    let left = error.unprocessed().expect("the writes");
    assert_eq!(left.writes.len(), 61);
    assert!(left
        .writes
        .iter()
        .all(|(table, _)| *table == db.tables().name::<Event>()));
    assert_eq!(returned_events(left), events, "every put, whole");
    let deletes: Vec<_> = left
        .writes
        .iter()
        .filter_map(|(_, write)| write.delete_request())
        .collect();
    assert_eq!(deletes.len(), 1);
    assert_eq!(
        deletes[0].key().get("seq"),
        Some(&dynorm::types::AttributeValue::N("1000".into()))
    );
}

#[tokio::test]
async fn writes_of_requests_that_keep_failing_are_returned_whole() {
    let db = common::db_with::<Event>("batch_throttled").await;
    // Every response is a throttling error, so every attempt fails as a whole.
    let faults = Faults::new().throttle(1.0);
    let faulty = faults.client(&db);
    let events: Vec<Event> = (0..30).map(event).collect();
    let error = quick(&faulty, 2)
        .batch_write()
        .put_many(&events)
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::BatchIncomplete);
    assert!(faults.throttled() >= 4);
    let left = error.unprocessed().expect("the writes");
    assert_eq!(returned_events(left), events, "every put, whole");
}

#[tokio::test]
async fn an_item_that_cannot_be_converted_stops_the_batch_before_anything_is_sent() {
    let db = common::db_with::<Reading>("batch_bad_item").await;
    let mut readings: Vec<Reading> = (0..100)
        .map(|seq| Reading {
            sensor: "s1".into(),
            seq,
            value: f64::from(seq) / 2.0,
        })
        .collect();
    readings[60].value = f64::NAN;
    let error = db
        .batch_write()
        .put_many(&readings)
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation, "{error}");
    assert_eq!(error.model(), Some("Reading"));
    assert_eq!(error.attribute(), Some("value"));
    assert_eq!(error.operation(), Some("batch_write"));
    assert!(error.message().contains("write 60"), "{error}");
    assert!(
        error.message().contains("no write of the batch was sent"),
        "{error}"
    );

    // Nothing was written; every write that can be made is returned.
    assert!(db.scan::<Reading>().all().await.unwrap().is_empty());
    let left = error.unprocessed().expect("the writes not sent");
    let mut returned: Vec<Reading> = left
        .writes
        .iter()
        .map(|(_, w)| Reading::from_item(w.put_request().unwrap().item().clone()).unwrap())
        .collect();
    returned.sort_by_key(|r| r.seq);
    let mut expected = readings.clone();
    expected.remove(60);
    assert_eq!(returned, expected);
}

#[tokio::test]
async fn an_item_over_400_kb_stops_the_batch_before_anything_is_sent() {
    let db = common::db_with::<Event>("batch_big_item").await;
    let mut events: Vec<Event> = (0..30).map(event).collect();
    events[10].payload = "x".repeat(401 * 1024);
    let error = db.batch_write().put_many(&events).send().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation, "{error}");
    assert_eq!(error.model(), Some("Event"));
    assert!(error.message().contains("400 KB"), "{error}");
    assert!(error.message().contains("write 10"), "{error}");
    assert_eq!(all_events(&db).await.len(), 0);
    let mut expected = events.clone();
    expected.remove(10);
    assert_eq!(returned_events(error.unprocessed().unwrap()), expected);
}

#[tokio::test]
async fn batches_span_models_and_deletes() {
    let db = common::db_with::<Event>("batch_models").await;
    db.tables().ensure::<Tag>().send().await.unwrap();
    let events: Vec<Event> = (0..60).map(event).collect();
    let tags: Vec<Tag> = (0..40)
        .map(|i| Tag {
            name: format!("tag{i}"),
            uses: i,
        })
        .collect();
    let written = db
        .batch_write()
        .put_many(&events)
        .put_many(&tags)
        .send()
        .await
        .unwrap();
    assert_eq!(written, 100);

    let deleted = db
        .batch_write()
        .delete::<Event>(EventKey {
            stream: "s0".into(),
            seq: 0,
        })
        .delete::<Tag>("tag0")
        .send()
        .await
        .unwrap();
    assert_eq!(deleted, 2);
    assert_eq!(all_events(&db).await.len(), 59);

    // Reads of more than 100 keys across models, with keys that do not exist.
    let items = db
        .batch_get()
        .get_many::<Event, _>((0..60).map(|seq| EventKey {
            stream: format!("s{}", seq % 7),
            seq,
        }))
        .get_many::<Tag, _>((0..45).map(|i| format!("tag{i}")))
        .send()
        .await
        .unwrap();
    assert_eq!(items.items::<Event>().unwrap().len(), 59);
    let mut found: Vec<Tag> = items.items::<Tag>().unwrap();
    found.sort_by_key(|t| t.uses);
    assert_eq!(found, tags[1..].to_vec());
    let many: Vec<Tag> = db
        .get_many::<Tag, _>(["tag1", "tag2", "nope"])
        .send()
        .await
        .unwrap();
    assert_eq!(many.len(), 2);
}

#[tokio::test]
async fn duplicate_keys_are_refused_before_sending() {
    let db = common::db("batch_duplicates").await; // no table: nothing may be sent
    let error = db
        .batch_write()
        .put(&event(1))
        .put(&event(1))
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation);
    assert!(error.to_string().contains("same key"), "{error}");
    // A put and a delete of one key are the same key too.
    let error = db
        .batch_write()
        .put(&event(8))
        .delete::<Event>(EventKey {
            stream: "s1".into(),
            seq: 8,
        })
        .send()
        .await
        .unwrap_err();
    assert!(error.to_string().contains("writes 0 and 1"), "{error}");
    // An empty key is refused, naming the attribute.
    let nameless = Tag {
        name: String::new(),
        uses: 1,
    };
    let error = db.batch_write().put(&nameless).send().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation);
    assert_eq!(error.model(), Some("Tag"));
    assert_eq!(error.attribute(), Some("name"));
    assert_eq!(error.operation(), Some("batch_write"));
    let error = db
        .batch_get()
        .get::<Tag>("a")
        .get::<Tag>("a")
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation);
}

#[tokio::test]
async fn a_batch_of_no_requests_in_flight_is_refused_before_sending() {
    let db = common::db_with::<Event>("batch_concurrency_zero").await;
    let requests = common::Requests::new();
    let counted = requests.client(&db);
    let options = dynorm::batch::BatchOptions::default().concurrency(0);
    let write = counted
        .batch_write()
        .put(&event(1))
        .options(options)
        .send()
        .await
        .unwrap_err();
    let read = counted
        .batch_get()
        .get::<Event>(EventKey {
            stream: event(1).stream,
            seq: 1,
        })
        .options(options)
        .send()
        .await
        .unwrap_err();
    for error in [write, read] {
        assert_eq!(error.kind(), ErrorKind::Validation, "{error}");
        assert!(error.to_string().contains("concurrency 0"), "{error}");
    }
    assert_eq!(requests.total(), 0, "nothing is sent");
}

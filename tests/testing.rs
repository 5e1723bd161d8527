//! The test kit itself (`dynorm_test`): isolated clients, request counts and their
//! assertions, throttling with its reasons, batch items handed back as unprocessed, and
//! interceptors stacked on one client.

use std::time::Duration;

use dynorm::client::RetryPolicy;
use dynorm::{ErrorKind, Model};
use dynorm_test::{self as testing, Fault, Faults, Requests, Script};

#[derive(Model, Debug, Clone, PartialEq)]
struct Note {
    #[hash_key]
    id: String,
    #[index(name = "byAuthor")]
    author: String,
}

fn note(i: u32) -> Note {
    Note {
        id: format!("n{i}"),
        author: "ada".into(),
    }
}

#[tokio::test]
async fn isolated_clients_never_share_a_table() {
    let a = testing::client_with::<Note>("kit_isolated").await.unwrap();
    let b = testing::client_with::<Note>("kit_isolated").await.unwrap();
    assert_ne!(a.tables().name::<Note>(), b.tables().name::<Note>());
    a.put(&note(1)).send().await.unwrap();
    assert_eq!(b.get::<Note>("n1").send().await.unwrap(), None);
    assert!(testing::embedded_endpoint()
        .unwrap()
        .starts_with("http://127.0.0.1:"));
}

#[tokio::test]
async fn requests_are_counted_by_operation_and_asserted() {
    let db = testing::client_with::<Note>("kit_requests").await.unwrap();
    let requests = Requests::new();
    let counted = requests.client(&db);
    counted.put(&note(1)).send().await.unwrap();
    counted.get::<Note>("n1").send().await.unwrap();
    counted.get::<Note>("n2").send().await.unwrap();
    db.get::<Note>("n1").send().await.unwrap(); // not through the counted client
    assert_eq!(requests.sent("GetItem"), 2);
    assert_eq!(requests.total(), 3);
    assert_eq!(
        requests.counts().into_iter().collect::<Vec<_>>(),
        [("GetItem".to_owned(), 2), ("PutItem".to_owned(), 1)]
    );
    assert_eq!(requests.bodies("GetItem")[1]["Key"]["id"]["S"], "n2");
    assert_eq!(requests.take("PutItem"), 1);
    requests.assert_counts([("GetItem", 2), ("Query", 0)]);
    assert_eq!(
        requests.take_all(),
        0,
        "an assertion forgets what it checked"
    );

    counted
        .transact_write()
        .write(counted.put(&note(3)))
        .send()
        .await
        .unwrap();
    let clone = requests.clone();
    clone.assert_counts([("TransactWriteItems", 1)]);
    assert_eq!(requests.total(), 0, "clones share what they recorded");
}

#[tokio::test]
async fn a_count_assertion_that_fails_names_both_counts() {
    let db = testing::client_with::<Note>("kit_assert").await.unwrap();
    let requests = Requests::new();
    requests.client(&db).get::<Note>("n1").send().await.unwrap();
    let failure = std::panic::catch_unwind(|| requests.assert_counts([("Query", 1)]))
        .expect_err("the counts differ");
    let message = failure.downcast_ref::<String>().unwrap();
    assert_eq!(
        message,
        r#"requests by operation: expected {"Query": 1}, sent {"GetItem": 1}"#
    );
}

#[tokio::test]
async fn throttling_carries_its_reason_and_the_resource_it_names() {
    let db = testing::client_with::<Note>("kit_throttle").await.unwrap();
    let requests = Requests::new();

    // An index query: the reason and the ARN name the index.
    let script = Script::new("Query", Fault::Throttle);
    let faulty = requests.client(&script.client(&db, 2));
    let error = faulty
        .query_by::<NoteByAuthor>("ada")
        .all()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Throttled, "{error}");
    assert!(error.is_retryable());
    let reasons = error.throttling_reasons();
    assert_eq!(reasons.len(), 1);
    assert_eq!(reasons[0].reason, "IndexReadProvisionedThroughputExceeded");
    let resource = reasons[0].resource.as_deref().unwrap();
    let expected = format!("table/{}/index/byAuthor", db.tables().name::<Note>());
    assert!(resource.ends_with(&expected), "{resource}");
    assert_eq!((script.attempts(), script.injected()), (2, 2));
    // The counter stacked on top sees the faulted attempts as what they were.
    requests.assert_counts([("Query", 2)]);

    // A reason of the test's choosing, on a write.
    let reason = "TableWriteKeyRangeThroughputExceeded";
    let script = Script::new("PutItem", Fault::ThrottleWithReason(reason));
    let error = script
        .client(&db, 1)
        .put(&note(1))
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Throttled, "{error}");
    assert_eq!(error.throttling_reasons()[0].reason, reason);
    assert_eq!(
        db.get::<Note>("n1").send().await.unwrap(),
        None,
        "not applied"
    );
}

#[tokio::test]
async fn batch_reads_get_keys_back_as_unprocessed_and_finish() {
    let db = testing::client_with::<Note>("kit_batch_get").await.unwrap();
    let notes: Vec<Note> = (0..10).map(note).collect();
    db.batch_write().put_many(&notes).send().await.unwrap();

    // Every request keeps one key and hands the rest back: ten requests for ten keys.
    let faults = Faults::new().unprocessed(1.0);
    let requests = Requests::new();
    let faulty = requests.client(&faults.client(&db));
    let ids: Vec<String> = (0..10).map(|i| format!("n{i}")).collect();
    let quick = RetryPolicy::new(10).backoff(Duration::from_millis(1), Duration::from_millis(5));
    let mut found = faulty
        .to_builder()
        .retry_policy(quick)
        .build()
        .batch_get()
        .get_many::<Note, _>(ids.iter().map(String::as_str))
        .send()
        .await
        .unwrap()
        .items::<Note>()
        .unwrap();
    found.sort_by_key(|n| n.id.clone());
    assert_eq!(found, notes);
    assert_eq!(faults.handed_back(), 9 + 8 + 7 + 6 + 5 + 4 + 3 + 2 + 1);
    assert_eq!(faults.throttled(), 0);
    requests.assert_counts([("BatchGetItem", 10)]);
}

#[tokio::test]
async fn streams_faults_reach_the_streams_client_a_client_makes() {
    let db = testing::isolated_client("kit_streams").await.unwrap();
    // No streams client given: the one it makes carries the script's interceptor.
    let plain = dynorm::Client::new(db.sdk().clone());
    let script = Script::streams("GetRecords", Fault::ServerError);
    let faulty = script.streams_client(&plain);
    assert!(dynorm_streams::made_streams_client(&faulty).is_none());
    assert_eq!(
        faulty.tables().full_name("T"),
        plain.tables().full_name("T")
    );
}

/// A note with the times dynorm writes.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Stamped")]
struct Stamped {
    #[hash_key]
    id: String,
    text: String,
    #[dynorm(default = "now", read_only)]
    created_at: Option<chrono::DateTime<chrono::Utc>>,
    #[dynorm(updated_at)]
    updated_at: Option<chrono::DateTime<chrono::Utc>>,
}

/// Under a `FixedClock`, every time dynorm writes is the fixed one, on creates and updates
/// alike; once it is dropped, the system's time is written again.
#[tokio::test]
async fn a_fixed_clock_fixes_every_time_written() {
    use dynorm::types::AttributeValue;
    let db = testing::client_with::<Stamped>("testing_clock")
        .await
        .unwrap();
    let raw = |id: &'static str| {
        let db = db.clone();
        async move {
            db.sdk()
                .get_item()
                .table_name(db.tables().name::<Stamped>())
                .key("id", AttributeValue::S(id.into()))
                .send()
                .await
                .unwrap()
                .item
                .unwrap()
        }
    };
    let note = |id: &str| Stamped {
        id: id.into(),
        text: "first".into(),
        created_at: None,
        updated_at: None,
    };
    let at = std::time::UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
    let fixed = AttributeValue::S("2023-11-14T22:13:20.123Z".into());
    {
        let _clock = testing::FixedClock::at(at);
        db.create(&note("n1")).send().await.unwrap();
        db.update::<Stamped>("n1")
            .set(Stamped::TEXT, "second")
            .send()
            .await
            .unwrap();
        let item = raw("n1").await;
        assert_eq!((&item["created_at"], &item["updated_at"]), (&fixed, &fixed));
    }
    db.create(&note("n2")).send().await.unwrap();
    assert_ne!(raw("n2").await["updated_at"], fixed);
}

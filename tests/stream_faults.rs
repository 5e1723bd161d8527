//! The change consumer under DynamoDB Streams faults injected into its requests: throttling
//! and server errors are retried a bounded number of times, an expired iterator is opened
//! again after the last checkpoint, and trimmed records are reported, never skipped.

mod common;

use std::time::Duration;

use common::{Fault, Script};
use dynorm::client::RetryPolicy;
use dynorm::{Client, ErrorKind, Model};
use dynorm_streams::{
    ChangeKind, Checkpoint, CheckpointKey, CheckpointStore, MemoryCheckpoints, ModelChange,
};
use futures::StreamExt;

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(stream = "new_and_old_images")]
struct Counter {
    #[hash_key]
    id: String,
    value: i64,
}

const IDLE: Duration = Duration::from_millis(700);

/// The client's one retry policy, with fast backoff: `attempts` HTTP attempts per request.
fn quick(attempts: u32) -> RetryPolicy {
    RetryPolicy::new(attempts).backoff(Duration::from_millis(1), Duration::from_millis(20))
}

/// A table whose stream holds five changes to one item: values 0 to 4.
async fn five_changes(label: &str) -> Client {
    let db = common::db_with::<Counter>(label).await;
    for value in 0..5 {
        db.put(&Counter {
            id: "c".into(),
            value,
        })
        .send()
        .await
        .unwrap();
    }
    db
}

fn value(change: dynorm::Result<ModelChange<Counter>>) -> i64 {
    match change.unwrap().kind {
        ChangeKind::Insert { new } | ChangeKind::Modify { new, .. } => new.value,
        other => panic!("unexpected {other:?}"),
    }
}

#[tokio::test]
async fn throttling_and_server_errors_of_get_records_are_retried_and_lose_nothing() {
    let db = five_changes("stream_faults_retry").await;
    for fault in [
        Fault::Throttle,
        Fault::Coded("LimitExceededException"),
        Fault::ServerError,
    ] {
        // The second GetRecords fails three times, then passes.
        let script = Script::streams("GetRecords", fault).skip(1).times(3);
        let values: Vec<i64> = dynorm_streams::changes::<Counter>(
            &script
                .streams_client(&db)
                .to_builder()
                .retry_policy(quick(4))
                .build(),
        )
        .page_size(2)
        .poll_interval(Duration::from_millis(50))
        .stop_when_idle(IDLE)
        .stream()
        .map(value)
        .collect()
        .await;
        assert_eq!(values, [0, 1, 2, 3, 4], "{fault:?}");
        assert_eq!(script.injected(), 3, "{fault:?}");
    }
}

#[tokio::test]
async fn throttling_past_the_bound_ends_the_stream_with_a_typed_error() {
    let db = five_changes("stream_faults_bound").await;
    let script = Script::streams("GetRecords", Fault::Throttle);
    let results: Vec<_> = dynorm_streams::changes::<Counter>(
        &script
            .streams_client(&db)
            .to_builder()
            .retry_policy(quick(3))
            .build(),
    )
    .poll_interval(Duration::from_millis(50))
    .stream()
    .collect()
    .await;
    // One attempt and two retries, then the error, and the stream ends.
    assert_eq!(script.attempts(), 3);
    assert_eq!(results.len(), 1);
    let error = results.into_iter().next().unwrap().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Throttled, "{error}");
    assert!(error.is_retryable());
    assert_eq!(error.operation(), Some("changes"));
    assert_eq!(error.model(), Some("Counter"));
    assert_eq!(error.table(), Some(db.tables().name::<Counter>().as_str()));
    assert_eq!(error.code(), Some("ProvisionedThroughputExceededException"));
}

#[tokio::test]
async fn an_expired_iterator_is_opened_again_after_the_last_checkpoint() {
    let db = five_changes("stream_faults_expired").await;
    // Every second GetRecords finds its iterator expired once.
    for skip in [1, 2] {
        let script = Script::streams("GetRecords", Fault::Coded("ExpiredIteratorException"))
            .skip(skip)
            .times(1);
        let values: Vec<i64> = dynorm_streams::changes::<Counter>(&script.streams_client(&db))
            .page_size(2)
            .poll_interval(Duration::from_millis(50))
            .stop_when_idle(IDLE)
            .stream()
            .map(value)
            .collect()
            .await;
        assert_eq!(values, [0, 1, 2, 3, 4], "expired after {skip} reads");
        assert_eq!(script.injected(), 1);
    }
    // An iterator that expires every time is an error once the retries run out.
    let script = Script::streams("GetRecords", Fault::Coded("ExpiredIteratorException"));
    let results: Vec<_> = dynorm_streams::changes::<Counter>(
        &script
            .streams_client(&db)
            .to_builder()
            .retry_policy(quick(3))
            .build(),
    )
    .poll_interval(Duration::from_millis(50))
    .stream()
    .collect()
    .await;
    assert_eq!(script.attempts(), 3);
    let error = results.into_iter().next().unwrap().unwrap_err();
    assert_eq!(error.code(), Some("ExpiredIteratorException"), "{error}");
    assert!(
        error.to_string().contains("expired 3 times in a row"),
        "{error}"
    );
}

#[tokio::test]
async fn records_trimmed_before_they_were_read_are_reported_not_skipped() {
    let db = five_changes("stream_faults_trimmed").await;
    let store = MemoryCheckpoints::new();
    // A first run handles two changes.
    let mut first = dynorm_streams::changes::<Counter>(&db)
        .consumer("trimmed")
        .checkpoints(store.clone())
        .poll_interval(Duration::from_millis(50))
        .stream();
    assert_eq!(value(first.next().await.unwrap()), 0);
    assert_eq!(value(first.next().await.unwrap()), 1);
    first.commit().await.unwrap();
    drop(first);
    let [((_, stream, shard), Checkpoint::After(sequence))] = &store.snapshot()[..] else {
        panic!("one checkpoint: {:?}", store.snapshot());
    };
    // Meanwhile the records after the checkpoint left the stream.
    let script = Script::streams(
        "GetShardIterator",
        Fault::Coded("TrimmedDataAccessException"),
    );
    let results: Vec<_> = dynorm_streams::changes::<Counter>(&script.streams_client(&db))
        .consumer("trimmed")
        .checkpoints(store.clone())
        .poll_interval(Duration::from_millis(50))
        .stream()
        .collect()
        .await;
    assert_eq!(results.len(), 1, "no change is yielded past the gap");
    let error = results.into_iter().next().unwrap().unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::StreamTrimmed, "{error}");
    assert!(!error.is_retryable());
    assert!(error.to_string().contains(sequence.as_str()), "{error}");
    assert!(error.to_string().contains(shard.as_str()), "{error}");
    // The checkpoint stays where it was: nothing is marked handled.
    assert_eq!(
        store
            .load(CheckpointKey::new("trimmed", stream, shard))
            .await
            .unwrap(),
        Some(Checkpoint::After(sequence.clone()))
    );
}

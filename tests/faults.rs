//! Bounded, deterministic fault injection on every kind of request, against a real server.
//!
//! Each operation (get, query and scan pages, a conditional update, write and read
//! transactions, a batch get) gets throttling, a server error or a timeout, on every
//! attempt or on one attempt only, from an SDK interceptor (`dynorm_test::Script`). The
//! SDK's retries are set explicitly to 3 attempts, so each case knows how many attempts
//! must be made, the typed error it must end with, and what must be stored afterwards:
//! a write is applied once, or not at all.

mod common;

use std::time::Duration;

use dynorm::client::RetryPolicy;
use dynorm::types::AttributeValue;
use dynorm::{Client, Error, ErrorKind, Model};
use futures::future::join_all;

use common::{Fault, Script};

/// The SDK's attempts per request in these tests, the first included: also every HTTP
/// attempt of a batch chunk, which follows the client's one retry policy.
const SDK_ATTEMPTS: u32 = 3;

#[derive(Model, Debug, Clone, PartialEq)]
struct Counter {
    #[hash_key]
    id: String,
    hits: u64,
}

#[derive(Model, Debug, Clone, PartialEq)]
struct Event {
    #[hash_key]
    stream: String,
    #[range_key]
    seq: u32,
}

#[derive(Model, Debug, Clone, PartialEq)]
struct Account {
    #[hash_key]
    id: String,
    balance: i64,
    #[version]
    version: u64,
}

/// Five events, read in pages of two: three requests.
const EVENTS: u32 = 5;
const PAGE: u32 = 2;
const PAGES: usize = 3;

/// Every operation the faults are injected into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Get,
    QueryPages,
    ScanPages,
    Update,
    TransactWrite,
    TransactGet,
    BatchGet,
}

const OPS: [Op; 7] = [
    Op::Get,
    Op::QueryPages,
    Op::ScanPages,
    Op::Update,
    Op::TransactWrite,
    Op::TransactGet,
    Op::BatchGet,
];

impl Op {
    /// The DynamoDB operation it sends.
    fn target(self) -> &'static str {
        match self {
            Op::Get => "GetItem",
            Op::QueryPages => "Query",
            Op::ScanPages => "Scan",
            Op::Update => "UpdateItem",
            Op::TransactWrite => "TransactWriteItems",
            Op::TransactGet => "TransactGetItems",
            Op::BatchGet => "BatchGetItem",
        }
    }

    /// The operation dynorm's errors name.
    fn name(self) -> &'static str {
        match self {
            Op::Get => "get",
            Op::QueryPages => "query",
            Op::ScanPages => "scan",
            Op::Update => "update",
            Op::TransactWrite => "transact_write",
            Op::TransactGet => "transact_get",
            Op::BatchGet => "batch_get",
        }
    }

    /// Attempts that pass before the faults start: pages are faulted from the second on,
    /// after a first page was read.
    fn skip(self) -> usize {
        match self {
            Op::QueryPages | Op::ScanPages => 1,
            _ => 0,
        }
    }

    /// Requests it sends when nothing fails.
    fn requests(self) -> usize {
        match self {
            Op::QueryPages | Op::ScanPages => PAGES,
            _ => 1,
        }
    }

    /// The model its errors name; a transaction names none.
    fn model(self) -> Option<&'static str> {
        match self {
            Op::QueryPages | Op::ScanPages => Some("Event"),
            Op::TransactWrite | Op::TransactGet | Op::BatchGet => None,
            _ => Some("Counter"),
        }
    }

    /// The table its errors name.
    fn table(self, db: &Client) -> String {
        match self {
            Op::QueryPages | Op::ScanPages => db.tables().name::<Event>(),
            _ => db.tables().name::<Counter>(),
        }
    }

    /// Sends it through `client`, and checks what it returned when it succeeded.
    async fn run(self, client: &Client) -> Result<(), Error> {
        match self {
            Op::Get => {
                let found = client
                    .get::<Counter>("c1")
                    .send()
                    .await?
                    .expect("the item exists");
                assert_eq!(found.hits, 0);
            }
            Op::QueryPages => {
                let events = client.query_by::<Event>("s").page_size(PAGE).all().await?;
                let seqs: Vec<u32> = events.iter().map(|e| e.seq).collect();
                assert_eq!(seqs, (0..EVENTS).collect::<Vec<_>>(), "each once, in order");
            }
            Op::ScanPages => {
                let events = client.scan::<Event>().page_size(PAGE).all().await?;
                let mut seqs: Vec<u32> = events.iter().map(|e| e.seq).collect();
                seqs.sort_unstable();
                assert_eq!(seqs, (0..EVENTS).collect::<Vec<_>>(), "each once");
            }
            Op::Update => {
                client
                    .update::<Counter>("c1")
                    .increment(Counter::HITS, 1)
                    .condition(Counter::HITS.eq(0u64))
                    .send()
                    .await?;
            }
            Op::TransactWrite => {
                client
                    .transact_write()
                    .write(
                        client
                            .update::<Counter>("c1")
                            .increment(Counter::HITS, 1)
                            .condition(Counter::HITS.eq(0u64)),
                    )
                    .write(client.update::<Counter>("c2").increment(Counter::HITS, 1))
                    .send()
                    .await?;
            }
            Op::TransactGet => {
                let found = client
                    .transact_get()
                    .get::<Counter>("c1")
                    .get::<Counter>("c2")
                    .send()
                    .await?;
                assert!(found.get::<Counter>(0)?.is_some() && found.get::<Counter>(1)?.is_some());
            }
            Op::BatchGet => {
                let found = client
                    .batch_get()
                    .get_many::<Counter, _>(["c1", "c2"])
                    .send()
                    .await?;
                assert_eq!(found.items::<Counter>()?.len(), 2);
            }
        }
        Ok(())
    }

    /// The counters' hits, as stored, after it ran: once if it succeeded and writes, and
    /// untouched otherwise.
    fn stored_hits(self, succeeded: bool) -> (u64, u64) {
        match (self, succeeded) {
            (Op::Update, true) => (1, 0),
            (Op::TransactWrite, true) => (1, 1),
            _ => (0, 0),
        }
    }
}

/// A client with `Counter` and `Event` tables of its own: counters `c1` and `c2` at 0, and
/// events 0 to 4 of stream `s`.
async fn seeded(label: &str) -> Client {
    let db = common::db_with::<Counter>(label).await;
    db.tables().ensure::<Event>().send().await.unwrap();
    db.tables().ensure::<Account>().send().await.unwrap();
    for id in ["c1", "c2"] {
        db.put(&Counter {
            id: id.into(),
            hits: 0,
        })
        .send()
        .await
        .unwrap();
    }
    for seq in 0..EVENTS {
        db.put(&Event {
            stream: "s".into(),
            seq,
        })
        .send()
        .await
        .unwrap();
    }
    db
}

/// An attribute of an item as stored, read with the raw SDK.
async fn raw(db: &Client, table: String, id: &str, attribute: &str) -> Option<AttributeValue> {
    db.sdk()
        .get_item()
        .table_name(table)
        .key("id", AttributeValue::S(id.into()))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item?
        .remove(attribute)
}

async fn raw_hits(db: &Client, id: &str) -> u64 {
    match raw(db, db.tables().name::<Counter>(), id, "hits").await {
        Some(AttributeValue::N(n)) => n.parse().unwrap(),
        other => panic!("hits of {id}: {other:?}"),
    }
}

/// The kind, code and message start a fault leaves, after the retries.
fn expected(fault: Fault) -> (ErrorKind, Option<&'static str>, &'static str) {
    match fault {
        Fault::Throttle => (
            ErrorKind::Throttled,
            Some("ProvisionedThroughputExceededException"),
            "The level of configured provisioned throughput for the table was exceeded.",
        ),
        Fault::ServerError | Fault::ServerErrorAfterApplying => (
            ErrorKind::Service,
            Some("InternalServerError"),
            "Internal server error",
        ),
        Fault::Timeout => (ErrorKind::Service, None, "the request timed out"),
        Fault::Coded(code) => (ErrorKind::Service, Some(code), "injected"),
        other => panic!("no expectation for {other:?}"),
    }
}

/// Checks the error of a request whose every attempt got `fault`.
fn check_error(op: Op, fault: Fault, db: &Client, error: &Error) {
    let (kind, code, message) = expected(fault);
    let shown = error.to_string();
    assert!(
        !shown.contains('\n') && shown.len() < 400,
        "{op:?}: {shown}"
    );
    assert!(error.is_retryable(), "{op:?}: {error:?}");
    assert_eq!(error.operation(), Some(op.name()), "{op:?}: {error}");
    // A batch hands back what it could not read, with the last failure as the source.
    let last = if op == Op::BatchGet {
        assert_eq!(error.kind(), ErrorKind::BatchIncomplete, "{error}");
        assert_eq!(error.unprocessed().map(|u| u.keys.len()), Some(2));
        assert_eq!(error.table(), Some(op.table(db).as_str()), "{error}");
        let last_failure = format!("; the last failure: {}", code.unwrap_or(message));
        assert!(shown.contains(&last_failure), "{error}");
        std::error::Error::source(error)
            .and_then(|s| s.downcast_ref::<Error>())
            .expect("the last failure")
    } else {
        error
    };
    assert_eq!(last.kind(), kind, "{op:?}: {last}");
    assert_eq!(last.code(), code, "{op:?}: {last}");
    assert!(last.message().starts_with(message), "{op:?}: {last}");
    assert!(last.is_retryable(), "{op:?}: {last:?}");
    assert_eq!(last.model(), op.model(), "{op:?}: {last}");
    assert_eq!(last.table(), Some(op.table(db).as_str()), "{op:?}: {last}");
    let mut start = format!("{} in `{}`", kind_label(kind), op.name());
    if let Some(model) = op.model() {
        start.push_str(&format!(" on model `{model}`"));
    }
    start.push_str(&format!(", table `{}`: ", op.table(db)));
    if let Some(code) = code {
        start.push_str(&format!("{code}: "));
    }
    start.push_str(message);
    assert!(
        last.to_string().starts_with(&start),
        "{op:?}: {last}\n{start}"
    );
    if fault == Fault::Throttle {
        let reasons = last.throttling_reasons();
        assert_eq!(reasons.len(), 1, "{op:?}: {last:?}");
        let access = match op {
            Op::Update | Op::TransactWrite => "Write",
            _ => "Read",
        };
        assert_eq!(
            reasons[0].reason,
            format!("Table{access}ProvisionedThroughputExceeded")
        );
        // The ARN of the table the request named, in the client's region.
        let resource = reasons[0].resource.as_deref().unwrap();
        assert!(resource.starts_with("arn:aws:dynamodb:"), "{resource}");
        let table = format!(":000000000000:table/{}", op.table(db));
        assert!(resource.ends_with(&table), "{op:?}: {resource}");
    }
}

fn kind_label(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Throttled => "throttled",
        _ => "service error",
    }
}

/// Every attempt of `op` gets `fault`: the request fails with the fault's typed error
/// after exactly `SDK_ATTEMPTS` attempts (for a batch too: dynorm's attempts of a chunk are
/// not multiplied by the SDK's), and nothing is written.
async fn always(op: Op, fault: Fault) {
    let db = seeded(&format!("faults_always_{}", op.name())).await;
    let script = Script::new(op.target(), fault).skip(op.skip());
    let faulty = script.client(&db, SDK_ATTEMPTS);
    let error = op.run(&faulty).await.expect_err(&format!("{op:?}"));
    check_error(op, fault, &db, &error);
    let faulted = SDK_ATTEMPTS as usize;
    assert_eq!(
        script.injected(),
        faulted,
        "{op:?} {fault:?}: faulted attempts"
    );
    assert_eq!(
        script.attempts(),
        op.skip() + faulted,
        "{op:?} {fault:?}: attempts"
    );
    assert_eq!(
        (raw_hits(&db, "c1").await, raw_hits(&db, "c2").await),
        op.stored_hits(false),
        "{op:?} {fault:?}: nothing written"
    );
}

/// One attempt of `op` gets `fault`: the SDK retries it once, the request succeeds, and a
/// write is applied exactly once.
async fn once(op: Op, fault: Fault) {
    let db = seeded(&format!("faults_once_{}", op.name())).await;
    let script = Script::new(op.target(), fault).skip(op.skip()).times(1);
    let faulty = script.client(&db, SDK_ATTEMPTS);
    op.run(&faulty)
        .await
        .unwrap_or_else(|e| panic!("{op:?} {fault:?}: {e}"));
    assert_eq!(script.injected(), 1, "{op:?} {fault:?}");
    assert_eq!(
        script.attempts(),
        op.requests() + 1,
        "{op:?} {fault:?}: attempts"
    );
    assert_eq!(
        (raw_hits(&db, "c1").await, raw_hits(&db, "c2").await),
        op.stored_hits(true),
        "{op:?} {fault:?}: applied once"
    );
}

#[tokio::test]
async fn throttling_on_every_attempt_is_a_throttled_error_after_exactly_three_attempts() {
    join_all(OPS.map(|op| always(op, Fault::Throttle))).await;
}

#[tokio::test]
async fn throttling_on_one_attempt_is_retried_and_succeeds() {
    join_all(OPS.map(|op| once(op, Fault::Throttle))).await;
}

#[tokio::test]
async fn a_server_error_on_every_attempt_is_a_retryable_service_error_after_exactly_three_attempts()
{
    join_all(OPS.map(|op| always(op, Fault::ServerError))).await;
}

#[tokio::test]
async fn a_server_error_on_one_attempt_is_retried_and_succeeds() {
    join_all(OPS.map(|op| once(op, Fault::ServerError))).await;
}

#[tokio::test]
async fn a_timeout_on_every_attempt_is_a_retryable_service_error_after_exactly_three_attempts() {
    join_all(OPS.map(|op| always(op, Fault::Timeout))).await;
}

#[tokio::test]
async fn a_timeout_on_one_attempt_is_retried_and_succeeds() {
    join_all(OPS.map(|op| once(op, Fault::Timeout))).await;
}

// When the server applied a write and its answer was lost, the SDK sends the write again.
// A condition makes the second attempt fail instead of applying it twice; the caller then
// sees the condition's error for a write that was in fact made by its first attempt.

#[tokio::test]
async fn a_conditional_update_whose_answer_is_lost_is_not_applied_twice() {
    let db = seeded("faults_lost_update").await;
    let script = Script::new("UpdateItem", Fault::ServerErrorAfterApplying).times(1);
    let faulty = script.client(&db, SDK_ATTEMPTS);
    let error = Op::Update.run(&faulty).await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::ConditionFailed, "{error}");
    assert_eq!(script.attempts(), 2);
    assert_eq!(raw_hits(&db, "c1").await, 1, "applied once");
}

#[tokio::test]
async fn a_versioned_update_whose_answer_is_lost_is_not_applied_twice() {
    let db = seeded("faults_lost_version").await;
    db.create(&Account {
        id: "a1".into(),
        balance: 100,
        version: 0,
    })
    .send()
    .await
    .unwrap();
    let script = Script::new("UpdateItem", Fault::ServerErrorAfterApplying).times(1);
    let faulty = script.client(&db, SDK_ATTEMPTS);
    let error = faulty
        .update::<Account>("a1")
        .decrement(Account::BALANCE, 30)
        .expect_version(1)
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::VersionConflict, "{error}");
    assert_eq!(script.attempts(), 2);
    let table = db.tables().name::<Account>();
    assert_eq!(
        raw(&db, table.clone(), "a1", "balance").await,
        Some(AttributeValue::N("70".into())),
        "debited once"
    );
    assert_eq!(
        raw(&db, table, "a1", "version").await,
        Some(AttributeValue::N("2".into()))
    );
}

#[tokio::test]
async fn a_create_whose_answer_is_lost_is_not_applied_twice() {
    let db = seeded("faults_lost_create").await;
    let script = Script::new("PutItem", Fault::ServerErrorAfterApplying).times(1);
    let faulty = script.client(&db, SDK_ATTEMPTS);
    let error = faulty
        .create(&Counter {
            id: "c3".into(),
            hits: 7,
        })
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::AlreadyExists, "{error}");
    assert_eq!(script.attempts(), 2);
    assert_eq!(raw_hits(&db, "c3").await, 7);
    let stored = db.scan::<Counter>().all().await.unwrap();
    assert_eq!(stored.len(), 3, "c1, c2 and one c3");
}

#[tokio::test]
async fn a_transaction_whose_answer_is_lost_is_applied_once_by_its_request_token() {
    // The SDK gives every TransactWriteItems a client request token and keeps it across
    // retries, so the server answers the second attempt from the first one.
    let db = seeded("faults_lost_transaction").await;
    let script = Script::new("TransactWriteItems", Fault::ServerErrorAfterApplying).times(1);
    let faulty = script.client(&db, SDK_ATTEMPTS);
    Op::TransactWrite.run(&faulty).await.unwrap();
    assert_eq!(script.attempts(), 2);
    assert_eq!(
        (raw_hits(&db, "c1").await, raw_hits(&db, "c2").await),
        (1, 1),
        "applied once"
    );
}

/// One chunk of each batch kind, throttled on every attempt, makes exactly the client's
/// `max_attempts` HTTP attempts in all, as `RetryPolicy` documents: the SDK's retries do
/// not multiply them. The policy is the SDK's `RetryConfig` (here `SDK_ATTEMPTS`), or the
/// one set on the client, whatever the SDK's.
#[tokio::test]
async fn a_throttled_batch_chunk_makes_exactly_the_policy_s_attempts() {
    let db = seeded("faults_batch_bound").await;
    let quick = |attempts| {
        RetryPolicy::new(attempts).backoff(Duration::from_millis(1), Duration::from_millis(5))
    };
    // (the policy set on the client, if any; the attempts of one chunk)
    for (policy, bound) in [(None, SDK_ATTEMPTS), (Some(5), 5), (Some(1), 1)] {
        for target in ["BatchWriteItem", "BatchGetItem"] {
            let script = Script::new(target, Fault::Throttle);
            let mut faulty = script.client(&db, SDK_ATTEMPTS);
            if let Some(attempts) = policy {
                faulty = faulty.to_builder().retry_policy(quick(attempts)).build();
            }
            let error = if target == "BatchWriteItem" {
                let counters: Vec<Counter> = (0..25)
                    .map(|n| Counter {
                        id: format!("w{n}"),
                        hits: 1,
                    })
                    .collect();
                faulty
                    .batch_write()
                    .put_many(&counters)
                    .send()
                    .await
                    .unwrap_err()
            } else {
                faulty
                    .batch_get()
                    .get_many::<Counter, _>(["c1", "c2"])
                    .send()
                    .await
                    .unwrap_err()
            };
            assert_eq!(error.kind(), ErrorKind::BatchIncomplete, "{error}");
            assert!(error.is_retryable(), "{error}");
            assert_eq!(
                script.attempts(),
                bound as usize,
                "{target} under {policy:?}: HTTP attempts of one chunk"
            );
        }
    }
    // Nothing was written.
    assert!(db.get::<Counter>("w0").send().await.unwrap().is_none());
}

/// A chunk that DynamoDB keeps handing back in part, then throttles, counts both in one
/// bound: the handed-back writes are sent again within the same attempts.
#[tokio::test]
async fn handed_back_writes_and_throttling_share_one_bound() {
    let db = seeded("faults_batch_shared").await;
    // The first attempt passes (and the kit's faults hand back all but one write), every
    // later one is throttled.
    let faults = common::Faults::new().unprocessed(1.0);
    let script = Script::new("BatchWriteItem", Fault::Throttle).skip(1);
    let faulty = script
        .client(&faults.client(&db), SDK_ATTEMPTS)
        .to_builder()
        .retry_policy(
            RetryPolicy::new(4).backoff(Duration::from_millis(1), Duration::from_millis(5)),
        )
        .build();
    let counters: Vec<Counter> = (0..10)
        .map(|n| Counter {
            id: format!("s{n}"),
            hits: 1,
        })
        .collect();
    let error = faulty
        .batch_write()
        .put_many(&counters)
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::BatchIncomplete, "{error}");
    assert_eq!(script.attempts(), 4, "one chunk, four HTTP attempts in all");
    assert_eq!(error.unprocessed().unwrap().writes.len(), 9);
}

//! One rate limiter shared by scans, parallel scans, queries, batch writes and backfills,
//! against a real server: every request that carries it spends exactly what DynamoDB
//! says it consumed, and writes handed back unprocessed lower its rate. Its pacing is
//! tested on a paused clock in `observe/limiter.rs`.

mod common;

use dynorm::Request;
use std::time::Duration;

use dynorm::client::RetryPolicy;
use dynorm::observe::{RateLimiter, Tally};
use dynorm::Model;
use dynorm_test::Faults;
use futures::TryStreamExt;

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Limited")]
struct Row {
    #[hash_key]
    group: String,
    #[range_key]
    id: u32,
    body: String,
}

fn rows(n: u32) -> Vec<Row> {
    (0..n)
        .map(|id| Row {
            group: format!("g{}", id % 4),
            id,
            body: "x".repeat(1500),
        })
        .collect()
}

/// The units a tally saw.
fn units(tally: &Tally) -> f64 {
    tally.consumed_capacity().map_or(0.0, |c| c.units)
}

#[tokio::test]
async fn every_request_that_carries_it_spends_what_it_consumed() {
    let db = common::db_with::<Row>("limiter_spend").await;
    let limiter = RateLimiter::new(1_000_000.0).unwrap();
    let mut spent = 0.0;
    let mut check = |what: &str, tally: &Tally| {
        let used = units(tally);
        assert!(used > 0.0, "{what}: the server reported capacity");
        spent += used;
        assert!(
            (limiter.units_spent() - spent).abs() < 1e-9,
            "{what}: the limiter spent {} of {spent}",
            limiter.units_spent()
        );
    };

    let tally = Tally::default();
    let written = db
        .batch_write()
        .put_many(&rows(120))
        .rate_limiter(&limiter)
        .tally(&tally)
        .send()
        .await
        .unwrap();
    assert_eq!(written, 120);
    check("batch write", &tally);

    let tally = Tally::default();
    let scanned = db
        .scan::<Row>()
        .page_size(25)
        .rate_limiter(&limiter)
        .tally(&tally)
        .all()
        .await
        .unwrap();
    assert_eq!(scanned.len(), 120);
    assert!(tally.requests() > 1, "several pages");
    check("scan", &tally);

    let tally = Tally::default();
    let parallel: Vec<Row> = db
        .scan::<Row>()
        .rate_limiter(&limiter)
        .tally(&tally)
        .parallel(4)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(parallel.len(), 120);
    check("parallel scan", &tally);

    let tally = Tally::default();
    let queried = db
        .query_by::<Row>("g1")
        .page_size(10)
        .rate_limiter(&limiter)
        .tally(&tally)
        .all()
        .await
        .unwrap();
    assert_eq!(queried.len(), 30);
    check("query", &tally);
}

#[tokio::test]
async fn writes_handed_back_lower_the_rate() {
    let db = common::db_with::<Row>("limiter_throttled").await;
    let faults = Faults::new().unprocessed(0.5);
    // Half of every batch is handed back: enough attempts that every write goes through.
    let faulty = faults
        .client(&db)
        .to_builder()
        .retry_policy(
            RetryPolicy::new(20).backoff(Duration::from_millis(1), Duration::from_millis(20)),
        )
        .build();
    let limiter = RateLimiter::new(1_000_000.0).unwrap();
    let written = faulty
        .batch_write()
        .put_many(&rows(200))
        .rate_limiter(&limiter)
        .send()
        .await
        .unwrap();
    assert_eq!(written, 200, "nothing lost");
    assert!(faults.handed_back() > 0);
    assert!(
        limiter.units_per_second() < 1_000_000.0,
        "the rate came down: {}",
        limiter.units_per_second()
    );
    assert!(limiter.units_spent() > 0.0);
}

#[test]
fn a_rate_of_nothing_is_refused() {
    let error = RateLimiter::new(0.0).unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
}

//! Benchmark 6: allocations per operation, dynorm against the raw aws-sdk-dynamodb call
//! doing the same work (`common::operations`: the same requests, checked before anything
//! is counted, and the hand-written conversion of benchmark 1).
//!
//! ```sh
//! cargo bench --bench allocations
//! ```
//!
//! A counting global allocator (`common::counting`) counts the allocations made on the
//! client's thread during one call: dynorm's own work, the SDK's (request, serialization,
//! signing, HTTP, response, parsing) and the client runtime's. The embedded server runs on
//! threads of its own, so its allocations are not counted. Counts do not depend on the
//! machine's load, so each call is counted alone; the two sides alternate in ABBA order,
//! and the figures are medians over the rounds, with their range.

mod common;

use std::future::Future;

use common::counting::{thread_allocations, Allocations, Counting};
use common::operations::{Fixture, BATCH_ITEMS, QUERY_ITEMS};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The allocations `call` makes on this thread.
async fn counted<F: Future>(call: F) -> Allocations {
    let before = thread_allocations();
    std::hint::black_box(call.await);
    thread_allocations() - before
}

/// Counts `rounds` calls of each side, in ABBA order, after a few uncounted ones; `reset`
/// runs uncounted before each call.
async fn compare<D, R, S, DF, RF, SF>(
    rounds: usize,
    mut dynorm: D,
    mut raw: R,
    mut reset: S,
) -> (Vec<Allocations>, Vec<Allocations>)
where
    D: FnMut() -> DF,
    R: FnMut() -> RF,
    S: FnMut() -> SF,
    DF: Future,
    RF: Future,
    SF: Future,
{
    for _ in 0..5 {
        reset().await;
        dynorm().await;
        reset().await;
        raw().await;
    }
    let (mut d, mut r) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    for round in 0..rounds {
        for side in [round % 2, 1 - round % 2] {
            reset().await;
            if side == 0 {
                d.push(counted(dynorm()).await);
            } else {
                r.push(counted(raw()).await);
            }
        }
    }
    (d, r)
}

/// Median, min and max of one figure.
fn spread(values: &[Allocations], figure: fn(&Allocations) -> u64) -> (f64, u64, u64) {
    let mut all: Vec<f64> = values.iter().map(|a| figure(a) as f64).collect();
    let median = common::median(&mut all);
    let min = values.iter().map(figure).min().unwrap_or(0);
    let max = values.iter().map(figure).max().unwrap_or(0);
    (median, min, max)
}

fn report(mode: &common::RunMode, op: &str, dynorm: &[Allocations], raw: &[Allocations]) {
    let count = |a: &Allocations| a.count;
    let bytes = |a: &Allocations| a.bytes;
    let (dc, dc_min, dc_max) = spread(dynorm, count);
    let (rc, rc_min, rc_max) = spread(raw, count);
    let (db, _, _) = spread(dynorm, bytes);
    let (rb, _, _) = spread(raw, bytes);
    println!(
        "{op:<10} allocations: dynorm {dc} ({dc_min}-{dc_max}), raw {rc} ({rc_min}-{rc_max}), \
         dynorm - raw {:+}; bytes: dynorm {db}, raw {rb}, dynorm - raw {:+}",
        dc - rc,
        db - rb,
    );
    if mode.bench {
        let json = format!(
            "{{\"op\": \"{op}\", \"rounds\": {}, \"dynorm_allocations\": {dc}, \
             \"raw_allocations\": {rc}, \"dynorm_bytes\": {db}, \"raw_bytes\": {rb}}}\n",
            dynorm.len()
        );
        common::write_result("allocations", op, &json);
    }
}

fn main() {
    let mode = common::RunMode::from_args();
    if mode.list {
        return;
    }
    let rounds = if mode.bench { 51 } else { 3 };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    rt.block_on(async {
        let f = &Fixture::new().await;
        let nothing = || async {};
        let put_back = || f.raw_put();
        if mode.wants("get") {
            let (d, r) = compare(rounds, || f.dynorm_get(), || f.raw_get(), nothing).await;
            report(&mode, "get", &d, &r);
        }
        if mode.wants("put") {
            let (d, r) = compare(rounds, || f.dynorm_put(), || f.raw_put(), nothing).await;
            report(&mode, "put", &d, &r);
        }
        if mode.wants("update") {
            let (d, r) = compare(rounds, || f.dynorm_update(), || f.raw_update(), nothing).await;
            report(&mode, "update", &d, &r);
        }
        if mode.wants("delete") {
            let (d, r) = compare(rounds, || f.dynorm_delete(), || f.raw_delete(), put_back).await;
            report(&mode, "delete", &d, &r);
        }
        if mode.wants("query") {
            let (d, r) = compare(rounds, || f.dynorm_query(), || f.raw_query(), nothing).await;
            report(&mode, &format!("query_{QUERY_ITEMS}"), &d, &r);
        }
        if mode.wants("batch") {
            let (d, r) = compare(rounds, || f.dynorm_batch(), || f.raw_batch(), nothing).await;
            report(&mode, &format!("batch_{BATCH_ITEMS}"), &d, &r);
        }
    });
}

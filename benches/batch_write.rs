//! Benchmark 3: writing 20,000 items with dynorm's batch writer, against a hand-tuned
//! raw-SDK batch writer and against sequential single `PutItem` calls, on the embedded
//! server (or on `DYNAMODB_ENDPOINT` when it is set).
//!
//! ```sh
//! cargo bench --bench batch_write
//! BENCH_ROUNDS=5 BENCH_ITEMS=5000 cargo bench --bench batch_write   # shorter
//! ```
//!
//! The contenders write the same 20,000 `Order`s (the model of benchmarks 1 and 2, with
//! 200 customers of 100 orders each) to the same table, through the same SDK client:
//!
//! - `dynorm`: `db.batch_write().put_many(&orders).options(BatchOptions::default()
//!   .concurrency(8)).send()`, which checks every key (and that none is written
//!   twice) before sending, then converts the items chunk by chunk (25 writes and under
//!   16 MB) as requests leave, and keeps 8 requests in flight;
//! - `raw_tuned`: `db.sdk()` with hand-built requests: 25-item chunks converted by the
//!   hand-written code of `common`, 8 in flight with `buffer_unordered(8)`, and each
//!   chunk's `UnprocessedItems` sent again (after a short backoff) until none are left;
//! - `sequential`: one `PutItem` after another, with the same hand-written conversion.
//!
//! Each run starts on an empty table: the table is deleted and created again before each
//! contender, untimed, and the items are counted after it, untimed, to check that all were
//! written. The timed part is the whole write, conversion included.
//!
//! `dynorm` and `raw_tuned` run as pairs, in ABBA order, for `BENCH_ROUNDS` pairs (25 by
//! default); `sequential`, which takes four times as long and needs less precision, runs
//! after every fifth pair. The report gives the median of each contender, and the median
//! of the per-pair throughput ratios dynorm / raw_tuned (the two runs of a pair are a few
//! seconds apart, so slow changes in the machine's load cancel). For `sequential`, the
//! ratio is taken against the dynorm run of the same round. Next to wall time, it reports
//! the CPU time of the client thread (the Tokio runtime of the benchmark: conversion,
//! requests, SigV4, HTTP) and of the whole process (client and embedded server), from
//! `/proc/.../schedstat`, which other processes on the machine disturb less. For dynorm it
//! also reports the time spent in `put_all` (the key checks, before the first request).
//! Results go to `target/criterion/batch_write/batch_write.json` for
//! `scripts/bench_chart.py`.
//!
//! Outside `cargo bench` (for example `cargo test --benches`), one round of 500 items
//! checks that the benchmark works. `BENCH_ONLY=dynorm` (or another contender) runs one
//! contender alone, `BENCH_ROUNDS` times, for a profiler. `BENCH_DIAG=1` times, without
//! sending anything, the client-side steps of each writer (see `diagnose`).

mod common;

use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::{PutRequest, WriteRequest};
use dynorm::batch::BatchOptions;
use futures::stream::{self, StreamExt};

use common::Order;

/// The table of `Order` on an unprefixed client.
const TABLE: &str = "Order";
/// Requests in flight, for both batch writers.
const IN_FLIGHT: u32 = 8;
/// DynamoDB's limit on the writes of one `BatchWriteItem` request.
const CHUNK: usize = 25;
/// Orders per customer, so that the items spread over partitions.
const ORDERS_PER_CUSTOMER: usize = 100;

const CONTENDERS: [&str; 3] = ["dynorm", "raw_tuned", "sequential"];

/// `n` distinct orders, built from the order of benchmark 1.
fn orders(n: usize) -> Vec<Order> {
    let template = common::order();
    (0..n)
        .map(|i| {
            let mut order = template.clone();
            order.customer_id = format!("customer-{:05}", i / ORDERS_PER_CUSTOMER);
            order.order_id = format!("order-{i:07}");
            // Never a whole number, which dynorm writes as `1.0` and `to_string` as `1`.
            order.total = (i % 10_000) as f64 / 4.0 + 0.125;
            order
        })
        .collect()
}

/// dynorm's batch writer, 8 requests in flight (its default, set explicitly). Returns the
/// items written and the seconds spent in `put_all`, before anything is sent.
async fn dynorm_batch(db: &dynorm::Client, orders: &[Order]) -> (usize, f64) {
    let start = Instant::now();
    let batch = db
        .batch_write()
        .put_many(orders)
        .options(BatchOptions::default().concurrency(IN_FLIGHT));
    let build = start.elapsed().as_secs_f64();
    let written = batch
        .send()
        .await
        .expect("dynorm's batch writes every item");
    (written as usize, build)
}

/// A hand-tuned raw writer: 25-item chunks, 8 in flight, unprocessed items retried.
async fn raw_tuned(db: &dynorm::Client, orders: &[Order]) -> usize {
    let sdk = db.sdk();
    stream::iter(orders.chunks(CHUNK))
        .map(|chunk| async move {
            let mut requests: Vec<WriteRequest> = common::raw_put_requests(chunk);
            let mut attempt = 0u32;
            loop {
                let output = sdk
                    .batch_write_item()
                    .request_items(TABLE, requests)
                    .send()
                    .await
                    .expect("BatchWriteItem succeeds");
                let left = output
                    .unprocessed_items
                    .and_then(|mut tables| tables.remove(TABLE))
                    .unwrap_or_default();
                if left.is_empty() {
                    return chunk.len();
                }
                attempt += 1;
                assert!(attempt < 10, "items still unprocessed after 10 attempts");
                tokio::time::sleep(Duration::from_millis(25 << attempt.min(7))).await;
                requests = left;
            }
        })
        .buffer_unordered(IN_FLIGHT as usize)
        .fold(0, |written, n| async move { written + n })
        .await
}

fn build_write(item: dynorm::Item) -> WriteRequest {
    let put = PutRequest::builder()
        .set_item(Some(item))
        .build()
        .expect("a put request");
    WriteRequest::builder().put_request(put).build()
}

/// One `PutItem` after another.
async fn sequential(db: &dynorm::Client, orders: &[Order]) -> usize {
    for order in orders {
        let item = common::order_to_item(order).expect("the order encodes");
        db.sdk()
            .put_item()
            .table_name(TABLE)
            .set_item(Some(item))
            .send()
            .await
            .expect("PutItem succeeds");
    }
    orders.len()
}

/// Deletes the table if it exists and creates it empty.
async fn fresh_table(db: &dynorm::Client) {
    let _ = db.tables().delete::<Order>().send().await;
    db.tables()
        .ensure::<Order>()
        .send()
        .await
        .expect("the Order table is created");
}

/// The number of items in the table.
async fn count(db: &dynorm::Client) -> usize {
    db.scan::<Order>()
        .count()
        .await
        .expect("the table is scanned") as usize
}

/// One run of a contender.
#[derive(Clone, Copy, Debug)]
struct Sample {
    /// Wall time.
    seconds: f64,
    /// CPU time of the client thread.
    client_cpu: f64,
    /// CPU time of the process: client and embedded server.
    process_cpu: f64,
    /// dynorm only: the time spent in `put_all`.
    build: f64,
}

/// Runs one contender on an empty table.
async fn run(db: &dynorm::Client, name: &str, orders: &[Order]) -> Sample {
    fresh_table(db).await;
    let (client0, process0) = (common::thread_cpu_ns(), common::process_cpu_ns());
    let start = Instant::now();
    let (written, build) = match name {
        "dynorm" => dynorm_batch(db, orders).await,
        "raw_tuned" => (raw_tuned(db, orders).await, 0.0),
        "sequential" => (sequential(db, orders).await, 0.0),
        _ => unreachable!("unknown contender {name}"),
    };
    let seconds = start.elapsed().as_secs_f64();
    let client_cpu = (common::thread_cpu_ns() - client0) as f64 / 1e9;
    let process_cpu = common::process_cpu_ns().saturating_sub(process0) as f64 / 1e9;
    assert_eq!(written, orders.len(), "{name} reports every item written");
    assert_eq!(count(db).await, orders.len(), "{name} wrote every item");
    Sample {
        seconds,
        client_cpu,
        process_cpu,
        build,
    }
}

/// `BENCH_DIAG=1`: the client-side work per item, without a server, to explain a gap
/// between `dynorm` and `raw_tuned`. Each step is timed over all the orders (median of 7
/// runs): the conversions as the writers do them, a chunk at a time, and dynorm's key
/// checks, which `put_all` does before anything is sent.
fn diagnose(db: &dynorm::Client, orders: &[Order]) {
    use dynorm::Model;
    use std::hint::black_box;

    fn time<T>(mut f: impl FnMut() -> T) -> f64 {
        let mut runs: Vec<f64> = (0..7)
            .map(|_| {
                let start = Instant::now();
                drop(black_box(f()));
                start.elapsed().as_secs_f64()
            })
            .collect();
        common::median(&mut runs)
    }
    let n = orders.len() as f64;
    let report = |step: &str, seconds: f64| {
        println!(
            "{step:<58} {:>8.1} ms {:>6.2} us/item",
            seconds * 1e3,
            seconds / n * 1e6
        );
    };
    report(
        "raw: order_to_item + WriteRequest, a chunk at a time",
        time(|| {
            for chunk in orders.chunks(CHUNK) {
                let writes: Vec<WriteRequest> = chunk
                    .iter()
                    .map(|o| build_write(common::order_to_item(o).expect("encodes")))
                    .collect();
                black_box(writes);
            }
        }),
    );
    report(
        "dynorm: Order::to_item + WriteRequest, a chunk at a time",
        time(|| {
            for chunk in orders.chunks(CHUNK) {
                let writes: Vec<WriteRequest> = chunk
                    .iter()
                    .map(|o| build_write(o.to_item().expect("encodes")))
                    .collect();
                black_box(writes);
            }
        }),
    );
    report(
        "dynorm: batch_write().put_many(..): the key checks",
        time(|| db.batch_write().put_many(orders)),
    );
    report(
        "  for scale: one pass reading each order's key strings",
        time(|| {
            orders
                .iter()
                .map(|o| o.customer_id.len() + o.order_id.as_bytes()[0] as usize)
                .sum::<usize>()
        }),
    );
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The median of `f` over `samples`, with the minimum and maximum.
fn stats(samples: &[Sample], f: impl Fn(&Sample) -> f64) -> (f64, f64, f64) {
    let mut values: Vec<f64> = samples.iter().map(f).collect();
    let median = common::median(&mut values);
    (median, values[0], values[values.len() - 1])
}

fn main() {
    let mode = common::RunMode::from_args();
    if mode.list {
        println!("batch_write: bench");
        return;
    }
    if !mode.wants("batch_write") {
        return;
    }
    let (items, rounds) = if mode.bench {
        (
            env_usize("BENCH_ITEMS", 20_000),
            env_usize("BENCH_ROUNDS", 25),
        )
    } else {
        (500, 1)
    };

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    rt.block_on(async {
        let db = dynorm_test::local::client()
            .await
            .expect("the DynamoDB server is reachable");
        assert_eq!(db.tables().name::<Order>(), TABLE);
        let orders = orders(items);
        // The raw writers send what dynorm sends, item for item.
        for order in &orders {
            common::check_equal_work(order, common::order_to_item, common::order_from_item);
        }

        // Warm-up: connections, the table code paths, the allocator.
        for name in CONTENDERS {
            run(&db, name, &orders[..items.min(1000)]).await;
        }

        if std::env::var_os("BENCH_DIAG").is_some() {
            diagnose(&db, &orders);
            return;
        }
        // `BENCH_ONLY=<contender>`: that contender alone, for a profiler; no report.
        if let Ok(only) = std::env::var("BENCH_ONLY") {
            assert!(CONTENDERS.contains(&only.as_str()), "BENCH_ONLY={only}?");
            for round in 0..rounds {
                let sample = run(&db, &only, &orders).await;
                println!("{only} run {}: {sample:?}", round + 1);
            }
            return;
        }

        let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); CONTENDERS.len()];
        // Per round: (dynorm, raw_tuned) and, every fifth round, (dynorm, sequential).
        let mut tuned_ratios = Vec::new();
        let mut sequential_ratios = Vec::new();
        for round in 0..rounds {
            let order: [usize; 2] = if round % 2 == 0 { [0, 1] } else { [1, 0] };
            let mut pair = [None; 2];
            let mut line = format!("round {}:", round + 1);
            for c in order {
                let sample = run(&db, CONTENDERS[c], &orders).await;
                line += &format!(
                    " {} {:.3} s (client cpu {:.3} s, process cpu {:.3} s);",
                    CONTENDERS[c], sample.seconds, sample.client_cpu, sample.process_cpu
                );
                pair[c] = Some(sample);
                samples[c].push(sample);
            }
            let (d, r) = (pair[0].expect("dynorm ran"), pair[1].expect("raw ran"));
            tuned_ratios.push(r.seconds / d.seconds);
            if round % 5 == 2 || (rounds < 3 && round == 0) {
                let sample = run(&db, CONTENDERS[2], &orders).await;
                line += &format!(" sequential {:.3} s;", sample.seconds);
                sequential_ratios.push(sample.seconds / d.seconds);
                samples[2].push(sample);
            }
            println!("{line} dynorm put_all {:.3} s", d.build);
        }

        let over_tuned = common::median(&mut tuned_ratios.clone());
        let over_sequential = common::median(&mut sequential_ratios.clone());
        let mut json = format!("{{\"items\": {items}, \"rounds\": {rounds}, \"contenders\": {{");
        let mut medians = Vec::new();
        for (c, name) in CONTENDERS.iter().enumerate() {
            let (median, min, max) = stats(&samples[c], |s| s.seconds);
            let (client, ..) = stats(&samples[c], |s| s.client_cpu);
            let (process, ..) = stats(&samples[c], |s| s.process_cpu);
            let (build, ..) = stats(&samples[c], |s| s.build);
            medians.push((median, client, process));
            println!(
                "{name:>10}: median {median:.3} s ({:.0} items/s), min {min:.3} s, max {max:.3} s; \
                 median cpu: client {client:.3} s, process {process:.3} s{}",
                items as f64 / median,
                if c == 0 {
                    format!("; put_all {build:.3} s")
                } else {
                    String::new()
                }
            );
            let times: Vec<f64> = samples[c].iter().map(|s| s.seconds).collect();
            json += &format!(
                "{}\"{name}\": {{\"runs\": {}, \"median_s\": {median}, \"min_s\": {min}, \
                 \"max_s\": {max}, \"items_per_s\": {}, \"client_cpu_s\": {client}, \
                 \"process_cpu_s\": {process}, \"put_all_s\": {build}, \"times_s\": {times:?}}}",
                if c == 0 { "" } else { ", " },
                samples[c].len(),
                items as f64 / median,
            );
        }
        let client_cpu_ratio = medians[0].1 / medians[1].1;
        let process_cpu_ratio = medians[0].2 / medians[1].2;
        println!(
            "throughput dynorm / raw_tuned: median per-pair {over_tuned:.3} (target >= 0.95), \
             pairs {tuned_ratios:.3?}; ratio of medians {:.3}",
            medians[1].0 / medians[0].0
        );
        println!(
            "cpu dynorm / raw_tuned (medians): client thread {client_cpu_ratio:.3}, \
             process {process_cpu_ratio:.3}"
        );
        println!(
            "throughput dynorm / sequential: median {over_sequential:.2}, \
             rounds {sequential_ratios:.2?}"
        );
        json += &format!(
            "}}, \"dynorm_over_raw_tuned\": {over_tuned}, \"dynorm_over_raw_tuned_pairs\": \
             {tuned_ratios:?}, \"dynorm_over_sequential\": {over_sequential}, \
             \"dynorm_over_sequential_rounds\": {sequential_ratios:?}, \
             \"client_cpu_dynorm_over_raw_tuned\": {client_cpu_ratio}, \
             \"process_cpu_dynorm_over_raw_tuned\": {process_cpu_ratio}}}\n"
        );
        if mode.bench {
            common::write_result("batch_write", "batch_write", &json);
        }
    });
}

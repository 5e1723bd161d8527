//! Benchmark 2: `get` and `put` of one item, and a query of 100 items, through dynorm
//! against the raw aws-sdk-dynamodb calls with hand-built requests, on the embedded server
//! (or on `DYNAMODB_ENDPOINT` when it is set).
//!
//! ```sh
//! cargo bench --bench operations
//! ```
//!
//! Both sides use the same SDK client (`db.sdk()` is the client inside `db`), the same
//! table and the same item. The raw side converts with the hand-written code of
//! `common`, the floor of benchmark 1, and names the table with a `&'static str`.
//!
//! The two contenders are interleaved: in the group `get`, the benchmark `dynorm` times
//! each dynorm call and makes one untimed raw call next to it (before or after, in
//! turn), and `raw` does the opposite. Both therefore run under the same load, on the
//! same connections, at the same server state.
//!
//! After criterion, a paired run (`paired_get`, `paired_put`, `paired_query`) alternates
//! the two calls call by call, in ABBA order, and reports the median of the per-pair ratios
//! dynorm/raw, which cancels slow drift of the machine. It is written to
//! `target/criterion/paired/<op>.json` for `scripts/bench_chart.py`.
//!
//! The cost of tracing: the paired runs above have no subscriber, so dynorm's spans are
//! compiled in but disabled. `paired_traced_get`, `paired_traced_put` and
//! `paired_traced_query` run the same pairs with a subscriber at `INFO` (the fmt layer,
//! writing to a sink), so every dynorm request builds, records and formats its span.

mod common;

use criterion::Criterion;
use tokio::runtime::Runtime;

use common::operations::Fixture;
use common::paired::{interleaved, paired};

fn groups(c: &mut Criterion, rt: &Runtime, f: &Fixture) {
    let mut get = c.benchmark_group("get");
    get.bench_function("dynorm", |b| {
        b.iter_custom(|iters| rt.block_on(interleaved(iters, || f.dynorm_get(), || f.raw_get())))
    });
    get.bench_function("raw", |b| {
        b.iter_custom(|iters| rt.block_on(interleaved(iters, || f.raw_get(), || f.dynorm_get())))
    });
    get.finish();

    let mut put = c.benchmark_group("put");
    put.bench_function("dynorm", |b| {
        b.iter_custom(|iters| rt.block_on(interleaved(iters, || f.dynorm_put(), || f.raw_put())))
    });
    put.bench_function("raw", |b| {
        b.iter_custom(|iters| rt.block_on(interleaved(iters, || f.raw_put(), || f.dynorm_put())))
    });
    put.finish();

    let mut query = c.benchmark_group("query_100");
    query.bench_function("dynorm", |b| {
        b.iter_custom(|iters| {
            rt.block_on(interleaved(iters, || f.dynorm_query(), || f.raw_query()))
        })
    });
    query.bench_function("raw", |b| {
        b.iter_custom(|iters| {
            rt.block_on(interleaved(iters, || f.raw_query(), || f.dynorm_query()))
        })
    });
    query.finish();
}

/// A subscriber that wants every dynorm span at `INFO` and formats it, to a sink.
fn info_subscriber() -> impl tracing::Subscriber + Send + Sync {
    use tracing_subscriber::prelude::*;
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::sink)
                .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE),
        )
        .with(
            tracing_subscriber::filter::Targets::new().with_target("dynorm", tracing::Level::INFO),
        )
}

fn main() {
    let mode = common::RunMode::from_args();

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    let fixture = rt.block_on(Fixture::new());

    let mut c = Criterion::default().configure_from_args();
    groups(&mut c, &rt, &fixture);
    c.final_summary();

    // In `cargo test` mode, a few pairs only check that the paired runs work.
    let pairs = if mode.bench { 4000 } else { 4 };
    // A query reads 100 items: fewer pairs take as long.
    let query_pairs = if mode.bench { 1000 } else { 4 };
    rt.block_on(async {
        let f = &fixture;
        for traced in [false, true] {
            // A subscriber on this thread, which runs every call: spans are built and formatted.
            let _guard = traced.then(|| tracing::subscriber::set_default(info_subscriber()));
            let prefix = if traced { "traced_" } else { "" };
            if mode.wants(&format!("paired_{prefix}get")) {
                for _ in 0..pairs.min(200) {
                    f.dynorm_get().await;
                    f.raw_get().await;
                }
                let name = format!("{prefix}get");
                paired(&mode, &name, pairs, || f.dynorm_get(), || f.raw_get()).await;
            }
            if mode.wants(&format!("paired_{prefix}put")) {
                for _ in 0..pairs.min(200) {
                    f.dynorm_put().await;
                    f.raw_put().await;
                }
                let name = format!("{prefix}put");
                paired(&mode, &name, pairs, || f.dynorm_put(), || f.raw_put()).await;
            }
            if mode.wants(&format!("paired_{prefix}query")) {
                for _ in 0..query_pairs.min(50) {
                    f.dynorm_query().await;
                    f.raw_query().await;
                }
                let name = format!("{prefix}query");
                let (dynorm, raw) = (|| f.dynorm_query(), || f.raw_query());
                paired(&mode, &name, query_pairs, dynorm, raw).await;
            }
        }
    });
}

//! Benchmark 4: reading a whole partition of small items (10k, 50k and 100k items) with a
//! query, through dynorm's `stream()` against collecting every page with the raw SDK.
//! Time and the peak of the bytes allocated are measured in the same runs.
//!
//! ```sh
//! cargo bench --bench stream_query
//! BENCH_ROUNDS=3 cargo bench --bench stream_query   # shorter
//! ```
//!
//! **Server.** The embedded server (dynoxide, the server of `dynorm::local`) runs in a child
//! process: this binary started again with `DYNORM_BENCH_SERVE=1`. In-process, the server's
//! own allocations (SQLite, the JSON it writes) would count in the client's memory. If
//! `DYNAMODB_ENDPOINT` is set, that endpoint is used instead.
//!
//! **Memory.** A counting global allocator keeps the bytes currently allocated in this
//! process and their peak. Before each contender the peak is reset to the current value,
//! and after it the peak minus that value is reported: the most bytes the contender had
//! allocated at once, on top of what was already there. These are the sizes requested from
//! the allocator (`Layout::size`), without malloc's own overhead and without what the
//! allocator keeps from the OS after a free.
//!
//! **Contenders**, for each partition size, each reading every item of the partition,
//! decoding it into a `Reading` and summing `value`:
//!
//! - `dynorm_stream`: `db.query_by::<Reading>(series).stream()`, summed as it goes; no item
//!   is kept. This is one of the two subjects of the target.
//! - `raw_collect`: the raw SDK `Query` in a loop with `ExclusiveStartKey`, every page's
//!   items appended to one `Vec`; then all the items decoded (hand-written code) into a
//!   `Vec<Reading>`, and summed. This is "collecting all pages", the other subject.
//! - `dynorm_all` (for context): `db.query_by::<Reading>(series).all()`, then summed.
//! - `raw_paged` (for context): the raw loop, each page decoded and summed, then dropped:
//!   the raw equivalent of dynorm's stream.
//!
//! All four return the same sum, checked. They run in turn, in a rotating order, for
//! `BENCH_ROUNDS` rounds (9 by default), 100k first, then 50k, then 10k, in each round.
//! The report gives medians over rounds and the median over rounds of per-round time
//! ratios, written to `target/criterion/stream_query/stream_query.json` for
//! `scripts/bench_chart.py`.
//!
//! Loading the 160,000 items with dynorm's batch writer takes a while; it is done once per
//! run. Outside `cargo bench` (for example `cargo test --benches`), one round over
//! partitions of 500 and 1,500 items checks that the benchmark works.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use dynorm::types::AttributeValue;
use dynorm::{Item, Model};
use futures::TryStreamExt;

#[global_allocator]
static ALLOCATOR: common::counting::Counting = common::counting::Counting;

/// A small item: about 60 bytes as DynamoDB counts them.
#[derive(Model, Debug, Clone, PartialEq)]
pub struct Reading {
    #[hash_key]
    pub series: String,
    #[range_key]
    pub seq: u64,
    pub value: i64,
    pub label: String,
}

const TABLE: &str = "Reading";
const CONTENDERS: [&str; 4] = ["dynorm_stream", "raw_collect", "dynorm_all", "raw_paged"];

fn series_name(n: usize) -> String {
    format!("series-{n}")
}

fn reading(series: &str, seq: usize) -> Reading {
    Reading {
        series: series.to_owned(),
        seq: seq as u64,
        value: value_of(seq),
        label: format!("reading-{seq:06}"),
    }
}

fn value_of(seq: usize) -> i64 {
    (seq % 1000) as i64 - 500
}

fn expected_sum(n: usize) -> i64 {
    (0..n).map(value_of).sum()
}

/// Hand-written item to `Reading`, moving the strings out of the item.
fn reading_from_item(mut item: Item) -> Reading {
    fn s(item: &mut Item, name: &str) -> String {
        match item.remove(name) {
            Some(AttributeValue::S(s)) => s,
            other => panic!("{name}: expected S, found {other:?}"),
        }
    }
    fn n<T: std::str::FromStr>(item: &mut Item, name: &str) -> T {
        match item.remove(name) {
            Some(AttributeValue::N(n)) => n.parse().ok().expect("a number"),
            other => panic!("{name}: expected N, found {other:?}"),
        }
    }
    Reading {
        series: s(&mut item, "series"),
        seq: n(&mut item, "seq"),
        value: n(&mut item, "value"),
        label: s(&mut item, "label"),
    }
}

/// The raw query loop: calls `page` with each page's items; returns the number of pages.
async fn raw_pages(db: &dynorm::Client, series: &str, mut page: impl FnMut(Vec<Item>)) -> usize {
    let mut start: Option<Item> = None;
    let mut pages = 0;
    loop {
        let output = db
            .sdk()
            .query()
            .table_name(TABLE)
            .key_condition_expression("#s = :s")
            .expression_attribute_names("#s", "series")
            .expression_attribute_values(":s", AttributeValue::S(series.to_owned()))
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .expect("Query succeeds");
        pages += 1;
        page(output.items.unwrap_or_default());
        match output.last_evaluated_key {
            Some(key) if !key.is_empty() => start = Some(key),
            _ => return pages,
        }
    }
}

async fn dynorm_stream(db: &dynorm::Client, series: &str) -> (i64, usize) {
    let sum = db
        .query_by::<Reading>(series)
        .stream()
        .try_fold(0i64, |sum, reading| async move { Ok(sum + reading.value) })
        .await
        .expect("the stream reads every item");
    (sum, 0)
}

async fn dynorm_all(db: &dynorm::Client, series: &str) -> (i64, usize) {
    let all: Vec<Reading> = db
        .query_by::<Reading>(series)
        .all()
        .await
        .expect("the query reads every item");
    (all.iter().map(|r| r.value).sum(), 0)
}

async fn raw_collect(db: &dynorm::Client, series: &str) -> (i64, usize) {
    let mut items: Vec<Item> = Vec::new();
    let pages = raw_pages(db, series, |page| items.extend(page)).await;
    let all: Vec<Reading> = items.into_iter().map(reading_from_item).collect();
    (all.iter().map(|r| r.value).sum(), pages)
}

async fn raw_paged(db: &dynorm::Client, series: &str) -> (i64, usize) {
    let mut sum = 0;
    let pages = raw_pages(db, series, |page| {
        sum += page
            .into_iter()
            .map(|item| reading_from_item(item).value)
            .sum::<i64>();
    })
    .await;
    (sum, pages)
}

/// One measurement: seconds, CPU seconds of this thread (the client: the benchmark's
/// current-thread Tokio runtime), peak bytes above the start, pages (raw contenders only).
struct Sample {
    seconds: f64,
    cpu: f64,
    peak: usize,
    pages: usize,
}

async fn run(db: &dynorm::Client, name: &str, n: usize) -> Sample {
    let series = series_name(n);
    let base = common::counting::reset_peak();
    let cpu0 = common::thread_cpu_ns();
    let start = Instant::now();
    let (sum, pages) = match name {
        "dynorm_stream" => dynorm_stream(db, &series).await,
        "raw_collect" => raw_collect(db, &series).await,
        "dynorm_all" => dynorm_all(db, &series).await,
        "raw_paged" => raw_paged(db, &series).await,
        _ => unreachable!("unknown contender {name}"),
    };
    let seconds = start.elapsed().as_secs_f64();
    let cpu = common::thread_cpu_ns().saturating_sub(cpu0) as f64 / 1e9;
    let peak = common::counting::peak().saturating_sub(base);
    assert_eq!(sum, expected_sum(n), "{name} read every item of {series}");
    Sample {
        seconds,
        cpu,
        peak,
        pages,
    }
}

/// Writes the partitions that are not complete yet, with dynorm's batch writer.
async fn load(db: &dynorm::Client, sizes: &[usize]) {
    db.tables()
        .ensure::<Reading>()
        .send()
        .await
        .expect("the Reading table is created");
    for &n in sizes {
        let series = series_name(n);
        let have = db
            .query_by::<Reading>(series.as_str())
            .count()
            .await
            .expect("the partition is counted");
        if have as usize == n {
            continue;
        }
        let start = Instant::now();
        for first in (0..n).step_by(20_000) {
            let readings: Vec<Reading> = (first..n.min(first + 20_000))
                .map(|seq| reading(&series, seq))
                .collect();
            db.batch_write()
                .put_many(&readings)
                .send()
                .await
                .expect("the readings are written");
        }
        println!(
            "loaded {n} items into {series} in {:.1} s",
            start.elapsed().as_secs_f64()
        );
    }
}

/// The embedded server, in a child process that stops when its stdin closes.
struct Server {
    child: Child,
}

impl Server {
    fn start() -> (Self, String) {
        let mut child = Command::new(std::env::current_exe().expect("the bench binary"))
            .env("DYNORM_BENCH_SERVE", "1")
            .env_remove(dynorm_test::local::ENDPOINT_VAR)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the server process starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("its stdout"))
            .read_line(&mut line)
            .expect("the server prints its endpoint");
        assert!(
            line.starts_with("http://"),
            "the server did not start: {line:?}"
        );
        (Self { child }, line.trim().to_owned())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        if self.child.wait().is_err() {
            let _ = self.child.kill();
        }
    }
}

/// Server mode: starts the embedded server, prints its endpoint, serves until stdin closes.
fn serve() {
    let endpoint = dynorm_test::embedded_endpoint().expect("the embedded server starts");
    println!("{endpoint}");
    std::io::stdout().flush().expect("stdout");
    let mut rest = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut rest);
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    if std::env::var_os("DYNORM_BENCH_SERVE").is_some() {
        serve();
        return;
    }
    let mode = common::RunMode::from_args();
    if mode.list {
        println!("stream_query: bench");
        return;
    }
    if !mode.wants("stream_query") {
        return;
    }
    let (sizes, rounds) = if mode.bench {
        (vec![100_000, 50_000, 10_000], env_usize("BENCH_ROUNDS", 9))
    } else {
        (vec![1_500, 500], 1)
    };

    let external = std::env::var(dynorm_test::local::ENDPOINT_VAR)
        .ok()
        .filter(|e| !e.trim().is_empty());
    let (_server, endpoint) = match external {
        Some(endpoint) => (None, endpoint.trim().to_owned()),
        None => {
            let (server, endpoint) = Server::start();
            (Some(server), endpoint)
        }
    };

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    rt.block_on(async {
        let db = dynorm_test::local::connect(&endpoint).await;
        assert_eq!(db.tables().name::<Reading>(), TABLE);
        load(&db, &sizes).await;
        // The raw decoder reads what dynorm writes.
        let sample = reading(&series_name(1), 7);
        assert_eq!(
            reading_from_item(sample.to_item().expect("encodes")),
            sample
        );
        // Warm-up: connections, code paths, the allocator's free lists.
        let smallest = *sizes.iter().min().expect("a size");
        for name in CONTENDERS {
            run(&db, name, smallest).await;
        }

        // samples[size][contender] = one Sample per round
        let mut samples: Vec<Vec<Vec<Sample>>> = sizes
            .iter()
            .map(|_| CONTENDERS.iter().map(|_| Vec::new()).collect())
            .collect();
        for round in 0..rounds {
            for (s, &n) in sizes.iter().enumerate() {
                let mut line = format!("round {} n={n}:", round + 1);
                for k in 0..CONTENDERS.len() {
                    let c = (round + k) % CONTENDERS.len();
                    let sample = run(&db, CONTENDERS[c], n).await;
                    line += &format!(
                        " {} {:.3} s {:.1} MB;",
                        CONTENDERS[c],
                        sample.seconds,
                        sample.peak as f64 / 1e6
                    );
                    samples[s][c].push(sample);
                }
                println!("{line}");
            }
        }

        let mut json = format!("{{\"rounds\": {rounds}, \"sizes\": {sizes:?}, \"results\": {{");
        for (s, &n) in sizes.iter().enumerate() {
            let per = &samples[s];
            // Median over rounds of the per-round ratio time(a) / time(b).
            let ratio = |a: usize, b: usize| {
                let mut r: Vec<f64> = per[a]
                    .iter()
                    .zip(&per[b])
                    .map(|(x, y)| x.seconds / y.seconds)
                    .collect();
                common::median(&mut r)
            };
            let stream_over_collect = ratio(0, 1);
            let stream_over_paged = ratio(0, 3);
            let all_over_collect = ratio(2, 1);
            let cpu_over_collect = {
                let mut r: Vec<f64> = per[0]
                    .iter()
                    .zip(&per[1])
                    .map(|(x, y)| x.cpu / y.cpu)
                    .collect();
                common::median(&mut r)
            };
            let pages = per[1][0].pages;
            println!("n = {n} ({pages} pages):");
            json += &format!(
                "{}\"{n}\": {{\"pages\": {pages}, \"dynorm_stream_over_raw_collect\": \
                 {stream_over_collect}, \"dynorm_stream_over_raw_paged\": {stream_over_paged}, \
                 \"dynorm_all_over_raw_collect\": {all_over_collect}, \
                 \"cpu_dynorm_stream_over_raw_collect\": {cpu_over_collect}, \"contenders\": {{",
                if s == 0 { "" } else { ", " }
            );
            for (c, name) in CONTENDERS.iter().enumerate() {
                let mut seconds: Vec<f64> = per[c].iter().map(|x| x.seconds).collect();
                let mut peaks: Vec<f64> = per[c].iter().map(|x| x.peak as f64).collect();
                let mut cpus: Vec<f64> = per[c].iter().map(|x| x.cpu).collect();
                let cpu = common::median(&mut cpus);
                let median_s = common::median(&mut seconds);
                let min_s = seconds[0];
                let max_s = seconds[seconds.len() - 1];
                let peak = common::median(&mut peaks);
                let (peak_min, peak_max) = (peaks[0], peaks[peaks.len() - 1]);
                println!(
                    "  {name:>13}: median {median_s:.3} s ({:.0} items/s, min {min_s:.3}, \
                     max {max_s:.3}), client cpu {cpu:.3} s, peak {:.2} MB ({:.2} - {:.2})",
                    n as f64 / median_s,
                    peak / 1e6,
                    peak_min / 1e6,
                    peak_max / 1e6,
                );
                json += &format!(
                    "{}\"{name}\": {{\"median_s\": {median_s}, \"min_s\": {min_s}, \
                     \"max_s\": {max_s}, \"client_cpu_s\": {cpu}, \"peak_bytes\": {peak}, \"peak_min_bytes\": \
                     {peak_min}, \"peak_max_bytes\": {peak_max}}}",
                    if c == 0 { "" } else { ", " }
                );
            }
            json += "}}";
            println!(
                "  time dynorm_stream / raw_collect: {stream_over_collect:.3} (target 0.95 - 1.05); \
                 dynorm_stream / raw_paged: {stream_over_paged:.3}; \
                 dynorm_all / raw_collect: {all_over_collect:.3}; \
                 client cpu dynorm_stream / raw_collect: {cpu_over_collect:.3}"
            );
        }
        json += "}}\n";
        if mode.bench {
            common::write_result("stream_query", "stream_query", &json);
        }
    });
}

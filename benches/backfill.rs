//! Benchmark 10: a backfill of 200,000 items, on the embedded server (or on
//! `DYNAMODB_ENDPOINT` when it is set).
//!
//! ```sh
//! cargo bench --bench backfill
//! BENCH_ITEMS=20000 BENCH_ROUNDS=1 cargo bench --bench backfill   # shorter
//! ```
//!
//! The table holds `BENCH_ITEMS` documents in shape 1, written raw before each run
//! (untimed): no `__shape`, no keys of index `GSI1`. A run rewrites every one as shape 2,
//! with its GSI1 keys and its word count, by 4 workers over 16 scan segments.
//!
//! - **Throughput.** `dynorm` (`dynorm_migrate::backfill::<Doc>(&db, ..)`, 4 workers in this process) against
//!   `hand_written`: the same 16 parallel scan segments shared by 4 tasks, each item
//!   decoded by hand and written back with an `UpdateItem` of what shape 2 adds,
//!   conditional on being the item read (every attribute as read, no `__shape` or `words`
//!   yet), the rewrite dynorm does: a model without a `#[version]` has no cheaper condition
//!   that keeps a concurrent write, and only an update keeps an attribute another writer
//!   adds meanwhile (a `PutItem` would drop it). Neither has a capacity
//!   budget: the embedded server reports none to spend, and with one, both would wait
//!   the same. Pairs in ABBA order, `BENCH_ROUNDS` pairs (2 by default); the report gives
//!   the median of the per-pair throughput ratios dynorm / hand_written.
//! - **A kill.** 4 worker processes (this binary again, `BENCH_BACKFILL_WORKER=<name>`),
//!   sharing one run through the progress table, in pages of 250 items. The first is
//!   killed with SIGKILL after its third page; its segment is taken over when its lease (2 s) expires. Each worker
//!   prints a line for every write to a document answered with success, so the parent counts the
//!   rewrites of the killed one too. Reported: the items rewritten more than once
//!   (successful writes to documents, less the items), the items read more than once
//!   (scanned by the workers, less the items), and the time; afterwards every document is
//!   checked: shape 2, its GSI1 keys, found through the index.
//!
//! Results go to `target/criterion/backfill/backfill.json`. Outside `cargo bench`, one
//! round of 2,000 items and the kill on 2,000 items check that the benchmark works.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::types::{AttributeValue, PutRequest, WriteRequest};
use aws_smithy_types::config_bag::{Storable, StoreReplace};
use dynorm::{Client, Item, Model};
use futures::stream::{self, StreamExt};
use serde::Deserialize;

/// Shape 1: a title, no word count, no index keys.
#[derive(Deserialize)]
struct DocV1 {
    id: String,
    owner: String,
    title: String,
}

/// Shape 2, today's: a word count, and the index by owner.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "BenchDocs", entity = "doc", shape = 2, upcasts = [DocV1])]
#[key(pk = "DOC#{id}", sk = "DOC")]
#[key(index = "GSI1", gsi1pk = "OWNER#{owner}", gsi1sk = "DOC#{id}")]
struct Doc {
    id: String,
    owner: String,
    title: String,
    words: u32,
}

impl From<DocV1> for Doc {
    fn from(v1: DocV1) -> Self {
        Doc {
            words: v1.title.split_whitespace().count() as u32,
            id: v1.id,
            owner: v1.owner,
            title: v1.title,
        }
    }
}

const SEGMENTS: u32 = 16;
const WORKERS: usize = 4;
const WORKER_VAR: &str = "BENCH_BACKFILL_WORKER";
const RUN_VAR: &str = "BENCH_BACKFILL_RUN";
const PROGRESS_VAR: &str = "BENCH_BACKFILL_PROGRESS";

fn s(text: impl Into<String>) -> AttributeValue {
    AttributeValue::S(text.into())
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Document `i` as shape 1 stored it.
fn v1_item(i: usize) -> Item {
    let id = format!("d{i:07}");
    Item::from([
        ("pk".to_owned(), s(format!("DOC#{id}"))),
        ("sk".to_owned(), s("DOC")),
        ("__entity".to_owned(), s("doc")),
        ("owner".to_owned(), s(format!("o{:04}", i % 1000))),
        (
            "title".to_owned(),
            s(format!("the notes of meeting {i} on the plan")),
        ),
        ("id".to_owned(), s(id)),
    ])
}

/// Empties the table and writes `items` documents in shape 1, 16 requests in flight.
async fn load(db: &Client, items: usize) {
    let _ = db.tables().delete::<Doc>().send().await;
    db.tables()
        .create::<Doc>()
        .send()
        .await
        .expect("the table is created");
    let table = db.tables().name::<Doc>();
    let chunks: Vec<Vec<WriteRequest>> = (0..items)
        .map(|i| {
            let put = PutRequest::builder()
                .set_item(Some(v1_item(i)))
                .build()
                .expect("a put request");
            WriteRequest::builder().put_request(put).build()
        })
        .collect::<Vec<_>>()
        .chunks(25)
        .map(<[WriteRequest]>::to_vec)
        .collect();
    stream::iter(chunks)
        .for_each_concurrent(16, |mut chunk| {
            let (db, table) = (db.clone(), table.clone());
            async move {
                while !chunk.is_empty() {
                    let output = db
                        .sdk()
                        .batch_write_item()
                        .request_items(&table, chunk)
                        .send()
                        .await
                        .expect("the load's batch write");
                    chunk = output
                        .unprocessed_items
                        .and_then(|mut u| u.remove(&table))
                        .unwrap_or_default();
                }
            }
        })
        .await;
}

/// Checks that every document is shape 2 with its GSI1 keys, and found through GSI1.
async fn verify(db: &Client, items: usize) {
    let docs: Vec<Doc> = db
        .scan::<Doc>()
        .consistent_read(true)
        .all()
        .await
        .expect("a scan");
    assert_eq!(docs.len(), items, "every document is there");
    let mut start = None;
    loop {
        let raw = db
            .sdk()
            .scan()
            .table_name(db.tables().name::<Doc>())
            .filter_expression("#s <> :two OR attribute_not_exists(gsi1pk)")
            .expression_attribute_names("#s", "__shape")
            .expression_attribute_values(":two", AttributeValue::N("2".into()))
            .consistent_read(true)
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("a raw scan");
        assert_eq!(
            raw.count, 0,
            "no document is left in shape 1 or without its GSI1 keys"
        );
        start = raw.last_evaluated_key;
        if start.is_none() {
            break;
        }
    }
    let owned = db
        .query_by::<DocGSI1>("o0007")
        .all()
        .await
        .expect("a query of the new index");
    // Documents 7, 1007, 2007, ... belong to `o0007`.
    let expected = items / 1000 + usize::from(items % 1000 > 7);
    assert_eq!(
        owned.len(),
        expected,
        "the new index holds every document of an owner"
    );
}

/// dynorm's backfill: `WORKERS` workers in this process.
async fn dynorm_run(db: &Client, run: &str) -> u64 {
    let progress = format!("{}_progress", db.tables().name::<Doc>());
    let workers: Vec<_> = (0..WORKERS)
        .map(|w| {
            let backfill = dynorm_migrate::backfill::<Doc>(db, run, progress.clone())
                .segments(SEGMENTS)
                .worker(format!("w{w}"));
            tokio::spawn(backfill.send())
        })
        .collect();
    let mut rewritten = 0;
    for worker in workers {
        rewritten += worker
            .await
            .expect("a worker")
            .expect("a backfill")
            .rewritten;
    }
    rewritten
}

/// The hand-written backfill: the same segments shared by `WORKERS` tasks, each item
/// decoded by hand and written back on condition that it is the item read.
async fn hand_written_run(db: &Client) -> u64 {
    let table = db.tables().name::<Doc>();
    let next = Arc::new(AtomicU32::new(0));
    let tasks: Vec<_> = (0..WORKERS)
        .map(|_| {
            let (db, table, next) = (db.clone(), table.clone(), next.clone());
            tokio::spawn(async move {
                let mut rewritten = 0u64;
                loop {
                    let segment = next.fetch_add(1, Ordering::SeqCst);
                    if segment >= SEGMENTS {
                        return rewritten;
                    }
                    let mut start = None;
                    loop {
                        let page = db
                            .sdk()
                            .scan()
                            .table_name(&table)
                            .segment(segment as i32)
                            .total_segments(SEGMENTS as i32)
                            .consistent_read(true)
                            .set_exclusive_start_key(start)
                            .send()
                            .await
                            .expect("a scan page");
                        for item in page.items.unwrap_or_default() {
                            if item.contains_key("__shape") {
                                continue;
                            }
                            let text = |name: &str| {
                                item.get(name)
                                    .and_then(|v| v.as_s().ok())
                                    .cloned()
                                    .expect("a text attribute")
                            };
                            let (id, owner, title) = (text("id"), text("owner"), text("title"));
                            let words = title.split_whitespace().count();
                            // An update of what the new shape adds, on condition that the
                            // item is still what was read, as a rewrite without a
                            // `#[version]` must be: every attribute read, and no attribute
                            // of the new shape yet. Attributes another writer adds are kept.
                            let mut update = db
                                .sdk()
                                .update_item()
                                .table_name(&table)
                                .key("pk", s(format!("DOC#{id}")))
                                .key("sk", s("DOC"))
                                .update_expression("SET #s = :s, #w = :w, #g1 = :g1, #g2 = :g2")
                                .condition_expression(unchanged(&item))
                                .expression_attribute_names("#s", "__shape")
                                .expression_attribute_names("#w", "words")
                                .expression_attribute_names("#g1", "gsi1pk")
                                .expression_attribute_names("#g2", "gsi1sk")
                                .expression_attribute_values(":s", AttributeValue::N("2".into()))
                                .expression_attribute_values(
                                    ":w",
                                    AttributeValue::N(words.to_string()),
                                )
                                .expression_attribute_values(":g1", s(format!("OWNER#{owner}")))
                                .expression_attribute_values(":g2", s(format!("DOC#{id}")));
                            for (i, (name, value)) in item.iter().enumerate() {
                                update = update
                                    .expression_attribute_names(format!("#a{i}"), name)
                                    .expression_attribute_values(format!(":a{i}"), value.clone());
                            }
                            update.send().await.expect("a conditional rewrite");
                            rewritten += 1;
                        }
                        start = page.last_evaluated_key;
                        if start.is_none() {
                            break;
                        }
                    }
                }
            })
        })
        .collect();
    let mut rewritten = 0;
    for task in tasks {
        rewritten += task.await.expect("a task");
    }
    rewritten
}

/// The condition that `item` is unchanged: each attribute equal to what was read, and the
/// new shape's attributes absent.
fn unchanged(item: &Item) -> String {
    let mut parts: Vec<String> = (0..item.len()).map(|i| format!("#a{i} = :a{i}")).collect();
    parts.push("attribute_not_exists(#s)".into());
    parts.push("attribute_not_exists(#w)".into());
    parts.join(" AND ")
}

/// Times one contender on a freshly loaded table; items per second.
async fn timed(db: &Client, name: &str, items: usize, run: &str) -> f64 {
    load(db, items).await;
    let start = Instant::now();
    let rewritten = match name {
        "dynorm" => dynorm_run(db, run).await,
        _ => hand_written_run(db).await,
    };
    let elapsed = start.elapsed();
    assert_eq!(
        rewritten as usize, items,
        "{name} rewrote every document once"
    );
    verify(db, items).await;
    items as f64 / elapsed.as_secs_f64()
}

/// Prints a line for every successful write (`PutItem`, `UpdateItem` or
/// `TransactWriteItems`) to the documents' table, so that the parent counts the rewrites
/// of a worker it kills.
#[derive(Debug)]
struct PrintWrites {
    /// `"TableName":"<the documents' table>"`, as a request's body holds it.
    table: String,
}

/// Put in a request's state when it writes to the documents' table.
#[derive(Debug, Clone)]
struct DocumentWrite;

impl Storable for DocumentWrite {
    type Storer = StoreReplace<Self>;
}

impl Intercept for PrintWrites {
    fn name(&self) -> &'static str {
        "PrintWrites"
    }

    fn read_before_transmit(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let body = context.request().body().bytes().unwrap_or_default();
        let body = String::from_utf8_lossy(body);
        if body.contains(&self.table) {
            cfg.interceptor_state().store_put(DocumentWrite);
        }
        Ok(())
    }

    fn read_after_transmit(
        &self,
        context: &aws_sdk_dynamodb::config::interceptors::BeforeDeserializationInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let operation = cfg
            .load::<aws_smithy_runtime_api::client::orchestrator::Metadata>()
            .map(|m| m.name());
        let write = matches!(
            operation,
            Some("PutItem" | "UpdateItem" | "TransactWriteItems")
        );
        if write
            && cfg.load::<DocumentWrite>().is_some()
            && context.response().status().is_success()
        {
            println!("put");
        }
        Ok(())
    }
}

/// A worker process of the kill: runs its worker of the shared run, printing `page` after
/// each page and `put` after each successful write to a document, then `done <scanned>`.
async fn worker_process(name: String) {
    let db = dynorm_test::local::client()
        .await
        .expect("the server is reachable");
    let config = db
        .sdk()
        .config()
        .to_builder()
        .interceptor(PrintWrites {
            table: format!("\"TableName\":\"{}\"", db.tables().name::<Doc>()),
        })
        .build();
    let db = db
        .to_builder()
        .sdk(aws_sdk_dynamodb::Client::from_conf(config))
        .build();
    let run = std::env::var(RUN_VAR).expect("the run's name");
    let progress = std::env::var(PROGRESS_VAR).expect("the progress table");
    let report = dynorm_migrate::backfill::<Doc>(&db, run, progress)
        .segments(SEGMENTS)
        .lease(Duration::from_secs(2))
        .page_size(250)
        .worker(name)
        .on_progress(|p| println!("page {}", p.scanned))
        .send()
        .await
        .expect("the worker's backfill");
    println!("done {}", report.scanned);
}

/// What the kill measured.
struct KillResult {
    seconds: f64,
    rewritten_twice: i64,
    read_twice: i64,
}

/// Four worker processes; the first is killed after its third page.
async fn kill_run(db: &Client, items: usize) -> KillResult {
    load(db, items).await;
    let endpoint = match std::env::var("DYNAMODB_ENDPOINT") {
        Ok(endpoint) if !endpoint.trim().is_empty() => endpoint,
        _ => dynorm_test::embedded_endpoint()
            .expect("the embedded server")
            .to_owned(),
    };
    let progress = format!("{}_kill_progress", db.tables().name::<Doc>());
    let run = format!("kill-{}", std::process::id());
    let exe = std::env::current_exe().expect("this binary");
    let start = Instant::now();
    let children: Vec<_> = (0..WORKERS)
        .map(|w| {
            Command::new(&exe)
                .env(WORKER_VAR, format!("p{w}"))
                .env(RUN_VAR, &run)
                .env(PROGRESS_VAR, &progress)
                .env("DYNAMODB_ENDPOINT", &endpoint)
                .stdout(Stdio::piped())
                .spawn()
                .expect("a worker process")
        })
        .collect();
    let readers: Vec<_> = children
        .into_iter()
        .enumerate()
        .map(|(w, mut child)| {
            let stdout = child.stdout.take().expect("the worker's stdout");
            std::thread::spawn(move || {
                // Successful writes to documents, pages, the last page's count of items read, and
                // the count a worker that finished reports.
                let (mut puts, mut pages, mut saved, mut done) = (0i64, 0, 0i64, None);
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    let number = |prefix: &str| {
                        line.strip_prefix(prefix)
                            .and_then(|n| n.parse::<i64>().ok())
                    };
                    if line == "put" {
                        puts += 1;
                    } else if let Some(scanned) = number("page ") {
                        pages += 1;
                        saved = scanned;
                        if w == 0 && pages == 3 {
                            child.kill().expect("SIGKILL");
                        }
                    } else if let Some(scanned) = number("done ") {
                        done = Some(scanned);
                    }
                }
                let _ = child.wait();
                (puts, saved, done)
            })
        })
        .collect();
    let mut puts = 0;
    let mut scanned = 0;
    let mut killed_done = None;
    for (w, reader) in readers.into_iter().enumerate() {
        let (p, saved, done) = reader.join().expect("a reader");
        puts += p;
        if w == 0 {
            killed_done = done;
            // What it read up to its last saved page; its page in flight is read again.
            scanned += saved;
        } else {
            scanned += done.expect("a surviving worker finishes");
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    assert!(
        killed_done.is_none(),
        "the first worker was killed before it finished"
    );
    verify(db, items).await;
    let rewritten_twice = puts - items as i64;
    // Beyond the killed worker's last saved page: what the worker that took its segment
    // over read again.
    let read_twice = scanned - items as i64;
    KillResult {
        seconds,
        rewritten_twice,
        read_twice,
    }
}

fn main() {
    if let Ok(name) = std::env::var(WORKER_VAR) {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a Tokio runtime");
        rt.block_on(worker_process(name));
        return;
    }
    let mode = common::RunMode::from_args();
    if mode.list {
        println!("backfill: bench");
        return;
    }
    if !mode.wants("backfill") {
        return;
    }
    let (items, rounds) = if mode.bench {
        (
            env_usize("BENCH_ITEMS", 200_000),
            env_usize("BENCH_ROUNDS", 2),
        )
    } else {
        (2_000, 1)
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    rt.block_on(async {
        let db = dynorm_test::local::client().await.expect("the server is reachable");
        let mut ratios = Vec::new();
        let mut samples: Vec<(String, f64)> = Vec::new();
        for round in 0..rounds {
            // ABBA: which runs first alternates.
            let order = if round % 2 == 0 {
                ["dynorm", "hand_written"]
            } else {
                ["hand_written", "dynorm"]
            };
            let mut pair = [0.0; 2];
            for name in order {
                // A run of its own in every invocation: on a server that outlives the
                // process (DynamoDB Local), an earlier invocation's run is done already.
                let run = format!("bench-{}-{round}-{name}", std::process::id());
                let rate = timed(&db, name, items, &run).await;
                println!("round {}: {name} {rate:.0} items/s", round + 1);
                samples.push((name.to_owned(), rate));
                pair[usize::from(name == "hand_written")] = rate;
            }
            ratios.push(pair[0] / pair[1]);
        }
        let ratio = common::median(&mut ratios);
        println!("backfill of {items} items: dynorm / hand_written throughput, median of {rounds} pairs: {ratio:.3}");

        let kill = kill_run(&db, items).await;
        println!(
            "kill: 4 worker processes, one killed after its third page: {:.1} s, {} items rewritten twice, {} read twice",
            kill.seconds, kill.rewritten_twice, kill.read_twice
        );
        if mode.bench {
            let samples: Vec<String> = samples
                .iter()
                .map(|(name, rate)| format!("{{\"contender\":\"{name}\",\"items_per_second\":{rate:.1}}}"))
                .collect();
            let json = format!(
                "{{\"items\":{items},\"ratio\":{ratio:.4},\"samples\":[{}],\"kill\":{{\"seconds\":{:.2},\"rewritten_twice\":{},\"read_twice\":{}}}}}",
                samples.join(","),
                kill.seconds,
                kill.rewritten_twice,
                kill.read_twice
            );
            common::write_result("backfill", "backfill", &json);
        }
    });
}

//! A backfill shared by three worker processes, each started with another number of
//! segments, one of them killed with SIGKILL in the middle of its segment, while dynorm
//! and a raw SDK client (which adds an attribute the model does not know) write the same
//! items: every item ends current, nothing another writer wrote is lost, and no range of
//! the table is left unscanned.
//!
//! The workers are this test binary run again (`worker_process`, ignored unless asked
//! for), connected to the parent's server by `DYNAMODB_ENDPOINT`.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use dynorm::types::AttributeValue;
use dynorm::{Client, Model};
use serde::Deserialize;

/// Shape 1: tags only.
#[derive(Deserialize)]
struct PageV1 {
    id: String,
    tags: Vec<String>,
}

/// Shape 2, today's: how many tags.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Pages", shape = 2, upcasts = [PageV1])]
struct Page {
    #[hash_key]
    id: String,
    tags: Vec<String>,
    count: u32,
}

impl From<PageV1> for Page {
    fn from(v1: PageV1) -> Self {
        Page {
            count: v1.tags.len() as u32,
            id: v1.id,
            tags: v1.tags,
        }
    }
}

const ITEMS: usize = 1_500;
const RUN: &str = "pages-v2";
const PROGRESS: &str = "PageBackfills";

fn s(text: &str) -> AttributeValue {
    AttributeValue::S(text.into())
}

async fn client(endpoint: &str, prefix: &str) -> Client {
    dynorm_test::local::connect(endpoint)
        .await
        .to_builder()
        .table_prefix(prefix.to_owned())
        .build()
}

/// A worker: one process of the run, told its name and segments by the environment. It
/// prints `page` after each page and its report when it ends.
#[tokio::test]
#[ignore = "a worker process of `three_processes_share_a_run_through_a_kill_and_other_writers`"]
async fn worker_process() {
    let var = |name: &str| std::env::var(name).expect("run by the parent test");
    let db = client(&var("DYNAMODB_ENDPOINT"), &var("PAGES_PREFIX")).await;
    let segments: u32 = var("PAGES_SEGMENTS").parse().unwrap();
    let report = dynorm_migrate::backfill::<Page>(&db, RUN, PROGRESS)
        .segments(segments)
        .worker(var("PAGES_WORKER"))
        .lease(Duration::from_secs(2))
        .page_size(20)
        .on_progress(|_| println!("page"))
        .send()
        .await
        .unwrap();
    println!(
        "report run_segments={} scanned={} rewritten={}",
        report.run_segments, report.scanned, report.rewritten
    );
}

struct Worker {
    child: Child,
    lines: mpsc::Receiver<String>,
}

fn spawn(endpoint: &str, prefix: &str, name: &str, segments: u32) -> Worker {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "worker_process",
            "--exact",
            "--ignored",
            "--nocapture",
            "--quiet",
        ])
        .env("DYNAMODB_ENDPOINT", endpoint)
        .env("PAGES_PREFIX", prefix)
        .env("PAGES_WORKER", name)
        .env("PAGES_SEGMENTS", segments.to_string())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the test binary runs again");
    let stdout = child.stdout.take().unwrap();
    let (send, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if send.send(line).is_err() {
                return;
            }
        }
    });
    Worker { child, lines }
}

impl Worker {
    /// Waits for `pages` pages of this worker.
    fn pages(&self, pages: usize) {
        let deadline = Instant::now() + Duration::from_secs(120);
        let mut seen = 0;
        while seen < pages {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line == "page" => seen += 1,
                Ok(_) => {}
                Err(e) => panic!("the worker wrote {seen} of {pages} pages: {e}"),
            }
        }
    }

    /// Waits for the worker to end, and returns its report line.
    fn report(mut self) -> String {
        let status = self.child.wait().unwrap();
        assert!(status.success(), "a worker failed: {status}");
        self.lines
            .iter()
            .find(|line| line.starts_with("report "))
            .expect("the worker reports")
    }
}

#[tokio::test]
async fn three_processes_share_a_run_through_a_kill_and_other_writers() {
    let endpoint = match std::env::var("DYNAMODB_ENDPOINT") {
        Ok(endpoint) if !endpoint.trim().is_empty() => endpoint,
        _ => dynorm_test::embedded_endpoint().unwrap().to_owned(),
    };
    let prefix = format!("processes_{}_", std::process::id());
    let db = client(&endpoint, &prefix).await;
    db.tables().ensure::<Page>().send().await.unwrap();
    for i in 0..ITEMS {
        db.sdk()
            .put_item()
            .table_name(db.tables().name::<Page>())
            .item("id", s(&format!("p{i:04}")))
            .item("tags", AttributeValue::L(vec![s("a"), s("b")]))
            .send()
            .await
            .unwrap();
    }

    // The first worker fixes 4 segments; the others ask for 8 and 2.
    let first = spawn(&endpoint, &prefix, "first", 4);
    first.pages(2);
    let second = spawn(&endpoint, &prefix, "second", 8);
    let third = spawn(&endpoint, &prefix, "third", 2);
    // Killed in the middle of its segment: the others take it over after its lease.
    first.pages(3);
    let mut killed = first.child;
    killed.kill().unwrap();
    killed.wait().unwrap();

    // Meanwhile, dynorm moves some items to shape 2 itself, and another service adds an
    // attribute dynorm does not know to others (shape 1 or 2, as it finds them).
    for i in (0..ITEMS).step_by(10) {
        let id = format!("p{i:04}");
        if i.is_multiple_of(20) {
            db.sdk()
                .update_item()
                .table_name(db.tables().name::<Page>())
                .key("id", s(&id))
                .update_expression("SET #x = :x")
                .expression_attribute_names("#x", "written_elsewhere")
                .expression_attribute_values(":x", AttributeValue::N(i.to_string()))
                .send()
                .await
                .unwrap();
        } else {
            db.put(&Page {
                id,
                tags: vec!["c".into()],
                count: 1,
            })
            .send()
            .await
            .unwrap();
        }
    }

    let reports = [second.report(), third.report()];
    for report in &reports {
        assert!(report.contains("run_segments=4"), "{report}");
    }
    let status = dynorm_migrate::backfill_status(&db, RUN, PROGRESS)
        .await
        .unwrap()
        .unwrap();
    assert!(status.is_done(), "{status:?}");
    assert_eq!(status.segments, 4);

    // Every item is current, and what the other writers wrote is there.
    let items = common::guards::scan_all(&db, &db.tables().name::<Page>()).await;
    let shape = Page::SCHEMA.shape.unwrap().attribute;
    assert_eq!(items.len(), ITEMS);
    for item in &items {
        let AttributeValue::S(id) = &item["id"] else {
            panic!("an id is text")
        };
        let i: usize = id[1..].parse().unwrap();
        assert_eq!(
            item.get(shape),
            Some(&AttributeValue::N("2".into())),
            "{id} is current"
        );
        let page = Page::from_item(item.clone()).unwrap();
        if i.is_multiple_of(20) {
            assert_eq!(
                item.get("written_elsewhere"),
                Some(&AttributeValue::N(i.to_string())),
                "{id} keeps the other service's attribute"
            );
            assert_eq!(page.count, 2);
        } else if i.is_multiple_of(10) {
            assert_eq!(page.tags, vec!["c".to_owned()], "{id} keeps dynorm's write");
            assert_eq!(page.count, 1);
        } else {
            assert_eq!(page.count, 2);
        }
    }
}

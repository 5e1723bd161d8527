//! Backfills: items of an earlier shape, written before an index existed or under an old
//! key template, are rewritten by workers that share a run through leases, while writers
//! keep changing them; a worker killed midway loses nothing.

mod common;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use dynorm::types::AttributeValue;
use dynorm::{Client, Item, Model};
use serde::Deserialize;

/// Shape 1: a title only.
#[derive(Deserialize)]
struct DocV1 {
    id: String,
    owner: String,
    title: String,
}

/// Shape 2: a word count.
#[derive(Deserialize)]
struct DocV2 {
    id: String,
    owner: String,
    title: String,
    words: u32,
}

impl From<DocV1> for DocV2 {
    fn from(v1: DocV1) -> Self {
        DocV2 {
            words: v1.title.split_whitespace().count() as u32,
            id: v1.id,
            owner: v1.owner,
            title: v1.title,
        }
    }
}

/// Shape 3, today's: a summary, and an index by owner that shape 1 had no keys for.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Docs", entity = "doc", shape = 3, upcasts = [DocV1, DocV2])]
#[key(pk = "DOC#{id}", sk = "DOC")]
#[key(index = "GSI1", gsi1pk = "OWNER#{owner}", gsi1sk = "DOC#{id}")]
struct Doc {
    id: String,
    owner: String,
    title: String,
    words: u32,
    summary: String,
}

impl From<DocV2> for Doc {
    fn from(v2: DocV2) -> Self {
        Doc {
            summary: format!("{} ({} words)", v2.title, v2.words),
            id: v2.id,
            owner: v2.owner,
            title: v2.title,
            words: v2.words,
        }
    }
}

const ITEMS: usize = 200;
const OWNERS: usize = 5;

fn s(text: &str) -> AttributeValue {
    AttributeValue::S(text.into())
}

/// Writes the items as shape 1 wrote them: no shape, no index keys; `pk` from `template`.
async fn write_v1(db: &Client, template: &str) {
    let table = db.tables().name::<Doc>();
    for i in 0..ITEMS {
        let id = format!("d{i:03}");
        let item = Item::from([
            ("pk".into(), s(&template.replace("{id}", &id))),
            ("sk".into(), s("DOC")),
            ("__entity".into(), s("doc")),
            ("id".into(), s(&id)),
            ("owner".into(), s(&format!("o{}", i % OWNERS))),
            ("title".into(), s("first draft")),
        ]);
        db.sdk()
            .put_item()
            .table_name(&table)
            .set_item(Some(item))
            .send()
            .await
            .unwrap();
    }
}

async fn raw_items(db: &Client) -> Vec<Item> {
    let mut out = Vec::new();
    let mut start = None;
    loop {
        let page = db
            .sdk()
            .scan()
            .table_name(db.tables().name::<Doc>())
            .consistent_read(true)
            .set_exclusive_start_key(start)
            .send()
            .await
            .unwrap();
        out.extend(page.items.unwrap_or_default());
        start = page.last_evaluated_key;
        if start.is_none() {
            return out;
        }
    }
}

fn progress_table(db: &Client, label: &str) -> String {
    format!("{}_{label}_progress", db.tables().name::<Doc>())
}

#[tokio::test]
async fn four_workers_one_killed_rewrite_everything_once_and_lose_no_write() {
    let db = common::db_with::<Doc>("backfill_workers").await;
    write_v1(&db, "DOC#{id}").await;
    let table = progress_table(&db, "workers");

    // Writers keep changing a share of the items while the backfill runs; each
    // remembers its last value per item.
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writers: Vec<_> = (0..3)
        .map(|w| {
            let db = db.clone();
            let stop = stop.clone();
            tokio::spawn(async move {
                let mut last: HashMap<String, String> = HashMap::new();
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    n += 1;
                    // Each writer has its own items: d000, d003, ... for the first.
                    let id = format!("d{:03}", ((n * 7) % 20) * 3 + w);
                    let title = format!("writer {w} edit {n}");
                    db.update::<Doc>(DocKey { id: id.clone() })
                        .set(Doc::TITLE, title.as_str())
                        .send()
                        .await
                        .unwrap();
                    last.insert(id, title);
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
                last
            })
        })
        .collect();

    // Four workers; the first is killed after its first page.
    let pages = Arc::new(AtomicU64::new(0));
    let spawn = |name: &'static str, pages: Option<Arc<AtomicU64>>| {
        let mut backfill = dynorm_migrate::backfill::<Doc>(&db, "docs-v3", table.clone())
            .segments(8)
            .page_size(10)
            .lease(Duration::from_millis(800))
            .worker(name);
        if let Some(pages) = pages {
            backfill = backfill.on_progress(move |_| {
                pages.fetch_add(1, Ordering::SeqCst);
            });
        }
        tokio::spawn(backfill.send())
    };
    let doomed = spawn("w0", Some(pages.clone()));
    while pages.load(Ordering::SeqCst) == 0 {
        assert!(
            !doomed.is_finished(),
            "the first worker ended before its first page"
        );
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    doomed.abort();
    let survivors = [spawn("w1", None), spawn("w2", None), spawn("w3", None)];
    let mut rewritten = 0;
    for worker in survivors {
        let report = worker.await.unwrap().unwrap();
        rewritten += report.rewritten;
    }
    stop.store(true, Ordering::Relaxed);
    let mut last = HashMap::new();
    for writer in writers {
        last.extend(writer.await.unwrap());
    }
    // The killed worker rewrote at most its pages; the others rewrote the rest, each item
    // once, give or take the page in flight when it died.
    assert!(rewritten <= ITEMS as u64, "{rewritten} rewrites");

    // Every item is today's shape, with its index keys, readable as the model.
    let items = raw_items(&db).await;
    assert_eq!(items.len(), ITEMS);
    for item in &items {
        assert_eq!(
            item.get("__shape"),
            Some(&AttributeValue::N("3".into())),
            "{item:?}"
        );
        let owner = item["owner"].as_s().unwrap();
        assert_eq!(item.get("gsi1pk"), Some(&s(&format!("OWNER#{owner}"))));
        let doc = Doc::from_item(item.clone()).unwrap();
        assert!(doc.summary.ends_with("words)"), "{doc:?}");
    }
    // ... present in the new index ...
    for owner in 0..OWNERS {
        let docs = db
            .query_by::<DocGSI1>(format!("o{owner}"))
            .all()
            .await
            .unwrap();
        assert_eq!(docs.len(), ITEMS / OWNERS, "owner o{owner}");
    }
    // ... and no concurrent write was lost: each writer's last title is there.
    let by_id: HashMap<String, Item> = items
        .into_iter()
        .map(|i| (i["id"].as_s().unwrap().clone(), i))
        .collect();
    assert!(!last.is_empty());
    for (id, title) in &last {
        assert_eq!(by_id[id]["title"].as_s().unwrap(), title, "{id}");
    }

    // Running the run again finds it done; a new run finds nothing to rewrite.
    let again = dynorm_migrate::backfill::<Doc>(&db, "docs-v3", table.clone())
        .segments(8)
        .send()
        .await
        .unwrap();
    assert_eq!(again.rewritten, 0);
    let fresh = dynorm_migrate::backfill::<Doc>(&db, "docs-v3-check", table.clone())
        .segments(2)
        .send()
        .await
        .unwrap();
    assert_eq!((fresh.scanned, fresh.rewritten), (ITEMS as u64, 0));
}

#[tokio::test]
async fn a_changed_key_template_moves_items_and_a_dry_run_only_counts() {
    let db = common::db_with::<Doc>("backfill_moves").await;
    write_v1(&db, "doc#{id}").await;
    let table = progress_table(&db, "moves");
    let dry = dynorm_migrate::backfill::<Doc>(&db, "dry", table.clone())
        .dry_run(true)
        .send()
        .await
        .unwrap();
    assert_eq!(
        (dry.scanned, dry.rewritten, dry.moved),
        (ITEMS as u64, ITEMS as u64, ITEMS as u64)
    );
    assert!(raw_items(&db)
        .await
        .iter()
        .all(|i| !i.contains_key("__shape")));

    let report = dynorm_migrate::backfill::<Doc>(&db, "moves", table)
        .segments(3)
        .rate_limiter(&dynorm::observe::RateLimiter::new(10_000.0).unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(
        (report.rewritten, report.moved),
        (ITEMS as u64, ITEMS as u64)
    );
    let items = raw_items(&db).await;
    assert_eq!(items.len(), ITEMS);
    assert!(items
        .iter()
        .all(|i| i["pk"].as_s().unwrap().starts_with("DOC#")));
    assert_eq!(
        db.get::<Doc>(DocKey { id: "d007".into() })
            .send()
            .await
            .unwrap()
            .map(|d| d.title),
        Some("first draft".to_owned())
    );
}

#[tokio::test]
async fn a_backfill_refuses_settings_that_cannot_work() {
    let db = common::db("backfill_settings").await;
    let error = dynorm_migrate::backfill::<Doc>(&db, "r", "t")
        .segments(0)
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation);
    assert_eq!(error.model(), Some("Doc"));
    let error = dynorm_migrate::backfill::<Doc>(&db, "r", "t")
        .page_size(0)
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation);
}

/// A model whose items hold lists and maps, which the rewrite's condition compares whole.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Notes", shape = 2, upcasts = [NoteV1])]
struct Note {
    #[hash_key]
    id: String,
    tags: Vec<String>,
    meta: std::collections::BTreeMap<String, String>,
    pinned: bool,
}

#[derive(Deserialize)]
struct NoteV1 {
    id: String,
    tags: Vec<String>,
    meta: std::collections::BTreeMap<String, String>,
}

impl From<NoteV1> for Note {
    fn from(v1: NoteV1) -> Self {
        Note {
            id: v1.id,
            tags: v1.tags,
            meta: v1.meta,
            pinned: false,
        }
    }
}

#[tokio::test]
async fn items_with_lists_and_maps_are_rewritten_on_condition() {
    let db = common::db_with::<Note>("backfill_documents").await;
    let item = Item::from([
        ("id".into(), s("n1")),
        ("tags".into(), AttributeValue::L(vec![s("a"), s("b")])),
        (
            "meta".into(),
            AttributeValue::M(Item::from([("k".into(), s("v"))])),
        ),
    ]);
    db.sdk()
        .put_item()
        .table_name(db.tables().name::<Note>())
        .set_item(Some(item))
        .send()
        .await
        .unwrap();
    let table = format!("{}_progress", db.tables().name::<Note>());
    let report = dynorm_migrate::backfill::<Note>(&db, "notes-v2", table)
        .send()
        .await
        .unwrap();
    assert_eq!(report.rewritten, 1);
    let note = db.get::<Note>("n1").send().await.unwrap().unwrap();
    assert_eq!(note.tags, vec!["a".to_owned(), "b".to_owned()]);
    assert!(!note.pinned);
}

//! How workers share a backfill run: the first fixes its segment count and the others
//! join with it, each worker has a name of its own, a lease holds through a page longer
//! than the lease, and an item that does not decode stops the run with its key, shape and
//! attribute, or is set aside and listed.

mod common;

use std::time::Duration;

use dynorm::types::AttributeValue;
use dynorm::{Client, Item, Model};
use dynorm_test::{Fault, Script};
use serde::Deserialize;

/// Shape 1: tags only.
#[derive(Deserialize)]
struct NoteV1 {
    id: String,
    tags: Vec<String>,
}

/// Shape 2, today's: how many tags.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Notes", shape = 2, upcasts = [NoteV1])]
struct Note {
    #[hash_key]
    id: String,
    tags: Vec<String>,
    count: u32,
}

impl From<NoteV1> for Note {
    fn from(v1: NoteV1) -> Self {
        Note {
            count: v1.tags.len() as u32,
            id: v1.id,
            tags: v1.tags,
        }
    }
}

const ITEMS: usize = 120;

fn s(text: &str) -> AttributeValue {
    AttributeValue::S(text.into())
}

fn v1(id: &str, tags: Vec<AttributeValue>) -> Item {
    Item::from([
        ("id".into(), s(id)),
        ("tags".into(), AttributeValue::L(tags)),
    ])
}

async fn put(db: &Client, item: Item) {
    db.sdk()
        .put_item()
        .table_name(db.tables().name::<Note>())
        .set_item(Some(item))
        .send()
        .await
        .unwrap();
}

async fn write_v1(db: &Client, items: usize) {
    for i in 0..items {
        put(db, v1(&format!("n{i:03}"), vec![s("a"), s("b")])).await;
    }
}

/// Every item, as stored.
async fn stored(db: &Client) -> Vec<Item> {
    let mut out = Vec::new();
    let mut start = None;
    loop {
        let page = db
            .sdk()
            .scan()
            .table_name(db.tables().name::<Note>())
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

fn current(item: &Item) -> bool {
    item.get("__shape") == Some(&AttributeValue::N("2".into()))
}

fn progress(db: &Client) -> String {
    format!("{}_progress", db.tables().name::<Note>())
}

#[tokio::test]
async fn workers_started_with_4_and_8_segments_scan_the_run_s_segments_once() {
    let db = common::db_with::<Note>("backfill_segment_counts").await;
    write_v1(&db, ITEMS).await;
    let table = progress(&db);
    // Two workers of one process, started at once, with default names: whichever is
    // first fixes the run's count, and the other joins with it.
    let four = dynorm_migrate::backfill::<Note>(&db, "notes", table.clone())
        .segments(4)
        .page_size(7);
    let eight = dynorm_migrate::backfill::<Note>(&db, "notes", table.clone())
        .segments(8)
        .page_size(7);
    let (four, eight) = tokio::join!(four.send(), eight.send());
    let (four, eight) = (four.unwrap(), eight.unwrap());
    assert_eq!(four.run_segments, eight.run_segments);
    assert!([4, 8].contains(&four.run_segments), "{four:?}");
    // Every item was read once, by one worker or the other: no range was left, none was
    // read twice (as it would be by workers that shared a name, or counted segments
    // differently).
    assert_eq!(four.scanned + eight.scanned, ITEMS as u64);
    assert_eq!(four.rewritten + eight.rewritten, ITEMS as u64);
    assert_eq!(four.segments + eight.segments, four.run_segments);
    let status = dynorm_migrate::backfill_status(&db, "notes", &table)
        .await
        .unwrap()
        .unwrap();
    assert!(status.is_done());
    assert_eq!(status.segments, four.run_segments);
    assert_eq!(
        (status.scanned, status.rewritten),
        (ITEMS as u64, ITEMS as u64)
    );
    let items = stored(&db).await;
    assert_eq!(items.len(), ITEMS);
    assert!(items.iter().all(current));

    // A worker that comes to a run started with 3 segments scans those 3, whatever it
    // was told.
    write_v1(&db, ITEMS).await;
    let first = dynorm_migrate::backfill::<Note>(&db, "notes-3", table.clone())
        .segments(3)
        .send()
        .await
        .unwrap();
    assert_eq!((first.run_segments, first.segments), (3, 3));
    let late = dynorm_migrate::backfill::<Note>(&db, "notes-3", table.clone())
        .segments(8)
        .send()
        .await
        .unwrap();
    assert_eq!((late.run_segments, late.segments, late.scanned), (3, 0, 0));
}

#[tokio::test]
async fn a_page_longer_than_the_lease_keeps_it() {
    let db = common::db_with::<Card>("backfill_long_page").await;
    for i in 0..3 {
        let id = format!("c{i}");
        let item = Item::from([
            ("pk".into(), s(&format!("card#{id}"))),
            ("sk".into(), s("CARD")),
            ("__entity".into(), s("card")),
            ("id".into(), s(&id)),
        ]);
        db.sdk()
            .put_item()
            .table_name(db.tables().name::<Card>())
            .set_item(Some(item))
            .send()
            .await
            .unwrap();
    }
    let table = format!("{}_progress", db.tables().name::<Card>());
    // Each item moves in a transaction; the first two attempts of the first get no
    // answer, so the page takes two attempt timeouts: more than twice the lease.
    let script = Script::new("TransactWriteItems", Fault::Timeout).times(2);
    let slow = script.client(&db, 3);
    let lease = Duration::from_millis(900);
    assert!(dynorm_test::ATTEMPT_TIMEOUT * 2 > lease * 2);
    let holder = tokio::spawn(
        dynorm_migrate::backfill::<Card>(&slow, "cards", table.clone())
            .segments(1)
            .lease(lease)
            .send(),
    );
    while script.attempts() == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // The segment is held: a second worker watches it, and never takes it over, since
    // its holder renews the lease while the page is written.
    let watcher = dynorm_migrate::backfill::<Card>(&db, "cards", table.clone())
        .segments(1)
        .lease(lease)
        .send()
        .await
        .unwrap();
    let holder = holder.await.unwrap().unwrap();
    assert_eq!((holder.segments, holder.moved), (1, 3));
    assert_eq!((watcher.segments, watcher.scanned), (0, 0));
    assert_eq!(script.injected(), 2);
}

/// A model whose key template changed: every item moves.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Cards", entity = "card")]
#[key(pk = "CARD#{id}", sk = "CARD")]
struct Card {
    id: String,
}

/// Writes the good items, and two that do not decode: a shape-1 item whose second tag is
/// a number, and a shape-2 item whose count is text.
async fn write_with_two_bad(db: &Client) {
    write_v1(db, 20).await;
    put(
        db,
        v1("bad-v1", vec![s("a"), AttributeValue::N("7".into())]),
    )
    .await;
    let mut bad_v2 = v1("bad-v2", vec![s("a")]);
    bad_v2.insert("count".into(), s("one"));
    bad_v2.insert("__shape".into(), AttributeValue::N("2".into()));
    put(db, bad_v2).await;
}

#[tokio::test]
async fn an_item_that_does_not_decode_names_its_key_shape_and_attribute() {
    let db = common::db_with::<Note>("backfill_undecodable").await;
    put(
        &db,
        v1("bad-v1", vec![s("a"), AttributeValue::N("7".into())]),
    )
    .await;
    let error = dynorm_migrate::backfill::<Note>(&db, "notes", progress(&db))
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Conversion, "{error}");
    assert_eq!(error.attribute(), Some("tags[1]"), "{error}");
    assert_eq!(
        error.item(),
        Some(&Item::from([("id".into(), s("bad-v1"))]))
    );
    let message = error.to_string();
    assert!(message.contains("`backfill`"), "{message}");
    assert!(message.contains(r#"{id: "bad-v1"}"#), "{message}");
    assert!(message.contains("shape 1"), "{message}");

    let db = common::db_with::<Note>("backfill_undecodable_current").await;
    let mut bad_v2 = v1("bad-v2", vec![s("a")]);
    bad_v2.insert("count".into(), s("one"));
    bad_v2.insert("__shape".into(), AttributeValue::N("2".into()));
    put(&db, bad_v2).await;
    let error = dynorm_migrate::backfill::<Note>(&db, "notes", progress(&db))
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.attribute(), Some("count"), "{error}");
    assert!(error.to_string().contains("shape 2"), "{error}");
}

#[tokio::test]
async fn items_set_aside_are_recorded_and_listed_and_the_run_finishes() {
    let db = common::db_with::<Note>("backfill_set_aside").await;
    write_with_two_bad(&db).await;
    let table = progress(&db);
    let report = dynorm_migrate::backfill::<Note>(&db, "notes", table.clone())
        .segments(3)
        .set_aside_undecodable(true)
        .send()
        .await
        .unwrap();
    assert_eq!((report.set_aside, report.rewritten), (2, 20));
    let status = dynorm_migrate::backfill_status(&db, "notes", &table)
        .await
        .unwrap()
        .unwrap();
    assert!(status.is_done());
    let mut aside = status.set_aside.clone();
    aside.sort_by_key(|a| a.key["id"].as_s().unwrap().clone());
    assert_eq!(aside.len(), 2);
    assert_eq!(aside[0].key, Item::from([("id".into(), s("bad-v1"))]));
    assert_eq!(
        (aside[0].shape, aside[0].attribute.as_deref()),
        (1, Some("tags[1]"))
    );
    assert_eq!(aside[1].key, Item::from([("id".into(), s("bad-v2"))]));
    assert_eq!(
        (aside[1].shape, aside[1].attribute.as_deref()),
        (2, Some("count"))
    );
    assert!(aside[1]
        .to_string()
        .starts_with(r#"key {id: "bad-v2"}, shape 2: "#));
    // The good items are current; the bad ones are as they were.
    for item in stored(&db).await {
        let id = item["id"].as_s().unwrap().clone();
        assert_eq!(current(&item), id != "bad-v1", "{item:?}");
    }
}

#[tokio::test]
async fn migrate_sets_items_aside_when_told_and_status_lists_them() {
    let db = common::db_with::<Note>("backfill_cli_set_aside").await;
    write_with_two_bad(&db).await;
    let app = dynorm_migrate::cli::App::new().model::<Note>();
    let args = |words: &[&str]| {
        let mut out = vec![
            "app".to_owned(),
            "--progress-table".to_owned(),
            progress(&db),
        ];
        out.extend(words.iter().map(|w| (*w).to_owned()));
        out
    };
    let stopped = app
        .run_with(&db, args(&["migrate", "run", "--run", "notes"]))
        .await
        .unwrap_err();
    // At whichever bad item the scan reaches first.
    assert!(
        matches!(stopped.attribute(), Some("tags[1]" | "count")),
        "{stopped}"
    );
    assert!(stopped.kind() == dynorm::ErrorKind::Conversion, "{stopped}");
    let ran = app
        .run_with(
            &db,
            args(&[
                "migrate",
                "run",
                "--run",
                "notes",
                "--set-aside-undecodable",
            ]),
        )
        .await
        .unwrap();
    assert!(ran.is_success(), "{ran}");
    let shown = app
        .run_with(&db, args(&["migrate", "status", "--run", "notes"]))
        .await
        .unwrap()
        .to_string();
    assert!(shown.contains("done, "), "{shown}");
    assert!(shown.contains("; set aside:"), "{shown}");
    assert!(
        shown.contains(r#"key {id: "bad-v1"}, shape 1: "#),
        "{shown}"
    );
    assert!(
        shown.contains(r#"key {id: "bad-v2"}, shape 2: "#),
        "{shown}"
    );
    assert!(shown.contains("attribute `tags[1]`"), "{shown}");
}

#[tokio::test]
async fn a_worker_with_nothing_left_finishes_without_polling() {
    let db = common::db_with::<Note>("backfill_no_polling").await;
    write_v1(&db, 10).await;
    let requests = common::Requests::new();
    let report = dynorm_migrate::backfill::<Note>(&requests.client(&db), "notes", progress(&db))
        .segments(3)
        .send()
        .await
        .unwrap();
    assert_eq!((report.segments, report.rewritten), (3, 10));
    // One read of the segments at the start and one after each segment: the last finds
    // every segment done, and the worker ends there.
    let reads = requests
        .bodies("Query")
        .into_iter()
        .filter(|b| b["TableName"] == progress(&db).as_str())
        .count();
    assert_eq!(reads, 4);
}

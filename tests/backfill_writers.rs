//! Backfills and other writers: a rewrite writes only what changes, so an attribute
//! another service adds between the scan and the rewrite is kept, and its condition
//! covers every attribute it read, so a writer that does not bump `#[version]` is not
//! overwritten. The other writer is a raw SDK client, run just before the backfill's
//! rewrite of each item is sent (an SDK interceptor on the backfill's client), so the
//! interleaving is the same on every run.

mod common;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_smithy_runtime_api::box_error::BoxError;
use dynorm::types::AttributeValue;
use dynorm::{Client, Item, Model};
use dynorm_migrate::BackfillReport;
use serde::Deserialize;

/// Shape 1: a title only.
#[derive(Deserialize)]
struct PageV1 {
    id: String,
    title: String,
    version: u64,
}

/// Shape 2, today's: the title's word count, which the rewrite computes from the title.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Pages", shape = 2, upcasts = [PageV1])]
struct Page {
    #[hash_key]
    id: String,
    title: String,
    words: u32,
    #[version]
    version: u64,
}

impl From<PageV1> for Page {
    fn from(v1: PageV1) -> Self {
        Page {
            words: v1.title.split_whitespace().count() as u32,
            id: v1.id,
            title: v1.title,
            version: v1.version,
        }
    }
}

const ITEMS: usize = 12;

fn s(text: &str) -> AttributeValue {
    AttributeValue::S(text.into())
}

async fn write_v1(db: &Client) {
    for i in 0..ITEMS {
        let item = Item::from([
            ("id".into(), s(&format!("p{i:02}"))),
            ("title".into(), s("one two")),
            ("version".into(), AttributeValue::N("3".into())),
        ]);
        db.sdk()
            .put_item()
            .table_name(db.tables().name::<Page>())
            .set_item(Some(item))
            .send()
            .await
            .unwrap();
    }
}

/// What the other writer does to an item, with the raw SDK.
#[derive(Clone, Copy)]
enum Meanwhile {
    /// Adds an attribute no model knows.
    AddUnknown,
    /// Changes the title, and leaves the version as it is.
    RetitleWithoutVersion,
}

/// Runs the other writer once per item, just before the backfill's first write of it
/// (an `UpdateItem` of the table) is sent.
#[derive(Clone)]
struct OtherWriter {
    raw: aws_sdk_dynamodb::Client,
    table: String,
    what: Meanwhile,
    done: Arc<Mutex<HashSet<String>>>,
}

impl std::fmt::Debug for OtherWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OtherWriter")
    }
}

impl Intercept for OtherWriter {
    fn name(&self) -> &'static str {
        "OtherWriter"
    }

    fn read_before_transmit(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let request = context.request();
        if request.headers().get("x-amz-target") != Some("DynamoDB_20120810.UpdateItem") {
            return Ok(());
        }
        let body: serde_json::Value =
            serde_json::from_slice(request.body().bytes().unwrap_or_default())?;
        if body["TableName"] != self.table.as_str() {
            return Ok(());
        }
        let id = body["Key"]["id"]["S"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if !self.done.lock().unwrap().insert(id.clone()) {
            return Ok(());
        }
        let update = self
            .raw
            .update_item()
            .table_name(&self.table)
            .key("id", s(&id));
        let update = match self.what {
            Meanwhile::AddUnknown => update
                .update_expression("SET #x = :x")
                .expression_attribute_names("#x", "audit")
                .expression_attribute_values(":x", s(&format!("seen {id}"))),
            Meanwhile::RetitleWithoutVersion => update
                .update_expression("SET #t = :t")
                .expression_attribute_names("#t", "title")
                .expression_attribute_values(":t", s("one two three four")),
        };
        // The interceptor is synchronous: the raw write runs to its end on this thread,
        // while the runtime's other worker drives the connections.
        tokio::task::block_in_place(|| {
            tokio::runtime::Handle::current()
                .block_on(update.send())
                .map(drop)
                .map_err(BoxError::from)
        })?;
        Ok(())
    }
}

fn with_other_writer(db: &Client, what: Meanwhile) -> (Client, Arc<Mutex<HashSet<String>>>) {
    let writer = OtherWriter {
        raw: db.sdk().clone(),
        table: db.tables().name::<Page>(),
        what,
        done: Arc::default(),
    };
    let done = writer.done.clone();
    let config = db.sdk().config().to_builder().interceptor(writer).build();
    (
        db.to_builder()
            .sdk(aws_sdk_dynamodb::Client::from_conf(config))
            .build(),
        done,
    )
}

/// Writes shape-1 items, and backfills them while the other writer does `what` to each.
async fn backfill_with_other_writer(db: &Client, what: Meanwhile) -> BackfillReport {
    write_v1(db).await;
    let (backfilling, touched) = with_other_writer(db, what);
    let table = format!("{}_progress", db.tables().name::<Page>());
    let report = dynorm_migrate::backfill::<Page>(&backfilling, "pages-v2", table)
        .segments(2)
        .send()
        .await
        .unwrap();
    assert_eq!(touched.lock().unwrap().len(), ITEMS);
    report
}

async fn stored(db: &Client) -> Vec<Item> {
    let page = db
        .sdk()
        .scan()
        .table_name(db.tables().name::<Page>())
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    page.items.unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attribute_another_writer_adds_between_the_scan_and_the_rewrite_is_kept() {
    let db = common::db_with::<Page>("backfill_unknown_kept").await;
    let report = backfill_with_other_writer(&db, Meanwhile::AddUnknown).await;
    // The other writer's attribute did not change what the rewrite read, so every
    // rewrite went through at once, and kept it.
    assert_eq!(
        (report.rewritten, report.changed_meanwhile),
        (ITEMS as u64, 0)
    );
    let items = stored(&db).await;
    assert_eq!(items.len(), ITEMS);
    for item in &items {
        let id = item["id"].as_s().unwrap();
        assert_eq!(
            item.get("audit"),
            Some(&s(&format!("seen {id}"))),
            "{item:?}"
        );
        assert_eq!(item.get("__shape"), Some(&AttributeValue::N("2".into())));
        assert_eq!(item.get("words"), Some(&AttributeValue::N("2".into())));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_writer_that_does_not_bump_the_version_is_not_overwritten() {
    let db = common::db_with::<Page>("backfill_no_version_bump").await;
    let report = backfill_with_other_writer(&db, Meanwhile::RetitleWithoutVersion).await;
    // Each first rewrite found the title changed, though the version was the one read:
    // the item was read again and rewritten from what it is now.
    assert_eq!(report.changed_meanwhile, ITEMS as u64);
    assert_eq!(report.rewritten, ITEMS as u64);
    for item in stored(&db).await {
        let page = Page::from_item(item).unwrap();
        assert_eq!(page.title, "one two three four");
        assert_eq!(page.words, 4, "{page:?}");
        assert_eq!(page.version, 3);
    }
}

/// A model whose key template changed: every item moves.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Moved", entity = "card")]
#[key(pk = "CARD#{id}", sk = "CARD")]
struct Card {
    id: String,
    name: String,
}

#[tokio::test]
async fn a_move_carries_the_attributes_the_model_does_not_know() {
    let db = common::db_with::<Card>("backfill_move_unknown").await;
    let table = db.tables().name::<Card>();
    for i in 0..5 {
        let id = format!("c{i}");
        let item = Item::from([
            ("pk".into(), s(&format!("card#{id}"))),
            ("sk".into(), s("CARD")),
            ("__entity".into(), s("card")),
            ("id".into(), s(&id)),
            ("name".into(), s("ace")),
            ("audit".into(), s(&format!("kept {id}"))),
        ]);
        db.sdk()
            .put_item()
            .table_name(&table)
            .set_item(Some(item))
            .send()
            .await
            .unwrap();
    }
    let report = dynorm_migrate::backfill::<Card>(&db, "cards", format!("{table}_progress"))
        .send()
        .await
        .unwrap();
    assert_eq!(report.moved, 5);
    let items = db.sdk().scan().table_name(&table).send().await.unwrap();
    let items = items.items.unwrap_or_default();
    assert_eq!(items.len(), 5);
    for item in items {
        let id = item["id"].as_s().unwrap();
        assert_eq!(item["pk"], s(&format!("CARD#{id}")));
        assert_eq!(item["audit"], s(&format!("kept {id}")));
    }
}

#[tokio::test]
async fn capacity_is_asked_for_only_with_a_rate_limiter() {
    let db = common::db_with::<Page>("backfill_capacity").await;
    write_v1(&db).await;
    let table = format!("{}_progress", db.tables().name::<Page>());
    let asks = |requests: &common::Requests| {
        ["Scan", "UpdateItem", "GetItem", "Query", "PutItem"]
            .iter()
            .flat_map(|op| requests.bodies(op))
            .filter(|body| {
                body.get("ReturnConsumedCapacity")
                    .is_some_and(|v| v != "NONE")
            })
            .count()
    };
    let requests = common::Requests::new();
    dynorm_migrate::backfill::<Page>(&requests.client(&db), "plain", table.clone())
        .send()
        .await
        .unwrap();
    assert!(requests.sent("Scan") > 0 && requests.sent("UpdateItem") > ITEMS);
    assert_eq!(asks(&requests), 0);

    write_v1(&db).await;
    let limited = common::Requests::new();
    dynorm_migrate::backfill::<Page>(&limited.client(&db), "limited", table)
        .rate_limiter(&dynorm::observe::RateLimiter::new(100_000.0).unwrap())
        .send()
        .await
        .unwrap();
    // The scan's pages and the rewrites spend from the limiter: they ask.
    let scans = limited.bodies("Scan");
    assert!(scans.iter().all(|b| b["ReturnConsumedCapacity"] == "TOTAL"));
    assert!(asks(&limited) >= scans.len() + ITEMS);
}

#[tokio::test]
async fn a_tally_counts_every_request_the_backfill_sends() {
    let db = common::db_with::<Page>("backfill_tally").await;
    write_v1(&db).await;
    let progress = format!("{}_progress", db.tables().name::<Page>());
    let requests = common::Requests::new();
    let tally = dynorm::observe::Tally::default();
    let report = dynorm_migrate::backfill::<Page>(&requests.client(&db), "tallied", &progress)
        .tally(&tally)
        .send()
        .await
        .unwrap();
    assert_eq!(report.rewritten, ITEMS as u64);
    // Every request on an item, of the model's table or the progress table, is counted
    // and asks for its capacity by table and index; describing and creating tables are
    // not requests on items.
    let administration = requests.sent("DescribeTable") + requests.sent("CreateTable");
    assert_eq!(tally.requests() as usize, requests.total() - administration);
    for (operation, bodies) in
        ["Scan", "UpdateItem", "GetItem", "Query", "PutItem"].map(|op| (op, requests.bodies(op)))
    {
        for body in bodies {
            assert_eq!(
                body["ReturnConsumedCapacity"], "INDEXES",
                "{operation}: {body}"
            );
        }
    }
    let capacity = tally
        .consumed_capacity()
        .expect("a tally asks for capacity");
    let model_table = db.tables().name::<Page>();
    assert!(
        capacity.tables.get(&model_table).is_some_and(|u| *u > 0.0),
        "{capacity:?}"
    );
    assert!(
        capacity.tables.get(&progress).is_some_and(|u| *u > 0.0),
        "{capacity:?}"
    );
}

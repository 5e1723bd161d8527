//! Secondary indexes, queries and scans against a real server: every key condition and
//! filter operator, sparse indexes, each projection, pagination, descending order,
//! parallel scans, multi-attribute keys and index auto-selection.

mod common;

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Duration, TimeZone, Utc};
use dynorm::__private::IndexKind;
use dynorm::expr::AttributeType;
use dynorm::{Client, ErrorKind, Model};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};

// A native string, so it can be a key; stored as serde would store it.
#[derive(dynorm::Value, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[serde(rename_all = "lowercase")]
enum Status {
    Open,
    Paid,
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Order", rename_all = "camelCase")]
struct Order {
    #[hash_key]
    customer_id: String,
    #[range_key]
    order_id: String,
    #[index(name = "byStatus", range_key = "placed_at", project = ["total"])]
    status: Status,
    #[index(name = "byPlacedAt", local)]
    placed_at: DateTime<Utc>,
    #[index(name = "byCoupon")]
    coupon_code: Option<String>,
    #[index(name = "byRegion", project = false)]
    region: String,
    total: f64,
    note: Option<String>,
    tags: Vec<String>,
    labels: HashSet<String>,
    #[dynorm(rename = "size")]
    item_count: u32,
    #[dynorm(rename = "odd.name #1")]
    odd: String,
}

fn day(n: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap() + Duration::days(n)
}

/// Order `n` of customer `c{n % 3}`: statuses alternate, every fifth has a coupon.
fn order(n: i64) -> Order {
    Order {
        customer_id: format!("c{}", n % 3),
        order_id: format!("o{n:03}"),
        status: if n % 2 == 0 {
            Status::Open
        } else {
            Status::Paid
        },
        placed_at: day(n),
        coupon_code: (n % 5 == 0).then(|| format!("SAVE{}", n % 10)),
        region: if n % 4 == 0 { "eu".into() } else { "us".into() },
        total: n as f64 * 10.0,
        note: (n % 3 == 0).then(|| format!("note {n}")),
        tags: (0..n % 4).map(|t| format!("t{t}")).collect(),
        labels: if n % 2 == 0 {
            HashSet::from(["gift".to_owned()])
        } else {
            HashSet::new()
        },
        item_count: (n % 7) as u32,
        odd: format!("odd {n}"),
    }
}

/// A table with orders 0..30: customers c0, c1 and c2 have 10 each.
async fn orders(label: &str) -> Client {
    let db = common::db_with::<Order>(label).await;
    for n in 0..30 {
        db.put(&order(n)).send().await.unwrap();
    }
    db
}

fn ids(orders: &[Order]) -> Vec<String> {
    orders.iter().map(|o| o.order_id.clone()).collect()
}

fn expected(filter: impl Fn(&Order) -> bool) -> Vec<String> {
    let mut out: Vec<_> = (0..30)
        .map(order)
        .filter(|o| filter(o))
        .map(|o| o.order_id)
        .collect();
    out.sort();
    out
}

#[tokio::test]
async fn every_range_key_operator() {
    let db = orders("idx_range_ops").await;
    let c1 = |q: dynorm::query::Query<Order>| q.matching(Order::CUSTOMER_ID.eq("c1"));
    let run = |condition: dynorm::Condition<Order>| {
        let db = db.clone();
        async move {
            ids(&c1(db.query::<Order>())
                .range(condition)
                .all()
                .await
                .unwrap())
        }
    };
    let c1_orders =
        |f: &dyn Fn(&str) -> bool| expected(|o| o.customer_id == "c1" && f(&o.order_id));
    assert_eq!(run(Order::ORDER_ID.eq("o010")).await, ["o010"]);
    assert_eq!(
        run(Order::ORDER_ID.lt("o010")).await,
        c1_orders(&|id| id < "o010")
    );
    assert_eq!(
        run(Order::ORDER_ID.le("o010")).await,
        c1_orders(&|id| id <= "o010")
    );
    assert_eq!(
        run(Order::ORDER_ID.gt("o010")).await,
        c1_orders(&|id| id > "o010")
    );
    assert_eq!(
        run(Order::ORDER_ID.ge("o010")).await,
        c1_orders(&|id| id >= "o010")
    );
    assert_eq!(
        run(Order::ORDER_ID.between("o004", "o016")).await,
        ["o004", "o007", "o010", "o013", "o016"]
    );
    assert_eq!(
        run(Order::ORDER_ID.begins_with("o01")).await,
        ["o010", "o013", "o016", "o019"]
    );
    // A range condition on a date key goes through its storage.
    let by_date = db
        .query::<Order>()
        .matching(Order::CUSTOMER_ID.eq("c1"))
        .matching(Order::PLACED_AT.between(day(10), day(20)))
        .all()
        .await
        .unwrap();
    assert_eq!(ids(&by_date), ["o010", "o013", "o016", "o019"]);
}

#[tokio::test]
async fn every_filter_operator() {
    let db = orders("idx_filter_ops").await;
    let run = |condition: dynorm::Condition<Order>| {
        let db = db.clone();
        async move {
            let mut found = ids(&db.scan::<Order>().filter(condition).all().await.unwrap());
            found.sort();
            found
        }
    };
    assert_eq!(
        run(Order::TOTAL.eq(50.0)).await,
        expected(|o| o.total == 50.0)
    );
    assert_eq!(
        run(Order::STATUS.ne(Status::Open)).await,
        expected(|o| o.status != Status::Open)
    );
    assert_eq!(
        run(Order::TOTAL.lt(50.0)).await,
        expected(|o| o.total < 50.0)
    );
    assert_eq!(
        run(Order::TOTAL.le(50.0)).await,
        expected(|o| o.total <= 50.0)
    );
    assert_eq!(
        run(Order::TOTAL.gt(250.0)).await,
        expected(|o| o.total > 250.0)
    );
    assert_eq!(
        run(Order::TOTAL.ge(250.0)).await,
        expected(|o| o.total >= 250.0)
    );
    assert_eq!(
        run(Order::TOTAL.between(100.0, 130.0)).await,
        expected(|o| (100.0..=130.0).contains(&o.total))
    );
    assert_eq!(
        run(Order::REGION.is_in(["eu", "asia"])).await,
        expected(|o| o.region == "eu")
    );
    assert_eq!(
        run(Order::ODD.begins_with("odd 2")).await,
        expected(|o| o.odd.starts_with("odd 2"))
    );
    assert_eq!(
        run(Order::ODD.contains("d 1")).await,
        expected(|o| o.odd.contains("d 1"))
    );
    assert_eq!(
        run(Order::TAGS.has("t2")).await,
        expected(|o| o.tags.contains(&"t2".to_owned()))
    );
    assert_eq!(
        run(Order::LABELS.has("gift")).await,
        expected(|o| o.labels.contains("gift"))
    );
    assert_eq!(
        run(Order::NOTE.exists()).await,
        expected(|o| o.note.is_some())
    );
    assert_eq!(
        run(Order::COUPON_CODE.not_exists()).await,
        expected(|o| o.coupon_code.is_none())
    );
    assert_eq!(
        run(Order::LABELS.is_type(AttributeType::Ss)).await,
        expected(|o| !o.labels.is_empty())
    );
    assert_eq!(
        run(Order::TAGS.size().ge(2)).await,
        expected(|o| o.tags.len() >= 2)
    );
    assert_eq!(
        run(Order::ITEM_COUNT.eq(3u32)).await,
        expected(|o| o.item_count == 3)
    );
    assert_eq!(
        run(Order::REGION.eq("eu") & Order::STATUS.eq(Status::Open)).await,
        expected(|o| o.region == "eu" && o.status == Status::Open)
    );
    assert_eq!(
        run(Order::TOTAL.lt(30.0) | Order::TOTAL.gt(260.0)).await,
        expected(|o| o.total < 30.0 || o.total > 260.0)
    );
    assert_eq!(
        run(!Order::NOTE.exists()).await,
        expected(|o| o.note.is_none())
    );
    assert_eq!(
        run((Order::REGION.eq("us") | Order::NOTE.exists()).and(Order::TOTAL.ge(100.0).not()))
            .await,
        expected(|o| (o.region == "us" || o.note.is_some()) && o.total < 100.0)
    );
}

#[tokio::test]
async fn query_filters_combine_with_the_key_condition() {
    let db = orders("idx_query_filter").await;
    let found = db
        .query::<Order>()
        .matching(Order::CUSTOMER_ID.eq("c0"))
        .filter(Order::TOTAL.gt(100.0))
        .matching(Order::NOTE.exists())
        .all()
        .await
        .unwrap();
    assert_eq!(
        ids(&found),
        expected(|o| o.customer_id == "c0" && o.total > 100.0 && o.note.is_some())
    );
}

#[tokio::test]
async fn a_named_index_returns_its_projected_item_type() {
    let db = orders("idx_projection").await;
    // INCLUDE: the table keys, the index keys and `total`.
    let open: Vec<OrderByStatusItem> = db
        .query_by::<OrderByStatus>(Status::Open)
        .range(Order::PLACED_AT.ge(day(20)))
        .all()
        .await
        .unwrap();
    let got: Vec<(String, f64)> = open.iter().map(|o| (o.order_id.clone(), o.total)).collect();
    assert_eq!(
        got,
        [
            ("o020".into(), 200.0),
            ("o022".into(), 220.0),
            ("o024".into(), 240.0),
            ("o026".into(), 260.0),
            ("o028".into(), 280.0)
        ]
    );
    assert!(open
        .iter()
        .all(|o| o.status == Status::Open && o.placed_at >= day(20)));

    // KEYS_ONLY: only keys.
    let eu: Vec<OrderByRegionItem> = db.query_by::<OrderByRegion>("eu").all().await.unwrap();
    let mut eu_ids: Vec<_> = eu.iter().map(|o| o.order_id.clone()).collect();
    eu_ids.sort();
    assert_eq!(eu_ids, expected(|o| o.region == "eu"));
    assert!(eu
        .iter()
        .all(|o| o.region == "eu" && !o.customer_id.is_empty()));

    // ALL: whole models.
    let coupons: Vec<Order> = db.query_by::<OrderByCoupon>("SAVE0").all().await.unwrap();
    let mut coupon_ids = ids(&coupons);
    coupon_ids.sort();
    assert_eq!(
        coupon_ids,
        expected(|o| o.coupon_code.as_deref() == Some("SAVE0"))
    );
    assert_eq!(
        coupons.iter().find(|o| o.order_id == "o010"),
        Some(&order(10))
    );

    // The table itself, by its hash key.
    let c2: Vec<Order> = db.query_by::<Order>("c2").all().await.unwrap();
    assert_eq!(ids(&c2), expected(|o| o.customer_id == "c2"));
}

#[tokio::test]
async fn a_sparse_index_holds_only_items_with_the_key() {
    let db = orders("idx_sparse").await;
    let in_index: Vec<Order> = db.scan_by::<OrderByCoupon>().all().await.unwrap();
    let mut found = ids(&in_index);
    found.sort();
    assert_eq!(found, expected(|o| o.coupon_code.is_some()));
    assert_eq!(found.len(), 6);
}

#[tokio::test]
async fn pages_follow_their_cursor_to_the_end() {
    let db = orders("idx_pages").await;
    let mut cursor: Option<String> = None;
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let page = db
            .query_by::<Order>("c0")
            .page_size(3)
            .page(cursor.as_deref())
            .await
            .unwrap();
        pages += 1;
        assert!(page.items.len() <= 3);
        seen.extend(ids(&page.items));
        match page.cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert!(
        pages >= 4,
        "10 items in pages of 3 take at least 4 pages, not {pages}"
    );
    assert_eq!(seen, expected(|o| o.customer_id == "c0"));

    // An index query pages too, and its cursor carries the index keys.
    let first = db
        .query_by::<OrderByStatus>(Status::Paid)
        .page_size(4)
        .page(None)
        .await
        .unwrap();
    let cursor = first.cursor.expect("15 paid orders do not fit in 4");
    let second = db
        .query_by::<OrderByStatus>(Status::Paid)
        .page_size(4)
        .page(Some(&cursor))
        .await
        .unwrap();
    assert_eq!(second.items.len(), 4);
    assert!(first.items.last().unwrap().placed_at < second.items[0].placed_at);

    // A cursor from another index, or a changed one, is a clear error before sending.
    let error = db
        .query_by::<Order>("c0")
        .page(Some(&cursor))
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation);
    assert!(error.to_string().contains("another index"), "{error}");
    let mut tampered = cursor.clone();
    let at = tampered.len() / 2;
    let replacement = if &tampered[at..at + 1] == "A" {
        "B"
    } else {
        "A"
    };
    tampered.replace_range(at..at + 1, replacement);
    let error = db
        .query_by::<OrderByStatus>(Status::Paid)
        .page(Some(&tampered))
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation);
    assert!(error.to_string().contains("page cursor"), "{error}");
    let error = db
        .query_by::<OrderByStatus>(Status::Paid)
        .page(Some("garbage"))
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation);
}

/// FNV-1a, as a cursor's checksum without a key: anyone can compute it.
fn unkeyed_checksum(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[tokio::test]
async fn sealed_cursors_refuse_what_their_holder_changed() {
    let db = orders("idx_signed_cursor").await;
    let sealed = db
        .to_builder()
        .cursor_key(b"an application secret of 32 bytes")
        .map(|b| b.build())
        .unwrap();
    let page = |client: &Client, cursor: Option<String>| {
        let client = client.clone();
        async move {
            client
                .query_by::<Order>("c0")
                .page_size(3)
                .page(cursor.as_deref())
                .await
        }
    };
    // Sealed pages read the same items as unsealed ones.
    let first = page(&sealed, None).await.unwrap();
    let cursor = first.cursor.clone().expect("10 orders do not fit in 3");
    assert!(cursor.starts_with("c4."), "{cursor}");
    let second = page(&sealed, Some(cursor.clone())).await.unwrap();
    let plain_first = page(&db, None).await.unwrap();
    let plain = plain_first.cursor.clone().unwrap();
    let plain_second = page(&db, Some(plain.clone())).await.unwrap();
    assert_eq!(ids(&second.items), ids(&plain_second.items));

    // A forgery of a cursor without a key: its own fields with a key of the holder's
    // choosing (skipping to the last order), and the checksum recomputed.
    let (body, _sum) = plain.rsplit_once('.').unwrap();
    let mut fields: Vec<String> = body.split('.').map(str::to_owned).collect();
    let last = fields.len() - 1;
    use base64::Engine as _;
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    fields[last] = engine.encode("o027");
    let forged_body = fields.join(".");
    let forged = format!("{forged_body}.{:016x}", unkeyed_checksum(&forged_body));
    // Without a key the forgery passes the checksum, which is why public APIs set a key.
    assert!(page(&db, Some(forged.clone())).await.is_ok());
    let refused = |error: dynorm::Error, why: &str| {
        assert_eq!(error.kind(), ErrorKind::Validation, "{error}");
        assert_eq!(error.operation(), Some("query"), "{error}");
        assert!(error.to_string().contains(why), "`{why}` in {error}");
    };
    refused(page(&sealed, Some(forged)).await.unwrap_err(), "not sealed");
    // A sealed cursor with one byte changed does not open.
    let mut bytes = engine.decode(&cursor[3..]).unwrap();
    let at = bytes.len() - 20;
    bytes[at] ^= 1;
    let changed = format!("c4.{}", engine.encode(&bytes));
    refused(page(&sealed, Some(changed)).await.unwrap_err(), "changed");
    // Another key, and a client without one, refuse the cursor too.
    let other = db
        .to_builder()
        .cursor_key(b"another secret, also of 32 bytes")
        .map(|b| b.build())
        .unwrap();
    refused(
        page(&other, Some(cursor.clone())).await.unwrap_err(),
        "another key",
    );
    refused(
        page(&db, Some(cursor.clone())).await.unwrap_err(),
        "no cursor key",
    );
}

#[tokio::test]
async fn streams_cross_pages_and_counts_apply_the_filter() {
    let db = orders("idx_stream").await;
    let streamed: Vec<Order> = db
        .query_by::<Order>("c1")
        .page_size(2)
        .stream()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(ids(&streamed), expected(|o| o.customer_id == "c1"));
    let count = db
        .query_by::<Order>("c1")
        .page_size(2)
        .filter(Order::TOTAL.gt(100.0))
        .count()
        .await
        .unwrap();
    assert_eq!(
        count as usize,
        expected(|o| o.customer_id == "c1" && o.total > 100.0).len()
    );
    assert_eq!(db.scan::<Order>().page_size(7).count().await.unwrap(), 30);
}

#[tokio::test]
async fn descending_order_reverses_the_range_key() {
    let db = orders("idx_descending").await;
    let newest_first = db.query_by::<Order>("c2").descending().all().await.unwrap();
    let mut wanted = expected(|o| o.customer_id == "c2");
    wanted.reverse();
    assert_eq!(ids(&newest_first), wanted);
    let by_date = db
        .query::<Order>()
        .matching(Order::CUSTOMER_ID.eq("c2"))
        .matching(Order::PLACED_AT.ge(day(0)))
        .descending()
        .page_size(3)
        .page(None)
        .await
        .unwrap();
    assert_eq!(ids(&by_date.items), ["o029", "o026", "o023"]);
}

#[tokio::test]
async fn a_parallel_scan_returns_every_item_exactly_once() {
    let db = orders("idx_parallel").await;
    for n in 30..200 {
        db.put(&order(n)).send().await.unwrap();
    }
    let items: Vec<Order> = db
        .scan::<Order>()
        .page_size(9)
        .parallel(4)
        .try_collect()
        .await
        .unwrap();
    let mut found = ids(&items);
    found.sort();
    let unique: HashSet<_> = found.iter().cloned().collect();
    assert_eq!(found.len(), 200);
    assert_eq!(unique.len(), 200);
    // One segment alone is a strict part of the table.
    let one: Vec<Order> = db.scan::<Order>().segment(0, 4).all().await.unwrap();
    assert!(one.len() < 200);
    // No segments is not a scan of nothing: it is refused before sending.
    let none: Result<Vec<Order>, _> = db.scan::<Order>().parallel(0).try_collect().await;
    let error = none.unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
    assert!(error.to_string().contains("segment 0 of 0"), "{error}");
}

/// A parallel scan of many segments keeps at most its concurrency of segments, each one
/// request, in flight; counted by an interceptor, not timed.
#[tokio::test]
async fn a_parallel_scan_reads_at_most_its_concurrency_of_segments_at_once() {
    let db = common::db_with::<Order>("idx_parallel_at_once").await;
    let all: Vec<Order> = (0..200).map(order).collect();
    db.batch_write().put_many(&all).send().await.unwrap();
    let mut every: Vec<String> = ids(&all);
    every.sort();
    let in_flight = common::in_flight::InFlight::new();
    let requests = common::Requests::new();
    let db = in_flight.client(&requests.client(&db));

    for (concurrency, most) in [(Some(4), 4), (None, 16)] {
        in_flight.reset();
        let mut scan = db.scan::<Order>();
        if let Some(concurrency) = concurrency {
            scan = scan.concurrency(concurrency);
        }
        let items: Vec<Order> = scan.parallel(64).try_collect().await.unwrap();
        let mut found = ids(&items);
        found.sort();
        assert_eq!(found, every, "every item, each once");
        // One page per segment, and never more segments at once than the concurrency.
        requests.assert_counts([("Scan", 64)]);
        assert_eq!(in_flight.most(), most, "{concurrency:?}");
        assert_eq!(in_flight.started(), 64);
    }

    // 0 segments at once would scan nothing: refused before sending.
    in_flight.reset();
    let refused: Result<Vec<Order>, _> = db
        .scan::<Order>()
        .concurrency(0)
        .parallel(4)
        .try_collect()
        .await;
    let error = refused.unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
    assert_eq!(error.model(), Some("Order"));
    assert_eq!(error.operation(), Some("scan"));
    assert!(error.to_string().contains("concurrency 0"), "{error}");
    assert_eq!(in_flight.started(), 0);
}

#[tokio::test]
async fn auto_selection_follows_the_four_rules() {
    let db = common::db("idx_rules").await;
    let plan =
        |q: dynorm::query::Query<Order>| q.plan().map(|p| (p.index_name(), p.filter.is_some()));
    // Rule 3: the table.
    assert_eq!(
        plan(db.query::<Order>().matching(Order::CUSTOMER_ID.eq("c1"))).unwrap(),
        ("table", false)
    );
    // Rule 4: the only candidate.
    assert_eq!(
        plan(db.query::<Order>().matching(Order::COUPON_CODE.eq("SAVE0"))).unwrap(),
        ("byCoupon", false)
    );
    // Rule 2: the local index, whose range key is in the conditions.
    assert_eq!(
        plan(
            db.query::<Order>()
                .matching(Order::CUSTOMER_ID.eq("c1"))
                .matching(Order::PLACED_AT.gt(day(1)))
        )
        .unwrap(),
        ("byPlacedAt", false)
    );
    // Rule 2 prefers global indexes: byStatus's range key is placedAt too, and byStatus
    // does not project every attribute, so whole models cannot come from it.
    let error = plan(
        db.query::<Order>()
            .matching(Order::CUSTOMER_ID.eq("c1"))
            .matching(Order::STATUS.eq(Status::Paid))
            .matching(Order::PLACED_AT.gt(day(1))),
    )
    .unwrap_err();
    assert!(error.to_string().contains("byStatus"), "{error}");
    // Rule 3 again: the table wins over byStatus, and status becomes a filter.
    assert_eq!(
        plan(
            db.query::<Order>()
                .matching(Order::CUSTOMER_ID.eq("c1"))
                .matching(Order::STATUS.eq(Status::Open))
        )
        .unwrap(),
        ("table", true)
    );
    // No equality on any hash key.
    let error = plan(db.query::<Order>().matching(Order::TOTAL.gt(1.0))).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation);
    assert!(
        error.to_string().contains("no index fits the query"),
        "{error}"
    );
    // A chosen index that does not project everything, for whole models.
    let error = plan(db.query::<Order>().matching(Order::STATUS.eq(Status::Open))).unwrap_err();
    assert!(
        error.to_string().contains("`byStatus`")
            && error.to_string().contains("query_by::<OrderByStatus>"),
        "{error}"
    );
    // Consistent reads on a global index.
    let error = db
        .query_by::<OrderByCoupon>("x")
        .consistent_read(true)
        .plan()
        .unwrap_err();
    assert!(error.to_string().contains("consistent"), "{error}");
    // A key attribute in a query filter.
    let error = db
        .query_by::<Order>("c1")
        .filter(Order::ORDER_ID.eq("o1"))
        .plan()
        .unwrap_err();
    assert!(error.to_string().contains("key attribute"), "{error}");
    // A range condition on something that is not the range key.
    let error = db
        .query_by::<Order>("c1")
        .range(Order::TOTAL.gt(1.0))
        .plan()
        .unwrap_err();
    assert!(
        error.to_string().contains("not a range key attribute"),
        "{error}"
    );
}

#[tokio::test]
async fn auto_selected_queries_return_the_right_items() {
    let db = orders("idx_auto_run").await;
    let local = db
        .query::<Order>()
        .matching(Order::CUSTOMER_ID.eq("c0"))
        .matching(Order::PLACED_AT.lt(day(10)))
        .consistent_read(true)
        .all()
        .await
        .unwrap();
    assert_eq!(
        ids(&local),
        expected(|o| o.customer_id == "c0" && o.placed_at < day(10))
    );
    let filtered = db
        .query::<Order>()
        .matching(Order::CUSTOMER_ID.eq("c0"))
        .matching(Order::STATUS.eq(Status::Open))
        .all()
        .await
        .unwrap();
    assert_eq!(
        ids(&filtered),
        expected(|o| o.customer_id == "c0" && o.status == Status::Open)
    );
    let projected = db
        .query_by::<Order>("c0")
        .project(["orderId", "size"])
        .all()
        .await
        .unwrap();
    assert!(projected
        .iter()
        .all(|item| item.len() == 2 && item.contains_key("size")));
}

#[test]
fn create_table_input_has_every_index() {
    let input = Order::create_table_input();
    let definitions: Vec<_> = input
        .attribute_definitions()
        .iter()
        .map(|d| d.attribute_name().to_owned())
        .collect();
    assert_eq!(
        definitions,
        [
            "customerId",
            "orderId",
            "status",
            "placedAt",
            "couponCode",
            "region"
        ]
    );
    let globals: HashMap<_, _> = input
        .global_secondary_indexes()
        .iter()
        .map(|g| {
            (
                g.index_name().to_owned(),
                g.projection()
                    .unwrap()
                    .projection_type()
                    .unwrap()
                    .as_str()
                    .to_owned(),
            )
        })
        .collect();
    assert_eq!(globals.len(), 3);
    assert_eq!(globals["byStatus"], "INCLUDE");
    assert_eq!(globals["byCoupon"], "ALL");
    assert_eq!(globals["byRegion"], "KEYS_ONLY");
    let locals = input.local_secondary_indexes();
    assert_eq!(locals.len(), 1);
    assert_eq!(locals[0].key_schema()[0].attribute_name(), "customerId");
    assert_eq!(locals[0].key_schema()[1].attribute_name(), "placedAt");
    let json = Order::create_table_json();
    assert!(
        json.contains("\"NonKeyAttributes\": [\n          \"total\"\n        ]"),
        "{json}"
    );
    assert_eq!(
        <OrderByStatus as dynorm::schema::Index>::INDEX.kind,
        IndexKind::Global
    );
    assert_eq!(
        <OrderByPlacedAt as dynorm::schema::Index>::INDEX.kind,
        IndexKind::Local
    );
}

/// A model with a multi-attribute global index: two partition and two sort attributes.
#[derive(Model, Debug, Clone, PartialEq)]
#[index(name = "byTeamRole", hash_key = [team, role], range_key = [month, score])]
struct Score {
    #[hash_key]
    player: String,
    #[range_key]
    game: u32,
    team: String,
    role: String,
    month: String,
    score: i64,
}

#[tokio::test]
async fn multi_attribute_keys_are_queried_attribute_by_attribute() {
    let db = common::db_with::<Score>("idx_multi").await;
    for game in 0..24u32 {
        let score = Score {
            player: format!("p{}", game % 4),
            game,
            team: if game % 2 == 0 {
                "red".into()
            } else {
                "blue".into()
            },
            role: if game % 3 == 0 {
                "lead".into()
            } else {
                "wing".into()
            },
            month: format!("2026-{:02}", 1 + (game / 6) % 2),
            score: i64::from(game) * 5,
        };
        db.put(&score).send().await.unwrap();
    }
    let red_lead =
        |db: &Client| db.query_by::<ScoreByTeamRole>(("red".to_owned(), "lead".to_owned()));
    let all = red_lead(&db).all().await.unwrap();
    assert_eq!(all.len(), 4);
    assert!(all.iter().all(|s| s.team == "red" && s.role == "lead"));
    let january = red_lead(&db)
        .range(Score::MONTH.eq("2026-01"))
        .all()
        .await
        .unwrap();
    assert!(january.iter().all(|s| s.month == "2026-01"));
    assert_eq!(january.len(), 2);
    let high = red_lead(&db)
        .range(Score::MONTH.eq("2026-01"))
        .range(Score::SCORE.gt(50))
        .all()
        .await
        .unwrap();
    assert_eq!(high.iter().map(|s| s.game).collect::<Vec<_>>(), [12]);

    // Auto-selection needs an equality on every partition attribute.
    let auto = db
        .query::<Score>()
        .matching(Score::TEAM.eq("red"))
        .matching(Score::ROLE.eq("lead"))
        .matching(Score::MONTH.eq("2026-01"));
    assert_eq!(auto.plan().unwrap().index_name(), "byTeamRole");
    let half = db.query::<Score>().matching(Score::TEAM.eq("red"));
    assert!(half.plan().is_err());

    // DynamoDB's rules, before sending: no gap, and a range operator only on the last one.
    let error = red_lead(&db).range(Score::SCORE.gt(5)).plan().unwrap_err();
    assert!(error.to_string().contains("left to right"), "{error}");
    let error = red_lead(&db)
        .range(Score::MONTH.gt("2026-01"))
        .range(Score::SCORE.eq(5))
        .plan()
        .unwrap_err();
    assert!(error.to_string().contains("needs `=`"), "{error}");

    let input = Score::create_table_input();
    let index = &input.global_secondary_indexes()[0];
    let schema: Vec<_> = index
        .key_schema()
        .iter()
        .map(|k| {
            (
                k.attribute_name().to_owned(),
                k.key_type().as_str().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        schema,
        [
            ("team".into(), "HASH".into()),
            ("role".into(), "HASH".into()),
            ("month".into(), "RANGE".into()),
            ("score".into(), "RANGE".into())
        ]
    );
}

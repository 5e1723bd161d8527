//! A realistic flow on the embedded server: the seed's `Order` model with its three
//! indexes, a few hundred orders, then queries through each index, paging with a cursor,
//! a stream, filters and a parallel scan.
//!
//! `cargo run --example orders` (or with `DYNAMODB_ENDPOINT` set, against DynamoDB Local).

use chrono::{DateTime, Duration, TimeZone, Utc};
use dynorm::Model;
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};

// A native string, so it can be a key; stored as serde would store it.
#[derive(dynorm::Value, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Open,
    Paid,
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Order", rename_all = "camelCase")]
pub struct Order {
    #[hash_key]
    pub customer_id: String,
    #[range_key]
    pub order_id: String,
    #[index(name = "byStatus", range_key = "placed_at", project = ["total"])]
    pub status: Status,
    #[index(name = "byPlacedAt", local)]
    pub placed_at: DateTime<Utc>,
    #[index(name = "byCoupon")]
    pub coupon_code: Option<String>,
    pub total: f64,
    pub note: Option<String>,
}

const CUSTOMERS: usize = 12;
const ORDERS: usize = 360;

fn order(n: usize) -> Order {
    let start = Utc.with_ymd_and_hms(2026, 9, 1, 8, 0, 0).unwrap();
    Order {
        customer_id: format!("customer-{:02}", n % CUSTOMERS),
        order_id: format!("order-{n:04}"),
        status: if n.is_multiple_of(3) {
            Status::Open
        } else {
            Status::Paid
        },
        placed_at: start + Duration::hours(6 * n as i64),
        coupon_code: n
            .is_multiple_of(17)
            .then(|| ["WELCOME", "AUTUMN"][n % 2].to_owned()),
        total: ((n * 37) % 500) as f64 + 0.99,
        note: n.is_multiple_of(10).then(|| "gift wrap".to_owned()),
    }
}

#[tokio::main]
async fn main() -> Result<(), dynorm::Error> {
    let db = dynorm_test::local::client()
        .await?
        .to_builder()
        .table_prefix(format!("orders_demo_{}_", Utc::now().timestamp_millis()))
        .build();
    db.tables().create::<Order>().send().await?;
    db.tables()
        .wait_until_active::<Order>(std::time::Duration::from_secs(30))
        .send()
        .await?;
    println!(
        "table {} with indexes byStatus (global), byPlacedAt (local), byCoupon (sparse global)",
        db.tables().name::<Order>()
    );

    for n in 0..ORDERS {
        db.put(&order(n)).send().await?;
    }
    println!("wrote {ORDERS} orders for {CUSTOMERS} customers\n");

    // The table: one customer's orders, newest first.
    let latest = db
        .query_by::<Order>("customer-03")
        .descending()
        .page_size(3)
        .page(None)
        .await?;
    println!("customer-03's three latest orders:");
    for o in &latest.items {
        println!(
            "  {} {:?} {:>7.2} placed {}",
            o.order_id, o.status, o.total, o.placed_at
        );
    }

    // byStatus: open orders placed in October; the item type holds the keys and `total`.
    let october = Utc.with_ymd_and_hms(2026, 10, 1, 0, 0, 0).unwrap();
    let open: Vec<OrderByStatusItem> = db
        .query_by::<OrderByStatus>(Status::Open)
        .range(Order::PLACED_AT.between(october, october + Duration::days(31)))
        .all()
        .await?;
    let open_total: f64 = open.iter().map(|o| o.total).sum();
    println!(
        "\nbyStatus: {} open orders placed in October, worth {open_total:.2} in all",
        open.len()
    );

    // byPlacedAt, chosen automatically: the local index's range key is in the conditions.
    let recent = db
        .query::<Order>()
        .matching(Order::CUSTOMER_ID.eq("customer-05"))
        .matching(Order::PLACED_AT.ge(Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap()))
        .matching(Order::TOTAL.gt(200.0));
    println!("\nauto-selected query plan:\n{}", recent.plan()?);
    let recent = recent.all().await?;
    println!(
        "-> {} orders of customer-05 since November over 200",
        recent.len()
    );

    // byCoupon: a sparse index holds only the orders with a coupon.
    let welcome = db.query_by::<OrderByCoupon>("WELCOME").all().await?;
    let with_coupon = db.scan_by::<OrderByCoupon>().count().await?;
    println!(
        "\nbyCoupon: {with_coupon} orders have a coupon; {} used WELCOME",
        welcome.len()
    );

    // Paging through a customer's orders with an opaque cursor.
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    let mut seen = 0;
    loop {
        let page = db
            .query_by::<Order>("customer-07")
            .page_size(8)
            .page(cursor.as_deref())
            .await?;
        pages += 1;
        seen += page.items.len();
        match page.cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    println!("\npaged through customer-07's {seen} orders in {pages} pages of up to 8");

    // Streaming every paid order through the index, one page in memory at a time.
    let mut paid = db
        .query_by::<OrderByStatus>(Status::Paid)
        .page_size(50)
        .stream();
    let (mut count, mut sum) = (0usize, 0.0);
    while let Some(item) = paid.try_next().await? {
        count += 1;
        sum += item.total;
    }
    println!("streamed {count} paid orders, {sum:.2} in all");

    // A filtered parallel scan.
    let noted: Vec<Order> = db
        .scan::<Order>()
        .filter(Order::NOTE.exists() & Order::TOTAL.lt(100.0))
        .parallel(4)
        .try_collect()
        .await?;
    println!(
        "parallel scan (4 segments): {} orders with a note and a total under 100",
        noted.len()
    );

    // A mistake caught before sending.
    let no_hash = db.query::<Order>().matching(Order::TOTAL.gt(10.0));
    println!(
        "\na query with no hash key: {}",
        no_hash.plan().unwrap_err()
    );

    println!(
        "\ntable {} is left in place (on the embedded server they go when the process ends; see the README: Examples and their tables)",
        db.tables().name::<Order>(),
    );
    Ok(())
}

//! The seed's `markPaid`: an order's range key `monthStatus` is built from `month` and
//! `status`, so paying an order moves it to a new key. One transaction deletes the old
//! item and creates the new one, so one write never happens without the other.
//!
//! `cargo run --example mark_paid`

use dynorm::schema::ModelKey;
use dynorm::Model;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
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
    pub month: String,
    pub status: Status,
    /// Built from `month` and `status` on every whole-item write: `2026-11#open`.
    #[range_key]
    #[combine(fields = [month, status], sep = "#")]
    pub month_status: String,
    pub total: f64,
}

/// Moves the customer's open order of `month` to its paid key.
pub async fn mark_paid(
    db: &dynorm::Client,
    customer_id: &str,
    month: &str,
) -> Result<Order, Box<dyn std::error::Error>> {
    let key = OrderKey {
        customer_id: customer_id.into(),
        month_status: format!("{month}#open"),
    };
    let order = db.get::<Order>(key).send().await?.ok_or("no open order")?;
    let paid = Order {
        status: Status::Paid,
        ..order.clone()
    };
    db.transact_write()
        .write(db.delete::<Order>(order.key()).require_exists(true))
        // Conditional on the new key not being stored yet.
        .write(db.create(&paid))
        .send()
        .await?;
    Ok(paid)
}

fn show(key: &OrderKey) -> String {
    format!(
        "{{customerId: {:?}, monthStatus: {:?}}}",
        key.customer_id, key.month_status
    )
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let db = dynorm_test::local::client()
        .await?
        .to_builder()
        .table_prefix(format!(
            "mark_paid_{}_",
            chrono::Utc::now().timestamp_millis()
        ))
        .build();
    db.tables().create::<Order>().send().await?;
    db.tables()
        .wait_until_active::<Order>(std::time::Duration::from_secs(30))
        .send()
        .await?;

    let open = Order {
        customer_id: "c1".into(),
        month: "2026-11".into(),
        status: Status::Open,
        month_status: String::new(), // built on write
        total: 42.5,
    };
    db.create(&open).send().await?;
    println!("before: {}", show(&open.key()));

    let paid = mark_paid(&db, "c1", "2026-11").await?;
    println!("after:  {}", show(&paid.key()));

    let items = db.query_by::<Order>("c1").all().await?;
    println!("items for customer c1: {}", items.len());
    for item in &items {
        println!(
            "  {} {:?} {:.2}",
            item.month_status, item.status, item.total
        );
    }
    assert_eq!(items.len(), 1, "exactly one item for the order");
    assert_eq!(items[0].month_status, "2026-11#paid");
    let raw_key = paid.key().to_key_item()?;
    println!(
        "stored key attributes: {:?}",
        raw_key.keys().collect::<std::collections::BTreeSet<_>>()
    );

    // Paying again finds no open order.
    match mark_paid(&db, "c1", "2026-11").await {
        Err(e) => println!("paying again: {e}"),
        Ok(_) => return Err("paid twice".into()),
    }
    println!(
        "\ntable {} is left with the one paid order (on the embedded server they go when the process ends; see the README: Examples and their tables)",
        db.tables().name::<Order>(),
    );
    Ok(())
}

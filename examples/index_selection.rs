//! The model from the seed's "Which index a query uses", and its five queries. For each,
//! one line `<n>: <index>` and then the key condition and the filter. Nothing is sent:
//! `plan()` only plans.

use chrono::{DateTime, TimeZone, Utc};
use dynorm::Model;
use serde::{Deserialize, Serialize};

// A native string, so it can be a key; stored as serde would store it.
#[derive(dynorm::Value, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Open,
    Paid,
}

#[derive(Model, Debug, Clone)]
#[dynorm(table = "Order", rename_all = "camelCase")]
pub struct Order {
    #[hash_key]
    pub customer_id: String,
    #[range_key]
    pub order_id: String,
    #[index(name = "byStatus", range_key = "placed_at")]
    pub status: Status,
    #[index(name = "byPlacedAt", local)]
    pub placed_at: DateTime<Utc>,
}

fn show(n: usize, plan: Result<dynorm::expr::Plan, dynorm::Error>) {
    match plan {
        Ok(plan) => {
            println!("{n}: {}", plan.index_name());
            println!(
                "   key condition: {}  [{}]",
                plan.key_condition,
                plan.readable(&plan.key_condition)
            );
            match &plan.filter {
                Some(filter) => println!("   filter: {filter}  [{}]", plan.readable(filter)),
                None => println!("   filter: (none)"),
            }
            println!("   why: {}", plan.reason);
        }
        Err(e) => println!("{n}: error: {e}"),
    }
}

#[tokio::main]
async fn main() -> Result<(), dynorm::Error> {
    // Plans need no server; the client only names the table.
    let db = dynorm_test::local::client().await?;
    let november = Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap();

    // 1. the table
    show(
        1,
        db.query::<Order>()
            .matching(Order::CUSTOMER_ID.eq("c1"))
            .plan(),
    );
    // 2. byStatus: its hash key has the equality
    show(
        2,
        db.query::<Order>()
            .matching(Order::STATUS.eq(Status::Open))
            .plan(),
    );
    // 3. byPlacedAt
    show(
        3,
        db.query::<Order>()
            .matching(Order::CUSTOMER_ID.eq("c1"))
            .matching(Order::PLACED_AT.gt(november))
            .plan(),
    );
    // 4. the table, status is a filter
    show(
        4,
        db.query::<Order>()
            .matching(Order::CUSTOMER_ID.eq("c1"))
            .matching(Order::STATUS.eq(Status::Open))
            .plan(),
    );
    // 5. named: no choice made
    show(5, db.query_by::<OrderByStatus>(Status::Open).plan());
    Ok(())
}

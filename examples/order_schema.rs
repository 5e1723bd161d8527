//! The seed's `Order` model from "Secondary indexes", printed as the JSON that
//! `aws dynamodb create-table --cli-input-json` accepts, and nothing else.
//!
//! `cargo run -q --example order_schema > order.json`

use chrono::{DateTime, Utc};
use dynorm::Model;
use serde::{Deserialize, Serialize};

/// An order's status, stored as the strings `open` and `paid`.
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
    /// A global index, sorted by placedAt, that projects only the keys and `total`.
    #[index(name = "byStatus", range_key = "placed_at", project = ["total"])]
    pub status: Status,
    /// A local index: the same hash key as the table, sorted by placedAt.
    #[index(name = "byPlacedAt", local)]
    pub placed_at: DateTime<Utc>,
    /// A sparse global index: only orders with a couponCode are in it.
    #[index(name = "byCoupon")]
    pub coupon_code: Option<String>,
    pub total: f64,
    pub note: Option<String>,
}

fn main() {
    println!("{}", Order::create_table_json());
}

//! Seeing what dynorm does and what it costs: every request dynorm sends is a `tracing`
//! span named after OpenTelemetry's conventions for DynamoDB, printed here by
//! `tracing-subscriber`'s fmt layer when it closes, with its duration.
//!
//! Run it with `cargo run --example tracing`. With `tracing-opentelemetry` in place of
//! the fmt layer, the same spans become OpenTelemetry spans, with no code from dynorm.

use dynorm::observe::Tally;
use dynorm::Model;
use dynorm::Request;
use futures::TryStreamExt;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::format::FmtSpan;
use tracing_subscriber::prelude::*;

#[derive(Model, Debug, Clone)]
#[dynorm(rename_all = "camelCase")]
struct Order {
    #[hash_key]
    customer_id: String,
    #[range_key]
    order_id: String,
    #[index(name = "byStatus")]
    status: String,
    total: f64,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_span_events(FmtSpan::CLOSE)
                .with_target(false),
        )
        .with(Targets::new().with_target("dynorm", tracing::Level::INFO))
        .init();

    let db = dynorm_test::local::client()
        .await?
        .to_builder()
        .table_prefix(format!(
            "tracing_{}_",
            chrono::Utc::now().timestamp_millis()
        ))
        .build();
    db.tables().create::<Order>().send().await?;

    println!("== One span per request: a put, then a get with its cost ==");
    let orders: Vec<Order> = (0..30)
        .map(|i| Order {
            customer_id: "c1".into(),
            order_id: format!("o{i:02}"),
            status: if i % 3 == 0 { "open" } else { "paid" }.into(),
            total: f64::from(i) * 10.0,
        })
        .collect();
    db.put(&orders[0]).send().await?;
    let cost = Tally::default();
    db.get::<Order>(orders[0].key()).tally(&cost).send().await?;
    println!("the get cost {:?}", cost.consumed_capacity());

    println!("\n== A batch: one span per chunk attempt ==");
    let cost = Tally::default();
    let written = db
        .batch_write()
        .put_many(&orders[1..])
        .tally(&cost)
        .send()
        .await?;
    println!(
        "{written} written in {} requests, {:?}",
        cost.requests(),
        cost.consumed_capacity()
    );

    println!("\n== A query: one span per page, and what the filter threw away ==");
    let tally = Tally::default();
    let big: Vec<Order> = db
        .query_by::<Order>("c1")
        .filter(Order::TOTAL.ge(200.0))
        .page_size(10)
        .tally(&tally)
        .stream()
        .try_collect()
        .await?;
    println!(
        "{} orders in {} pages; {} read, {} thrown away by the filter; {:?}",
        big.len(),
        tally.requests(),
        tally.scanned_count(),
        tally.scanned_count() - tally.matched(),
        tally.consumed_capacity().map(|c| c.units)
    );

    println!("\n== A failed request: error.type is the ErrorKind ==");
    let error = db.create(&orders[0]).send().await.unwrap_err();
    println!("{error}");

    println!("\n== The request a builder would send, without sending it ==");
    let preview = db
        .query_by::<OrderByStatus>("open")
        .filter(Order::TOTAL.gt(100.0))
        .preview()?;
    println!(
        "Query on {:?} index {:?}: {:?} filter {:?}",
        preview.table_name(),
        preview.index_name(),
        preview.key_condition_expression(),
        preview.filter_expression()
    );
    Ok(())
}

//! Benchmark 2: `get` and `put` of one item, and a query of 100 items, through dynorm
//! against the raw aws-sdk-dynamodb calls with hand-built requests, on the embedded server
//! (or on `DYNAMODB_ENDPOINT` when it is set).
//!
//! ```sh
//! cargo bench --bench operations
//! ```
//!
//! Both sides use the same SDK client (`db.sdk()` is the client inside `db`), the same
//! table and the same item. The raw side converts with the hand-written code of
//! `common`, the floor of benchmark 1, and names the table with a `&'static str`.
//!
//! The two contenders are interleaved: in the group `get`, the benchmark `dynorm` times
//! each dynorm call and makes one untimed raw call next to it (before or after, in
//! turn), and `raw` does the opposite. Both therefore run under the same load, on the
//! same connections, at the same server state.
//!
//! After criterion, a paired run (`paired_get`, `paired_put`, `paired_query`) alternates
//! the two calls call by call, in ABBA order, and reports the median of the per-pair ratios
//! dynorm/raw, which cancels slow drift of the machine. It is written to
//! `target/criterion/paired/<op>.json` for `scripts/bench_chart.py`.
//!
//! The cost of tracing: the paired runs above have no subscriber, so dynorm's spans are
//! compiled in but disabled. `paired_traced_get`, `paired_traced_put` and
//! `paired_traced_query` run the same pairs with a subscriber at `INFO` (the fmt layer,
//! writing to a sink), so every dynorm request builds, records and formats its span.

mod common;

use std::hint::black_box;

use criterion::Criterion;
use dynorm::types::AttributeValue;
use tokio::runtime::Runtime;

use common::paired::{interleaved, paired};
use common::{Order, OrderKey};

/// The table of `Order` on an unprefixed client.
const TABLE: &str = "Order";

/// The customer whose 100 orders the query reads.
const QUERY_CUSTOMER: &str = "customer-query-100";

/// The orders the query reads.
const QUERY_ITEMS: usize = 100;

/// The client, the item and its key.
struct Fixture {
    db: dynorm::Client,
    order: Order,
}

impl Fixture {
    async fn new() -> Self {
        let db = dynorm::local::client()
            .await
            .expect("the DynamoDB server is reachable");
        assert_eq!(db.table_name::<Order>(), TABLE);
        db.ensure_table::<Order>()
            .await
            .expect("the Order table is created");
        let order = common::order();
        common::check_equal_work(&order, common::order_to_item, common::order_from_item);
        db.put(&order).send().await.expect("the item is written");
        let orders: Vec<Order> = (0..QUERY_ITEMS)
            .map(|i| Order {
                customer_id: QUERY_CUSTOMER.into(),
                order_id: format!("order-{i:03}"),
                ..order.clone()
            })
            .collect();
        db.batch_write()
            .put_all(&orders)
            .send()
            .await
            .expect("the orders are written");
        let fixture = Self { db, order };
        // Both sides read back what was written.
        assert_eq!(fixture.dynorm_get().await, fixture.order);
        assert_eq!(fixture.raw_get().await, fixture.order);
        assert_eq!(fixture.dynorm_query().await, orders);
        assert_eq!(fixture.raw_query().await, orders);
        fixture
    }

    async fn dynorm_query(&self) -> Vec<Order> {
        self.db
            .query_by::<Order>(QUERY_CUSTOMER)
            .all()
            .await
            .expect("dynorm query")
    }

    async fn raw_query(&self) -> Vec<Order> {
        let mut orders = Vec::with_capacity(QUERY_ITEMS);
        let mut start = None;
        loop {
            let output = self
                .db
                .sdk()
                .query()
                .table_name(TABLE)
                .key_condition_expression("#n0 = :v0")
                .expression_attribute_names("#n0", "customerId")
                .expression_attribute_values(":v0", AttributeValue::S(QUERY_CUSTOMER.into()))
                .set_exclusive_start_key(start)
                .send()
                .await
                .expect("raw query");
            for item in output.items.unwrap_or_default() {
                orders.push(common::order_from_item(item).expect("the item decodes"));
            }
            match output.last_evaluated_key {
                Some(key) if !key.is_empty() => start = Some(key),
                _ => return orders,
            }
        }
    }

    async fn dynorm_get(&self) -> Order {
        let key = OrderKey {
            customer_id: self.order.customer_id.clone(),
            order_id: self.order.order_id.clone(),
        };
        self.db
            .get::<Order>(key)
            .send()
            .await
            .expect("dynorm get")
            .expect("the item exists")
    }

    async fn raw_get(&self) -> Order {
        let output = self
            .db
            .sdk()
            .get_item()
            .table_name(TABLE)
            .key(
                "customerId",
                AttributeValue::S(self.order.customer_id.clone()),
            )
            .key("orderId", AttributeValue::S(self.order.order_id.clone()))
            .send()
            .await
            .expect("raw get");
        let item = output.item.expect("the item exists");
        common::order_from_item(item).expect("the item decodes")
    }

    async fn dynorm_put(&self) {
        self.db
            .put(black_box(&self.order))
            .send()
            .await
            .expect("dynorm put");
    }

    async fn raw_put(&self) {
        let item = common::order_to_item(black_box(&self.order)).expect("the item encodes");
        self.db
            .sdk()
            .put_item()
            .table_name(TABLE)
            .set_item(Some(item))
            .send()
            .await
            .expect("raw put");
    }
}

fn groups(c: &mut Criterion, rt: &Runtime, f: &Fixture) {
    let mut get = c.benchmark_group("get");
    get.bench_function("dynorm", |b| {
        b.iter_custom(|iters| rt.block_on(interleaved(iters, || f.dynorm_get(), || f.raw_get())))
    });
    get.bench_function("raw", |b| {
        b.iter_custom(|iters| rt.block_on(interleaved(iters, || f.raw_get(), || f.dynorm_get())))
    });
    get.finish();

    let mut put = c.benchmark_group("put");
    put.bench_function("dynorm", |b| {
        b.iter_custom(|iters| rt.block_on(interleaved(iters, || f.dynorm_put(), || f.raw_put())))
    });
    put.bench_function("raw", |b| {
        b.iter_custom(|iters| rt.block_on(interleaved(iters, || f.raw_put(), || f.dynorm_put())))
    });
    put.finish();

    let mut query = c.benchmark_group("query_100");
    query.bench_function("dynorm", |b| {
        b.iter_custom(|iters| {
            rt.block_on(interleaved(iters, || f.dynorm_query(), || f.raw_query()))
        })
    });
    query.bench_function("raw", |b| {
        b.iter_custom(|iters| {
            rt.block_on(interleaved(iters, || f.raw_query(), || f.dynorm_query()))
        })
    });
    query.finish();
}

/// A subscriber that wants every dynorm span at `INFO` and formats it, to a sink.
fn info_subscriber() -> impl tracing::Subscriber + Send + Sync {
    use tracing_subscriber::prelude::*;
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::sink)
                .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE),
        )
        .with(
            tracing_subscriber::filter::Targets::new().with_target("dynorm", tracing::Level::INFO),
        )
}

fn main() {
    let mode = common::RunMode::from_args();

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    let fixture = rt.block_on(Fixture::new());

    let mut c = Criterion::default().configure_from_args();
    groups(&mut c, &rt, &fixture);
    c.final_summary();

    // In `cargo test` mode, a few pairs only check that the paired runs work.
    let pairs = if mode.bench { 4000 } else { 4 };
    // A query reads 100 items: fewer pairs take as long.
    let query_pairs = if mode.bench { 1000 } else { 4 };
    rt.block_on(async {
        let f = &fixture;
        for traced in [false, true] {
            // A subscriber on this thread, which runs every call: spans are built and formatted.
            let _guard = traced.then(|| tracing::subscriber::set_default(info_subscriber()));
            let prefix = if traced { "traced_" } else { "" };
            if mode.wants(&format!("paired_{prefix}get")) {
                for _ in 0..pairs.min(200) {
                    f.dynorm_get().await;
                    f.raw_get().await;
                }
                let name = format!("{prefix}get");
                paired(&mode, &name, pairs, || f.dynorm_get(), || f.raw_get()).await;
            }
            if mode.wants(&format!("paired_{prefix}put")) {
                for _ in 0..pairs.min(200) {
                    f.dynorm_put().await;
                    f.raw_put().await;
                }
                let name = format!("{prefix}put");
                paired(&mode, &name, pairs, || f.dynorm_put(), || f.raw_put()).await;
            }
            if mode.wants(&format!("paired_{prefix}query")) {
                for _ in 0..query_pairs.min(50) {
                    f.dynorm_query().await;
                    f.raw_query().await;
                }
                let name = format!("{prefix}query");
                let (dynorm, raw) = (|| f.dynorm_query(), || f.raw_query());
                paired(&mode, &name, query_pairs, dynorm, raw).await;
            }
        }
    });
}

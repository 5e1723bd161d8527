//! Benchmark 9: dynorm against its Rust peers (toasty with its DynamoDB driver, modyne)
//! and the raw aws-sdk-dynamodb, on the same model and items, in one process against one
//! server. Each round times one call of every contender, in the order of one row of a
//! balanced Latin square (rows taken in turn), so that each contender follows every other
//! equally often; the ratio of a round is the contender's time over the raw SDK's in the
//! same round, and the figure is the median of those ratios. The medians are also reported
//! by which contender ran just before (or "first" in its round), so that an order effect
//! shows.
//!
//! Each library keeps its own table in its own layout (modyne's `PK`/`SK` and
//! `entity_type`, toasty's table from `push_schema`); the items hold the same values.
//! What a user writes for the model and the three operations lies between the
//! `lines: <name>` markers; `count_lines.py` counts it (BENCHMARKS.md, "Benchmark 9").
//!
//! ```sh
//! AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x AWS_REGION=us-east-1 \
//! AWS_ENDPOINT_URL=http://127.0.0.1:8000 cargo run --release
//! ```
//!
//! `PEERS_ROUNDS` (get and put, 2000 by default) and `PEERS_QUERY_ROUNDS` (500) set the
//! rounds.

use std::time::Instant;

type R<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// The partition the query reads, and how many items it holds.
const CUSTOMER: &str = "customer-0001-7f3a9c";
const QUERY_ITEMS: usize = 100;

/// The values every library stores, and checks that it read back.
#[derive(Debug, Clone, PartialEq)]
struct Plain {
    customer: String,
    id: String,
    status: String,
    total: f64,
    lines: i64,
    note: Option<String>,
}

fn plain(i: usize) -> Plain {
    Plain {
        customer: CUSTOMER.into(),
        id: format!("order-2026-11-06-{i:06}"),
        status: "paid".into(),
        total: 1234.5 + i as f64,
        lines: 3 + i as i64 % 7,
        note: Some("leave at the door, ring twice".into()),
    }
}

mod with_dynorm {
    // lines: dynorm
    use dynorm::Model;

    #[derive(Model, Debug, Clone)]
    struct Order {
        #[hash_key]
        customer: String,
        #[range_key]
        id: String,
        status: String,
        total: f64,
        lines: i64,
        note: Option<String>,
    }

    async fn get(db: &dynorm::Client, customer: &str, id: &str) -> super::R<Option<Order>> {
        let key = OrderKey {
            customer: customer.into(),
            id: id.into(),
        };
        Ok(db.get::<Order>(key).send().await?)
    }

    async fn put(db: &dynorm::Client, order: &Order) -> super::R<()> {
        Ok(db.put(order).send().await?)
    }

    async fn query(db: &dynorm::Client, customer: &str) -> super::R<Vec<Order>> {
        Ok(db.query_by::<Order>(customer).all().await?)
    }
    // end lines

    use super::{Plain, R};

    pub struct Side {
        db: dynorm::Client,
        order: Order,
    }

    fn from(p: &Plain) -> Order {
        Order {
            customer: p.customer.clone(),
            id: p.id.clone(),
            status: p.status.clone(),
            total: p.total,
            lines: p.lines,
            note: p.note.clone(),
        }
    }

    fn to(o: Order) -> Plain {
        Plain {
            customer: o.customer,
            id: o.id,
            status: o.status,
            total: o.total,
            lines: o.lines,
            note: o.note,
        }
    }

    impl Side {
        pub async fn new(sdk: aws_sdk_dynamodb::Client, prefix: &str, items: &[Plain]) -> R<Self> {
            let db = dynorm::Client::new(sdk).to_builder().table_prefix(prefix).build();
            db.tables().ensure::<Order>().send().await?;
            for item in items {
                put(&db, &from(item)).await?;
            }
            Ok(Self {
                db,
                order: from(&items[0]),
            })
        }
        pub async fn get(&mut self) -> R<Plain> {
            Ok(to(get(&self.db, &self.order.customer, &self.order.id)
                .await?
                .ok_or("not found")?))
        }
        pub async fn put(&mut self) -> R<()> {
            put(&self.db, &self.order).await
        }
        pub async fn query(&mut self) -> R<Vec<Plain>> {
            Ok(query(&self.db, &self.order.customer)
                .await?
                .into_iter()
                .map(to)
                .collect())
        }
    }
}

mod with_toasty {
    // lines: toasty
    #[derive(Debug, Clone, toasty::Model)]
    #[key(partition = customer, local = id)]
    struct Order {
        customer: String,
        id: String,
        status: String,
        total: f64,
        lines: i64,
        note: Option<String>,
    }

    async fn get(db: &mut toasty::Db, customer: &str, id: &str) -> super::R<Order> {
        Ok(Order::get_by_customer_and_id(db, customer, id).await?)
    }

    async fn put(db: &mut toasty::Db, order: &Order) -> super::R<()> {
        Order::create()
            .customer(&order.customer)
            .id(&order.id)
            .status(&order.status)
            .total(order.total)
            .lines(order.lines)
            .note(order.note.clone())
            .exec(db)
            .await?;
        Ok(())
    }

    async fn query(db: &mut toasty::Db, customer: &str) -> super::R<Vec<Order>> {
        Ok(Order::filter_by_customer(customer).exec(db).await?)
    }
    // end lines

    use super::{Plain, R};

    pub struct Side {
        db: toasty::Db,
        order: Order,
    }

    fn from(p: &Plain) -> Order {
        Order {
            customer: p.customer.clone(),
            id: p.id.clone(),
            status: p.status.clone(),
            total: p.total,
            lines: p.lines,
            note: p.note.clone(),
        }
    }

    fn to(o: Order) -> Plain {
        Plain {
            customer: o.customer,
            id: o.id,
            status: o.status,
            total: o.total,
            lines: o.lines,
            note: o.note,
        }
    }

    impl Side {
        pub async fn new(sdk: aws_sdk_dynamodb::Client, prefix: &str, items: &[Plain]) -> R<Self> {
            let driver = toasty_driver_dynamodb::DynamoDb::new("dynamodb://local".into(), sdk);
            let mut db = toasty::Db::builder()
                .models(toasty::models!(Order))
                .table_name_prefix(prefix)
                .build(driver)
                .await?;
            db.push_schema().await?;
            for item in items {
                put(&mut db, &from(item)).await?;
            }
            Ok(Self {
                db,
                order: from(&items[0]),
            })
        }
        pub async fn get(&mut self) -> R<Plain> {
            let (customer, id) = (self.order.customer.clone(), self.order.id.clone());
            Ok(to(get(&mut self.db, &customer, &id).await?))
        }
        pub async fn put(&mut self) -> R<()> {
            put(&mut self.db, &self.order).await
        }
        pub async fn query(&mut self) -> R<Vec<Plain>> {
            let customer = self.order.customer.clone();
            Ok(query(&mut self.db, &customer)
                .await?
                .into_iter()
                .map(to)
                .collect())
        }
    }
}

mod with_modyne {
    // lines: modyne
    use modyne::{
        expr, keys, Aggregate, Entity, EntityDef, EntityExt, ProjectionExt, QueryInput,
        QueryInputExt,
    };

    struct Orders {
        name: String,
        client: aws_sdk_dynamodb::Client,
    }

    impl modyne::Table for Orders {
        type PrimaryKey = keys::Primary;
        type IndexKeys = ();

        fn table_name(&self) -> &str {
            &self.name
        }

        fn client(&self) -> &aws_sdk_dynamodb::Client {
            &self.client
        }
    }

    #[derive(Debug, Clone, EntityDef, serde::Serialize, serde::Deserialize)]
    struct Order {
        customer: String,
        id: String,
        status: String,
        total: f64,
        lines: i64,
        note: Option<String>,
    }

    impl Entity for Order {
        type KeyInput<'a> = (&'a str, &'a str);
        type Table = Orders;
        type IndexKeys = ();

        fn primary_key((customer, id): Self::KeyInput<'_>) -> keys::Primary {
            keys::Primary {
                hash: format!("CUSTOMER#{customer}"),
                range: format!("ORDER#{id}"),
            }
        }

        fn full_key(&self) -> keys::FullKey<keys::Primary, ()> {
            keys::FullKey {
                primary: Self::primary_key((&self.customer, &self.id)),
                indexes: (),
            }
        }
    }

    struct OrdersOf<'a>(&'a str);

    impl QueryInput for OrdersOf<'_> {
        type Index = keys::Primary;
        type Aggregate = Vec<Order>;

        fn key_condition(&self) -> expr::KeyCondition<keys::Primary> {
            expr::KeyCondition::in_partition(format!("CUSTOMER#{}", self.0))
        }
    }

    async fn get(table: &Orders, customer: &str, id: &str) -> super::R<Option<Order>> {
        let output = Order::get((customer, id)).execute(table).await?;
        Ok(output.item.map(Order::from_item).transpose()?)
    }

    async fn put(table: &Orders, order: &Order) -> super::R<()> {
        order.clone().put().execute(table).await?;
        Ok(())
    }

    async fn query(table: &Orders, customer: &str) -> super::R<Vec<Order>> {
        let mut orders = Vec::new();
        let mut start = None;
        loop {
            let query = OrdersOf(customer).query().set_exclusive_start_key(start);
            let output = query.execute(table).await?;
            orders.reduce(output.items.unwrap_or_default())?;
            start = output.last_evaluated_key;
            if start.is_none() {
                return Ok(orders);
            }
        }
    }
    // end lines

    use super::{Plain, R};
    use aws_sdk_dynamodb::types::{
        AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
    };

    pub struct Side {
        table: Orders,
        order: Order,
    }

    fn from(p: &Plain) -> Order {
        Order {
            customer: p.customer.clone(),
            id: p.id.clone(),
            status: p.status.clone(),
            total: p.total,
            lines: p.lines,
            note: p.note.clone(),
        }
    }

    fn to(o: Order) -> Plain {
        Plain {
            customer: o.customer,
            id: o.id,
            status: o.status,
            total: o.total,
            lines: o.lines,
            note: o.note,
        }
    }

    impl Side {
        pub async fn new(sdk: aws_sdk_dynamodb::Client, prefix: &str, items: &[Plain]) -> R<Self> {
            let name = format!("{prefix}ModyneOrders");
            let key = |name: &str, key_type| -> R<_> {
                Ok((
                    AttributeDefinition::builder()
                        .attribute_name(name)
                        .attribute_type(ScalarAttributeType::S)
                        .build()?,
                    KeySchemaElement::builder()
                        .attribute_name(name)
                        .key_type(key_type)
                        .build()?,
                ))
            };
            let (pk, pk_schema) = key("PK", KeyType::Hash)?;
            let (sk, sk_schema) = key("SK", KeyType::Range)?;
            sdk.create_table()
                .table_name(&name)
                .attribute_definitions(pk)
                .attribute_definitions(sk)
                .key_schema(pk_schema)
                .key_schema(sk_schema)
                .billing_mode(BillingMode::PayPerRequest)
                .send()
                .await?;
            let table = Orders { name, client: sdk };
            for item in items {
                put(&table, &from(item)).await?;
            }
            Ok(Self {
                table,
                order: from(&items[0]),
            })
        }
        pub async fn get(&mut self) -> R<Plain> {
            Ok(to(get(&self.table, &self.order.customer, &self.order.id)
                .await?
                .ok_or("not found")?))
        }
        pub async fn put(&mut self) -> R<()> {
            put(&self.table, &self.order).await
        }
        pub async fn query(&mut self) -> R<Vec<Plain>> {
            Ok(query(&self.table, &self.order.customer)
                .await?
                .into_iter()
                .map(to)
                .collect())
        }
    }
}

mod with_raw {
    // lines: raw
    use std::collections::HashMap;

    use aws_sdk_dynamodb::types::AttributeValue;

    #[derive(Debug, Clone)]
    struct Order {
        customer: String,
        id: String,
        status: String,
        total: f64,
        lines: i64,
        note: Option<String>,
    }

    type Item = HashMap<String, AttributeValue>;

    fn to_item(order: &Order) -> Item {
        let mut item = HashMap::with_capacity(6);
        item.insert(
            "customer".to_owned(),
            AttributeValue::S(order.customer.clone()),
        );
        item.insert("id".to_owned(), AttributeValue::S(order.id.clone()));
        item.insert("status".to_owned(), AttributeValue::S(order.status.clone()));
        item.insert(
            "total".to_owned(),
            AttributeValue::N(order.total.to_string()),
        );
        item.insert(
            "lines".to_owned(),
            AttributeValue::N(order.lines.to_string()),
        );
        if let Some(note) = &order.note {
            item.insert("note".to_owned(), AttributeValue::S(note.clone()));
        }
        item
    }

    fn string(item: &mut Item, name: &str) -> super::R<String> {
        match item.remove(name) {
            Some(AttributeValue::S(s)) => Ok(s),
            other => Err(format!("{name}: expected a string, found {other:?}").into()),
        }
    }

    fn number<T: std::str::FromStr>(item: &mut Item, name: &str) -> super::R<T> {
        match item.remove(name) {
            Some(AttributeValue::N(n)) => n
                .parse()
                .map_err(|_| format!("{name}: not a number: {n}").into()),
            other => Err(format!("{name}: expected a number, found {other:?}").into()),
        }
    }

    fn from_item(mut item: Item) -> super::R<Order> {
        Ok(Order {
            customer: string(&mut item, "customer")?,
            id: string(&mut item, "id")?,
            status: string(&mut item, "status")?,
            total: number(&mut item, "total")?,
            lines: number(&mut item, "lines")?,
            note: match item.remove("note") {
                None | Some(AttributeValue::Null(_)) => None,
                Some(AttributeValue::S(s)) => Some(s),
                Some(other) => {
                    return Err(format!("note: expected a string, found {other:?}").into())
                }
            },
        })
    }

    async fn get(
        db: &aws_sdk_dynamodb::Client,
        table: &str,
        customer: &str,
        id: &str,
    ) -> super::R<Option<Order>> {
        let output = db
            .get_item()
            .table_name(table)
            .key("customer", AttributeValue::S(customer.to_owned()))
            .key("id", AttributeValue::S(id.to_owned()))
            .send()
            .await?;
        output.item.map(from_item).transpose()
    }

    async fn put(db: &aws_sdk_dynamodb::Client, table: &str, order: &Order) -> super::R<()> {
        db.put_item()
            .table_name(table)
            .set_item(Some(to_item(order)))
            .send()
            .await?;
        Ok(())
    }

    async fn query(
        db: &aws_sdk_dynamodb::Client,
        table: &str,
        customer: &str,
    ) -> super::R<Vec<Order>> {
        let mut orders = Vec::new();
        let mut start = None;
        loop {
            let output = db
                .query()
                .table_name(table)
                .key_condition_expression("#customer = :customer")
                .expression_attribute_names("#customer", "customer")
                .expression_attribute_values(":customer", AttributeValue::S(customer.to_owned()))
                .set_exclusive_start_key(start)
                .send()
                .await?;
            for item in output.items.unwrap_or_default() {
                orders.push(from_item(item)?);
            }
            start = output.last_evaluated_key;
            if start.is_none() {
                return Ok(orders);
            }
        }
    }
    // end lines

    use super::{Plain, R};
    use aws_sdk_dynamodb::types::{
        AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
    };

    pub struct Side {
        db: aws_sdk_dynamodb::Client,
        table: String,
        order: Order,
    }

    fn from(p: &Plain) -> Order {
        Order {
            customer: p.customer.clone(),
            id: p.id.clone(),
            status: p.status.clone(),
            total: p.total,
            lines: p.lines,
            note: p.note.clone(),
        }
    }

    fn to(o: Order) -> Plain {
        Plain {
            customer: o.customer,
            id: o.id,
            status: o.status,
            total: o.total,
            lines: o.lines,
            note: o.note,
        }
    }

    impl Side {
        pub async fn new(db: aws_sdk_dynamodb::Client, prefix: &str, items: &[Plain]) -> R<Self> {
            let table = format!("{prefix}RawOrders");
            let key = |name: &str, key_type| -> R<_> {
                Ok((
                    AttributeDefinition::builder()
                        .attribute_name(name)
                        .attribute_type(ScalarAttributeType::S)
                        .build()?,
                    KeySchemaElement::builder()
                        .attribute_name(name)
                        .key_type(key_type)
                        .build()?,
                ))
            };
            let (pk, pk_schema) = key("customer", KeyType::Hash)?;
            let (sk, sk_schema) = key("id", KeyType::Range)?;
            db.create_table()
                .table_name(&table)
                .attribute_definitions(pk)
                .attribute_definitions(sk)
                .key_schema(pk_schema)
                .key_schema(sk_schema)
                .billing_mode(BillingMode::PayPerRequest)
                .send()
                .await?;
            for item in items {
                put(&db, &table, &from(item)).await?;
            }
            let order = from(&items[0]);
            Ok(Self { db, table, order })
        }
        pub async fn get(&mut self) -> R<Plain> {
            Ok(to(get(
                &self.db,
                &self.table,
                &self.order.customer,
                &self.order.id,
            )
            .await?
            .ok_or("not found")?))
        }
        pub async fn put(&mut self) -> R<()> {
            put(&self.db, &self.table, &self.order).await
        }
        pub async fn query(&mut self) -> R<Vec<Plain>> {
            Ok(query(&self.db, &self.table, &self.order.customer)
                .await?
                .into_iter()
                .map(to)
                .collect())
        }
    }
}

const NAMES: [&str; 4] = ["dynorm", "toasty", "modyne", "raw"];
const RAW: usize = 3;

/// A balanced Latin square of the four contenders (Williams' design): each row is a
/// round's order, each contender is in each position once, and each ordered pair of
/// contenders is adjacent exactly once across the rows (0 follows 3 in row 3 only, ...).
const ORDERS: [[usize; 4]; 4] = [[0, 1, 3, 2], [1, 2, 0, 3], [2, 3, 1, 0], [3, 0, 2, 1]];

struct Sides {
    dynorm: with_dynorm::Side,
    toasty: with_toasty::Side,
    modyne: with_modyne::Side,
    raw: with_raw::Side,
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Get,
    Put,
    Query,
}

impl Sides {
    /// One call of `op` by contender `who` (an index into `NAMES`).
    async fn call(&mut self, who: usize, op: Op) -> R<()> {
        match (who, op) {
            (0, Op::Get) => drop(std::hint::black_box(self.dynorm.get().await?)),
            (1, Op::Get) => drop(std::hint::black_box(self.toasty.get().await?)),
            (2, Op::Get) => drop(std::hint::black_box(self.modyne.get().await?)),
            (_, Op::Get) => drop(std::hint::black_box(self.raw.get().await?)),
            (0, Op::Put) => self.dynorm.put().await?,
            (1, Op::Put) => self.toasty.put().await?,
            (2, Op::Put) => self.modyne.put().await?,
            (_, Op::Put) => self.raw.put().await?,
            (0, Op::Query) => drop(std::hint::black_box(self.dynorm.query().await?)),
            (1, Op::Query) => drop(std::hint::black_box(self.toasty.query().await?)),
            (2, Op::Query) => drop(std::hint::black_box(self.modyne.query().await?)),
            (_, Op::Query) => drop(std::hint::black_box(self.raw.query().await?)),
        }
        Ok(())
    }

    /// `rounds` rounds of one call each, in the orders of [`ORDERS`] taken in turn.
    async fn run(&mut self, op: Op, rounds: usize) -> R<()> {
        for i in 0..rounds.min(50) {
            for who in ORDERS[i % 4] {
                self.call(who, op).await?;
            }
        }
        let mut times: [Vec<f64>; 4] = Default::default();
        // The contender that ran just before each call (4: first in its round).
        let mut before: [Vec<usize>; 4] = Default::default();
        for i in 0..rounds {
            let mut previous = 4;
            for who in ORDERS[i % 4] {
                let start = Instant::now();
                self.call(who, op).await?;
                times[who].push(start.elapsed().as_nanos() as f64);
                before[who].push(previous);
                previous = who;
            }
        }
        println!("{op:?}, {rounds} rounds:");
        for who in 0..4 {
            let ratios: Vec<f64> = times[who]
                .iter()
                .zip(&times[RAW])
                .map(|(t, r)| t / r)
                .collect();
            let (q1, median, q3) = quartiles(&mut ratios.clone());
            let (_, time, _) = quartiles(&mut times[who].clone());
            println!(
                "  {:7} median {:8.1} us   ratio to raw: median {median:.3} (quartiles {q1:.3} - {q3:.3})",
                NAMES[who],
                time / 1e3,
            );
            let by_predecessor: Vec<String> = (0..5)
                .filter_map(|p| {
                    let mut of: Vec<f64> = ratios
                        .iter()
                        .zip(&before[who])
                        .filter(|(_, b)| **b == p)
                        .map(|(r, _)| *r)
                        .collect();
                    (!of.is_empty()).then(|| {
                        let name = if p == 4 { "first" } else { NAMES[p] };
                        format!("after {name} {:.3} ({})", quartiles(&mut of).1, of.len())
                    })
                })
                .collect();
            println!("           by predecessor: {}", by_predecessor.join(", "));
        }
        Ok(())
    }
}

fn quartiles(values: &mut [f64]) -> (f64, f64, f64) {
    values.sort_by(f64::total_cmp);
    let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
    (at(0.25), at(0.5), at(0.75))
}

#[tokio::main]
async fn main() -> R<()> {
    let rounds = env("PEERS_ROUNDS", 2000);
    let query_rounds = env("PEERS_QUERY_ROUNDS", 500);
    let config = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
    let sdk = aws_sdk_dynamodb::Client::new(&config);
    let prefix = format!("peers{}_", std::process::id());
    let items: Vec<Plain> = (0..QUERY_ITEMS).map(plain).collect();
    let started = Instant::now();
    let mut sides = Sides {
        dynorm: with_dynorm::Side::new(sdk.clone(), &prefix, &items).await?,
        toasty: with_toasty::Side::new(sdk.clone(), &prefix, &items).await?,
        modyne: with_modyne::Side::new(sdk.clone(), &prefix, &items).await?,
        raw: with_raw::Side::new(sdk.clone(), &prefix, &items).await?,
    };
    println!(
        "tables created and {QUERY_ITEMS} items written by each library in {:?}",
        started.elapsed()
    );
    // Every library reads back the same values.
    assert_eq!(sides.dynorm.get().await?, items[0]);
    assert_eq!(sides.toasty.get().await?, items[0]);
    assert_eq!(sides.modyne.get().await?, items[0]);
    assert_eq!(sides.raw.get().await?, items[0]);
    assert_eq!(sides.dynorm.query().await?, items);
    let mut toasty = sides.toasty.query().await?;
    toasty.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(toasty, items);
    assert_eq!(sides.modyne.query().await?, items);
    assert_eq!(sides.raw.query().await?, items);
    let started = Instant::now();
    sides.run(Op::Get, rounds).await?;
    sides.run(Op::Put, rounds).await?;
    sides.run(Op::Query, query_rounds).await?;
    println!("measured in {:?}", started.elapsed());
    Ok(())
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

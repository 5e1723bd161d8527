//! The models the benchmarks share, each with three conversions to and from a DynamoDB
//! item: dynorm's derive, serde_dynamo on the same struct, and hand-written
//! `AttributeValue` code, the floor a careful user would write without a library.
//!
//! Every conversion of a model produces the same item, which `check_*` asserts before
//! anything is timed, so the three do the same work.

#![allow(dead_code)]

pub mod counting;
pub mod operations;
pub mod paired;

use std::collections::HashMap;

use chrono::{DateTime, SecondsFormat, TimeZone, Utc};
use dynorm::types::AttributeValue;
use dynorm::{Item, Model};
use serde::{Deserialize, Serialize};

/// The error of the hand-written conversions: the attribute that was missing or wrong.
#[derive(Debug)]
pub struct HandError(pub &'static str);

/// Order status, stored as lowercase text (`"open"`, `"paid"`). dynorm stores it through
/// its serde fallback, as it has no native impl.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Open,
    Paid,
}

/// Benchmark 1(a): an order with a composite key, an enum, a date, a float, two options
/// (one `Some`, one `None`) and a list of three strings.
#[derive(Model, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[dynorm(rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct Order {
    #[hash_key]
    pub customer_id: String,
    #[range_key]
    pub order_id: String,
    pub status: Status,
    pub placed_at: DateTime<Utc>,
    pub total: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coupon_code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub lines: Vec<String>,
}

/// The order every benchmark converts. `placed_at` has whole milliseconds, so chrono's
/// serde form (used by serde_dynamo) and dynorm's fixed-width form are the same text.
pub fn order() -> Order {
    Order {
        customer_id: "customer-0001-7f3a9c".into(),
        order_id: "order-2026-11-06-000042".into(),
        status: Status::Paid,
        placed_at: Utc.with_ymd_and_hms(2026, 11, 6, 9, 30, 0).unwrap()
            + chrono::Duration::milliseconds(123),
        total: 1234.5,
        coupon_code: Some("WELCOME10".into()),
        note: None,
        lines: vec![
            "sku-1001 x2 widget".into(),
            "sku-2002 x1 gadget".into(),
            "sku-3003 x5 sprocket".into(),
        ],
    }
}

/// Hand-written `Order` to item.
#[inline(never)]
pub fn order_to_item(order: &Order) -> Result<Item, HandError> {
    if !order.total.is_finite() {
        return Err(HandError("total"));
    }
    let mut item = HashMap::with_capacity(8);
    item.insert(
        "customerId".to_owned(),
        AttributeValue::S(order.customer_id.clone()),
    );
    item.insert(
        "orderId".to_owned(),
        AttributeValue::S(order.order_id.clone()),
    );
    let status = match order.status {
        Status::Open => "open",
        Status::Paid => "paid",
    };
    item.insert("status".to_owned(), AttributeValue::S(status.to_owned()));
    item.insert(
        "placedAt".to_owned(),
        AttributeValue::S(order.placed_at.to_rfc3339_opts(SecondsFormat::Millis, true)),
    );
    item.insert(
        "total".to_owned(),
        AttributeValue::N(order.total.to_string()),
    );
    if let Some(coupon_code) = &order.coupon_code {
        item.insert(
            "couponCode".to_owned(),
            AttributeValue::S(coupon_code.clone()),
        );
    }
    if let Some(note) = &order.note {
        item.insert("note".to_owned(), AttributeValue::S(note.clone()));
    }
    item.insert(
        "lines".to_owned(),
        AttributeValue::L(
            order
                .lines
                .iter()
                .map(|line| AttributeValue::S(line.clone()))
                .collect(),
        ),
    );
    Ok(item)
}

/// Moves a required S value out of the item.
#[inline]
fn take_s(item: &mut Item, name: &'static str) -> Result<String, HandError> {
    match item.remove(name) {
        Some(AttributeValue::S(s)) => Ok(s),
        _ => Err(HandError(name)),
    }
}

/// Moves an optional S value out of the item.
#[inline]
fn take_opt_s(item: &mut Item, name: &'static str) -> Result<Option<String>, HandError> {
    match item.remove(name) {
        Some(AttributeValue::S(s)) => Ok(Some(s)),
        None | Some(AttributeValue::Null(_)) => Ok(None),
        Some(_) => Err(HandError(name)),
    }
}

/// Parses a required N value.
#[inline]
fn take_n<T: std::str::FromStr>(item: &mut Item, name: &'static str) -> Result<T, HandError> {
    match item.remove(name) {
        Some(AttributeValue::N(n)) => n.parse().map_err(|_| HandError(name)),
        _ => Err(HandError(name)),
    }
}

/// Parses an optional N value.
#[inline]
fn take_opt_n<T: std::str::FromStr>(
    item: &mut Item,
    name: &'static str,
) -> Result<Option<T>, HandError> {
    match item.remove(name) {
        Some(AttributeValue::N(n)) => n.parse().map(Some).map_err(|_| HandError(name)),
        None | Some(AttributeValue::Null(_)) => Ok(None),
        Some(_) => Err(HandError(name)),
    }
}

/// Reads a required BOOL value.
#[inline]
fn take_bool(item: &mut Item, name: &'static str) -> Result<bool, HandError> {
    match item.remove(name) {
        Some(AttributeValue::Bool(b)) => Ok(b),
        _ => Err(HandError(name)),
    }
}

/// Reads an optional BOOL value.
#[inline]
fn take_opt_bool(item: &mut Item, name: &'static str) -> Result<Option<bool>, HandError> {
    match item.remove(name) {
        Some(AttributeValue::Bool(b)) => Ok(Some(b)),
        None | Some(AttributeValue::Null(_)) => Ok(None),
        Some(_) => Err(HandError(name)),
    }
}

/// Hand-written item to `Order`, moving the strings out of the item.
#[inline(never)]
pub fn order_from_item(mut item: Item) -> Result<Order, HandError> {
    let status = match take_s(&mut item, "status")?.as_str() {
        "open" => Status::Open,
        "paid" => Status::Paid,
        _ => return Err(HandError("status")),
    };
    let placed_at = DateTime::parse_from_rfc3339(&take_s(&mut item, "placedAt")?)
        .map_err(|_| HandError("placedAt"))?
        .with_timezone(&Utc);
    let lines = match item.remove("lines") {
        Some(AttributeValue::L(list)) => list
            .into_iter()
            .map(|value| match value {
                AttributeValue::S(s) => Ok(s),
                _ => Err(HandError("lines")),
            })
            .collect::<Result<Vec<_>, _>>()?,
        _ => return Err(HandError("lines")),
    };
    Ok(Order {
        customer_id: take_s(&mut item, "customerId")?,
        order_id: take_s(&mut item, "orderId")?,
        status,
        placed_at,
        total: take_n(&mut item, "total")?,
        coupon_code: take_opt_s(&mut item, "couponCode")?,
        note: take_opt_s(&mut item, "note")?,
        lines,
    })
}

/// Benchmark 1(b): a wide model of 30 attributes: 7 strings (with the key), 8 integers,
/// 5 floats, 4 booleans and 6 options (4 `Some`, 2 `None`).
#[derive(Model, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Wide {
    #[hash_key]
    pub id: String,
    pub name: String,
    pub email: String,
    pub city: String,
    pub country: String,
    pub tag: String,
    pub description: String,
    pub age: u32,
    pub visits: u64,
    pub score: i64,
    pub rank: i32,
    pub level: u16,
    pub balance_cents: i64,
    pub count: usize,
    pub delta: i64,
    pub rating: f64,
    pub latitude: f64,
    pub longitude: f64,
    pub ratio: f32,
    pub weight: f64,
    pub active: bool,
    pub verified: bool,
    pub admin: bool,
    pub subscribed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nickname: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub referrer: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_score: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discount: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archived: Option<bool>,
}

/// The wide record every benchmark converts.
pub fn wide() -> Wide {
    Wide {
        id: "user-000000042".into(),
        name: "Ada Lovelace".into(),
        email: "ada@example.com".into(),
        city: "London".into(),
        country: "GB".into(),
        tag: "analytical-engine".into(),
        description: "First to publish an algorithm for a machine".into(),
        age: 36,
        visits: 1_234_567_890,
        score: -42_000,
        rank: 7,
        level: 12,
        balance_cents: 9_876_543_210,
        count: 1815,
        delta: -3,
        rating: 4.75,
        latitude: 51.5072,
        longitude: -0.1276,
        ratio: 0.25,
        weight: 61.5,
        active: true,
        verified: true,
        admin: false,
        subscribed: true,
        nickname: Some("Enchantress of Numbers".into()),
        referrer: None,
        phone: Some("+44 20 7946 0000".into()),
        last_score: Some(98_765),
        discount: None,
        archived: Some(false),
    }
}

/// A finite float as an N value, or the attribute's name as the error.
#[inline]
fn float_n(value: f64, name: &'static str) -> Result<AttributeValue, HandError> {
    if value.is_finite() {
        Ok(AttributeValue::N(value.to_string()))
    } else {
        Err(HandError(name))
    }
}

/// Hand-written `Wide` to item.
#[inline(never)]
pub fn wide_to_item(w: &Wide) -> Result<Item, HandError> {
    use AttributeValue::{Bool, N, S};
    let mut item = HashMap::with_capacity(30);
    item.insert("id".to_owned(), S(w.id.clone()));
    item.insert("name".to_owned(), S(w.name.clone()));
    item.insert("email".to_owned(), S(w.email.clone()));
    item.insert("city".to_owned(), S(w.city.clone()));
    item.insert("country".to_owned(), S(w.country.clone()));
    item.insert("tag".to_owned(), S(w.tag.clone()));
    item.insert("description".to_owned(), S(w.description.clone()));
    item.insert("age".to_owned(), N(w.age.to_string()));
    item.insert("visits".to_owned(), N(w.visits.to_string()));
    item.insert("score".to_owned(), N(w.score.to_string()));
    item.insert("rank".to_owned(), N(w.rank.to_string()));
    item.insert("level".to_owned(), N(w.level.to_string()));
    item.insert("balance_cents".to_owned(), N(w.balance_cents.to_string()));
    item.insert("count".to_owned(), N(w.count.to_string()));
    item.insert("delta".to_owned(), N(w.delta.to_string()));
    item.insert("rating".to_owned(), float_n(w.rating, "rating")?);
    item.insert("latitude".to_owned(), float_n(w.latitude, "latitude")?);
    item.insert("longitude".to_owned(), float_n(w.longitude, "longitude")?);
    if !w.ratio.is_finite() {
        return Err(HandError("ratio"));
    }
    item.insert("ratio".to_owned(), N(w.ratio.to_string()));
    item.insert("weight".to_owned(), float_n(w.weight, "weight")?);
    item.insert("active".to_owned(), Bool(w.active));
    item.insert("verified".to_owned(), Bool(w.verified));
    item.insert("admin".to_owned(), Bool(w.admin));
    item.insert("subscribed".to_owned(), Bool(w.subscribed));
    if let Some(nickname) = &w.nickname {
        item.insert("nickname".to_owned(), S(nickname.clone()));
    }
    if let Some(referrer) = &w.referrer {
        item.insert("referrer".to_owned(), S(referrer.clone()));
    }
    if let Some(phone) = &w.phone {
        item.insert("phone".to_owned(), S(phone.clone()));
    }
    if let Some(last_score) = w.last_score {
        item.insert("last_score".to_owned(), N(last_score.to_string()));
    }
    if let Some(discount) = w.discount {
        item.insert("discount".to_owned(), float_n(discount, "discount")?);
    }
    if let Some(archived) = w.archived {
        item.insert("archived".to_owned(), Bool(archived));
    }
    Ok(item)
}

/// Hand-written item to `Wide`, moving the strings out of the item.
#[inline(never)]
pub fn wide_from_item(mut item: Item) -> Result<Wide, HandError> {
    let i = &mut item;
    Ok(Wide {
        id: take_s(i, "id")?,
        name: take_s(i, "name")?,
        email: take_s(i, "email")?,
        city: take_s(i, "city")?,
        country: take_s(i, "country")?,
        tag: take_s(i, "tag")?,
        description: take_s(i, "description")?,
        age: take_n(i, "age")?,
        visits: take_n(i, "visits")?,
        score: take_n(i, "score")?,
        rank: take_n(i, "rank")?,
        level: take_n(i, "level")?,
        balance_cents: take_n(i, "balance_cents")?,
        count: take_n(i, "count")?,
        delta: take_n(i, "delta")?,
        rating: take_n(i, "rating")?,
        latitude: take_n(i, "latitude")?,
        longitude: take_n(i, "longitude")?,
        ratio: take_n(i, "ratio")?,
        weight: take_n(i, "weight")?,
        active: take_bool(i, "active")?,
        verified: take_bool(i, "verified")?,
        admin: take_bool(i, "admin")?,
        subscribed: take_bool(i, "subscribed")?,
        nickname: take_opt_s(i, "nickname")?,
        referrer: take_opt_s(i, "referrer")?,
        phone: take_opt_s(i, "phone")?,
        last_score: take_opt_n(i, "last_score")?,
        discount: take_opt_n(i, "discount")?,
        archived: take_opt_bool(i, "archived")?,
    })
}

/// Asserts that the three encoders of `value` produce one item and that the three
/// decoders read that item back to `value`, so that the timed work is the same.
pub fn check_equal_work<M>(
    value: &M,
    hand_to: fn(&M) -> Result<Item, HandError>,
    hand_from: fn(Item) -> Result<M, HandError>,
) where
    M: Model + Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    let dynorm_item = value.to_item().expect("dynorm encodes");
    let serde_item: Item = serde_dynamo::to_item(value).expect("serde_dynamo encodes");
    let hand_item = hand_to(value).expect("the hand-written code encodes");
    assert_eq!(
        dynorm_item, serde_item,
        "dynorm and serde_dynamo items differ"
    );
    assert_eq!(
        dynorm_item, hand_item,
        "dynorm and hand-written items differ"
    );
    assert_eq!(
        &M::from_item(dynorm_item.clone()).expect("dynorm decodes"),
        value
    );
    let from_serde: M = serde_dynamo::from_item(dynorm_item.clone()).expect("serde_dynamo decodes");
    assert_eq!(&from_serde, value);
    assert_eq!(
        &hand_from(dynorm_item).expect("the hand-written code decodes"),
        value
    );
}

/// The raw SDK's `PutRequest`s of `orders`, with the hand-written conversion.
pub fn raw_put_requests(orders: &[Order]) -> Vec<aws_sdk_dynamodb::types::WriteRequest> {
    use aws_sdk_dynamodb::types::{PutRequest, WriteRequest};
    orders
        .iter()
        .map(|order| {
            let item = order_to_item(order).expect("the order encodes");
            let put = PutRequest::builder()
                .set_item(Some(item))
                .build()
                .expect("a put request");
            WriteRequest::builder().put_request(put).build()
        })
        .collect()
}

/// How a bench binary was started.
pub struct RunMode {
    /// `cargo bench` (`--bench`), not `cargo test` or `--list`.
    pub bench: bool,
    /// `--list`: print the benchmarks, run nothing.
    pub list: bool,
    /// Criterion's positional filter, if any.
    pub filter: Option<String>,
}

impl RunMode {
    /// Reads the arguments cargo and the user gave the bench binary.
    pub fn from_args() -> Self {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let has = |flag: &str| args.iter().any(|a| a == flag);
        Self {
            bench: has("--bench") && !has("--test") && !has("--list"),
            list: has("--list"),
            filter: criterion_filter(&args),
        }
    }

    /// Whether the extra run `name` passes the filter (a substring match; criterion's
    /// own filter is a regex).
    pub fn wants(&self, name: &str) -> bool {
        !self.list && self.filter.as_deref().is_none_or(|f| name.contains(f))
    }
}

/// The positional filter among criterion's arguments, skipping the values of the
/// options that take one.
fn criterion_filter(args: &[String]) -> Option<String> {
    const WITH_VALUE: &[&str] = &[
        "--color",
        "--save-baseline",
        "--baseline",
        "--baseline-lenient",
        "--load-baseline",
        "--sample-size",
        "--warm-up-time",
        "--measurement-time",
        "--nresamples",
        "--noise-threshold",
        "--confidence-level",
        "--significance-level",
        "--profile-time",
        "--plotting-backend",
        "--output-format",
        "--format",
        "-c",
        "-s",
        "-b",
    ];
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if WITH_VALUE.contains(&arg.as_str()) {
            args.next();
        } else if !arg.starts_with('-') {
            return Some(arg.clone());
        }
    }
    None
}

/// The median of a sample, which it sorts.
pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len().is_multiple_of(2) {
        (values[mid - 1] + values[mid]) / 2.0
    } else {
        values[mid]
    }
}

/// Writes `json` to `<target>/criterion/<kind>/<name>.json`, next to criterion's own
/// results, for `scripts/bench_chart.py`. Only `cargo bench` runs write, so that a
/// `cargo test --benches` smoke run leaves the last measurement in place.
pub fn write_result(kind: &str, name: &str, json: &str) {
    let dir = std::path::Path::new(
        &std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "target".into()),
    )
    .join("criterion")
    .join(kind);
    if let Err(e) = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(dir.join(format!("{name}.json")), json))
    {
        eprintln!("could not write {kind}/{name}.json: {e}");
    }
}

/// CPU time of the calling thread, in ns, from `/proc/thread-self/schedstat` (Linux);
/// 0 where it cannot be read.
pub fn thread_cpu_ns() -> u64 {
    schedstat_ns("/proc/thread-self/schedstat")
}

/// CPU time of every thread of this process, in ns, from `/proc/self/task/*/schedstat`
/// (Linux): threads that have ended are not counted. 0 where it cannot be read.
pub fn process_cpu_ns() -> u64 {
    std::fs::read_dir("/proc/self/task")
        .map(|tasks| {
            tasks
                .flatten()
                .map(|task| schedstat_ns(task.path().join("schedstat")))
                .sum()
        })
        .unwrap_or(0)
}

/// The first field of a `schedstat` file: time spent on the CPU, in ns.
fn schedstat_ns(path: impl AsRef<std::path::Path>) -> u64 {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|n| n.parse().ok()))
        .unwrap_or(0)
}

//! Prints the stored form of models that use every kind of value, one attribute a line, in
//! a canonical text (map keys and set elements sorted). CI runs it with each cargo feature
//! set and checks that an attribute is stored the same whatever features are on: features
//! only add.
//!
//! `cargo run -p dynorm --example stored_forms --no-default-features`

use std::collections::{BTreeMap, BTreeSet, HashSet};

use dynorm::types::AttributeValue;
use dynorm::Model;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Address {
    street: String,
    unit: Option<String>,
    floor: Option<u8>,
}

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Tier {
    Free,
    Paid,
}

/// Every value that needs no feature.
#[derive(Model, Debug)]
#[dynorm(rename_all = "camelCase")]
struct Plain {
    #[hash_key]
    id: String,
    count: u64,
    ratio: f64,
    small: i8,
    flag: bool,
    bytes: Vec<u8>,
    names: Vec<String>,
    tags: HashSet<String>,
    scores: BTreeSet<i64>,
    labels: BTreeMap<String, u32>,
    note: Option<String>,
    absent: Option<String>,
    address: Address,
    addresses: Vec<Address>,
    tier: Tier,
}

#[cfg(feature = "chrono")]
#[derive(Model, Debug)]
struct Dated {
    #[hash_key]
    id: String,
    at: chrono::DateTime<chrono::Utc>,
    #[dynorm(date = "seconds")]
    at_seconds: chrono::DateTime<chrono::Utc>,
    day: chrono::NaiveDate,
}

#[cfg(feature = "uuid")]
#[derive(Model, Debug)]
struct Identified {
    #[hash_key]
    id: uuid::Uuid,
    others: Vec<uuid::Uuid>,
}

#[cfg(feature = "decimal")]
#[derive(Model, Debug)]
struct Priced {
    #[hash_key]
    id: String,
    price: rust_decimal::Decimal,
}

/// A canonical text of a value: map keys and set elements sorted.
fn canonical(value: &AttributeValue) -> String {
    let sorted = |mut items: Vec<String>| {
        items.sort();
        items.join(",")
    };
    match value {
        AttributeValue::S(s) => format!("S:{s:?}"),
        AttributeValue::N(n) => format!("N:{n}"),
        AttributeValue::B(b) => format!("B:{:?}", b.as_ref()),
        AttributeValue::Bool(b) => format!("BOOL:{b}"),
        AttributeValue::Null(_) => "NULL".to_owned(),
        AttributeValue::Ss(v) => format!("SS:[{}]", sorted(v.clone())),
        AttributeValue::Ns(v) => format!("NS:[{}]", sorted(v.clone())),
        AttributeValue::Bs(v) => format!(
            "BS:[{}]",
            sorted(v.iter().map(|b| format!("{:?}", b.as_ref())).collect())
        ),
        AttributeValue::L(v) => format!(
            "L:[{}]",
            v.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        AttributeValue::M(m) => format!(
            "M:{{{}}}",
            sorted(
                m.iter()
                    .map(|(k, v)| format!("{k}={}", canonical(v)))
                    .collect()
            )
        ),
        other => format!("{other:?}"),
    }
}

fn print<M: Model>(model: &M) -> Result<(), dynorm::Error> {
    let item = model.to_item()?;
    let mut names: Vec<&String> = item.keys().collect();
    names.sort();
    for name in names {
        println!("{}.{name} = {}", M::TABLE_NAME, canonical(&item[name]));
    }
    Ok(())
}

fn main() -> Result<(), dynorm::Error> {
    let address = Address {
        street: "Main".into(),
        unit: None,
        floor: Some(3),
    };
    print(&Plain {
        id: "p1".into(),
        count: 12,
        ratio: 0.5,
        small: -3,
        flag: true,
        bytes: vec![0, 1, 255],
        names: vec!["b".into(), "a".into()],
        tags: HashSet::from(["x".to_owned(), "y".to_owned()]),
        scores: BTreeSet::from([3, 1, 2]),
        labels: BTreeMap::from([("k".to_owned(), 1)]),
        note: Some("n".into()),
        absent: None,
        address: address.clone(),
        addresses: vec![address],
        tier: Tier::Paid,
    })?;
    let _ = Tier::Free;
    #[cfg(feature = "chrono")]
    {
        use chrono::TimeZone;
        let at = chrono::Utc
            .with_ymd_and_hms(2026, 11, 6, 9, 30, 0)
            .single()
            .unwrap_or_default();
        print(&Dated {
            id: "d1".into(),
            at,
            at_seconds: at,
            day: at.date_naive(),
        })?;
    }
    #[cfg(feature = "uuid")]
    print(&Identified {
        id: uuid::Uuid::from_u128(0x0190_c3a4_7b2e_7c3d_9e1f_0123_4567_89ab),
        others: vec![uuid::Uuid::nil()],
    })?;
    #[cfg(feature = "decimal")]
    print(&Priced {
        id: "x".into(),
        price: rust_decimal::Decimal::new(12_345, 2),
    })?;
    Ok(())
}

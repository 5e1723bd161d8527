//! Every supported field type, with edge values, written to a real server and read back;
//! and what each one looks like in the stored item.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use chrono::{DateTime, TimeZone, Utc};
use dynorm::types::{AttributeValue, Blob};
use dynorm::{ErrorKind, Model};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Status {
    Open,
    Paid,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Address {
    street: String,
    city: String,
    zip: Option<String>,
}

#[derive(Model, Debug, Clone, PartialEq)]
struct Everything {
    #[hash_key]
    id: String,
    text: String,
    empty: String,
    unicode: String,
    small: i8,
    short: i16,
    int: i32,
    long_min: i64,
    wide: i128,
    byte: u8,
    ushort: u16,
    uint: u32,
    ulong_max: u64,
    size: usize,
    single: f32,
    double: f64,
    negative: f64,
    fraction: f64,
    flag: bool,
    bytes: Vec<u8>,
    blob: Blob,
    list: Vec<String>,
    nested_list: Vec<Vec<i32>>,
    map: HashMap<String, i64>,
    nested_map: BTreeMap<String, HashMap<String, String>>,
    string_set: HashSet<String>,
    number_set: BTreeSet<i64>,
    binary_set: HashSet<Vec<u8>>,
    empty_set: HashSet<String>,
    none: Option<String>,
    some: Option<String>,
    optional_list: Option<Vec<Option<u32>>>,
    created: DateTime<Utc>,
    #[dynorm(date = "milliseconds")]
    millis: DateTime<Utc>,
    #[dynorm(date = "seconds")]
    seconds: Option<DateTime<Utc>>,
    status: Status,
    statuses: Vec<Status>,
    address: Address,
    maybe_status: Option<Status>,
}

fn everything() -> Everything {
    let created =
        Utc.with_ymd_and_hms(2026, 11, 6, 9, 30, 0).unwrap() + chrono::Duration::milliseconds(7);
    Everything {
        id: "all".into(),
        text: "plain text".into(),
        empty: String::new(),
        unicode: "héllo wörld ✓ 日本語 🚀".into(),
        small: i8::MIN,
        short: i16::MAX,
        int: -123_456,
        long_min: i64::MIN,
        wide: -170_141_183_460_469_231_731_687_303_715_884,
        byte: u8::MAX,
        ushort: 0,
        uint: u32::MAX,
        ulong_max: u64::MAX,
        size: 42,
        single: 0.1,
        double: std::f64::consts::PI,
        negative: -2.5e-7,
        fraction: 1234.5678,
        flag: true,
        bytes: vec![0, 1, 2, 255],
        blob: Blob::new(vec![9, 8, 7]),
        list: vec!["a".into(), String::new(), "c".into()],
        nested_list: vec![vec![1, 2], vec![], vec![-3]],
        map: HashMap::from([("one".into(), 1), ("minus".into(), -1)]),
        nested_map: BTreeMap::from([(
            "outer".into(),
            HashMap::from([
                ("inner".into(), "value".into()),
                ("empty".into(), String::new()),
            ]),
        )]),
        string_set: HashSet::from(["red".into(), "green".into()]),
        number_set: BTreeSet::from([-1, 0, 1, i64::MAX]),
        binary_set: HashSet::from([vec![1], vec![2, 3]]),
        empty_set: HashSet::new(),
        none: None,
        some: Some("there".into()),
        optional_list: Some(vec![Some(1), None, Some(3)]),
        created,
        millis: created,
        seconds: Some(Utc.timestamp_opt(1_800_000_000, 0).unwrap()),
        status: Status::Paid,
        statuses: vec![Status::Open, Status::Paid],
        address: Address {
            street: "1 Main St".into(),
            city: "Zürich".into(),
            zip: None,
        },
        maybe_status: Some(Status::Open),
    }
}

#[test]
fn native_types_store_natively() {
    let item = everything().to_item().unwrap();
    assert_eq!(item["text"], AttributeValue::S("plain text".into()));
    assert_eq!(item["empty"], AttributeValue::S(String::new()));
    assert_eq!(
        item["long_min"],
        AttributeValue::N("-9223372036854775808".into())
    );
    assert_eq!(
        item["ulong_max"],
        AttributeValue::N("18446744073709551615".into())
    );
    assert_eq!(item["flag"], AttributeValue::Bool(true));
    assert_eq!(
        item["bytes"],
        AttributeValue::B(Blob::new(vec![0, 1, 2, 255]))
    );
    assert_eq!(item["blob"], AttributeValue::B(Blob::new(vec![9, 8, 7])));
    assert!(matches!(&item["list"], AttributeValue::L(l) if l.len() == 3));
    assert!(
        matches!(&item["map"], AttributeValue::M(m) if m["minus"] == AttributeValue::N("-1".into()))
    );
    assert!(matches!(&item["string_set"], AttributeValue::Ss(s) if s.len() == 2));
    assert!(matches!(&item["number_set"], AttributeValue::Ns(s) if s.len() == 4));
    assert!(matches!(&item["binary_set"], AttributeValue::Bs(s) if s.len() == 2));
    assert!(!item.contains_key("empty_set"), "DynamoDB has no empty set");
    assert!(!item.contains_key("none"), "None is absent");
    assert_eq!(item["some"], AttributeValue::S("there".into()));
    assert_eq!(
        item["created"],
        AttributeValue::S("2026-11-06T09:30:00.007Z".into())
    );
    assert_eq!(item["millis"], AttributeValue::N("1793957400007".into()));
    assert_eq!(item["seconds"], AttributeValue::N("1800000000".into()));
    assert_eq!(item["status"], AttributeValue::S("paid".into()));
    assert!(
        matches!(&item["address"], AttributeValue::M(m) if m["city"] == AttributeValue::S("Zürich".into()))
    );
}

#[test]
fn every_type_round_trips_in_memory() {
    let original = everything();
    let back = Everything::from_item(original.to_item().unwrap()).unwrap();
    assert_eq!(back, original);
}

#[tokio::test]
async fn every_type_round_trips_through_the_server() {
    let db = common::db_with::<Everything>("round_trip").await;
    let original = everything();
    db.put(&original).send().await.unwrap();
    let back = db
        .get::<Everything>("all")
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .expect("the item exists");
    assert_eq!(back, original);

    let mut sparse = everything();
    sparse.id = "sparse".into();
    sparse.some = None;
    sparse.seconds = None;
    sparse.optional_list = None;
    sparse.maybe_status = None;
    sparse.string_set.clear();
    db.put(&sparse).send().await.unwrap();
    assert_eq!(
        db.get::<Everything>("sparse")
            .send()
            .await
            .unwrap()
            .expect("the item exists"),
        sparse
    );
}

#[derive(Model, Debug, PartialEq)]
struct Small {
    #[hash_key]
    id: String,
    count: u8,
    tags: Vec<u32>,
    address: Option<Address>,
}

#[test]
fn conversion_errors_name_the_model_the_path_and_what_was_found() {
    let mut item = Small {
        id: "s".into(),
        count: 1,
        tags: vec![1, 2, 3],
        address: None,
    }
    .to_item()
    .unwrap();
    item.insert("count".into(), AttributeValue::N("300".into()));
    let error = Small::from_item(item.clone()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Conversion);
    assert_eq!(
        (error.model(), error.attribute()),
        (Some("Small"), Some("count"))
    );
    assert!(
        error.message().contains("fits in u8") && error.message().contains("300"),
        "{error}"
    );

    item.insert("count".into(), AttributeValue::N("1".into()));
    item.insert(
        "tags".into(),
        AttributeValue::L(vec![
            AttributeValue::N("1".into()),
            AttributeValue::S("two".into()),
        ]),
    );
    let error = Small::from_item(item.clone()).unwrap_err();
    assert_eq!(error.attribute(), Some("tags[1]"));
    assert_eq!(error.message(), "expected a number (N), found a string (S)");

    item.insert("tags".into(), AttributeValue::L(vec![]));
    let address = HashMap::from([
        ("street".to_owned(), AttributeValue::S("x".into())),
        ("city".to_owned(), AttributeValue::N("7".into())),
    ]);
    item.insert("address".into(), AttributeValue::M(address));
    let error = Small::from_item(item.clone()).unwrap_err();
    assert_eq!(error.attribute(), Some("address.city"), "{error}");

    item.remove("address");
    item.remove("count");
    let error = Small::from_item(item).unwrap_err();
    assert_eq!(error.attribute(), Some("count"));
    assert!(error.message().contains("missing"), "{error}");
}

#[test]
fn a_hash_set_of_strings_is_a_string_set_not_a_list() {
    #[derive(Model)]
    struct Tagged {
        #[hash_key]
        id: String,
        tags: HashSet<String>,
    }
    let item = Tagged {
        id: "t".into(),
        tags: HashSet::from(["a".into()]),
    }
    .to_item()
    .unwrap();
    assert_eq!(item["tags"], AttributeValue::Ss(vec!["a".into()]));
    // An absent set reads back as empty.
    let mut item = item;
    item.remove("tags");
    assert!(Tagged::from_item(item).unwrap().tags.is_empty());
}

//! Property tests: arbitrary values survive the trip to an item and back, and through a
//! real server.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, TimeZone, Utc};
use dynorm::Model;
use proptest::prelude::*;

#[derive(Model, Debug, Clone, PartialEq)]
struct Sample {
    #[hash_key]
    id: String,
    #[range_key]
    n: i64,
    text: String,
    unsigned: u64,
    float: f64,
    flag: bool,
    bytes: Vec<u8>,
    list: Vec<String>,
    map: BTreeMap<String, i32>,
    set: BTreeSet<String>,
    maybe: Option<String>,
    at: DateTime<Utc>,
}

/// Finite doubles within DynamoDB's number range: zero, or a magnitude from 1e-130 to
/// 9.99e125. A mantissa below 2.2e9 times 10^115 stays under 2.2e124.
fn dynamo_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.0),
        (-1e15f64..1e15f64),
        (any::<i32>(), -120i32..=115).prop_map(|(mantissa, exp)| mantissa as f64 * 10f64.powi(exp)),
        Just(9.9e125),
        Just(-1e-130),
    ]
}

/// Finite doubles outside DynamoDB's number range, which every write must refuse.
fn out_of_range_f64() -> impl Strategy<Value = f64> {
    let sign = prop_oneof![Just(1.0), Just(-1.0)];
    let magnitude = prop_oneof![
        (1.0f64..10.0, 126i32..=307).prop_map(|(m, e)| m * 10f64.powi(e)),
        (1.0f64..10.0, -300i32..=-131).prop_map(|(m, e)| m * 10f64.powi(e)),
        Just(f64::MAX),
        Just(f64::MIN_POSITIVE),
    ];
    (sign, magnitude).prop_map(|(sign, magnitude)| sign * magnitude)
}

/// A model with the number types whose values can fall outside DynamoDB's range.
#[derive(Model, Debug, Clone, PartialEq)]
struct Measure {
    #[hash_key]
    id: String,
    float: f64,
    big: u128,
    readings: BTreeMap<String, f64>,
}

fn sample() -> impl Strategy<Value = Sample> {
    (
        "[a-zA-Z0-9 _#-]{1,20}",
        any::<i64>(),
        any::<String>(),
        any::<u64>(),
        dynamo_f64(),
        any::<bool>(),
        proptest::collection::vec(any::<u8>(), 0..16),
        proptest::collection::vec(any::<String>(), 0..4),
        proptest::collection::btree_map("[a-z]{1,8}", any::<i32>(), 0..4),
        proptest::collection::btree_set("\\PC{1,8}", 0..4),
        proptest::option::of(any::<String>()),
        (0i64..4_102_444_800_000).prop_map(|ms| Utc.timestamp_millis_opt(ms).unwrap()),
    )
        .prop_map(
            |(id, n, text, unsigned, float, flag, bytes, list, map, set, maybe, at)| Sample {
                id,
                n,
                text,
                unsigned,
                float,
                flag,
                bytes,
                list,
                map,
                set,
                maybe,
                at,
            },
        )
}

proptest! {
    #[test]
    fn items_round_trip_in_memory(value in sample()) {
        let back = Sample::from_item(value.to_item().unwrap()).unwrap();
        prop_assert_eq!(back, value);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn items_round_trip_through_the_server(value in sample()) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let back = runtime.block_on(async {
            let db = shared_db().await;
            db.put(&value).send().await.unwrap();
            db.get::<Sample>(value.key()).consistent_read(true).send().await.unwrap()
        });
        prop_assert_eq!(back, Some(value));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    /// An out-of-range number is refused before sending on every write path, with the
    /// attribute (and the path inside it) named.
    #[test]
    fn out_of_range_numbers_are_refused_on_every_write_path(
        bad in out_of_range_f64(),
        big_digits in 39usize..40,
        where_ in 0usize..3,
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let db = shared_measure_db().await;
            let mut measure = Measure { id: "m".into(), float: 1.5, big: 7, readings: BTreeMap::new() };
            let attribute = match where_ {
                0 => { measure.float = bad; "float" }
                1 => { measure.readings.insert("t".into(), bad); "readings.t" }
                _ => {
                    measure.big = "9".repeat(big_digits).parse::<u128>().unwrap_or(u128::MAX);
                    "big"
                }
            };
            let refused = |result: dynorm::Result<()>, path: &str| {
                let error = result.expect_err(path);
                assert!(error.kind() == dynorm::ErrorKind::Validation, "{path}: {error}");
                assert_eq!(error.attribute(), Some(attribute), "{path}: {error}");
            };
            refused(db.put(&measure).send().await, "put");
            refused(db.create(&measure).send().await, "create");
            refused(db.batch_write().put(&measure).send().await.map(drop), "batch");
            refused(db.transact_write().write(db.put(&measure)).send().await, "transaction");
            if where_ == 0 {
                refused(db.update::<Measure>("m").set(Measure::FLOAT, bad).upsert().send().await, "update");
                refused(
                    db.query_by::<Measure>("m").filter(Measure::FLOAT.gt(bad)).all().await.map(drop),
                    "filter",
                );
            }
            assert_eq!(db.get::<Measure>("m").send().await.unwrap(), None, "nothing was written");
        });
    }
}

/// One table for the refusal property test.
async fn shared_measure_db() -> dynorm::Client {
    static DB: tokio::sync::OnceCell<dynorm::Client> = tokio::sync::OnceCell::const_new();
    DB.get_or_init(|| common::db_with::<Measure>("proptest_refused"))
        .await
        .clone()
}

/// One table for every case of the server property test.
async fn shared_db() -> dynorm::Client {
    static DB: tokio::sync::OnceCell<dynorm::Client> = tokio::sync::OnceCell::const_new();
    DB.get_or_init(|| common::db_with::<Sample>("proptest"))
        .await
        .clone()
}

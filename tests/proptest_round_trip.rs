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

/// Finite doubles within DynamoDB's number range (magnitude 1e-130 to 1e125).
fn dynamo_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.0),
        (-1e15f64..1e15f64),
        (any::<i32>(), -120i32..120).prop_map(|(mantissa, exp)| mantissa as f64 * 10f64.powi(exp)),
    ]
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

/// One table for every case of the server property test.
async fn shared_db() -> dynorm::Client {
    static DB: tokio::sync::OnceCell<dynorm::Client> = tokio::sync::OnceCell::const_new();
    DB.get_or_init(|| common::db_with::<Sample>("proptest"))
        .await
        .clone()
}

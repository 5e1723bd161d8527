//! `create_table_input()`, table naming, and creating tables on a real server.

mod common;

use chrono::{DateTime, Utc};
use dynorm::types::{BillingMode, KeyType, ScalarAttributeType};
use dynorm::{Client, Model};

#[derive(Model)]
#[dynorm(rename_all = "camelCase")]
struct Message {
    #[hash_key]
    room_id: String,
    #[range_key]
    sent_at: DateTime<Utc>,
    text: String,
}

#[derive(Model)]
#[dynorm(table = "events", prefix = "audit_", suffix = "_v2")]
struct Event {
    #[hash_key]
    #[dynorm(rename = "pk")]
    stream: Vec<u8>,
    #[range_key]
    #[dynorm(date = "seconds")]
    at: DateTime<Utc>,
    payload: String,
}

#[derive(Model)]
struct Counter {
    #[hash_key]
    id: i32,
    count: u64,
}

fn definitions(input: &dynorm::types::CreateTableInput) -> Vec<(String, ScalarAttributeType)> {
    input
        .attribute_definitions()
        .iter()
        .map(|d| (d.attribute_name().to_owned(), d.attribute_type().clone()))
        .collect()
}

fn key_schema(input: &dynorm::types::CreateTableInput) -> Vec<(String, KeyType)> {
    input
        .key_schema()
        .iter()
        .map(|k| (k.attribute_name().to_owned(), k.key_type().clone()))
        .collect()
}

#[test]
fn names_come_from_the_model() {
    assert_eq!(
        (Message::HASH_KEY, Message::RANGE_KEY, Message::TABLE_NAME),
        ("roomId", Some("sentAt"), "Message")
    );
    assert_eq!(
        (Event::HASH_KEY, Event::RANGE_KEY, Event::TABLE_NAME),
        ("pk", Some("at"), "events")
    );
    assert_eq!((Counter::HASH_KEY, Counter::RANGE_KEY), ("id", None));
}

#[test]
fn create_table_input_defines_only_the_key_attributes() {
    let input = Message::create_table_input();
    assert_eq!(input.table_name(), Some("Message"));
    assert_eq!(
        definitions(&input),
        [
            ("roomId".into(), ScalarAttributeType::S),
            ("sentAt".into(), ScalarAttributeType::S)
        ]
    );
    assert_eq!(
        key_schema(&input),
        [
            ("roomId".into(), KeyType::Hash),
            ("sentAt".into(), KeyType::Range)
        ]
    );
    assert_eq!(input.billing_mode(), Some(&BillingMode::PayPerRequest));
}

#[test]
fn key_types_follow_the_rust_types_and_date_storage() {
    let input = Event::create_table_input();
    assert_eq!(input.table_name(), Some("audit_events_v2"));
    assert_eq!(
        definitions(&input),
        [
            ("pk".into(), ScalarAttributeType::B),
            ("at".into(), ScalarAttributeType::N)
        ]
    );
    let input = Counter::create_table_input();
    assert_eq!(definitions(&input), [("id".into(), ScalarAttributeType::N)]);
    assert_eq!(key_schema(&input), [("id".into(), KeyType::Hash)]);
}

#[tokio::test]
async fn the_client_prefix_and_suffix_apply_unless_the_model_overrides_them() {
    let sdk = aws_sdk_dynamodb::Client::from_conf(
        aws_sdk_dynamodb::Config::builder()
            .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
            .build(),
    );
    let plain = Client::new(sdk.clone());
    assert_eq!(plain.tables().name::<Message>(), "Message");
    let db = Client::builder(sdk)
        .table_prefix("dev_")
        .table_suffix("_eu")
        .build();
    assert_eq!(db.tables().name::<Message>(), "dev_Message_eu");
    assert_eq!(db.tables().full_name("Other"), "dev_Other_eu");
    assert_eq!(
        db.tables().create::<Message>().preview().table_name(),
        Some("dev_Message_eu")
    );
    // The model's own prefix and suffix win.
    assert_eq!(db.tables().name::<Event>(), "audit_events_v2");
    // A client is immutable: `with_table_prefix` gives a new one and leaves it alone.
    let separate = db.to_builder().table_prefix("test_").build();
    assert_eq!(separate.tables().name::<Message>(), "test_Message_eu");
    assert_eq!(db.tables().name::<Message>(), "dev_Message_eu");
    assert_eq!(
        db.to_builder()
            .table_suffix("")
            .build()
            .tables()
            .name::<Message>(),
        "dev_Message"
    );
}

#[tokio::test]
async fn tables_are_created_and_become_active() {
    let db = common::db("table_create").await;
    db.tables().create::<Message>().send().await.unwrap();
    db.tables()
        .wait_until_active::<Message>(std::time::Duration::from_secs(30))
        .send()
        .await
        .unwrap();
    db.tables().verify::<Message>().send().await.unwrap();
    // Creating it again is a service error; `ensure_table` accepts an existing table.
    assert!(db
        .tables()
        .create::<Message>()
        .send()
        .await
        .unwrap_err()
        .kind()
        .eq(&dynorm::ErrorKind::Service));
    db.tables().ensure::<Message>().send().await.unwrap();

    let described = db
        .sdk()
        .describe_table()
        .table_name(db.tables().name::<Message>())
        .send()
        .await
        .unwrap();
    let table = described.table().unwrap();
    let keys: Vec<_> = table
        .key_schema()
        .iter()
        .map(|k| k.attribute_name().to_owned())
        .collect();
    assert_eq!(keys, ["roomId", "sentAt"]);
    db.tables().delete::<Message>().send().await.unwrap();
}

/// The model of a table that drifted: the live table has `id` as a number, no range key,
/// no `byKind` index and no stream.
#[derive(Model)]
#[dynorm(table = "Drifting", stream = "new_image")]
struct Drifting {
    #[hash_key]
    id: String,
    #[range_key]
    at: u64,
    #[index(name = "byKind", project = ["note"])]
    kind: String,
    note: String,
}

#[tokio::test]
async fn a_table_that_drifts_in_several_ways_reports_every_difference() {
    use dynorm::types::{AttributeDefinition, KeySchemaElement};
    let db = common::db("table_drift").await;
    db.sdk()
        .create_table()
        .table_name(db.tables().name::<Drifting>())
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("id")
                .attribute_type(ScalarAttributeType::N)
                .build()
                .unwrap(),
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("id")
                .key_type(KeyType::Hash)
                .build()
                .unwrap(),
        )
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
    db.tables()
        .wait_until_active::<Drifting>(std::time::Duration::from_secs(30))
        .send()
        .await
        .unwrap();

    let error = db.tables().verify::<Drifting>().send().await.unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Config, "{error}");
    let shown = error.to_string();
    for difference in [
        "the table has the key schema [id HASH], the model declares [id HASH, at RANGE]",
        "index `byKind` is missing",
        "the table defines `id` as N, the model needs S",
        "no stream",
    ] {
        assert!(shown.contains(difference), "`{difference}` in {shown}");
    }
    assert!(
        shown.contains("differs from the model (4 differences)"),
        "{shown}"
    );
    assert_eq!(error.attribute(), Some("id"));
    assert_eq!(error.operation(), Some("verify_table"));

    // `ensure_table` does not accept a table that differs from the model.
    let error = db.tables().ensure::<Drifting>().send().await.unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Config, "{error}");
    assert_eq!(error.operation(), Some("ensure_table"));
    assert!(
        error.to_string().contains("index `byKind` is missing"),
        "{error}"
    );
}

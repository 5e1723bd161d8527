//! Every single-item operation and every error kind, against a real server.

mod common;

use std::error::Error as _;

use chrono::{DateTime, TimeZone, Utc};
use dynorm::schema::ModelKey;
use dynorm::types::AttributeValue;
use dynorm::{ErrorKind, Item, Model};

#[derive(Model, Debug, Clone, PartialEq)]
struct User {
    #[hash_key]
    id: String,
    name: String,
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(rename_all = "camelCase")]
struct Message {
    #[hash_key]
    room_id: String,
    #[range_key]
    sent_at: DateTime<Utc>,
    author: String,
    text: String,
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Reading")]
struct Reading {
    #[hash_key]
    sensor: u64,
    #[range_key]
    #[dynorm(date = "milliseconds")]
    at: DateTime<Utc>,
    value: f64,
}

fn user(id: &str, name: &str) -> User {
    User {
        id: id.into(),
        name: name.into(),
    }
}

fn at(seconds: i64) -> DateTime<Utc> {
    Utc.timestamp_opt(1_762_421_400 + seconds, 0).unwrap()
}

fn message(room: &str, seconds: i64, text: &str) -> Message {
    Message {
        room_id: room.into(),
        sent_at: at(seconds),
        author: "u1".into(),
        text: text.into(),
    }
}

#[tokio::test]
async fn create_then_get_by_bare_and_typed_key() {
    let db = common::db_with::<User>("crud_get").await;
    let ada = user("u1", "Ada");
    db.create(&ada).send().await.unwrap();

    assert_eq!(
        db.get::<User>("u1").send().await.unwrap(),
        Some(ada.clone())
    );
    assert_eq!(
        db.get::<User>(String::from("u1")).send().await.unwrap(),
        Some(ada.clone())
    );
    let typed = UserKey { id: "u1".into() };
    assert_eq!(
        db.get::<User>(typed)
            .consistent_read(true)
            .send()
            .await
            .unwrap(),
        Some(ada.clone())
    );
    assert_eq!(
        db.get::<User>(ada.key())
            .send()
            .await
            .unwrap()
            .expect("the item exists"),
        ada
    );
    assert_eq!(db.get::<User>("nobody").send().await.unwrap(), None);
}

#[tokio::test]
async fn duplicate_create_is_already_exists_with_the_stored_item() {
    let db = common::db_with::<User>("crud_dup").await;
    db.create(&user("u1", "Ada")).send().await.unwrap();

    let error = db.create(&user("u1", "Impostor")).send().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::AlreadyExists);
    assert!(error.kind() == dynorm::ErrorKind::AlreadyExists);
    assert_eq!(error.model(), Some("User"));
    assert_eq!(error.operation(), Some("create"));
    let stored: User = error.current_item::<User>().unwrap().unwrap();
    assert_eq!(stored.name, "Ada");
    assert_eq!(
        db.get::<User>("u1")
            .send()
            .await
            .unwrap()
            .expect("the item exists")
            .name,
        "Ada"
    );
}

#[tokio::test]
async fn create_with_overwrite_replaces_the_item() {
    let db = common::db_with::<User>("crud_overwrite").await;
    db.create(&user("u1", "Ada")).send().await.unwrap();
    db.create(&user("u1", "Ada Lovelace"))
        .overwrite(true)
        .send()
        .await
        .unwrap();
    assert_eq!(
        db.get::<User>("u1")
            .send()
            .await
            .unwrap()
            .expect("the item exists")
            .name,
        "Ada Lovelace"
    );
}

#[tokio::test]
async fn put_replaces_and_can_return_the_old_item() {
    let db = common::db_with::<User>("crud_put").await;
    db.put(&user("u1", "Ada")).send().await.unwrap();
    let old = db
        .put(&user("u1", "Grace"))
        .send_returning_old()
        .await
        .unwrap();
    assert_eq!(old, Some(user("u1", "Ada")));
    let none = db
        .put(&user("u2", "Linus"))
        .send_returning_old()
        .await
        .unwrap();
    assert_eq!(none, None);
    assert_eq!(
        db.get::<User>("u1")
            .send()
            .await
            .unwrap()
            .expect("the item exists")
            .name,
        "Grace"
    );
}

#[tokio::test]
async fn delete_by_key_returning_the_old_item() {
    let db = common::db_with::<Message>("crud_delete").await;
    let hello = message("general", 0, "hello");
    db.put(&hello).send().await.unwrap();

    let old = db
        .delete::<Message>(hello.key())
        .send_returning_old()
        .await
        .unwrap();
    assert_eq!(old, Some(hello.clone()));
    assert_eq!(db.get::<Message>(hello.key()).send().await.unwrap(), None);
    // Deleting a missing item succeeds, unless it is required to exist.
    db.delete::<Message>(hello.key()).send().await.unwrap();
    let error = db
        .delete::<Message>(hello.key())
        .require_exists(true)
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::NotFound);
    assert_eq!(error.operation(), Some("delete"));
}

#[tokio::test]
async fn composite_keys_address_one_item_each() {
    let db = common::db_with::<Message>("crud_composite").await;
    for (seconds, text) in [(0, "first"), (1, "second"), (2, "third")] {
        db.create(&message("general", seconds, text))
            .send()
            .await
            .unwrap();
    }
    db.create(&message("random", 1, "elsewhere"))
        .send()
        .await
        .unwrap();

    let key = MessageKey {
        room_id: "general".into(),
        sent_at: at(1),
    };
    assert_eq!(
        db.get::<Message>(key)
            .send()
            .await
            .unwrap()
            .expect("the item exists")
            .text,
        "second"
    );
    let key = MessageKey {
        room_id: "random".into(),
        sent_at: at(1),
    };
    assert_eq!(
        db.get::<Message>(key)
            .send()
            .await
            .unwrap()
            .expect("the item exists")
            .text,
        "elsewhere"
    );
}

#[tokio::test]
async fn keys_are_sent_in_their_stored_form() {
    let db = common::db_with::<Reading>("crud_storage").await;
    let reading = Reading {
        sensor: u64::MAX,
        at: at(0) + chrono::Duration::milliseconds(250),
        value: -1.5,
    };
    db.put(&reading).send().await.unwrap();

    let key = ReadingKey {
        sensor: u64::MAX,
        at: reading.at,
    }
    .to_key_item()
    .unwrap();
    assert_eq!(key["at"], AttributeValue::N("1762421400250".into()));
    assert_eq!(
        key["sensor"],
        AttributeValue::N("18446744073709551615".into())
    );
    let raw = db
        .sdk()
        .get_item()
        .table_name(db.tables().name::<Reading>())
        .set_key(Some(key))
        .send()
        .await
        .unwrap();
    assert_eq!(
        raw.item.unwrap()["at"],
        AttributeValue::N("1762421400250".into())
    );
    assert_eq!(
        db.get::<Reading>(reading.key())
            .send()
            .await
            .unwrap()
            .expect("the item exists"),
        reading
    );
}

#[tokio::test]
async fn a_date_range_key_in_iso_storage_is_fixed_width_text() {
    let db = common::db_with::<Message>("crud_iso").await;
    let hello = message("general", 0, "hello");
    db.put(&hello).send().await.unwrap();
    let key = hello.key().to_key_item().unwrap();
    assert_eq!(
        key["sentAt"],
        AttributeValue::S("2025-11-06T09:30:00.000Z".into())
    );
}

#[tokio::test]
async fn raw_keys_skip_the_storage_but_must_be_complete() {
    let db = common::db_with::<Message>("crud_raw").await;
    let hello = message("general", 0, "hello");
    db.put(&hello).send().await.unwrap();

    let mut raw = Item::new();
    raw.insert("roomId".into(), AttributeValue::S("general".into()));
    raw.insert(
        "sentAt".into(),
        AttributeValue::S("2025-11-06T09:30:00.000Z".into()),
    );
    assert_eq!(
        dynorm::item::GetItem::<Message>::raw(&db, raw.clone())
            .send()
            .await
            .unwrap(),
        Some(hello.clone())
    );

    raw.remove("sentAt");
    let error = dynorm::item::GetItem::<Message>::raw(&db, raw.clone())
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation);
    assert_eq!(error.model(), Some("Message"));
    assert_eq!(error.attribute(), Some("sentAt"));
    assert_eq!(error.operation(), Some("get"));
    assert!(
        error
            .to_string()
            .contains("the key of `Message` has no `sentAt`"),
        "{error}"
    );

    let error = dynorm::item::DeleteItem::<Message>::raw(&db, raw)
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        (error.kind(), error.operation()),
        (ErrorKind::Validation, Some("delete"))
    );

    let mut wrong_type = Item::new();
    wrong_type.insert("roomId".into(), AttributeValue::N("1".into()));
    wrong_type.insert("sentAt".into(), AttributeValue::S("x".into()));
    let error = dynorm::item::GetItem::<Message>::raw(&db, wrong_type)
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        (error.kind(), error.attribute()),
        (ErrorKind::Validation, Some("roomId"))
    );
    assert_eq!(
        dynorm::item::DeleteItem::<Message>::raw(&db, hello.key().to_key_item().unwrap())
            .send_returning_old()
            .await
            .unwrap(),
        Some(hello)
    );
}

#[tokio::test]
async fn an_empty_key_string_is_rejected_before_sending() {
    // No table exists for this client: a request that reached the server would fail with
    // a service error, so a validation error shows nothing was sent.
    let db = common::db("crud_empty").await;
    let error = db.get::<User>("").send().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation);
    assert_eq!(error.attribute(), Some("id"));
}

#[tokio::test]
async fn an_unreadable_item_is_a_conversion_error_naming_the_attribute() {
    let db = common::db_with::<User>("crud_conversion").await;
    db.sdk()
        .put_item()
        .table_name(db.tables().name::<User>())
        .item("id", AttributeValue::S("u1".into()))
        .item("name", AttributeValue::N("42".into()))
        .send()
        .await
        .unwrap();
    let error = db.get::<User>("u1").send().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Conversion);
    assert_eq!(error.model(), Some("User"));
    assert_eq!(error.attribute(), Some("name"));
    assert_eq!(error.operation(), Some("get"));
    assert_eq!(
        error.to_string(),
        "conversion error in `get` on model `User`, attribute `name`: expected a string (S), found a number (N)"
    );
}

#[tokio::test]
async fn a_missing_table_is_named_with_the_sdk_error_as_source() {
    let db = common::db("crud_service").await;
    let error = db.get::<User>("u1").send().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TableNotFound);
    assert_eq!(error.model(), Some("User"));
    assert_eq!(error.table(), Some(db.tables().name::<User>().as_str()));
    assert!(error.source().is_some());
    assert!(
        error.to_string().contains("ResourceNotFoundException"),
        "{error}"
    );
}

#[tokio::test]
async fn a_table_that_does_not_match_the_model_is_a_config_error() {
    let db = common::db("crud_config").await;
    // A `User` table whose hash key is a number, unlike the model's string `id`.
    db.sdk()
        .create_table()
        .table_name(db.tables().name::<User>())
        .attribute_definitions(
            dynorm::types::AttributeDefinition::builder()
                .attribute_name("id")
                .attribute_type(dynorm::types::ScalarAttributeType::N)
                .build()
                .unwrap(),
        )
        .key_schema(
            dynorm::types::KeySchemaElement::builder()
                .attribute_name("id")
                .key_type(dynorm::types::KeyType::Hash)
                .build()
                .unwrap(),
        )
        .billing_mode(dynorm::types::BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
    let error = db.tables().verify::<User>().send().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Config);
    assert_eq!(error.attribute(), Some("id"));
    assert!(error.to_string().contains("S"), "{error}");

    let good = common::db_with::<Message>("crud_config_ok").await;
    good.tables().verify::<Message>().send().await.unwrap();
}

#[tokio::test]
async fn a_non_finite_float_is_a_validation_error_before_sending() {
    let db = common::db("crud_nan").await;
    let reading = Reading {
        sensor: 1,
        at: at(0),
        value: f64::NAN,
    };
    let error = db.put(&reading).send().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation);
    assert_eq!(
        (error.attribute(), error.operation()),
        (Some("value"), Some("put"))
    );
}

#[tokio::test]
async fn the_table_prefix_is_read_on_every_call() {
    let db = common::db_with::<User>("crud_prefix_a").await;
    let first = db.tables().name::<User>();
    db.put(&user("u1", "Ada")).send().await.unwrap();

    let other = common::db("crud_prefix_b").await;
    let second_prefix = other
        .tables()
        .name::<User>()
        .trim_end_matches("User")
        .to_owned();
    other.tables().ensure::<User>().send().await.unwrap();

    // A client with another prefix shares the SDK client and names the other table on
    // every call; the first client is unchanged.
    let moved = db
        .to_builder()
        .table_prefix(second_prefix)
        .build()
        .to_builder()
        .table_suffix("")
        .build();
    assert_ne!(moved.tables().name::<User>(), first);
    assert_eq!(moved.get::<User>("u1").send().await.unwrap(), None);
    assert_eq!(moved.tables().name::<User>(), other.tables().name::<User>());
    assert_eq!(db.tables().name::<User>(), first);
    assert!(db.get::<User>("u1").send().await.unwrap().is_some());
}

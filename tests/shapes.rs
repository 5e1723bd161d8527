//! Versioned shapes: items written in earlier shapes read as the current model on every
//! read path, through the user's typed upcasts; every whole-item write stores the current
//! shape; an item of a newer shape is a typed error that names both.

mod common;

use std::time::Duration;

use dynorm::types::AttributeValue;
use dynorm::{Client, Item, Model};
use dynorm_streams::ChangeKind;
use futures::StreamExt;
use serde::Deserialize;

/// Shape 1: one name.
#[derive(Deserialize)]
struct UserV1 {
    id: String,
    name: String,
}

/// Shape 2: the name split in two.
#[derive(Deserialize)]
struct UserV2 {
    id: String,
    first: String,
    last: String,
}

impl From<UserV1> for UserV2 {
    fn from(v1: UserV1) -> Self {
        let (first, last) = v1.name.split_once(' ').unwrap_or((&v1.name, ""));
        UserV2 {
            id: v1.id,
            first: first.to_owned(),
            last: last.to_owned(),
        }
    }
}

/// Shape 3, the current one: a display name too.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "ShapedUsers", stream = "new_and_old_images")]
#[dynorm(shape = 3, upcasts = [UserV1, UserV2])]
struct User {
    #[hash_key]
    id: String,
    first: String,
    last: String,
    display: String,
}

impl From<UserV2> for User {
    fn from(v2: UserV2) -> Self {
        User {
            display: format!("{} {}", v2.first, v2.last),
            id: v2.id,
            first: v2.first,
            last: v2.last,
        }
    }
}

fn s(text: &str) -> AttributeValue {
    AttributeValue::S(text.into())
}

fn ada() -> User {
    User {
        id: "u1".into(),
        first: "Ada".into(),
        last: "Lovelace".into(),
        display: "Ada Lovelace".into(),
    }
}

fn grace() -> User {
    User {
        id: "u2".into(),
        first: "Grace".into(),
        last: "Hopper".into(),
        display: "Grace Hopper".into(),
    }
}

/// `u1` in shape 1 (no shape attribute: written before shapes), `u2` in shape 2.
async fn write_old_items(db: &Client) {
    let table = db.tables().name::<User>();
    let v1 = Item::from([("id".into(), s("u1")), ("name".into(), s("Ada Lovelace"))]);
    let v2 = Item::from([
        ("id".into(), s("u2")),
        ("first".into(), s("Grace")),
        ("last".into(), s("Hopper")),
        ("__shape".into(), AttributeValue::N("2".into())),
    ]);
    for item in [v1, v2] {
        db.sdk()
            .put_item()
            .table_name(&table)
            .set_item(Some(item))
            .send()
            .await
            .unwrap();
    }
}

/// The stored item of user `id`, raw, if any.
async fn raw_item(db: &Client, id: &str) -> Option<Item> {
    db.sdk()
        .get_item()
        .table_name(db.tables().name::<User>())
        .key("id", s(id))
        .send()
        .await
        .unwrap()
        .item
}

#[tokio::test]
async fn every_read_path_upcasts_old_items() {
    let db = common::db_with::<User>("shapes_reads").await;
    write_old_items(&db).await;

    assert_eq!(db.get::<User>("u1").send().await.unwrap(), Some(ada()));
    assert_eq!(db.get::<User>("u2").send().await.unwrap(), Some(grace()));
    let mut many = db.get_many::<User, _>(["u1", "u2"]).send().await.unwrap();
    many.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(many, vec![ada(), grace()]);
    let read = db
        .transact_get()
        .get::<User>("u1")
        .get::<User>("u2")
        .send()
        .await
        .unwrap();
    assert_eq!(read.get::<User>(0).unwrap(), Some(ada()));
    assert_eq!(read.get::<User>(1).unwrap(), Some(grace()));
    let mut scanned: Vec<User> = db.scan::<User>().all().await.unwrap();
    scanned.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(scanned, vec![ada(), grace()]);
    let queried: Vec<User> = db
        .query::<User>()
        .matching(User::ID.eq("u2"))
        .all()
        .await
        .unwrap();
    assert_eq!(queried, vec![grace()]);

    // The change stream carries the old images, upcast too.
    let changes: Vec<_> = dynorm_streams::changes::<User>(&db)
        .poll_interval(Duration::from_millis(50))
        .stop_when_idle(Duration::from_millis(700))
        .stream()
        .collect()
        .await;
    let mut inserted: Vec<User> = changes
        .into_iter()
        .map(|c| match c.unwrap().kind {
            ChangeKind::Insert { new } => new,
            other => panic!("expected inserts, got {other:?}"),
        })
        .collect();
    inserted.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(inserted, vec![ada(), grace()]);
}

#[tokio::test]
async fn writes_store_the_current_shape_and_newer_shapes_are_refused() {
    let db = common::db_with::<User>("shapes_writes").await;
    write_old_items(&db).await;
    let raw = |id: &'static str| {
        let db = db.clone();
        async move { raw_item(&db, id).await.unwrap() }
    };
    // Reading an old item and writing it back stores it in the current shape.
    let user = db.get::<User>("u1").send().await.unwrap().unwrap();
    db.put(&user).send().await.unwrap();
    let stored = raw("u1").await;
    assert_eq!(stored.get("__shape"), Some(&AttributeValue::N("3".into())));
    assert_eq!(stored.get("display"), Some(&s("Ada Lovelace")));
    assert!(!stored.contains_key("name"));
    db.create(&User {
        id: "u3".into(),
        ..grace()
    })
    .send()
    .await
    .unwrap();
    assert_eq!(
        raw("u3").await.get("__shape"),
        Some(&AttributeValue::N("3".into()))
    );

    // An item a newer application wrote: a typed error that names both shapes.
    db.sdk()
        .update_item()
        .table_name(db.tables().name::<User>())
        .key("id", s("u3"))
        .update_expression("SET #s = :four")
        .expression_attribute_names("#s", "__shape")
        .expression_attribute_values(":four", AttributeValue::N("4".into()))
        .send()
        .await
        .unwrap();
    let error = db.get::<User>("u3").send().await.unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Conversion, "{error}");
    assert!(error.message().contains("shape 4"), "{error}");
    assert!(error.message().contains("shape 3"), "{error}");
    assert_eq!(error.model(), Some("User"));
    assert_eq!(error.operation(), Some("get"));
}

#[tokio::test]
async fn an_update_writes_an_older_shape_only_what_that_shape_holds() {
    let db = common::db_with::<User>("shapes_updates").await;
    write_old_items(&db).await;
    let raw = |id: &'static str| {
        let db = db.clone();
        async move { raw_item(&db, id).await }
    };

    // `u2` is stored in shape 2, which has no `display`: an update of it would write what
    // shape 2's upcast does not read, and a backfill would drop. Refused, naming both
    // shapes, and nothing is written.
    for update in [
        db.update::<User>("u2")
            .set(User::DISPLAY, "G. Hopper".to_owned()),
        db.update::<User>("u2")
            .set(User::FIRST, "Grace".to_owned())
            .set(User::LAST, "Hopper".to_owned())
            .set(User::DISPLAY, "G. Hopper".to_owned())
            .upsert(),
        // `u1` is shape 1: one `name`, no `first`.
        db.update::<User>("u1").set(User::FIRST, "A.".to_owned()),
    ] {
        let error = update.send().await.unwrap_err();
        assert!(
            error.kind() == dynorm::ErrorKind::ConditionFailed,
            "{error}"
        );
        assert!(error.message().contains("model's 3"), "{error}");
        assert_eq!(error.attribute(), Some("__shape"));
        assert_eq!(error.model(), Some("User"));
    }
    assert!(!raw("u2").await.unwrap().contains_key("display"));
    assert!(!raw("u1").await.unwrap().contains_key("first"));

    // What shape 2 holds can be updated while the item is in it, as a writer does while a
    // backfill runs: the item stays in shape 2 and reads the new value through its upcast.
    db.update::<User>("u2")
        .set(User::FIRST, "G.".to_owned())
        .send()
        .await
        .unwrap();
    let read = db.get::<User>("u2").send().await.unwrap().unwrap();
    assert_eq!(
        (read.first.as_str(), read.display.as_str()),
        ("G.", "G. Hopper")
    );
    assert_eq!(
        raw("u2").await.unwrap().get("__shape"),
        Some(&AttributeValue::N("2".into()))
    );

    // Written whole, it takes any update.
    db.put(&read).send().await.unwrap();
    db.update::<User>("u2")
        .set(User::DISPLAY, "Grace H.".to_owned())
        .send()
        .await
        .unwrap();
    let read = db.get::<User>("u2").send().await.unwrap().unwrap();
    assert_eq!(read.display, "Grace H.");

    // An upsert that creates the item gives it the current shape.
    db.update::<User>("u9")
        .set(User::FIRST, "Alan".to_owned())
        .set(User::LAST, "Turing".to_owned())
        .set(User::DISPLAY, "Alan Turing".to_owned())
        .upsert()
        .send()
        .await
        .unwrap();
    assert_eq!(
        raw("u9").await.unwrap().get("__shape"),
        Some(&AttributeValue::N("3".into()))
    );
}

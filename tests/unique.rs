//! Unique attributes: one guard item per unique value, kept by every write path in the same
//! transaction as the item, and the typed conflict when a value is taken.

mod common;

use dynorm::Request;
use std::sync::Arc;

use common::guards::{check_guards, scan_all};

use aws_sdk_dynamodb::types::AttributeValue;
use dynorm::{ErrorKind, Item, Model};

/// A user: the email is unique in the whole table, the handle within each team.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "UniqueUsers", unique_name = "User")]
struct User {
    #[hash_key]
    id: String,
    team: String,
    #[unique]
    email: String,
    #[unique(scope = team)]
    handle: Option<String>,
    name: String,
}

fn user(id: &str, team: &str, email: &str, handle: Option<&str>) -> User {
    User {
        id: id.into(),
        team: team.into(),
        email: email.into(),
        handle: handle.map(Into::into),
        name: format!("user {id}"),
    }
}

/// A single-table entity with a range key: its guards carry another entity name.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "UniqueApp", entity = "account")]
#[key(pk = "ORG#{org}", sk = "ACCOUNT#{id}")]
#[unique(fields = [first, last], scope = org)]
struct Account {
    org: String,
    id: String,
    first: String,
    last: String,
}

#[tokio::test]
async fn create_writes_the_guards_in_one_transaction() {
    let db = common::db_with::<User>("unique_create").await;
    let requests = common::Requests::new();
    let counted = requests.client(&db);
    counted
        .create(&user("u1", "t1", "ada@example.com", Some("ada")))
        .send()
        .await
        .unwrap();
    requests.assert_counts([("TransactWriteItems", 1)]);
    assert_eq!(check_guards::<User>(&db).await, 2);

    // The same email on another item is refused, naming the attribute and the holder.
    let error = db
        .create(&user("u2", "t2", "ada@example.com", None))
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::UniqueConflict, "{error}");
    assert_eq!(error.attribute(), Some("email"));
    assert_eq!(error.model(), Some("User"));
    assert_eq!(error.operation(), Some("create"));
    let holder = error.item().expect("the holder's key");
    assert_eq!(holder.get("id"), Some(&AttributeValue::S("u1".into())));
    assert!(db.get::<User>("u2").send().await.unwrap().is_none());

    // A handle is unique per team: the same handle in another team is fine.
    db.create(&user("u3", "t2", "bob@example.com", Some("ada")))
        .send()
        .await
        .unwrap();
    let error = db
        .create(&user("u4", "t2", "eve@example.com", Some("ada")))
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::UniqueConflict);
    assert_eq!(error.attribute(), Some("handle"));
    // A creation over an existing key is still `AlreadyExists`.
    let error = db
        .create(&user("u1", "t1", "new@example.com", None))
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::AlreadyExists, "{error}");
    assert_eq!(check_guards::<User>(&db).await, 4);
}

#[tokio::test]
async fn updates_move_guards_only_when_a_value_changes() {
    let db = common::db_with::<User>("unique_update").await;
    db.create(&user("u1", "t1", "ada@example.com", Some("ada")))
        .send()
        .await
        .unwrap();
    db.create(&user("u2", "t1", "bob@example.com", None))
        .send()
        .await
        .unwrap();
    let requests = common::Requests::new();
    let counted = requests.client(&db);

    // Not touching a unique attribute: the update as it is.
    counted
        .update::<User>("u1")
        .set(User::NAME, "Ada")
        .send()
        .await
        .unwrap();
    requests.assert_counts([("UpdateItem", 1)]);
    // Setting the value it already holds: one UpdateItem, no guard operation.
    counted
        .update::<User>("u1")
        .set(User::EMAIL, "ada@example.com")
        .send()
        .await
        .unwrap();
    requests.assert_counts([("UpdateItem", 1)]);
    // A new value: the guard moves, in one transaction after the first attempt.
    let updated = counted
        .update::<User>("u1")
        .set(User::EMAIL, "ada@lovelace.org")
        .send_returning_new()
        .await
        .unwrap();
    assert_eq!(updated.email, "ada@lovelace.org");
    assert_eq!(requests.sent("TransactWriteItems"), 1);
    requests.clear();
    assert_eq!(check_guards::<User>(&db).await, 3);
    // The old value is free again; the new one is taken.
    db.update::<User>("u2")
        .set(User::EMAIL, "ada@example.com")
        .send()
        .await
        .unwrap();
    let error = db
        .update::<User>("u2")
        .set(User::EMAIL, "ada@lovelace.org")
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::UniqueConflict, "{error}");
    assert_eq!(
        db.get::<User>("u2").send().await.unwrap().unwrap().email,
        "ada@example.com"
    );
    // Removing an optional unique value deletes its guard; setting it writes one.
    db.update::<User>("u1")
        .remove(User::HANDLE)
        .send()
        .await
        .unwrap();
    assert_eq!(check_guards::<User>(&db).await, 2);
    db.update::<User>("u2")
        .set(User::HANDLE, "ada")
        .send()
        .await
        .unwrap();
    assert_eq!(check_guards::<User>(&db).await, 3);
    // An update of a missing item is NotFound, and writes no guard.
    let error = db
        .update::<User>("nobody")
        .set(User::EMAIL, "ghost@example.com")
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::NotFound, "{error}");
    // The caller's condition still decides.
    let error = db
        .update::<User>("u1")
        .set(User::EMAIL, "other@example.com")
        .condition(User::NAME.eq("nobody"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::ConditionFailed, "{error}");
    // An upsert creates the item with its guard.
    db.update::<User>("u9")
        .set(User::EMAIL, "new@example.com")
        .set(User::TEAM, "t9")
        .set(User::NAME, "new")
        .upsert()
        .send()
        .await
        .unwrap();
    assert_eq!(check_guards::<User>(&db).await, 4);
    // An action other than set or remove on a unique attribute is refused before sending.
    let error = db
        .update::<User>("u1")
        .set_if_not_exists(User::EMAIL, "x@example.com")
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation);
    assert_eq!(error.attribute(), Some("email"));
}

#[tokio::test]
async fn puts_and_deletes_keep_the_guards() {
    let db = common::db_with::<User>("unique_put").await;
    let requests = common::Requests::new();
    let counted = requests.client(&db);
    // A put of a new item: the first attempt finds no item, then one transaction.
    counted
        .put(&user("u1", "t1", "ada@example.com", None))
        .send()
        .await
        .unwrap();
    requests.assert_counts([("PutItem", 1), ("TransactWriteItems", 1)]);
    // A put that keeps the values: one PutItem.
    let mut ada = user("u1", "t1", "ada@example.com", None);
    ada.name = "Ada".into();
    counted.put(&ada).send().await.unwrap();
    requests.assert_counts([("PutItem", 1)]);
    // A put that changes them moves the guards, and returns the replaced item.
    ada.email = "ada@lovelace.org".into();
    ada.handle = Some("ada".into());
    let old = db.put(&ada).send_returning_old().await.unwrap().unwrap();
    assert_eq!(old.email, "ada@example.com");
    assert_eq!(check_guards::<User>(&db).await, 2);
    let error = db
        .put(&user("u2", "t1", "ada@lovelace.org", None))
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::UniqueConflict);
    assert!(db.get::<User>("u2").send().await.unwrap().is_none());

    // A delete reads the item, then deletes it with its guards.
    counted.delete::<User>("u1").send().await.unwrap();
    requests.assert_counts([("GetItem", 1), ("TransactWriteItems", 1)]);
    assert_eq!(check_guards::<User>(&db).await, 0);
    // The values are free again; deleting a missing item is fine, or NotFound when required.
    db.create(&user("u2", "t1", "ada@lovelace.org", Some("ada")))
        .send()
        .await
        .unwrap();
    db.delete::<User>("u1").send().await.unwrap();
    let error = db
        .delete::<User>("u1")
        .require_exists(true)
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::NotFound, "{error}");
    // Raw keys take the same path.
    let key = Item::from([("id".to_owned(), AttributeValue::S("u2".into()))]);
    dynorm::item::UpdateItem::<User>::raw(&db, key.clone())
        .set(User::EMAIL, "two@example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(check_guards::<User>(&db).await, 2);
    dynorm::item::DeleteItem::<User>::raw(&db, key)
        .send()
        .await
        .unwrap();
    assert_eq!(check_guards::<User>(&db).await, 0);
}

#[tokio::test]
async fn transactions_and_inserts_keep_the_guards() {
    let db = common::db_with::<User>("unique_transactions").await;
    db.create(&user("u1", "t1", "ada@example.com", None))
        .send()
        .await
        .unwrap();
    db.transact_write()
        .write(db.create(&user("u2", "t1", "bob@example.com", Some("bob"))))
        .write(db.update::<User>("u1").set(User::EMAIL, "ada@lovelace.org"))
        .send()
        .await
        .unwrap();
    assert_eq!(check_guards::<User>(&db).await, 3);
    // A taken value cancels the whole transaction with the typed conflict.
    let error = db
        .transact_write()
        .write(db.create(&user("u3", "t1", "eve@example.com", None)))
        .write(db.update::<User>("u2").set(User::EMAIL, "ada@lovelace.org"))
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::UniqueConflict, "{error}");
    assert!(db.get::<User>("u3").send().await.unwrap().is_none());
    // Two operations claiming one value are refused before sending.
    let error = db
        .transact_write()
        .write(db.create(&user("u4", "t1", "same@example.com", None)))
        .write(db.create(&user("u5", "t1", "same@example.com", None)))
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
    // A delete in a transaction frees its values, for another operation of it to take.
    db.transact_write()
        .write(db.delete::<User>("u1"))
        .write(db.create(&user("u6", "t1", "ada@lovelace.org", None)))
        .send()
        .await
        .unwrap();
    assert_eq!(check_guards::<User>(&db).await, 3);
    // insert_many keeps each row's guards, in transactions of up to 100 items.
    let rows: Vec<NewUser> = (0..60)
        .map(|i| NewUser {
            id: format!("n{i}"),
            team: "t2".into(),
            email: format!("n{i}@example.com"),
            handle: Some(format!("n{i}")),
            name: "n".into(),
        })
        .collect();
    db.insert_many(rows).send().await.unwrap();
    assert_eq!(check_guards::<User>(&db).await, 3 + 120);
}

#[tokio::test]
async fn lookups_read_the_guard_then_the_item() {
    let db = common::db_with::<User>("unique_lookup").await;
    db.create(&user("u1", "t1", "ada@example.com", Some("ada")))
        .send()
        .await
        .unwrap();
    let requests = common::Requests::new();
    let counted = requests.client(&db);
    let found = counted
        .get_unique::<User>()
        .value(User::EMAIL, "ada@example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(found.map(|u| u.id), Some("u1".to_owned()));
    requests.assert_counts([("GetItem", 2)]);
    let key = counted
        .get_unique::<User>()
        .value(User::TEAM, "t1")
        .value(User::HANDLE, "ada")
        .send_key()
        .await
        .unwrap();
    assert_eq!(key, Some(UserKey { id: "u1".into() }));
    requests.assert_counts([("GetItem", 1)]);
    let none = db
        .get_unique::<User>()
        .value(User::EMAIL, "nobody@example.com")
        .send()
        .await
        .unwrap();
    assert!(none.is_none());
    // The values must name one declared constraint, scope included.
    let error = db
        .get_unique::<User>()
        .value(User::HANDLE, "ada")
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation);
    assert!(error.message().contains("[team, handle]"), "{error}");
    // A path inside an attribute is refused before sending, naming it: a constraint holds
    // whole attributes.
    let error = counted
        .get_unique::<User>()
        .value(User::EMAIL.field::<String>("domain"), "example.com")
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation);
    assert!(error.to_string().contains("email.domain"), "{error}");
    requests.assert_counts(std::iter::empty());
}

#[tokio::test]
async fn reads_never_see_guards() {
    let db = common::db_with::<User>("unique_reads").await;
    for i in 0..5 {
        db.create(&user(
            &format!("u{i}"),
            "t1",
            &format!("{i}@x.org"),
            Some(&format!("h{i}")),
        ))
        .send()
        .await
        .unwrap();
    }
    let scanned: Vec<User> = db.scan::<User>().all().await.unwrap();
    assert_eq!(scanned.len(), 5);
    assert_eq!(db.scan::<User>().count().await.unwrap(), 5);

    // A single-table entity with a range key and a tuple constraint scoped by its org.
    let db = common::db_with::<Account>("unique_entity").await;
    let account = |id: &str, first: &str, last: &str| Account {
        org: "o1".into(),
        id: id.into(),
        first: first.into(),
        last: last.into(),
    };
    db.create(&account("a1", "Ada", "Lovelace"))
        .send()
        .await
        .unwrap();
    db.create(&account("a2", "Ada", "Byron"))
        .send()
        .await
        .unwrap();
    let error = db
        .create(&account("a3", "Ada", "Lovelace"))
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::UniqueConflict);
    assert_eq!(error.attribute(), Some("first"));
    assert_eq!(check_guards::<Account>(&db).await, 2);
    let guards = scan_all(&db, &db.tables().name::<Account>()).await;
    assert!(guards
        .iter()
        .filter(|i| i.contains_key("__dynorm_unique__"))
        .all(|g| g.get("__entity") == Some(&AttributeValue::S("dynorm.unique".into()))));
    let scanned: Vec<Account> = db.scan::<Account>().all().await.unwrap();
    assert_eq!(scanned.len(), 2);
    let found = db
        .get_unique::<Account>()
        .value(Account::ORG, "o1")
        .value(Account::FIRST, "Ada")
        .value(Account::LAST, "Byron")
        .send()
        .await
        .unwrap();
    assert_eq!(found.map(|a| a.id), Some("a2".to_owned()));
}

#[tokio::test]
async fn racing_writers_get_one_winner_and_no_orphan() {
    let db = common::db_with::<User>("unique_race").await;
    // 16 tasks create users with the same email: one wins.
    let tasks: Vec<_> = (0..16)
        .map(|i| {
            let db = db.clone();
            tokio::spawn(async move {
                db.create(&user(&format!("c{i}"), "t1", "race@example.com", None))
                    .send()
                    .await
            })
        })
        .collect();
    let mut wins = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(()) => wins += 1,
            Err(e) => assert!(
                e.kind() == dynorm::ErrorKind::UniqueConflict,
                "a loser gets the conflict: {e}"
            ),
        }
    }
    assert_eq!(wins, 1);
    check_guards::<User>(&db).await;

    // 16 users, each renamed to the same email at once: one wins.
    for i in 0..16 {
        db.create(&user(
            &format!("r{i}"),
            "t2",
            &format!("r{i}@example.com"),
            None,
        ))
        .send()
        .await
        .unwrap();
    }
    let db = Arc::new(db);
    let tasks: Vec<_> = (0..16)
        .map(|i| {
            let db = db.clone();
            tokio::spawn(async move {
                db.update::<User>(format!("r{i}"))
                    .set(User::EMAIL, "taken@example.com")
                    .send()
                    .await
            })
        })
        .collect();
    let mut wins = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(()) => wins += 1,
            Err(e) => assert!(
                e.kind() == dynorm::ErrorKind::UniqueConflict,
                "a loser gets the conflict: {e}"
            ),
        }
    }
    assert_eq!(wins, 1);
    check_guards::<User>(&db).await;
}

/// A user whose table has a stream, with both images, and one with keys only.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(
    table = "UniqueStreamed",
    stream = "new_and_old_images",
    unique_name = "Streamed"
)]
struct Streamed {
    #[hash_key]
    id: String,
    #[unique]
    email: String,
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(
    table = "UniqueKeysOnly",
    stream = "keys_only",
    unique_name = "KeysOnly"
)]
struct KeysOnly {
    #[hash_key]
    id: String,
    #[unique]
    email: String,
}

#[tokio::test]
async fn change_streams_skip_the_guards() {
    use dynorm_streams::ChangeKind;
    use futures::StreamExt;
    use std::time::Duration;

    let db = common::db_with::<Streamed>("unique_stream").await;
    let streamed = |id: &str, email: &str| Streamed {
        id: id.into(),
        email: email.into(),
    };
    db.create(&streamed("s1", "a@x")).send().await.unwrap();
    db.update::<Streamed>("s1")
        .set(Streamed::EMAIL, "b@x")
        .send()
        .await
        .unwrap();
    db.delete::<Streamed>("s1").send().await.unwrap();
    let changes = dynorm_streams::changes::<Streamed>(&db).poll_interval(Duration::from_millis(50));
    let changes: Vec<_> = changes
        .stop_when_idle(Duration::from_millis(700))
        .stream()
        .collect()
        .await;
    let changes: Vec<_> = changes.into_iter().map(Result::unwrap).collect();
    // The item's three changes, and none of the four guard writes.
    assert_eq!(changes.len(), 3, "{changes:?}");
    assert!(matches!(&changes[0].kind, ChangeKind::Insert { new } if new.email == "a@x"));
    assert!(matches!(&changes[1].kind, ChangeKind::Modify { new, .. } if new.email == "b@x"));
    assert!(matches!(&changes[2].kind, ChangeKind::Remove { .. }));

    // Without images, a guard is known by its key.
    let db = common::db_with::<KeysOnly>("unique_keys_stream").await;
    db.create(&KeysOnly {
        id: "k1".into(),
        email: "a@x".into(),
    })
    .send()
    .await
    .unwrap();
    let changes: Vec<_> = dynorm_streams::changes::<KeysOnly>(&db)
        .poll_interval(Duration::from_millis(50))
        .stop_when_idle(Duration::from_millis(700))
        .stream()
        .collect()
        .await;
    let keys: Vec<_> = changes.into_iter().map(|c| c.unwrap().key).collect();
    assert_eq!(keys, vec![KeysOnlyKey { id: "k1".into() }]);
}

#[tokio::test]
async fn previews_show_what_is_sent_and_send_nothing() {
    let db = common::db_with::<User>("unique_previews").await;
    let requests = common::Requests::new();
    let counted = requests.client(&db);
    // get_unique: the guard's GetItem, whose key the guard layout gives.
    let lookup = counted
        .get_unique::<User>()
        .value(User::EMAIL, "ada@example.com")
        .consistent_read(true)
        .preview()
        .unwrap();
    assert_eq!(
        lookup.table_name(),
        Some(db.tables().name::<User>().as_str())
    );
    assert_eq!(
        lookup.key().unwrap()["id"],
        AttributeValue::S("$unique#User#email#ada@example.com".into())
    );
    assert_eq!(lookup.consistent_read(), Some(true));
    let wrong = counted
        .get_unique::<User>()
        .value(User::NAME, "ada")
        .preview()
        .unwrap_err();
    assert_eq!(wrong.kind(), ErrorKind::Validation, "{wrong}");
    // insert: the item's own PutItem, on condition that the key is new.
    let row = |i: usize| NewUser {
        id: format!("n{i}"),
        team: "t1".into(),
        email: format!("n{i}@example.com"),
        handle: None,
        name: "n".into(),
    };
    let insert = counted.insert(row(0)).preview().unwrap();
    assert_eq!(
        insert.item().unwrap()["email"],
        AttributeValue::S("n0@example.com".into())
    );
    assert!(insert
        .condition_expression()
        .unwrap()
        .contains("attribute_not_exists"));
    // insert_many: one transaction per chunk of rows that, with their guards, fit in 100
    // items; each shows its rows' own puts (the guards join them when they are sent).
    let rows: Vec<NewUser> = (0..60).map(row).collect();
    let many = counted.insert_many(rows).preview().unwrap();
    assert_eq!(many.len(), 2, "60 rows and 60 guards: two transactions");
    let items: usize = many.iter().map(|t| t.transact_items().len()).sum();
    assert_eq!(items, 60);
    assert_eq!(requests.total(), 0, "{:?}", requests.counts());
}

/// A member of an org, keyed by org and email: the email is one part of the key, unique
/// in the whole table (table-wide), and the badge unique within the org.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "UniqueMembers", unique_name = "Member")]
struct Member {
    #[hash_key]
    org: String,
    #[range_key]
    #[unique]
    email: String,
    #[unique(scope = org)]
    badge: String,
}

#[tokio::test]
async fn one_part_of_a_composite_key_can_be_unique_table_wide() {
    let db = common::db_with::<Member>("unique_key_part").await;
    let member = |org: &str, email: &str, badge: &str| Member {
        org: org.into(),
        email: email.into(),
        badge: badge.into(),
    };
    db.create(&member("acme", "ada@example.com", "b1"))
        .send()
        .await
        .unwrap();
    // The same email in another org's partition is refused: the key alone would allow it.
    let error = db
        .create(&member("blue", "ada@example.com", "b1"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::UniqueConflict, "{error}");
    let error = db
        .transact_write()
        .write(db.put(&member("blue", "ada@example.com", "b2")))
        .send()
        .await
        .unwrap_err();
    assert!(
        matches!(
            error.kind(),
            ErrorKind::UniqueConflict | ErrorKind::TransactionCanceled
        ),
        "{error}"
    );
    // The badge is unique within an org: another org may hold it, the same org may not.
    db.create(&member("blue", "bo@example.com", "b1"))
        .send()
        .await
        .unwrap();
    let error = db
        .create(&member("acme", "cy@example.com", "b1"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::UniqueConflict, "{error}");
    // A put of the same key keeps its own guard; the holder is found by value.
    db.put(&member("acme", "ada@example.com", "b1"))
        .send()
        .await
        .unwrap();
    let found = db
        .get_unique::<Member>()
        .value(Member::EMAIL, "ada@example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(found.map(|m| m.org), Some("acme".to_owned()));
    // Deleting the holder frees the value for the other partition.
    db.delete::<Member>(MemberKey {
        org: "acme".into(),
        email: "ada@example.com".into(),
    })
    .send()
    .await
    .unwrap();
    db.create(&member("blue", "ada@example.com", "b2"))
        .send()
        .await
        .unwrap();
    check_guards::<Member>(&db).await;
}

//! Guard items live in a namespace no key of a model can reach: every read and write path
//! refuses a hash key beginning with `$unique#` before sending, with a `Validation` error
//! naming the model, the operation and the key attribute, for models with unique
//! attributes and for models without them that share their table. And guard keys are made
//! of a stable name, so a renamed struct keeps its guards.

mod common;

use std::fmt::Debug;

use common::guards::{check_guards, scan_all};
use common::Requests;
use dynorm::types::AttributeValue;
use dynorm::{Client, Collection, Error, ErrorKind, Item, Model};

/// A user with a unique email.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "GuardKeyUsers", unique_name = "User")]
struct User {
    #[hash_key]
    id: String,
    #[unique]
    email: String,
    name: String,
}

/// A model without unique attributes in the users' table: its keys could address their
/// guards as well.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "GuardKeyUsers")]
struct Note {
    #[hash_key]
    id: String,
    text: String,
}

/// The user struct renamed: with the same `unique_name`, it keeps the users' guards.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "GuardKeyUsers", unique_name = "User")]
struct Person {
    #[hash_key]
    id: String,
    #[unique]
    email: String,
    name: String,
}

/// A comment whose author (one, by table key) and notes (many, by a query on the table)
/// are loaded by the comment's `author`.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "GuardKeyComments")]
#[relation(name = "author", one = User, fields = [author], references = [id])]
#[relation(name = "notes", many = Note, fields = [author], references = [id])]
struct Comment {
    #[hash_key]
    id: String,
    author: String,
}

/// Single-table entities whose partition is the organisation's name as given.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "GuardKeyApp", entity = "org")]
#[key(pk = "{org}", sk = "#ORG")]
struct Org {
    org: String,
    name: String,
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "GuardKeyApp", entity = "account")]
#[key(pk = "{org}", sk = "ACCOUNT#{id}")]
struct Account {
    org: String,
    id: String,
    #[unique(scope = org)]
    email: String,
}

dynorm::shared_table!(struct GuardKeyApp { Org, Account });

/// An organisation's partition.
#[derive(Collection, Debug)]
#[allow(dead_code)]
enum OrgItems {
    Org(Org),
    Account(Account),
}

const ADA: &str = "ada@example.org";
/// The guard of ada's email, which user u1 holds.
const HELD: &str = "$unique#User#email#ada@example.org";
/// The guard key of an email nobody holds.
const FREE: &str = "$unique#User#email#nobody@example.org";

fn user(id: &str, email: &str) -> User {
    User {
        id: id.into(),
        email: email.into(),
        name: format!("user {id}"),
    }
}

fn raw_key(attribute: &str, value: &str) -> Item {
    Item::from([(attribute.to_owned(), AttributeValue::S(value.into()))])
}

/// The error of a refused key: `Validation`, naming the model, the operation and the key
/// attribute, and saying why.
#[track_caller]
fn assert_refused<T: Debug>(
    result: Result<T, Error>,
    model: &str,
    operation: &str,
    attribute: &str,
) {
    let error = result.expect_err("a key that addresses a guard is refused");
    assert_eq!(error.kind(), ErrorKind::Validation, "{error}");
    assert_eq!(error.model(), Some(model), "{error}");
    assert_eq!(error.operation(), Some(operation), "{error}");
    assert_eq!(error.attribute(), Some(attribute), "{error}");
    assert!(error.to_string().contains("`$unique#`"), "{error}");
}

/// Every item of the table, raw and sorted, to show that nothing changed.
async fn snapshot(db: &Client, table: &str) -> Vec<String> {
    let mut items: Vec<String> = scan_all(db, table)
        .await
        .into_iter()
        .map(|item| {
            let mut pairs: Vec<String> = item.iter().map(|(k, v)| format!("{k}={v:?}")).collect();
            pairs.sort();
            pairs.join(",")
        })
        .collect();
    items.sort();
    items
}

/// The users' table with ada (u1) and her guard.
async fn users(label: &str) -> Client {
    let db = common::db_with::<User>(label).await;
    db.create(&user("u1", ADA)).send().await.unwrap();
    assert_eq!(check_guards::<User>(&db).await, 1);
    db
}

#[tokio::test]
async fn guard_keys_are_made_of_the_stable_name() {
    let schema = &User::SCHEMA;
    let key = schema.uniques[0]
        .guard_key(schema, &[&AttributeValue::S(ADA.into())])
        .unwrap();
    assert_eq!(key.get("id"), Some(&AttributeValue::S(HELD.into())));
}

#[tokio::test]
async fn reads_by_a_guard_key_are_refused_before_sending() {
    let db = users("guard_key_reads").await;
    let table = db.tables().name::<User>();
    let before = snapshot(&db, &table).await;
    let requests = Requests::new();
    let counted = requests.client(&db);
    for key in [HELD, FREE] {
        assert_refused(counted.get::<User>(key).send().await, "User", "get", "id");
        assert_refused(counted.get::<Note>(key).send().await, "Note", "get", "id");
        assert_refused(
            dynorm::item::GetItem::<User>::raw(&counted, raw_key("id", key))
                .send()
                .await,
            "User",
            "get",
            "id",
        );
        assert_refused(
            counted.get_many::<User, _>(["u1", key]).send().await,
            "User",
            "batch_get",
            "id",
        );
        assert_refused(
            counted.batch_get().get::<Note>(key).send().await,
            "Note",
            "batch_get",
            "id",
        );
        assert_refused(
            counted.transact_get().get::<User>(key).send().await,
            "User",
            "transact_get",
            "id",
        );
        assert_refused(
            counted
                .query::<User>()
                .matching(User::ID.eq(key))
                .all()
                .await,
            "User",
            "query",
            "id",
        );
        assert_refused(
            counted.query_by::<Note>(key).all().await,
            "Note",
            "query",
            "id",
        );
        assert_refused(
            counted
                .query::<Note>()
                .matching(Note::ID.eq(key))
                .page(None)
                .await,
            "Note",
            "query",
            "id",
        );
    }
    assert_eq!(requests.total(), 0, "{:?}", requests.counts());

    // Scans never return a guard; the guard is intact and still names ada.
    let scanned: Vec<User> = db.scan::<User>().consistent_read(true).all().await.unwrap();
    assert_eq!(scanned, [user("u1", ADA)]);
    let holder = db.get_unique::<User>().value(User::EMAIL, ADA).send().await;
    assert_eq!(holder.unwrap(), Some(user("u1", ADA)));
    assert_eq!(snapshot(&db, &table).await, before);
}

#[tokio::test]
async fn writes_by_a_guard_key_are_refused_and_write_nothing() {
    let db = users("guard_key_writes").await;
    let table = db.tables().name::<User>();
    let before = snapshot(&db, &table).await;
    let requests = Requests::new();
    let db = requests.client(&db);
    for key in [HELD, FREE] {
        // A user whose key is a guard's, holding a free email or ada's.
        let hostile = user(key, "eve@example.org");
        let note = Note {
            id: key.into(),
            text: "hostile".into(),
        };
        let new_user = || NewUser {
            id: key.into(),
            email: "eve@example.org".into(),
            name: "eve".into(),
        };
        let rows = vec![
            NewUser {
                id: "u9".into(),
                email: "u9@example.org".into(),
                name: "u9".into(),
            },
            new_user(),
        ];
        let raw = || raw_key("id", key);
        let update = db.update::<User>(key).set(User::NAME, "x");
        let upsert = db.update::<User>(key).set(User::EMAIL, "e@x").upsert();
        let upsert_note = db.update::<Note>(key).set(Note::TEXT, "x").upsert();
        let update_raw = dynorm::item::UpdateItem::<User>::raw(&db, raw()).set(User::NAME, "x");
        let results = [
            ("User", "create", db.create(&hostile).send().await),
            ("User", "put", db.put(&hostile).send().await),
            ("User", "put", db.put(&user(key, ADA)).send().await),
            ("Note", "put", db.put(&note).send().await),
            ("Note", "create", db.create(&note).send().await),
            ("User", "insert", db.insert(new_user()).send().await),
            (
                "User",
                "insert",
                db.insert_many(rows).send().await.map(drop),
            ),
            ("User", "update", update.send().await),
            ("User", "update", upsert.send().await),
            ("Note", "update", upsert_note.send().await),
            ("User", "update", update_raw.send().await),
            ("User", "delete", db.delete::<User>(key).send().await),
            ("Note", "delete", db.delete::<Note>(key).send().await),
            (
                "User",
                "delete",
                dynorm::item::DeleteItem::<User>::raw(&db, raw())
                    .send()
                    .await,
            ),
            (
                "Note",
                "delete",
                dynorm::item::DeleteItem::<Note>::raw(&db, raw())
                    .send()
                    .await,
            ),
        ];
        for (model, operation, result) in results {
            assert_refused(result, model, operation, "id");
        }
        let batches = [
            db.batch_write().put(&note).send().await,
            db.batch_write().delete::<Note>(key).send().await,
        ];
        for result in batches {
            assert_refused(result, "Note", "batch_write", "id");
        }

        // Every operation of a transaction, beside a write that is fine: the error says
        // which operation.
        let fine = || db.update::<User>("u1").set(User::NAME, "still ada");
        let transactions = [
            (
                db.transact_write().write(fine()).write(db.create(&hostile)),
                "User",
            ),
            (
                db.transact_write().write(fine()).write(db.put(&note)),
                "Note",
            ),
            (
                db.transact_write()
                    .write(fine())
                    .write(db.update::<Note>(key).set(Note::TEXT, "x")),
                "Note",
            ),
            (
                db.transact_write()
                    .write(fine())
                    .write(db.delete::<User>(key)),
                "User",
            ),
            (
                db.transact_write()
                    .write(fine())
                    .check::<User>(key, User::NAME.eq("x")),
                "User",
            ),
        ];
        for (transaction, model) in transactions {
            let result = transaction.send().await;
            assert!(
                matches!(&result, Err(e) if e.message().starts_with("operation 1: ")),
                "{result:?}"
            );
            assert_refused(result, model, "transact_write", "id");
        }
    }
    assert_eq!(requests.total(), 0, "{:?}", requests.counts());
    assert_eq!(snapshot(&db, &table).await, before);
    assert_eq!(check_guards::<User>(&db).await, 1);
}

#[tokio::test]
async fn relation_loads_by_a_guard_key_are_refused() {
    let db = users("guard_key_relations").await;
    db.tables().ensure::<Comment>().send().await.unwrap();
    // The comment's author is text another service could have written: a guard's key.
    db.put(&Comment {
        id: "c1".into(),
        author: HELD.into(),
    })
    .send()
    .await
    .unwrap();
    let requests = Requests::new();
    let counted = requests.client(&db);
    let comment = || counted.find::<Comment>().matching(Comment::ID.eq("c1"));
    // The error names the comment's field that holds the key.
    for result in [
        comment().with(Comment::author()).all().await.map(drop),
        comment().with(Comment::notes()).all().await.map(drop),
    ] {
        assert_refused(result, "Comment", "find", "author");
    }
    // Only the comments' Queries were sent: neither the user nor the notes were read.
    requests.assert_counts([("Query", 2)]);
}

#[tokio::test]
async fn single_table_keys_and_collections_are_refused() {
    let db = common::db("guard_key_single_table").await;
    db.tables()
        .create_shared::<GuardKeyApp>()
        .send()
        .await
        .unwrap();
    let account = Account {
        org: "o1".into(),
        id: "a1".into(),
        email: ADA.into(),
    };
    db.create(&account).send().await.unwrap();
    assert_eq!(check_guards::<Account>(&db).await, 1);
    let table = db.tables().name::<Account>();
    let guard = scan_all(&db, &table)
        .await
        .into_iter()
        .find(|item| item.contains_key("__dynorm_unique__"))
        .expect("the guard");
    let AttributeValue::S(held) = &guard["pk"] else {
        panic!("a guard's key is text: {guard:?}");
    };
    assert_eq!(held, "$unique#account#email#o1#ada@example.org");
    let before = snapshot(&db, &table).await;

    let requests = Requests::new();
    let counted = requests.client(&db);
    let org = Org {
        org: held.clone(),
        name: "hostile".into(),
    };
    assert_refused(counted.create(&org).send().await, "Org", "create", "pk");
    assert_refused(counted.put(&org).send().await, "Org", "put", "pk");
    assert_refused(
        counted.get::<Org>(held.as_str()).send().await,
        "Org",
        "get",
        "pk",
    );
    let key = AccountKey {
        org: held.clone(),
        id: "a1".into(),
    };
    assert_refused(
        counted.delete::<Account>(key).send().await,
        "Account",
        "delete",
        "pk",
    );
    assert_refused(
        counted.collection::<OrgItems>(held.as_str()).all().await,
        "Org",
        "collection",
        "pk",
    );
    assert_refused(
        counted.query_by::<Org>(held.as_str()).all().await,
        "Org",
        "query",
        "pk",
    );
    assert_eq!(requests.total(), 0, "{:?}", requests.counts());
    assert_eq!(snapshot(&db, &table).await, before);
}

#[tokio::test]
async fn a_renamed_struct_keeps_its_guards() {
    let db = users("guard_key_renamed").await;
    // The same model under another Rust name, with the same unique name: ada's email is
    // still taken, and the guard it finds is the one `User` wrote.
    let error = db
        .create(&Person {
            id: "p1".into(),
            email: ADA.into(),
            name: "not ada".into(),
        })
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::UniqueConflict, "{error}");
    assert_eq!(error.attribute(), Some("email"));
    let holder = db
        .get_unique::<Person>()
        .value(Person::EMAIL, ADA)
        .send_key()
        .await
        .unwrap();
    assert_eq!(holder.map(|k| k.id), Some("u1".to_owned()));
    assert_eq!(check_guards::<User>(&db).await, 1);
}

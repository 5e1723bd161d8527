//! Typed updates, write conditions, `#[combine]`, `#[version]` and `#[ttl]` against a real
//! server.

mod common;

use std::collections::{BTreeSet, HashSet};

use chrono::{Duration, Utc};
use dynorm::expr::AttributeType;
use dynorm::types::AttributeValue;
use dynorm::{ErrorKind, Model, Request};
use serde::{Deserialize, Serialize};

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(rename_all = "camelCase")]
struct Profile {
    #[hash_key]
    id: String,
    name: String,
    visits: u32,
    balance: f64,
    nickname: Option<String>,
    history: Vec<String>,
    tags: HashSet<String>,
    lucky: BTreeSet<i64>,
}

fn profile(id: &str) -> Profile {
    Profile {
        id: id.into(),
        name: "Ada".into(),
        visits: 1,
        balance: 10.0,
        nickname: Some("countess".into()),
        history: vec!["joined".into()],
        tags: HashSet::from(["math".to_owned()]),
        lucky: BTreeSet::from([7]),
    }
}

#[tokio::test]
async fn every_update_action() {
    let db = common::db_with::<Profile>("upd_actions").await;
    db.create(&profile("p1")).send().await.unwrap();
    let updated = db
        .update::<Profile>("p1")
        .set(Profile::NAME, "Ada Lovelace")
        .increment(Profile::VISITS, 2)
        .decrement(Profile::BALANCE, 2.5)
        .remove(Profile::NICKNAME)
        .append(Profile::HISTORY, vec!["wrote".to_owned()])
        .add_to_set(Profile::TAGS, HashSet::from(["poetry".to_owned()]))
        .delete_from_set(Profile::LUCKY, BTreeSet::from([7]))
        .send_returning_new()
        .await
        .unwrap();
    assert_eq!(updated.name, "Ada Lovelace");
    assert_eq!(updated.visits, 3);
    assert_eq!(updated.balance, 7.5);
    assert_eq!(updated.nickname, None);
    assert_eq!(updated.history, ["joined", "wrote"]);
    assert_eq!(
        updated.tags,
        HashSet::from(["math".to_owned(), "poetry".to_owned()])
    );
    assert!(updated.lucky.is_empty());

    let old = db
        .update::<Profile>("p1")
        .prepend(Profile::HISTORY, vec!["born".to_owned()])
        .increment(Profile::VISITS, 10)
        .set_if_not_exists(Profile::NICKNAME, "enchantress")
        .set_if_not_exists(Profile::NAME, "ignored")
        .send_returning_old()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(old.visits, 3);
    let now = db
        .get::<Profile>("p1")
        .send()
        .await
        .unwrap()
        .expect("the item exists");
    assert_eq!(now.history, ["born", "joined", "wrote"]);
    assert_eq!(now.visits, 13);
    assert_eq!(now.nickname.as_deref(), Some("enchantress"));
    assert_eq!(now.name, "Ada Lovelace");

    let new_values = db
        .update::<Profile>("p1")
        .increment(Profile::VISITS, 1)
        .send_returning_updated_new()
        .await
        .unwrap();
    assert_eq!(new_values["visits"], AttributeValue::N("14".into()));
    assert_eq!(new_values.len(), 1);
    let old_values = db
        .update::<Profile>("p1")
        .set(Profile::BALANCE, 1.0)
        .send_returning_updated_old()
        .await
        .unwrap();
    assert_eq!(old_values["balance"], AttributeValue::N("7.5".into()));
    db.update::<Profile>("p1")
        .set(Profile::NAME, "A. L.")
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn an_update_of_a_missing_item_fails_unless_it_is_an_upsert() {
    let db = common::db_with::<Profile>("upd_missing").await;
    let error = db
        .update::<Profile>("ghost")
        .set(Profile::NAME, "x")
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::NotFound);
    assert_eq!(
        db.get::<Profile>("ghost").send().await.unwrap(),
        None,
        "no half item was created"
    );

    db.update::<Profile>("ghost")
        .set(Profile::NAME, "Casper")
        .set(Profile::VISITS, 0u32)
        .set(Profile::BALANCE, 0.0)
        .set(Profile::HISTORY, Vec::new())
        .upsert()
        .send()
        .await
        .unwrap();
    let created = db
        .get::<Profile>("ghost")
        .send()
        .await
        .unwrap()
        .expect("the item exists");
    assert_eq!(created.name, "Casper");
    assert!(created.tags.is_empty());
}

#[tokio::test]
async fn an_upsert_that_would_create_an_unreadable_item_is_refused_before_sending() {
    let db = common::db_with::<Profile>("upd_upsert_required").await;
    // `visits`, `balance` and `history` are required, and nothing sets them.
    let error = db
        .update::<Profile>("ghost")
        .set(Profile::NAME, "Casper")
        .upsert()
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation, "{error}");
    assert_eq!(error.model(), Some("Profile"));
    assert_eq!(error.operation(), Some("update"));
    assert!(error.attribute().is_some(), "{error}");
    assert!(error.to_string().contains("upsert"), "{error}");
    // A decrement of an absent unsigned number would store a negative one.
    let error = db
        .update::<Profile>("ghost")
        .set(Profile::NAME, "Casper")
        .decrement(Profile::VISITS, 1)
        .set(Profile::BALANCE, 0.0)
        .set(Profile::HISTORY, Vec::new())
        .upsert()
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation, "{error}");
    assert_eq!(error.attribute(), Some("visits"), "{error}");
    assert_eq!(db.get::<Profile>("ghost").send().await.unwrap(), None);
    // The same partial update without `upsert` only ever changes an existing item.
    let missing = db
        .update::<Profile>("ghost")
        .set(Profile::NAME, "Casper")
        .send()
        .await
        .unwrap_err();
    assert_eq!(missing.kind(), ErrorKind::NotFound);
}

#[tokio::test]
async fn an_update_cannot_touch_a_key_or_repeat_an_attribute() {
    let db = common::db("upd_refusals").await; // no table: the errors come before sending
    let error = db
        .update::<Profile>("p1")
        .set(Profile::ID, "p2")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        (error.kind(), error.attribute()),
        (ErrorKind::Validation, Some("id"))
    );
    assert!(error.to_string().contains("key attribute"), "{error}");
    let error = db
        .update::<Profile>("p1")
        .set(Profile::NAME, "a")
        .set(Profile::NAME, "b")
        .send()
        .await
        .unwrap_err();
    assert!(error.to_string().contains("twice"), "{error}");
    let error = db.update::<Profile>("p1").send().await.unwrap_err();
    assert!(error.to_string().contains("at least one action"), "{error}");
}

#[tokio::test]
async fn write_conditions_use_every_operator() {
    let db = common::db_with::<Profile>("cond_ops").await;
    db.put(&profile("p1")).send().await.unwrap();
    let holds = [
        Profile::NAME.eq("Ada"),
        Profile::NAME.ne("Bob"),
        Profile::VISITS.lt(2u32),
        Profile::VISITS.le(1u32),
        Profile::BALANCE.gt(9.5),
        Profile::BALANCE.ge(10.0),
        Profile::BALANCE.between(5.0, 15.0),
        Profile::NAME.is_in(["Ada", "Grace"]),
        Profile::NAME.begins_with("Ad"),
        Profile::NAME.contains("d"),
        Profile::HISTORY.has("joined"),
        Profile::TAGS.has("math"),
        Profile::NICKNAME.exists(),
        Profile::NICKNAME.is_type(AttributeType::S),
        Profile::HISTORY.size().eq(1),
        Profile::NAME.eq("Ada") & Profile::VISITS.eq(1u32),
        Profile::NAME.eq("Bob") | Profile::VISITS.eq(1u32),
        !Profile::NAME.eq("Bob"),
    ];
    for (i, condition) in holds.into_iter().enumerate() {
        db.put(&profile("p1"))
            .condition(condition)
            .send()
            .await
            .unwrap_or_else(|e| panic!("condition {i}: {e}"));
    }
    let fails = [
        Profile::NAME.eq("Bob"),
        Profile::BALANCE.gt(100.0),
        Profile::NICKNAME.not_exists(),
        Profile::TAGS.has("chess"),
        Profile::HISTORY.size().gt(3),
    ];
    for condition in fails {
        let error = db
            .put(&profile("p1"))
            .condition(condition)
            .send()
            .await
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::ConditionFailed);
        assert_eq!(
            error.current_item::<Profile>().unwrap().unwrap(),
            profile("p1")
        );
    }
}

#[tokio::test]
async fn failed_conditions_carry_the_current_item_for_each_write() {
    let db = common::db_with::<Profile>("cond_writes").await;
    db.put(&profile("p1")).send().await.unwrap();
    let error = db
        .update::<Profile>("p1")
        .set(Profile::NAME, "Grace")
        .condition(Profile::VISITS.gt(5u32))
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::ConditionFailed);
    assert_eq!(
        error.current_item::<Profile>().unwrap().unwrap().name,
        "Ada"
    );
    let error = db
        .delete::<Profile>("p1")
        .condition(Profile::NAME.eq("Grace"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::ConditionFailed);
    assert!(error.item().is_some());
    let mut other = profile("p1");
    other.name = "Grace".into();
    let error = db
        .create(&other)
        .overwrite(true)
        .condition(Profile::NAME.eq("Grace"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::ConditionFailed);
    db.create(&other)
        .overwrite(true)
        .condition(Profile::NAME.eq("Ada"))
        .send()
        .await
        .unwrap();
    db.delete::<Profile>("p1")
        .condition(Profile::NAME.eq("Grace"))
        .send()
        .await
        .unwrap();
}

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Status {
    Open,
    Paid,
}

/// A combined range key, and a combined global index key.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(rename_all = "camelCase")]
struct Invoice {
    #[hash_key]
    customer_id: String,
    #[range_key]
    #[combine(fields = [month, status], sep = "#")]
    month_status: String,
    month: String,
    status: Status,
    region: String,
    team: String,
    #[index(name = "byRegionTeam")]
    #[combine(fields = [region, team], sep = "/")]
    region_team: String,
    total: f64,
}

fn invoice() -> Invoice {
    Invoice {
        customer_id: "c1".into(),
        month_status: String::new(),
        month: "2026-11".into(),
        status: Status::Open,
        region: "eu".into(),
        team: "core".into(),
        region_team: String::new(),
        total: 10.0,
    }
}

#[tokio::test]
async fn combined_keys_are_built_on_every_write_and_never_go_stale() {
    let db = common::db_with::<Invoice>("combine").await;
    let open = invoice();
    assert_eq!(open.key().month_status, "2026-11#open");
    let item = open.to_item().unwrap();
    assert_eq!(
        item["monthStatus"],
        AttributeValue::S("2026-11#open".into())
    );
    assert_eq!(item["regionTeam"], AttributeValue::S("eu/core".into()));
    db.create(&open).send().await.unwrap();
    let stored = db
        .get::<Invoice>(open.key())
        .send()
        .await
        .unwrap()
        .expect("the item exists");
    assert_eq!(stored.month_status, "2026-11#open");

    // A source of the range key cannot be updated.
    let error = db
        .update::<Invoice>(open.key())
        .set(Invoice::STATUS, Status::Paid)
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        (error.kind(), error.attribute()),
        (ErrorKind::Validation, Some("status"))
    );
    // A source of an index key: rebuilt when every source is set, refused otherwise.
    let error = db
        .update::<Invoice>(open.key())
        .set(Invoice::REGION, "us")
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.attribute(), Some("team"), "{error}");
    // The combined field itself is read-only: `set(Invoice::REGION_TEAM, ..)` does not
    // compile (ui test `watch_update`).
    let updated = db
        .update::<Invoice>(open.key())
        .set(Invoice::REGION, "us")
        .set(Invoice::TEAM, "growth")
        .send_returning_new()
        .await
        .unwrap();
    assert_eq!(updated.region_team, "us/growth");
    let found = db
        .query_by::<InvoiceByRegionTeam>("us/growth")
        .all()
        .await
        .unwrap();
    assert_eq!(found.len(), 1);

    // A source that contains the separator would make the key ambiguous...
    let mut ambiguous = invoice();
    ambiguous.month = "2026#11".into();
    let error = db.put(&ambiguous).send().await.unwrap_err();
    assert_eq!(
        (error.kind(), error.attribute()),
        (ErrorKind::Validation, Some("month"))
    );
    // ... unless it is the last source.
    let mut last = invoice();
    last.team = "a/b".into();
    db.put(&last).send().await.unwrap();
}

#[derive(Model, Debug, Clone, PartialEq)]
struct Account {
    #[hash_key]
    id: String,
    balance: i64,
    #[version]
    version: u64,
}

#[tokio::test]
async fn versions_are_written_and_checked() {
    let db = common::db_with::<Account>("version").await;
    let account = Account {
        id: "a1".into(),
        balance: 100,
        version: 0,
    };
    db.create(&account).send().await.unwrap();
    let stored = db
        .get::<Account>("a1")
        .send()
        .await
        .unwrap()
        .expect("the item exists");
    assert_eq!(stored.version, 1);

    // A put writes version + 1, on condition that the stored version is the one read.
    let mut next = stored.clone();
    next.balance = 90;
    db.put(&next).send().await.unwrap();
    let error = db.put(&next).send().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::VersionConflict);
    assert!(error.kind() == dynorm::ErrorKind::VersionConflict);
    assert_eq!(error.current_item::<Account>().unwrap().unwrap().version, 2);

    // An update needs the version it read, and increments it.
    let error = db
        .update::<Account>("a1")
        .set(Account::BALANCE, 1i64)
        .send()
        .await
        .unwrap_err();
    assert!(error.to_string().contains("expect_version"), "{error}");
    let error = db
        .update::<Account>("a1")
        .set(Account::BALANCE, 1i64)
        .expect_version(1)
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::VersionConflict);
    let updated = db
        .update::<Account>("a1")
        .increment(Account::BALANCE, 5i64)
        .expect_version(2)
        .send_returning_new()
        .await
        .unwrap();
    assert_eq!((updated.balance, updated.version), (95, 3));
    let counted = db
        .update::<Account>("a1")
        .increment(Account::BALANCE, 1i64)
        .ignore_version()
        .send_returning_new()
        .await
        .unwrap();
    assert_eq!(counted.version, 4);
    let error = db
        .delete::<Account>("a1")
        .expect_version(3)
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::VersionConflict);
    db.delete::<Account>("a1")
        .expect_version(4)
        .send()
        .await
        .unwrap();
    // A batch cannot check versions, so it refuses versioned models.
    let error = db.batch_write().put(&account).send().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation);
}

#[tokio::test]
async fn concurrent_writers_lose_no_update() {
    let db = common::db_with::<Account>("version_race").await;
    db.create(&Account {
        id: "shared".into(),
        balance: 0,
        version: 0,
    })
    .send()
    .await
    .unwrap();
    let writers = 8;
    let increments_each = 10;
    let mut tasks = Vec::new();
    for _ in 0..writers {
        let db = db.clone();
        tasks.push(tokio::spawn(async move {
            let mut conflicts = 0;
            let mut done = 0;
            while done < increments_each {
                let mut account = db
                    .get::<Account>("shared")
                    .consistent_read(true)
                    .send()
                    .await
                    .unwrap()
                    .expect("the item exists");
                account.balance += 1;
                match db.put(&account).send().await {
                    Ok(()) => done += 1,
                    Err(e) if e.kind() == dynorm::ErrorKind::VersionConflict => conflicts += 1,
                    Err(e) => panic!("{e}"),
                }
            }
            conflicts
        }));
    }
    let mut conflicts = 0;
    for task in tasks {
        conflicts += task.await.unwrap();
    }
    let account = db
        .get::<Account>("shared")
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .expect("the item exists");
    assert_eq!(
        account.balance,
        writers * increments_each,
        "{conflicts} conflicts were retried"
    );
    assert_eq!(account.version, 1 + (writers * increments_each) as u64);
}

#[derive(Model, Debug, Clone, PartialEq)]
struct Session {
    #[hash_key]
    id: String,
    user: String,
    #[ttl]
    expires_at: Option<chrono::DateTime<Utc>>,
}

#[tokio::test]
async fn expired_items_read_as_absent_unless_asked_for() {
    let db = common::db_with::<Session>("ttl").await;
    db.tables().enable_ttl::<Session>().send().await.unwrap();
    let now = Utc::now();
    let live = Session {
        id: "live".into(),
        user: "u1".into(),
        expires_at: Some(now + Duration::hours(1)),
    };
    let expired = Session {
        id: "old".into(),
        user: "u1".into(),
        expires_at: Some(now - Duration::hours(1)),
    };
    let forever = Session {
        id: "forever".into(),
        user: "u1".into(),
        expires_at: None,
    };
    for session in [&live, &expired, &forever] {
        db.put(session).send().await.unwrap();
    }
    let item = expired.to_item().unwrap();
    assert_eq!(
        item["expires_at"],
        AttributeValue::N((now - Duration::hours(1)).timestamp().to_string())
    );

    assert!(db.get::<Session>("live").send().await.unwrap().is_some());
    assert!(db.get::<Session>("forever").send().await.unwrap().is_some());
    assert_eq!(db.get::<Session>("old").send().await.unwrap(), None);
    assert!(db
        .get::<Session>("old")
        .include_expired(true)
        .send()
        .await
        .unwrap()
        .is_some());
    assert_eq!(db.scan::<Session>().count().await.unwrap(), 2);
    assert_eq!(
        db.scan::<Session>()
            .include_expired(true)
            .count()
            .await
            .unwrap(),
        3
    );
    let error = db
        .tables()
        .enable_ttl::<Profile>()
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Config);
}

#[tokio::test]
async fn a_batch_checks_combined_keys_as_they_will_be_written() {
    let db = common::db_with::<Invoice>("combine_batch").await;
    // The stored `month_status` text is stale; the written key comes from the sources.
    let first = invoice();
    let mut same_sources = invoice();
    same_sources.month_status = "stale#text".into();
    let error = db
        .batch_write()
        .put(&first)
        .put(&same_sources)
        .send()
        .await
        .unwrap_err();
    assert!(error.to_string().contains("same key"), "{error}");

    let mut paid = invoice();
    paid.status = Status::Paid;
    let written = db
        .batch_write()
        .put(&first)
        .put(&paid)
        .send()
        .await
        .unwrap();
    assert_eq!(written, 2, "two keys, although both stored texts are empty");
}

/// A model with values inside its attributes: a map and a list of maps.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(rename_all = "camelCase")]
struct Pet {
    #[hash_key]
    id: String,
    #[index(name = "byKind")]
    kind: String,
    vet: Option<Vet>,
    litters: Vec<Litter>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Vet {
    full_name: String,
    visits: u32,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Litter {
    name: String,
    size: u32,
}

#[tokio::test]
async fn conditions_and_filters_reach_inside_maps_and_lists_on_every_path() {
    let db = common::db_with::<Pet>("nested_paths").await;
    let pet = |id: &str, vet: &str, first: &str| Pet {
        id: id.into(),
        kind: "cat".into(),
        vet: Some(Vet {
            full_name: vet.into(),
            visits: 2,
        }),
        litters: vec![Litter {
            name: first.into(),
            size: 3,
        }],
    };
    let vet_name = Pet::VET.field::<String>("fullName");
    let first_litter = Pet::LITTERS.at(0).field::<String>("name");
    db.put(&pet("p1", "Herb", "Spring")).send().await.unwrap();
    db.put(&pet("p2", "Ann", "Autumn")).send().await.unwrap();

    // Filters: a query through an index and a scan.
    let by_vet = db
        .query_by::<PetByKind>("cat")
        .filter(vet_name.eq("Herb"))
        .all()
        .await
        .unwrap();
    assert_eq!(
        by_vet.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(),
        ["p1"]
    );
    let spring = db
        .scan::<Pet>()
        .filter(first_litter.begins_with("Spr") & Pet::LITTERS.at(0).field::<u32>("size").ge(3))
        .all()
        .await
        .unwrap();
    assert_eq!(spring.len(), 1);
    assert_eq!(
        db.scan::<Pet>()
            .filter(Pet::LITTERS.at(1).field::<String>("name").exists())
            .all()
            .await
            .unwrap()
            .len(),
        0
    );

    // Write conditions: update, put, delete and a transaction's check, each refused when
    // the value inside differs and applied when it matches.
    let refused = db
        .update::<Pet>("p1")
        .set(Pet::KIND, "dog")
        .condition(vet_name.eq("Ann"))
        .send()
        .await;
    assert_eq!(refused.unwrap_err().kind(), ErrorKind::ConditionFailed);
    db.update::<Pet>("p1")
        .set(Pet::KIND, "dog")
        .condition(vet_name.eq("Herb") & Pet::VET.field::<u32>("visits").lt(3))
        .send()
        .await
        .unwrap();
    let refused = db
        .put(&pet("p2", "Ann", "Winter"))
        .condition(first_litter.eq("Spring"))
        .send()
        .await;
    assert_eq!(refused.unwrap_err().kind(), ErrorKind::ConditionFailed);
    db.transact_write()
        .check::<Pet>("p2", first_litter.eq("Autumn") & vet_name.size().eq(3))
        .write(db.update::<Pet>("p1").set(Pet::KIND, "cat"))
        .send()
        .await
        .unwrap();
    db.delete::<Pet>("p2")
        .condition(first_litter.eq("Autumn"))
        .send()
        .await
        .unwrap();
    assert!(db.get::<Pet>("p2").send().await.unwrap().is_none());

    // A path where only an attribute fits is refused before sending, naming it.
    let error = db
        .update::<Pet>("p1")
        .set(Pet::KIND, "dog")
        .composite(vet_name, "Herb")
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation);
    assert!(error.to_string().contains("vet.fullName"), "{error}");
    // So is a path deeper than six steps.
    let deep = Pet::VET
        .field::<Vet>("a")
        .field::<Vet>("b")
        .field::<Vet>("c")
        .field::<Vet>("d")
        .field::<Vet>("e")
        .field::<Vet>("f")
        .field::<String>("g");
    let error = db
        .scan::<Pet>()
        .filter(deep.eq("x"))
        .all()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation);
    assert!(error.to_string().contains("at most 6 steps"), "{error}");
}

/// An update writes a path inside a map or a list (`SET #a.#b = ..`, an increment of a
/// nested number), alone, with other paths of the same attribute, and in a transaction;
/// it refuses before sending what DynamoDB or the model would refuse: set elements added
/// on a path (a set inside an attribute is stored as a list), paths that overlap, a path
/// inside a key attribute, and an upsert (a new item has no map to write into).
#[tokio::test]
async fn updates_write_paths_inside_maps_and_lists() {
    let db = common::db_with::<Pet>("nested_updates").await;
    let pet = Pet {
        id: "p1".into(),
        kind: "cat".into(),
        vet: Some(Vet {
            full_name: "Herb".into(),
            visits: 2,
        }),
        litters: vec![
            Litter {
                name: "Spring".into(),
                size: 3,
            },
            Litter {
                name: "Autumn".into(),
                size: 4,
            },
        ],
    };
    db.put(&pet).send().await.unwrap();
    let visits = Pet::VET.field::<u32>("visits");
    let second_name = Pet::LITTERS.at(1).field::<String>("name");

    let update = db
        .update::<Pet>("p1")
        .set(visits, 5)
        .set(second_name, "Winter")
        .condition(Pet::VET.field::<String>("fullName").eq("Herb"));
    let input = dynorm::Request::preview(&update).unwrap();
    let expression = input.update_expression().unwrap_or_default().to_owned();
    assert!(expression.contains("#n0.#n1 = :v0"), "{expression}");
    assert!(expression.contains("[1].#n"), "{expression}");
    update.send().await.unwrap();
    db.update::<Pet>("p1")
        .increment(visits, 2)
        .send()
        .await
        .unwrap();
    db.transact_write()
        .write(
            db.update::<Pet>("p1")
                .set(Pet::LITTERS.at(0).field::<u32>("size"), 9),
        )
        .send()
        .await
        .unwrap();
    let stored = db.get::<Pet>("p1").send().await.unwrap().unwrap();
    assert_eq!(
        stored.vet,
        Some(Vet {
            full_name: "Herb".into(),
            visits: 7
        })
    );
    assert_eq!(
        (stored.litters[0].size, stored.litters[1].name.as_str()),
        (9, "Winter")
    );

    // Refused before sending, each naming the attribute.
    let refusals = [
        db.update::<Pet>("p1").set(visits, 1).remove(Pet::VET),
        db.update::<Pet>("p1")
            .set(
                Pet::LITTERS.at(0),
                Litter {
                    name: "x".into(),
                    size: 1,
                },
            )
            .set(Pet::LITTERS.at(0).field::<u32>("size"), 2),
        db.update::<Pet>("p1")
            .set(Pet::KIND.field::<String>("x"), "y"),
        db.update::<Pet>("p1").set(visits, 1).upsert(),
    ];
    for (i, refused) in refusals.into_iter().enumerate() {
        let error = refused.send().await.unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Validation, "{i}: {error}");
        assert!(error.attribute().is_some(), "{i}: {error}");
    }
    // A set inside an attribute is stored in serde's form, a list, where DynamoDB adds no
    // elements: refused before sending, naming the path.
    let tags = Pet::VET.field::<HashSet<String>>("tags");
    let error = db
        .update::<Pet>("p1")
        .add_to_set(tags, HashSet::from(["x".to_owned()]))
        .send()
        .await
        .unwrap_err();
    assert!(error.to_string().contains("vet.tags"), "{error}");
    assert_eq!(db.get::<Pet>("p1").send().await.unwrap().unwrap(), stored);
}

/// The slug an article is found by: its title, lower case, words joined by `-`.
fn slug_of(title: &str) -> String {
    title
        .to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join("-")
}

/// Titles are stored trimmed.
fn trimmed(title: String) -> String {
    title.trim().to_owned()
}

/// Scores are stored in tenths, and read back as points.
fn in_tenths(points: u32) -> u32 {
    points * 10
}

fn in_points(tenths: u32) -> u32 {
    tenths / 10
}

/// A computed field (`watch`) that keys an index, and transformed fields (`set`, `get`).
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Articles")]
struct Article {
    #[hash_key]
    id: String,
    #[dynorm(set = trimmed)]
    title: String,
    #[index(name = "bySlug")]
    #[dynorm(watch = [title], set = slug_of)]
    slug: String,
    #[dynorm(set = in_tenths, get = in_points)]
    score: u32,
}

fn article(id: &str, title: &str, score: u32) -> Article {
    Article {
        id: id.into(),
        title: title.into(),
        slug: String::new(),
        score,
    }
}

/// A `watch` field is computed from the stored value of its source on every write path,
/// and the index it keys follows; a transformed field is stored transformed on every
/// write path, read back through `get` on every read path, and compared transformed in
/// conditions; an update can `set` it but not change it by an amount.
#[tokio::test]
async fn computed_and_transformed_fields_hold_on_every_path() {
    let db = common::db_with::<Article>("writes_computed").await;
    let by_slug = |slug: &'static str| {
        let db = db.clone();
        async move {
            db.query_by::<ArticleBySlug>(slug)
                .all()
                .await
                .unwrap()
                .into_iter()
                .map(|a: Article| a.id)
                .collect::<Vec<_>>()
        }
    };
    let raw = |id: &'static str| {
        let db = db.clone();
        async move {
            db.sdk()
                .get_item()
                .table_name(db.tables().name::<Article>())
                .key("id", AttributeValue::S(id.into()))
                .send()
                .await
                .unwrap()
                .item
                .unwrap()
        }
    };

    // Whole-item writes: create, put, batch and transaction puts, an upsert that creates.
    db.create(&article("a1", "  Hello World ", 3))
        .send()
        .await
        .unwrap();
    db.put(&article("a2", "Second Post", 4))
        .send()
        .await
        .unwrap();
    db.batch_write()
        .put_many(&[article("a3", "Third  Post", 5)])
        .send()
        .await
        .unwrap();
    db.transact_write()
        .write(db.put(&article("a4", "Fourth", 6)))
        .send()
        .await
        .unwrap();
    db.update::<Article>("a5")
        .set(Article::TITLE, " Fifth ")
        .set(Article::SCORE, 7)
        .upsert()
        .send()
        .await
        .unwrap();
    for (id, title, slug, tenths) in [
        ("a1", "Hello World", "hello-world", "30"),
        ("a2", "Second Post", "second-post", "40"),
        ("a3", "Third  Post", "third-post", "50"),
        ("a4", "Fourth", "fourth", "60"),
        ("a5", "Fifth", "fifth", "70"),
    ] {
        let item = raw(id).await;
        assert_eq!(item["title"], AttributeValue::S(title.into()), "{id}");
        assert_eq!(item["slug"], AttributeValue::S(slug.into()), "{id}");
        assert_eq!(item["score"], AttributeValue::N(tenths.into()), "{id}");
    }
    assert_eq!(by_slug("hello-world").await, ["a1"]);

    // An update of the source computes the field again, and moves the item in the index.
    db.update::<Article>("a1")
        .set(Article::TITLE, "Goodbye World")
        .send()
        .await
        .unwrap();
    assert_eq!(by_slug("hello-world").await, Vec::<String>::new());
    assert_eq!(by_slug("goodbye-world").await, ["a1"]);

    // Reads go through `get`: get, batch get, transaction get, query and scan.
    let got: Article = db.get::<Article>("a1").send().await.unwrap().unwrap();
    assert_eq!(
        (got.title.as_str(), got.slug.as_str(), got.score),
        ("Goodbye World", "goodbye-world", 3)
    );
    let many: Vec<Article> = db
        .get_many::<Article, _>(["a2", "a3"])
        .send()
        .await
        .unwrap();
    assert!(
        many.iter().all(|a| a.score == 4 || a.score == 5),
        "{many:?}"
    );
    let items = db.transact_get().get::<Article>("a4").send().await.unwrap();
    assert_eq!(items.get::<Article>(0).unwrap().unwrap().score, 6);
    let scanned: Vec<Article> = db.scan::<Article>().all().await.unwrap();
    let mut scores: Vec<u32> = scanned.iter().map(|a| a.score).collect();
    scores.sort_unstable();
    assert_eq!(scores, [3, 4, 5, 6, 7]);

    // A condition compares the value as a write stores it.
    db.update::<Article>("a2")
        .set(Article::SCORE, 9)
        .condition(Article::SCORE.eq(4))
        .send()
        .await
        .unwrap();
    let refused = db
        .update::<Article>("a2")
        .set(Article::SCORE, 1)
        .condition(Article::SCORE.eq(40))
        .send()
        .await
        .unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::ConditionFailed, "{refused}");
    let filtered: Vec<Article> = db
        .scan::<Article>()
        .filter(Article::SCORE.gt(6))
        .all()
        .await
        .unwrap();
    let mut ids: Vec<String> = filtered.into_iter().map(|a| a.id).collect();
    ids.sort();
    assert_eq!(ids, ["a2", "a5"]);

    // An amount added would be stored untransformed: refused before sending, by name.
    let error = db
        .update::<Article>("a2")
        .increment(Article::SCORE, 1)
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation, "{error}");
    assert_eq!(error.model(), Some("Article"));
    assert_eq!(error.attribute(), Some("score"));
    assert_eq!(raw("a2").await["score"], AttributeValue::N("90".into()));

    // A computed index key that comes out empty is refused before sending, as a given one.
    let error = db
        .update::<Article>("a2")
        .set(Article::TITLE, "   ")
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation, "{error}");
    assert_eq!(error.attribute(), Some("slug"), "{error}");

    // An upsert that creates the item computes a field whose source is the key.
    let db = common::db_with::<Coupon>("writes_computed_upsert").await;
    db.update::<Coupon>("save10")
        .set(Coupon::PERCENT, 10)
        .upsert()
        .send()
        .await
        .unwrap();
    let coupon = db.get::<Coupon>("save10").send().await.unwrap().unwrap();
    assert_eq!(coupon.label, "SAVE10");
}

/// A code shown upper case, computed from the key.
fn shout(code: &str) -> String {
    code.to_uppercase()
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Coupons")]
struct Coupon {
    #[hash_key]
    code: String,
    #[dynorm(watch = [code], set = shout)]
    label: String,
    percent: u32,
}

/// A ticket's state, stored as a one-letter code.
fn state_code(state: String) -> String {
    match state.as_str() {
        "open" => "o".into(),
        "closed" => "c".into(),
        _ => state,
    }
}

fn state_name(code: String) -> String {
    match code.as_str() {
        "o" => "open".into(),
        "c" => "closed".into(),
        _ => code,
    }
}

/// Transformed fields as a part of the table's key templates, and in an index's
/// projection. The key's fields are attributes of their own, which each index projects,
/// with the entity's name.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Tickets")]
#[key(pk = "STATE#{state}", sk = "T#{id}")]
struct Ticket {
    #[dynorm(set = state_code, get = state_name)]
    state: String,
    id: String,
    #[index(name = "byOwner", project = ["score"])]
    owner: String,
    #[dynorm(set = in_tenths, get = in_points)]
    score: u32,
    #[index(name = "byNote", project = false)]
    note: String,
}

/// `get` applies where a value is read back out of a key's text (`from_key_item`, as a
/// stream record's keys or a `LastEvaluatedKey` are read) and out of an index's projected
/// item, as on every other read.
#[tokio::test]
async fn transforms_apply_to_keys_read_back_and_projected_items() {
    use dynorm::schema::ModelKey;

    let db = common::db_with::<Ticket>("writes_transformed_keys").await;
    let ticket = Ticket {
        state: "open".into(),
        id: "t1".into(),
        owner: "ann".into(),
        score: 4,
        note: "first".into(),
    };
    db.put(&ticket).send().await.unwrap();
    let key = TicketKey {
        state: "open".into(),
        id: "t1".into(),
    };
    // The key text holds the stored code.
    let key_item = key.to_key_item().unwrap();
    assert_eq!(key_item["pk"], AttributeValue::S("STATE#o".into()));
    // Read back out of the key's text: the value as read, which renders the same key.
    let parsed = TicketKey::from_key_item(key_item.clone()).unwrap();
    assert_eq!((parsed.state.as_str(), parsed.id.as_str()), ("open", "t1"));
    assert_eq!(parsed.to_key_item().unwrap(), key_item);
    assert_eq!(db.get::<Ticket>(parsed).send().await.unwrap(), Some(ticket));

    // The projected item: the keys and `score`, each read through `get`.
    let owned: Vec<TicketByOwnerItem> = db.query_by::<TicketByOwner>("ann").all().await.unwrap();
    assert_eq!(owned.len(), 1);
    assert_eq!(
        (
            owned[0].state.as_str(),
            owned[0].id.as_str(),
            owned[0].score
        ),
        ("open", "t1", 4)
    );
    // An index of keys only holds the table key's fields too.
    let noted: Vec<TicketByNoteItem> = db.query_by::<TicketByNote>("first").all().await.unwrap();
    assert_eq!(
        noted
            .iter()
            .map(|t| (t.state.as_str(), t.id.as_str()))
            .collect::<Vec<_>>(),
        [("open", "t1")]
    );
    let definition = Ticket::create_table_input();
    let projection = |name: &str| {
        let index = definition
            .global_secondary_indexes()
            .iter()
            .find(|g| g.index_name() == name)
            .unwrap();
        let mut names = index.projection().unwrap().non_key_attributes().to_vec();
        names.sort();
        names
    };
    // The entity's name too, so the query keeps the entity's items (its filter tests it).
    assert_eq!(projection("byOwner"), ["__entity", "id", "score", "state"]);
    assert_eq!(projection("byNote"), ["__entity", "id", "state"]);
}

/// A map whose keys are chosen by its users: a key may hold `.` or `[`.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Labels")]
struct Labeled {
    #[hash_key]
    id: String,
    labels: std::collections::BTreeMap<String, String>,
}

/// A path step is a name, never parsed: a map key holding `.` or `[0]` is one key, in
/// updates, conditions and filters alike.
#[tokio::test]
async fn path_keys_with_dots_and_brackets_are_one_key() {
    let db = common::db_with::<Labeled>("writes_path_keys").await;
    let labels = |pairs: &[(&str, &str)]| {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    db.put(&Labeled {
        id: "l1".into(),
        labels: labels(&[("a.b", "1"), ("c[0]", "2"), ("a", "3")]),
    })
    .send()
    .await
    .unwrap();
    let dotted = Labeled::LABELS.field::<String>("a.b");
    let bracketed = Labeled::LABELS.field::<String>("c[0]");
    db.update::<Labeled>("l1")
        .set(dotted, "x")
        .remove(bracketed)
        .condition(dotted.eq("1"))
        .send()
        .await
        .unwrap();
    let stored = db.get::<Labeled>("l1").send().await.unwrap().unwrap();
    assert_eq!(stored.labels, labels(&[("a.b", "x"), ("a", "3")]));
    let found: Vec<Labeled> = db
        .scan::<Labeled>()
        .filter(dotted.eq("x") & bracketed.not_exists())
        .all()
        .await
        .unwrap();
    assert_eq!(found.len(), 1);
}

/// The largest batch a caller sends is chunked, and every item's computed field is
/// computed: 60 articles, three `BatchWriteItem` requests.
#[tokio::test]
async fn a_large_batch_computes_every_item() {
    let db = common::db_with::<Article>("writes_computed_batch").await;
    let articles: Vec<Article> = (0..60)
        .map(|n| article(&format!("b{n:02}"), &format!(" Post Number {n} "), n))
        .collect();
    let requests = common::Requests::new();
    requests
        .client(&db)
        .batch_write()
        .put_many(&articles)
        .send()
        .await
        .unwrap();
    assert_eq!(requests.counts()["BatchWriteItem"], 3);
    for n in [0, 25, 59] {
        let slug = format!("post-number-{n}");
        let found: Vec<Article> = db
            .query_by::<ArticleBySlug>(slug.clone())
            .all()
            .await
            .unwrap();
        assert_eq!(found.len(), 1, "{slug}");
        assert_eq!(found[0].score, n, "{slug}");
        assert_eq!(found[0].title, format!("Post Number {n}"));
    }
    assert_eq!(db.scan::<Article>().count().await.unwrap(), 60);
}

/// A post as written before it had a slug.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Posts")]
struct PostBeforeSlugs {
    #[hash_key]
    id: String,
    title: String,
}

/// The same posts, with a computed slug: shape 2, whose upcast computes the slug of an
/// item written before it.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Posts", shape = 2, upcasts = [PostShape1])]
struct Post {
    #[hash_key]
    id: String,
    title: String,
    #[index(name = "bySlug")]
    #[dynorm(watch = [title], set = slug_of)]
    slug: String,
}

/// Shape 1, as `Post` reads it.
#[derive(Deserialize)]
struct PostShape1 {
    id: String,
    title: String,
}

impl From<PostShape1> for Post {
    fn from(old: PostShape1) -> Self {
        Post {
            slug: slug_of(&old.title),
            id: old.id,
            title: old.title,
        }
    }
}

/// An item written before its computed field existed is read through its shape's upcast,
/// which computes the field; the index the field keys finds it once a write stores it.
#[tokio::test]
async fn items_written_before_a_computed_field_read_through_their_upcast() {
    let db = common::db_with::<Post>("writes_computed_old").await;
    db.put(&PostBeforeSlugs {
        id: "p1".into(),
        title: "Old News".into(),
    })
    .send()
    .await
    .unwrap();
    let read = db.get::<Post>("p1").send().await.unwrap().unwrap();
    assert_eq!(read.slug, "old-news");
    let by_slug = || db.query_by::<PostBySlug>("old-news").all();
    assert_eq!(by_slug().await.unwrap(), Vec::<Post>::new());
    // A write stores the slug, and the index finds the post.
    db.put(&read).send().await.unwrap();
    assert_eq!(by_slug().await.unwrap(), [read]);
}

/// A shop whose fees grow by its pet fee, another attribute of the item.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Shops", rename_all = "camelCase")]
struct Shop {
    #[hash_key]
    id: String,
    fees: u32,
    pet_fee: Option<u32>,
    #[dynorm(set = in_tenths, get = in_points)]
    bonus: u32,
}

/// `increment_by_attribute` adds another attribute's stored value (`SET a = a + b`), and
/// `decrement_by_attribute` subtracts it; an item without the other attribute is refused
/// by DynamoDB, an upsert (which may create the item) and a transformed attribute by
/// dynorm before sending.
#[tokio::test]
async fn an_update_adds_or_subtracts_another_attributes_stored_value() {
    let db = common::db_with::<Shop>("writes_relative").await;
    let shop = |id: &str, pet_fee: Option<u32>| Shop {
        id: id.into(),
        fees: 100,
        pet_fee,
        bonus: 3,
    };
    db.create(&shop("s1", Some(25))).send().await.unwrap();
    let update = db
        .update::<Shop>("s1")
        .increment_by_attribute(Shop::FEES, Shop::PET_FEE);
    let sent = update.preview().unwrap();
    let text = sent.update_expression().unwrap();
    let names = sent.expression_attribute_names().unwrap();
    let name = |attribute: &str| {
        names
            .iter()
            .find(|(_, n)| *n == attribute)
            .map(|(placeholder, _)| placeholder.clone())
            .unwrap()
    };
    let (fees, pet_fee) = (name("fees"), name("petFee"));
    assert!(
        text.contains(&format!("{fees} = {fees} + {pet_fee}")),
        "{text}"
    );
    let updated = update.send_returning_new().await.unwrap();
    assert_eq!(updated.fees, 125);
    let updated = db
        .update::<Shop>("s1")
        .decrement_by_attribute(Shop::FEES, Shop::PET_FEE)
        .decrement_by_attribute(Shop::PET_FEE, Shop::PET_FEE)
        .send_returning_new()
        .await
        .unwrap();
    assert_eq!((updated.fees, updated.pet_fee), (100, Some(0)));

    // No pet fee stored: DynamoDB refuses the expression, and nothing changes.
    db.create(&shop("s2", None)).send().await.unwrap();
    let refused = db
        .update::<Shop>("s2")
        .increment_by_attribute(Shop::FEES, Shop::PET_FEE)
        .send()
        .await
        .unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::Validation, "{refused}");
    assert_eq!(
        db.get::<Shop>("s2").send().await.unwrap(),
        Some(shop("s2", None))
    );

    // An upsert would create the item without the other attribute.
    let refused = db
        .update::<Shop>("s3")
        .increment_by_attribute(Shop::FEES, Shop::PET_FEE)
        .upsert()
        .send()
        .await
        .unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::Validation, "{refused}");
    assert_eq!(refused.attribute(), Some("fees"), "{refused}");
    assert!(db.get::<Shop>("s3").send().await.unwrap().is_none());

    // `bonus` is stored in tenths: its stored value is not the number to add.
    let refused = db
        .update::<Shop>("s1")
        .increment_by_attribute(Shop::FEES, Shop::BONUS)
        .send()
        .await
        .unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::Validation, "{refused}");
    assert!(refused.to_string().contains("`bonus`"), "{refused}");
}

/// A shelf of a store, whose labels are a DynamoDB string set inside a map.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Shelf {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    labels: Option<dynorm::StringSet>,
    names: BTreeSet<String>,
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Shelves")]
struct Store {
    #[hash_key]
    id: String,
    shelves: Vec<Shelf>,
}

/// A `StringSet` inside a list of maps is stored as a set, so an update adds elements to
/// it and deletes them at its path; any other set inside an attribute is serde's list, and
/// `add_to_set` on its path is refused before sending.
#[tokio::test]
async fn an_update_adds_to_a_string_set_inside_a_list_of_maps() {
    let db = common::db_with::<Store>("writes_nested_sets").await;
    let shelf = |labels: Option<&[&str]>| Shelf {
        labels: labels.map(|l| l.iter().copied().collect()),
        names: BTreeSet::from(["a".to_owned()]),
    };
    db.create(&Store {
        id: "s1".into(),
        shelves: vec![shelf(None), shelf(Some(&["x"]))],
    })
    .send()
    .await
    .unwrap();
    let labels = |i: u32| Store::SHELVES.at(i).field::<dynorm::StringSet>("labels");
    let stored = db
        .update::<Store>("s1")
        .add_to_set(labels(0), dynorm::StringSet::from(["new"]))
        .add_to_set(labels(1), dynorm::StringSet::from(["y", "z"]))
        .send_returning_new()
        .await
        .unwrap();
    assert_eq!(stored.shelves[0].labels, Some(["new"].into()));
    assert_eq!(stored.shelves[1].labels, Some(["x", "y", "z"].into()));
    let stored = db
        .update::<Store>("s1")
        .delete_from_set(labels(1), dynorm::StringSet::from(["x"]))
        .send_returning_new()
        .await
        .unwrap();
    assert_eq!(stored.shelves[1].labels, Some(["y", "z"].into()));
    let raw = db
        .sdk()
        .get_item()
        .table_name(db.tables().name::<Store>())
        .key("id", AttributeValue::S("s1".into()))
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    let AttributeValue::L(shelves) = &raw["shelves"] else {
        panic!("shelves is a list: {raw:?}")
    };
    let AttributeValue::M(second) = &shelves[1] else {
        panic!("a shelf is a map")
    };
    assert_eq!(
        second["labels"],
        AttributeValue::Ss(vec!["y".into(), "z".into()])
    );
    assert!(
        matches!(second["names"], AttributeValue::L(_)),
        "{second:?}"
    );

    let refused = db
        .update::<Store>("s1")
        .add_to_set(
            Store::SHELVES.at(0).field::<BTreeSet<String>>("names"),
            BTreeSet::from(["b".to_owned()]),
        )
        .send()
        .await
        .unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::Validation, "{refused}");
    assert!(refused.to_string().contains("StringSet"), "{refused}");
}

/// A review's verdict, under its reviewer's name.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Verdict {
    approved: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Reviews")]
struct Review {
    #[hash_key]
    id: String,
    verdicts: std::collections::BTreeMap<String, Verdict>,
    by_team: Option<std::collections::HashMap<String, std::collections::BTreeMap<String, u32>>>,
}

/// `set_entry` and `remove_entry` write one entry of a map under a key chosen at run time,
/// and `has_key` tests it, whatever the key holds (`.`, `[0]`, `#`): it is a name in
/// `ExpressionAttributeNames`. Two actions on one entry, or an entry and its whole map,
/// are refused before sending, as an entry in an upsert is.
#[tokio::test]
async fn an_update_writes_a_map_entry_under_a_key_chosen_at_run_time() {
    let db = common::db_with::<Review>("writes_map_entries").await;
    let verdict = |approved| Verdict {
        approved,
        note: None,
    };
    db.create(&Review {
        id: "r1".into(),
        verdicts: [("ann".to_owned(), verdict(false))].into(),
        by_team: Some([("core".to_owned(), [("ann".to_owned(), 1)].into())].into()),
    })
    .send()
    .await
    .unwrap();
    let hostile = "b.o[0]#x";
    let stored = db
        .update::<Review>("r1")
        .set_entry(Review::VERDICTS, "ann", verdict(true))
        .set_entry(Review::VERDICTS, hostile, verdict(false))
        .condition(Review::VERDICTS.has_key("ann") & !Review::VERDICTS.has_key(hostile))
        .send_returning_new()
        .await
        .unwrap();
    assert_eq!(stored.verdicts["ann"], verdict(true));
    assert_eq!(stored.verdicts[hostile], verdict(false));
    assert_eq!(stored.verdicts.len(), 2);

    // The condition holds no more: the hostile key is now there.
    let refused = db
        .update::<Review>("r1")
        .remove_entry(Review::VERDICTS, "ann")
        .condition(!Review::VERDICTS.has_key(hostile))
        .send()
        .await
        .unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::ConditionFailed, "{refused}");
    let stored = db
        .update::<Review>("r1")
        .remove_entry(Review::VERDICTS, "ann")
        .set_entry(
            Review::BY_TEAM.field::<std::collections::BTreeMap<String, u32>>("core"),
            "bo",
            7,
        )
        .send_returning_new()
        .await
        .unwrap();
    assert_eq!(stored.verdicts.keys().collect::<Vec<_>>(), [hostile]);
    assert_eq!(stored.by_team.unwrap()["core"]["bo"], 7);

    // Refused before sending.
    let twice = db
        .update::<Review>("r1")
        .set_entry(Review::VERDICTS, "cy", verdict(true))
        .remove_entry(Review::VERDICTS, "cy")
        .send()
        .await
        .unwrap_err();
    assert!(twice.to_string().contains("overlap"), "{twice}");
    let whole = db
        .update::<Review>("r1")
        .set(Review::VERDICTS, std::collections::BTreeMap::new())
        .set_entry(Review::VERDICTS, "cy", verdict(true))
        .send()
        .await
        .unwrap_err();
    assert!(whole.to_string().contains("also writes"), "{whole}");
    let upsert = db
        .update::<Review>("r2")
        .set_entry(Review::VERDICTS, "cy", verdict(true))
        .upsert()
        .send()
        .await
        .unwrap_err();
    assert_eq!(upsert.kind(), ErrorKind::Validation, "{upsert}");
    assert!(db.get::<Review>("r2").send().await.unwrap().is_none());
}

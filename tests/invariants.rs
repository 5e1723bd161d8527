//! The invariants every write path keeps, and the limits every path checks before
//! sending, against a real server: index keys never go stale, expired means absent on
//! every read path, versions never overflow, and out-of-range values are refused with
//! the attribute named.

mod common;

use dynorm::Request;
use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{DateTime, Duration, Utc};
use dynorm::{Item, Model};

/// A single-table entity whose GSI keys are built from two updatable fields.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Tickets", entity = "ticket", rename_all = "camelCase")]
#[key(pk = "TICKET#{id}", sk = "#META")]
#[key(index = "GSI1", gsi1pk = "STATUS#{status}", gsi1sk = "PRIO#{priority}")]
struct Ticket {
    id: String,
    status: String,
    priority: String,
    title: String,
    note: Option<String>,
    #[ttl]
    expires: Option<DateTime<Utc>>,
}

/// A model with an attribute-keyed GSI that projects keys only, and a version.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(rename_all = "camelCase")]
struct Order {
    #[hash_key]
    id: String,
    #[index(name = "byStatus", project = false)]
    status: String,
    note: String,
    #[version]
    version: u64,
}

/// A model with an attribute-keyed GSI and no version, for batches.
#[derive(Model, Debug, Clone, PartialEq)]
struct Plain {
    #[hash_key]
    id: String,
    #[index(name = "byStatus")]
    status: String,
}

fn ticket(id: &str, status: &str, priority: &str) -> Ticket {
    Ticket {
        id: id.into(),
        status: status.into(),
        priority: priority.into(),
        title: "printer on fire".into(),
        note: None,
        expires: None,
    }
}

/// The item as stored, read raw.
async fn raw(db: &dynorm::Client, key: Item) -> HashMap<String, AttributeValue> {
    db.sdk()
        .get_item()
        .table_name(db.tables().name::<Ticket>())
        .set_key(Some(key))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
        .unwrap_or_default()
}

fn s(item: &HashMap<String, AttributeValue>, name: &str) -> Option<String> {
    item.get(name).and_then(|v| v.as_s().ok()).cloned()
}

#[tokio::test]
async fn an_update_rebuilds_every_index_key_it_feeds() {
    use dynorm::schema::ModelKey;
    let db = common::db_with::<Ticket>("inv_gsi").await;
    let t = ticket("t1", "open", "p2");
    db.create(&t).send().await.unwrap();
    db.update::<Ticket>(t.key())
        .set(Ticket::STATUS, "closed")
        .set(Ticket::PRIORITY, "p1")
        .send()
        .await
        .unwrap();
    let stored = raw(&db, t.key().to_key_item().unwrap()).await;
    assert_eq!(s(&stored, "gsi1pk").as_deref(), Some("STATUS#closed"));
    assert_eq!(s(&stored, "gsi1sk").as_deref(), Some("PRIO#p1"));
    assert_eq!(s(&stored, "__entity").as_deref(), Some("ticket"));
    let closed = db.query_by::<TicketGSI1>("closed").all().await.unwrap();
    assert_eq!(closed.len(), 1);
    assert!(db
        .query_by::<TicketGSI1>("open")
        .all()
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn an_update_that_cannot_rebuild_an_index_key_is_refused_before_sending() {
    let db = common::db_with::<Ticket>("inv_gsi_refused").await;
    let t = ticket("t1", "open", "p2");
    db.create(&t).send().await.unwrap();
    let error = db
        .update::<Ticket>(t.key())
        .set(Ticket::STATUS, "closed")
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
    assert_eq!(error.attribute(), Some("priority"));
    assert!(error.message().contains("gsi1pk"), "{error}");
    assert_eq!(db.get::<Ticket>(t.key()).send().await.unwrap(), Some(t));
}

#[tokio::test]
async fn expired_items_are_absent_on_every_read_path_unless_asked_for() {
    let db = common::db_with::<Ticket>("inv_ttl").await;
    let mut t = ticket("t1", "open", "p2");
    t.expires = DateTime::from_timestamp((Utc::now() - Duration::hours(1)).timestamp(), 0);
    db.put(&t).send().await.unwrap();

    assert_eq!(db.get::<Ticket>(t.key()).send().await.unwrap(), None);
    assert!(db
        .get_many::<Ticket, _>([t.key()])
        .send()
        .await
        .unwrap()
        .is_empty());
    let batch = db
        .batch_get()
        .get::<Ticket>(t.key())
        .include_expired(true)
        .send()
        .await
        .unwrap();
    assert_eq!(batch.items::<Ticket>().unwrap(), vec![t.clone()]);
    let read = db
        .transact_get()
        .get::<Ticket>(t.key())
        .send()
        .await
        .unwrap();
    assert_eq!(read.get::<Ticket>(0).unwrap(), None);
    let read = db
        .transact_get()
        .get::<Ticket>(t.key())
        .include_expired(true)
        .send()
        .await
        .unwrap();
    assert_eq!(read.get::<Ticket>(0).unwrap(), Some(t.clone()));
    assert!(db
        .query_by::<TicketGSI1>("open")
        .all()
        .await
        .unwrap()
        .is_empty());
    assert!(db.scan::<Ticket>().all().await.unwrap().is_empty());

    // An update treats it as absent too.
    let error = db
        .update::<Ticket>(t.key())
        .set(Ticket::TITLE, "again")
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::NotFound, "{error}");

    // And `create` over it succeeds: the expired item is gone as far as dynorm is concerned.
    let fresh = ticket("t1", "new", "p3");
    db.create(&fresh).send().await.unwrap();
    assert_eq!(
        db.get::<Ticket>(fresh.key()).send().await.unwrap(),
        Some(fresh)
    );
}

#[tokio::test]
async fn a_version_at_its_maximum_is_refused_not_wrapped() {
    let db = common::db_with::<Order>("inv_version").await;
    let order = Order {
        id: "o1".into(),
        status: "open".into(),
        note: "n".into(),
        version: u64::MAX,
    };
    let error = db.put(&order).send().await.unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
    assert_eq!(error.attribute(), Some("version"));
    assert_eq!(error.operation(), Some("put"));
    let error = db
        .transact_write()
        .write(db.put(&order))
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
}

#[tokio::test]
async fn an_empty_index_key_is_refused_on_every_write_path() {
    let db = common::db_with::<Order>("inv_empty_key").await;
    let order = Order {
        id: "o1".into(),
        status: String::new(),
        note: "n".into(),
        version: 0,
    };
    let check = |result: dynorm::Result<()>, path: &str| {
        let error = result.expect_err(path);
        assert!(
            error.kind() == dynorm::ErrorKind::Validation,
            "{path}: {error}"
        );
        assert_eq!(error.attribute(), Some("status"), "{path}: {error}");
    };
    check(db.put(&order).send().await, "put");
    check(db.create(&order).send().await, "create");
    check(
        db.transact_write().write(db.create(&order)).send().await,
        "transaction",
    );
    // Batches take no versioned models, so the batch path is checked on one without.
    let plain = Plain {
        id: "p1".into(),
        status: String::new(),
    };
    let db_plain = common::db_with::<Plain>("inv_empty_key_batch").await;
    check(
        db_plain.batch_write().put(&plain).send().await.map(drop),
        "batch",
    );
    let ok = Order {
        status: "open".into(),
        ..order.clone()
    };
    db.create(&ok).send().await.unwrap();
    check(
        db.update::<Order>("o1")
            .set(Order::STATUS, "")
            .ignore_version()
            .send()
            .await,
        "update",
    );
}

#[tokio::test]
async fn a_filter_on_an_attribute_the_index_does_not_project_is_refused() {
    let db = common::db_with::<Order>("inv_projection").await;
    let error = db
        .query_by::<OrderByStatus>("open")
        .filter(Order::NOTE.eq("n"))
        .all()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
    assert!(error.message().contains("`note`"), "{error}");
    let error = db
        .scan_by::<OrderByStatus>()
        .filter(Order::NOTE.eq("n"))
        .all()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
}

#[tokio::test]
async fn an_item_over_400_kb_is_refused_on_every_write_path() {
    let db = common::db_with::<Ticket>("inv_size").await;
    let mut t = ticket("t1", "open", "p2");
    t.title = "x".repeat(400 * 1024);
    let check = |result: dynorm::Result<()>, path: &str| {
        let error = result.expect_err(path);
        assert!(
            error.kind() == dynorm::ErrorKind::Validation,
            "{path}: {error}"
        );
        assert!(error.message().contains("400 KB"), "{path}: {error}");
    };
    check(db.put(&t).send().await, "put");
    check(db.create(&t).send().await, "create");
    check(db.batch_write().put(&t).send().await.map(drop), "batch");
    check(
        db.transact_write().write(db.put(&t)).send().await,
        "transaction",
    );
}

#[tokio::test]
async fn setting_an_empty_set_removes_the_attribute() {
    #[derive(Model, Debug, Clone, PartialEq)]
    struct Tagged {
        #[hash_key]
        id: String,
        tags: std::collections::BTreeSet<String>,
    }
    let db = common::db_with::<Tagged>("inv_empty_set").await;
    let item = Tagged {
        id: "a".into(),
        tags: ["x".to_owned()].into(),
    };
    db.put(&item).send().await.unwrap();
    let after = db
        .update::<Tagged>("a")
        .set(Tagged::TAGS, std::collections::BTreeSet::new())
        .send_returning_new()
        .await
        .unwrap();
    assert!(after.tags.is_empty());
    let error = db
        .update::<Tagged>("a")
        .add_to_set(Tagged::TAGS, std::collections::BTreeSet::new())
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
    assert_eq!(error.attribute(), Some("tags"));
}

/// A second entity in Ticket's partition, for collections.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Tickets", entity = "comment", rename_all = "camelCase")]
#[key(pk = "TICKET#{ticket_id}", sk = "COMMENT#{n}")]
struct Comment {
    ticket_id: String,
    n: u32,
    text: String,
    #[ttl]
    expires: Option<DateTime<Utc>>,
}

#[derive(dynorm::Collection, Debug)]
enum TicketThread {
    Ticket(Ticket),
    Comment(Comment),
}

#[tokio::test]
async fn a_collection_hides_expired_items_unless_asked_for() {
    let db = common::db_with::<Ticket>("inv_collection_ttl").await;
    db.create(&ticket("t1", "open", "p1")).send().await.unwrap();
    let past = DateTime::from_timestamp((Utc::now() - Duration::hours(1)).timestamp(), 0);
    for (n, expires) in [(1, None), (2, past)] {
        let comment = Comment {
            ticket_id: "t1".into(),
            n,
            text: format!("comment {n}"),
            expires,
        };
        db.create(&comment).send().await.unwrap();
    }
    let tally = dynorm::observe::Tally::default();
    let thread = db
        .collection::<TicketThread>("t1")
        .tally(&tally)
        .all()
        .await
        .unwrap();
    let comments: Vec<u32> = thread
        .iter()
        .filter_map(|item| match item {
            TicketThread::Comment(c) => Some(c.n),
            TicketThread::Ticket(t) => {
                assert_eq!(t.id, "t1");
                None
            }
        })
        .collect();
    assert_eq!(comments, vec![1], "the expired comment is hidden");
    assert_eq!(tally.skipped(), 0);
    let all = db
        .collection::<TicketThread>("t1")
        .include_expired(true)
        .all()
        .await
        .unwrap();
    assert_eq!(all.len(), 3);
}

#[tokio::test]
async fn an_upsert_writes_a_whole_entity_with_its_name_its_key_fields_and_its_index_keys() {
    let db = common::db_with::<Ticket>("inv_upsert").await;
    let key = TicketKey { id: "t9".into() };
    db.update::<Ticket>(key.clone())
        .set(Ticket::STATUS, "open")
        .set(Ticket::PRIORITY, "p3")
        .set(Ticket::TITLE, "made by an upsert")
        .upsert()
        .send()
        .await
        .unwrap();
    let got = db.get::<Ticket>(key.clone()).send().await.unwrap().unwrap();
    assert_eq!(got.id, "t9");
    assert_eq!(got.status, "open");
    let by_status = db.query_by::<TicketGSI1>("open").all().await.unwrap();
    assert_eq!(by_status, vec![got]);
}

#[tokio::test]
async fn a_narrow_version_type_at_its_maximum_is_refused_on_put_and_update() {
    #[derive(Model, Debug, Clone, PartialEq)]
    struct Small {
        #[hash_key]
        id: String,
        #[version]
        version: u8,
        n: u32,
    }
    let db = common::db_with::<Small>("inv_version_u8").await;
    let small = Small {
        id: "s".into(),
        version: u8::MAX,
        n: 1,
    };
    let error = db.put(&small).send().await.unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
    assert_eq!(error.attribute(), Some("version"));
    let error = db
        .update::<Small>("s")
        .set(Small::N, 2u32)
        .expect_version(u8::MAX as u64)
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
    assert!(
        error
            .to_string()
            .contains("expected version 255 is the largest"),
        "{error}"
    );
    // A version the field cannot hold at all says so, and states both numbers.
    let error = db
        .update::<Small>("s")
        .set(Small::N, 2u32)
        .expect_version(u64::MAX)
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
    let shown = error.to_string();
    assert!(
        shown.contains(&format!("expected version {} is above 255", u64::MAX)),
        "{shown}"
    );

    // Stored at the maximum by someone else: an update that ignores the version is
    // refused by its condition, and the item keeps decoding.
    db.sdk()
        .put_item()
        .table_name(db.tables().name::<Small>())
        .item("id", AttributeValue::S("s".into()))
        .item("version", AttributeValue::N("255".into()))
        .item("n", AttributeValue::N("1".into()))
        .send()
        .await
        .unwrap();
    let error = db
        .update::<Small>("s")
        .set(Small::N, 2u32)
        .ignore_version()
        .send()
        .await
        .unwrap_err();
    assert!(
        error.kind() == dynorm::ErrorKind::ConditionFailed,
        "{error}"
    );
    assert_eq!(
        db.get::<Small>("s").send().await.unwrap().unwrap().version,
        255
    );
}

#[tokio::test]
async fn put_replaces_a_read_only_field_and_create_fills_defaults_that_put_does_not() {
    #[derive(Model, Debug, Clone, PartialEq)]
    struct Doc {
        #[hash_key]
        id: String,
        #[dynorm(default = "now", read_only)]
        created: Option<DateTime<Utc>>,
        #[dynorm(updated_at)]
        updated: Option<DateTime<Utc>>,
        body: String,
    }
    let db = common::db_with::<Doc>("inv_read_only").await;
    let doc = Doc {
        id: "d".into(),
        created: None,
        updated: None,
        body: "v1".into(),
    };
    let stored = db.create(&doc).send_returning_new().await.unwrap();
    let created = stored.created.expect("create fills the default");
    assert!(stored.updated.is_some(), "create sets updated_at");

    // A put is a replace: the read-only field is what the caller gives, here none.
    db.put(&Doc {
        body: "v2".into(),
        ..doc.clone()
    })
    .send()
    .await
    .unwrap();
    let replaced = db.get::<Doc>("d").send().await.unwrap().unwrap();
    assert_eq!(replaced.created, None);
    assert!(replaced.updated.is_some(), "put sets updated_at");

    // An update never touches it.
    db.put(&Doc {
        created: Some(created),
        ..doc.clone()
    })
    .send()
    .await
    .unwrap();
    let updated = db
        .update::<Doc>("d")
        .set(Doc::BODY, "v3")
        .send_returning_new()
        .await
        .unwrap();
    assert_eq!(updated.created, Some(created));
    assert_eq!(updated.body, "v3");
}

/// A model's literal defaults (ElectroDB's `default: "0.00"`), typed as their fields.
#[derive(Model, Debug, Clone, PartialEq)]
struct Lease {
    #[hash_key]
    id: String,
    #[dynorm(default = "0.00")]
    discount: Option<String>,
    #[dynorm(default = 0)]
    warnings: Option<u32>,
    #[dynorm(default = LeaseState::Open)]
    state: Option<LeaseState>,
    #[dynorm(default = "main")]
    branch: String,
    #[dynorm(default = false)]
    archived: Option<bool>,
}

#[derive(dynorm::Value, Debug, Clone, Copy, PartialEq)]
enum LeaseState {
    Open,
    Closed,
}

impl Lease {
    fn bare(id: &str) -> Self {
        Lease {
            id: id.into(),
            discount: None,
            warnings: None,
            state: None,
            branch: String::new(),
            archived: None,
        }
    }

    fn defaulted(id: &str) -> Self {
        Lease {
            id: id.into(),
            discount: Some("0.00".into()),
            warnings: Some(0),
            state: Some(LeaseState::Open),
            branch: "main".into(),
            archived: Some(false),
        }
    }
}

#[tokio::test]
async fn literal_defaults_fill_absent_attributes_on_every_whole_item_write() {
    let db = common::db_with::<Lease>("inv_literal_defaults").await;
    db.create(&Lease::bare("create")).send().await.unwrap();
    db.put(&Lease::bare("put")).send().await.unwrap();
    db.batch_write()
        .put(&Lease::bare("batch"))
        .send()
        .await
        .unwrap();
    db.transact_write()
        .write(db.put(&Lease::bare("transaction")))
        .send()
        .await
        .unwrap();
    db.update::<Lease>("upsert")
        .set(Lease::DISCOUNT, "1.00")
        .upsert()
        .send()
        .await
        .unwrap();
    for id in ["create", "put", "batch", "transaction"] {
        let stored = db.get::<Lease>(id).send().await.unwrap();
        assert_eq!(stored, Some(Lease::defaulted(id)), "{id}");
    }
    // An upsert that creates the item fills what it does not set.
    let upserted = db.get::<Lease>("upsert").send().await.unwrap().unwrap();
    assert_eq!(
        upserted,
        Lease {
            discount: Some("1.00".into()),
            ..Lease::defaulted("upsert")
        }
    );
    // A value given is kept, and an update of an existing item fills nothing.
    let given = Lease {
        discount: Some("5.00".into()),
        warnings: Some(2),
        state: Some(LeaseState::Closed),
        branch: "dev".into(),
        archived: Some(true),
        ..Lease::bare("given")
    };
    db.put(&given).send().await.unwrap();
    db.update::<Lease>("given")
        .remove(Lease::DISCOUNT)
        .send()
        .await
        .unwrap();
    let stored = db.get::<Lease>("given").send().await.unwrap().unwrap();
    assert_eq!(
        stored,
        Lease {
            discount: None,
            ..given
        }
    );
}

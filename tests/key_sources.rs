//! Keys never go stale: every key rendered from an attribute dynorm sets itself
//! (`updated_at`, the `#[version]`) holds the value stored, on every write path, and an
//! update that changes a key source it cannot see the others of (a `read_only` one) names
//! them with `composite` or reads them from the stored item with `read_composite`.

mod common;

use dynorm::Request;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use aws_sdk_dynamodb::config::interceptors::FinalizerInterceptorContextMut;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::operation::get_item::GetItemOutput;
use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{DateTime, Duration, Utc};
use dynorm::{Client, ErrorKind, Item, Model};

/// `updated_at` in an index's sort key and in a `#[combine]`.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Tickets", entity = "ticket", rename_all = "camelCase")]
#[key(pk = "TICKET#{id}", sk = "#META")]
#[key(
    index = "GSI1",
    gsi1pk = "STATUS#{status}",
    gsi1sk = "UPD#{updated_at}"
)]
struct Ticket {
    id: String,
    status: String,
    title: String,
    #[dynorm(updated_at)]
    updated_at: Option<DateTime<Utc>>,
    #[combine(fields = [status, updated_at], sep = "@")]
    stamp: String,
}

/// The `#[version]` in an index's sort key.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Docs", entity = "doc", rename_all = "camelCase")]
#[key(pk = "DOC#{id}", sk = "#META")]
#[key(index = "GSI1", gsi1pk = "DOCS", gsi1sk = "{id}#V#{version}")]
struct Doc {
    id: String,
    body: String,
    #[version]
    version: u64,
}

/// ElectroDB's `composite` example: an index sort key of a flag and a `read_only` time.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Orgs", entity = "org", rename_all = "camelCase")]
#[key(pk = "ORG#{id}", sk = "#META")]
#[key(
    index = "GSI1",
    gsi1pk = "ORGS",
    gsi1sk = "DELETED#{deleted}#{created_at}"
)]
struct Org {
    id: String,
    name: String,
    deleted: String,
    #[dynorm(default = "now", read_only)]
    created_at: Option<DateTime<Utc>>,
}

fn ticket(id: &str, status: &str) -> Ticket {
    Ticket {
        id: id.into(),
        status: status.into(),
        title: "printer on fire".into(),
        updated_at: None,
        stamp: String::new(),
    }
}

fn s(text: &str) -> AttributeValue {
    AttributeValue::S(text.to_owned())
}

/// The stored item at `pk`, `#META`, raw.
async fn raw(db: &Client, table: &str, pk: &str) -> Item {
    db.sdk()
        .get_item()
        .table_name(table)
        .key("pk", s(pk))
        .key("sk", s("#META"))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
        .unwrap_or_else(|| panic!("no item at {pk}"))
}

fn text(item: &Item, name: &str) -> String {
    match item.get(name) {
        Some(AttributeValue::S(s)) => s.clone(),
        Some(AttributeValue::N(n)) => n.clone(),
        other => panic!("`{name}` is {other:?} in {item:?}"),
    }
}

/// The ticket's keys and `stamp` render from its stored `status` and `updatedAt`.
async fn assert_ticket_current(db: &Client, id: &str, status: &str) -> String {
    let item = raw(db, &db.tables().name::<Ticket>(), &format!("TICKET#{id}")).await;
    let updated = text(&item, "updatedAt");
    assert_eq!(text(&item, "status"), status, "{item:?}");
    assert_eq!(
        text(&item, "gsi1pk"),
        format!("STATUS#{status}"),
        "{item:?}"
    );
    assert_eq!(text(&item, "gsi1sk"), format!("UPD#{updated}"), "{item:?}");
    assert_eq!(
        text(&item, "stamp"),
        format!("{status}@{updated}"),
        "{item:?}"
    );
    updated
}

async fn ticket_db(label: &str) -> Client {
    common::db_with::<Ticket>(label).await
}

#[tokio::test]
async fn updated_at_in_a_key_is_rendered_on_every_whole_item_path() {
    let db = ticket_db("keys_whole").await;
    db.create(&ticket("t1", "open")).send().await.unwrap();
    let created = assert_ticket_current(&db, "t1", "open").await;
    db.put(&ticket("t1", "hold")).send().await.unwrap();
    let put = assert_ticket_current(&db, "t1", "hold").await;
    assert!(put >= created);
    db.insert(NewTicket {
        id: "t2".into(),
        status: "open".into(),
        title: "inserted".into(),
    })
    .send()
    .await
    .unwrap();
    assert_ticket_current(&db, "t2", "open").await;
    let rows = (3..6).map(|i| NewTicket {
        id: format!("t{i}"),
        status: "open".into(),
        title: "many".into(),
    });
    let stored = db.insert_many(rows).send_returning_new().await.unwrap();
    for (i, ticket) in (3..6).zip(&stored) {
        let updated = assert_ticket_current(&db, &format!("t{i}"), "open").await;
        // What `send_returning_new` gives is what was stored.
        assert_eq!(ticket.stamp, format!("open@{updated}"));
    }
    let batch = [ticket("t6", "done"), ticket("t7", "done")];
    db.batch_write().put_many(&batch).send().await.unwrap();
    assert_ticket_current(&db, "t6", "done").await;
    assert_ticket_current(&db, "t7", "done").await;
    let (a, b) = (ticket("t8", "open"), ticket("t1", "done"));
    db.transact_write()
        .write(db.create(&a))
        .write(db.put(&b))
        .send()
        .await
        .unwrap();
    assert_ticket_current(&db, "t8", "open").await;
    assert_ticket_current(&db, "t1", "done").await;
}

#[tokio::test]
async fn an_update_renders_updated_at_into_its_keys() {
    let db = ticket_db("keys_update").await;
    db.create(&ticket("t1", "open")).send().await.unwrap();
    let before = assert_ticket_current(&db, "t1", "open").await;
    // The update sets `status` and dynorm sets `updatedAt`: both keys follow, and the
    // update is not refused for leaving `updatedAt` to dynorm.
    db.update::<Ticket>(TicketKey { id: "t1".into() })
        .set(Ticket::STATUS, "done")
        .send()
        .await
        .unwrap();
    let after = assert_ticket_current(&db, "t1", "done").await;
    assert!(after >= before);
    // `update_raw` takes the same path.
    dynorm::item::UpdateItem::<Ticket>::raw(
        &db,
        Item::from([
            ("pk".to_owned(), s("TICKET#t1")),
            ("sk".to_owned(), s("#META")),
        ]),
    )
    .set(Ticket::STATUS, "hold")
    .send()
    .await
    .unwrap();
    assert_ticket_current(&db, "t1", "hold").await;
    // An upsert that creates the item, and one that updates it.
    for status in ["open", "done"] {
        db.update::<Ticket>(TicketKey { id: "t9".into() })
            .set(Ticket::STATUS, status)
            .set(Ticket::TITLE, "upserted")
            .upsert()
            .send()
            .await
            .unwrap();
        assert_ticket_current(&db, "t9", status).await;
    }
    // In a transaction.
    db.transact_write()
        .write(
            db.update::<Ticket>(TicketKey { id: "t1".into() })
                .set(Ticket::STATUS, "open"),
        )
        .write(
            db.update::<Ticket>(TicketKey { id: "t9".into() })
                .set(Ticket::STATUS, "hold"),
        )
        .send()
        .await
        .unwrap();
    assert_ticket_current(&db, "t1", "open").await;
    assert_ticket_current(&db, "t9", "hold").await;
}

#[tokio::test]
async fn an_update_that_leaves_a_source_alone_names_it_or_reads_it() {
    let db = ticket_db("keys_title").await;
    db.create(&ticket("t1", "open")).send().await.unwrap();
    let key = || TicketKey { id: "t1".into() };
    // `updatedAt` changes, so GSI1 and `stamp` are rendered again, which needs `status`.
    let error = db
        .update::<Ticket>(key())
        .set(Ticket::TITLE, "renamed")
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation);
    assert_eq!(error.attribute(), Some("status"), "{error}");
    for remedy in ["`.composite(", "`.read_composite(true)`", "updatedAt"] {
        assert!(error.message().contains(remedy), "{error}");
    }
    db.update::<Ticket>(key())
        .set(Ticket::TITLE, "renamed")
        .composite(Ticket::STATUS, "open")
        .send()
        .await
        .unwrap();
    assert_ticket_current(&db, "t1", "open").await;
    let requests = common::Requests::new();
    requests
        .client(&db)
        .update::<Ticket>(key())
        .set(Ticket::TITLE, "read")
        .read_composite(true)
        .send()
        .await
        .unwrap();
    requests.assert_counts([("GetItem", 1), ("UpdateItem", 1)]);
    assert_ticket_current(&db, "t1", "open").await;
    // An update that gives every source reads nothing.
    requests
        .client(&db)
        .update::<Ticket>(key())
        .set(Ticket::STATUS, "done")
        .read_composite(true)
        .send()
        .await
        .unwrap();
    requests.assert_counts([("GetItem", 0), ("UpdateItem", 1)]);
    assert_ticket_current(&db, "t1", "done").await;
}

async fn doc_version(db: &Client) -> u64 {
    let item = raw(db, &db.tables().name::<Doc>(), "DOC#d1").await;
    let version: u64 = text(&item, "version").parse().unwrap();
    assert_eq!(text(&item, "gsi1sk"), format!("d1#V#{version}"), "{item:?}");
    version
}

#[tokio::test]
async fn the_version_in_a_key_is_rendered_on_every_path() {
    let db = common::db_with::<Doc>("keys_version").await;
    let mut doc = Doc {
        id: "d1".into(),
        body: "a".into(),
        version: 0,
    };
    db.create(&doc).send().await.unwrap();
    assert_eq!(doc_version(&db).await, 1);
    doc.version = 1;
    db.put(&doc).send().await.unwrap();
    assert_eq!(doc_version(&db).await, 2);
    // `expect_version` gives the stored version, so the new one is known.
    db.update::<Doc>(DocKey { id: "d1".into() })
        .set(Doc::BODY, "b")
        .expect_version(2)
        .send()
        .await
        .unwrap();
    assert_eq!(doc_version(&db).await, 3);
    // `ignore_version` does not: the key needs the stored version, named or read.
    let error = db
        .update::<Doc>(DocKey { id: "d1".into() })
        .set(Doc::BODY, "c")
        .ignore_version()
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation);
    assert_eq!(error.attribute(), Some("version"), "{error}");
    assert!(error.message().contains("expect_version"), "{error}");
    db.update::<Doc>(DocKey { id: "d1".into() })
        .set(Doc::BODY, "c")
        .ignore_version()
        .read_composite(true)
        .send()
        .await
        .unwrap();
    assert_eq!(doc_version(&db).await, 4);
    db.update::<Doc>(DocKey { id: "d1".into() })
        .set(Doc::BODY, "d")
        .ignore_version()
        .composite(Doc::VERSION, 4)
        .send()
        .await
        .unwrap();
    assert_eq!(doc_version(&db).await, 5);
    db.transact_write()
        .write(
            db.update::<Doc>(DocKey { id: "d1".into() })
                .set(Doc::BODY, "e")
                .expect_version(5),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(doc_version(&db).await, 6);
}

async fn org_db(label: &str) -> Client {
    let db = common::db_with::<Org>(label).await;
    db.create(&Org {
        id: "o1".into(),
        name: "Acme".into(),
        deleted: "yes".into(),
        created_at: None,
    })
    .send()
    .await
    .unwrap();
    db
}

/// The org's `createdAt`, after checking that GSI1's sort key renders from the item.
async fn org_created(db: &Client) -> String {
    let item = raw(db, &db.tables().name::<Org>(), "ORG#o1").await;
    let created = text(&item, "createdAt");
    assert_eq!(
        text(&item, "gsi1sk"),
        format!("DELETED#{}#{created}", text(&item, "deleted")),
        "{item:?}"
    );
    created
}

fn org_key() -> OrgKey {
    OrgKey { id: "o1".into() }
}

#[tokio::test]
async fn a_read_only_source_is_named_with_composite() {
    let db = org_db("keys_composite").await;
    let created_at = db
        .get::<Org>(org_key())
        .send()
        .await
        .unwrap()
        .unwrap()
        .created_at
        .unwrap();
    // Without it, the update cannot rebuild GSI1, and says how it could.
    let error = db
        .update::<Org>(org_key())
        .set(Org::DELETED, "no")
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation);
    assert_eq!(error.attribute(), Some("createdAt"), "{error}");
    assert!(error.message().contains("`.composite("), "{error}");
    assert!(
        error.message().contains("`.read_composite(true)`"),
        "{error}"
    );
    // With the stored value, the key is rebuilt, and the value itself is not written.
    let sent = db
        .update::<Org>(org_key())
        .set(Org::DELETED, "no")
        .composite(Org::CREATED_AT, created_at)
        .preview()
        .unwrap();
    let created_name = sent
        .expression_attribute_names()
        .unwrap()
        .iter()
        .find(|(_, name)| name.as_str() == "createdAt")
        .map(|(placeholder, _)| placeholder.clone())
        .expect("the condition names createdAt");
    assert!(
        !sent.update_expression().unwrap().contains(&created_name),
        "{sent:?}"
    );
    assert!(
        sent.condition_expression().unwrap().contains(&created_name),
        "{sent:?}"
    );
    db.update::<Org>(org_key())
        .set(Org::DELETED, "no")
        .composite(Org::CREATED_AT, created_at)
        .send()
        .await
        .unwrap();
    let stored = org_created(&db).await;
    assert_eq!(
        stored,
        created_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    );
    // A wrong value fails the condition and changes nothing: no stale key is stored.
    let before = raw(&db, &db.tables().name::<Org>(), "ORG#o1").await;
    let error = db
        .update::<Org>(org_key())
        .set(Org::DELETED, "yes")
        .composite(Org::CREATED_AT, created_at + Duration::seconds(1))
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::ConditionFailed, "{error}");
    assert_eq!(error.attribute(), Some("createdAt"), "{error}");
    assert_eq!(raw(&db, &db.tables().name::<Org>(), "ORG#o1").await, before);
    // Named twice, or for an attribute the update writes: refused before sending.
    let error = db
        .update::<Org>(org_key())
        .set(Org::DELETED, "yes")
        .composite(Org::CREATED_AT, created_at)
        .composite(Org::CREATED_AT, created_at)
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation, "{error}");
    let error = db
        .update::<Org>(org_key())
        .set(Org::DELETED, "yes")
        .composite(Org::DELETED, "no")
        .composite(Org::CREATED_AT, created_at)
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation, "{error}");
    assert_eq!(error.attribute(), Some("deleted"), "{error}");
    // In a transaction.
    db.transact_write()
        .write(
            db.update::<Org>(org_key())
                .set(Org::DELETED, "yes")
                .composite(Org::CREATED_AT, created_at),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(org_created(&db).await, stored);
    assert_eq!(
        text(
            &raw(&db, &db.tables().name::<Org>(), "ORG#o1").await,
            "deleted"
        ),
        "yes"
    );
}

#[tokio::test]
async fn a_read_only_source_is_read_from_the_stored_item() {
    let db = org_db("keys_read").await;
    let created = org_created(&db).await;
    let requests = common::Requests::new();
    let counted = requests.client(&db);
    let update = counted
        .update::<Org>(org_key())
        .set(Org::DELETED, "no")
        .read_composite(true);
    let predicted = update.predict().unwrap();
    assert_eq!(predicted.requests(), 2, "{predicted}");
    assert!(predicted.read_units().min() > 0.0, "{predicted}");
    assert!(
        predicted.reasons().iter().any(|r| r.contains("GetItem")),
        "{predicted}"
    );
    update.send().await.unwrap();
    requests.assert_counts([("GetItem", 1), ("UpdateItem", 1)]);
    assert_eq!(org_created(&db).await, created);
    // A transaction cannot read first: refused before sending, naming `composite`.
    let error = db
        .transact_write()
        .write(
            db.update::<Org>(org_key())
                .set(Org::DELETED, "yes")
                .read_composite(true),
        )
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Validation, "{error}");
    assert!(error.message().contains("composite"), "{error}");
    // An item that is not there: NotFound, from the read.
    requests.clear();
    let error = counted
        .update::<Org>(OrgKey {
            id: "nobody".into(),
        })
        .set(Org::DELETED, "no")
        .read_composite(true)
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::NotFound, "{error}");
    requests.assert_counts([("GetItem", 1)]);
    // An upsert of an item that is not there creates it, its key from the default.
    counted
        .update::<Org>(OrgKey { id: "o2".into() })
        .set(Org::NAME, "Blue")
        .set(Org::DELETED, "no")
        .read_composite(true)
        .upsert()
        .send()
        .await
        .unwrap();
    let item = raw(&db, &db.tables().name::<Org>(), "ORG#o2").await;
    assert_eq!(
        text(&item, "gsi1sk"),
        format!("DELETED#no#{}", text(&item, "createdAt"))
    );
}

/// Rewrites the `createdAt` of the first `GetItem` answers it sees: as if another writer
/// changed it right after the read.
#[derive(Debug, Clone)]
struct StaleRead {
    remaining: Arc<AtomicUsize>,
}

impl Intercept for StaleRead {
    fn name(&self) -> &'static str {
        "StaleRead"
    }

    fn modify_before_attempt_completion(
        &self,
        context: &mut FinalizerInterceptorContextMut<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Some(Ok(output)) = context.output_or_error_mut() else {
            return Ok(());
        };
        let Some(item) = output
            .downcast_mut::<GetItemOutput>()
            .and_then(|read| read.item.as_mut())
        else {
            return Ok(());
        };
        let taken = self
            .remaining
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
        if taken.is_ok() {
            item.insert("createdAt".into(), s("2000-01-01T00:00:00.000Z"));
        }
        Ok(())
    }
}

fn with_stale_reads(db: &Client, times: usize) -> Client {
    let config = db
        .sdk()
        .config()
        .to_builder()
        .interceptor(StaleRead {
            remaining: Arc::new(AtomicUsize::new(times)),
        })
        .build();
    db.to_builder()
        .sdk(aws_sdk_dynamodb::Client::from_conf(config))
        .build()
}

#[tokio::test]
async fn a_value_changed_after_the_read_is_read_again_a_bounded_number_of_times() {
    let db = org_db("keys_reread").await;
    let created = org_created(&db).await;
    // The first read is stale: its update fails on the stored value, then a second read
    // and update succeed, with the stored value in the key.
    let requests = common::Requests::new();
    let racing = requests.client(&with_stale_reads(&db, 1));
    racing
        .update::<Org>(org_key())
        .set(Org::DELETED, "no")
        .read_composite(true)
        .send()
        .await
        .unwrap();
    requests.assert_counts([("GetItem", 2), ("UpdateItem", 2)]);
    assert_eq!(org_created(&db).await, created);
    // Every read stale: it gives up after 3, saying so, and nothing changed.
    let before = raw(&db, &db.tables().name::<Org>(), "ORG#o1").await;
    requests.clear();
    let error = requests
        .client(&with_stale_reads(&db, usize::MAX))
        .update::<Org>(org_key())
        .set(Org::DELETED, "yes")
        .read_composite(true)
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::ConditionFailed, "{error}");
    assert_eq!(error.attribute(), Some("createdAt"), "{error}");
    assert!(error.message().contains("3 times"), "{error}");
    requests.assert_counts([("GetItem", 3), ("UpdateItem", 3)]);
    assert_eq!(raw(&db, &db.tables().name::<Org>(), "ORG#o1").await, before);
}

//! Observability: the span of every request, consumed capacity and counts checked against
//! what the server returned, and request previews equal to what is sent.

mod common;

use dynorm::Request;
use std::collections::HashMap;

use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemInput;
use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemInput;
use aws_sdk_dynamodb::operation::delete_item::DeleteItemInput;
use aws_sdk_dynamodb::operation::get_item::GetItemInput;
use aws_sdk_dynamodb::operation::put_item::PutItemInput;
use aws_sdk_dynamodb::operation::query::QueryInput;
use aws_sdk_dynamodb::operation::scan::ScanInput;
use aws_sdk_dynamodb::operation::transact_get_items::TransactGetItemsInput;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsInput;
use aws_sdk_dynamodb::operation::update_item::UpdateItemInput;
use aws_sdk_dynamodb::types::{
    AttributeValue, ReturnValue, ReturnValuesOnConditionCheckFailure, Select,
};
use common::observe::{Spans, Wire};
use dynorm::observe::Tally;
use dynorm::{Collection, Model};
use futures::TryStreamExt;

/// Every value holds `PII`, so a span that recorded one is found.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Secret")]
struct Secret {
    #[hash_key]
    owner: String,
    #[range_key]
    id: String,
    #[index(name = "byColor")]
    color: String,
    note: String,
    size: u32,
}

/// Three entities in one table, two of them read together as a collection.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Desk", entity = "desk")]
#[key(pk = "DESK#{desk}", sk = "#META")]
struct Desk {
    desk: String,
    label: String,
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Desk", entity = "drawer")]
#[key(pk = "DESK#{desk}", sk = "DRAWER#{drawer}")]
struct Drawer {
    desk: String,
    drawer: String,
    note: String,
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Desk", entity = "lamp")]
#[key(pk = "DESK#{desk}", sk = "LAMP#{lamp}")]
struct Lamp {
    desk: String,
    lamp: String,
}

dynorm::shared_table!(struct DeskTable { Desk, Drawer, Lamp });

#[derive(Collection, Debug)]
enum DeskWithDrawers {
    Desk(Desk),
    Drawer(Drawer),
}

fn secret(owner: &str, id: usize, size: u32) -> Secret {
    Secret {
        owner: format!("owner-PII-{owner}"),
        id: format!("id-PII-{id:03}"),
        color: "color-PII".into(),
        note: "note-PII".into(),
        size,
    }
}

fn key(owner: &str, id: usize) -> SecretKey {
    SecretKey {
        owner: format!("owner-PII-{owner}"),
        id: format!("id-PII-{id:03}"),
    }
}

fn s(text: &str) -> AttributeValue {
    AttributeValue::S(text.to_owned())
}

fn n(number: &str) -> AttributeValue {
    AttributeValue::N(number.to_owned())
}

#[tokio::test]
async fn every_request_has_one_span_with_the_conventions_fields_and_no_value() {
    let db = common::db_with::<Secret>("observe_spans").await;
    let table = db.tables().name::<Secret>();
    let (spans, _guard) = Spans::install();

    let one = secret("a", 1, 10);
    db.put(&one).send().await.unwrap();
    db.get::<Secret>(key("a", 1))
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    db.update::<Secret>(key("a", 1))
        .set(Secret::SIZE, 11u32)
        .send()
        .await
        .unwrap();
    let many: Vec<Secret> = (2..5).map(|i| secret("a", i, i as u32)).collect();
    db.batch_write().put_many(&many).send().await.unwrap();
    let pages: Vec<Secret> = db
        .query_by::<Secret>("owner-PII-a")
        .filter(Secret::SIZE.gt(2u32))
        .page_size(2)
        .all()
        .await
        .unwrap();
    assert_eq!(pages.len(), 3);
    db.scan_by::<SecretByColor>().all().await.unwrap();
    db.get_many::<Secret, _>([key("a", 1), key("a", 2)])
        .send()
        .await
        .unwrap();
    db.transact_write()
        .write(db.update::<Secret>(key("a", 2)).set(Secret::NOTE, "n-PII"))
        .check::<Secret>(key("a", 3), Secret::SIZE.eq(3u32))
        .send()
        .await
        .unwrap();
    db.transact_get()
        .get::<Secret>(key("a", 1))
        .send()
        .await
        .unwrap();
    db.delete::<Secret>(key("a", 1)).send().await.unwrap();

    assert_eq!(
        spans.names(),
        [
            "DynamoDB.PutItem",
            "DynamoDB.GetItem",
            "DynamoDB.UpdateItem",
            "DynamoDB.BatchWriteItem",
            "DynamoDB.Query", // limit 2 over 4 items: three pages, the last empty
            "DynamoDB.Query",
            "DynamoDB.Query",
            "DynamoDB.Scan",
            "DynamoDB.BatchGetItem",
            "DynamoDB.TransactWriteItems",
            "DynamoDB.TransactGetItems",
            "DynamoDB.DeleteItem",
        ]
    );
    let all = spans.all();
    for span in &all {
        assert_eq!(
            span.field("db.system.name"),
            Some("aws.dynamodb"),
            "{span:?}"
        );
        assert_eq!(span.field("otel.kind"), Some("client"));
        assert_eq!(span.field("otel.name"), Some(span.name));
        assert_eq!(
            span.field("db.operation.name"),
            span.name.strip_prefix("DynamoDB.")
        );
        assert_eq!(span.field("aws.dynamodb.table_names"), Some(table.as_str()));
        assert_eq!(span.field("error.type"), None);
        for (name, value) in &span.fields {
            assert!(
                !value.contains("PII"),
                "{} records a value: {name} = {value}",
                span.name
            );
        }
    }
    let single: Vec<_> = all
        .iter()
        .filter(|s| s.field("dynorm.model").is_some())
        .collect();
    assert!(single
        .iter()
        .all(|s| s.field("dynorm.model") == Some("Secret")));
    let get = &all[1];
    assert_eq!(get.field("aws.dynamodb.consistent_read"), Some("true"));
    assert_eq!(all[0].field("dynorm.operation"), Some("put"));

    let query = &all[4];
    assert_eq!(query.field("aws.dynamodb.limit"), Some("2"));
    assert_eq!(query.field("aws.dynamodb.scan_forward"), Some("true"));
    assert_eq!(query.field("aws.dynamodb.count"), Some("1")); // items 1 (size 11) and 2 (size 2)
    assert_eq!(query.field("aws.dynamodb.scanned_count"), Some("2"));
    assert_eq!(query.field("dynorm.key_condition"), Some("#n0 = :v0"));
    assert_eq!(query.field("dynorm.filter"), Some("#n1 > :v1"));
    assert_eq!(query.field("dynorm.continued"), Some("false"));
    assert_eq!(all[5].field("dynorm.continued"), Some("true"));

    let scan = &all[7];
    assert_eq!(scan.field("aws.dynamodb.index_name"), Some("byColor"));
    assert_eq!(scan.field("aws.dynamodb.scanned_count"), Some("4"));

    let batch = &all[3];
    for batch in [batch, &all[8]] {
        assert_eq!(batch.field("dynorm.model"), Some("Secret"), "{batch:?}");
    }
    assert_eq!(batch.field("dynorm.attempt"), Some("1"));
    assert_eq!(batch.field("dynorm.batch.requests"), Some("3"));
    assert_eq!(batch.field("dynorm.batch.unprocessed"), Some("0"));
    assert_eq!(all[8].field("dynorm.batch.requests"), Some("2"));
    assert_eq!(all[9].field("dynorm.transaction.items"), Some("2"));
    assert_eq!(all[9].field("dynorm.model"), Some("Secret"));

    // Capacity was not asked for, so none is recorded.
    assert!(all
        .iter()
        .all(|s| s.field("aws.dynamodb.consumed_capacity").is_none()));
}

#[tokio::test]
async fn a_failed_request_records_its_error_kind() {
    let db = common::db_with::<Secret>("observe_errors").await;
    let (spans, _guard) = Spans::install();
    let one = secret("e", 1, 1);
    db.create(&one).send().await.unwrap();
    let error = db.create(&one).send().await.unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::AlreadyExists);
    let failed = spans.all().pop().unwrap();
    assert_eq!(failed.name, "DynamoDB.PutItem");
    assert_eq!(failed.field("error.type"), Some("AlreadyExists"));
    assert_eq!(failed.field("otel.status_code"), Some("ERROR"));
    assert_eq!(failed.field("dynorm.operation"), Some("create"));

    let missing = db
        .clone()
        .to_builder()
        .table_prefix("observe_no_such_table_")
        .build();
    let error = missing.get::<Secret>(key("e", 1)).send().await.unwrap_err();
    let failed = spans.all().pop().unwrap();
    assert_eq!(
        failed.field("error.type"),
        Some(format!("{:?}", error.kind()).as_str())
    );
}

#[tokio::test]
async fn capacity_is_what_the_server_returned_summed_over_requests() {
    let db = common::db_with::<Secret>("observe_capacity").await;
    let wire = Wire::default();
    let db = wire.client(&db);
    let table = db.tables().name::<Secret>();

    // Single-item operations, each with a tally of its own.
    let one = secret("c", 1, 1);
    let [put, get, update, delete] = [(); 4].map(|()| Tally::default());
    db.put(&one).tally(&put).send().await.unwrap();
    let found = db
        .get::<Secret>(key("c", 1))
        .tally(&get)
        .send()
        .await
        .unwrap();
    assert_eq!(found.as_ref(), Some(&one));
    db.update::<Secret>(key("c", 1))
        .set(Secret::SIZE, 2u32)
        .tally(&update)
        .send()
        .await
        .unwrap();
    db.delete::<Secret>(key("c", 1))
        .tally(&delete)
        .send()
        .await
        .unwrap();
    let mut sum = 0.0;
    for tally in [&put, &get, &update, &delete] {
        assert_eq!(tally.requests(), 1);
        let capacity = tally.consumed_capacity().expect("capacity was asked for");
        assert!(capacity.units > 0.0, "{tally:?}");
        assert_eq!(capacity.tables[&table], capacity.units);
        sum += capacity.units;
    }
    assert_eq!(sum, wire.capacity_units());

    // One tally shared by two operations sums them.
    let shared = Tally::default();
    for _ in 0..2 {
        db.get::<Secret>(key("c", 1))
            .tally(&shared)
            .send()
            .await
            .unwrap();
    }
    let summed = shared
        .consumed_capacity()
        .expect("a tally asks for capacity");
    assert_eq!(shared.requests(), 2);
    assert_eq!(summed.units, 2.0 * get.consumed_capacity().unwrap().units);

    // A batch write of 30 items: two chunks, their capacity summed.
    wire.clear();
    let items: Vec<Secret> = (0..30).map(|i| secret("c", i, i as u32)).collect();
    let batch = Tally::default();
    let written = db
        .batch_write()
        .put_many(&items)
        .tally(&batch)
        .send()
        .await
        .unwrap();
    assert_eq!((written, batch.requests()), (30, 2));
    let units = batch.consumed_capacity().unwrap().units;
    assert!(units >= 30.0, "{batch:?}");
    assert_eq!(units, wire.capacity_units());

    // A batch read.
    wire.clear();
    let read = Tally::default();
    let found = db
        .get_many::<Secret, _>((0..30).map(|i| key("c", i)))
        .tally(&read)
        .send()
        .await
        .unwrap();
    assert_eq!(found.len(), 30);
    let units = read.consumed_capacity().unwrap().units;
    assert!(units > 0.0);
    assert_eq!(units, wire.capacity_units());

    // A page: counts and capacity, with what the filter threw away.
    wire.clear();
    let paged = Tally::default();
    let page = db
        .query_by::<Secret>("owner-PII-c")
        .filter(Secret::SIZE.ge(20u32))
        .tally(&paged)
        .page(None)
        .await
        .unwrap();
    assert_eq!((paged.matched(), paged.scanned_count()), (10, 30));
    assert_eq!(page.items.len(), 10);
    let units = paged.consumed_capacity().unwrap().units;
    assert!(units > 0.0);
    assert_eq!(units, wire.capacity_units());

    // A stream of pages, with a running total.
    wire.clear();
    let tally = Tally::default();
    let mut stream = db
        .query_by::<Secret>("owner-PII-c")
        .filter(Secret::SIZE.lt(5u32))
        .page_size(10)
        .tally(&tally)
        .stream();
    let first = stream.try_next().await.unwrap();
    assert!(first.is_some());
    assert_eq!(
        (tally.requests(), tally.matched(), tally.scanned_count()),
        (1, 5, 10)
    );
    let rest: Vec<Secret> = stream.try_collect().await.unwrap();
    assert_eq!(rest.len(), 4);
    assert_eq!(tally.scanned_count(), 30);
    assert_eq!(
        tally.scanned_count() - tally.matched(),
        25,
        "thrown away by the filter"
    );
    assert!(tally.requests() >= 3);
    assert_eq!(
        tally.consumed_capacity().unwrap().units,
        wire.capacity_units()
    );

    // A scan count, tallied.
    let scanned = Tally::default();
    let count = db.scan::<Secret>().tally(&scanned).count().await.unwrap();
    assert_eq!((count, scanned.matched()), (30, 30));
    assert!(scanned.consumed_capacity().unwrap().units > 0.0);

    // Transactions.
    wire.clear();
    let written = Tally::default();
    db.transact_write()
        .write(db.update::<Secret>(key("c", 1)).set(Secret::NOTE, "x"))
        .write(db.delete::<Secret>(key("c", 2)))
        .tally(&written)
        .send()
        .await
        .unwrap();
    let units = written.consumed_capacity().unwrap().units;
    assert!(units > 0.0);
    assert_eq!(units, wire.capacity_units());
    wire.clear();
    let read = Tally::default();
    db.transact_get()
        .get::<Secret>(key("c", 1))
        .get::<Secret>(key("c", 3))
        .tally(&read)
        .send()
        .await
        .unwrap();
    let units = read.consumed_capacity().unwrap().units;
    assert!(units > 0.0);
    assert_eq!(units, wire.capacity_units());
}

#[tokio::test]
async fn the_span_records_the_capacity_as_the_conventions_say() {
    let db = common::db_with::<Secret>("observe_capacity_span").await;
    let (spans, _guard) = Spans::install();
    let one = secret("s", 1, 1);
    let tally = Tally::default();
    db.put(&one).tally(&tally).send().await.unwrap();
    let span = spans.all().pop().unwrap();
    let json: serde_json::Value =
        serde_json::from_str(span.field("aws.dynamodb.consumed_capacity").unwrap()).unwrap();
    let capacity = tally.consumed_capacity().unwrap();
    assert_eq!(json[0]["TableName"], db.tables().name::<Secret>().as_str());
    assert_eq!(json[0]["CapacityUnits"].as_f64(), Some(capacity.units));
    assert_eq!(span_units(&span), capacity.units);
}

/// The `dynorm.capacity_units` a span recorded.
fn span_units(span: &common::observe::Captured) -> f64 {
    span.field("dynorm.capacity_units")
        .expect("capacity is recorded")
        .parse()
        .expect("a number")
}

/// A client that sends nothing: previews need no server.
fn offline() -> dynorm::Client {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
        .region(aws_sdk_dynamodb::config::Region::new("us-east-1"))
        .build();
    dynorm::Client::builder(aws_sdk_dynamodb::Client::from_conf(config))
        .table_prefix("dev_")
        .build()
}

fn names(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn values(pairs: &[(&str, AttributeValue)]) -> HashMap<String, AttributeValue> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

fn key_item(owner: &str, id: usize) -> HashMap<String, AttributeValue> {
    values(&[
        ("owner", s(&format!("owner-PII-{owner}"))),
        ("id", s(&format!("id-PII-{id:03}"))),
    ])
}

#[test]
fn previews_are_the_exact_sdk_inputs() {
    let db = offline();
    let get = db.get::<Secret>(key("p", 1)).consistent_read(true);
    assert_eq!(
        get.preview().unwrap(),
        GetItemInput::builder()
            .table_name("dev_Secret")
            .set_key(Some(key_item("p", 1)))
            .consistent_read(true)
            .build()
            .unwrap()
    );

    let one = secret("p", 1, 7);
    let create = db.create(&one).condition(Secret::NOTE.begins_with("note"));
    let mut item = key_item("p", 1);
    item.insert("color".into(), s("color-PII"));
    item.insert("note".into(), s("note-PII"));
    item.insert("size".into(), n("7"));
    assert_eq!(
        create.preview().unwrap(),
        PutItemInput::builder()
            .table_name("dev_Secret")
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(#n0) AND begins_with(#n1, :v0)")
            .set_expression_attribute_names(Some(names(&[("#n0", "owner"), ("#n1", "note")])))
            .set_expression_attribute_values(Some(values(&[(":v0", s("note"))])))
            .return_values(ReturnValue::None)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .unwrap()
    );

    let update = db
        .update::<Secret>(key("p", 1))
        .set(Secret::NOTE, "new")
        .increment(Secret::SIZE, 2u32)
        .condition(Secret::SIZE.lt(100u32));
    let preview = update.preview().unwrap();
    assert_eq!(preview.table_name(), Some("dev_Secret"));
    assert_eq!(preview.key(), Some(&key_item("p", 1)));
    assert_eq!(
        preview.update_expression(),
        Some("SET #n0 = :v0, #n1 = if_not_exists(#n1, :v1) + :v2")
    );
    assert_eq!(
        preview.condition_expression(),
        Some("attribute_exists(#n2) AND #n1 < :v3")
    );
    assert_eq!(
        preview.expression_attribute_names(),
        Some(&names(&[
            ("#n0", "note"),
            ("#n1", "size"),
            ("#n2", "owner")
        ]))
    );
    assert_eq!(
        preview.expression_attribute_values(),
        Some(&values(&[
            (":v0", s("new")),
            (":v1", n("0")),
            (":v2", n("2")),
            (":v3", n("100"))
        ]))
    );
    assert_eq!(
        preview,
        update.preview().unwrap(),
        "placeholders are stable"
    );

    let delete = db.delete::<Secret>(key("p", 1)).require_exists(true);
    assert_eq!(
        delete.preview().unwrap(),
        DeleteItemInput::builder()
            .table_name("dev_Secret")
            .set_key(Some(key_item("p", 1)))
            .condition_expression("attribute_exists(#n0)")
            .set_expression_attribute_names(Some(names(&[("#n0", "owner")])))
            .return_values(ReturnValue::None)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .unwrap()
    );

    let query = db
        .query_by::<Secret>("owner-PII-p")
        .range(Secret::ID.begins_with("id-"))
        .filter(Secret::SIZE.gt(3u32))
        .page_size(25)
        .descending();
    assert_eq!(
        query.preview().unwrap(),
        QueryInput::builder()
            .table_name("dev_Secret")
            .key_condition_expression("#n0 = :v0 AND begins_with(#n1, :v1)")
            .filter_expression("#n2 > :v2")
            .set_expression_attribute_names(Some(names(&[
                ("#n0", "owner"),
                ("#n1", "id"),
                ("#n2", "size")
            ])))
            .set_expression_attribute_values(Some(values(&[
                (":v0", s("owner-PII-p")),
                (":v1", s("id-")),
                (":v2", n("3"))
            ])))
            .limit(25)
            .scan_index_forward(false)
            .consistent_read(false)
            .build()
            .unwrap()
    );

    let scan = db
        .scan_by::<SecretByColor>()
        .filter(Secret::NOTE.exists())
        .segment(1, 4);
    assert_eq!(
        scan.preview().unwrap(),
        ScanInput::builder()
            .table_name("dev_Secret")
            .index_name("byColor")
            .filter_expression("attribute_exists(#n0)")
            .set_expression_attribute_names(Some(names(&[("#n0", "note")])))
            .consistent_read(false)
            .segment(1)
            .total_segments(4)
            .build()
            .unwrap()
    );
    assert_eq!(scan.preview().unwrap().select(), None::<&Select>);

    let transaction = db
        .transact_write()
        .write(db.delete::<Secret>(key("p", 1)))
        .check::<Secret>(key("p", 2), Secret::SIZE.eq(1u32))
        .idempotency_token("t-1");
    let preview: TransactWriteItemsInput = transaction.preview().unwrap();
    let items = preview.transact_items();
    assert_eq!(items.len(), 2);
    assert_eq!(preview.client_request_token(), Some("t-1"));
    let check = items[1].condition_check().unwrap();
    assert_eq!(check.condition_expression(), "#n0 = :v0");
    assert_eq!(check.key(), &key_item("p", 2));

    let read: TransactGetItemsInput = db
        .transact_get()
        .get::<Secret>(key("p", 1))
        .preview()
        .unwrap();
    assert_eq!(
        read.transact_items()[0].get().unwrap().key(),
        &key_item("p", 1)
    );

    // Batches: one input per chunk, 25 writes or 100 keys each.
    let items: Vec<Secret> = (0..60).map(|i| secret("p", i, 1)).collect();
    let chunks: Vec<BatchWriteItemInput> = db
        .batch_write()
        .put_many(&items)
        .delete::<Secret>(key("p", 99))
        .preview()
        .unwrap();
    let sizes: Vec<usize> = chunks
        .iter()
        .map(|c| c.request_items().unwrap()["dev_Secret"].len())
        .collect();
    assert_eq!(sizes, [25, 25, 11]);
    let last = &chunks[2].request_items().unwrap()["dev_Secret"][10];
    assert_eq!(last.delete_request().unwrap().key(), &key_item("p", 99));
    let reads: Vec<BatchGetItemInput> = db
        .batch_get()
        .get_many::<Secret, _>((0..150).map(|i| key("p", i)))
        .preview()
        .unwrap();
    let sizes: Vec<usize> = reads
        .iter()
        .map(|c| c.request_items().unwrap()["dev_Secret"].keys().len())
        .collect();
    assert_eq!(sizes, [100, 50]);

    // Errors found before sending are found by the preview.
    let error = db.query::<Secret>().preview().unwrap_err();
    assert_eq!(error.kind(), dynorm::ErrorKind::Validation);
    let error = db.transact_write().preview().unwrap_err();
    assert_eq!(error.kind(), dynorm::ErrorKind::Validation);
}

#[tokio::test]
async fn what_is_sent_is_the_preview() {
    let db = common::db_with::<Secret>("observe_previews").await;
    let wire = Wire::default();
    let db = wire.client(&db);

    let one = secret("w", 1, 1);
    let create = db.create(&one).condition(Secret::NOTE.not_exists());
    let preview = create.preview().unwrap();
    create.send().await.unwrap();
    assert_eq!(wire.inputs::<PutItemInput>(), [preview]);

    let get = db.get::<Secret>(key("w", 1)).consistent_read(true);
    let preview = get.preview().unwrap();
    get.send().await.unwrap();
    assert_eq!(wire.inputs::<GetItemInput>(), [preview]);

    let update = db
        .update::<Secret>(key("w", 1))
        .set(Secret::NOTE, "changed")
        .increment(Secret::SIZE, 1u32)
        .condition(Secret::SIZE.between(0u32, 10u32));
    let preview = update.preview().unwrap();
    update.send_returning_new().await.unwrap();
    let sent = wire.inputs::<UpdateItemInput>().pop().unwrap();
    assert_eq!(sent.return_values(), Some(&ReturnValue::AllNew));
    let sent = UpdateItemInput::builder()
        .set_table_name(sent.table_name)
        .set_key(sent.key)
        .set_update_expression(sent.update_expression)
        .set_condition_expression(sent.condition_expression)
        .set_expression_attribute_names(sent.expression_attribute_names)
        .set_expression_attribute_values(sent.expression_attribute_values)
        .return_values(ReturnValue::None)
        .set_return_values_on_condition_check_failure(sent.return_values_on_condition_check_failure)
        .build()
        .unwrap();
    assert_eq!(sent, preview, "the same request, but for what it returns");

    let query = db
        .query_by::<Secret>("owner-PII-w")
        .filter(Secret::SIZE.ge(1u32))
        .page_size(1);
    let preview = query.preview().unwrap();
    let page = query.clone().page(None).await.unwrap();
    let cursor = page.cursor.expect("a full page has a cursor");
    query.page(Some(&cursor)).await.unwrap();
    let sent = wire.inputs::<QueryInput>();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0], preview);
    let mut next = sent[1].clone();
    assert!(next.exclusive_start_key.take().is_some());
    assert_eq!(
        next, preview,
        "a later page is the preview and its ExclusiveStartKey"
    );

    let scan = db.scan::<Secret>().page_size(5);
    let preview = scan.preview().unwrap();
    scan.page(None).await.unwrap();
    assert_eq!(wire.inputs::<ScanInput>(), [preview]);

    let more: Vec<Secret> = (2..4).map(|i| secret("w", i, 1)).collect();
    let batch = db.batch_write().put_many(&more);
    let preview = batch.preview().unwrap();
    batch.send().await.unwrap();
    assert_eq!(wire.inputs::<BatchWriteItemInput>(), preview);

    let reads = db
        .batch_get()
        .get::<Secret>(key("w", 2))
        .get::<Secret>(key("w", 3));
    let preview = reads.preview().unwrap();
    reads.send().await.unwrap();
    assert_eq!(wire.inputs::<BatchGetItemInput>(), preview);

    let transaction = db
        .transact_write()
        .write(db.delete::<Secret>(key("w", 2)).require_exists(true))
        .check::<Secret>(key("w", 3), Secret::SIZE.eq(1u32));
    let preview = transaction.preview().unwrap();
    transaction.send().await.unwrap();
    let mut sent = wire.inputs::<TransactWriteItemsInput>();
    // Without a token of ours, the SDK makes one as it sends.
    assert!(preview.client_request_token.is_none());
    sent[0].client_request_token = None;
    assert_eq!(sent, [preview]);

    let read = db.transact_get().get::<Secret>(key("w", 1));
    let preview = read.preview().unwrap();
    read.send().await.unwrap();
    assert_eq!(wire.inputs::<TransactGetItemsInput>(), [preview]);

    let delete = db.delete::<Secret>(key("w", 1));
    let preview = delete.preview().unwrap();
    delete.send().await.unwrap();
    assert_eq!(wire.inputs::<DeleteItemInput>(), [preview]);
}

#[tokio::test]
async fn each_batch_attempt_has_a_span_that_says_why_it_was_retried() {
    use common::{Fault, Faults, Script};
    use dynorm::client::RetryPolicy;
    let db = common::db_with::<Secret>("observe_retries").await;
    let quick = RetryPolicy::new(5).backoff(
        std::time::Duration::from_millis(1),
        std::time::Duration::from_millis(5),
    );
    let (spans, _guard) = Spans::install();

    // Throttled once: the second attempt sends the chunk again.
    let script = Script::new("BatchWriteItem", Fault::Throttle).times(1);
    let items: Vec<Secret> = (0..3).map(|i| secret("r", i, 1)).collect();
    let tally = Tally::default();
    let written = script
        .client(&db, 1)
        .to_builder()
        .retry_policy(quick)
        .build()
        .batch_write()
        .put_many(&items)
        .tally(&tally)
        .send()
        .await
        .unwrap();
    assert_eq!((written, tally.requests()), (3, 2));
    let attempts = spans.all();
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[0].field("dynorm.attempt"), Some("1"));
    assert_eq!(attempts[0].field("error.type"), Some("Throttled"));
    assert_eq!(attempts[1].field("dynorm.attempt"), Some("2"));
    assert_eq!(attempts[1].field("error.type"), None);
    assert_eq!(attempts[1].field("dynorm.batch.unprocessed"), Some("0"));

    // Every request keeps one write and hands the rest back as unprocessed.
    let (spans, _guard) = Spans::install();
    let faults = Faults::new().unprocessed(1.0);
    let more: Vec<Secret> = (10..13).map(|i| secret("r", i, 1)).collect();
    faults
        .client(&db)
        .to_builder()
        .retry_policy(quick)
        .build()
        .batch_write()
        .put_many(&more)
        .send()
        .await
        .unwrap();
    let attempts = spans.all();
    let seen: Vec<_> = attempts
        .iter()
        .map(|s| {
            (
                s.field("dynorm.attempt"),
                s.field("dynorm.batch.requests"),
                s.field("dynorm.batch.unprocessed"),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (Some("1"), Some("3"), Some("2")),
            (Some("2"), Some("2"), Some("1")),
            (Some("3"), Some("1"), Some("0")),
        ]
    );
}

#[tokio::test]
async fn a_collection_reports_its_counts_capacity_span_and_preview() {
    let db = common::db("observe_collection").await;
    db.tables()
        .create_shared::<DeskTable>()
        .send()
        .await
        .unwrap();
    let wire = Wire::default();
    let db = wire.client(&db);
    let desk = Desk {
        desk: "d-PII".into(),
        label: "label-PII".into(),
    };
    let drawers: Vec<Drawer> = (0..3)
        .map(|i| Drawer {
            desk: "d-PII".into(),
            drawer: format!("drawer-PII-{i}"),
            note: "note-PII".into(),
        })
        .collect();
    let lamp = Lamp {
        desk: "d-PII".into(),
        lamp: "lamp-PII".into(),
    };
    db.batch_write()
        .put(&desk)
        .put_many(&drawers)
        .put(&lamp)
        .send()
        .await
        .unwrap();

    wire.clear();
    let (spans, _guard) = Spans::install();
    let tally = Tally::default();
    let read = db.collection::<DeskWithDrawers>("d-PII").tally(&tally);
    let preview = read.preview().unwrap();
    let found = read.all().await.unwrap();

    // What was sent is the preview, and the figures are the server's.
    assert_eq!(wire.inputs::<QueryInput>(), std::slice::from_ref(&preview));
    assert_eq!(
        preview.return_consumed_capacity(),
        Some(&aws_sdk_dynamodb::types::ReturnConsumedCapacity::Indexes),
        "a tally asks for the capacity by index"
    );
    assert_eq!((found.len(), tally.skipped()), (4, 1));
    assert!(matches!(&found[0], DeskWithDrawers::Desk(d) if *d == desk));
    for (read, drawer) in found[1..].iter().zip(&drawers) {
        assert!(matches!(read, DeskWithDrawers::Drawer(d) if d == drawer));
    }
    assert_eq!(
        (tally.requests(), tally.matched(), tally.scanned_count()),
        (1, 5, 5)
    );
    let capacity = tally.consumed_capacity().expect("it was asked for");
    assert!(capacity.units > 0.0);
    assert_eq!(capacity.units, wire.capacity_units());
    assert_eq!(capacity.tables[&db.tables().name::<Desk>()], capacity.units);

    // One span, with the counts and capacity, and no value.
    let all = spans.all();
    assert_eq!(spans.names(), ["DynamoDB.Query"]);
    let span = &all[0];
    assert_eq!(span.field("dynorm.model"), Some("Desk"));
    assert_eq!(span.field("aws.dynamodb.count"), Some("5"));
    assert_eq!(span.field("aws.dynamodb.scanned_count"), Some("5"));
    assert_eq!(span.field("dynorm.key_condition"), Some("#n0 = :v0"));
    assert_eq!(span_units(span), capacity.units);
    for (name, value) in &span.fields {
        assert!(
            !value.contains("PII"),
            "a value is recorded: {name} = {value}"
        );
    }

    // Without a tally, no capacity is asked for; the preview is stable and needs no server.
    let plain = db.collection::<DeskWithDrawers>("d-PII");
    assert_eq!(plain.preview().unwrap(), plain.preview().unwrap());
    assert_eq!(plain.preview().unwrap().return_consumed_capacity(), None);
    let tally = Tally::default();
    let found = plain.tally(&tally).all().await.unwrap();
    assert_eq!((found.len(), tally.matched()), (4, 5));
}

#[tokio::test]
async fn a_batch_span_names_every_model_of_its_tables() {
    let db = common::db("observe_batch_models").await;
    db.tables()
        .create_shared::<DeskTable>()
        .send()
        .await
        .unwrap();
    db.tables().ensure::<Secret>().send().await.unwrap();
    let (spans, _guard) = Spans::install();
    let desk = Desk {
        desk: "m".into(),
        label: "l".into(),
    };
    let lamp = Lamp {
        desk: "m".into(),
        lamp: "1".into(),
    };
    let one = secret("m", 1, 1);
    db.batch_write()
        .put(&desk)
        .put(&one)
        .put(&lamp)
        .send()
        .await
        .unwrap();
    db.batch_get()
        .get::<Lamp>(LampKey {
            desk: "m".into(),
            lamp: "1".into(),
        })
        .send()
        .await
        .unwrap();
    let all = spans.all();
    assert_eq!(
        spans.names(),
        ["DynamoDB.BatchWriteItem", "DynamoDB.BatchGetItem"]
    );
    // In the order the batch first met each model.
    assert_eq!(all[0].field("dynorm.model"), Some("Desk,Secret,Lamp"));
    assert_eq!(all[1].field("dynorm.model"), Some("Lamp"));
}

/// A model whose table has a stream and an expiry, for the administration requests.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Ledger", stream = "new_image")]
struct Ledger {
    #[hash_key]
    id: String,
    amount: i64,
    #[ttl]
    expires: Option<chrono::DateTime<chrono::Utc>>,
}

#[tokio::test]
async fn every_request_is_a_span_streams_checkpoints_and_administration_included() {
    use futures::StreamExt as _;
    let db = common::db("observe_every_request").await;
    let requests = common::Requests::new();
    let db = requests.client(&db);
    let (spans, _guard) = Spans::install();

    db.tables().create::<Ledger>().send().await.unwrap();
    db.tables().enable_ttl::<Ledger>().send().await.unwrap();
    db.tables().verify::<Ledger>().send().await.unwrap();
    let store = dynorm_streams::TableCheckpoints::new(&db, db.tables().name::<Ledger>() + "_cp");
    store.ensure_table().await.unwrap();
    for (i, amount) in [5, 7].into_iter().enumerate() {
        let ledger = Ledger {
            id: format!("l{i}"),
            amount,
            expires: None,
        };
        db.put(&ledger).send().await.unwrap();
    }
    let changes: Vec<_> = dynorm_streams::changes::<Ledger>(&db)
        .checkpoints(store)
        .stop_when_idle(std::time::Duration::from_millis(300))
        .poll_interval(std::time::Duration::from_millis(50))
        .stream()
        .collect()
        .await;
    assert_eq!(changes.len(), 2);
    db.tables().delete::<Ledger>().send().await.unwrap();

    // One span per request sent, of the same operation, whatever sent it.
    let mut span_counts = std::collections::BTreeMap::<String, usize>::new();
    for name in spans.names() {
        let operation = name.strip_prefix("DynamoDB.").unwrap_or(name);
        *span_counts.entry(operation.to_owned()).or_default() += 1;
    }
    let sent = requests.counts();
    for operation in [
        "CreateTable",
        "DescribeTable",
        "UpdateTimeToLive",
        "DescribeStream",
        "GetShardIterator",
        "GetRecords",
        "PutItem",
        "GetItem",
        "DeleteTable",
    ] {
        assert!(
            sent.contains_key(operation),
            "no {operation} sent: {sent:?}"
        );
    }
    assert_eq!(span_counts, sent);
}

//! Hydrated queries against a real server: through a `KEYS_ONLY` and an `INCLUDE` index,
//! the whole items come back in index order, at the cost of the index pages plus one
//! `BatchGetItem` per 100 keys, also when DynamoDB hands keys back unprocessed; each request
//! is a span.

mod common;

use dynorm::Request;
use std::collections::{HashMap, HashSet};
use std::time::Duration;

use dynorm::batch::BatchOptions;
use dynorm::client::RetryPolicy;
use dynorm::observe::Tally;
use dynorm::types::AttributeValue;
use dynorm::{Client, Model};
use futures::{StreamExt, TryStreamExt};

use common::{Faults, Requests};

const TICKETS: u32 = 1_000;

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Ticket", rename_all = "camelCase")]
struct Ticket {
    #[hash_key]
    id: String,
    /// `KEYS_ONLY`.
    #[index(name = "byQueue", range_key = "rank", project = false)]
    queue: String,
    /// `INCLUDE`: the keys and `title`.
    #[index(name = "byDesk", range_key = "rank", project = ["title"])]
    desk: String,
    rank: u32,
    title: String,
    body: String,
}

/// Ticket `n`: its rank is `n`, and its id orders the tickets differently, so that index
/// order is neither the order of the ids nor the order `BatchGetItem` answers in.
fn ticket(n: u32) -> Ticket {
    Ticket {
        id: format!("t{:04}", (n * 7_919) % TICKETS),
        queue: "support".into(),
        desk: "north".into(),
        rank: n,
        title: format!("title {n}"),
        body: format!("the body of ticket {n}, which no index projects"),
    }
}

/// Every ticket, in index order (by rank).
fn expected() -> Vec<Ticket> {
    (0..TICKETS).map(ticket).collect()
}

/// A table with the 1,000 tickets.
async fn tickets(label: &str) -> Client {
    let db = common::db_with::<Ticket>(label).await;
    let all = expected();
    let written = db.batch_write().put_many(&all).send().await.unwrap();
    assert_eq!(written as usize, all.len());
    db
}

/// `db` with fast retries, with room for many handed-back keys.
fn quick(db: &Client, max_attempts: u32) -> Client {
    db.to_builder()
        .retry_policy(
            RetryPolicy::new(max_attempts)
                .backoff(Duration::from_millis(1), Duration::from_millis(10)),
        )
        .build()
}

#[tokio::test]
async fn keys_only_and_include_indexes_give_whole_items_in_index_order() {
    let db = tickets("hydrate_order").await;
    let requests = Requests::new();
    let counted = requests.client(&db);

    // One index page holds every key; then ten BatchGetItem of 100 keys.
    let tally = Tally::default();
    let found = counted
        .query_by::<TicketByQueue>("support")
        .hydrate()
        .tally(&tally)
        .all()
        .await
        .unwrap();
    assert_eq!(found, expected());
    requests.assert_counts([("Query", 1), ("BatchGetItem", 10)]);
    assert_eq!(tally.requests(), 1 + 10);

    // The index read asks for the table key only.
    let input = db
        .query_by::<TicketByDesk>("north")
        .hydrate()
        .preview()
        .unwrap();
    let projection = input.projection_expression().unwrap();
    assert_eq!(
        input.expression_attribute_names().unwrap()[projection],
        "id"
    );

    // INCLUDE, in pages of 300 and descending: four index pages, still ten BatchGetItem.
    let found = counted
        .query_by::<TicketByDesk>("north")
        .page_size(300)
        .descending()
        .hydrate()
        .all()
        .await
        .unwrap();
    let mut descending = expected();
    descending.reverse();
    assert_eq!(found, descending);
    requests.assert_counts([("Query", 4), ("BatchGetItem", 10)]);

    // A range condition and a filter on what the index projects apply to the index.
    let found = counted
        .query_by::<TicketByDesk>("north")
        .range(Ticket::RANK.lt(250))
        .filter(Ticket::TITLE.ne("title 7"))
        .hydrate()
        .all()
        .await
        .unwrap();
    let wanted: Vec<Ticket> = (0..250).filter(|&n| n != 7).map(ticket).collect();
    assert_eq!(found, wanted);
    requests.assert_counts([("Query", 1), ("BatchGetItem", 3)]);
}

/// `project` reads only the named attributes of each item: its `BatchGetItem` requests
/// project them with the table key (which matches the items to the keys), and the items
/// returned hold the named attributes only, in index order.
#[tokio::test]
async fn a_hydrated_query_reads_the_attributes_it_names() {
    let db = tickets("hydrate_project").await;
    let requests = Requests::new();
    let counted = requests.client(&db);
    let found = counted
        .query_by::<TicketByDesk>("north")
        .range(Ticket::RANK.lt(150))
        .hydrate()
        .project(["body", "rank"])
        .all()
        .await
        .unwrap();
    let wanted: Vec<dynorm::Item> = (0..150)
        .map(ticket)
        .map(|t| {
            dynorm::Item::from([
                ("body".to_owned(), AttributeValue::S(t.body)),
                ("rank".to_owned(), AttributeValue::N(t.rank.to_string())),
            ])
        })
        .collect();
    assert_eq!(found, wanted);
    requests.assert_counts([("Query", 1), ("BatchGetItem", 2)]);
    for body in requests.bodies("BatchGetItem") {
        let read = &body["RequestItems"][db.tables().name::<Ticket>()];
        let names: Vec<&str> = read["ExpressionAttributeNames"]
            .as_object()
            .unwrap()
            .values()
            .map(|name| name.as_str().unwrap())
            .collect();
        assert_eq!(read["ProjectionExpression"], "#p0, #p1, #p2", "{body}");
        for name in ["body", "rank", "id"] {
            assert!(names.contains(&name), "{body}");
        }
    }
}

#[tokio::test]
async fn streams_and_pages_resume_exactly_and_cost_the_same() {
    let db = tickets("hydrate_pages").await;
    let requests = Requests::new();
    let counted = requests.client(&db);

    // A stream reads keys 100 at a time across pages of 300: four pages, ten batches.
    let streamed: Vec<Ticket> = counted
        .query_by::<TicketByQueue>("support")
        .page_size(300)
        .hydrate()
        .stream()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(streamed, expected());
    requests.assert_counts([("Query", 4), ("BatchGetItem", 10)]);

    // Page by page, each cursor the index page's: 3 + 3 + 3 + 1 BatchGetItem.
    let mut cursor: Option<String> = None;
    let mut paged = Vec::new();
    let mut pages = 0;
    loop {
        let page = counted
            .query_by::<TicketByQueue>("support")
            .page_size(300)
            .hydrate()
            .page(cursor.as_deref())
            .await
            .unwrap();
        pages += 1;
        assert_eq!(page.items.len(), if pages < 4 { 300 } else { 100 });
        paged.extend(page.items);
        match page.cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(pages, 4);
    assert_eq!(paged, expected());
    requests.assert_counts([("Query", 4), ("BatchGetItem", 10)]);
}

#[tokio::test]
async fn keys_handed_back_unprocessed_are_retried_until_every_item_is_read() {
    let db = tickets("hydrate_faults").await;
    let faults = Faults::new().unprocessed(1.0 / 3.0);
    let requests = Requests::new();
    let faulty = requests.client(&faults.client(&db));
    let tally = Tally::default();

    // One chunk at a time, so that each chunk's retries follow its first request.
    let found = quick(&faulty, 20)
        .query_by::<TicketByQueue>("support")
        .hydrate()
        .options(BatchOptions::default().concurrency(1))
        .tally(&tally)
        .all()
        .await
        .unwrap();
    assert_eq!(found, expected());
    assert!(faults.handed_back() > 100, "keys were handed back");

    // Each BatchGetItem reads keys of one chunk of 100 in index order; each key is read
    // once. A chunk's first request is one of ten; every later one is a retry of keys
    // handed back.
    let rank: HashMap<String, u32> = (0..TICKETS).map(|n| (ticket(n).id, n)).collect();
    let chunk_of_id = |id: &str| rank[id] / 100;
    let bodies = requests.bodies("BatchGetItem");
    let mut read = HashSet::new();
    let mut chunks = Vec::new();
    for body in &bodies {
        let keys = body["RequestItems"]
            .as_object()
            .unwrap()
            .values()
            .next()
            .unwrap()["Keys"]
            .as_array()
            .unwrap();
        let of: HashSet<u32> = keys
            .iter()
            .map(|key| chunk_of_id(key["id"]["S"].as_str().unwrap()))
            .collect();
        assert_eq!(of.len(), 1, "a request reads keys of one chunk");
        chunks.push(*of.iter().next().unwrap());
        for key in keys {
            assert!(read.insert(key["id"]["S"].as_str().unwrap().to_owned()));
        }
    }
    assert_eq!(read.len(), TICKETS as usize, "every key read once");
    let mut firsts = chunks.clone();
    firsts.dedup();
    assert_eq!(firsts, (0..10).collect::<Vec<_>>(), "chunks in index order");
    let retries = chunks.len() - firsts.len();
    assert!(retries >= 10, "every chunk had keys handed back: {retries}");
    requests.assert_counts([("Query", 1), ("BatchGetItem", 10 + retries)]);
    assert_eq!(tally.requests() as usize, 1 + 10 + retries);

    // The same with requests in flight together: every item, in order.
    let faults = Faults::new().unprocessed(1.0 / 3.0);
    let faulty = requests.client(&faults.client(&db));
    let found = quick(&faulty, 20)
        .query_by::<TicketByDesk>("north")
        .hydrate()
        .all()
        .await
        .unwrap();
    assert_eq!(found, expected());
    assert!(requests.sent("BatchGetItem") > 10);
}

#[tokio::test]
async fn keys_still_unprocessed_after_the_last_attempt_are_an_error() {
    let db = tickets("hydrate_incomplete").await;
    let faulty = Faults::new().unprocessed(1.0).client(&db);
    let error = quick(&faulty, 3)
        .query_by::<TicketByQueue>("support")
        .range(Ticket::RANK.lt(10))
        .hydrate()
        .all()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), dynorm::ErrorKind::BatchIncomplete);
    assert_eq!(error.model(), Some("Ticket"));
    assert_eq!(error.unprocessed().map(|u| u.keys.len()), Some(10 - 3));
    assert!(error.to_string().contains("`byQueue`"), "{error}");
}

#[tokio::test]
async fn an_item_deleted_after_the_index_read_is_absent() {
    let db = tickets("hydrate_deleted").await;
    let requests = Requests::new();
    let counted = requests.client(&db);
    let mut stream = counted
        .query_by::<TicketByQueue>("support")
        .page_size(300)
        .hydrate()
        .stream();
    // The first page of keys is read, and its first 100 items.
    let first = stream.next().await.unwrap().unwrap();
    assert_eq!(first, ticket(0));
    requests.assert_counts([("Query", 1), ("BatchGetItem", 1)]);
    // Ticket 150's key is read; the ticket goes before its BatchGetItem.
    db.delete::<Ticket>(ticket(150).id).send().await.unwrap();
    let rest: Vec<Ticket> = stream.try_collect().await.unwrap();
    let wanted: Vec<Ticket> = (1..TICKETS).filter(|&n| n != 150).map(ticket).collect();
    assert_eq!(rest, wanted);
    requests.assert_counts([("Query", 3), ("BatchGetItem", 9)]);
}

#[tokio::test]
async fn the_index_is_chosen_among_partial_ones_only_for_hydration() {
    let db = tickets("hydrate_auto").await;
    let requests = Requests::new();
    let counted = requests.client(&db);

    // Without hydration, refused as before: the index does not project every attribute.
    let error = counted
        .query::<Ticket>()
        .matching(Ticket::QUEUE.eq("support"))
        .plan()
        .unwrap_err();
    assert!(
        error.to_string().contains("`byQueue`") && error.to_string().contains(".hydrate()"),
        "{error}"
    );
    let error = counted
        .query::<Ticket>()
        .matching(Ticket::QUEUE.eq("support"))
        .all()
        .await
        .unwrap_err();
    assert_eq!(error.operation(), Some("query"));
    assert_eq!(requests.take_all(), 0, "refused before sending");

    // With it, the plan says the items are read by key.
    let query = counted
        .query::<Ticket>()
        .matching(Ticket::DESK.eq("north"))
        .matching(Ticket::RANK.ge(900))
        .hydrate();
    let plan = query.plan().unwrap();
    assert_eq!(plan.index_name(), "byDesk");
    assert!(plan.hydrated);
    assert!(plan.to_string().contains("BatchGetItem"), "{plan}");
    let found = query.all().await.unwrap();
    assert_eq!(found, (900..TICKETS).map(ticket).collect::<Vec<_>>());
    requests.assert_counts([("Query", 1), ("BatchGetItem", 1)]);

    // Through the table, nothing is read again.
    let query = counted
        .query::<Ticket>()
        .matching(Ticket::ID.eq(ticket(5).id))
        .hydrate();
    let plan = query.plan().unwrap();
    assert_eq!(plan.index_name(), "table");
    assert!(!plan.hydrated);
    assert!(!plan.to_string().contains("BatchGetItem"), "{plan}");
    assert_eq!(query.all().await.unwrap(), vec![ticket(5)]);
    requests.assert_counts([("Query", 1)]);

    // A filter may still test only what the index projects.
    let error = counted
        .query_by::<TicketByQueue>("support")
        .filter(Ticket::BODY.begins_with("the"))
        .hydrate()
        .plan()
        .unwrap_err();
    assert!(error.to_string().contains("does not project"), "{error}");
}

#[tokio::test]
async fn every_request_of_a_hydrated_query_is_a_span() {
    let db = tickets("hydrate_spans").await;
    let requests = Requests::new();
    let counted = requests.client(&db);
    let (spans, _guard) = common::observe::Spans::install();
    let found = counted
        .query_by::<TicketByQueue>("support")
        .page_size(300)
        .hydrate()
        .all()
        .await
        .unwrap();
    assert_eq!(found.len(), TICKETS as usize);
    let mut names = vec!["DynamoDB.Query"; 4];
    names.extend(["DynamoDB.BatchGetItem"; 10]);
    assert_eq!(spans.names(), names);
    let all = spans.all();
    assert!(all[..4]
        .iter()
        .all(|s| s.field("aws.dynamodb.index_name") == Some("byQueue")));
    assert!(all[4..]
        .iter()
        .all(|s| s.field("dynorm.model") == Some("Ticket")
            && s.field("dynorm.batch.requests") == Some("100")));
    requests.assert_counts([("Query", 4), ("BatchGetItem", 10)]);
}

/// An asset keyed by templates, with two indexes keyed by templates: one of keys only, whose
/// items are the raw keys, and one that projects `name`, whose items hold it.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Located", entity = "asset", rename_all = "camelCase")]
#[dynorm(convention = "electrodb", service = "inventory", entity_version = "1")]
#[key(pk = [account], sk = [id])]
#[key(index = "gsi1", gsi1pk = [state], gsi1sk = [city], project = false)]
#[key(index = "gsi2", gsi2pk = [state], gsi2sk = [name], project = [name])]
struct Asset {
    account: String,
    id: String,
    state: String,
    city: String,
    name: String,
}

/// Another entity of the table, in the same partitions of both indexes.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Located", entity = "office", rename_all = "camelCase")]
#[dynorm(convention = "electrodb", service = "inventory", entity_version = "1")]
#[key(pk = [account], sk = [id])]
#[key(index = "gsi1", gsi1pk = [state], gsi1sk = [city], project = false)]
#[key(index = "gsi2", gsi2pk = [state], gsi2sk = [name], project = [name])]
struct Office {
    account: String,
    id: String,
    state: String,
    city: String,
    name: String,
}

dynorm::shared_table!(struct Located { Asset, Office });

/// An index keyed by templates projects what it names, and the entity's identity when it
/// names something: its query keeps the entity's items by the identity; one of keys only
/// keeps them by its sort key's prefix, and its items are the raw keys. Hydrated, both
/// give the whole items.
#[tokio::test]
async fn indexes_keyed_by_templates_project_what_they_name() {
    let db = common::db("hydrate_templates").await;
    db.tables().create_shared::<Located>().send().await.unwrap();
    let asset = |id: &str, city: &str| Asset {
        account: "acct".into(),
        id: id.into(),
        state: "GA".into(),
        city: city.into(),
        name: format!("Asset {id}"),
    };
    let (a1, a2) = (asset("a1", "Atlanta"), asset("a2", "Macon"));
    for a in [&a1, &a2] {
        db.put(a).send().await.unwrap();
    }
    db.put(&Office {
        account: "acct".into(),
        id: "o1".into(),
        state: "GA".into(),
        city: "Athens".into(),
        name: "Office".into(),
    })
    .send()
    .await
    .unwrap();

    // What each index projects, as the table declares it.
    let definition = Asset::create_table_input();
    let projection = |name: &str| {
        let index = definition
            .global_secondary_indexes()
            .iter()
            .find(|g| g.index_name() == name)
            .unwrap();
        let p = index.projection().unwrap();
        let mut names = p.non_key_attributes().to_vec();
        names.sort();
        (p.projection_type().unwrap().as_str().to_owned(), names)
    };
    assert_eq!(
        projection("gsi1"),
        ("KEYS_ONLY".to_owned(), Vec::<String>::new())
    );
    assert_eq!(
        projection("gsi2"),
        (
            "INCLUDE".to_owned(),
            vec![
                "__edb_e__".to_owned(),
                "__edb_v__".to_owned(),
                "name".to_owned()
            ]
        )
    );

    // Keys only: the raw keys of the assets, not the office's.
    let keys: Vec<dynorm::Item> = db
        .query_by::<AssetGsi1>("GA".to_owned())
        .all()
        .await
        .unwrap();
    assert_eq!(keys.len(), 2);
    assert!(keys
        .iter()
        .all(|k| k.contains_key("pk") && !k.contains_key("name")));
    let whole: Vec<Asset> = db
        .query_by::<AssetGsi1>("GA".to_owned())
        .hydrate()
        .all()
        .await
        .unwrap();
    assert_eq!(whole, [a1.clone(), a2.clone()]);

    // INCLUDE: the names, of the assets only.
    let named: Vec<AssetGsi2Item> = db
        .query_by::<AssetGsi2>("GA".to_owned())
        .all()
        .await
        .unwrap();
    let names: Vec<&str> = named.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["Asset a1", "Asset a2"]);
    let filtered = db
        .query_by::<AssetGsi2>("GA".to_owned())
        .filter(Asset::NAME.eq("Asset a2"))
        .hydrate()
        .all()
        .await
        .unwrap();
    assert_eq!(filtered, [a2]);
    // A filter on what the index does not project would match nothing: refused.
    let error = db
        .query_by::<AssetGsi2>("GA".to_owned())
        .filter(Asset::CITY.eq("Atlanta"))
        .all()
        .await
        .unwrap_err();
    assert!(error.to_string().contains("does not project"), "{error}");
}

//! Collections on a global secondary index, and queries on the leading fields of a sort key
//! template, against a real server: what each reads, counted with `Tally`.

mod common;

use dynorm::observe::Tally;
use dynorm::Request;
use dynorm::{Collection, Model};

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Board", entity = "person", rename_all = "camelCase")]
#[key(pk = "PERSON#{person_id}", sk = "#PROFILE")]
#[key(index = "GSI1", gsi1pk = "PERSON#{person_id}", gsi1sk = "#PROFILE")]
struct Person {
    person_id: String,
    name: String,
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Board", entity = "card", rename_all = "camelCase")]
#[key(pk = "BOARD#{board_id}", sk = "CARD#{status}#{card_id}")]
#[key(
    index = "GSI1",
    gsi1pk = "PERSON#{owner}",
    gsi1sk = "CARD#{board_id}#{card_id}"
)]
struct Card {
    board_id: String,
    card_id: String,
    status: String,
    owner: String,
}

dynorm::shared_table!(struct Board { Person, Card });

/// A person and the cards they own, on every board: one query on GSI1.
#[derive(Collection, Debug)]
#[dynorm(index = "GSI1")]
enum PersonWithCards {
    Person(Person),
    Card(Card),
}

fn card(board: &str, id: &str, status: &str, owner: &str) -> Card {
    Card {
        board_id: board.into(),
        card_id: id.into(),
        status: status.into(),
        owner: owner.into(),
    }
}

async fn board(label: &str) -> dynorm::Client {
    let db = common::db(label).await;
    db.tables().create_shared::<Board>().send().await.unwrap();
    for (id, name) in [("ann", "Ann"), ("bo", "Bo")] {
        let person = Person {
            person_id: id.into(),
            name: name.into(),
        };
        db.create(&person).send().await.unwrap();
    }
    for card in [
        card("b1", "c1", "open", "ann"),
        card("b1", "c2", "open", "bo"),
        card("b1", "c3", "done", "ann"),
        card("b1", "c4", "done", "ann"),
        card("b2", "c5", "open", "ann"),
    ] {
        db.create(&card).send().await.unwrap();
    }
    db
}

#[tokio::test]
async fn a_collection_on_an_index_reads_one_partition_of_it() {
    let db = board("coll_gsi").await;
    let tally = Tally::default();
    let read = db.collection::<PersonWithCards>("ann").tally(&tally);
    assert_eq!(read.preview().unwrap().index_name(), Some("GSI1"));
    // A page's prediction, for any item size and for items of at most 1 KB, holds what it
    // consumed, on the index.
    let small = db.collection::<PersonWithCards>("ann").max_item_bytes(1024);
    let predicted = [read.predict().unwrap(), small.predict().unwrap()];
    let items = read.all().await.unwrap();
    assert_eq!(tally.requests(), 1);
    if let Some(consumed) = tally.consumed_capacity() {
        for predicted in predicted {
            assert_eq!(predicted.requests(), 1);
            assert!(predicted.contains(&consumed), "{predicted}\n{consumed:?}");
            assert!(predicted.read_units().min() == 0.0, "{predicted}");
        }
    }
    assert_eq!(tally.skipped(), 0);
    let mut people = Vec::new();
    let mut cards = Vec::new();
    for item in items {
        match item {
            PersonWithCards::Person(p) => people.push(p.name),
            PersonWithCards::Card(c) => cards.push((c.board_id, c.card_id)),
        }
    }
    assert_eq!(people, ["Ann"]);
    let pairs: Vec<(&str, &str)> = cards
        .iter()
        .map(|(b, c)| (b.as_str(), c.as_str()))
        .collect();
    assert_eq!(
        pairs,
        [("b1", "c1"), ("b1", "c3"), ("b1", "c4"), ("b2", "c5")]
    );
}

#[tokio::test]
async fn equalities_on_leading_template_fields_go_into_the_key_condition() {
    let db = board("coll_leading").await;

    // `status` leads the sort key: the key condition reads only the open cards, and no
    // filter is left to throw items away.
    let tally = Tally::default();
    let open = db
        .query_by::<Card>("b1")
        .matching(Card::STATUS.eq("open"))
        .tally(&tally);
    let input = open.preview().unwrap();
    let names = input.expression_attribute_names().unwrap();
    assert!(
        !names.values().any(|n| n == "status"),
        "no filter on status: {names:?}"
    );
    let values = input.expression_attribute_values().unwrap();
    assert!(
        values
            .values()
            .any(|v| v.as_s().ok().map(String::as_str) == Some("CARD#open#")),
        "{values:?}"
    );
    let open = open.all().await.unwrap();
    assert_eq!(
        open.iter().map(|c| c.card_id.as_str()).collect::<Vec<_>>(),
        ["c1", "c2"]
    );
    assert_eq!((tally.matched(), tally.scanned_count()), (2, 2));

    // Every field given: the whole key, `=`.
    let one = db
        .query_by::<Card>("b1")
        .matching(Card::STATUS.eq("done"))
        .matching(Card::CARD_ID.eq("c4"));
    let key_condition = one
        .preview()
        .unwrap()
        .key_condition_expression()
        .unwrap_or_default()
        .to_owned();
    assert!(!key_condition.contains("begins_with"), "{key_condition}");
    let one = one.all().await.unwrap();
    assert_eq!(one, [card("b1", "c4", "done", "ann")]);

    // A field that does not lead (`card_id` without `status`) still filters.
    let tally = Tally::default();
    let c3 = db
        .query_by::<Card>("b1")
        .matching(Card::CARD_ID.eq("c3"))
        .tally(&tally)
        .all()
        .await
        .unwrap();
    assert_eq!(c3, [card("b1", "c3", "done", "ann")]);
    assert_eq!((tally.matched(), tally.scanned_count()), (1, 4));
}

#[tokio::test]
async fn a_collection_reads_page_by_page_within_a_budget() {
    let db = board("coll_budget").await;
    for n in 0..300 {
        db.create(&card("b3", &format!("x{n:03}"), "open", "ann"))
            .send()
            .await
            .unwrap();
    }
    let mut cursor: Option<String> = None;
    let mut cards = std::collections::BTreeSet::new();
    let mut people = 0;
    let mut pages = 0;
    loop {
        let tally = Tally::default();
        let page = db
            .collection::<PersonWithCards>("ann")
            .max_item_bytes(512)
            .tally(&tally)
            .budget(2.0)
            .page(cursor.as_deref())
            .await
            .unwrap();
        let spent = tally.consumed_capacity().map_or(0.0, |c| c.units);
        assert!(spent <= 2.0, "page {pages} spent {spent} of 2 units");
        for item in page.items {
            match item {
                PersonWithCards::Person(_) => people += 1,
                PersonWithCards::Card(c) => {
                    assert!(cards.insert((c.board_id, c.card_id)), "a card twice")
                }
            }
        }
        pages += 1;
        match page.cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!((people, cards.len()), (1, 304), "every item once");
    assert!(pages > 1, "the budget split the partition");
    // A budget cannot stop `all` midway: on a budgeted collection it does not compile
    // (tests/ui/budget_whole_reads.rs).
}

/// `count()` counts what `all()` reads, on the server (`Select: COUNT`): an item of
/// another entity in the partition is not counted, as `all()` skips it.
#[tokio::test]
async fn a_collection_counts_the_items_it_would_read() {
    let db = board("collection_count").await;
    let read = db.collection::<PersonWithCards>("ann").all().await.unwrap();
    assert_eq!(read.len(), 5);
    assert_eq!(
        db.collection::<PersonWithCards>("ann")
            .count()
            .await
            .unwrap(),
        5
    );
    let s = |text: &str| dynorm::types::AttributeValue::S(text.into());
    db.sdk()
        .put_item()
        .table_name(db.tables().name::<Card>())
        .item("pk", s("OTHER#1"))
        .item("sk", s("OTHER#1"))
        .item("gsi1pk", s("PERSON#ann"))
        .item("gsi1sk", s("CARD#zz"))
        .item("__entity", s("other"))
        .send()
        .await
        .unwrap();
    let tally = Tally::default();
    let counted = db
        .collection::<PersonWithCards>("ann")
        .tally(&tally)
        .count()
        .await
        .unwrap();
    assert_eq!(counted, 5);
    // The server read six items, and sent back their count only.
    assert_eq!((tally.matched(), tally.scanned_count()), (5, 6));
    assert_eq!(
        db.collection::<PersonWithCards>("ann")
            .all()
            .await
            .unwrap()
            .len(),
        5
    );
    assert_eq!(
        db.collection::<PersonWithCards>("bo")
            .count()
            .await
            .unwrap(),
        2
    );
    assert_eq!(
        db.collection::<PersonWithCards>("nobody")
            .count()
            .await
            .unwrap(),
        0
    );
}

/// A filter on one entity's attributes applies to every item the collection reads: an
/// item of another entity lacks the attribute, so `not_exists` keeps it and a comparison
/// drops it. `count()` counts what the filter keeps.
#[tokio::test]
async fn a_collection_filter_applies_to_every_item_it_reads() {
    let db = board("collection_filter").await;
    let open = db
        .collection::<PersonWithCards>("ann")
        .filter(Card::STATUS.eq("open"))
        .all()
        .await
        .unwrap();
    let ids: Vec<&str> = open
        .iter()
        .map(|item| match item {
            PersonWithCards::Card(card) => card.card_id.as_str(),
            PersonWithCards::Person(_) => "the person",
        })
        .collect();
    assert_eq!(ids, ["c1", "c5"]);
    let done_or_person = || {
        db.collection::<PersonWithCards>("ann")
            .filter(Card::STATUS.not_exists() | Card::STATUS.eq("done"))
    };
    let read = done_or_person().all().await.unwrap();
    assert_eq!(read.len(), 3);
    assert!(matches!(read[0], PersonWithCards::Person(_)), "{read:?}");
    assert_eq!(done_or_person().count().await.unwrap(), 3);
    // Two filters are joined with AND.
    let none = db
        .collection::<PersonWithCards>("ann")
        .filter(Card::STATUS.eq("open"))
        .filter(Person::NAME.eq("Ann"))
        .all()
        .await
        .unwrap();
    assert!(none.is_empty(), "{none:?}");
}

/// A collection's filter cannot test a key attribute of the index whose partition it
/// reads: refused before sending, as DynamoDB would refuse it.
#[tokio::test]
async fn a_collection_filter_on_a_key_attribute_is_refused_before_sending() {
    let db = common::db("collection_filter_key").await;
    let requests = common::Requests::new();
    let counted = requests.client(&db);
    let refused = counted
        .collection::<OwnCards>("b1")
        .filter(OwnCard::BOARD.eq("b1"))
        .all()
        .await
        .unwrap_err();
    assert_eq!(refused.kind(), dynorm::ErrorKind::Validation, "{refused}");
    assert_eq!(refused.attribute(), Some("board"), "{refused}");
    assert_eq!(requests.total(), 0);
}

/// Cards keyed by their board's own attribute: `board` holds the key's text.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "OwnBoard", entity = "owncard")]
#[key(board = "{board}", sk = "OWN#{card_id}")]
struct OwnCard {
    board: String,
    card_id: String,
}

/// Its items are never decoded: the test's query is refused before sending.
#[allow(dead_code)]
#[derive(Collection, Debug)]
enum OwnCards {
    Card(OwnCard),
}

//! Capacity budgets on queries and scans, against a real server: a filtered read of
//! 10,000 items with a budget never passes it on any page, and resuming until the end
//! returns exactly the matching items, each once (a property test over budgets, page sizes
//! and consistency). Also: a budget refuses `all`, `stream` and `count`, which cannot
//! resume, and bad settings are refused before sending.

mod common;

use dynorm::Request;
use std::collections::BTreeSet;

use dynorm::observe::Tally;
use dynorm::{Client, Model};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestRunner};

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Budgeted")]
struct Note {
    #[hash_key]
    board: String,
    #[range_key]
    id: u32,
    keep: bool,
    body: String,
}

const ITEMS: u32 = 10_000;
/// An upper bound of every note's size as DynamoDB counts it (names and values).
const MAX_ITEM_BYTES: u32 = 2_048;
const CASES: u32 = 6;
const SEED: u64 = 0x5eed_b0d6;

/// Note `id`: one in three is kept, bodies of 100 to 1,800 bytes.
fn note(id: u32) -> Note {
    Note {
        board: "b".into(),
        id,
        keep: id.is_multiple_of(3),
        body: "n".repeat(100 + (id as usize * 7919) % 1700),
    }
}

async fn notes(label: &str) -> Client {
    let db = common::db_with::<Note>(label).await;
    let all: Vec<Note> = (0..ITEMS).map(note).collect();
    let written = db.batch_write().put_many(&all).send().await.unwrap();
    assert_eq!(written as usize, ITEMS as usize);
    db
}

fn kept() -> BTreeSet<u32> {
    (0..ITEMS).filter(|id| id.is_multiple_of(3)).collect()
}

/// One read of every page with `budget`, as the case says; checks each page against the
/// budget and gives the ids read.
async fn read_all(
    db: &Client,
    scan: bool,
    budget: f64,
    limit: Option<u32>,
    consistent: bool,
) -> Result<Vec<u32>, String> {
    let mut ids = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let tally = Tally::default();
        // The same settings on a scan or a query, which are different builders.
        macro_rules! page {
            ($read:expr) => {{
                let mut read = $read
                    .filter(Note::KEEP.eq(true))
                    .consistent_read(consistent)
                    .max_item_bytes(MAX_ITEM_BYTES)
                    .tally(&tally);
                if let Some(limit) = limit {
                    read = read.page_size(limit);
                }
                read.budget(budget).page(cursor.as_deref()).await
            }};
        }
        let page = if scan {
            page!(db.scan::<Note>())
        } else {
            page!(db.query_by::<Note>("b"))
        }
        .map_err(|e| format!("page {pages}: {e}"))?;
        let spent = tally.consumed_capacity().map_or(0.0, |c| c.units);
        if spent > budget {
            return Err(format!(
                "page {pages} spent {spent} units of a budget of {budget}"
            ));
        }
        if tally.requests() == 0 && page.cursor.is_some() {
            return Err(format!(
                "page {pages} sent nothing and did not end: no progress"
            ));
        }
        ids.extend(page.items.iter().map(|n| n.id));
        pages += 1;
        match page.cursor {
            Some(next) => cursor = Some(next),
            None => return Ok(ids),
        }
    }
}

#[test]
fn a_budget_is_never_passed_and_resuming_reads_every_match_once() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let db = runtime.block_on(notes("budget_props"));
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    let config = Config {
        cases: env("PROPTEST_CASES").map_or(CASES, |c| c as u32),
        rng_seed: RngSeed::Fixed(env("PROPTEST_RNG_SEED").unwrap_or(SEED)),
        failure_persistence: None,
        ..Config::default()
    };
    // Budgets from what one note may cost (1 unit) to a few pages' worth; page sizes
    // from 1 to unlimited.
    let case = (
        any::<bool>(),
        prop_oneof![1.0..8.0f64, 8.0..300.0f64],
        prop_oneof![Just(None), (1u32..500).prop_map(Some)],
        any::<bool>(),
    );
    let result = TestRunner::new(config).run(&case, |(scan, budget, limit, consistent)| {
        let ids = runtime
            .block_on(read_all(&db, scan, budget, limit, consistent))
            .map_err(TestCaseError::fail)?;
        let read: BTreeSet<u32> = ids.iter().copied().collect();
        prop_assert_eq!(read.len(), ids.len(), "an item read twice");
        prop_assert_eq!(read, kept(), "every match, across the pages");
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[tokio::test]
async fn a_budget_refuses_bad_settings_before_sending() {
    // `all`, `stream` and `count` on a budgeted read do not compile (tests/ui/budget_*.rs).
    let db = common::db_with::<Note>("budget_refusals").await;
    let requests = common::Requests::new();
    let db = requests.client(&db);
    let query = || db.query_by::<Note>("b");
    for error in [
        db.scan::<Note>().budget(0.0).page(None).await.unwrap_err(),
        query()
            .budget(f64::NAN)
            .clone()
            .page(None)
            .await
            .unwrap_err(),
        query()
            .max_item_bytes(0)
            .budget(10.0)
            .page(None)
            .await
            .unwrap_err(),
        query()
            .max_item_bytes(500 * 1024)
            .budget(10.0)
            .page(None)
            .await
            .unwrap_err(),
    ] {
        assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
        assert_eq!(error.model(), Some("Note"), "{error}");
    }
    // A budget that cannot pay for one item of the largest size: an empty page would
    // read as the end, so it is an error.
    let error = query().budget(10.0).page(None).await.unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
    assert!(error.message().contains("max_item_bytes"), "{error}");
    assert_eq!(error.model(), Some("Note"), "{error}");
    assert_eq!(requests.total(), 0, "refused before sending");
}

#[tokio::test]
async fn a_plan_says_a_limit_with_a_filter_may_read_far_more_than_it_returns() {
    let db = common::db_with::<Note>("budget_plan").await;
    let plan = db
        .query_by::<Note>("b")
        .filter(Note::KEEP.eq(true))
        .page_size(10)
        .plan()
        .unwrap();
    assert_eq!(plan.notes.len(), 1, "{plan}");
    assert!(
        plan.to_string().contains("far more items than it returns"),
        "{plan}"
    );
    let plain = db.query_by::<Note>("b").page_size(10).plan().unwrap();
    assert!(plain.notes.is_empty(), "{plain}");
}

#[tokio::test]
async fn a_page_size_of_0_is_refused_before_sending() {
    let db = common::db_with::<Note>("budget_page_size_zero").await;
    let requests = common::Requests::new();
    let counted = requests.client(&db);
    let query = counted.query_by::<Note>("b").page_size(0).all().await;
    let scan = counted.scan::<Note>().page_size(0).all().await;
    for error in [query.unwrap_err(), scan.unwrap_err()] {
        assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
        assert_eq!(error.model(), Some("Note"), "{error}");
    }
    assert_eq!(requests.total(), 0, "nothing is sent");
}

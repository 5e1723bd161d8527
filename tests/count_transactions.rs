//! Counts and guards in transactions: racing moves are planned again from what DynamoDB
//! returns, and fail only for a true cause; the counts of one parent merge per attribute;
//! `insert_many` chunks by the items each row really writes.

mod common;

use std::collections::BTreeMap;
use std::time::Instant;

use common::guards::{as_counted, check_guards};
use common::random::Lcg;
use dynorm::types::AttributeValue;
use dynorm::{Client, Error, ErrorKind, Model};

/// A team, whose members, projects and reviews count themselves in it.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "TxTeams")]
struct Team {
    #[hash_key]
    id: String,
    member_count: u64,
    project_count: u64,
    review_count: u64,
}

/// A member of a team; the handle is unique within the team.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "TxMembers", unique_name = "Member")]
#[count(parent = Team, into = member_count, fields = [team], references = [id])]
struct Member {
    #[hash_key]
    id: String,
    team: String,
    #[unique(scope = team)]
    handle: String,
}

/// A project: counted in its team's `project_count`, and in `review_count` of the team
/// that reviews it, which may be the same team.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "TxProjects")]
#[count(parent = Team, into = project_count, fields = [team], references = [id])]
#[count(parent = Team, into = review_count, fields = [reviewer], references = [id])]
struct Project {
    #[hash_key]
    id: String,
    team: String,
    reviewer: String,
}

const TEAMS: [&str; 4] = ["a", "b", "c", "d"];

async fn db(label: &str) -> Client {
    let db = common::db(label).await;
    db.tables().create::<Team>().send().await.unwrap();
    db.tables().create::<Member>().send().await.unwrap();
    db.tables().create::<Project>().send().await.unwrap();
    for id in TEAMS {
        db.create(&Team {
            id: id.into(),
            member_count: 0,
            project_count: 0,
            review_count: 0,
        })
        .send()
        .await
        .unwrap();
    }
    db
}

async fn team(db: &Client, id: &str) -> Team {
    db.get::<Team>(id)
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .expect("the team exists")
}

/// The members of each team, counted by DynamoDB (`Select = COUNT`, strongly consistent).
async fn members_of(db: &Client, team: &str) -> u64 {
    db.scan::<Member>()
        .filter(Member::TEAM.eq(team))
        .consistent_read(true)
        .count()
        .await
        .unwrap() as u64
}

/// Few members for many tasks, so that they race for the same ones, and teams often hold
/// one member or none: member `i` starts in team `i % 4` with handle `h{i / 2}`, so that
/// moves also meet handles another member holds.
const MEMBERS: u64 = 6;

fn handle_of(member: u64) -> String {
    format!("h{}", member / 2)
}

/// Checks that a failed move failed for a true cause: a handle another member holds in
/// the team it moves to, or other writers changing the same items at every attempt.
fn assert_true_cause(error: &Error, moved: &[(u64, &str)]) {
    match error.kind() {
        ErrorKind::UniqueConflict => {
            assert_eq!(error.attribute(), Some("handle"), "{error}");
            let holder = error.item().expect("the holder's key");
            let AttributeValue::S(holder) = &holder["id"] else {
                panic!("a member's id is text: {error}")
            };
            assert!(
                moved.iter().all(|(m, _)| holder != &format!("m{m}")),
                "a conflict names another member, not a writer: {error} (moving {moved:?})"
            );
        }
        ErrorKind::TransactionConflict => {}
        ErrorKind::TransactionCanceled if error.is_retryable() => {}
        _ => panic!("a move fails only for a true cause, not with {error} (moving {moved:?})"),
    }
}

#[tokio::test]
async fn racing_moves_in_transactions_fail_only_for_a_true_cause() {
    let db = db("count_tx_race").await;
    for m in 0..MEMBERS {
        db.create(&Member {
            id: format!("m{m}"),
            team: TEAMS[(m % 4) as usize].into(),
            handle: handle_of(m),
        })
        .send()
        .await
        .unwrap();
    }
    const TASKS: u64 = 32;
    const STEPS: u64 = 6;
    let workers: Vec<_> = (0..TASKS)
        .map(|worker| {
            let db = db.clone();
            tokio::spawn(async move {
                let mut random = Lcg(worker + 7);
                // Moves that succeeded, and refusals by kind.
                let mut outcomes = (0, BTreeMap::<String, u32>::new());
                for _ in 0..STEPS {
                    // One or two members, with different handles (two claims of one handle
                    // in one team would be refused before sending), each to a team.
                    let first = random.below(MEMBERS);
                    let mut moved = vec![(first, TEAMS[random.below(4) as usize])];
                    if random.below(2) == 0 {
                        let second = random.below(MEMBERS);
                        if second / 2 != first / 2 {
                            moved.push((second, TEAMS[random.below(4) as usize]));
                        }
                    }
                    let result = if worker % 4 == 3 {
                        let (m, to) = moved[0];
                        moved.truncate(1);
                        db.update::<Member>(format!("m{m}"))
                            .set(Member::TEAM, to)
                            .send()
                            .await
                    } else {
                        let mut transaction = db.transact_write();
                        for (m, to) in &moved {
                            transaction = transaction
                                .write(db.update::<Member>(format!("m{m}")).set(Member::TEAM, *to));
                        }
                        transaction.send().await
                    };
                    match result {
                        Ok(()) => outcomes.0 += 1,
                        Err(error) => {
                            assert_true_cause(&error, &moved);
                            *outcomes.1.entry(format!("{:?}", error.kind())).or_default() += 1;
                        }
                    }
                }
                outcomes
            })
        })
        .collect();
    let (mut succeeded, mut refused) = (0, BTreeMap::<String, u32>::new());
    for worker in workers {
        let (ok, failed) = worker.await.unwrap();
        succeeded += ok;
        for (kind, n) in failed {
            *refused.entry(kind).or_default() += n;
        }
    }
    eprintln!("{succeeded} moves succeeded; refused for a true cause: {refused:?}");
    assert!(succeeded > 0);
    let mut total = 0;
    for id in TEAMS {
        let members = members_of(&db, id).await;
        total += members;
        assert_eq!(team(&db, id).await.member_count, members, "team {id}");
    }
    assert_eq!(total, MEMBERS);
    assert_eq!(check_guards::<Member>(&db).await, MEMBERS as usize);
}

#[tokio::test]
async fn counts_of_one_parent_merge_per_attribute() {
    let db = db("count_tx_merge").await;
    let member = |id: &str, team: &str| Member {
        id: id.into(),
        team: team.into(),
        handle: id.into(),
    };
    let project = |id: &str, team: &str, reviewer: &str| Project {
        id: id.into(),
        team: team.into(),
        reviewer: reviewer.into(),
    };
    let counts = |team: Team| (team.member_count, team.project_count, team.review_count);

    // Two counted models on one parent in one transaction: each attribute by its own.
    db.transact_write()
        .write(db.create(&member("m1", "a")))
        .write(db.create(&member("m2", "a")))
        .write(db.create(&project("p1", "a", "b")))
        .send()
        .await
        .unwrap();
    assert_eq!(counts(team(&db, "a").await), (2, 1, 0));
    assert_eq!(counts(team(&db, "b").await), (0, 0, 1));

    // Two counts of one model on one parent: one write of the parent, two attributes.
    let requests = common::Requests::new();
    let counted = requests.client(&db);
    counted
        .create(&project("p2", "a", "a"))
        .send()
        .await
        .unwrap();
    requests.assert_counts([("TransactWriteItems", 1)]);
    assert_eq!(counts(team(&db, "a").await), (2, 2, 1));
    db.update::<Project>("p1")
        .set(Project::REVIEWER, "a")
        .send()
        .await
        .unwrap();
    assert_eq!(counts(team(&db, "a").await), (2, 2, 2));
    assert_eq!(counts(team(&db, "b").await), (0, 0, 0));

    // Up and down on one parent in one transaction: a member leaves `a` as a project
    // arrives, and a project moves its review away.
    db.transact_write()
        .write(db.update::<Member>("m1").set(Member::TEAM, "b"))
        .write(db.create(&project("p3", "a", "c")))
        .write(db.update::<Project>("p2").set(Project::REVIEWER, "c"))
        .send()
        .await
        .unwrap();
    assert_eq!(counts(team(&db, "a").await), (1, 3, 1));
    assert_eq!(counts(team(&db, "b").await), (1, 0, 0));
    assert_eq!(counts(team(&db, "c").await), (0, 0, 2));

    // A count below what leaves it is refused, naming its own model and count.
    db.sdk()
        .put_item()
        .table_name(db.tables().name::<Project>())
        .set_item(Some(as_counted::<Project>(
            project("p9", "d", "d").to_item().unwrap(),
        )))
        .send()
        .await
        .unwrap();
    let error = db
        .transact_write()
        .write(db.create(&member("m3", "d")))
        .write(db.delete::<Project>("p9"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::ConditionFailed, "{error}");
    assert_eq!(error.model(), Some("Project"), "{error}");
    assert_eq!(error.attribute(), Some("team"), "{error}");
    assert!(error.message().contains("project_count"), "{error}");
    assert_eq!(counts(team(&db, "d").await), (0, 0, 0));
    assert!(db.get::<Member>("m3").send().await.unwrap().is_none());
}

#[tokio::test]
async fn a_guard_that_names_the_writer_is_the_writers_own() {
    let db = db("count_tx_own_guard").await;
    let member = Member {
        id: "m1".into(),
        team: "a".into(),
        handle: "x".into(),
    };
    db.create(&member).send().await.unwrap();
    // Another writer changes the handle around dynorm: the guard of `x` still names m1.
    db.sdk()
        .update_item()
        .table_name(db.tables().name::<Member>())
        .key("id", AttributeValue::S("m1".into()))
        .update_expression("SET handle = :y")
        .expression_attribute_values(":y", AttributeValue::S("y".into()))
        .send()
        .await
        .unwrap();
    // Taking `x` back claims a guard that is m1's already: not a conflict with itself.
    db.transact_write()
        .write(db.update::<Member>("m1").set(Member::HANDLE, "x"))
        .send()
        .await
        .unwrap();
    assert_eq!(check_guards::<Member>(&db).await, 1);
    db.update::<Member>("m1")
        .set(Member::HANDLE, "z")
        .send()
        .await
        .unwrap();
    assert_eq!(check_guards::<Member>(&db).await, 1);
}

#[tokio::test]
async fn a_value_held_twice_can_be_given_up() {
    let db = db("count_tx_held_twice").await;
    let member = |id: &str, team: &str| Member {
        id: id.into(),
        team: team.into(),
        handle: "x".into(),
    };
    db.create(&member("m1", "a")).send().await.unwrap();
    // Two more members hold `x` in team `a`, written around dynorm: the guard names m1.
    for id in ["m2", "m3"] {
        db.sdk()
            .put_item()
            .table_name(db.tables().name::<Member>())
            .set_item(Some(as_counted::<Member>(
                member(id, "a").to_item().unwrap(),
            )))
            .send()
            .await
            .unwrap();
    }
    // They are counted, as a backfill of the count would.
    db.put(&Team {
        id: "a".into(),
        member_count: 3,
        project_count: 0,
        review_count: 0,
    })
    .send()
    .await
    .unwrap();
    // Each can give the value up, by moving or by being deleted, and m1's guard stays.
    db.transact_write()
        .write(db.update::<Member>("m2").set(Member::TEAM, "b"))
        .send()
        .await
        .unwrap();
    db.delete::<Member>("m3").send().await.unwrap();
    assert_eq!(check_guards::<Member>(&db).await, 2);
    let holder = db
        .get_unique::<Member>()
        .value(Member::TEAM, "a")
        .value(Member::HANDLE, "x")
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    assert_eq!(holder.map(|m| m.id), Some("m1".to_owned()));
    assert_eq!(team(&db, "a").await.member_count, 1);
}

/// A seat of a venue: its code is unique, and each seat counts in its venue.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "TxSeats", unique_name = "Seat")]
#[count(parent = Team, into = member_count, fields = [venue], references = [id])]
struct Seat {
    #[hash_key]
    id: String,
    venue: String,
    #[unique]
    code: String,
}

#[tokio::test]
async fn insert_many_writes_ten_thousand_counted_unique_rows() {
    let db = db("count_tx_insert_many").await;
    db.tables().create::<Seat>().send().await.unwrap();
    const ROWS: usize = 10_000;
    let rows: Vec<NewSeat> = (0..ROWS)
        .map(|i| NewSeat {
            id: format!("s{i:05}"),
            // Runs of one venue, and stretches that alternate between two.
            venue: match i % 1000 < 500 {
                true => TEAMS[i / 2500].into(),
                false => TEAMS[i % 2].into(),
            },
            code: format!("code-{i}"),
        })
        .collect();
    let mut expected: BTreeMap<String, u64> = BTreeMap::new();
    for row in &rows {
        *expected.entry(row.venue.clone()).or_default() += 1;
    }
    let started = Instant::now();
    db.insert_many(rows).send().await.unwrap();
    eprintln!("insert_many of {ROWS} rows: {:?}", started.elapsed());
    assert_eq!(check_guards::<Seat>(&db).await, ROWS);
    for id in TEAMS {
        let held = db
            .scan::<Seat>()
            .filter(Seat::VENUE.eq(id))
            .consistent_read(true)
            .count()
            .await
            .unwrap() as u64;
        assert_eq!(held, expected.get(id).copied().unwrap_or(0));
        assert_eq!(team(&db, id).await.member_count, held, "venue {id}");
    }
}

//! Adopting a constraint on a live table: a backfill builds the guards of a `#[unique]`
//! and the counts of a `#[count]` added to models whose tables already hold items. It
//! reports every value held twice with the keys that hold it, claims none of them until
//! they are resolved, and builds counts that are exact while other writers race it.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use dynorm::types::AttributeValue;
use dynorm::Model;

/// A user as written before its email was unique.
#[derive(Model, Debug, Clone)]
#[dynorm(table = "Adopters")]
struct Plain {
    #[hash_key]
    id: String,
    email: String,
}

/// The same items, now with a unique email.
#[derive(Model, Debug, Clone)]
#[dynorm(table = "Adopters", unique_name = "Adopter")]
struct Adopter {
    #[hash_key]
    id: String,
    #[unique]
    email: String,
}

/// A team, whose members are counted in `member_count` once the count is built.
#[derive(Model, Debug, Clone)]
#[dynorm(table = "AdoptTeams")]
struct Team {
    #[hash_key]
    id: String,
    member_count: u64,
}

/// A member as written before its team counted it.
#[derive(Model, Debug, Clone)]
#[dynorm(table = "AdoptMembers")]
struct Uncounted {
    #[hash_key]
    id: String,
    team: String,
}

/// The same items, now counted in their team.
#[derive(Model, Debug, Clone)]
#[dynorm(table = "AdoptMembers")]
#[count(parent = Team, into = member_count, fields = [team], references = [id])]
struct Member {
    #[hash_key]
    id: String,
    team: String,
}

const ITEMS: usize = 2_000;

fn user(i: usize) -> Plain {
    Plain {
        id: format!("u{i:04}"),
        email: format!("user{i}@example.com"),
    }
}

fn id(key: &dynorm::Item) -> String {
    match &key["id"] {
        AttributeValue::S(s) => s.clone(),
        other => panic!("an id is text, not {other:?}"),
    }
}

#[tokio::test]
async fn adopting_a_unique_reports_exactly_the_values_held_twice_and_claims_them_once_resolved() {
    let db = common::db_with::<Plain>("adopt_unique").await;
    // 2,000 users; the last three take the emails of the first three.
    let mut users: Vec<Plain> = (0..ITEMS).map(user).collect();
    for (i, twin) in (ITEMS - 3..ITEMS).enumerate() {
        users[twin].email = users[i].email.clone();
    }
    db.batch_write().put_many(&users).send().await.unwrap();

    let report = dynorm_migrate::backfill::<Adopter>(&db, "adopt-email", "AdoptProgress")
        .segments(4)
        .send()
        .await
        .unwrap();
    assert_eq!(report.scanned, ITEMS as u64);
    assert_eq!(
        report.rewritten, 0,
        "the items are current: only guards are built"
    );
    assert_eq!(report.claimed, (ITEMS - 3) as u64, "one guard per value");
    let found: BTreeMap<String, BTreeSet<String>> = report
        .duplicates
        .iter()
        .map(|d| (d.values.clone(), d.holders.iter().map(id).collect()))
        .collect();
    let expected: BTreeMap<String, BTreeSet<String>> = (0..3)
        .map(|i| {
            (
                format!("email = \"user{i}@example.com\""),
                BTreeSet::from([format!("u{i:04}"), format!("u{:04}", ITEMS - 3 + i)]),
            )
        })
        .collect();
    assert_eq!(
        found, expected,
        "exactly the three values, each with both keys"
    );
    let status = dynorm_migrate::backfill_status(&db, "adopt-email", "AdoptProgress")
        .await
        .unwrap()
        .unwrap();
    assert!(status.is_done());
    assert!(!status.constraints_hold(), "three values are held twice");
    assert_eq!(status.duplicates.len(), 3);
    // A value held once is claimed: nobody else can take it.
    let taken = db
        .create(&Adopter {
            id: "newcomer".into(),
            email: "user10@example.com".into(),
        })
        .send()
        .await
        .unwrap_err();
    assert!(taken.kind() == dynorm::ErrorKind::UniqueConflict, "{taken}");

    // Resolve them through three writers: a dynorm delete, a dynorm update that gives
    // the value up, and a raw SDK delete.
    db.delete::<Adopter>(format!("u{:04}", ITEMS - 3))
        .send()
        .await
        .unwrap();
    db.update::<Adopter>(format!("u{:04}", ITEMS - 2))
        .set(Adopter::EMAIL, "renamed@example.com".to_owned())
        .send()
        .await
        .unwrap();
    db.sdk()
        .delete_item()
        .table_name(db.tables().name::<Adopter>())
        .key("id", AttributeValue::S("u0002".into()))
        .send()
        .await
        .unwrap();

    let again = dynorm_migrate::backfill::<Adopter>(&db, "adopt-email", "AdoptProgress")
        .send()
        .await
        .unwrap();
    assert!(again.duplicates.is_empty(), "{:?}", again.duplicates);
    let status = dynorm_migrate::backfill_status(&db, "adopt-email", "AdoptProgress")
        .await
        .unwrap()
        .unwrap();
    assert!(status.constraints_hold());
    // Every value now has exactly one guard, naming the item that holds it.
    let guards = common::guards::check_guards::<Adopter>(&db).await;
    // 1,998 items left, each with a value of its own.
    assert_eq!(guards, ITEMS - 2);
    let holder = db
        .get_unique::<Adopter>()
        .value(Adopter::EMAIL, "user2@example.com")
        .send()
        .await
        .unwrap()
        .expect("the value's one holder left is found");
    assert_eq!(holder.id, format!("u{:04}", ITEMS - 1));
}

#[tokio::test]
async fn adopting_a_count_builds_every_count_exactly_while_members_come_and_go() {
    let db = common::db("adopt_count").await;
    db.tables().create::<Team>().send().await.unwrap();
    db.tables().create::<Uncounted>().send().await.unwrap();
    const TEAMS: usize = 20;
    for t in 0..TEAMS {
        db.create(&Team {
            id: format!("t{t:02}"),
            member_count: 0,
        })
        .send()
        .await
        .unwrap();
    }
    // 2,000 members written before the count, 10 of them in a team that does not exist.
    let members: Vec<Uncounted> = (0..ITEMS)
        .map(|i| Uncounted {
            id: format!("m{i:04}"),
            team: if i < 10 {
                "gone".into()
            } else {
                format!("t{:02}", i % TEAMS)
            },
        })
        .collect();
    db.batch_write().put_many(&members).send().await.unwrap();

    // Writers that know the count race three workers of the backfill: they add members,
    // move members written before the count, and delete some of both.
    let writer = {
        let db = db.clone();
        tokio::spawn(async move {
            for i in 0..60 {
                let team = format!("t{:02}", i % TEAMS);
                db.create(&Member {
                    id: format!("new{i:02}"),
                    team: team.clone(),
                })
                .send()
                .await
                .unwrap();
                let old = format!("m{:04}", 100 + i * 7);
                if i % 3 == 0 {
                    db.delete::<Member>(old).send().await.unwrap();
                } else {
                    db.update::<Member>(old)
                        .set(Member::TEAM, format!("t{:02}", (i + 1) % TEAMS))
                        .send()
                        .await
                        .unwrap();
                }
                if i % 4 == 0 {
                    db.delete::<Member>(format!("new{i:02}"))
                        .send()
                        .await
                        .unwrap();
                }
            }
        })
    };
    let run = |worker: &str| {
        dynorm_migrate::backfill::<Member>(&db, "count-members", "AdoptProgress")
            .segments(6)
            .page_size(50)
            .worker(worker)
            .send()
    };
    let (a, b, c) = tokio::join!(run("a"), run("b"), run("c"));
    writer.await.unwrap();
    let reports = [a.unwrap(), b.unwrap(), c.unwrap()];
    let orphaned: u64 = reports.iter().map(|r| r.orphaned).sum();
    let counted: u64 = reports.iter().map(|r| r.counted).sum();
    // 1,990 members with a team, less the 60 the writers moved (counted by their move) or
    // deleted before the backfill reached them, at most.
    assert!((1_930..=1_990).contains(&counted), "{counted} counted");
    assert_eq!(
        orphaned, 10,
        "the members of a team that does not exist count nowhere"
    );

    // One more run over what the writers left: every member counted, once.
    let after = dynorm_migrate::backfill::<Member>(&db, "count-members-2", "AdoptProgress")
        .send()
        .await
        .unwrap();
    assert_eq!(after.orphaned, 10);
    let mut expected: BTreeMap<String, u64> = BTreeMap::new();
    for item in common::guards::scan_all(&db, &db.tables().name::<Member>()).await {
        let AttributeValue::S(team) = &item["team"] else {
            panic!("a team is text")
        };
        if team != "gone" {
            *expected.entry(team.clone()).or_default() += 1;
        }
    }
    for t in 0..TEAMS {
        let id = format!("t{t:02}");
        let team = db
            .get::<Team>(id.as_str())
            .consistent_read(true)
            .send()
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            team.member_count,
            expected.get(&id).copied().unwrap_or(0),
            "the count of {id}"
        );
    }
    // Counted: deleting a member now takes it off its team.
    let before = expected["t11"];
    db.delete::<Member>("m0011").send().await.unwrap();
    let team = db
        .get::<Team>("t11")
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(team.member_count, before - 1);
}

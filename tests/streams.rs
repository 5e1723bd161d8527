//! Change streams: typed changes read with `db.changes`, on the embedded server or at
//! `DYNAMODB_ENDPOINT`.

mod common;

use std::time::Duration;

use dynorm::{Collection, Model};
use dynorm_streams::{ChangeKind, MemoryCheckpoints, ModelChange, NoImage, StreamView};
use futures::StreamExt;

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(stream = "new_and_old_images")]
struct Account {
    #[hash_key]
    id: String,
    balance: i64,
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(stream = "keys_only")]
struct Ping {
    #[hash_key]
    id: String,
    note: String,
}

#[derive(Model, Debug, Clone, PartialEq)]
struct Plain {
    #[hash_key]
    id: String,
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "App", entity = "team", stream = "new_and_old_images")]
#[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
struct Team {
    team_id: String,
    name: String,
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "App", entity = "membership", stream = "new_and_old_images")]
#[key(pk = "TEAM#{team_id}", sk = "MEMBER#{user_id}")]
struct Membership {
    team_id: String,
    user_id: String,
}

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "App", entity = "invite", stream = "new_and_old_images")]
#[key(pk = "TEAM#{team_id}", sk = "INVITE#{email}")]
struct Invite {
    team_id: String,
    email: String,
}

dynorm::shared_table! {
    struct AppTable { Team, Membership, Invite }
}

/// Teams and memberships; invites are not listed, so their changes are skipped.
#[derive(Collection, Debug)]
enum TeamItem {
    Team(Team),
    Member(Membership),
}

const IDLE: Duration = Duration::from_millis(700);

fn account(id: &str, balance: i64) -> Account {
    Account {
        id: id.into(),
        balance,
    }
}

#[tokio::test]
async fn each_change_kind_is_decoded_with_its_images() {
    let db = common::db_with::<Account>("streams_kinds").await;
    db.create(&account("a", 1)).send().await.unwrap();
    db.put(&account("a", 2)).send().await.unwrap();
    db.delete::<Account>("a").send().await.unwrap();

    let changes: Vec<_> = dynorm_streams::changes::<Account>(&db)
        .poll_interval(Duration::from_millis(50))
        .stop_when_idle(IDLE)
        .stream()
        .collect()
        .await;
    let changes: Vec<_> = changes.into_iter().map(Result::unwrap).collect();
    assert_eq!(changes.len(), 3, "{changes:?}");
    assert!(matches!(&changes[0].kind, ChangeKind::Insert { new } if *new == account("a", 1)));
    assert!(
        matches!(&changes[1].kind, ChangeKind::Modify { old, new } if *old == account("a", 1) && *new == account("a", 2))
    );
    assert!(matches!(&changes[2].kind, ChangeKind::Remove { old } if *old == account("a", 2)));
    for change in &changes {
        assert_eq!(change.key, AccountKey { id: "a".into() });
        assert!(!change.sequence_number.is_empty());
        assert!(!change.event_id.is_empty());
    }
}

#[tokio::test]
async fn a_keys_only_stream_has_no_images() {
    let db = common::db_with::<Ping>("streams_keys").await;
    db.create(&Ping {
        id: "p".into(),
        note: "hi".into(),
    })
    .send()
    .await
    .unwrap();
    let mut changes = dynorm_streams::changes::<Ping>(&db)
        .poll_interval(Duration::from_millis(50))
        .stop_when_idle(IDLE)
        .stream();
    let change = changes.next().await.unwrap().unwrap();
    // The type says there is no image: `new` is `NoImage`, not an `Option`.
    let ChangeKind::Insert { new: NoImage } = change.kind else {
        panic!("expected an insert, got {:?}", change.kind);
    };
    assert_eq!(change.key, PingKey { id: "p".into() });
}

#[tokio::test]
async fn the_table_declares_its_stream_and_verify_compares_it() {
    let input = Account::create_table_input();
    let spec = input.stream_specification().unwrap();
    assert!(spec.stream_enabled());
    assert_eq!(
        spec.stream_view_type().unwrap().as_str(),
        "NEW_AND_OLD_IMAGES"
    );
    assert_eq!(Account::SCHEMA.stream, Some(StreamView::NewAndOldImages));
    assert!(Plain::create_table_input().stream_specification().is_none());
    assert!(Account::create_table_json().contains("\"StreamViewType\": \"NEW_AND_OLD_IMAGES\""));

    let db = common::db_with::<Account>("streams_verify").await;
    db.tables().verify::<Account>().send().await.unwrap();
    // The same table, read as a keys-only model under another name: a difference.
    #[derive(Model)]
    #[dynorm(table = "Account", stream = "keys_only")]
    struct AccountKeys {
        #[hash_key]
        id: String,
    }
    let error = db
        .tables()
        .verify::<AccountKeys>()
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Config, "{error}");
    assert!(error.to_string().contains("KEYS_ONLY"), "{error}");
}

#[tokio::test]
async fn enable_stream_turns_on_the_stream_of_an_existing_table() {
    #[derive(Model, Debug, Clone, PartialEq)]
    #[dynorm(table = "Plain", stream = "new_image")]
    struct PlainStreamed {
        #[hash_key]
        id: String,
    }
    let db = common::db_with::<Plain>("streams_enable").await;
    let error = db
        .tables()
        .verify::<PlainStreamed>()
        .send()
        .await
        .unwrap_err();
    assert!(error.to_string().contains("no stream"), "{error}");
    db.tables()
        .enable_stream::<Plain>(StreamView::NewImage)
        .send()
        .await
        .unwrap();
    db.tables()
        .enable_stream::<Plain>(StreamView::NewImage)
        .send()
        .await
        .unwrap(); // already on: nothing to do
    db.tables().verify::<PlainStreamed>().send().await.unwrap();
    db.create(&PlainStreamed { id: "x".into() })
        .send()
        .await
        .unwrap();
    let changes: Vec<_> = dynorm_streams::changes::<PlainStreamed>(&db)
        .poll_interval(Duration::from_millis(50))
        .stop_when_idle(IDLE)
        .stream()
        .collect()
        .await;
    assert_eq!(changes.len(), 1);
    let change = changes.into_iter().next().unwrap().unwrap();
    assert!(
        matches!(change.kind, ChangeKind::Insert { new } if new == PlainStreamed { id: "x".into() })
    );
}

#[tokio::test]
async fn a_shared_table_decodes_into_the_enum_and_skips_unknown_entities() {
    let db = common::db("streams_shared").await;
    db.tables()
        .create_shared::<AppTable>()
        .send()
        .await
        .unwrap();
    db.create(&Team {
        team_id: "t1".into(),
        name: "Core".into(),
    })
    .send()
    .await
    .unwrap();
    db.create(&Invite {
        team_id: "t1".into(),
        email: "a@example.com".into(),
    })
    .send()
    .await
    .unwrap();
    db.create(&Membership {
        team_id: "t1".into(),
        user_id: "u1".into(),
    })
    .send()
    .await
    .unwrap();

    let tally = dynorm::observe::Tally::default();
    let mut changes = dynorm_streams::collection_changes::<TeamItem>(&db)
        .tally(&tally)
        .poll_interval(Duration::from_millis(50))
        .stop_when_idle(IDLE)
        .stream();
    let mut seen = Vec::new();
    let mut keys = Vec::new();
    while let Some(change) = changes.next().await {
        let change = change.unwrap();
        keys.push(change.key);
        match change.kind {
            ChangeKind::Insert {
                new: TeamItem::Team(team),
            } => seen.push(format!("team {}", team.name)),
            ChangeKind::Insert {
                new: TeamItem::Member(member),
            } => seen.push(format!("member {}", member.user_id)),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(seen, ["team Core", "member u1"]);
    assert_eq!(tally.skipped(), 1, "the invite is skipped and counted");
    // Each key is the entity's typed key, read back from the stored templates.
    assert_eq!(
        keys,
        [
            TeamItemKey::Team(TeamKey {
                team_id: "t1".into()
            }),
            TeamItemKey::Member(MembershipKey {
                team_id: "t1".into(),
                user_id: "u1".into()
            }),
        ]
    );

    // A model on the shared table sees only its own entity.
    let own = dynorm::observe::Tally::default();
    let mut memberships = dynorm_streams::changes::<Membership>(&db)
        .tally(&own)
        .poll_interval(Duration::from_millis(50))
        .stop_when_idle(IDLE)
        .stream();
    let first = memberships.next().await.unwrap().unwrap();
    assert_eq!(
        first.key,
        MembershipKey {
            team_id: "t1".into(),
            user_id: "u1".into()
        }
    );
    assert!(matches!(first.kind, ChangeKind::Insert { new } if new.user_id == "u1"));
    assert!(memberships.next().await.is_none());
    assert_eq!(own.skipped(), 2);
}

fn balance(change: dynorm::Result<ModelChange<Account>>) -> i64 {
    match change.unwrap().kind {
        ChangeKind::Insert { new } | ChangeKind::Modify { new, .. } => new.balance,
        other => panic!("unexpected {other:?}"),
    }
}

#[tokio::test]
async fn a_consumer_resumes_after_the_last_change_it_handled() {
    let db = common::db_with::<Account>("streams_resume").await;
    for i in 0..6 {
        db.put(&account("r", i)).send().await.unwrap();
    }
    let store = MemoryCheckpoints::new();
    let consumer = || {
        dynorm_streams::changes::<Account>(&db)
            .consumer("resume")
            .checkpoints(store.clone())
            .poll_interval(Duration::from_millis(50))
            .stop_when_idle(IDLE)
    };
    // The first run handles two changes, commits each, and stops.
    let mut first = consumer().stream();
    for expected in 0..2 {
        assert_eq!(balance(first.next().await.unwrap()), expected);
        first.commit().await.unwrap();
    }
    drop(first);
    // The second starts after the last change handled: nothing comes twice. It handles
    // two more without `commit`: asking for the second saves the first's checkpoint.
    let mut second = consumer().stream();
    assert_eq!(balance(second.next().await.unwrap()), 2);
    assert_eq!(balance(second.next().await.unwrap()), 3);
    drop(second);
    // The change handled last, never committed, comes again (at least once); then the rest.
    let third: Vec<i64> = consumer().stream().map(balance).collect().await;
    assert_eq!(third, [3, 4, 5]);
    // After a run to the end, nothing is left.
    db.put(&account("r", 6)).send().await.unwrap();
    let fourth: Vec<i64> = consumer().stream().map(balance).collect().await;
    assert_eq!(fourth, [6]);
}

#[tokio::test]
async fn changes_to_one_key_come_in_order() {
    let db = common::db_with::<Account>("streams_order").await;
    for i in 0..20 {
        let id = if i % 2 == 0 { "even" } else { "odd" };
        db.put(&account(id, i)).send().await.unwrap();
    }
    let changes: Vec<_> = dynorm_streams::changes::<Account>(&db)
        .page_size(3)
        .poll_interval(Duration::from_millis(50))
        .stop_when_idle(IDLE)
        .stream()
        .collect()
        .await;
    let mut last: std::collections::HashMap<String, i64> = Default::default();
    for change in changes {
        let change = change.unwrap();
        let (ChangeKind::Insert { new } | ChangeKind::Modify { new, .. }) = change.kind else {
            panic!("unexpected kind");
        };
        if let Some(before) = last.insert(new.id.clone(), new.balance) {
            assert!(
                before < new.balance,
                "{} went {before} -> {}",
                new.id,
                new.balance
            );
        }
    }
    assert_eq!(last["even"], 18);
    assert_eq!(last["odd"], 19);
}

#[tokio::test]
async fn a_page_size_of_0_or_over_1000_is_refused_before_sending() {
    let db = common::db_with::<Account>("streams_page_size").await;
    for page_size in [0, 1001] {
        let requests = common::Requests::new();
        let first = dynorm_streams::changes::<Account>(&requests.client(&db))
            .page_size(page_size)
            .stop_when_idle(IDLE)
            .stream()
            .next()
            .await
            .expect("the error comes first");
        let error = first.unwrap_err();
        assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
        assert_eq!(requests.total(), 0, "nothing is sent for {page_size}");
    }
}

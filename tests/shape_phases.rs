//! A shape change in two phases during a rolling deploy: a binary still on shape 1 (a
//! second client on the old model) reads and writes the table throughout a backfill to
//! shape 2, which drops an attribute shape 1 requires. While the backfill expands, no
//! read of the old binary fails, and what it writes is what shape 2's readers see; once
//! it is gone, the contract run makes every item current.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use dynorm::types::AttributeValue;
use dynorm::Model;
use serde::Deserialize;

/// The binary still on shape 1: a nickname, required.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Profiles")]
struct OldProfile {
    #[hash_key]
    id: String,
    name: String,
    nickname: String,
}

/// Shape 1, as today's model reads it.
#[derive(Deserialize)]
struct ProfileV1 {
    id: String,
    name: String,
    nickname: String,
}

/// Shape 2: the nickname became a greeting.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Profiles", shape = 2, upcasts = [ProfileV1])]
struct Profile {
    #[hash_key]
    id: String,
    name: String,
    greeting: String,
}

impl From<ProfileV1> for Profile {
    fn from(v1: ProfileV1) -> Self {
        Profile {
            greeting: format!("hi {}", v1.nickname),
            id: v1.id,
            name: v1.name,
        }
    }
}

const ITEMS: usize = 400;

fn old(i: usize, name: &str) -> OldProfile {
    OldProfile {
        id: format!("p{i:03}"),
        name: name.into(),
        nickname: format!("n{i}"),
    }
}

#[tokio::test]
async fn an_old_binary_reads_every_item_while_the_backfill_expands_and_the_contract_makes_them_current(
) {
    let db = common::db_with::<OldProfile>("shape_phases").await;
    for i in 0..ITEMS {
        db.put(&old(i, "first")).send().await.unwrap();
    }

    // The old binary: reads every item over and over, and renames some with updates and
    // puts of its own shape, until it is stopped.
    let stop = Arc::new(AtomicBool::new(false));
    let reads = Arc::new(AtomicU64::new(0));
    let old_binary = {
        let (db, stop, reads) = (db.clone(), stop.clone(), reads.clone());
        tokio::spawn(async move {
            let mut round = 0;
            while !stop.load(Ordering::SeqCst) {
                for i in (0..ITEMS).step_by(7) {
                    let id = format!("p{i:03}");
                    let read = db.get::<OldProfile>(id.as_str()).send().await;
                    let profile = read
                        .unwrap_or_else(|e| panic!("the old binary reads {id}: {e}"))
                        .expect("the item exists");
                    assert_eq!(profile.nickname, format!("n{i}"));
                    reads.fetch_add(1, Ordering::SeqCst);
                }
                let i = (round * 13) % ITEMS;
                if round % 2 == 0 {
                    db.update::<OldProfile>(format!("p{i:03}"))
                        .set(OldProfile::NAME, "renamed".to_owned())
                        .send()
                        .await
                        .unwrap();
                } else {
                    db.put(&old(i, "renamed")).send().await.unwrap();
                }
                round += 1;
            }
            round
        })
    };

    // Expand: shape 2's attributes are written, shape 1's kept.
    let expand = dynorm_migrate::backfill::<Profile>(&db, "profiles-2/expand", "ProfilePhases")
        .expand(true)
        .page_size(25)
        .send()
        .await
        .unwrap();
    assert_eq!(expand.scanned, ITEMS as u64);
    assert!(expand.rewritten > 0);
    let items = common::guards::scan_all(&db, &db.tables().name::<Profile>()).await;
    for item in &items {
        assert!(
            item.contains_key("nickname"),
            "expanded items keep shape 1's nickname"
        );
        assert!(item.get("__shape").is_none(), "and its shape: {item:?}");
        // Shape 2's readers read it, from what the old binary wrote.
        let profile = Profile::from_item(item.clone()).unwrap();
        assert!(profile.greeting.starts_with("hi n"));
    }
    // What the old binary wrote during the expand is what today's readers see.
    let renamed = db.get::<Profile>("p000").send().await.unwrap().unwrap();
    assert_eq!(renamed.name, "renamed");

    // The old binary is gone: contract.
    stop.store(true, Ordering::SeqCst);
    let rounds = old_binary.await.unwrap();
    assert!(rounds > 0 && reads.load(Ordering::SeqCst) > 0);
    let contract = dynorm_migrate::backfill::<Profile>(&db, "profiles-2", "ProfilePhases")
        .send()
        .await
        .unwrap();
    assert_eq!(contract.rewritten, ITEMS as u64);
    for item in common::guards::scan_all(&db, &db.tables().name::<Profile>()).await {
        assert_eq!(item.get("__shape"), Some(&AttributeValue::N("2".into())));
        assert!(!item.contains_key("nickname"), "contracted: {item:?}");
        let profile = Profile::from_item(item).unwrap();
        assert!(profile.greeting.starts_with("hi n"));
    }
}

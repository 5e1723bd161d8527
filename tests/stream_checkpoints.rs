//! Checkpoints kept in a DynamoDB table: a consumer made again (a restart) resumes after the
//! last change it handled, and concurrent writers never move a checkpoint back.

mod common;

use std::time::Duration;

use dynorm::{Client, Model};
use dynorm_streams::{
    ChangeKind, Checkpoint, CheckpointKey, CheckpointStore, ModelChange, TableCheckpoints,
};
use futures::StreamExt;

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(stream = "new_and_old_images")]
struct Order {
    #[hash_key]
    id: String,
    step: i64,
}

const IDLE: Duration = Duration::from_millis(700);

/// A checkpoint store in a table of its own, made as a process starting afresh would.
async fn store(db: &Client) -> TableCheckpoints {
    let store = TableCheckpoints::new(db, db.tables().full_name("Checkpoints"));
    store.ensure_table().await.unwrap();
    store
}

fn step(change: dynorm::Result<ModelChange<Order>>) -> (String, i64) {
    match change.unwrap().kind {
        ChangeKind::Insert { new } | ChangeKind::Modify { new, .. } => (new.id, new.step),
        other => panic!("unexpected {other:?}"),
    }
}

fn consumer(
    db: &Client,
    store: TableCheckpoints,
) -> dynorm_streams::Changes<Order, dynorm_streams::NewAndOldImages> {
    dynorm_streams::changes::<Order>(db)
        .consumer("billing")
        .checkpoints(store)
        .poll_interval(Duration::from_millis(50))
        .stop_when_idle(IDLE)
        .stream()
}

#[tokio::test]
async fn a_restarted_consumer_resumes_from_the_table_without_losing_or_repeating() {
    let db = common::db_with::<Order>("stream_checkpoints_resume").await;
    let write = |id: &str, step: i64| {
        let db = db.clone();
        let order = Order {
            id: id.into(),
            step,
        };
        async move { db.put(&order).send().await.unwrap() }
    };
    for i in 0..3 {
        write("a", i).await;
        write("b", i).await;
    }
    let mut all = Vec::new();
    // The first process handles four changes, committing each, and stops.
    {
        let mut changes = consumer(&db, store(&db).await);
        for _ in 0..4 {
            all.push(step(changes.next().await.unwrap()));
            changes.commit().await.unwrap();
        }
    }
    // Changes made while no consumer runs are not lost.
    write("a", 3).await;
    // The next process, with a store of its own on the same table, reads the rest once.
    let rest: Vec<_> = consumer(&db, store(&db).await).map(step).collect().await;
    assert_eq!(rest.len(), 3, "{rest:?}");
    all.extend(rest);
    let expected: Vec<_> = [
        ("a", 0),
        ("b", 0),
        ("a", 1),
        ("b", 1),
        ("a", 2),
        ("b", 2),
        ("a", 3),
    ]
    .into_iter()
    .map(|(id, step)| (id.to_owned(), step))
    .collect();
    assert_eq!(all, expected);
    // A third run finds nothing left.
    let none: Vec<_> = consumer(&db, store(&db).await).collect().await;
    assert!(none.is_empty(), "{} changes came again", none.len());
}

#[tokio::test]
async fn concurrent_writers_never_move_a_checkpoint_back() {
    let db = common::db("stream_checkpoints_race").await;
    let (one, two) = (store(&db).await, store(&db).await);
    let after = |n: u64| Checkpoint::After(format!("{n:021}"));
    // Forty saves of sequence numbers 1..=40 from two writers at once, in an order that
    // is not the numbers' order.
    let saves = (1..=40u64).map(|i| {
        let n = (i * 17) % 40 + 1;
        let writer = if i % 2 == 0 { one.clone() } else { two.clone() };
        async move {
            writer
                .save(CheckpointKey::new("c", "arn:stream", "shard-1"), after(n))
                .await
        }
    });
    for saved in futures::future::join_all(saves).await {
        saved.unwrap();
    }
    assert_eq!(
        one.load(CheckpointKey::new("c", "arn:stream", "shard-1"))
            .await
            .unwrap(),
        Some(after(40))
    );
    // A late writer with an older checkpoint changes nothing, and is not an error.
    two.save(CheckpointKey::new("c", "arn:stream", "shard-1"), after(3))
        .await
        .unwrap();
    assert_eq!(
        one.load(CheckpointKey::new("c", "arn:stream", "shard-1"))
            .await
            .unwrap(),
        Some(after(40))
    );
    // Sequence numbers of different lengths compare as numbers, not as text.
    for sequence in ["900", "1000", "950"] {
        two.save(
            CheckpointKey::new("c", "arn:stream", "shard-2"),
            Checkpoint::After(sequence.into()),
        )
        .await
        .unwrap();
    }
    assert_eq!(
        one.load(CheckpointKey::new("c", "arn:stream", "shard-2"))
            .await
            .unwrap(),
        Some(Checkpoint::After("1000".into()))
    );
    // Nothing is further than a shard's end.
    one.save(
        CheckpointKey::new("c", "arn:stream", "shard-2"),
        Checkpoint::ShardEnd,
    )
    .await
    .unwrap();
    two.save(CheckpointKey::new("c", "arn:stream", "shard-2"), after(99))
        .await
        .unwrap();
    assert_eq!(
        one.load(CheckpointKey::new("c", "arn:stream", "shard-2"))
            .await
            .unwrap(),
        Some(Checkpoint::ShardEnd)
    );
    // Checkpoints are per consumer: another one starts afresh.
    assert_eq!(
        one.load(CheckpointKey::new("d", "arn:stream", "shard-1"))
            .await
            .unwrap(),
        None
    );
}

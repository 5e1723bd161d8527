//! Counts kept by writes: every write path that creates or deletes a counted item moves
//! its parent's count in the same transaction, and the count never goes below zero.

mod common;

use common::random::Lcg;

use dynorm::types::AttributeValue;
use dynorm::{Client, ErrorKind, Model};
use dynorm_test::{Fault, Script};

/// A project, whose `task_count` the tasks keep.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "CountProjects")]
struct Project {
    #[hash_key]
    id: String,
    name: String,
    task_count: u64,
}

/// A task, counted in its project; it can move to another project.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "CountTasks")]
#[count(parent = Project, into = task_count, fields = [project], references = [id])]
struct Task {
    #[hash_key]
    id: String,
    project: String,
    title: String,
}

fn task(id: &str, project: &str) -> Task {
    Task {
        id: id.into(),
        project: project.into(),
        title: format!("task {id}"),
    }
}

/// The projects, p1 to p8.
const PROJECTS: [&str; 8] = ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"];

async fn db() -> Client {
    let db = common::db("counts").await;
    db.tables().create::<Project>().send().await.unwrap();
    db.tables().create::<Task>().send().await.unwrap();
    for id in PROJECTS {
        let project = Project {
            id: id.into(),
            name: id.into(),
            task_count: 0,
        };
        db.create(&project).send().await.unwrap();
    }
    db
}

async fn count(db: &Client, project: &str) -> u64 {
    db.get::<Project>(project)
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .expect("the project exists")
        .task_count
}

#[tokio::test]
async fn every_write_path_moves_the_count() {
    let db = db().await;
    let requests = common::Requests::new();
    let counted = requests.client(&db);

    // A create counts one, in one transaction.
    counted.create(&task("t1", "p1")).send().await.unwrap();
    requests.assert_counts([("TransactWriteItems", 1)]);
    db.insert(NewTask {
        id: "t2".into(),
        project: "p1".into(),
        title: "two".into(),
    })
    .send()
    .await
    .unwrap();
    assert_eq!(count(&db, "p1").await, 2);

    // A put over the same item in the same project changes no count: one PutItem.
    let mut t1 = task("t1", "p1");
    t1.title = "renamed".into();
    counted.put(&t1).send().await.unwrap();
    requests.assert_counts([("PutItem", 1)]);
    assert_eq!(count(&db, "p1").await, 2);
    // A put of a new item counts it; a put that moves it moves the count.
    db.put(&task("t3", "p2")).send().await.unwrap();
    db.put(&task("t1", "p2")).send().await.unwrap();
    assert_eq!((count(&db, "p1").await, count(&db, "p2").await), (1, 2));

    // Updates: one that does not move the item is one UpdateItem; one that moves it moves
    // the count; an upsert that creates counts one.
    counted
        .update::<Task>("t1")
        .set(Task::TITLE, "again")
        .send()
        .await
        .unwrap();
    requests.assert_counts([("UpdateItem", 1)]);
    db.update::<Task>("t1")
        .set(Task::PROJECT, "p1")
        .send()
        .await
        .unwrap();
    assert_eq!((count(&db, "p1").await, count(&db, "p2").await), (2, 1));
    db.update::<Task>("t9")
        .set(Task::PROJECT, "p2")
        .set(Task::TITLE, "new")
        .upsert()
        .send()
        .await
        .unwrap();
    db.update::<Task>("t9")
        .set(Task::PROJECT, "p2")
        .set(Task::TITLE, "newer")
        .upsert()
        .send()
        .await
        .unwrap();
    assert_eq!(count(&db, "p2").await, 2);

    // A delete counts one less; deleting a missing item changes nothing.
    counted.delete::<Task>("t9").send().await.unwrap();
    requests.assert_counts([("GetItem", 1), ("TransactWriteItems", 1)]);
    db.delete::<Task>("t9").send().await.unwrap();
    assert_eq!(count(&db, "p2").await, 1);

    // Transactions: two tasks of one project add up in one update of it.
    db.transact_write()
        .write(db.create(&task("t4", "p1")))
        .write(db.create(&task("t5", "p1")))
        .write(db.delete::<Task>("t3"))
        .send()
        .await
        .unwrap();
    assert_eq!((count(&db, "p1").await, count(&db, "p2").await), (4, 0));
    // A transaction that also writes the parent is refused before sending.
    let error = db
        .transact_write()
        .write(db.create(&task("t6", "p1")))
        .write(db.update::<Project>("p1").set(Project::NAME, "renamed"))
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
    // insert_many counts each row.
    let rows = (10..15).map(|i| NewTask {
        id: format!("t{i}"),
        project: "p2".into(),
        title: "many".into(),
    });
    db.insert_many(rows.collect::<Vec<_>>())
        .send()
        .await
        .unwrap();
    assert_eq!(count(&db, "p2").await, 5);
}

#[tokio::test]
async fn a_missing_parent_or_a_count_at_zero_refuses_the_write() {
    let db = db().await;
    let error = db.create(&task("t1", "nowhere")).send().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::NotFound, "{error}");
    assert_eq!(error.model(), Some("Task"));
    assert_eq!(error.attribute(), Some("project"));
    assert!(error.message().contains("Project"), "{error}");
    assert!(db.get::<Task>("t1").send().await.unwrap().is_none());

    // A task written around dynorm is not counted: deleting it leaves the count alone.
    let raw = |item| async {
        db.sdk()
            .put_item()
            .table_name(db.tables().name::<Task>())
            .set_item(Some(item))
            .send()
            .await
            .unwrap();
    };
    raw(task("t2", "p1").to_item().unwrap()).await;
    db.delete::<Task>("t2").send().await.unwrap();
    assert_eq!(count(&db, "p1").await, 0);
    // One marked as counted while the count says 0 (changed around dynorm): deleting it
    // would take the count below zero, which is refused.
    raw(common::guards::as_counted::<Task>(
        task("t3", "p1").to_item().unwrap(),
    ))
    .await;
    let error = db.delete::<Task>("t3").send().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::ConditionFailed, "{error}");
    assert!(error.message().contains("below"), "{error}");
    assert_eq!(count(&db, "p1").await, 0);
}

/// A project's `task_count` as stored: `None` for no project, `Some(None)` for a project
/// that holds no count (not built yet).
async fn stored_count(db: &Client, project: &str) -> Option<Option<String>> {
    let item = db
        .sdk()
        .get_item()
        .table_name(db.tables().name::<Project>())
        .key("id", AttributeValue::S(project.into()))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item?;
    Some(item.get("task_count").map(|v| v.as_n().unwrap().clone()))
}

/// Asserts that the last transaction sent checks the project, without writing it, on a
/// condition that holds `words`.
#[track_caller]
fn assert_checked(requests: &common::Requests, words: &str) {
    let bodies = requests.bodies("TransactWriteItems");
    let last = bodies.last().expect("a transaction was sent");
    let items = last["TransactItems"]
        .as_array()
        .expect("the transaction's items");
    let check = items
        .iter()
        .find_map(|item| item.get("ConditionCheck"))
        .unwrap_or_else(|| panic!("a condition check of the project in {last}"));
    let condition = check["ConditionExpression"].as_str().unwrap_or_default();
    assert!(condition.contains(words), "{check}");
    assert!(
        items.iter().all(|item| item.get("Update").is_none()),
        "{last}"
    );
}

#[tokio::test]
async fn a_count_not_built_yet_or_a_parent_gone_does_not_block_its_children() {
    let db = db().await;
    for (id, project) in [("t1", "p1"), ("t2", "p1"), ("t3", "p2"), ("t4", "p2")] {
        db.create(&task(id, project)).send().await.unwrap();
    }
    // p1 loses its count, as before a backfill builds it.
    db.sdk()
        .update_item()
        .table_name(db.tables().name::<Project>())
        .key("id", AttributeValue::S("p1".into()))
        .update_expression("REMOVE task_count")
        .send()
        .await
        .unwrap();

    // Its children can be deleted and moved away: the count stays absent, not below zero.
    let requests = common::Requests::new();
    let counted = requests.client(&db);
    counted.delete::<Task>("t1").send().await.unwrap();
    // The count's condition fails on the absent count, and the delete is planned again
    // with the condition that it is still absent.
    assert_checked(&requests, "attribute_not_exists");
    requests.assert_counts([("GetItem", 1), ("TransactWriteItems", 2)]);
    db.update::<Task>("t2")
        .set(Task::PROJECT, "p2")
        .send()
        .await
        .unwrap();
    assert_eq!(stored_count(&db, "p1").await, Some(None));
    assert_eq!(count(&db, "p2").await, 3);
    // A child created there creates the count.
    db.create(&task("t5", "p1")).send().await.unwrap();
    assert_eq!(stored_count(&db, "p1").await, Some(Some("1".into())));

    // p2 is deleted before its children: they can still be deleted and moved away, and
    // its count is not written (an ADD would create the project again).
    db.delete::<Project>("p2").send().await.unwrap();
    counted.delete::<Task>("t3").send().await.unwrap();
    // Planned again with a check that the project is still gone, in place of its count.
    assert_checked(&requests, "attribute_not_exists");
    requests.assert_counts([("GetItem", 1), ("TransactWriteItems", 2)]);
    db.put(&task("t4", "p1")).send().await.unwrap();
    db.transact_write()
        .write(db.update::<Task>("t2").set(Task::PROJECT, "p1"))
        .send()
        .await
        .unwrap();
    assert_eq!(stored_count(&db, "p2").await, None);
    assert_eq!(count(&db, "p1").await, 3);

    // A child cannot be created in, or moved to, a project that does not exist.
    let error = db.create(&task("t6", "p2")).send().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::NotFound, "{error}");
    assert!(error.message().contains("Project"), "{error}");
    let error = db
        .update::<Task>("t5")
        .set(Task::PROJECT, "p2")
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::NotFound, "{error}");
    assert_eq!(error.attribute(), Some("project"));
    // One child arriving as another leaves needs the project too.
    let error = db
        .transact_write()
        .write(db.create(&task("t7", "p2")))
        .write(db.delete::<Task>("t5"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::NotFound, "{error}");
    assert_eq!(stored_count(&db, "p2").await, None);
    assert!(db.get::<Task>("t7").send().await.unwrap().is_none());
    assert_eq!(count(&db, "p1").await, 3);
}

#[tokio::test]
async fn racing_creates_and_deletes_keep_every_count_exact() {
    let db = db().await;
    const TASKS: u64 = 64;
    const STEPS: u64 = 100;
    let workers: Vec<_> = (0..TASKS)
        .map(|worker| {
            // A third of the workers get injected faults: transactions cancelled, lost
            // answers after the write was applied, and conflicts.
            let fault = match worker % 6 {
                0 => Some(Fault::Coded("TransactionCanceledException")),
                1 => Some(Fault::ServerErrorAfterApplying),
                2 => Some(Fault::Coded("TransactionConflictException")),
                _ => None,
            };
            let client = match fault {
                Some(fault) => Script::new("TransactWriteItems", fault)
                    .skip((worker % 5) as usize)
                    .times(3)
                    .client(&db, 3),
                None => db.clone(),
            };
            tokio::spawn(async move {
                let mut random = Lcg(worker + 1);
                for _ in 0..STEPS {
                    let id = format!("t{}", random.below(400));
                    let project = PROJECTS[random.below(8) as usize];
                    // Failures are part of the race (taken keys, injected faults); what
                    // matters is the counts at the end.
                    let _ = match random.below(3) {
                        0 => client.delete::<Task>(id.as_str()).send().await,
                        1 => client.put(&task(&id, project)).send().await,
                        _ => client.create(&task(&id, project)).send().await,
                    };
                }
            })
        })
        .collect();
    for worker in workers {
        worker.await.unwrap();
    }
    // Each project's tasks, counted by DynamoDB (`Select = COUNT`, strongly consistent).
    let mut total = 0;
    for project in PROJECTS {
        let held = db
            .scan::<Task>()
            .filter(Task::PROJECT.eq(project))
            .consistent_read(true)
            .count()
            .await
            .unwrap() as u64;
        total += held;
        assert_eq!(count(&db, project).await, held, "the count of {project}");
    }
    assert!(total > 0);
}

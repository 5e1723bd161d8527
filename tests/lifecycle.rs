//! Index lifecycle: a global index added to a live table with `UpdateTable`, refused to
//! readers until the keys of the items written before it are backfilled, and deleted;
//! and the differences between a model and its live table, listed as data.

mod common;

use common::tasks::{write_old_tasks, Task, TaskGSI1, TaskV1};

use dynorm::schema::DifferenceKind;
use dynorm::ErrorKind;

const TASKS: usize = 30;

#[tokio::test]
async fn an_index_being_created_is_refused_before_sending_until_its_keys_are_backfilled() {
    let db = common::db_with::<TaskV1>("lifecycle_create").await;
    write_old_tasks(&db, TASKS).await;
    let before = db.tables().differences::<Task>().send().await.unwrap();
    assert_eq!(before.len(), 1, "{before:?}");
    assert_eq!(before[0].kind, DifferenceKind::MissingIndex);
    assert_eq!(before[0].index.as_deref(), Some("GSI1"));

    let requests = common::Requests::new();
    let counted = requests.client(&db);
    let creating = counted
        .tables()
        .create_index::<Task>("GSI1")
        .send()
        .await
        .unwrap();
    assert_eq!(
        (creating.table(), creating.index()),
        (db.tables().name::<Task>().as_str(), "GSI1")
    );
    assert_eq!(requests.sent("UpdateTable"), 1);

    // Every clone of the client knows, and refuses to read the index before sending.
    let clone = db.clone();
    assert!(clone.tables().is_creating_index::<Task>("GSI1"));
    let sent = requests.total();
    let error = counted.query_by::<TaskGSI1>("o1").all().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::IndexNotActive, "{error}");
    assert!(error.kind() == dynorm::ErrorKind::IndexNotActive);
    assert_eq!(error.index(), Some("GSI1"));
    assert_eq!(error.model(), Some("Task"));
    assert_eq!(error.operation(), Some("query"));
    assert_eq!(error.table(), Some(db.tables().name::<Task>().as_str()));
    let shown = error.to_string();
    assert!(
        shown.starts_with("index not active in `query` on model `Task`"),
        "{shown}"
    );
    assert!(shown.contains("index `GSI1`"), "{shown}");
    let error = counted.scan_by::<TaskGSI1>().all().await.unwrap_err();
    assert_eq!(
        (error.kind(), error.operation()),
        (ErrorKind::IndexNotActive, Some("scan"))
    );
    assert_eq!(requests.total(), sent, "nothing was sent");
    // The table itself stays readable.
    assert_eq!(db.scan::<Task>().all().await.unwrap().len(), TASKS);

    let progress = format!("{}_progress", db.tables().name::<Task>());
    let report = dynorm_migrate::backfill::<Task>(&db, "tasks-gsi1", progress)
        .send()
        .await
        .unwrap();
    assert_eq!(report.rewritten, TASKS as u64);
    creating.finish();
    assert!(!clone.tables().is_creating_index::<Task>("GSI1"));
    let owned = db.query_by::<TaskGSI1>("o1").all().await.unwrap();
    assert_eq!(owned.len(), TASKS / 3);
    assert!(db
        .tables()
        .differences::<Task>()
        .send()
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn add_index_creates_waits_and_backfills_and_delete_index_removes_it() {
    let db = common::db_with::<TaskV1>("lifecycle_add").await;
    write_old_tasks(&db, TASKS).await;
    let progress = format!("{}_progress", db.tables().name::<Task>());
    let report = dynorm_migrate::add_index::<Task>(&db, "GSI1", "tasks-gsi1", progress)
        .await
        .unwrap();
    assert_eq!(report.rewritten, TASKS as u64);
    assert_eq!(db.query_by::<TaskGSI1>("o2").all().await.unwrap().len(), 10);

    // A dropped creation (an error midway) lets readers in again too.
    let error = db
        .tables()
        .create_index::<Task>("GSI1")
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.index(), Some("GSI1"));
    assert_eq!(error.operation(), Some("create_index"));
    assert!(!db.tables().is_creating_index::<Task>("GSI1"));
    // An index the model does not declare, or a local one, is refused before sending.
    let error = db
        .tables()
        .create_index::<Task>("byNothing")
        .send()
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Config, "{error}");

    db.tables()
        .delete_index::<Task>("GSI1")
        .send()
        .await
        .unwrap();
    let after = db.tables().differences::<Task>().send().await.unwrap();
    assert_eq!(
        after.iter().map(|d| d.kind).collect::<Vec<_>>(),
        [DifferenceKind::MissingIndex]
    );
}

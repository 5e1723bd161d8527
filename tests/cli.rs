//! The command line (`dynorm::cli`, feature `cli`), run as functions: `plan`, `export`,
//! `check`, `sync` and `migrate`, on live tables through the real SDK.

mod common;

use common::tasks::{write_old_tasks, Task, TaskGSI1, TaskV1};

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, ScalarAttributeType,
};
use chrono::{DateTime, Utc};
use dynorm::schema::DifferenceKind;
use dynorm::{Client, Model};
use dynorm_migrate::cli::{App, Change, Outcome};

/// A model whose live table drifts: made by hand below.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Sessions", stream = "new_image")]
struct Session {
    #[hash_key]
    id: String,
    #[index(name = "byUser")]
    user: String,
    #[index(name = "byDevice", project = false)]
    device: String,
    #[ttl]
    expires: Option<DateTime<Utc>>,
}

const TASKS: usize = 12;

/// A table or index that is not active by then fails the test, rather than holding it.
const WAIT: std::time::Duration = std::time::Duration::from_secs(120);

fn args(db: &Client, words: &[&str]) -> Vec<String> {
    let progress = db.tables().full_name("progress");
    let mut out = vec!["app".to_owned(), "--progress-table".to_owned(), progress];
    out.extend(words.iter().map(|w| (*w).to_owned()));
    out
}

/// `Session`'s table, drifted three ways (and a fourth): `byUser` projects keys only,
/// `byDevice` is missing, there is no stream, and time to live is off.
async fn create_drifted_sessions(db: &Client) {
    let definition = |name: &str| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(ScalarAttributeType::S)
            .build()
            .unwrap()
    };
    let hash = |name: &str| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(KeyType::Hash)
            .build()
            .unwrap()
    };
    db.sdk()
        .create_table()
        .table_name(db.tables().name::<Session>())
        .attribute_definitions(definition("id"))
        .attribute_definitions(definition("user"))
        .key_schema(hash("id"))
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("byUser")
                .key_schema(hash("user"))
                .projection(
                    Projection::builder()
                        .projection_type(ProjectionType::KeysOnly)
                        .build(),
                )
                .build()
                .unwrap(),
        )
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
    db.tables()
        .wait_until_active::<Session>(std::time::Duration::from_secs(30))
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn check_lists_every_difference_as_data_and_as_text() {
    let db = common::db("cli_check").await;
    create_drifted_sessions(&db).await;
    let app = App::new().wait(WAIT).model::<Session>().model::<Task>();
    let outcome = app.run_with(&db, args(&db, &["check"])).await.unwrap();
    assert!(!outcome.is_success());
    let Outcome::Check(differences) = &outcome else {
        panic!("{outcome:?}")
    };
    let sessions = db.tables().name::<Session>();
    let found: Vec<(DifferenceKind, Option<&str>)> = differences
        .iter()
        .filter(|d| d.table == sessions)
        .map(|d| (d.kind, d.index.as_deref()))
        .collect();
    assert_eq!(
        found,
        [
            (DifferenceKind::Projection, Some("byUser")),
            (DifferenceKind::MissingIndex, Some("byDevice")),
            (DifferenceKind::Stream, None),
            (DifferenceKind::TimeToLive, None),
        ],
        "{differences:#?}"
    );
    // Task's table does not exist at all.
    let tasks = differences
        .iter()
        .find(|d| d.table == db.tables().name::<Task>())
        .unwrap();
    assert_eq!(tasks.kind, DifferenceKind::MissingTable);

    let shown = outcome.to_string();
    for line in [
        "5 differences:".to_owned(),
        format!("  table `{sessions}`: index `byUser` projects KEYS_ONLY, the model declares ALL"),
        format!("  table `{sessions}`: index `byDevice` is missing"),
        format!(
            "  table `{sessions}`: the table has no stream, the model declares a NEW_IMAGE stream"
        ),
        format!("  table `{sessions}`: time to live is off, the model's #[ttl] is `expires`"),
        format!(
            "  table `{}`: the table does not exist",
            db.tables().name::<Task>()
        ),
    ] {
        assert!(shown.contains(&line), "`{line}` in:\n{shown}");
    }

    // `verify_table` lists the same differences of one model, in one error.
    let error = db.tables().verify::<Session>().send().await.unwrap_err();
    assert!(error.to_string().contains("(4 differences)"), "{error}");

    // `sync` adds what it can (the missing index, the stream, time to live) and refuses
    // to change the projection, which would delete the index.
    let outcome = app.run_with(&db, args(&db, &["sync"])).await.unwrap();
    let Outcome::Sync(report) = &outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!(report.refused.len(), 1, "{report}");
    assert_eq!(
        report.refused[0].difference.kind,
        DifferenceKind::Projection
    );
    assert!(report.applied.contains(&Change::CreateTable {
        table: db.tables().name::<Task>()
    }));
    let again = app.run_with(&db, args(&db, &["check"])).await.unwrap();
    let Outcome::Check(left) = &again else {
        panic!("{again:?}")
    };
    assert_eq!(
        left.iter().map(|d| d.kind).collect::<Vec<_>>(),
        [DifferenceKind::Projection],
        "{again}"
    );
}

#[tokio::test]
async fn sync_adds_a_missing_index_backfills_its_keys_and_deletes_an_index_only_by_name() {
    let db = common::db_with::<TaskV1>("cli_sync").await;
    write_old_tasks(&db, TASKS).await;

    let today = App::new().wait(WAIT).model::<Task>();
    let planned = today
        .run_with(&db, args(&db, &["sync", "--dry-run"]))
        .await
        .unwrap();
    assert!(
        planned
            .to_string()
            .contains("would: create global index `GSI1`"),
        "{planned}"
    );
    assert!(
        db.tables()
            .differences::<Task>()
            .send()
            .await
            .unwrap()
            .len()
            == 1
    );

    let outcome = today.run_with(&db, args(&db, &["sync"])).await.unwrap();
    let Outcome::Sync(report) = &outcome else {
        panic!("{outcome:?}")
    };
    assert!(outcome.is_success(), "{outcome}");
    assert_eq!(
        report.applied,
        [Change::CreateIndex {
            table: db.tables().name::<Task>(),
            index: "GSI1".to_owned(),
            backfilled: TASKS as u64,
        }]
    );
    // Items written before the index are found through it.
    for owner in ["o0", "o1", "o2"] {
        let tasks = db.query_by::<TaskGSI1>(owner).all().await.unwrap();
        assert_eq!(tasks.len(), TASKS / 3, "{owner}");
    }
    assert!(!db.tables().is_creating_index::<Task>("GSI1"));

    // An application whose model no longer has the index: `sync` refuses to delete it ...
    let before = App::new().wait(WAIT).model::<TaskV1>();
    let outcome = before.run_with(&db, args(&db, &["sync"])).await.unwrap();
    let Outcome::Sync(report) = &outcome else {
        panic!("{outcome:?}")
    };
    assert!(report.applied.is_empty());
    assert_eq!(report.refused.len(), 1);
    assert_eq!(
        report.refused[0].difference.kind,
        DifferenceKind::ExtraIndex
    );
    assert!(
        outcome
            .to_string()
            .contains("`--allow-delete-index GSI1` deletes it"),
        "{outcome}"
    );
    assert!(db
        .tables()
        .differences::<Task>()
        .send()
        .await
        .unwrap()
        .is_empty());
    // ... another name does not allow it ...
    let outcome = before
        .run_with(&db, args(&db, &["sync", "--allow-delete-index", "GSI9"]))
        .await
        .unwrap();
    assert!(!outcome.is_success());
    // ... and its own name does.
    let outcome = before
        .run_with(&db, args(&db, &["sync", "--allow-delete-index", "GSI1"]))
        .await
        .unwrap();
    let Outcome::Sync(report) = &outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!(
        report.applied,
        [Change::DeleteIndex {
            table: db.tables().name::<Task>(),
            index: "GSI1".to_owned(),
        }]
    );
    let gone = db.tables().differences::<Task>().send().await.unwrap();
    assert_eq!(gone[0].kind, DifferenceKind::MissingIndex);
}

#[tokio::test]
async fn every_subcommand_runs_as_a_function() {
    let db = common::db_with::<TaskV1>("cli_each").await;
    write_old_tasks(&db, TASKS).await;
    let app = App::new().wait(WAIT).model::<Task>().model::<Session>();
    let run = |words: &'static [&'static str]| {
        let (app, db) = (&app, &db);
        async move { app.run_with(db, args(db, words)).await.unwrap() }
    };

    let plan = run(&["plan"]).await.to_string();
    for text in [
        "Task (table `Tasks`, entity `task`)",
        "global index `GSI1`: hash `gsi1pk` S = \"OWNER#{owner}\", range `gsi1sk` S = \"TASK#{id}\"; projects ALL",
        "query_by::<TaskGSI1>(..) reads it by name",
        "query::<Task>() with `gsi1pk` = and `gsi1sk` >=: uses it (rule 2",
        "global index `byDevice`: hash `device` S; projects KEYS_ONLY",
    ] {
        assert!(plan.contains(text), "`{text}` in:\n{plan}");
    }
    let only = run(&["plan", "--model", "Session"]).await.to_string();
    assert!(!only.contains("Task"), "{only}");

    let json = |outcome: Outcome| -> serde_json::Value {
        serde_json::from_str(&outcome.to_string()).unwrap()
    };
    let tasks = db.tables().name::<Task>();
    let cfn = json(run(&["export", "cloudformation"]).await);
    let resources = cfn["Resources"].as_object().unwrap();
    assert_eq!(resources.len(), 2);
    let sessions = resources
        .values()
        .find(|r| r["Properties"]["TableName"] == db.tables().name::<Session>())
        .unwrap();
    assert_eq!(sessions["Type"], "AWS::DynamoDB::Table");
    assert_eq!(
        sessions["Properties"]["StreamSpecification"]["StreamViewType"],
        "NEW_IMAGE"
    );
    assert_eq!(
        sessions["Properties"]["TimeToLiveSpecification"]["AttributeName"],
        "expires"
    );
    let terraform = json(run(&["export", "terraform"]).await);
    let tables = terraform["resource"]["aws_dynamodb_table"]
        .as_object()
        .unwrap();
    let task_table = tables.values().find(|t| t["name"] == tasks).unwrap();
    assert_eq!(task_table["hash_key"], "pk");
    assert_eq!(task_table["global_secondary_index"][0]["name"], "GSI1");
    assert_eq!(
        task_table["global_secondary_index"][0]["range_key"],
        "gsi1sk"
    );
    let workbench = json(run(&["export", "workbench"]).await);
    let model = workbench["DataModel"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["TableName"] == tasks)
        .unwrap();
    assert_eq!(
        model["KeyAttributes"]["PartitionKey"]["AttributeName"],
        "pk"
    );
    assert_eq!(model["GlobalSecondaryIndexes"][0]["IndexName"], "GSI1");

    let check = run(&["check"]).await;
    assert!(!check.is_success());
    let sync = run(&["sync"]).await;
    assert!(sync.is_success(), "{sync}");
    assert!(run(&["check"]).await.is_success());

    // `sync` backfilled the index's keys; a migration of today's models has nothing
    // left to rewrite, and is then done.
    let status = run(&["migrate", "status", "--model", "Task"]).await;
    let Outcome::Migrate(migrations) = &status else {
        panic!("{status:?}")
    };
    assert_eq!(migrations.len(), 1);
    assert_eq!(migrations[0].status, None);
    assert!(status.to_string().contains("not started"), "{status}");
    let dry = run(&["migrate", "run", "--model", "Task", "--dry-run"]).await;
    let Outcome::Migrate(migrations) = &dry else {
        panic!("{dry:?}")
    };
    let report = migrations[0].report.as_ref().unwrap();
    assert_eq!((report.scanned, report.rewritten), (TASKS as u64, 0));
    let resumed = run(&["migrate", "resume"]).await;
    let Outcome::Migrate(migrations) = &resumed else {
        panic!("{resumed:?}")
    };
    assert!(migrations.iter().all(|m| m.report.is_none()), "{resumed}");
    let ran = run(&["migrate", "run"]).await;
    let Outcome::Migrate(migrations) = &ran else {
        panic!("{ran:?}")
    };
    assert_eq!(migrations.len(), 2);
    assert!(migrations
        .iter()
        .all(|m| m.status.as_ref().is_some_and(|s| s.is_done())));
    let shown = run(&["migrate", "status"]).await.to_string();
    assert!(shown.contains("Task (run `Task/"), "{shown}");
    assert!(
        shown.contains(&format!("done, {TASKS} read, 0 rewritten")),
        "{shown}"
    );
}

#[tokio::test]
async fn arguments_that_do_not_parse_are_a_validation_error() {
    let db = common::db("cli_args").await;
    let app = App::new().wait(WAIT).model::<Task>();
    let error = app
        .run_with(&db, ["app", "export", "yaml"])
        .await
        .unwrap_err();
    assert!(error.kind() == dynorm::ErrorKind::Validation, "{error}");
    assert!(error.to_string().contains("yaml"), "{error}");
    let error = app
        .run_with(&db, ["app", "plan", "--model", "Nope"])
        .await
        .unwrap_err();
    assert!(error.to_string().contains("no model `Nope`"), "{error}");
}

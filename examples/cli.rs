//! The command line of an application's models (feature `cli`), on the embedded server.
//!
//! An application lists its models once, in a binary of its own:
//!
//! ```text
//! dynorm_migrate::cli::App::new().model::<Task>().model::<Team>().run().await
//! ```
//!
//! `cargo run --example cli` walks through every command: a table written before its
//! index existed, `plan`, `export`, `check`, `sync` (which adds the index, waits until it is
//! active and backfills the old items' keys), `migrate`, and `sync` refusing to delete an
//! index until asked by name. `cargo run --example cli -- <command>` runs one command as
//! the application's binary would, on fresh tables of the embedded server.

use chrono::Utc;
use dynorm::{Client, Model};
use dynorm_migrate::cli::App;

/// Tasks as the first release wrote them: no index by owner.
#[derive(Model, Debug, Clone)]
#[dynorm(table = "Tasks", entity = "task")]
#[key(pk = "TASK#{id}", sk = "TASK")]
pub struct TaskV1 {
    pub id: String,
    pub owner: String,
    pub title: String,
}

/// Tasks today: the same items, and an index by owner that old items have no keys for.
#[derive(Model, Debug, Clone)]
#[dynorm(table = "Tasks", entity = "task")]
#[key(pk = "TASK#{id}", sk = "TASK")]
#[key(index = "GSI1", gsi1pk = "OWNER#{owner}", gsi1sk = "TASK#{id}")]
pub struct Task {
    pub id: String,
    pub owner: String,
    pub title: String,
}

/// Sessions, with a stream and an expiry, whose table does not exist yet.
#[derive(Model, Debug, Clone)]
#[dynorm(table = "Sessions", stream = "new_image")]
pub struct Session {
    #[hash_key]
    pub id: String,
    #[index(name = "byUser")]
    pub user: String,
    #[ttl]
    pub expires: Option<chrono::DateTime<Utc>>,
}

/// The application of today's models.
fn app() -> App {
    App::new().model::<Task>().model::<Session>()
}

/// Runs one command, as `<binary> <words>` would, and prints what it says.
async fn step(app: &App, db: &Client, words: &[&str]) -> Result<(), dynorm::Error> {
    println!("\n$ app {}", words.join(" "));
    let progress = db.tables().full_name("backfills");
    let mut args = vec!["app", "--progress-table", progress.as_str()];
    args.extend(words);
    let outcome = app.run_with(db, args).await?;
    println!("{outcome}");
    Ok(())
}

#[tokio::main]
async fn main() -> Result<std::process::ExitCode, dynorm::Error> {
    let db = dynorm_test::local::client()
        .await?
        .to_builder()
        .table_prefix(format!("cli_{}_", Utc::now().timestamp_millis()))
        .build();
    if std::env::args().len() > 1 {
        // What an application's own binary does: parse the arguments, run, print.
        return Ok(app().client(db).run().await);
    }

    // The first release: its table, and items written without the index's keys.
    db.tables().create::<TaskV1>().send().await?;
    for i in 0..9 {
        let task = TaskV1 {
            id: format!("t{i}"),
            owner: format!("o{}", i % 3),
            title: format!("task {i}"),
        };
        db.put(&task).send().await?;
    }
    let app = app();
    step(&app, &db, &["plan"]).await?;
    step(&app, &db, &["export", "terraform"]).await?;
    step(&app, &db, &["check"]).await?;
    step(&app, &db, &["sync", "--dry-run"]).await?;
    step(&app, &db, &["sync"]).await?;
    let found = db.query_by::<TaskGSI1>("o1").all().await?;
    println!("(a query through GSI1 finds {} of o1's tasks)", found.len());
    step(&app, &db, &["check"]).await?;
    step(&app, &db, &["migrate", "status"]).await?;
    step(&app, &db, &["migrate", "run"]).await?;
    step(&app, &db, &["migrate", "resume"]).await?;

    // An application whose model dropped the index: `sync` deletes it only by name.
    let before = App::new().model::<TaskV1>();
    step(&before, &db, &["sync"]).await?;
    step(&before, &db, &["sync", "--allow-delete-index", "GSI1"]).await?;
    println!(
        "\ntables: {}, {} and {}",
        db.tables().name::<Task>(),
        db.tables().name::<Session>(),
        db.tables().full_name("backfills")
    );
    Ok(std::process::ExitCode::SUCCESS)
}

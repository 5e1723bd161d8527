//! A command line for the models of an application (feature `cli`): the application
//! lists its models once, in a small binary of its own, and gets `plan`, `export`,
//! `check`, `sync` and `migrate`.
//!
//! ```no_run
//! # use dynorm::Model;
//! # #[derive(Model)] struct User { #[hash_key] id: String }
//! # #[derive(Model)] struct Team { #[hash_key] id: String }
//! // src/bin/db.rs: `cargo run --bin db -- check`
//! #[tokio::main]
//! async fn main() -> std::process::ExitCode {
//!     dynorm_migrate::cli::App::new().model::<User>().model::<Team>().run().await
//! }
//! ```
//!
//! Models that share a table (same full table name) are one table to every command. Every
//! command is also a function: [`App::run_with`] takes the arguments and a client, and
//! returns what the command found or did as an [`Outcome`], without printing.

mod args;
mod check;
mod export;
mod migrate;
mod plan;
mod registry;
mod sync;

use std::fmt;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser as _;

use dynorm::__ext::client::Client;
use dynorm::__ext::error::{Error, Result};
use dynorm::__ext::schema::{Difference, Model};

pub use self::migrate::{Migration, Phase};
pub use self::sync::{Change, Refusal, SyncReport};

use self::args::{Args, Command};
use self::registry::{Entry, Registered, Tables};

/// The progress table of backfills, unless `--progress-table` names another.
const PROGRESS_TABLE: &str = "dynorm_backfills";

/// How long `sync` waits for a table or an index to become active, unless
/// [`App::wait`] says otherwise.
const WAIT: Duration = Duration::from_secs(60 * 60);

/// The models of an application, and the command line that manages their tables.
#[derive(Default)]
pub struct App {
    models: Vec<Box<dyn Registered>>,
    client: Option<Client>,
    wait: Option<Duration>,
}

impl fmt::Debug for App {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let models: Vec<&str> = self.models.iter().map(|m| m.schema().model).collect();
        f.debug_struct("App").field("models", &models).finish()
    }
}

impl App {
    /// An application with no models yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds model `M`: its table, its indexes and its backfill.
    pub fn model<M: Model>(mut self) -> Self {
        self.models.push(Box::new(Entry::<M>::new()));
        self
    }

    /// The client [`run`](Self::run) uses (by default one from the environment, with
    /// [`Client::from_env`]).
    pub fn client(mut self, client: Client) -> Self {
        self.client = Some(client);
        self
    }

    /// How long `sync` waits for a new table or index to become active, and for a
    /// deleted index to go (an hour by default); then it fails with a `Config` error.
    pub fn wait(mut self, wait: Duration) -> Self {
        self.wait = Some(wait);
        self
    }

    /// Parses the process's arguments, runs the command, prints what it found or did,
    /// and says how it went: failure when a command fails, `check` finds a difference,
    /// or `sync` refuses a change.
    pub async fn run(self) -> ExitCode {
        let args = match Args::try_parse() {
            Ok(args) => args,
            Err(e) => {
                // Help and version are printed to stdout, errors to stderr, as clap does.
                let _ = e.print();
                return if e.use_stderr() {
                    ExitCode::FAILURE
                } else {
                    ExitCode::SUCCESS
                };
            }
        };
        let client = match self.client.clone() {
            Some(client) => client,
            None => Client::from_env().await,
        };
        match self.execute(&client, args, true).await {
            Ok(outcome) => {
                println!("{outcome}");
                if outcome.is_success() {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::FAILURE
                }
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        }
    }

    /// Runs the command that `args` (the program name first, as in `std::env::args`)
    /// describes, with `client`, without printing or drawing progress bars.
    pub async fn run_with<I, T>(&self, client: &Client, args: I) -> Result<Outcome>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let args = Args::try_parse_from(args).map_err(|e| {
            Error::new(
                dynorm::ErrorKind::Validation,
                e.to_string().trim().to_owned(),
            )
        })?;
        self.execute(client, args, false).await
    }

    async fn execute(&self, client: &Client, args: Args, progress: bool) -> Result<Outcome> {
        let client = match &args.table_prefix {
            Some(prefix) => client.to_builder().table_prefix(prefix).build(),
            None => client.clone(),
        };
        let progress_table = args
            .progress_table
            .clone()
            .unwrap_or_else(|| PROGRESS_TABLE.to_owned());
        let tables = Tables::of(&self.models, &client);
        match args.command {
            Command::Plan { model } => plan::run(&self.models, model.as_deref()).map(Outcome::Plan),
            Command::Export { format } => Ok(Outcome::Export(export::run(&tables, format))),
            Command::Check => check::run(&client, &tables).await.map(Outcome::Check),
            Command::Sync(options) => {
                let context = sync::Context {
                    client: &client,
                    progress_table: &progress_table,
                    progress,
                    wait: self.wait.unwrap_or(WAIT),
                };
                sync::run(&context, &tables, &options)
                    .await
                    .map(Outcome::Sync)
            }
            Command::Migrate(command) => {
                let context = migrate::Context {
                    client: &client,
                    models: &self.models,
                    progress_table: &progress_table,
                    progress,
                };
                migrate::run(&context, &command).await.map(Outcome::Migrate)
            }
        }
    }
}

/// What a command found or did.
#[derive(Debug)]
#[non_exhaustive]
pub enum Outcome {
    /// `plan`: each model's table, keys and indexes, and the index each access pattern
    /// uses, in words.
    Plan(String),
    /// `export`: the tables as CloudFormation, Terraform or NoSQL Workbench JSON.
    Export(String),
    /// `check`: every difference between the models and their live tables.
    Check(Vec<Difference>),
    /// `sync`: what was created or deleted, and what was refused.
    Sync(SyncReport),
    /// `migrate`: each model's backfill.
    Migrate(Vec<Migration>),
}

impl Outcome {
    /// Whether the command found everything as it should be: `check` found no
    /// difference, `sync` refused nothing.
    pub fn is_success(&self) -> bool {
        match self {
            Outcome::Check(differences) => differences.is_empty(),
            Outcome::Sync(report) => report.refused.is_empty(),
            Outcome::Plan(_) | Outcome::Export(_) | Outcome::Migrate(_) => true,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Plan(text) | Outcome::Export(text) => f.write_str(text.trim_end()),
            Outcome::Check(differences) => check::show(f, differences),
            Outcome::Sync(report) => fmt::Display::fmt(report, f),
            Outcome::Migrate(migrations) => migrate::show(f, migrations),
        }
    }
}

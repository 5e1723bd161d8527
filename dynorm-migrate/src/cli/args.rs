//! The command line's arguments.

use clap::{Args as ClapArgs, Parser, Subcommand, ValueEnum};

/// The tables of this application's models.
#[derive(Parser, Debug)]
#[command(about = "The DynamoDB tables of this application's models")]
pub(crate) struct Args {
    /// The table name prefix (the client's by default).
    #[arg(long, global = true)]
    pub table_prefix: Option<String>,
    /// The table that holds backfill progress.
    #[arg(long, global = true)]
    pub progress_table: Option<String>,
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Each model's table, keys and indexes, and the index each access pattern uses.
    Plan {
        /// Only this model (its Rust name).
        #[arg(long)]
        model: Option<String>,
    },
    /// The tables as infrastructure code.
    Export {
        /// CloudFormation, Terraform JSON, or a NoSQL Workbench data model.
        #[arg(value_enum)]
        format: Format,
    },
    /// Every difference between the models and the live tables.
    Check,
    /// Creates what is missing (tables, global indexes, streams, time to live); never
    /// deletes, except the indexes named by `--allow-delete-index`.
    Sync(SyncArgs),
    /// The backfills that rewrite items into what the models write today.
    #[command(subcommand)]
    Migrate(MigrateCommand),
}

/// An export format.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// An AWS CloudFormation template (JSON).
    Cloudformation,
    /// Terraform JSON (`*.tf.json`), `aws_dynamodb_table` resources.
    Terraform,
    /// A NoSQL Workbench data model (JSON).
    Workbench,
}

/// `sync`'s options.
#[derive(ClapArgs, Debug, Default)]
pub(crate) struct SyncArgs {
    /// Lists what would change, and changes nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Deletes this global index, which no model declares (repeat for several).
    #[arg(long = "allow-delete-index", value_name = "NAME")]
    pub allow_delete_index: Vec<String>,
}

/// `migrate`'s commands.
#[derive(Subcommand, Debug)]
pub(crate) enum MigrateCommand {
    /// Where each model's backfill is.
    Status(MigrateArgs),
    /// Runs each model's backfill (continuing it when it was started): every item is
    /// made current, and, after `expand`, contracted.
    Run(MigrateArgs),
    /// Expands each model's items of an earlier shape: today's attributes are written and
    /// the earlier shape's kept, so that binaries on either shape read every item during
    /// a rolling deploy. `run` contracts them once no reader of the earlier shape is left.
    Expand(MigrateArgs),
    /// Continues backfills that were started and not finished.
    Resume(MigrateArgs),
}

/// The options of `migrate`'s commands.
#[derive(ClapArgs, Debug, Default)]
pub(crate) struct MigrateArgs {
    /// Only this model (its Rust name).
    #[arg(long)]
    pub model: Option<String>,
    /// The run's name (by default one per model and shape).
    #[arg(long)]
    pub run: Option<String>,
    /// The number of scan segments of a new run.
    #[arg(long, default_value_t = 4)]
    pub segments: u32,
    /// Counts what would be rewritten, and writes nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Sets aside items that do not decode (listed by `migrate status`) instead of
    /// stopping at the first.
    #[arg(long)]
    pub set_aside_undecodable: bool,
}

//! `sync`: creates what the models declare and the live tables lack (tables, global
//! indexes one at a time with the backfill of their keys, streams, time to live), and
//! refuses whatever would delete or replace, except the indexes named to be deleted.

use dynorm::__ext::error::Context as _;
use std::fmt;
use std::time::Duration;

use crate::cli::args::SyncArgs;
use crate::cli::registry::{BackfillRun, Table, Tables};
use dynorm::__ext::client::Client;
use dynorm::__ext::error::{Error, Result};
use dynorm::__ext::schema::missing_table;
use dynorm::__ext::schema::{Difference, DifferenceKind, IndexKind, Schema};

/// What `sync` needs besides the tables.
pub(crate) struct Context<'a> {
    pub client: &'a Client,
    pub progress_table: &'a str,
    pub progress: bool,
    /// How long to wait for a table or an index to become active.
    pub wait: Duration,
}

/// A change `sync` made (or, in a dry run, would make).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Change {
    /// Created a table, with its indexes and stream (and turned on time to live).
    CreateTable {
        /// The full table name.
        table: String,
    },
    /// Added a global index with `UpdateTable`, waited until it was active, and
    /// backfilled the keys of the items written before it.
    CreateIndex {
        /// The full table name.
        table: String,
        /// The index.
        index: String,
        /// Items the backfill rewrote with the index's keys (0 in a dry run).
        backfilled: u64,
    },
    /// Deleted a global index no model declares, as asked by `--allow-delete-index`.
    DeleteIndex {
        /// The full table name.
        table: String,
        /// The index.
        index: String,
    },
    /// Turned on the table's stream.
    EnableStream {
        /// The full table name.
        table: String,
    },
    /// Turned on time to live.
    EnableTimeToLive {
        /// The full table name.
        table: String,
        /// The `#[ttl]` attribute.
        attribute: String,
    },
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::CreateTable { table } => write!(f, "create table `{table}`"),
            Change::CreateIndex {
                table,
                index,
                backfilled,
            } => write!(
                f,
                "create global index `{index}` on `{table}` ({backfilled} items backfilled)"
            ),
            Change::DeleteIndex { table, index } => {
                write!(f, "delete global index `{index}` of `{table}`")
            }
            Change::EnableStream { table } => write!(f, "turn on the stream of `{table}`"),
            Change::EnableTimeToLive { table, attribute } => {
                write!(f, "turn on time to live of `{table}` on `{attribute}`")
            }
        }
    }
}

/// A difference `sync` leaves as it is, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Refusal {
    /// The difference.
    pub difference: Difference,
    /// Why `sync` did not change it.
    pub reason: String,
}

/// What `sync` did and refused.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SyncReport {
    /// Whether it only listed the changes (`--dry-run`).
    pub dry_run: bool,
    /// The changes, in the order they were made.
    pub applied: Vec<Change>,
    /// The differences it left.
    pub refused: Vec<Refusal>,
}

impl fmt::Display for SyncReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.applied.is_empty() && self.refused.is_empty() {
            return f.write_str("nothing to change: every table matches its models");
        }
        let mut lines = Vec::new();
        for change in &self.applied {
            lines.push(match change {
                Change::CreateIndex { table, index, .. } if self.dry_run => format!(
                    "would: create global index `{index}` on `{table}`, and backfill its keys"
                ),
                _ if self.dry_run => format!("would: {change}"),
                _ => format!("did: {change}"),
            });
        }
        for refusal in &self.refused {
            lines.push(format!(
                "refused: {}; {}",
                refusal.difference, refusal.reason
            ));
        }
        f.write_str(&lines.join("\n"))
    }
}

/// Brings every table to what its models declare, as far as adding does.
pub(crate) async fn run(
    context: &Context<'_>,
    tables: &Tables<'_>,
    options: &SyncArgs,
) -> Result<SyncReport> {
    let mut report = SyncReport {
        dry_run: options.dry_run,
        ..SyncReport::default()
    };
    for table in &tables.0 {
        let differences = match dynorm::__ext::client::differences_of(
            context.client,
            &table.schemas(),
            &table.name,
            true,
            "sync",
        )
        .await
        {
            Ok(differences) => differences,
            Err(e) if e.kind() == dynorm::ErrorKind::TableNotFound => {
                vec![missing_table(&table.name)]
            }
            Err(e) => return Err(e),
        };
        for difference in differences {
            match decide(table, &difference, options) {
                Ok(step) if options.dry_run => report.applied.push(step.planned(table)),
                Ok(step) => match step.apply(context, table).await {
                    Ok(change) => report.applied.push(change),
                    // A stream of another view, or time to live on another attribute:
                    // DynamoDB changes those only by turning them off first.
                    Err(e)
                        if step.settles_in_place()
                            && (e.kind() == dynorm::ErrorKind::Config
                                || e.kind() == dynorm::ErrorKind::Validation) =>
                    {
                        report.refused.push(Refusal {
                            difference,
                            reason: e.message().to_owned(),
                        });
                    }
                    Err(e) => return Err(e),
                },
                Err(reason) => report.refused.push(Refusal { difference, reason }),
            }
        }
    }
    Ok(report)
}

/// One change to make.
enum Step {
    CreateTable,
    CreateIndex(&'static Schema, String),
    DeleteIndex(&'static Schema, String),
    EnableStream(&'static Schema),
    EnableTimeToLive(&'static Schema),
}

/// The change that fixes `difference` by adding, or why there is none.
fn decide(
    table: &Table<'_>,
    difference: &Difference,
    options: &SyncArgs,
) -> std::result::Result<Step, String> {
    let index = difference.index.clone().unwrap_or_default();
    let declaring = table.schemas().into_iter().find_map(|schema| {
        schema
            .indexes
            .iter()
            .find(|i| i.name == index)
            .map(|i| (schema, i.kind))
    });
    let first = table.first().ok_or_else(|| "no model".to_owned())?;
    match difference.kind {
        DifferenceKind::MissingTable => Ok(Step::CreateTable),
        DifferenceKind::MissingIndex => match declaring {
            Some((schema, IndexKind::Global)) => Ok(Step::CreateIndex(schema, index)),
            _ => Err("DynamoDB adds a local index only when it creates the table".to_owned()),
        },
        DifferenceKind::ExtraIndex if options.allow_delete_index.contains(&index) => {
            Ok(Step::DeleteIndex(first, index))
        }
        DifferenceKind::ExtraIndex => Err(format!(
            "deleting an index loses it; `--allow-delete-index {index}` deletes it"
        )),
        DifferenceKind::Stream => table
            .schemas()
            .into_iter()
            .find(|s| s.stream.is_some())
            .map(Step::EnableStream)
            .ok_or_else(|| "no model declares a stream".to_owned()),
        DifferenceKind::TimeToLive => table
            .schemas()
            .into_iter()
            .find(|s| s.ttl.is_some())
            .map(Step::EnableTimeToLive)
            .ok_or_else(|| "no model has a #[ttl]".to_owned()),
        DifferenceKind::Projection | DifferenceKind::IndexKind => Err(format!(
            "changing index `{index}` means deleting it and creating it again; delete it \
             with `--allow-delete-index {index}` once no model declares it"
        )),
        DifferenceKind::KeySchema | DifferenceKind::AttributeType => {
            Err("a table's keys change only with a new table".to_owned())
        }
        DifferenceKind::Billing => {
            Err("billing is left to whoever owns the table's capacity".to_owned())
        }
        _ => Err(format!(
            "`sync` does not change this: {}",
            difference.message
        )),
    }
}

impl Step {
    /// Whether the step turns on a setting of the table, which DynamoDB refuses when
    /// the setting is on otherwise.
    fn settles_in_place(&self) -> bool {
        matches!(self, Step::EnableStream(_) | Step::EnableTimeToLive(_))
    }

    /// The change this step would make, without making it.
    fn planned(&self, table: &Table<'_>) -> Change {
        let name = table.name.clone();
        match self {
            Step::CreateTable => Change::CreateTable { table: name },
            Step::CreateIndex(_, index) => Change::CreateIndex {
                table: name,
                index: index.clone(),
                backfilled: 0,
            },
            Step::DeleteIndex(_, index) => Change::DeleteIndex {
                table: name,
                index: index.clone(),
            },
            Step::EnableStream(_) => Change::EnableStream { table: name },
            Step::EnableTimeToLive(schema) => Change::EnableTimeToLive {
                table: name,
                attribute: schema.ttl.unwrap_or_default().to_owned(),
            },
        }
    }

    /// Makes the change.
    async fn apply(&self, context: &Context<'_>, table: &Table<'_>) -> Result<Change> {
        let client = context.client;
        let mut change = self.planned(table);
        match self {
            Step::CreateTable => {
                dynorm::__ext::client::send_create_table(client, table.input()).await?;
                dynorm::__ext::client::wait_for_table(client, &table.name, context.wait).await?;
                if let Some(schema) = table.schemas().into_iter().find(|s| s.ttl.is_some()) {
                    dynorm::__ext::client::enable_ttl_of(client, schema).await?;
                }
            }
            Step::CreateIndex(schema, index) => {
                let creation =
                    dynorm::__ext::client::create_index_of(client, schema, index, context.wait)
                        .await?;
                let mut backfilled = 0;
                for model in &table.models {
                    if model.schema().index(index).is_none() {
                        continue;
                    }
                    let run = BackfillRun {
                        run: format!("sync/{}/{index}/{}", table.name, model.schema().model),
                        progress_table: context.progress_table.to_owned(),
                        segments: 4,
                        dry_run: false,
                        expand: false,
                        set_aside_undecodable: false,
                        on_progress: crate::cli::migrate::bar(context.progress, model.schema()),
                    };
                    backfilled += model.backfill(client, run).await?.rewritten;
                }
                creation.finish();
                if let Change::CreateIndex { backfilled: b, .. } = &mut change {
                    *b = backfilled;
                }
            }
            Step::DeleteIndex(schema, index) => {
                dynorm::__ext::client::delete_index_of(client, schema, index, context.wait).await?;
            }
            Step::EnableStream(schema) => {
                let view = schema.stream.ok_or_else(|| {
                    Error::new(dynorm::ErrorKind::Config, "no model declares a stream")
                        .at_operation("sync")
                })?;
                dynorm::__ext::client::enable_stream_of(client, schema, view).await?;
            }
            Step::EnableTimeToLive(schema) => {
                dynorm::__ext::client::enable_ttl_of(client, schema).await?
            }
        }
        Ok(change)
    }
}

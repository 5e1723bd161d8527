//! `migrate status|run|expand|resume`: each model's backfill, under a run name that
//! changes when what the model writes changes, with a progress bar. `expand` runs under
//! that name with `/expand` added, and `status` says which phase a model is in.

use dynorm::__ext::error::Context as _;
use std::fmt::{self, Write as _};
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::backfill::{BackfillReport, BackfillStatus};
use crate::cli::args::{MigrateArgs, MigrateCommand};
use crate::cli::registry::{BackfillRun, OnProgress, Registered};
use dynorm::__ext::client::Client;
use dynorm::__ext::error::{Error, Result};
use dynorm::__ext::schema::{Schema, TemplatePart};

/// What `migrate` needs.
pub(crate) struct Context<'a> {
    pub client: &'a Client,
    pub models: &'a [Box<dyn Registered>],
    pub progress_table: &'a str,
    pub progress: bool,
}

/// One model's backfill, as `migrate` found it or left it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Migration {
    /// The model's Rust name.
    pub model: &'static str,
    /// The run's name.
    pub run: String,
    /// Where the run is; `None` when it was never started.
    pub status: Option<BackfillStatus>,
    /// What this command's worker did, when it ran the backfill.
    pub report: Option<BackfillReport>,
    /// Where the model's expand run (`migrate expand`) is; `None` when it was never
    /// started.
    pub expand: Option<BackfillStatus>,
}

impl Migration {
    /// The phase of a shape change the model's table is in.
    pub fn phase(&self) -> Phase {
        let done = |s: &Option<BackfillStatus>| s.as_ref().is_some_and(BackfillStatus::is_done);
        match (&self.status, &self.expand) {
            _ if done(&self.status) => Phase::Current,
            (_, Some(_)) if done(&self.expand) => Phase::Expanded,
            (_, Some(_)) => Phase::Expanding,
            (Some(_), None) => Phase::Running,
            (None, None) => Phase::NotStarted,
        }
    }
}

/// The phase of a model's backfill, as `migrate status` says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Phase {
    /// No run was started for what the model writes today.
    NotStarted,
    /// `migrate expand` is running: binaries on the earlier shape read every item.
    Expanding,
    /// Every item is expanded: binaries on either shape read every item. Run `migrate
    /// run` to contract them once no binary on the earlier shape is left.
    Expanded,
    /// `migrate run` is running (after an expand: contracting).
    Running,
    /// Every item is what the model writes today.
    Current,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::NotStarted => "not started",
            Phase::Expanding => "expanding",
            Phase::Expanded => {
                "expanded: readers of the earlier shape are served; `migrate run` contracts \
                 once none is left"
            }
            Phase::Running => "running",
            Phase::Current => "current",
        })
    }
}

/// Runs `command` for every model, or the one it names.
pub(crate) async fn run(context: &Context<'_>, command: &MigrateCommand) -> Result<Vec<Migration>> {
    let (options, mode) = match command {
        MigrateCommand::Status(options) => (options, Mode::Status),
        MigrateCommand::Run(options) => (options, Mode::Run),
        MigrateCommand::Expand(options) => (options, Mode::Expand),
        MigrateCommand::Resume(options) => (options, Mode::Resume),
    };
    let models: Vec<&dyn Registered> = context
        .models
        .iter()
        .map(AsRef::as_ref)
        .filter(|m| {
            options
                .model
                .as_deref()
                .is_none_or(|name| name == m.schema().model)
        })
        .collect();
    if models.is_empty() {
        return Err(Error::new(
            dynorm::ErrorKind::Validation,
            match &options.model {
                Some(name) => format!("no model `{name}` is registered"),
                None => "no model is registered".to_owned(),
            },
        )
        .at_operation("migrate"));
    }
    let mut out = Vec::new();
    for model in models {
        out.push(one(context, model, options, mode).await?);
    }
    Ok(out)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Status,
    Run,
    Expand,
    Resume,
}

async fn one(
    context: &Context<'_>,
    model: &dyn Registered,
    options: &MigrateArgs,
    mode: Mode,
) -> Result<Migration> {
    let schema = model.schema();
    let run = options.run.clone().unwrap_or_else(|| run_name(schema));
    let expand_run = format!("{run}/expand");
    let status_of = |run: String| async move {
        crate::backfill_status(context.client, &run, context.progress_table).await
    };
    let mut migration = Migration {
        model: schema.model,
        status: status_of(run.clone()).await?,
        expand: status_of(expand_run.clone()).await?,
        run,
        report: None,
    };
    let done = |s: &Option<BackfillStatus>| s.as_ref().is_some_and(BackfillStatus::is_done);
    let go = match mode {
        Mode::Status => None,
        Mode::Run => (!done(&migration.status)).then(|| migration.run.clone()),
        // Expanding after the contract has begun would serve no reader.
        Mode::Expand => {
            (migration.status.is_none() && !done(&migration.expand)).then(|| expand_run.clone())
        }
        Mode::Resume => match (&migration.status, &migration.expand) {
            (Some(s), _) if !s.is_done() => Some(migration.run.clone()),
            (None, Some(s)) if !s.is_done() => Some(expand_run.clone()),
            _ => None,
        },
    };
    if let Some(run) = go {
        let expand = run == expand_run;
        let backfill = BackfillRun {
            run,
            progress_table: context.progress_table.to_owned(),
            segments: options.segments,
            dry_run: options.dry_run,
            expand,
            set_aside_undecodable: options.set_aside_undecodable,
            on_progress: bar(context.progress, schema),
        };
        migration.report = Some(model.backfill(context.client, backfill).await?);
        if !options.dry_run {
            migration.status = status_of(migration.run.clone()).await?;
            migration.expand = status_of(expand_run).await?;
        }
    }
    Ok(migration)
}

/// The default run name of a model: its name, and a digest of what it writes (its
/// shape, key templates and indexes), so that a change to any of them starts a new run.
fn run_name(schema: &Schema) -> String {
    let mut written = String::new();
    let _ = write!(written, "shape {}", schema.shape.map_or(1, |s| s.current));
    for index in schema.indexes {
        let _ = write!(written, "|{}", index.name);
        for key in index.hash_key.iter().chain(index.range_key) {
            let _ = write!(written, ",{}", key.name);
        }
    }
    for key in schema.entity.iter().flat_map(|e| e.keys) {
        let _ = write!(written, "|{}={}:", key.index.unwrap_or(""), key.attribute);
        for part in key.parts {
            match part {
                TemplatePart::Static(text) => written.push_str(text),
                TemplatePart::Field(name) => {
                    let _ = write!(written, "{{{name}}}");
                }
                other => {
                    let _ = write!(written, "{other:?}");
                }
            }
        }
    }
    for combine in schema.combines {
        let _ = write!(written, "|{combine:?}");
    }
    // FNV-1a: stable across builds and platforms, unlike the standard library's hasher.
    let digest = written
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        });
    format!("{}/{digest:016x}", schema.model)
}

/// A progress bar for a model's backfill, on standard error when it is a terminal.
pub(crate) fn bar(progress: bool, schema: &Schema) -> Option<OnProgress> {
    if !progress {
        return None;
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{spinner} {prefix}: {msg} [{elapsed}]") {
        bar.set_style(style);
    }
    bar.set_prefix(schema.model);
    Some(Arc::new(move |p: &crate::backfill::Progress| {
        let left = p
            .remaining
            .map(|d| format!(", about {}s left", d.as_secs()))
            .unwrap_or_default();
        bar.set_message(format!(
            "{} read, {} rewritten, {:.0}/s{left}",
            p.scanned, p.rewritten, p.per_second
        ));
        bar.set_position(p.scanned);
    }))
}

/// Each model's run, one a line.
pub(crate) fn show(f: &mut fmt::Formatter<'_>, migrations: &[Migration]) -> fmt::Result {
    for (i, migration) in migrations.iter().enumerate() {
        if i > 0 {
            f.write_str("\n")?;
        }
        write!(f, "{} (run `{}`): ", migration.model, migration.run)?;
        if migration.expand.is_some() {
            write!(f, "{}; ", migration.phase())?;
        }
        match &migration.status {
            None => f.write_str("not started")?,
            Some(status) if status.is_done() => write!(
                f,
                "done, {} read, {} rewritten",
                status.scanned, status.rewritten
            )?,
            Some(status) => write!(
                f,
                "{} of {} segments done, {} read, {} rewritten",
                status.done, status.segments, status.scanned, status.rewritten
            )?,
        }
        if let Some(report) = &migration.report {
            write!(
                f,
                "; this run read {}, rewrote {} ({} moved)",
                report.scanned, report.rewritten, report.moved
            )?;
        }
        let aside = migration.status.iter().flat_map(|s| &s.set_aside);
        for (i, item) in aside.enumerate() {
            if i == 0 {
                f.write_str("; set aside:")?;
            }
            write!(f, "\n  {item}")?;
        }
        let duplicates = migration.status.iter().flat_map(|s| &s.duplicates);
        for (i, duplicate) in duplicates.enumerate() {
            if i == 0 {
                f.write_str("; unique values held twice (the constraint does not hold yet):")?;
            }
            write!(f, "\n  {duplicate}")?;
        }
    }
    Ok(())
}

//! Backfills: rewrite every item of a model that is not what the model writes today (an
//! earlier shape, a key template or `#[combine]` that renders differently now, an index
//! key missing from an item written before the index existed), without ever losing a
//! concurrent write, resumable after a kill, and shared by workers on many machines.
//!
//! A run reads the table with a parallel scan; each segment is an item in a progress
//! table (`lease.rs`) that one worker at a time holds a lease on, with the segment's
//! cursor saved after every page. Each item is rewritten on condition that it is still the
//! item read (`rewrite.rs`); when another writer changed it, it is read again and planned
//! again.

mod lease;
mod rewrite;
mod status;

pub use self::status::BackfillStatus;

use std::marker::PhantomData;
use std::sync::Arc;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::ReturnConsumedCapacity;

use tracing::Instrument as _;

use crate::client::Client;
use crate::error::{sdk_error, Error, ErrorKind, Result};
use crate::expr::{filters, Placeholders};
use crate::observe::span::request_span;
use crate::observe::RateLimiter;
use crate::schema::Model;
use crate::value::Item;

use self::lease::{now_ms, Progress as Leases};
use self::rewrite::{needed, Needed, Written};

/// How many times an item that keeps changing under the backfill is read again.
const MAX_ATTEMPTS: u32 = 5;

impl Client {
    /// A backfill of `M`'s items, as run `run`, with its progress in table
    /// `progress_table` (created when missing; the full name, no prefix added). Every
    /// worker that sends a backfill with the same run and table shares its segments.
    ///
    /// ```no_run
    /// # use dynorm::Model;
    /// # #[derive(Model)] struct User { #[hash_key] id: String }
    /// # async fn demo(db: dynorm::Client) -> Result<(), dynorm::Error> {
    /// let report = db
    ///     .backfill::<User>("users-v3", "Backfills")
    ///     .segments(8)
    ///     .max_units_per_second(200.0)
    ///     .send()
    ///     .await?;
    /// println!("{} of {} items rewritten", report.rewritten, report.scanned);
    /// # Ok(()) }
    /// ```
    pub fn backfill<M: Model>(
        &self,
        run: impl Into<String>,
        progress_table: impl Into<String>,
    ) -> Backfill<M> {
        Backfill {
            client: self.clone(),
            run: run.into(),
            table: progress_table.into(),
            segments: 4,
            worker: format!("worker-{:x}", now_ms() ^ u64::from(std::process::id())),
            lease: Duration::from_secs(30),
            page_size: None,
            dry_run: false,
            max_units_per_second: None,
            limiter: None,
            on_progress: None,
            model: PhantomData,
        }
    }
}

/// Where a backfill is, as reported after each page.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Progress {
    /// The segment whose page was just done.
    pub segment: u32,
    /// Items read by this worker so far.
    pub scanned: u64,
    /// Items rewritten (or, in a dry run, that would be) by this worker so far.
    pub rewritten: u64,
    /// Items read per second by this worker.
    pub per_second: f64,
    /// The time left at that rate, from the table's approximate item count, when known.
    pub remaining: Option<Duration>,
}

/// What a worker did in a backfill.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BackfillReport {
    /// Items this worker read.
    pub scanned: u64,
    /// Items it rewrote (or, in a dry run, that needed it).
    pub rewritten: u64,
    /// Of those, items whose table key moved.
    pub moved: u64,
    /// Items that another writer changed between the read and the rewrite, read again.
    pub changed_meanwhile: u64,
    /// Segments it finished.
    pub segments: u32,
}

type ProgressFn = Arc<dyn Fn(&Progress) + Send + Sync>;

/// A pending backfill. Build it with [`Client::backfill`], then
/// [`send`](Self::send) it on every worker.
#[must_use = "a backfill does nothing until it is sent"]
pub struct Backfill<M: Model> {
    client: Client,
    run: String,
    table: String,
    segments: u32,
    worker: String,
    lease: Duration,
    page_size: Option<u32>,
    dry_run: bool,
    max_units_per_second: Option<f64>,
    limiter: Option<RateLimiter>,
    on_progress: Option<ProgressFn>,
    model: PhantomData<fn() -> M>,
}

impl<M: Model> Backfill<M> {
    /// The number of scan segments, 1 to 1,000,000 (4 by default), fixed by the first
    /// worker of a run. More segments let more workers share the run.
    pub fn segments(mut self, segments: u32) -> Self {
        self.segments = segments;
        self
    }

    /// This worker's name, unique among the run's workers (made up by default).
    pub fn worker(mut self, name: impl Into<String>) -> Self {
        self.worker = name.into();
        self
    }

    /// How long a segment stays with a worker that stops renewing it (30 s by default):
    /// a worker renews it with each page, and another takes it over once it expires.
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease;
        self
    }

    /// The most items one page of the scan reads.
    pub fn page_size(mut self, items: u32) -> Self {
        self.page_size = Some(items);
        self
    }

    /// Reads and counts what would be rewritten, and writes nothing (no progress either).
    pub fn dry_run(mut self, dry_run: bool) -> Self {
        self.dry_run = dry_run;
        self
    }

    /// Keeps this worker's reads and writes under this many capacity units per second,
    /// measured from what DynamoDB reports they consumed: a [`RateLimiter`] of its own.
    /// Workers of one process share a rate with [`rate_limiter`](Self::rate_limiter).
    pub fn max_units_per_second(mut self, units: f64) -> Self {
        self.max_units_per_second = Some(units);
        self
    }

    /// Keeps this worker's reads and writes within `limiter`'s rate, shared with every
    /// other request that carries it (other workers of the process, scans, batch writes).
    pub fn rate_limiter(mut self, limiter: &RateLimiter) -> Self {
        self.limiter = Some(limiter.clone());
        self
    }

    /// Called after each page with where this worker is (it also logs at `info`).
    pub fn on_progress(mut self, report: impl Fn(&Progress) + Send + Sync + 'static) -> Self {
        self.on_progress = Some(Arc::new(report));
        self
    }

    fn check(&self) -> Result<()> {
        let fail = |message: String| {
            Err(Error::validation(message)
                .with_model(M::SCHEMA.model)
                .with_operation("backfill"))
        };
        if !(1..=1_000_000).contains(&self.segments) {
            return fail(format!(
                "a backfill has 1 to 1,000,000 segments, not {}",
                self.segments
            ));
        }
        if self.page_size == Some(0) {
            return fail("a page of 0 items reads nothing".to_owned());
        }
        if self.lease.is_zero() {
            return fail("a lease of 0 s expires before the first page".to_owned());
        }
        if let Some(units) = self.max_units_per_second {
            if !(units > 0.0 && units.is_finite()) {
                return fail(format!(
                    "a budget of {units} units per second lets nothing through"
                ));
            }
        }
        Ok(())
    }

    /// Runs this worker until every segment of the run is done (by it or by others), and
    /// reports what it did.
    pub async fn send(self) -> Result<BackfillReport> {
        self.check()?;
        let leases = Leases {
            client: &self.client,
            table: &self.table,
            run: &self.run,
            worker: &self.worker,
            lease: self.lease,
        };
        let mut worker = Worker::<M>::new(&self);
        if self.dry_run {
            for segment in 0..self.segments {
                worker.segment(None, segment, None).await?;
            }
            return Ok(worker.report);
        }
        lease::ensure_table(&self.client, &self.table).await?;
        leases.start(self.segments).await?;
        loop {
            let states = leases.segments().await?;
            if states.iter().all(|s| s.done) {
                return Ok(worker.report);
            }
            let now = now_ms();
            let mut took = false;
            for state in states.iter().filter(|s| s.takeable(&self.worker, now)) {
                if leases.take(state.segment).await? {
                    took = true;
                    worker
                        .segment(Some(&leases), state.segment, Some(state.clone()))
                        .await?;
                }
            }
            if !took {
                // Every open segment is leased to a live worker: look again soon, to end
                // when they are done, or to take a segment over when a worker dies.
                let wait =
                    (self.lease / 4).clamp(Duration::from_millis(50), Duration::from_secs(1));
                tokio::time::sleep(wait).await;
            }
        }
    }
}

/// One worker's reading of its segments.
struct Worker<'a, M: Model> {
    backfill: &'a Backfill<M>,
    table: String,
    report: BackfillReport,
    started: Instant,
    limiter: Option<RateLimiter>,
    estimate: Option<u64>,
}

impl<'a, M: Model> Worker<'a, M> {
    fn new(backfill: &'a Backfill<M>) -> Self {
        Self {
            table: backfill.client.table_name::<M>(),
            backfill,
            report: BackfillReport::default(),
            started: Instant::now(),
            limiter: backfill.limiter.clone().or_else(|| {
                backfill
                    .max_units_per_second
                    .and_then(|units| RateLimiter::new(units).ok())
            }),
            estimate: None,
        }
    }

    /// Reads a segment from its saved cursor to its end, saving after each page; stops
    /// early when the lease is lost.
    async fn segment(
        &mut self,
        leases: Option<&Leases<'_>>,
        segment: u32,
        saved: Option<lease::SegmentState>,
    ) -> Result<()> {
        let client = &self.backfill.client;
        let (mut cursor, mut scanned, mut rewritten) = match saved {
            Some(state) => (state.cursor, state.scanned, state.rewritten),
            None => (None, 0, 0),
        };
        if self.estimate.is_none() {
            self.estimate = item_count(client, &self.table).await;
        }
        loop {
            let mut placeholders = Placeholders::default();
            let filter = filters::entity(&M::SCHEMA)
                .and_then(|expr| placeholders.render_all(std::slice::from_ref(&expr)));
            self.pace().await;
            let page = client
                .sdk()
                .scan()
                .table_name(&self.table)
                .segment(segment as i32)
                .total_segments(self.backfill.segments as i32)
                .consistent_read(true)
                .set_limit(self.backfill.page_size.map(|p| p as i32))
                .set_filter_expression(filter)
                .set_expression_attribute_names(placeholders.take_names())
                .set_expression_attribute_values(placeholders.take_values())
                .set_exclusive_start_key(cursor.clone())
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .instrument(request_span!("Scan", M::SCHEMA.model, self.table.as_str()))
                .await
                .map_err(|e| sdk_error(e, M::SCHEMA.model, "backfill", &self.table))?;
            self.spent(crate::observe::units(page.consumed_capacity.as_slice()));
            let items = page.items.unwrap_or_default();
            for item in items {
                scanned += 1;
                self.report.scanned += 1;
                if self.item(item).await? {
                    rewritten += 1;
                }
            }
            cursor = page.last_evaluated_key;
            if let Some(leases) = leases {
                let kept = leases
                    .save(segment, cursor.clone(), scanned, rewritten)
                    .await?;
                if !kept {
                    tracing::warn!(
                        segment,
                        "backfill: the segment's lease was lost; leaving it"
                    );
                    return Ok(());
                }
            }
            self.progress(segment);
            if cursor.is_none() {
                self.report.segments += 1;
                return Ok(());
            }
        }
    }

    /// Waits for the rate limiter, if there is one, before a request.
    async fn pace(&self) {
        if let Some(limiter) = &self.limiter {
            limiter.wait().await;
        }
    }

    /// Spends what a request consumed from the rate limiter, if there is one.
    fn spent(&self, units: f64) {
        if let Some(limiter) = &self.limiter {
            limiter.spend(units);
        }
    }

    /// Rewrites one item if it needs it; `true` when it did (or would, in a dry run).
    async fn item(&mut self, mut old: Item) -> Result<bool> {
        for _ in 0..MAX_ATTEMPTS {
            let Needed::Rewrite { new, moved } =
                needed::<M>(&old).map_err(|e| e.with_operation("backfill"))?
            else {
                return Ok(false);
            };
            if self.backfill.dry_run {
                self.report.rewritten += 1;
                self.report.moved += u64::from(moved);
                return Ok(true);
            }
            let client = &self.backfill.client;
            self.pace().await;
            match rewrite::write(client, &M::SCHEMA, &self.table, &old, new, moved).await? {
                Written::Done(units) => {
                    self.spent(units);
                    self.report.rewritten += 1;
                    self.report.moved += u64::from(moved);
                    return Ok(true);
                }
                Written::Changed => {
                    self.report.changed_meanwhile += 1;
                    let key = M::SCHEMA.key_of(&old);
                    let again = client
                        .sdk()
                        .get_item()
                        .table_name(&self.table)
                        .set_key(Some(key))
                        .consistent_read(true)
                        .send()
                        .instrument(request_span!(
                            "GetItem",
                            M::SCHEMA.model,
                            self.table.as_str()
                        ))
                        .await
                        .map_err(|e| sdk_error(e, M::SCHEMA.model, "backfill", &self.table))?;
                    match again.item {
                        Some(item) => old = item,
                        // Deleted meanwhile: nothing to rewrite.
                        None => return Ok(false),
                    }
                }
            }
        }
        Err(Error::new(
            ErrorKind::TransactionConflict,
            format!("the item changed {MAX_ATTEMPTS} times while the backfill rewrote it"),
        )
        .with_model(M::SCHEMA.model)
        .with_operation("backfill")
        .with_item(Some(M::SCHEMA.key_of(&old))))
    }

    fn progress(&self, segment: u32) {
        let elapsed = self.started.elapsed().as_secs_f64().max(1e-3);
        let per_second = self.report.scanned as f64 / elapsed;
        let remaining = self.estimate.and_then(|total| {
            let left = total.saturating_sub(self.report.scanned) as f64;
            (per_second > 0.0).then(|| Duration::from_secs_f64(left / per_second))
        });
        let progress = Progress {
            segment,
            scanned: self.report.scanned,
            rewritten: self.report.rewritten,
            per_second,
            remaining,
        };
        tracing::info!(
            model = M::SCHEMA.model,
            segment,
            scanned = progress.scanned,
            rewritten = progress.rewritten,
            per_second = progress.per_second,
            "backfill progress"
        );
        if let Some(report) = &self.backfill.on_progress {
            report(&progress);
        }
    }
}

/// The table's approximate item count, for the time left; `None` when unknown.
async fn item_count(client: &Client, table: &str) -> Option<u64> {
    let described = client
        .sdk()
        .describe_table()
        .table_name(table)
        .send()
        .instrument(request_span!("DescribeTable", tracing::field::Empty, table))
        .await;
    let count = described.ok()?.table?.item_count?;
    u64::try_from(count).ok()
}

//! Backfills: rewrite every item of a model that is not what the model writes today (an
//! earlier shape, a key template or `#[combine]` that renders differently now, an index
//! key missing from an item written before the index existed), without ever losing a
//! concurrent write, resumable after a kill, and shared by workers on many machines.
//!
//! A run reads the table with a parallel scan whose number of segments its first worker
//! fixes; each segment is an item in a progress table (`lease.rs`) that one worker at a
//! time holds a lease on (`takeover.rs`: an owner and a counter, never a time), with the
//! segment's cursor saved after every page (`worker.rs`). Each item is rewritten on
//! condition that it is still the item read (`rewrite.rs`); when another writer changed
//! it, it is read again and planned again. An item that does not decode stops the run,
//! or is set aside (`aside.rs`), and `status.rs` says where a run is.

mod adopt;
mod aside;
mod duplicates;
mod lease;
mod rewrite;
mod status;
mod takeover;
mod worker;

pub use self::status::{backfill_status, BackfillStatus, Duplicate, SetAside};

use dynorm::__ext::error::Context as _;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::{Duration, Instant};

use dynorm::__ext::client::Client;
use dynorm::__ext::error::{Error, Result};
use dynorm::__ext::observe::RateLimiter;
use dynorm::__ext::schema::Model;

use self::lease::{Progress as Leases, SegmentState};
use self::takeover::{Decision, Watch};
use self::worker::Worker;

/// A backfill of `M`'s items, as run `run`, with its progress in table
/// `progress_table` (created when missing; the full name, no prefix added). Every
/// worker that sends a backfill with the same run and table shares its segments.
///
/// ```no_run
/// # use dynorm::Model;
/// # #[derive(Model)] struct User { #[hash_key] id: String }
/// # async fn demo(db: dynorm::Client) -> Result<(), dynorm::Error> {
/// let report = dynorm_migrate::backfill::<User>(&db, "users-v3", "Backfills")
///     .segments(8)
///     .max_units_per_second(200.0)
///     .send()
///     .await?;
/// println!("{} of {} items rewritten", report.rewritten, report.scanned);
/// # Ok(()) }
/// ```
pub fn backfill<M: Model>(
    db: &Client,
    run: impl Into<String>,
    progress_table: impl Into<String>,
) -> Backfill<M> {
    Backfill {
        client: db.clone(),
        run: run.into(),
        table: progress_table.into(),
        segments: 4,
        worker: uuid::Uuid::now_v7().to_string(),
        lease: Duration::from_secs(30),
        page_size: None,
        dry_run: false,
        expand: false,
        set_aside_undecodable: false,
        max_units_per_second: None,
        limiter: None,
        on_progress: None,
        model: PhantomData,
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
    /// The run's number of segments, which its first worker fixed: this worker's
    /// [`segments`](Backfill::segments) when it started the run, the run's when it joined
    /// one started with another number (it says so in an `info` event).
    pub run_segments: u32,
    /// Items it set aside because they do not decode
    /// ([`set_aside_undecodable`](Backfill::set_aside_undecodable)).
    pub set_aside: u64,
    /// Guards it claimed for unique values of items written before their `#[unique]`
    /// (or, in a dry run, that it would claim).
    pub claimed: u64,
    /// Counts it added items to that were not counted yet (written before their
    /// `#[count]`), each item once per count.
    pub counted: u64,
    /// Counts of items whose parent does not exist, which count nowhere.
    pub orphaned: u64,
    /// Unique values held by more than one item when the run ended, each with its
    /// holders: until none is left, the constraint does not hold. A run sent again
    /// looks at them again.
    pub duplicates: Vec<Duplicate>,
}

type ProgressFn = Arc<dyn Fn(&Progress) + Send + Sync>;

/// Woken whenever a worker of this process stops holding a segment (done, or given up), so
/// that the process's other workers of any run look at their run again at once rather
/// than at their next poll. Workers in other processes see it at their next poll.
static SEGMENT_ENDED: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// A pending backfill. Build it with [`backfill`](crate::backfill), then
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
    expand: bool,
    set_aside_undecodable: bool,
    max_units_per_second: Option<f64>,
    limiter: Option<RateLimiter>,
    on_progress: Option<ProgressFn>,
    model: PhantomData<fn() -> M>,
}

impl<M: Model> Backfill<M> {
    /// The number of scan segments of a new run, 1 to 1,000,000 (4 by default). The first
    /// worker of a run fixes it in the progress table; a worker sent with another number
    /// joins with the run's, so that every worker scans the same segments. More segments
    /// let more workers share the run.
    pub fn segments(mut self, segments: u32) -> Self {
        self.segments = segments;
        self
    }

    /// This worker's name, unique among the run's workers (by default a new UUID v7 for
    /// each backfill sent, so workers started at once in one process differ too). A
    /// worker sent again with the same name takes back the segments it held at once.
    pub fn worker(mut self, name: impl Into<String>) -> Self {
        self.worker = name.into();
        self
    }

    /// How long a segment stays with a worker that stops renewing it (30 s by default).
    /// The holder renews its lease three times per lease duration while it reads and
    /// writes, however long a page takes; another worker takes the segment over once it
    /// has seen the lease's counter unchanged for this long, by its own clock.
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

    /// Whether this run only expands items of an earlier shape (`false` by default): it
    /// writes today's attributes and keys into each, and keeps its shape and every
    /// attribute that shape's readers read, with their values. So a binary still on the
    /// earlier shape reads every item throughout a rolling deploy, and today's readers
    /// keep upcasting it from what that binary writes. Once no reader of the earlier shape
    /// is left, a run without `expand` (under another run name) contracts each item to
    /// today's shape. `migrate expand` and `migrate status` say which phase a model is in.
    ///
    /// An attribute that today's shape keeps under the same name with another type
    /// cannot serve both readers: give it a new name.
    pub fn expand(mut self, expand: bool) -> Self {
        self.expand = expand;
        self
    }

    /// Whether an item that does not decode as the model is set aside (recorded in the
    /// progress table with its key, shape and error, listed by
    /// [`backfill_status`](crate::backfill_status) and `migrate status`) and the run goes on. By default
    /// (`false`) it stops the run with a `Conversion` error that names its key, shape and
    /// attribute.
    pub fn set_aside_undecodable(mut self, set_aside: bool) -> Self {
        self.set_aside_undecodable = set_aside;
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
            Err(Error::new(dynorm::ErrorKind::Validation, message)
                .at_model(M::SCHEMA.model)
                .at_operation("backfill"))
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
    /// reports what it did. It takes free segments at once; a segment another worker
    /// holds it watches until it is done, or taken over once its lease stood still for a
    /// lease duration.
    pub async fn send(self) -> Result<BackfillReport> {
        self.check()?;
        let mut worker = Worker::<M>::new(&self);
        if self.dry_run {
            worker.report.run_segments = self.segments;
            for segment in 0..self.segments {
                worker.segment(None, SegmentState::fresh(segment)).await?;
            }
            return Ok(worker.report);
        }
        let leases = Leases {
            client: &self.client,
            table: &self.table,
            run: &self.run,
            worker: &self.worker,
        };
        lease::ensure_table(&self.client, &self.table).await?;
        let total = leases.start(self.segments).await?;
        if total != self.segments {
            tracing::info!(
                model = M::SCHEMA.model,
                run = self.run.as_str(),
                worker = self.worker.as_str(),
                asked = self.segments,
                segments = total,
                "backfill: joining a run started with another number of segments"
            );
        }
        worker.report.run_segments = total;
        let mut watch = Watch::new(self.lease);
        loop {
            // Enabled before the read, so that a segment that ends after it wakes this
            // worker at once.
            let ended = SEGMENT_ENDED.notified();
            let mut ended = std::pin::pin!(ended);
            ended.as_mut().enable();
            let states = leases.segments().await?;
            // After the read: a counter seen is a counter written before this instant.
            let now = Instant::now();
            if states.iter().all(|s| s.done) {
                if M::SCHEMA.has_companions() && !M::SCHEMA.uniques.is_empty() {
                    worker.report.duplicates = leases
                        .resolve_duplicates(&self.client, &M::SCHEMA, &worker.table)
                        .await?;
                }
                return Ok(worker.report);
            }
            let mut took = false;
            for state in &states {
                let seen = match watch.decide(state, &self.worker, now) {
                    Decision::Wait => continue,
                    Decision::Take => None,
                    Decision::TakeOver(seen) => Some(seen),
                };
                let sent = Instant::now();
                let Some(taken) = leases.take(state.segment, seen.as_ref()).await? else {
                    continue;
                };
                if let Some(seen) = &seen {
                    tracing::warn!(
                        model = M::SCHEMA.model,
                        segment = state.segment,
                        from = seen.owner.as_str(),
                        "backfill: took over a segment whose lease stood still"
                    );
                }
                worker.held(&leases, taken, sent).await?;
                SEGMENT_ENDED.notify_waiters();
                took = true;
                // Read the segments again: others may have finished meanwhile.
                break;
            }
            if !took {
                // Every open segment is leased to a worker that may be alive: look again
                // soon, to end when they are done, or to take one over; at once when a
                // worker of this process ends a segment.
                let poll = std::pin::pin!(tokio::time::sleep(watch.poll()));
                futures_util::future::select(poll, ended).await;
            }
        }
    }
}

//! [`Backfill`], a pending backfill, and [`backfill`](fn@backfill), which starts one: the run, the
//! progress table and how the run goes (segments, lease, pace, dry run, progress reports).

use dynorm::__ext::error::Context as _;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use dynorm::__ext::client::Client;
use dynorm::__ext::error::{Error, Result};
use dynorm::__ext::observe::{RateLimiter, Tally};
use dynorm::__ext::schema::Model;

use super::report::Progress;

/// A backfill of `M`'s items, as run `run`, with its progress in table
/// `progress_table` (created when missing; the full name, no prefix added). Every
/// worker that sends a backfill with the same run and table shares its segments.
///
/// ```no_run
/// # use dynorm::Model;
/// # #[derive(Model)] struct User { #[hash_key] id: String }
/// # use dynorm::observe::RateLimiter;
/// # async fn demo(db: dynorm::Client) -> Result<(), dynorm::Error> {
/// let report = dynorm_migrate::backfill::<User>(&db, "users-v3", "Backfills")
///     .segments(8)
///     .rate_limiter(&RateLimiter::new(200.0)?)
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
        limiter: None,
        tally: None,
        on_progress: None,
        model: PhantomData,
    }
}

type ProgressFn = Arc<dyn Fn(&Progress) + Send + Sync>;

/// A pending backfill. Build it with [`backfill`](crate::backfill), then
/// [`send`](Self::send) it on every worker.
#[must_use = "a backfill does nothing until it is sent"]
pub struct Backfill<M: Model> {
    pub(super) client: Client,
    pub(super) run: String,
    pub(super) table: String,
    pub(super) segments: u32,
    pub(super) worker: String,
    pub(super) lease: Duration,
    pub(super) page_size: Option<u32>,
    pub(super) dry_run: bool,
    pub(super) expand: bool,
    pub(super) set_aside_undecodable: bool,
    pub(super) limiter: Option<RateLimiter>,
    pub(super) tally: Option<Tally>,
    pub(super) on_progress: Option<ProgressFn>,
    pub(super) model: PhantomData<fn() -> M>,
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

    /// Keeps this worker's reads and writes within `limiter`'s capacity units per second,
    /// measured from what DynamoDB reports they consumed, shared with every other request
    /// that carries it (other workers of the process, scans, batch writes):
    /// `.rate_limiter(&RateLimiter::new(200.0)?)`.
    pub fn rate_limiter(mut self, limiter: &RateLimiter) -> Self {
        self.limiter = Some(limiter.clone());
        self
    }

    /// Adds every request this worker sends, and what it consumed (in total and by table
    /// and index), to `tally`: its scan's pages, its rewrites, the guards and counts it
    /// adopts, and its reads and writes of the progress table. Each then asks DynamoDB
    /// for its consumed capacity (`INDEXES`).
    pub fn tally(mut self, tally: &Tally) -> Self {
        self.tally = Some(tally.clone());
        self
    }

    /// Called after each page with where this worker is (it also logs at `info`).
    pub fn on_progress(mut self, report: impl Fn(&Progress) + Send + Sync + 'static) -> Self {
        self.on_progress = Some(Arc::new(report));
        self
    }

    pub(super) fn check(&self) -> Result<()> {
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
        Ok(())
    }
}

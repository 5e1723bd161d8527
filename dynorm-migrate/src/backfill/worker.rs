//! One worker's reading of the segments it holds: page after page of the scan, each item
//! rewritten if it needs it, the cursor saved after each page, and the lease renewed
//! alongside, however long a page takes.

use dynorm::__ext::error::Context as _;
use std::convert::Infallible;
use std::time::{Duration, Instant};

use futures_util::future::{select, Either};
use tracing::Instrument as _;

use super::adopt;
use super::builder::Backfill;
use super::lease::{Progress as Leases, SegmentState};
use super::report::{BackfillReport, Progress};
use super::rewrite::{self, needed, stored_shape, Needed, Written};
use super::spend::Spend;
use super::status::show_key;
use super::takeover::Held;
use dynorm::__ext::error::{sdk_error, Error, ErrorKind, Result};
use dynorm::__ext::expr::{filters, Placeholders};
use dynorm::__ext::observe::span::request_span;
use dynorm::__ext::observe::Reporting;
use dynorm::__ext::schema::unique;
use dynorm::__ext::schema::Model;
use dynorm::__ext::value::Item;

/// How many times an item that keeps changing under the backfill is read again.
const MAX_ATTEMPTS: u32 = 5;

/// What became of one item.
enum Outcome {
    /// It is what the model writes today: as stored now, `None` when deleted meanwhile.
    Current(Option<Item>),
    /// Rewritten (or, in a dry run, it would be): as stored now (or would be).
    Rewritten(Item),
    /// It does not decode, and was set aside.
    SetAside,
}

/// One worker's reading of its segments.
pub(super) struct Worker<'a, M: Model> {
    backfill: &'a Backfill<M>,
    pub(super) table: String,
    pub(super) report: BackfillReport,
    started: Instant,
    pub(super) spend: Spend,
    estimate: Option<u64>,
}

impl<'a, M: Model> Worker<'a, M> {
    pub(super) fn new(backfill: &'a Backfill<M>) -> Self {
        Self {
            table: backfill.client.tables().name::<M>(),
            backfill,
            report: BackfillReport::default(),
            started: Instant::now(),
            spend: Spend(Reporting {
                limiter: backfill.limiter.clone(),
                tally: backfill.tally.clone(),
            }),
            estimate: None,
        }
    }

    /// Reads a segment this worker has just taken (by a request sent at `sent`), while
    /// renewing its lease. On an error, it gives the lease up, so that whoever runs
    /// again takes the segment at once.
    pub(super) async fn held(
        &mut self,
        leases: &Leases<'_>,
        taken: SegmentState,
        sent: Instant,
    ) -> Result<()> {
        let segment = taken.segment;
        let held = Held::new(self.backfill.lease, sent);
        let work = std::pin::pin!(self.segment(Some((leases, &held)), taken));
        let renewal = std::pin::pin!(renew(leases, segment, &held));
        let result = match select(work, renewal).await {
            Either::Left((result, _)) => result,
            Either::Right((never, _)) => match never {},
        };
        if result.is_err() {
            // The error that ended the segment is the one to report; a release that fails
            // only makes the next worker wait a lease duration.
            let _ = leases.release(segment).await;
        }
        result
    }

    /// Reads a segment from its saved cursor to its end, saving after each page; stops
    /// early when the lease is lost.
    pub(super) async fn segment(
        &mut self,
        lease: Option<(&Leases<'_>, &Held)>,
        mut state: SegmentState,
    ) -> Result<()> {
        let client = &self.backfill.client;
        let segment = state.segment;
        if self.estimate.is_none() {
            self.estimate = item_count(client, &self.table).await;
        }
        let total = match self.report.run_segments {
            0 => self.backfill.segments,
            run => run,
        };
        let lost = |held: &Held| {
            let live = held.live(Instant::now());
            if !live {
                tracing::warn!(
                    segment,
                    "backfill: the segment's lease was lost; leaving it"
                );
            }
            !live
        };
        loop {
            if lease.is_some_and(|(_, held)| lost(held)) {
                return Ok(());
            }
            let mut placeholders = Placeholders::default();
            let filter = filters::entity(&M::SCHEMA)
                .and_then(|expr| placeholders.render_all(std::slice::from_ref(&expr)));
            self.spend.pace().await;
            let page = client
                .sdk()
                .scan()
                .table_name(&self.table)
                .segment(segment as i32)
                .total_segments(total as i32)
                .consistent_read(true)
                .set_limit(self.backfill.page_size.map(|p| p as i32))
                .set_filter_expression(filter)
                .set_expression_attribute_names(placeholders.take_names())
                .set_expression_attribute_values(placeholders.take_values())
                .set_exclusive_start_key(state.cursor.take())
                .set_return_consumed_capacity(self.spend.asked())
                .send()
                .instrument(request_span!("Scan", M::SCHEMA.model, self.table.as_str()))
                .await
                .map_err(|e| sdk_error(e, M::SCHEMA.model, "backfill", &self.table))?;
            self.spend.spent(page.consumed_capacity.as_slice());
            for item in page.items.unwrap_or_default() {
                if lease.is_some_and(|(_, held)| lost(held)) {
                    return Ok(());
                }
                // Guards live in the model's table, and are dynorm's, not the model's.
                if unique::is_guard(&item) {
                    continue;
                }
                state.scanned += 1;
                self.report.scanned += 1;
                let now = match self.item(lease.map(|(l, _)| l), segment, item).await? {
                    Outcome::Current(now) => now,
                    Outcome::Rewritten(now) => {
                        state.rewritten += 1;
                        Some(now)
                    }
                    Outcome::SetAside => {
                        state.set_aside += 1;
                        None
                    }
                };
                if let (true, Some(now)) = (M::SCHEMA.has_companions(), now) {
                    self.adopt(lease.map(|(l, _)| l), now).await?;
                }
            }
            state.cursor = page.last_evaluated_key;
            if let Some((leases, held)) = lease {
                let sent = Instant::now();
                if !leases.save(segment, &state).await? {
                    held.lose();
                    lost(held);
                    return Ok(());
                }
                held.renewed(sent);
            }
            self.progress(segment);
            if state.cursor.is_none() {
                self.report.segments += 1;
                return Ok(());
            }
        }
    }

    /// Rewrites one item if it needs it.
    async fn item(
        &mut self,
        leases: Option<&Leases<'_>>,
        segment: u32,
        mut old: Item,
    ) -> Result<Outcome> {
        for _ in 0..MAX_ATTEMPTS {
            let planned =
                needed::<M>(&old, self.backfill.expand).map_err(|e| self.unreadable(e, &old));
            let (new, moved) = match planned {
                Ok(Needed::Nothing) => return Ok(Outcome::Current(Some(old))),
                Ok(Needed::Rewrite { new, moved }) => (new, moved),
                Err(error)
                    if error.kind() == dynorm::ErrorKind::Conversion
                        && self.backfill.set_aside_undecodable =>
                {
                    return self.set_aside(leases, segment, &old, &error).await;
                }
                Err(error) => return Err(error),
            };
            if self.backfill.dry_run {
                self.report.rewritten += 1;
                self.report.moved += u64::from(moved);
                // As stored: a dry run writes nothing.
                return Ok(Outcome::Rewritten(old));
            }
            let client = &self.backfill.client;
            self.spend.pace().await;
            match rewrite::write(
                client,
                &M::SCHEMA,
                &self.table,
                &old,
                new.clone(),
                moved,
                &self.spend,
            )
            .await?
            {
                Written::Done => {
                    self.report.rewritten += 1;
                    self.report.moved += u64::from(moved);
                    return Ok(Outcome::Rewritten(new));
                }
                Written::Changed => {
                    self.report.changed_meanwhile += 1;
                    match self.read_again(&old).await? {
                        Some(item) => old = item,
                        // Deleted meanwhile: nothing to rewrite.
                        None => return Ok(Outcome::Current(None)),
                    }
                }
            }
        }
        Err(Error::new(
            ErrorKind::TransactionConflict,
            format!("the item changed {MAX_ATTEMPTS} times while the backfill rewrote it"),
        )
        .at_model(M::SCHEMA.model)
        .at_operation("backfill")
        .at_item(Some(M::SCHEMA.key_of(&old))))
    }

    /// Brings the guards and counts of an item, as stored now, up to date
    /// (`adopt.rs`), reading it again while another writer changes it.
    async fn adopt(&mut self, leases: Option<&Leases<'_>>, mut now: Item) -> Result<()> {
        let client = &self.backfill.client;
        for _ in 0..MAX_ATTEMPTS {
            let adopted = adopt::adopt(
                client,
                &M::SCHEMA,
                &self.table,
                &now,
                self.backfill.dry_run,
                &self.spend,
            )
            .await?;
            self.report.claimed += adopted.claimed;
            self.report.counted += adopted.counted;
            self.report.orphaned += adopted.orphaned;
            for found in &adopted.duplicates {
                tracing::warn!(
                    model = M::SCHEMA.model,
                    constraint = found.constraint.name,
                    values = found.values.as_str(),
                    holders = %found.holders.iter().map(show_key).collect::<Vec<_>>().join(", "),
                    "backfill: a unique value is held by more than one item"
                );
                match leases {
                    Some(leases) => leases.record_duplicate(found).await?,
                    // A dry run records nothing: it reports what it found.
                    None => self.report.duplicates.push(super::Duplicate {
                        constraint: found.constraint.name.to_owned(),
                        values: found.values.clone(),
                        holders: found.holders.to_vec(),
                    }),
                }
            }
            if !adopted.changed {
                return Ok(());
            }
            self.report.changed_meanwhile += 1;
            match self.read_again(&now).await? {
                Some(again) => now = again,
                None => return Ok(()),
            }
        }
        Err(Error::new(
            ErrorKind::TransactionConflict,
            format!(
                "the item changed {MAX_ATTEMPTS} times while the backfill built its guards and counts"
            ),
        )
        .at_model(M::SCHEMA.model)
        .at_operation("backfill")
        .at_item(Some(M::SCHEMA.key_of(&now))))
    }

    /// The item as stored now, read again after another writer changed it.
    async fn read_again(&self, old: &Item) -> Result<Option<Item>> {
        let key = M::SCHEMA.key_of(old);
        adopt::read(
            &self.backfill.client,
            &M::SCHEMA,
            &self.table,
            &key,
            &self.spend,
        )
        .await
    }

    /// The error of an item the backfill cannot plan (it does not decode, or cannot be
    /// written as the model writes it today), naming its key and its stored shape.
    fn unreadable(&self, error: Error, old: &Item) -> Error {
        let key = M::SCHEMA.key_of(old);
        let shape = stored_shape(&M::SCHEMA, old).ok().flatten().unwrap_or(1);
        let shown = show_key(&key);
        error
            .at_operation("backfill")
            .at_table(self.table.clone())
            .at_item(Some(key))
            .in_context(&format!("the item with key {shown} is of shape {shape}"))
    }

    /// Records an item that does not decode in the progress table, and goes on.
    async fn set_aside(
        &mut self,
        leases: Option<&Leases<'_>>,
        segment: u32,
        old: &Item,
        error: &Error,
    ) -> Result<Outcome> {
        let key = M::SCHEMA.key_of(old);
        let shape = stored_shape(&M::SCHEMA, old).ok().flatten().unwrap_or(1);
        tracing::warn!(
            model = M::SCHEMA.model,
            segment,
            error = %error,
            "backfill: an item that does not decode was set aside"
        );
        if let Some(leases) = leases {
            leases.set_aside(segment, &key, shape, error).await?;
        }
        self.report.set_aside += 1;
        Ok(Outcome::SetAside)
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

/// Renews the lease of `segment` three times per lease duration, until it is lost (then
/// `held` says so); never ends by itself.
async fn renew(leases: &Leases<'_>, segment: u32, held: &Held) -> Infallible {
    loop {
        tokio::time::sleep(held.period()).await;
        let sent = Instant::now();
        match leases.renew(segment).await {
            Ok(true) => held.renewed(sent),
            Ok(false) => {
                held.lose();
                return std::future::pending().await;
            }
            // The next renewal may pass; the lease lasts three periods.
            Err(error) => tracing::warn!(segment, %error, "backfill: a lease renewal failed"),
        }
    }
}

/// The table's approximate item count, for the time left; `None` when unknown.
async fn item_count(client: &dynorm::__ext::client::Client, table: &str) -> Option<u64> {
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

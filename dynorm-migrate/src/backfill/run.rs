//! Running a backfill on one worker: [`Backfill::send`] takes free segments, watches the
//! ones others hold and takes over those whose lease stood still, until the run is done.

use std::time::Instant;

use dynorm::__ext::error::Result;
use dynorm::__ext::schema::Model;

use super::builder::Backfill;
use super::lease::{self, Progress as Leases, SegmentState};
use super::report::BackfillReport;
use super::takeover::{Decision, Watch};
use super::worker::Worker;

/// Woken whenever a worker of this process stops holding a segment (done, or given up), so
/// that the process's other workers of any run look at their run again at once rather
/// than at their next poll. Workers in other processes see it at their next poll.
static SEGMENT_ENDED: tokio::sync::Notify = tokio::sync::Notify::const_new();

impl<M: Model> Backfill<M> {
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
            spend: &worker.spend.clone(),
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

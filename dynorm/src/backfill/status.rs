//! Where a backfill run is, read from its progress table.

use std::time::Duration;

use crate::backfill::lease::Progress as Leases;
use crate::client::Client;
use crate::error::Result;

/// Where a backfill run is: its segments, how many are done, and what its workers read
/// and rewrote so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BackfillStatus {
    /// The run's segments.
    pub segments: u32,
    /// Those that are done.
    pub done: u32,
    /// Items read, in every segment.
    pub scanned: u64,
    /// Items rewritten (or, in a dry run, that needed it), in every segment.
    pub rewritten: u64,
}

impl BackfillStatus {
    /// Whether every segment is done.
    pub fn is_done(&self) -> bool {
        self.segments > 0 && self.done == self.segments
    }
}

impl Client {
    /// Where backfill run `run` is, from progress table `progress_table`; `None` when it
    /// was never started (or the table does not exist).
    pub async fn backfill_status(
        &self,
        run: &str,
        progress_table: &str,
    ) -> Result<Option<BackfillStatus>> {
        let leases = Leases {
            client: self,
            table: progress_table,
            run,
            worker: "",
            lease: Duration::ZERO,
        };
        let segments = match leases.segments().await {
            Ok(segments) => segments,
            Err(e) if e.is_table_not_found() => return Ok(None),
            Err(e) => return Err(e),
        };
        if segments.is_empty() {
            return Ok(None);
        }
        let mut status = BackfillStatus {
            segments: u32::try_from(segments.len()).unwrap_or(u32::MAX),
            ..BackfillStatus::default()
        };
        for segment in &segments {
            status.done += u32::from(segment.done);
            status.scanned += segment.scanned;
            status.rewritten += segment.rewritten;
        }
        Ok(Some(status))
    }
}

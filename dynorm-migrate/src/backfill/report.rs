//! What a backfill reports: [`Progress`] after each page, and [`BackfillReport`] at the
//! end.

use std::time::Duration;

use super::status::Duplicate;

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
    /// [`segments`](crate::backfill::Backfill::segments) when it started the run, the run's when it joined
    /// one started with another number (it says so in an `info` event).
    pub run_segments: u32,
    /// Items it set aside because they do not decode
    /// ([`set_aside_undecodable`](crate::backfill::Backfill::set_aside_undecodable)).
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

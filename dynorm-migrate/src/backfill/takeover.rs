//! When a worker may take a segment, and how long it may think it holds one, by its own
//! monotonic clock alone, as the DynamoDB Lock Client and the Kinesis Client Library
//! decide: a lease records its owner and a counter that the owner increments on every
//! renewal. Another worker takes it over only after it has seen the same owner and
//! counter for a whole lease duration, measured from when it first saw them; no two
//! hosts' clocks are compared. The holder renews well within a lease duration, and
//! counts its lease as lost once a lease duration has passed since it sent its last
//! renewal that succeeded: the taker saw that renewal's counter after it was sent, so it
//! waits at least as long.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::lease::{Seen, SegmentState};

/// What a worker does with a segment it sees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Take it: it is free, or this worker's own.
    Take,
    /// Take it over: its owner has not renewed it for a lease duration.
    TakeOver(Seen),
    /// Leave it: done, or held by a worker that may be alive.
    Wait,
}

/// What one worker has seen of other workers' leases, and since when.
pub(crate) struct Watch {
    lease: Duration,
    seen: HashMap<u32, (Seen, Instant)>,
}

impl Watch {
    pub(crate) fn new(lease: Duration) -> Self {
        Self {
            lease,
            seen: HashMap::new(),
        }
    }

    /// Decides on a segment read at `now` (by this worker's monotonic clock).
    pub(crate) fn decide(&mut self, state: &SegmentState, me: &str, now: Instant) -> Decision {
        if state.done {
            self.seen.remove(&state.segment);
            return Decision::Wait;
        }
        let owner = match state.owner.as_deref() {
            None => return Decision::Take,
            Some(owner) if owner == me => return Decision::Take,
            Some(owner) => owner,
        };
        let seen = Seen {
            owner: owner.to_owned(),
            counter: state.counter,
        };
        match self.seen.get(&state.segment) {
            Some((before, since)) if *before == seen => {
                if now.saturating_duration_since(*since) >= self.lease {
                    Decision::TakeOver(seen)
                } else {
                    Decision::Wait
                }
            }
            // Renewed, taken, or seen for the first time: the lease duration starts now.
            _ => {
                self.seen.insert(state.segment, (seen, now));
                Decision::Wait
            }
        }
    }

    /// How long to wait before looking at leases held by others again.
    pub(crate) fn poll(&self) -> Duration {
        (self.lease / 4).clamp(Duration::from_millis(20), Duration::from_secs(1))
    }
}

/// A lease this worker holds, as its renewals see it.
pub(crate) struct Held {
    lease: Duration,
    /// When the last renewal that succeeded (or the take) was sent.
    renewed: Mutex<Instant>,
    lost: AtomicBool,
}

impl Held {
    /// A lease taken by a request sent at `sent`.
    pub(crate) fn new(lease: Duration, sent: Instant) -> Self {
        Self {
            lease,
            renewed: Mutex::new(sent),
            lost: AtomicBool::new(false),
        }
    }

    /// How often the holder renews: three times per lease duration, so that one renewal
    /// that fails or is slow does not lose it.
    pub(crate) fn period(&self) -> Duration {
        self.lease / 3
    }

    /// A renewal sent at `sent` succeeded.
    pub(crate) fn renewed(&self, sent: Instant) {
        let mut renewed = self.renewed.lock().unwrap_or_else(PoisonError::into_inner);
        *renewed = (*renewed).max(sent);
    }

    /// Another worker holds the lease now.
    pub(crate) fn lose(&self) {
        self.lost.store(true, Ordering::SeqCst);
    }

    /// Whether the lease is still this worker's at `now`: not lost, and renewed within a
    /// lease duration.
    pub(crate) fn live(&self, now: Instant) -> bool {
        let renewed = *self.renewed.lock().unwrap_or_else(PoisonError::into_inner);
        !self.lost.load(Ordering::SeqCst) && now.saturating_duration_since(renewed) < self.lease
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEASE: Duration = Duration::from_secs(10);

    fn segment(owner: Option<&str>, counter: u64) -> SegmentState {
        SegmentState {
            segment: 3,
            cursor: None,
            done: false,
            scanned: 0,
            rewritten: 0,
            set_aside: 0,
            owner: owner.map(str::to_owned),
            counter,
        }
    }

    fn seen(owner: &str, counter: u64) -> Decision {
        Decision::TakeOver(Seen {
            owner: owner.to_owned(),
            counter,
        })
    }

    #[test]
    fn a_free_segment_or_ones_own_is_taken_at_once() {
        let mut watch = Watch::new(LEASE);
        let now = Instant::now();
        assert_eq!(watch.decide(&segment(None, 7), "me", now), Decision::Take);
        assert_eq!(
            watch.decide(&segment(Some("me"), 7), "me", now),
            Decision::Take
        );
        let done = SegmentState {
            done: true,
            ..segment(None, 7)
        };
        assert_eq!(watch.decide(&done, "me", now), Decision::Wait);
    }

    #[test]
    fn a_lease_is_taken_over_after_its_counter_stood_still_for_a_lease_duration() {
        let mut watch = Watch::new(LEASE);
        let start = Instant::now();
        let other = segment(Some("other"), 4);
        assert_eq!(watch.decide(&other, "me", start), Decision::Wait);
        let almost = start + LEASE - Duration::from_millis(1);
        assert_eq!(watch.decide(&other, "me", almost), Decision::Wait);
        assert_eq!(watch.decide(&other, "me", start + LEASE), seen("other", 4));
    }

    #[test]
    fn a_renewal_starts_the_lease_duration_again() {
        let mut watch = Watch::new(LEASE);
        let start = Instant::now();
        assert_eq!(
            watch.decide(&segment(Some("other"), 4), "me", start),
            Decision::Wait
        );
        // Renewed (counter 5) just before the lease would have run out: a whole lease
        // duration from when this worker saw 5.
        let renewed_at = start + LEASE - Duration::from_millis(1);
        let renewed = segment(Some("other"), 5);
        assert_eq!(watch.decide(&renewed, "me", renewed_at), Decision::Wait);
        assert_eq!(watch.decide(&renewed, "me", start + LEASE), Decision::Wait);
        assert_eq!(
            watch.decide(
                &renewed,
                "me",
                renewed_at + LEASE - Duration::from_millis(1)
            ),
            Decision::Wait
        );
        assert_eq!(
            watch.decide(&renewed, "me", renewed_at + LEASE),
            seen("other", 5)
        );
    }

    #[test]
    fn a_new_owner_with_the_same_counter_is_a_change() {
        let mut watch = Watch::new(LEASE);
        let start = Instant::now();
        watch.decide(&segment(Some("a"), 4), "me", start);
        // Only the counter and owner this worker saw count, never a time either wrote.
        let later = start + LEASE;
        assert_eq!(
            watch.decide(&segment(Some("b"), 4), "me", later),
            Decision::Wait
        );
        assert_eq!(
            watch.decide(&segment(Some("b"), 4), "me", later + LEASE),
            seen("b", 4)
        );
    }

    #[test]
    fn segments_are_watched_apart() {
        let mut watch = Watch::new(LEASE);
        let start = Instant::now();
        let first = segment(Some("a"), 1);
        let second = SegmentState {
            segment: 4,
            ..segment(Some("a"), 1)
        };
        watch.decide(&first, "me", start);
        watch.decide(&second, "me", start + LEASE / 2);
        assert_eq!(watch.decide(&first, "me", start + LEASE), seen("a", 1));
        assert_eq!(watch.decide(&second, "me", start + LEASE), Decision::Wait);
    }

    #[test]
    fn a_holder_counts_its_lease_from_the_last_renewal_it_sent() {
        let start = Instant::now();
        let held = Held::new(LEASE, start);
        assert!(held.live(start + LEASE - Duration::from_millis(1)));
        assert!(!held.live(start + LEASE));
        held.renewed(start + LEASE / 2);
        assert!(held.live(start + LEASE));
        // A renewal answered late, sent before the last one, does not move it back.
        held.renewed(start);
        assert!(held.live(start + LEASE));
        held.lose();
        assert!(!held.live(start + LEASE / 2));
        assert!(held.period() < LEASE / 2);
    }
}

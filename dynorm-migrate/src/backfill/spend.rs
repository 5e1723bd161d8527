//! [`Spend`]: where a backfill's requests account for what they consumed, in its rate
//! limiter and its tally.

use aws_sdk_dynamodb::types::{ConsumedCapacity, ReturnConsumedCapacity};
use dynorm::__ext::observe::{units, Limiting as _, Reporting, TallyRequests as _};

/// A worker's rate limiter and tally, given to every request it sends.
#[derive(Clone, Default)]
pub(super) struct Spend(pub(super) Reporting);

impl Spend {
    /// What a request asks DynamoDB to report, as the core's builders ask: by table and
    /// index when a tally counts it, the total when only the rate limiter needs the units.
    pub(super) fn asked(&self) -> Option<ReturnConsumedCapacity> {
        self.0.capacity()
    }

    /// Waits for the rate limiter, if there is one, before a request on the model's table.
    pub(super) async fn pace(&self) {
        if let Some(limiter) = &self.0.limiter {
            limiter.wait_turn().await;
        }
    }

    /// A request on the model's table answered with `capacity`: spent from the rate
    /// limiter, and counted in the tally.
    pub(super) fn spent(&self, capacity: &[ConsumedCapacity]) {
        if let Some(limiter) = &self.0.limiter {
            limiter.spend_units(units(capacity));
        }
        self.counted(capacity);
    }

    /// A request on the progress table answered with `capacity`: counted in the tally,
    /// and not paced, so that a lease is renewed on time whatever the rate.
    pub(super) fn counted(&self, capacity: &[ConsumedCapacity]) {
        if let Some(tally) = &self.0.tally {
            tally.add_request(capacity);
        }
    }

    /// The same, for a write the core sends (a counted write's transaction): its tally
    /// counts it; the core's writes do not wait for a rate limiter or spend from it.
    pub(super) fn reporting(&self) -> Reporting {
        self.0.clone()
    }
}

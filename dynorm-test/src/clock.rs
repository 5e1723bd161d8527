//! A clock fixed for a test: the times dynorm writes, made the same on every run.

use std::time::SystemTime;

/// Fixes the time dynorm reads on this thread until it is dropped: the times it writes
/// (`#[dynorm(default = "now")]`, `#[dynorm(updated_at)]`, DynamoDB-Toolbox's timestamps)
/// and the time it compares `#[ttl]` attributes with. A test can then compare what it
/// stored byte for byte, with another library's items or a fixture.
///
/// The clock is this thread's: `#[tokio::test]` runs a test and every task it spawns on
/// one thread. Guards nest: dropping one puts back the time fixed before it.
///
/// ```
/// use std::time::{Duration, SystemTime};
///
/// let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
/// let _clock = dynorm_test::FixedClock::at(at);
/// // Every write of this test stores 2023-11-14T22:13:20.000Z as the time.
/// ```
#[must_use = "the clock is fixed until the guard is dropped"]
pub struct FixedClock {
    before: Option<SystemTime>,
}

impl FixedClock {
    /// Fixes this thread's clock at `time`.
    pub fn at(time: SystemTime) -> Self {
        Self {
            before: dynorm::__private::fix_clock(Some(time)),
        }
    }
}

impl Drop for FixedClock {
    fn drop(&mut self) {
        dynorm::__private::fix_clock(self.before);
    }
}

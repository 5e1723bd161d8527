//! The one retry policy of dynorm ([`RetryPolicy`]): bounded attempts, exponential backoff
//! with full jitter ([`Backoff`]), and retrying only what throttling or a passing fault
//! explains, as [`Error::is_retryable`] says, or contention with another writer
//! ([`contention`]). A client's policy is the SDK client's own `RetryConfig` unless one is
//! set on the client. The batch chunks' attempts are `batch/retry.rs`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use aws_sdk_dynamodb::config::retry::RetryConfig;

use crate::error::{Error, ErrorKind};

/// How dynorm retries: the attempts one request may make, the first included, and the
/// backoff between them. Set it with
/// [`ClientBuilder::retry_policy`](crate::client::ClientBuilder::retry_policy); without
/// one, a client follows its SDK client's `RetryConfig` (3 attempts, backoff from 1 s up
/// to 20 s, unless configured otherwise).
///
/// It bounds, in HTTP attempts, the first included:
/// - each chunk of a batch (`BatchWriteItem` of up to 25 writes, `BatchGetItem` of up to
///   100 keys): `max_attempts` in all, whether an attempt failed (throttling, a server
///   error, a timeout) or DynamoDB left some of the chunk unprocessed;
/// - each request of the change consumer (`DescribeStream`, `GetShardIterator`,
///   `GetRecords`): `max_attempts`; an iterator that expires `max_attempts` times in a row
///   ends the stream too.
///
/// Both are sent with the SDK's own retries off, so they never multiply with them. Every
/// other request (reads and writes of one item, query and scan pages, transactions, the
/// backfill's requests) is retried by the SDK alone, as its `RetryConfig` says, and never
/// again by dynorm. Planning a write again because another writer changed what it was
/// planned from (a write with `#[unique]` attributes or `#[count]`s, at most 8 plannings;
/// an item a backfill rewrites, at most 5) is not a retry of a failed request: it is
/// bounded on its own, and each request it sends has the SDK's attempts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// Attempts per request, the first included (at least 1).
    pub max_attempts: u32,
    /// The first retry waits a random time up to this long; each retry doubles it.
    pub initial_backoff: Duration,
    /// No retry waits longer than this.
    pub max_backoff: Duration,
}

impl RetryPolicy {
    /// `max_attempts` attempts per request, the first included (at least 1), with the
    /// SDK's standard backoff.
    pub fn new(max_attempts: u32) -> Self {
        Self {
            max_attempts: max_attempts.max(1),
            ..Self::default()
        }
    }

    /// Sets the longest wait before the first retry, and before any retry.
    pub fn backoff(mut self, initial: Duration, max: Duration) -> Self {
        self.initial_backoff = initial;
        self.max_backoff = max;
        self
    }

    /// The policy of an SDK `RetryConfig`: its attempts (1 when its retries are
    /// disabled) and its backoff.
    pub fn from_sdk(config: &RetryConfig) -> Self {
        Self {
            max_attempts: config.max_attempts().max(1),
            initial_backoff: config.initial_backoff(),
            max_backoff: config.max_backoff(),
        }
    }

    /// The waits between attempts.
    pub(crate) fn waits(&self) -> Backoff {
        Backoff {
            base: self.initial_backoff,
            max: self.max_backoff,
        }
    }
}

/// Whether `error` is contention with another writer that the SDK does not retry: a
/// transaction conflict, or a transaction canceled only for conflicts or throttling of
/// its items. A write planned from what it read may be planned again after it, within
/// its bound on plannings, which is not a retry of a failed request. Throttling and
/// server errors of a request are the SDK's to retry, and are not sent again on top.
pub(crate) fn contention(error: &Error) -> bool {
    let sdk_retried = matches!(error.kind(), ErrorKind::Throttled | ErrorKind::Service);
    error.is_retryable() && !sdk_retried
}

impl Default for RetryPolicy {
    /// The SDK's standard policy: 3 attempts, backoff from 1 s up to 20 s.
    fn default() -> Self {
        Self::from_sdk(&RetryConfig::standard())
    }
}

/// Exponential backoff with full jitter, as the SDK's standard retries wait: the wait
/// before retry `attempt` (1 for the first retry) is a random delay in
/// `[0, min(max, base * 2^(attempt - 1))]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Backoff {
    /// The first retry waits up to this long; each retry doubles it.
    pub base: Duration,
    /// No retry waits longer than this.
    pub max: Duration,
}

impl Backoff {
    /// The wait before retry `attempt`.
    pub(crate) fn delay(&self, attempt: u32) -> Duration {
        static STATE: AtomicU64 = AtomicU64::new(0);
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1);
        let mut x = STATE.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed) ^ seed;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let ceiling = self
            .base
            .saturating_mul(1u32 << attempt.saturating_sub(1).min(20))
            .min(self.max);
        let nanos = u64::try_from(ceiling.as_nanos()).unwrap_or(u64::MAX).max(1);
        Duration::from_nanos(x % nanos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_is_bounded_and_jittered() {
        let policy = RetryPolicy::default();
        let backoff = policy.waits();
        assert!(backoff.delay(1) <= policy.initial_backoff);
        for attempt in 1..30 {
            assert!(backoff.delay(attempt) <= policy.max_backoff);
        }
        let delays: std::collections::HashSet<_> = (0..20).map(|_| backoff.delay(5)).collect();
        assert!(delays.len() > 1, "delays vary");
    }

    #[test]
    fn the_default_policy_is_the_sdk_standard_one() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.max_attempts, 3);
        assert_eq!(policy.initial_backoff, Duration::from_secs(1));
        assert_eq!(policy.max_backoff, Duration::from_secs(20));
        assert_eq!(
            RetryPolicy::from_sdk(&RetryConfig::disabled()).max_attempts,
            1
        );
        assert_eq!(RetryPolicy::new(0).max_attempts, 1);
    }
}

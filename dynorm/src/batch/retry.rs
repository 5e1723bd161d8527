//! The one retry policy of dynorm: bounded attempts, exponential backoff with full jitter
//! ([`Backoff`]), and retrying only what throttling or a passing fault explains, as
//! [`Error::is_retryable`] says. Every batch request retries through [`Retry`]; the
//! stream consumer waits the same [`Backoff`] between its own attempts.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};

use super::BatchOptions;
use crate::error::{from_sdk, Error};

/// The attempts of one chunk: how many are left, how long to wait before the next, and
/// the last failure.
pub(super) struct Retry {
    options: BatchOptions,
    attempt: u32,
    last_error: Option<Error>,
}

/// What to do after a failed request.
pub(super) enum AfterFailure {
    /// Try again, after [`Retry::next_attempt`] has waited.
    Retry,
    /// Stop: the failure is not one that retrying can help; this is it.
    GiveUp(Error),
}

impl Retry {
    /// The attempts of one chunk, none made yet.
    pub(super) fn new(options: BatchOptions) -> Self {
        Self {
            options,
            attempt: 0,
            last_error: None,
        }
    }

    /// Whether another attempt may be made. Before every attempt but the first, it waits
    /// the backoff; it says no once `max_attempts` have been made.
    pub(super) async fn next_attempt(&mut self) -> bool {
        if self.attempt >= self.options.max_attempts.max(1) {
            return false;
        }
        if self.attempt > 0 {
            let backoff = Backoff {
                base: self.options.base_delay,
                max: self.options.max_delay,
            };
            tokio::time::sleep(backoff.delay(self.attempt)).await;
        }
        self.attempt += 1;
        true
    }

    /// The attempt being made: 1 for the first.
    pub(super) fn attempt(&self) -> u32 {
        self.attempt
    }

    /// Records a failed request of a batch on `tables`, and on its span: it is retried
    /// when throttling or a passing fault explains it, and ends the chunk otherwise. The
    /// error names the table when the batch has only one.
    pub(super) fn failed<E>(
        &mut self,
        error: SdkError<E, HttpResponse>,
        operation: &'static str,
        tables: &[String],
        span: &tracing::Span,
    ) -> AfterFailure
    where
        E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    {
        let mut error = from_sdk(error).with_operation(operation);
        if let [table] = tables {
            error = error.with_table(table.as_str());
        }
        crate::observe::span::record_error(span, &error);
        if error.is_retryable() {
            self.last_error = Some(error);
            AfterFailure::Retry
        } else {
            AfterFailure::GiveUp(error)
        }
    }

    /// The last failure that is retried, if any.
    pub(super) fn last_error(&self) -> Option<&Error> {
        self.last_error.as_ref()
    }

    /// The last failure, once the attempts have run out.
    pub(super) fn into_last_error(self) -> Option<Error> {
        self.last_error
    }
}

/// Exponential backoff with full jitter: the wait before retry `attempt` (1 for the first
/// retry) is a random delay in `[0, min(max, base * 2^attempt)]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Backoff {
    /// The first retry waits up to twice this long; each retry doubles it.
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
            .saturating_mul(1u32 << attempt.min(20))
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
        let options = BatchOptions::default();
        let backoff = Backoff {
            base: options.base_delay,
            max: options.max_delay,
        };
        for attempt in 1..30 {
            assert!(backoff.delay(attempt) <= options.max_delay);
        }
        let delays: std::collections::HashSet<_> = (0..20).map(|_| backoff.delay(5)).collect();
        assert!(delays.len() > 1, "delays vary");
    }

    #[tokio::test]
    async fn attempts_are_bounded() {
        let options = BatchOptions::default()
            .max_attempts(3)
            .base_delay(Duration::from_millis(1));
        let mut retry = Retry::new(options);
        let mut made = 0;
        while retry.next_attempt().await {
            made += 1;
        }
        assert_eq!(made, 3);
    }
}

//! The attempts of one batch chunk under the client's [`RetryPolicy`] (`error/retry.rs`):
//! how many are left, the backoff before the next, and the last failure.
//!
//! Requests that dynorm sends again itself (a batch chunk, with what DynamoDB left
//! unprocessed, and the stream consumer's requests) are sent with the SDK's retries off
//! (`Client::sdk_once`), so that the policy's `max_attempts` is every HTTP attempt they make, not a
//! factor of the SDK's. Every other request is retried by the SDK alone.

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};

pub use crate::error::retry::RetryPolicy;
use crate::error::{from_sdk, Error};

/// The attempts of one chunk: how many are left, how long to wait before the next, and
/// the last failure.
pub(super) struct Retry {
    policy: RetryPolicy,
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
    /// The attempts of one chunk under `policy`, none made yet.
    pub(super) fn new(policy: RetryPolicy) -> Self {
        Self {
            policy,
            attempt: 0,
            last_error: None,
        }
    }

    /// Whether another attempt may be made. Before every attempt but the first, it waits
    /// the backoff; it says no once `max_attempts` have been made.
    pub(super) async fn next_attempt(&mut self) -> bool {
        if self.attempt >= self.policy.max_attempts.max(1) {
            return false;
        }
        if self.attempt > 0 {
            tokio::time::sleep(self.policy.waits().delay(self.attempt)).await;
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn attempts_are_bounded() {
        let policy =
            RetryPolicy::new(3).backoff(Duration::from_millis(1), Duration::from_millis(1));
        let mut retry = Retry::new(policy);
        let mut made = 0;
        while retry.next_attempt().await {
            made += 1;
        }
        assert_eq!(made, 3);
    }
}

//! Batches that lose nothing: automatic chunking (25 writes or 100 keys per request, and
//! under 16 MB), bounded concurrency, bounded retries of unprocessed items with
//! exponential backoff and jitter, and whatever is still unprocessed handed back in the
//! error.

mod chunks;
mod get;
mod send_chunk;
mod source;
mod write;

pub use get::{BatchGet, BatchGetItems};
pub use write::BatchWrite;

use std::any::TypeId;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::types::WriteRequest;

use crate::client::Client;
use crate::error::{Error, ErrorKind};
use crate::model::{Item, Model};

/// DynamoDB's limit on the writes of one `BatchWriteItem` request.
pub const MAX_BATCH_WRITES: usize = 25;
/// DynamoDB's limit on the keys of one `BatchGetItem` request.
pub const MAX_BATCH_KEYS: usize = 100;

/// How a batch runs.
#[derive(Clone, Copy, Debug)]
pub struct BatchOptions {
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Attempts per chunk, the first included, before its leftovers are returned.
    pub max_attempts: u32,
    /// The first retry waits up to this long; each retry doubles it.
    pub base_delay: Duration,
    /// No retry waits longer than this.
    pub max_delay: Duration,
}

impl Default for BatchOptions {
    fn default() -> Self {
        Self {
            concurrency: 8,
            max_attempts: 10,
            base_delay: Duration::from_millis(25),
            max_delay: Duration::from_secs(3),
        }
    }
}

/// A random delay in `[0, min(max, base * 2^attempt)]`: exponential backoff with full jitter.
fn backoff(options: &BatchOptions, attempt: u32) -> Duration {
    static STATE: AtomicU64 = AtomicU64::new(0);
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1);
    let mut x = STATE.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed) ^ seed;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    let ceiling = options
        .base_delay
        .saturating_mul(1u32 << attempt.min(20))
        .min(options.max_delay);
    let nanos = u64::try_from(ceiling.as_nanos()).unwrap_or(u64::MAX).max(1);
    Duration::from_nanos(x % nanos)
}

/// Whether an error means "slow down and try again".
fn is_retryable<E: ProvideErrorMetadata, R>(error: &SdkError<E, R>) -> bool {
    match error {
        SdkError::ServiceError(e) => matches!(
            e.err().code(),
            Some(
                "ProvisionedThroughputExceededException"
                    | "ThrottlingException"
                    | "RequestLimitExceeded"
                    | "InternalServerError"
                    | "ServiceUnavailable"
            )
        ),
        SdkError::TimeoutError(_) | SdkError::DispatchFailure(_) | SdkError::ResponseError(_) => {
            true
        }
        _ => false,
    }
}

/// What a batch could not do before its attempts ran out, to retry or inspect.
#[derive(Clone, Debug, Default)]
pub struct Unprocessed {
    /// Writes not applied, with their full table names.
    pub writes: Vec<(String, WriteRequest)>,
    /// Keys not read, with their full table names.
    pub keys: Vec<(String, Item)>,
}

impl Unprocessed {
    /// How many writes and keys are left.
    pub fn len(&self) -> usize {
        self.writes.len() + self.keys.len()
    }

    /// Whether nothing is left.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The error of a batch that ran out of attempts: what was done, what is left (in
/// [`Error::unprocessed`]) and the last failure.
fn incomplete(
    operation: &'static str,
    summary: String,
    left: Unprocessed,
    source: Option<Error>,
) -> Error {
    let mut error = Error::new(ErrorKind::BatchIncomplete, summary)
        .with_operation(operation)
        .with_unprocessed(left);
    if let Some(source) = source {
        error = error.with_source(source);
    }
    error
}

/// The full table names of a batch, each kept once; writes and keys refer to them by
/// position, so a batch formats each model's table name once, not once per item.
#[derive(Default)]
struct Tables {
    names: Vec<String>,
    models: Vec<(TypeId, usize)>,
}

impl Tables {
    /// The position of `M`'s table.
    fn of<M: Model>(&mut self, client: &Client) -> usize {
        let model = TypeId::of::<M>();
        if let Some(&(_, index)) = self.models.iter().find(|(m, _)| *m == model) {
            return index;
        }
        let name = client.table_name::<M>();
        let index = match self.names.iter().position(|n| *n == name) {
            Some(index) => index,
            None => {
                self.names.push(name);
                self.names.len() - 1
            }
        };
        self.models.push((model, index));
        index
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_is_bounded_and_jittered() {
        let options = BatchOptions::default();
        for attempt in 1..30 {
            assert!(backoff(&options, attempt) <= options.max_delay);
        }
        let delays: std::collections::HashSet<_> = (0..20).map(|_| backoff(&options, 5)).collect();
        assert!(delays.len() > 1, "delays vary");
    }
}

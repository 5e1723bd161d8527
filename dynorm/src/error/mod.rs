//! dynorm's one public error type, and the plain data some errors carry.
//!
//! Every error has a kind. Errors DynamoDB returns get theirs from its error code, in
//! `service.rs`: `Validation`, `TableNotFound`, `Throttled`, `TransactionConflict`,
//! `TransactionCanceled`, `ItemCollectionTooLarge`, `IdempotencyMismatch`, `IndexNotActive`
//! (a read of an index DynamoDB is still backfilling), and `Service` for server faults,
//! timeouts and the rest; [`Error::is_retryable`] says whether retrying could help.
//! Messages are one line; the SDK error stays the `source()`.
//!
//! This is a leaf of the crate: it knows values, and nothing above them. Helpers that
//! decode an error's item as a model live with the model traits, in `schema`.

mod cancellation;
pub(crate) mod error_type;
pub(crate) mod kind;
pub(crate) mod retry;
pub(crate) mod service;
mod stream_record;
mod throttling;
mod unprocessed;

pub use cancellation::CancellationReason;
pub(crate) use error_type::{Error, Result};
pub(crate) use kind::ErrorKind;
pub(crate) use service::{from_sdk, sdk_error};
pub use stream_record::StreamRecordRef;
pub use throttling::ThrottlingReason;
pub use unprocessed::Unprocessed;

//! Why one operation of a cancelled transaction failed.

use crate::error::ErrorKind;
use crate::value::Item;

/// Why one operation of a cancelled transaction failed, from DynamoDB's structured
/// `CancellationReasons`.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct CancellationReason {
    /// The operation's position in the transaction, from 0.
    pub index: usize,
    /// `create`, `put`, `update`, `delete`, `condition_check` or `transact_get`.
    pub operation: &'static str,
    /// The model the operation touched.
    pub model: &'static str,
    /// DynamoDB's code: `None` for an operation that did not fail, `ConditionalCheckFailed`,
    /// `TransactionConflict`, `ValidationError`, `ItemCollectionSizeLimitExceeded`, ...
    pub code: String,
    /// DynamoDB's message, if any.
    pub message: Option<String>,
    /// For a failed condition, what it means: `AlreadyExists` for a `create`, `NotFound`
    /// for an item that had to exist, `VersionConflict`, or `ConditionFailed`.
    pub kind: Option<ErrorKind>,
    /// The item as stored, for a failed condition.
    pub item: Option<Item>,
}

impl CancellationReason {
    /// Whether this operation caused the cancellation.
    pub fn is_failure(&self) -> bool {
        self.code != "None"
    }
}

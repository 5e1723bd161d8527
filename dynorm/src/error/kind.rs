//! [`ErrorKind`], what kind of failure an [`Error`](super::Error) is, and its label in
//! messages.

/// What kind of failure an [`Error`](crate::Error) is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The item does not exist, where the operation required it.
    NotFound,
    /// `create` found an item with the same key.
    AlreadyExists,
    /// A condition expression failed.
    ConditionFailed,
    /// A `#[version]` check failed: another writer changed the item since it was read.
    VersionConflict,
    /// A `#[unique]` value is held by another item: [`Error::attribute`](crate::Error::attribute) names the
    /// attribute, and [`Error::item`](crate::Error::item) is the key of the item that holds the value.
    UniqueConflict,
    /// A transaction was cancelled; [`Error::cancellation_reasons`](crate::Error::cancellation_reasons) says why, per operation.
    TransactionCanceled,
    /// A batch ran out of attempts; [`Error::unprocessed`](crate::Error::unprocessed) holds what was not done.
    BatchIncomplete,
    /// The request is invalid; found before sending, or reported by DynamoDB
    /// (`ValidationException`).
    Validation,
    /// The table does not exist, or is not active yet (`ResourceNotFoundException`);
    /// [`Error::table`](crate::Error::table) names it.
    TableNotFound,
    /// DynamoDB throttled the request (`ProvisionedThroughputExceededException`,
    /// `ThrottlingException`, `RequestLimitExceeded`), after the SDK's own retries;
    /// [`Error::throttling_reasons`](crate::Error::throttling_reasons) says why, when DynamoDB did.
    Throttled,
    /// Another transaction was changing the item at the same time
    /// (`TransactionConflictException`); retrying can succeed.
    TransactionConflict,
    /// An item collection (the items of one partition key value, with its local secondary
    /// indexes) would exceed 10 GB (`ItemCollectionSizeLimitExceededException`).
    ItemCollectionTooLarge,
    /// A transaction's client request token was used before for a different request
    /// (`IdempotentParameterMismatchException`).
    IdempotencyMismatch,
    /// An item read from DynamoDB could not be converted to the model (a value that
    /// cannot be stored is a `Validation` error, found before sending).
    Conversion,
    /// The model, the client or the table is set up wrongly.
    Config,
    /// Records of a change stream were removed (streams keep them 24 hours) before the
    /// consumer read them (`TrimmedDataAccessException`): they are lost to it, and it does
    /// not skip them silently.
    StreamTrimmed,
    /// A query or scan named a secondary index that cannot be read yet: this client is
    /// still creating it (`db.tables().create_index`), found before sending, or DynamoDB is
    /// still backfilling it ("Cannot read from backfilling global secondary index").
    /// [`Error::index`](crate::Error::index) names it; retrying once the index is active succeeds.
    IndexNotActive,
    /// DynamoDB or the transport failed otherwise: a server fault (HTTP 5xx), a timeout, a
    /// connection that failed, or an error code dynorm gives no kind of its own;
    /// [`source()`](std::error::Error::source) is the SDK error.
    Service,
}

impl ErrorKind {
    pub(super) fn label(self) -> &'static str {
        match self {
            Self::NotFound => "not found",
            Self::AlreadyExists => "already exists",
            Self::ConditionFailed => "condition failed",
            Self::VersionConflict => "version conflict",
            Self::UniqueConflict => "unique conflict",
            Self::TransactionCanceled => "transaction canceled",
            Self::BatchIncomplete => "batch incomplete",
            Self::Validation => "validation error",
            Self::TableNotFound => "table not found",
            Self::Throttled => "throttled",
            Self::TransactionConflict => "transaction conflict",
            Self::ItemCollectionTooLarge => "item collection too large",
            Self::IdempotencyMismatch => "idempotency mismatch",
            Self::Conversion => "conversion error",
            Self::Config => "configuration error",
            Self::StreamTrimmed => "stream trimmed",
            Self::IndexNotActive => "index not active",
            Self::Service => "service error",
        }
    }
}

//! Why DynamoDB throttled a request.

/// Why DynamoDB throttled a request, from the `ThrottlingReasons` of a throttling error,
/// when the response has them.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ThrottlingReason {
    /// What was throttled, which operation and which limit, as
    /// `ResourceType` + `OperationType` + `LimitType`: `TableReadProvisionedThroughputExceeded`,
    /// `IndexWriteAccountLimitExceeded`, `TableWriteKeyRangeThroughputExceeded`, ... Empty
    /// when DynamoDB did not say.
    pub reason: String,
    /// The ARN of the table or index that was throttled, if DynamoDB said.
    pub resource: Option<String>,
}

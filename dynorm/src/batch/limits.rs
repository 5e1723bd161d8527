//! DynamoDB's limits on one batch request: the writes of a `BatchWriteItem`, the keys of a
//! `BatchGetItem`.

/// DynamoDB's limit on the writes of one `BatchWriteItem` request.
pub const MAX_BATCH_WRITES: usize = 25;
/// DynamoDB's limit on the keys of one `BatchGetItem` request.
pub const MAX_BATCH_KEYS: usize = 100;

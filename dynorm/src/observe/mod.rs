//! Seeing what dynorm does and what it costs: one `tracing` span per request sent, the
//! capacity DynamoDB says a request consumed, and the counts of a page.
//!
//! Spans are named `DynamoDB.<Operation>` (`DynamoDB.GetItem`, `DynamoDB.Query`, ...) at
//! level `INFO` under the target `dynorm`, with fields named after OpenTelemetry's
//! semantic conventions for DynamoDB (`db.system.name`, `db.operation.name`,
//! `aws.dynamodb.table_names`, `aws.dynamodb.consumed_capacity`, ...) plus `dynorm.model`,
//! `dynorm.attempt` and `error.type`. They never hold an item value or a key value.
//! Without a subscriber, a span is not built at all and its fields are not computed.

pub(crate) mod capacity;
pub(crate) mod limiter;
mod predict;
pub(crate) mod request;
pub(crate) mod span;

pub(crate) use capacity::{report_setters, Metadata, Reporting};
pub use capacity::{Capacity, Tally};
pub(crate) use limiter::units;
pub use limiter::RateLimiter;
pub(crate) use predict::{reads, writes};
pub use predict::{Predicted, Units};
pub(crate) use request::request;

/// An item's size as DynamoDB counts it for capacity and for its 400 KB limit: each
/// attribute's name and value (strings and binary by their bytes, numbers about one byte
/// per two significant digits plus one, lists and maps three bytes plus one per element).
/// In bytes, as `max_item_bytes` takes them.
pub fn item_size(item: &crate::value::Item) -> u32 {
    u32::try_from(crate::value::limits::item_size(item)).unwrap_or(u32::MAX)
}

//! The span of one request: made by `request_span!` where the request is sent, and filled
//! in by the functions here once the response is back.
//!
//! `tracing` builds a span, and evaluates its fields, only when a subscriber wants it: with
//! none, `request_span!` is one relaxed atomic load and gives `Span::none()`, and every
//! `record_*` function returns at once.

use aws_sdk_dynamodb::types::ConsumedCapacity;
use tracing::Span;

use crate::error::Error;

/// The span of one request: `request_span!("GetItem", model, tables, more fields...)`.
/// Fields recorded later are declared here as `Empty`, as `tracing` requires.
macro_rules! request_span {
    ($operation:literal, $model:expr, $tables:expr $(, $($field:tt)*)?) => {
        ::tracing::info_span!(
            target: "dynorm",
            concat!("DynamoDB.", $operation),
            "otel.name" = concat!("DynamoDB.", $operation),
            "otel.kind" = "client",
            "otel.status_code" = ::tracing::field::Empty,
            "db.system.name" = "aws.dynamodb",
            "db.operation.name" = $operation,
            "aws.dynamodb.table_names" = $tables,
            "dynorm.model" = $model,
            "aws.dynamodb.consumed_capacity" = ::tracing::field::Empty,
            "dynorm.capacity_units" = ::tracing::field::Empty,
            "error.type" = ::tracing::field::Empty,
            $($($field)*)?
        )
    };
}

pub(crate) use request_span;

/// Records the capacity DynamoDB returned: `aws.dynamodb.consumed_capacity` as the
/// conventions want it (each entry as JSON), and `dynorm.capacity_units`, their sum.
pub(crate) fn record_capacity<'a>(
    span: &Span,
    entries: impl IntoIterator<Item = &'a ConsumedCapacity>,
) {
    if span.is_disabled() {
        return;
    }
    let mut json = Vec::new();
    let mut units = 0.0;
    for entry in entries {
        units += entry.capacity_units().unwrap_or(0.0);
        json.push(capacity_json(entry));
    }
    if json.is_empty() {
        return;
    }
    span.record(
        "aws.dynamodb.consumed_capacity",
        serde_json::Value::Array(json).to_string(),
    );
    span.record("dynorm.capacity_units", units);
}

/// One `ConsumedCapacity` as DynamoDB's JSON names it.
fn capacity_json(entry: &ConsumedCapacity) -> serde_json::Value {
    use serde_json::{Map, Value};
    fn units(
        total: Option<f64>,
        read: Option<f64>,
        write: Option<f64>,
        into: &mut Map<String, Value>,
    ) {
        for (name, value) in [
            ("CapacityUnits", total),
            ("ReadCapacityUnits", read),
            ("WriteCapacityUnits", write),
        ] {
            if let Some(value) = value {
                into.insert(name.to_owned(), value.into());
            }
        }
    }
    fn capacity(c: &aws_sdk_dynamodb::types::Capacity) -> Value {
        let mut map = Map::new();
        units(
            c.capacity_units(),
            c.read_capacity_units(),
            c.write_capacity_units(),
            &mut map,
        );
        Value::Object(map)
    }
    let mut map = Map::new();
    if let Some(table) = entry.table_name() {
        map.insert("TableName".to_owned(), table.into());
    }
    units(
        entry.capacity_units(),
        entry.read_capacity_units(),
        entry.write_capacity_units(),
        &mut map,
    );
    if let Some(table) = entry.table() {
        map.insert("Table".to_owned(), capacity(table));
    }
    for (name, indexes) in [
        ("GlobalSecondaryIndexes", entry.global_secondary_indexes()),
        ("LocalSecondaryIndexes", entry.local_secondary_indexes()),
    ] {
        if let Some(indexes) = indexes {
            let indexes = indexes
                .iter()
                .map(|(index, c)| (index.clone(), capacity(c)))
                .collect();
            map.insert(name.to_owned(), Value::Object(indexes));
        }
    }
    Value::Object(map)
}

/// Records a failed request: `error.type` is the [`ErrorKind`](crate::ErrorKind).
pub(crate) fn record_error(span: &Span, error: &Error) {
    if span.is_disabled() {
        return;
    }
    span.record("error.type", tracing::field::debug(error.kind()));
    span.record("otel.status_code", "ERROR");
}

/// Records `dynorm.model` and `aws.dynamodb.table_names` of a request that touches
/// several models or tables, declared `Empty` in `request_span!`: they are joined only
/// when a subscriber wants the span. (A field given to `request_span!` is computed even for
/// a disabled span when `tracing`'s `log` feature is on and no subscriber is set.)
pub(crate) fn record_names(
    span: &Span,
    models: impl FnOnce() -> String,
    tables: impl FnOnce() -> String,
) {
    if span.is_disabled() {
        return;
    }
    span.record("dynorm.model", models());
    span.record("aws.dynamodb.table_names", tables());
}

/// The table names of a request that touches several, joined with `,` in the order given,
/// each once.
pub(crate) fn joined<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for name in names {
        if !seen.contains(&name) {
            seen.push(name);
        }
    }
    seen.join(",")
}

//! The span of one request: made by `request_span!` where the request is sent, and filled
//! in by the functions here once the response is back.
//!
//! `tracing` builds a span, and evaluates its fields, only when a subscriber wants it: with
//! none, `request_span!` is one relaxed atomic load and gives `Span::none()`, and every
//! `record_*` function returns at once.

use std::fmt::Write;

use aws_sdk_dynamodb::types::ConsumedCapacity;
use tracing::Span;

use crate::error::Error;

/// The span of one request: `request_span!("GetItem", model, tables, more fields...)`.
/// Fields recorded later are declared here as `Empty`, as `tracing` requires. Exported,
/// hidden, for the satellite crates (through `__ext::observe::span`).
#[doc(hidden)]
#[macro_export]
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
/// Nothing is rendered unless a subscriber wants the span.
pub(crate) fn record_capacity<'a>(
    span: &Span,
    entries: impl IntoIterator<Item = &'a ConsumedCapacity>,
) {
    if span.is_disabled() {
        return;
    }
    let mut json = String::new();
    let mut units = 0.0;
    for entry in entries {
        units += entry.capacity_units().unwrap_or(0.0);
        json.push(if json.is_empty() { '[' } else { ',' });
        capacity_json(entry, &mut json);
    }
    if json.is_empty() {
        return;
    }
    json.push(']');
    span.record("aws.dynamodb.consumed_capacity", json);
    span.record("dynorm.capacity_units", units);
}

/// One `ConsumedCapacity` as DynamoDB's JSON names it, written by hand: the few shapes
/// here do not need a JSON library in every binary that sends a request.
fn capacity_json(entry: &ConsumedCapacity, out: &mut String) {
    let mut object = JsonObject::new(out);
    if let Some(table) = entry.table_name() {
        object.key("TableName");
        json_string(object.out, table);
    }
    units(
        &mut object,
        entry.capacity_units(),
        entry.read_capacity_units(),
        entry.write_capacity_units(),
    );
    if let Some(table) = entry.table() {
        object.key("Table");
        capacity(object.out, table);
    }
    for (name, indexes) in [
        ("LocalSecondaryIndexes", entry.local_secondary_indexes()),
        ("GlobalSecondaryIndexes", entry.global_secondary_indexes()),
    ] {
        if let Some(indexes) = indexes {
            object.key(name);
            let mut names: Vec<&String> = indexes.keys().collect();
            names.sort();
            let mut inner = JsonObject::new(object.out);
            for index in names {
                inner.key(index);
                capacity(inner.out, &indexes[index]);
            }
            inner.end();
        }
    }
    object.end();
}

fn capacity(out: &mut String, c: &aws_sdk_dynamodb::types::Capacity) {
    let mut object = JsonObject::new(out);
    units(
        &mut object,
        c.capacity_units(),
        c.read_capacity_units(),
        c.write_capacity_units(),
    );
    object.end();
}

fn units(object: &mut JsonObject<'_>, total: Option<f64>, read: Option<f64>, write: Option<f64>) {
    for (name, value) in [
        ("CapacityUnits", total),
        ("ReadCapacityUnits", read),
        ("WriteCapacityUnits", write),
    ] {
        // JSON has no NaN or infinity; DynamoDB sends neither.
        if let Some(value) = value.filter(|v| v.is_finite()) {
            object.key(name);
            // `{}` of an f64 is a JSON number without an exponent; `.0` keeps a whole
            // number a float, as DynamoDB and serde_json write it (`1.0`).
            let start = object.out.len();
            let _ = write!(object.out, "{value}");
            if !object.out[start..].contains('.') {
                object.out.push_str(".0");
            }
        }
    }
}

/// A JSON object being written: `{`, then `"key":` before each value, then `}`.
struct JsonObject<'a> {
    out: &'a mut String,
    empty: bool,
}

impl<'a> JsonObject<'a> {
    fn new(out: &'a mut String) -> Self {
        out.push('{');
        Self { out, empty: true }
    }

    fn key(&mut self, key: &str) {
        if !self.empty {
            self.out.push(',');
        }
        self.empty = false;
        json_string(self.out, key);
        self.out.push(':');
    }

    fn end(self) {
        self.out.push('}');
    }
}

/// `text` as a JSON string.
fn json_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Records a failed request: `error.type` is the [`ErrorKind`](crate::ErrorKind).
pub fn record_error(span: &Span, error: &Error) {
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

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::types::{Capacity, ConsumedCapacity};
    use serde_json::json;

    fn rendered(entry: &ConsumedCapacity) -> serde_json::Value {
        let mut out = String::new();
        super::capacity_json(entry, &mut out);
        serde_json::from_str(&out).expect("valid JSON")
    }

    #[test]
    fn capacity_is_written_as_dynamodb_names_it() {
        let units = |total, read, write| {
            Capacity::builder()
                .capacity_units(total)
                .read_capacity_units(read)
                .write_capacity_units(write)
                .build()
        };
        let entry = ConsumedCapacity::builder()
            .table_name("dev_\"Orders\"\\\n")
            .capacity_units(3.5)
            .write_capacity_units(3.0)
            .table(units(1.0, 0.0, 1.0))
            .global_secondary_indexes("GSI2", units(1.5, 0.5, 1.0))
            .global_secondary_indexes("GSI1", units(1.0, 0.0, 1.0))
            .local_secondary_indexes("LSI1", Capacity::builder().capacity_units(0.5).build())
            .build();
        assert_eq!(
            rendered(&entry),
            json!({
                "TableName": "dev_\"Orders\"\\\n",
                "CapacityUnits": 3.5,
                "WriteCapacityUnits": 3.0,
                "Table": {"CapacityUnits": 1.0, "ReadCapacityUnits": 0.0, "WriteCapacityUnits": 1.0},
                "GlobalSecondaryIndexes": {
                    "GSI1": {"CapacityUnits": 1.0, "ReadCapacityUnits": 0.0, "WriteCapacityUnits": 1.0},
                    "GSI2": {"CapacityUnits": 1.5, "ReadCapacityUnits": 0.5, "WriteCapacityUnits": 1.0},
                },
                "LocalSecondaryIndexes": {"LSI1": {"CapacityUnits": 0.5}},
            })
        );
        let mut out = String::new();
        super::capacity_json(&ConsumedCapacity::builder().build(), &mut out);
        assert_eq!(out, "{}");
        let mut out = String::new();
        super::capacity_json(
            &ConsumedCapacity::builder()
                .table_name("T")
                .capacity_units(1e21)
                .read_capacity_units(0.1)
                .build(),
            &mut out,
        );
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&out).unwrap(),
            json!({"TableName": "T", "CapacityUnits": 1e21, "ReadCapacityUnits": 0.1})
        );
    }
}

//! The differences between models and their live table: keys, key attribute types,
//! indexes and their projections, the stream, time to live and billing, each listed.

use std::fmt;

use aws_sdk_dynamodb::types::{
    BillingMode, KeySchemaElement, Projection as SdkProjection, ProjectionType, TableDescription,
    TimeToLiveDescription, TimeToLiveStatus,
};

use crate::error::{Error, Result};
use crate::schema::table_definition::{key_schema, projection};
use crate::schema::{IndexKind, IndexSchema, Schema, StreamView};

/// What a [`Difference`] between a model and its live table is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DifferenceKind {
    /// The table does not exist.
    MissingTable,
    /// The table's or an index's key schema.
    KeySchema,
    /// The type of a key attribute (S, N or B).
    AttributeType,
    /// An index the model declares is not on the table.
    MissingIndex,
    /// An index is global on one side and local on the other.
    IndexKind,
    /// An index projects other attributes than the model declares.
    Projection,
    /// A global index on the table that none of the table's models declares.
    ExtraIndex,
    /// The stream is missing, or has another view type.
    Stream,
    /// Time to live is off, or on another attribute than the model's `#[ttl]`.
    TimeToLive,
    /// The table is not billed on demand (`PAY_PER_REQUEST`), as dynorm creates it.
    Billing,
}

/// One difference between a model and its live table.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Difference {
    /// What it is about.
    pub kind: DifferenceKind,
    /// The full table name.
    pub table: String,
    /// The index it is about, when it is about one.
    pub index: Option<String>,
    /// The attribute it is about, when it is about one.
    pub attribute: Option<&'static str>,
    /// What differs, in words.
    pub message: String,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "table `{}`: {}", self.table, self.message)
    }
}

/// The one difference of a table that does not exist.
pub fn missing_table(name: &str) -> Difference {
    Difference {
        kind: DifferenceKind::MissingTable,
        table: name.to_owned(),
        index: None,
        attribute: None,
        message: "the table does not exist".to_owned(),
    }
}

/// What dynorm reads of a live table: its description, and its time to live (read only
/// when a model has a `#[ttl]`).
pub(crate) struct LiveTable<'a> {
    pub description: &'a TableDescription,
    pub ttl: Option<&'a TimeToLiveDescription>,
}

/// Every difference between the live table `name` and the models `schemas` that share it.
/// An index that one model declares and the table lacks is listed once; with
/// `extra_indexes`, global indexes that no model of `schemas` declares are listed too
/// (without it, a table shared with models not given may hold other indexes).
pub(crate) fn differences(
    schemas: &[&Schema],
    name: &str,
    live: &LiveTable<'_>,
    extra_indexes: bool,
) -> Vec<Difference> {
    let mut drift = Drift {
        table: name,
        found: Vec::new(),
    };
    for schema in schemas {
        compare_schema(&mut drift, schema, live.description);
        compare_stream(&mut drift, schema.stream, live.description);
        compare_ttl(&mut drift, schema.ttl, live.ttl);
    }
    compare_billing(&mut drift, live.description);
    if extra_indexes {
        for index in live.description.global_secondary_indexes() {
            let Some(index_name) = index.index_name() else {
                continue;
            };
            let declared = schemas
                .iter()
                .any(|s| s.indexes.iter().any(|i| i.name == index_name));
            if !declared {
                drift.push(
                    DifferenceKind::ExtraIndex,
                    Some(index_name),
                    None,
                    format!(
                        "global index `{index_name}` is on the table, and no model declares it"
                    ),
                );
            }
        }
    }
    drift.found
}

/// One error that lists every difference, naming the first one's attribute; `Ok` when
/// there is none.
pub(crate) fn into_result(name: &str, found: Vec<Difference>) -> Result<()> {
    let Some(first) = found.first() else {
        return Ok(());
    };
    let attribute = first.attribute;
    let count = found.len();
    let listed: Vec<String> = found.into_iter().map(|d| d.message).collect();
    let noun = if count == 1 {
        "difference"
    } else {
        "differences"
    };
    let mut error = Error::config(format!(
        "table `{name}` differs from the model ({count} {noun}): {}",
        listed.join("; ")
    ));
    if let Some(attribute) = attribute {
        error = error.with_attribute(attribute);
    }
    Err(error)
}

/// The differences found so far, each once.
struct Drift<'a> {
    table: &'a str,
    found: Vec<Difference>,
}

impl Drift<'_> {
    fn push(
        &mut self,
        kind: DifferenceKind,
        index: Option<&str>,
        attribute: Option<&'static str>,
        message: String,
    ) {
        // Models that share a table share its keys and often its indexes: each once.
        if self.found.iter().all(|d| d.message != message) {
            self.found.push(Difference {
                kind,
                table: self.table.to_owned(),
                index: index.map(str::to_owned),
                attribute,
                message,
            });
        }
    }

    /// Whether a difference already names this text (an attribute is reported once).
    fn mentions(&self, text: &str) -> bool {
        self.found.iter().any(|d| d.message.contains(text))
    }
}

/// The table's keys, each index the model declares, and its key attributes' types.
fn compare_schema(drift: &mut Drift<'_>, schema: &Schema, table: &TableDescription) {
    let table_index = schema.table_index();
    compare_keys(drift, "the table", &table_index, table.key_schema());
    for index in schema.indexes {
        let global = table
            .global_secondary_indexes()
            .iter()
            .find(|g| g.index_name() == Some(index.name))
            .map(|g| (IndexKind::Global, g.key_schema(), g.projection()));
        let local = table
            .local_secondary_indexes()
            .iter()
            .find(|l| l.index_name() == Some(index.name))
            .map(|l| (IndexKind::Local, l.key_schema(), l.projection()));
        let what = format!("index `{}`", index.name);
        match global.or(local) {
            None => drift.push(
                DifferenceKind::MissingIndex,
                Some(index.name),
                index.hash_key.first().map(|k| k.name),
                format!("{what} is missing"),
            ),
            Some((kind, keys, live_projection)) => {
                if kind != index.kind {
                    drift.push(
                        DifferenceKind::IndexKind,
                        Some(index.name),
                        None,
                        format!("{what} is {kind:?}, the model declares {:?}", index.kind),
                    );
                }
                compare_keys(drift, &what, index, keys);
                compare_projection(drift, &what, index, live_projection);
            }
        }
    }
    for attribute in schema.key_attributes().chain(
        schema
            .indexes
            .iter()
            .flat_map(|i| i.hash_key.iter().chain(i.range_key)),
    ) {
        let defined = table
            .attribute_definitions()
            .iter()
            .find(|d| d.attribute_name() == attribute.name)
            .map(|d| d.attribute_type().clone());
        // An attribute the table does not define at all comes with a key schema or a
        // missing index, already reported; a type is reported once per attribute.
        let wanted = attribute.scalar.to_sdk();
        let shown = format!("`{}`", attribute.name);
        match defined {
            Some(defined) if defined != wanted && !drift.mentions(&shown) => drift.push(
                DifferenceKind::AttributeType,
                None,
                Some(attribute.name),
                format!("the table defines {shown} as {defined}, the model needs {wanted}"),
            ),
            _ => {}
        }
    }
}

/// Compares a live key schema with a table's or an index's keys.
fn compare_keys(drift: &mut Drift<'_>, what: &str, index: &IndexSchema, live: &[KeySchemaElement]) {
    let wanted = key_schema(index);
    let names = |elements: &[KeySchemaElement]| -> Vec<String> {
        elements
            .iter()
            .map(|k| format!("{} {}", k.attribute_name(), k.key_type()))
            .collect()
    };
    if names(&wanted) != names(live) {
        drift.push(
            DifferenceKind::KeySchema,
            index.request_name(),
            index.hash_key.first().map(|k| k.name),
            format!(
                "{what} has the key schema [{}], the model declares [{}]",
                names(live).join(", "),
                names(&wanted).join(", ")
            ),
        );
    }
}

/// Compares a live index projection with the one the model declares.
fn compare_projection(
    drift: &mut Drift<'_>,
    what: &str,
    index: &IndexSchema,
    live: Option<&SdkProjection>,
) {
    let wanted = projection(index);
    let describe = |p: Option<&SdkProjection>| -> String {
        let Some(p) = p else {
            return "none".to_owned();
        };
        let mut attributes: Vec<&str> = p.non_key_attributes().iter().map(String::as_str).collect();
        attributes.sort_unstable();
        match p.projection_type() {
            Some(ProjectionType::Include) => format!("INCLUDE [{}]", attributes.join(", ")),
            Some(other) => other.as_str().to_owned(),
            None => "none".to_owned(),
        }
    };
    let (live, wanted) = (describe(live), describe(Some(&wanted)));
    if live != wanted {
        drift.push(
            DifferenceKind::Projection,
            Some(index.name),
            None,
            format!("{what} projects {live}, the model declares {wanted}"),
        );
    }
}

/// Checks a live table's stream against the view type the model declares. A table with a
/// stream the model does not declare is fine; a missing stream or another view is not.
fn compare_stream(drift: &mut Drift<'_>, wanted: Option<StreamView>, table: &TableDescription) {
    let Some(wanted) = wanted else {
        return;
    };
    let live = table
        .stream_specification()
        .filter(|s| s.stream_enabled())
        .map(|s| {
            s.stream_view_type()
                .and_then(|v| StreamView::from_name(v.as_str()))
        });
    let message = match live {
        None => format!(
            "the table has no stream, the model declares a {wanted} stream \
             (`db.tables().enable_stream` turns it on)"
        ),
        Some(Some(view)) if view == wanted => return,
        Some(view) => format!(
            "the table has a {} stream, the model declares {wanted}",
            view.map_or_else(|| "stream of an unknown view".to_owned(), |v| v.to_string())
        ),
    };
    drift.push(DifferenceKind::Stream, None, None, message);
}

/// Checks the table's time to live against the model's `#[ttl]` attribute. A table with
/// time to live the model does not use is fine.
fn compare_ttl(
    drift: &mut Drift<'_>,
    wanted: Option<&'static str>,
    live: Option<&TimeToLiveDescription>,
) {
    let Some(wanted) = wanted else {
        return;
    };
    let status = live.and_then(TimeToLiveDescription::time_to_live_status);
    let on = matches!(
        status,
        Some(TimeToLiveStatus::Enabled | TimeToLiveStatus::Enabling)
    );
    let attribute = live.and_then(TimeToLiveDescription::attribute_name);
    let message = match (on, attribute) {
        (true, Some(attribute)) if attribute == wanted => return,
        (true, Some(attribute)) => format!(
            "time to live is on attribute `{attribute}`, the model's #[ttl] is `{wanted}`"
        ),
        _ => format!(
            "time to live is off, the model's #[ttl] is `{wanted}` (`db.tables().enable_ttl` turns it on)"
        ),
    };
    drift.push(DifferenceKind::TimeToLive, None, Some(wanted), message);
}

/// Checks that the table is billed on demand, as `create_table_input` makes it. A table
/// that says nothing of its billing, with no provisioned capacity, is on demand.
fn compare_billing(drift: &mut Drift<'_>, table: &TableDescription) {
    let provisioned = table
        .provisioned_throughput()
        .and_then(|p| p.read_capacity_units())
        .is_some_and(|units| units > 0);
    let mode = table
        .billing_mode_summary()
        .and_then(|b| b.billing_mode())
        .cloned()
        .unwrap_or(if provisioned {
            BillingMode::Provisioned
        } else {
            BillingMode::PayPerRequest
        });
    if mode != BillingMode::PayPerRequest {
        drift.push(
            DifferenceKind::Billing,
            None,
            None,
            format!("the table is billed {mode}, the model's table is PAY_PER_REQUEST"),
        );
    }
}

//! `export`: the tables as CloudFormation, Terraform JSON or a NoSQL Workbench data
//! model, each made from the `CreateTable` input that `create_table_input` makes.

use aws_sdk_dynamodb::operation::create_table::CreateTableInput;
use aws_sdk_dynamodb::types::{KeySchemaElement, KeyType, Projection};
use serde_json::{json, Map, Value};

use crate::cli::args::Format;
use crate::cli::registry::Tables;
use dynorm::__ext::schema::table_definition;

/// Every table, in `format`.
pub(crate) fn run(tables: &Tables<'_>, format: Format) -> String {
    let defined: Vec<(CreateTableInput, Option<&str>)> = tables
        .0
        .iter()
        .map(|table| (table.input(), table.ttl()))
        .collect();
    let document = match format {
        Format::Cloudformation => cloudformation(&defined),
        Format::Terraform => terraform(&defined),
        Format::Workbench => workbench(&defined),
    };
    serde_json::to_string_pretty(&document).unwrap_or_default()
}

/// A name made of letters and digits only, as CloudFormation's logical ids and
/// Terraform's resource names want.
fn identifier(table: &str) -> String {
    let id: String = table.chars().filter(char::is_ascii_alphanumeric).collect();
    if id.starts_with(|c: char| c.is_ascii_alphabetic()) {
        id
    } else {
        format!("T{id}")
    }
}

fn definitions(input: &CreateTableInput) -> Vec<(&str, &str)> {
    input
        .attribute_definitions()
        .iter()
        .map(|d| (d.attribute_name(), d.attribute_type().as_str()))
        .collect()
}

/// An AWS CloudFormation template with one `AWS::DynamoDB::Table` per table: the
/// `CreateTable` input's fields, which CloudFormation names alike, but for the stream
/// (its view only) and time to live.
fn cloudformation(tables: &[(CreateTableInput, Option<&str>)]) -> Value {
    let mut resources = Map::new();
    for (input, ttl) in tables {
        let mut properties = table_definition::cli_json(input);
        if let Some(fields) = properties.as_object_mut() {
            if let Some(Value::Object(stream)) = fields.get_mut("StreamSpecification") {
                stream.remove("StreamEnabled");
            }
            if let Some(attribute) = ttl {
                fields.insert(
                    "TimeToLiveSpecification".into(),
                    json!({"AttributeName": attribute, "Enabled": true}),
                );
            }
        }
        resources.insert(
            identifier(input.table_name().unwrap_or_default()),
            json!({"Type": "AWS::DynamoDB::Table", "Properties": properties}),
        );
    }
    json!({"AWSTemplateFormatVersion": "2010-09-09", "Resources": resources})
}

/// The hash and range attributes of a key schema (several for a multi-attribute key).
fn split(keys: &[KeySchemaElement]) -> (Vec<&str>, Vec<&str>) {
    let of = |kind: KeyType| {
        keys.iter()
            .filter(|k| *k.key_type() == kind)
            .map(KeySchemaElement::attribute_name)
            .collect::<Vec<_>>()
    };
    (of(KeyType::Hash), of(KeyType::Range))
}

/// A Terraform index block: `hash_key`/`range_key`, or `key_schema` blocks for a
/// multi-attribute key.
fn tf_index(name: &str, keys: &[KeySchemaElement], projection: Option<&Projection>) -> Value {
    let mut out = Map::new();
    out.insert("name".into(), json!(name));
    let (hash, range) = split(keys);
    if hash.len() > 1 || range.len() > 1 {
        let blocks: Vec<Value> = keys
            .iter()
            .map(|k| json!({"attribute_name": k.attribute_name(), "key_type": k.key_type().as_str()}))
            .collect();
        out.insert("key_schema".into(), blocks.into());
    } else {
        out.insert("hash_key".into(), json!(hash.first()));
        if let Some(range) = range.first() {
            out.insert("range_key".into(), json!(range));
        }
    }
    if let Some(p) = projection {
        if let Some(kind) = p.projection_type() {
            out.insert("projection_type".into(), json!(kind.as_str()));
        }
        if !p.non_key_attributes().is_empty() {
            out.insert("non_key_attributes".into(), json!(p.non_key_attributes()));
        }
    }
    Value::Object(out)
}

/// Terraform JSON: one `aws_dynamodb_table` resource per table.
fn terraform(tables: &[(CreateTableInput, Option<&str>)]) -> Value {
    let mut resources = Map::new();
    for (input, ttl) in tables {
        let mut table = Map::new();
        table.insert("name".into(), json!(input.table_name()));
        if let Some(mode) = input.billing_mode() {
            table.insert("billing_mode".into(), json!(mode.as_str()));
        }
        let (hash, range) = split(input.key_schema());
        table.insert("hash_key".into(), json!(hash.first()));
        if let Some(range) = range.first() {
            table.insert("range_key".into(), json!(range));
        }
        table.insert(
            "attribute".into(),
            definitions(input)
                .into_iter()
                .map(|(name, kind)| json!({"name": name, "type": kind}))
                .collect(),
        );
        let globals: Vec<Value> = input
            .global_secondary_indexes()
            .iter()
            .map(|g| tf_index(g.index_name(), g.key_schema(), g.projection()))
            .collect();
        if !globals.is_empty() {
            table.insert("global_secondary_index".into(), globals.into());
        }
        let locals: Vec<Value> = input
            .local_secondary_indexes()
            .iter()
            .map(|l| {
                let (_, range) = split(l.key_schema());
                let mut index = tf_index(l.index_name(), l.key_schema(), l.projection());
                if let Value::Object(fields) = &mut index {
                    // A local index shares the table's hash key; Terraform names only
                    // its range key.
                    fields.remove("hash_key");
                    fields.insert("range_key".into(), json!(range.first()));
                }
                index
            })
            .collect();
        if !locals.is_empty() {
            table.insert("local_secondary_index".into(), locals.into());
        }
        if let Some(view) = input
            .stream_specification()
            .and_then(|s| s.stream_view_type())
        {
            table.insert("stream_enabled".into(), json!(true));
            table.insert("stream_view_type".into(), json!(view.as_str()));
        }
        if let Some(attribute) = ttl {
            table.insert(
                "ttl".into(),
                json!({"attribute_name": attribute, "enabled": true}),
            );
        }
        resources.insert(
            identifier(input.table_name().unwrap_or_default()),
            Value::Object(table),
        );
    }
    json!({"resource": {"aws_dynamodb_table": resources}})
}

/// A key in NoSQL Workbench's form: the partition and sort key attributes with types.
fn workbench_keys(keys: &[KeySchemaElement], input: &CreateTableInput) -> Value {
    let typed = |name: &str| {
        let kind = definitions(input)
            .into_iter()
            .find(|(n, _)| *n == name)
            .map_or("S", |(_, kind)| kind);
        json!({"AttributeName": name, "AttributeType": kind})
    };
    let (hash, range) = split(keys);
    let mut out = Map::new();
    if let Some(hash) = hash.first() {
        out.insert("PartitionKey".into(), typed(hash));
    }
    if let Some(range) = range.first() {
        out.insert("SortKey".into(), typed(range));
    }
    Value::Object(out)
}

/// A NoSQL Workbench data model: each table with its keys, the key attributes of its
/// indexes, and its indexes.
fn workbench(tables: &[(CreateTableInput, Option<&str>)]) -> Value {
    let model: Vec<Value> = tables
        .iter()
        .map(|(input, _)| {
            let table_keys: Vec<&str> = input
                .key_schema()
                .iter()
                .map(KeySchemaElement::attribute_name)
                .collect();
            let non_key: Vec<Value> = definitions(input)
                .into_iter()
                .filter(|(name, _)| !table_keys.contains(name))
                .map(|(name, kind)| json!({"AttributeName": name, "AttributeType": kind}))
                .collect();
            let globals: Vec<Value> = input
                .global_secondary_indexes()
                .iter()
                .map(|g| json!({"IndexName": g.index_name(), "KeyAttributes": workbench_keys(g.key_schema(), input), "Projection": table_definition::projection_json(g.projection())}))
                .collect();
            json!({
                "TableName": input.table_name(),
                "KeyAttributes": workbench_keys(input.key_schema(), input),
                "NonKeyAttributes": non_key,
                "GlobalSecondaryIndexes": globals,
                "TableData": [],
                "BillingMode": input.billing_mode().map(|m| m.as_str()),
            })
        })
        .collect();
    json!({
        "ModelName": "dynorm",
        "ModelMetadata": {
            "Author": "dynorm",
            "Description": "The tables of the application's models",
            "AWSService": "Amazon DynamoDB",
            "Version": "3.0"
        },
        "DataModel": model
    })
}

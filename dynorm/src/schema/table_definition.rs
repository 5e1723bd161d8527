//! The `CreateTable` input a model describes.

use aws_sdk_dynamodb::error::BuildError;
use aws_sdk_dynamodb::operation::create_table::CreateTableInput;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, CreateGlobalSecondaryIndexAction,
    DeleteGlobalSecondaryIndexAction, GlobalSecondaryIndex, GlobalSecondaryIndexUpdate,
    KeySchemaElement, KeyType, LocalSecondaryIndex, Projection as SdkProjection, ProjectionType,
    ScalarAttributeType, StreamSpecification,
};

use serde_json::{json, Map, Value};

use crate::schema::Schema;
use crate::schema::{IndexKind, IndexSchema, KeyAttribute, Projection, StreamView};

/// The `CreateTable` input of a table shared by several entities: the union of their key
/// attributes and indexes, each once. `table_name` overrides the first entity's name.
pub fn shared_create_table_input(
    schemas: &[&Schema],
    table_name: Option<String>,
) -> CreateTableInput {
    let first = schemas.first().copied();
    let name = table_name.unwrap_or_else(|| {
        first.map_or_else(String::new, |s| {
            format!(
                "{}{}{}",
                s.table_prefix.unwrap_or(""),
                s.table,
                s.table_suffix.unwrap_or("")
            )
        })
    });
    let mut indexes: Vec<IndexSchema> = Vec::new();
    for schema in schemas {
        for index in schema.indexes {
            if indexes.iter().all(|i| i.name != index.name) {
                indexes.push(*index);
            }
        }
    }
    // The stream of the table: the first entity that declares one (the entities of a
    // shared table share its one stream).
    let stream = schemas.iter().find_map(|s| s.stream);
    match first {
        Some(first) => build_input(name, &first.table_index(), &indexes, stream),
        None => complete(CreateTableInput::builder().table_name(name)),
    }
}

/// Builds the `CreateTable` input: definitions of every key attribute of the table and its
/// indexes (each once), the key schema, every index with its projection, and on-demand
/// (`PAY_PER_REQUEST`) billing.
pub fn create_table_input(schema: &Schema, table_name: String) -> CreateTableInput {
    build_input(
        table_name,
        &schema.table_index(),
        schema.indexes,
        schema.stream,
    )
}

/// The `StreamSpecification` of a view type: enabled with that view, or disabled.
pub fn stream_specification(view: Option<StreamView>) -> StreamSpecification {
    // `stream_enabled`, the builder's one required field, is set on the line above
    // `build`, so it cannot fail: by construction.
    StreamSpecification::builder()
        .set_stream_view_type(view.map(StreamView::to_sdk))
        .stream_enabled(view.is_some())
        .build()
        // Cannot fail by construction: the required fields are set just above.
        .expect("a stream specification with `stream_enabled` set is complete")
}

/// The definition of a key attribute. Both of the builder's required fields are set
/// here, the one place dynorm builds a definition, so `build` cannot fail: by construction.
pub fn attribute_definition(name: &str, scalar: ScalarAttributeType) -> AttributeDefinition {
    AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(scalar)
        .build()
        // Cannot fail by construction: the required fields are set just above.
        .expect("an attribute definition with its name and type set is complete")
}

/// One element of a key schema. Both of the builder's required fields are set here, the
/// one place dynorm builds an element, so `build` cannot fail: by construction.
pub fn key_schema_element(name: &str, key_type: KeyType) -> KeySchemaElement {
    KeySchemaElement::builder()
        .attribute_name(name)
        .key_type(key_type)
        .build()
        // Cannot fail by construction: the required fields are set just above.
        .expect("a key schema element with its name and type set is complete")
}

/// The input a `CreateTable` builder holds. The input has no required fields (the
/// service checks them), so `build` cannot fail: by construction.
fn complete(
    builder: aws_sdk_dynamodb::operation::create_table::builders::CreateTableInputBuilder,
) -> CreateTableInput {
    builder
        .build()
        // Cannot fail by construction: the required fields are set just above.
        .expect("CreateTableInput has no required fields")
}

/// The definitions of key attributes, each once.
fn definitions<'a>(attributes: impl Iterator<Item = &'a KeyAttribute>) -> Vec<AttributeDefinition> {
    let mut definitions: Vec<AttributeDefinition> = Vec::new();
    for attribute in attributes {
        if definitions
            .iter()
            .all(|d| d.attribute_name() != attribute.name)
        {
            definitions.push(attribute_definition(
                attribute.name,
                attribute.scalar.to_sdk(),
            ));
        }
    }
    definitions
}

/// The `CreateTable` input for a table's keys and its indexes.
fn build_input(
    table_name: String,
    table: &IndexSchema,
    indexes: &[IndexSchema],
    stream: Option<StreamView>,
) -> CreateTableInput {
    let index_keys = indexes
        .iter()
        .flat_map(|i| i.hash_key.iter().chain(i.range_key));
    let table_keys = table.hash_key.iter().chain(table.range_key);
    let definitions = definitions(table_keys.chain(index_keys));
    let globals = indexes
        .iter()
        .filter(|i| i.kind == IndexKind::Global)
        .map(|index| {
            // Its name and key schema, the builder's required fields, are set here, so
            // `build` cannot fail: by construction.
            GlobalSecondaryIndex::builder()
                .index_name(index.name)
                .set_key_schema(Some(key_schema(index)))
                .projection(projection(index))
                .build()
                // Cannot fail by construction: the required fields are set just above.
                .expect("a global index with its name and key schema set is complete")
        })
        .collect::<Vec<_>>();
    let locals = indexes
        .iter()
        .filter(|i| i.kind == IndexKind::Local)
        .map(|index| {
            // Its name, key schema and projection, the builder's required fields, are set
            // here, so `build` cannot fail: by construction.
            LocalSecondaryIndex::builder()
                .index_name(index.name)
                .set_key_schema(Some(key_schema(index)))
                .projection(projection(index))
                .build()
                // Cannot fail by construction: the required fields are set just above.
                .expect("a local index with its name, key schema and projection set is complete")
        })
        .collect::<Vec<_>>();
    complete(
        CreateTableInput::builder()
            .table_name(table_name)
            .set_attribute_definitions(Some(definitions))
            .set_key_schema(Some(key_schema(table)))
            .billing_mode(BillingMode::PayPerRequest)
            .set_global_secondary_indexes((!globals.is_empty()).then_some(globals))
            .set_local_secondary_indexes((!locals.is_empty()).then_some(locals))
            .set_stream_specification(stream.map(|view| stream_specification(Some(view)))),
    )
}

/// The key schema of a table or index: its hash attributes, then its range attributes.
pub(crate) fn key_schema(index: &IndexSchema) -> Vec<KeySchemaElement> {
    let hash = index.hash_key.iter().map(|k| (k, KeyType::Hash));
    let range = index.range_key.iter().map(|k| (k, KeyType::Range));
    hash.chain(range)
        .map(|(attribute, key_type)| key_schema_element(attribute.name, key_type))
        .collect()
}

/// An index's projection.
pub(crate) fn projection(index: &IndexSchema) -> SdkProjection {
    match index.projection {
        Projection::All => SdkProjection::builder()
            .projection_type(ProjectionType::All)
            .build(),
        Projection::KeysOnly => SdkProjection::builder()
            .projection_type(ProjectionType::KeysOnly)
            .build(),
        Projection::Include(names) => SdkProjection::builder()
            .projection_type(ProjectionType::Include)
            .set_non_key_attributes(Some(names.iter().map(|n| (*n).to_owned()).collect()))
            .build(),
    }
}

/// The input as the JSON that `aws dynamodb create-table --cli-input-json` accepts.
pub fn to_cli_json(input: &CreateTableInput) -> String {
    serde_json::to_string_pretty(&cli_json(input)).unwrap_or_default()
}

/// A key schema as JSON: `[{"AttributeName": .., "KeyType": ..}]`, as the CLI and
/// CloudFormation write it.
pub(crate) fn keys_json(elements: &[KeySchemaElement]) -> serde_json::Value {
    elements
        .iter()
        .map(|k| json!({"AttributeName": k.attribute_name(), "KeyType": k.key_type().as_str()}))
        .collect()
}

/// A projection as JSON: `{"ProjectionType": .., "NonKeyAttributes": [..]}`.
pub fn projection_json(projection: Option<&SdkProjection>) -> serde_json::Value {
    let mut out = Map::new();
    if let Some(p) = projection {
        if let Some(t) = p.projection_type() {
            out.insert("ProjectionType".into(), json!(t.as_str()));
        }
        if !p.non_key_attributes().is_empty() {
            out.insert("NonKeyAttributes".into(), json!(p.non_key_attributes()));
        }
    }
    Value::Object(out)
}

/// The input as JSON, with the names of the CLI's (and CloudFormation's) fields.
pub fn cli_json(input: &CreateTableInput) -> Value {
    let mut out = Map::new();
    out.insert("TableName".into(), json!(input.table_name()));
    out.insert(
        "AttributeDefinitions".into(),
        input
            .attribute_definitions()
            .iter()
            .map(|d| json!({"AttributeName": d.attribute_name(), "AttributeType": d.attribute_type().as_str()}))
            .collect(),
    );
    out.insert("KeySchema".into(), keys_json(input.key_schema()));
    if let Some(mode) = input.billing_mode() {
        out.insert("BillingMode".into(), json!(mode.as_str()));
    }
    let index = |name: &str, keys: &[KeySchemaElement], p: Option<&SdkProjection>| json!({"IndexName": name, "KeySchema": keys_json(keys), "Projection": projection_json(p)});
    if !input.global_secondary_indexes().is_empty() {
        let globals: Vec<Value> = input
            .global_secondary_indexes()
            .iter()
            .map(|g| index(g.index_name(), g.key_schema(), g.projection()))
            .collect();
        out.insert("GlobalSecondaryIndexes".into(), globals.into());
    }
    if !input.local_secondary_indexes().is_empty() {
        let locals: Vec<Value> = input
            .local_secondary_indexes()
            .iter()
            .map(|l| index(l.index_name(), l.key_schema(), l.projection()))
            .collect();
        out.insert("LocalSecondaryIndexes".into(), locals.into());
    }
    if let Some(stream) = input.stream_specification() {
        let mut spec = Map::new();
        spec.insert("StreamEnabled".into(), json!(stream.stream_enabled()));
        if let Some(view) = stream.stream_view_type() {
            spec.insert("StreamViewType".into(), json!(view.as_str()));
        }
        out.insert("StreamSpecification".into(), Value::Object(spec));
    }
    Value::Object(out)
}

/// The `UpdateTable` index update that creates global index `index`, and the definitions
/// of its key attributes, which the request must carry.
pub(crate) fn create_global_index(
    index: &IndexSchema,
) -> Result<(Vec<AttributeDefinition>, GlobalSecondaryIndexUpdate), BuildError> {
    let definitions = definitions(index.hash_key.iter().chain(index.range_key));
    let create = CreateGlobalSecondaryIndexAction::builder()
        .index_name(index.name)
        .set_key_schema(Some(key_schema(index)))
        .projection(projection(index))
        .build()?;
    let update = GlobalSecondaryIndexUpdate::builder().create(create).build();
    Ok((definitions, update))
}

/// The `UpdateTable` index update that deletes global index `name`.
pub(crate) fn delete_global_index(name: &str) -> Result<GlobalSecondaryIndexUpdate, BuildError> {
    let delete = DeleteGlobalSecondaryIndexAction::builder()
        .index_name(name)
        .build()?;
    Ok(GlobalSecondaryIndexUpdate::builder().delete(delete).build())
}

//! The `CreateTable` input a model describes.

use aws_sdk_dynamodb::operation::create_table::CreateTableInput;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
    LocalSecondaryIndex, Projection as SdkProjection, ProjectionType, ScalarAttributeType,
    StreamSpecification,
};

use aws_sdk_dynamodb::types::TableDescription;

use crate::error::{Error, Result};
use crate::schema::Schema;
use crate::schema::{IndexKind, IndexSchema, Projection, StreamView};

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
pub(crate) fn attribute_definition(name: &str, scalar: ScalarAttributeType) -> AttributeDefinition {
    AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(scalar)
        .build()
        // Cannot fail by construction: the required fields are set just above.
        .expect("an attribute definition with its name and type set is complete")
}

/// One element of a key schema. Both of the builder's required fields are set here, the
/// one place dynorm builds an element, so `build` cannot fail: by construction.
pub(crate) fn key_schema_element(name: &str, key_type: KeyType) -> KeySchemaElement {
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

/// The `CreateTable` input for a table's keys and its indexes.
fn build_input(
    table_name: String,
    table: &IndexSchema,
    indexes: &[IndexSchema],
    stream: Option<StreamView>,
) -> CreateTableInput {
    let mut definitions: Vec<AttributeDefinition> = Vec::new();
    let index_keys = indexes
        .iter()
        .flat_map(|i| i.hash_key.iter().chain(i.range_key));
    let table_keys = table.hash_key.iter().chain(table.range_key);
    for attribute in table_keys.chain(index_keys) {
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
fn key_schema(index: &IndexSchema) -> Vec<KeySchemaElement> {
    let hash = index.hash_key.iter().map(|k| (k, KeyType::Hash));
    let range = index.range_key.iter().map(|k| (k, KeyType::Range));
    hash.chain(range)
        .map(|(attribute, key_type)| key_schema_element(attribute.name, key_type))
        .collect()
}

/// An index's projection.
fn projection(index: &IndexSchema) -> SdkProjection {
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
    use serde_json::{json, Map, Value};
    let keys = |elements: &[KeySchemaElement]| -> Vec<Value> {
        elements
            .iter()
            .map(|k| json!({"AttributeName": k.attribute_name(), "KeyType": k.key_type().as_str()}))
            .collect()
    };
    let projection = |p: Option<&SdkProjection>| -> Value {
        let mut out = Map::new();
        if let Some(p) = p {
            if let Some(t) = p.projection_type() {
                out.insert("ProjectionType".into(), json!(t.as_str()));
            }
            if !p.non_key_attributes().is_empty() {
                out.insert("NonKeyAttributes".into(), json!(p.non_key_attributes()));
            }
        }
        Value::Object(out)
    };
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
    out.insert("KeySchema".into(), keys(input.key_schema()).into());
    if let Some(mode) = input.billing_mode() {
        out.insert("BillingMode".into(), json!(mode.as_str()));
    }
    if !input.global_secondary_indexes().is_empty() {
        let globals: Vec<Value> = input
            .global_secondary_indexes()
            .iter()
            .map(|g| json!({"IndexName": g.index_name(), "KeySchema": keys(g.key_schema()), "Projection": projection(g.projection())}))
            .collect();
        out.insert("GlobalSecondaryIndexes".into(), globals.into());
    }
    if !input.local_secondary_indexes().is_empty() {
        let locals: Vec<Value> = input
            .local_secondary_indexes()
            .iter()
            .map(|l| json!({"IndexName": l.index_name(), "KeySchema": keys(l.key_schema()), "Projection": projection(l.projection())}))
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
    serde_json::to_string_pretty(&Value::Object(out)).unwrap_or_default()
}

/// Checks a live table against the model, and lists every difference, not only the first:
/// the table's key schema, the types of the model's key attributes (table and indexes),
/// each index the model declares (present, global or local, its key schema and its
/// projection), and the stream. Indexes the model does not declare are not differences:
/// a shared table has the indexes of every entity.
pub fn compare(schema: &Schema, name: &str, table: &TableDescription) -> Result<()> {
    let mut drift = Drift::default();
    let table_index = schema.table_index();
    compare_keys(&mut drift, "the table", &table_index, table.key_schema());
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
                index.hash_key.first().map(|k| k.name),
                format!("{what} is missing"),
            ),
            Some((kind, keys, live_projection)) => {
                if kind != index.kind {
                    drift.push(
                        None,
                        format!("{what} is {kind:?}, the model declares {:?}", index.kind),
                    );
                }
                compare_keys(&mut drift, &what, index, keys);
                compare_projection(&mut drift, &what, index, live_projection);
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
                Some(attribute.name),
                format!("the table defines {shown} as {defined}, the model needs {wanted}"),
            ),
            _ => {}
        }
    }
    if let Err(error) = compare_stream(schema.stream, name, table) {
        drift.push(None, error.message().to_owned());
    }
    drift.into_result(name)
}

/// The differences found between a live table and a model.
#[derive(Default)]
struct Drift {
    /// Each difference, with the attribute it is about, when one is.
    found: Vec<(Option<&'static str>, String)>,
}

impl Drift {
    fn push(&mut self, attribute: Option<&'static str>, difference: String) {
        self.found.push((attribute, difference));
    }

    /// Whether a difference already names this text (an attribute is reported once).
    fn mentions(&self, text: &str) -> bool {
        self.found.iter().any(|(_, d)| d.contains(text))
    }

    /// One error that lists every difference, naming the first one's attribute.
    fn into_result(self, name: &str) -> Result<()> {
        let Some((attribute, _)) = self.found.first() else {
            return Ok(());
        };
        let attribute = *attribute;
        let count = self.found.len();
        let listed: Vec<String> = self.found.into_iter().map(|(_, d)| d).collect();
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
}

/// Compares a live key schema with a table's or an index's keys.
fn compare_keys(drift: &mut Drift, what: &str, index: &IndexSchema, live: &[KeySchemaElement]) {
    let wanted = key_schema(index);
    let names = |elements: &[KeySchemaElement]| -> Vec<String> {
        elements
            .iter()
            .map(|k| format!("{} {}", k.attribute_name(), k.key_type()))
            .collect()
    };
    if names(&wanted) != names(live) {
        drift.push(
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
    drift: &mut Drift,
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
            None,
            format!("{what} projects {live}, the model declares {wanted}"),
        );
    }
}

/// Checks a live table's stream against the view type the model declares. A table with a
/// stream the model does not declare is fine; a missing stream or another view is not.
fn compare_stream(wanted: Option<StreamView>, name: &str, table: &TableDescription) -> Result<()> {
    let Some(wanted) = wanted else {
        return Ok(());
    };
    let live = table
        .stream_specification()
        .filter(|s| s.stream_enabled())
        .map(|s| {
            s.stream_view_type()
                .and_then(|v| StreamView::from_name(v.as_str()))
        });
    match live {
        None => Err(Error::config(format!(
            "table `{name}` has no stream, the model declares a {wanted} stream \
             (`Client::enable_stream` turns it on)"
        ))),
        Some(Some(view)) if view == wanted => Ok(()),
        Some(view) => Err(Error::config(format!(
            "table `{name}` has a {} stream, the model declares {wanted}",
            view.map_or_else(|| "stream of an unknown view".to_owned(), |v| v.to_string())
        ))),
    }
}

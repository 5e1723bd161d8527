//! The `CreateTable` input a model describes.

use aws_sdk_dynamodb::operation::create_table::CreateTableInput;
use aws_sdk_dynamodb::types::{AttributeDefinition, BillingMode, KeySchemaElement, KeyType};

use aws_sdk_dynamodb::types::TableDescription;

use crate::error::{Error, Result};
use crate::model::Schema;

/// Builds the `CreateTable` input: the key attributes' definitions, the key schema and
/// on-demand (`PAY_PER_REQUEST`) billing.
pub fn create_table_input(schema: &Schema, table_name: String) -> CreateTableInput {
    let definitions = schema
        .key_attributes()
        .map(|attribute| {
            AttributeDefinition::builder()
                .attribute_name(attribute.name)
                .attribute_type(attribute.scalar.to_sdk())
                .build()
                .expect("an attribute definition with its name and type set is complete")
        })
        .collect();
    let key_schema = schema
        .key_attributes()
        .zip([KeyType::Hash, KeyType::Range])
        .map(|(attribute, key_type)| {
            KeySchemaElement::builder()
                .attribute_name(attribute.name)
                .key_type(key_type)
                .build()
                .expect("a key schema element with its name and type set is complete")
        })
        .collect();
    CreateTableInput::builder()
        .table_name(table_name)
        .set_attribute_definitions(Some(definitions))
        .set_key_schema(Some(key_schema))
        .billing_mode(BillingMode::PayPerRequest)
        .build()
        .expect("CreateTableInput has no required fields")
}

/// Checks a live table's key schema and key attribute types against the model.
pub fn compare(schema: &Schema, name: &str, table: &TableDescription) -> Result<()> {
    let expected: Vec<_> = schema
        .key_attributes()
        .zip([KeyType::Hash, KeyType::Range])
        .collect();
    let actual = table.key_schema();
    for (attribute, key_type) in &expected {
        let found = actual.iter().find(|k| k.key_type() == key_type);
        match found {
            Some(k) if k.attribute_name() == attribute.name => {}
            Some(k) => {
                return Err(Error::config(format!(
                    "table `{name}` has `{}` as its {key_type} key, the model has `{}`",
                    k.attribute_name(),
                    attribute.name
                ))
                .with_attribute(attribute.name))
            }
            None => {
                return Err(
                    Error::config(format!("table `{name}` has no {key_type} key"))
                        .with_attribute(attribute.name),
                )
            }
        }
        let defined = table
            .attribute_definitions()
            .iter()
            .find(|d| d.attribute_name() == attribute.name)
            .map(|d| d.attribute_type().clone());
        let wanted = attribute.scalar.to_sdk();
        if defined.as_ref() != Some(&wanted) {
            return Err(Error::config(format!(
                "table `{name}` defines `{}` as {}, the model needs {wanted}",
                attribute.name,
                defined.map_or_else(|| "nothing".to_owned(), |d| d.to_string())
            ))
            .with_attribute(attribute.name));
        }
    }
    if actual.len() != expected.len() {
        let extra = actual
            .iter()
            .find(|k| expected.iter().all(|(a, _)| a.name != k.attribute_name()))
            .map(|k| k.attribute_name().to_owned())
            .unwrap_or_default();
        return Err(Error::config(format!(
            "table `{name}` has a range key `{extra}` the model does not declare"
        ))
        .with_attribute(extra));
    }
    Ok(())
}

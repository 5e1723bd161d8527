//! The `CreateTable` input a model describes.

use aws_sdk_dynamodb::operation::create_table::CreateTableInput;
use aws_sdk_dynamodb::types::{AttributeDefinition, BillingMode, KeySchemaElement, KeyType};

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

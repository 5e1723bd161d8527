//! [`Item`], a DynamoDB item as the SDK holds it.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

/// A DynamoDB item: attribute names and their values, as the SDK holds them.
pub type Item = HashMap<String, AttributeValue>;

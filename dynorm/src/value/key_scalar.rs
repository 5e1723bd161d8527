//! Key attribute types: [`KeyScalar`], a Rust type that can be a key, and [`ScalarType`],
//! the S, N or B type it is stored as.

/// A type that can be a table or index key attribute: one S, N or B scalar.
///
/// Implement it for your own newtypes and enums that are stored as one scalar.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a DynamoDB key attribute",
    label = "a key attribute must be one S, N or B scalar type",
    note = "strings, numbers, `Vec<u8>`, `Uuid`, `NaiveDate` and `DateTime<Utc>` can be keys; for a newtype or a unit enum, add `#[derive(dynorm::Value)]`"
)]
pub trait KeyScalar {
    /// The key's attribute type.
    const SCALAR_TYPE: ScalarType;
}

/// The type of a key attribute, as in an `AttributeDefinition`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ScalarType {
    /// A string.
    S,
    /// A number.
    N,
    /// Binary.
    B,
}

impl ScalarType {
    /// The SDK's name for the same type.
    pub fn to_sdk(self) -> aws_sdk_dynamodb::types::ScalarAttributeType {
        use aws_sdk_dynamodb::types::ScalarAttributeType;
        match self {
            Self::S => ScalarAttributeType::S,
            Self::N => ScalarAttributeType::N,
            Self::B => ScalarAttributeType::B,
        }
    }
}

//! [`AttrValue`], the trait of a Rust type with a native DynamoDB representation.

use aws_sdk_dynamodb::types::AttributeValue;

use super::attr_error::AttrError;

/// A Rust type with a native DynamoDB representation.
///
/// ```
/// use dynorm::value::{AttrError, AttrValue};
/// use aws_sdk_dynamodb::types::AttributeValue;
///
/// /// Cents, stored as a DynamoDB number.
/// struct Cents(i64);
///
/// impl AttrValue for Cents {
///     fn to_attr(&self) -> Result<AttributeValue, AttrError> {
///         self.0.to_attr()
///     }
///     fn from_attr(value: AttributeValue) -> Result<Self, AttrError> {
///         i64::from_attr(value).map(Cents)
///     }
/// }
/// ```
pub trait AttrValue: Sized {
    /// The attribute value for `self`.
    fn to_attr(&self) -> Result<AttributeValue, AttrError>;

    /// Reads a value back, taking ownership so that strings are moved, not copied.
    fn from_attr(value: AttributeValue) -> Result<Self, AttrError>;

    /// Whether the value is left out of the item. DynamoDB rejects empty sets, so an
    /// empty set is written as an absent attribute.
    fn is_omitted(&self) -> bool {
        false
    }

    /// The value of an absent attribute, for types that have one (an empty set, `None`).
    fn when_absent() -> Option<Self> {
        None
    }
}

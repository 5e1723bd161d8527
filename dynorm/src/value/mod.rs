//! Native conversion between Rust values and DynamoDB attribute values.
//!
//! [`AttrValue`] is implemented for strings, numbers, `bool`, binary, lists, maps, typed
//! sets, `Option`, and, each with its cargo feature, `chrono::DateTime<Utc>` and
//! `chrono::NaiveDate` (`chrono`), `uuid::Uuid` (`uuid`) and `rust_decimal::Decimal`
//! (`decimal`). `#[derive(dynorm::Value)]` makes a newtype or a unit
//! enum native. Fields of any other type that implements
//! serde's `Serialize` and `Deserialize` go through `serde_dynamo` instead, with no
//! annotation. Implement [`AttrValue`] for your own type to store it natively.

pub(crate) mod attr_error;
pub(crate) mod clock;
mod containers;
#[cfg(feature = "chrono")]
pub(crate) mod date;
mod date_storage;
pub(crate) mod feature_native;
pub(crate) mod field_codec;
pub(crate) mod ids;
pub(crate) mod limits;
pub(crate) mod scalar;
mod set;
mod unit_variant;

pub(crate) use attr_error::{describe, show};
pub use attr_error::{AttrError, PathSegment};
pub use date_storage::DateStorage;
pub use set::{SetElement, SetKind};

use aws_sdk_dynamodb::types::AttributeValue;

pub(crate) use crate::Item;

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

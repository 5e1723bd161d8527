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
mod attr_value;
pub(crate) mod clock;
mod containers;
#[cfg(feature = "chrono")]
pub(crate) mod date;
mod date_storage;
pub(crate) mod default_of;
pub(crate) mod feature_native;
pub(crate) mod field_codec;
pub(crate) mod ids;
pub(crate) mod item;
mod key_scalar;
pub(crate) mod limits;
pub(crate) mod scalar;
mod set;
mod string_set;
mod unit_variant;

pub(crate) use attr_error::{describe, show};
pub use attr_error::{AttrError, PathSegment};
pub use attr_value::AttrValue;
pub use date_storage::DateStorage;
pub(crate) use item::Item;
pub use key_scalar::{KeyScalar, ScalarType};
pub use set::{SetElement, SetKind};
pub use string_set::StringSet;

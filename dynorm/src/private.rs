//! What the derive's generated code uses. Not a public API: it may change in any release.

pub use crate::condition::Attr;
pub use crate::dispatch::{
    optional, Decode, DecodeNative, DecodeSerde, Encode, EncodeNative, EncodeSerde,
};
pub use crate::error::Error;
pub use crate::index::{FromItem, Index, IndexKind, IndexSchema, Projection};
pub use crate::model::{Item, KeyAttribute, Model, ModelKey, Schema};
pub use crate::value::bytes;
pub use crate::value::date::{self, DateStorage};
pub use crate::value::{AttrError, KeyScalar, ScalarType};
pub use aws_sdk_dynamodb::types::AttributeValue;

/// Writes one encoded field into an item, or reports which attribute failed.
#[inline]
pub fn insert(
    item: &mut Item,
    model: &'static str,
    name: &'static str,
    value: Result<Option<AttributeValue>, AttrError>,
) -> Result<(), Error> {
    match value {
        Ok(Some(value)) => {
            item.insert(name.to_owned(), value);
            Ok(())
        }
        Ok(None) => Ok(()),
        Err(e) => Err(Error::conversion(model, name, e)),
    }
}

/// Names the model and attribute of a decoding error.
#[inline]
pub fn field<T>(
    model: &'static str,
    name: &'static str,
    value: Result<T, AttrError>,
) -> Result<T, Error> {
    value.map_err(|e| Error::conversion(model, name, e))
}

/// A key value for a query, or which attribute could not be encoded.
#[inline]
pub fn key_value(
    model: &'static str,
    name: &'static str,
    value: Result<Option<AttributeValue>, AttrError>,
) -> Result<AttributeValue, Error> {
    match value {
        Ok(Some(value)) => Ok(value),
        Ok(None) => Err(Error::validation("a key value cannot be empty")
            .with_model(model)
            .with_attribute(name)),
        Err(e) => Err(Error::conversion(model, name, e)),
    }
}

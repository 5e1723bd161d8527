//! What the derive's generated code uses. Not a public API: it may change in any release.

pub use crate::collection::{entity_name, Collection};
pub use crate::condition::Attr;
pub use crate::condition::{Optional, ReadOnly, Required, Writable};
pub use crate::dispatch::{
    optional, Decode, DecodeNative, DecodeSerde, Encode, EncodeNative, EncodeSerde,
};
pub use crate::entity::{
    check_entity, check_shared_table, entity_key, template_hash_values, write_entity_keys, Entity,
    KeyTemplate, TemplatePart,
};
pub use crate::error::Error;
pub use crate::index::{FromItem, Index, IndexKind, IndexSchema, Projection};
pub use crate::key_signature::KeySignature;
pub use crate::model::{
    Combine, Generated, GeneratedValue, Item, KeyAttribute, Model, ModelKey, Schema,
};
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

/// The joined text of a `#[combine]` attribute, from its sources' stored values.
///
/// A source other than the last that contains the separator would make the value
/// ambiguous, so it is an error.
pub fn combined_text(
    model: &'static str,
    name: &'static str,
    separator: &'static str,
    item: &Item,
    sources: &[&'static str],
) -> Result<String, Error> {
    let mut out = String::new();
    for (i, source) in sources.iter().enumerate() {
        let text = match item.get(*source) {
            Some(AttributeValue::S(s)) => s.as_str(),
            Some(AttributeValue::N(n)) => n.as_str(),
            Some(other) => {
                return Err(Error::validation(format!(
                    "`{source}` is {}, and only strings and numbers can be combined into `{name}`",
                    crate::value::describe(other)
                ))
                .with_model(model)
                .with_attribute(*source))
            }
            None => {
                return Err(Error::validation(format!(
                    "`{name}` is built from `{source}`, which has no value"
                ))
                .with_model(model)
                .with_attribute(*source))
            }
        };
        if i + 1 < sources.len() && text.contains(separator) {
            return Err(Error::validation(format!(
                "the value of `{source}` contains the separator {separator:?}, which would make `{name}` ambiguous"
            ))
            .with_model(model)
            .with_attribute(*source));
        }
        if i > 0 {
            out.push_str(separator);
        }
        out.push_str(text);
    }
    Ok(out)
}

/// [`combined_text`] as a string attribute value.
pub fn combine(
    model: &'static str,
    name: &'static str,
    separator: &'static str,
    item: &Item,
    sources: &[&'static str],
) -> Result<AttributeValue, Error> {
    combined_text(model, name, separator, item, sources).map(AttributeValue::S)
}

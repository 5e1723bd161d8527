//! Key signatures: a primary key's identity as bytes, for finding an item written or read
//! twice in one batch before anything is sent.
//!
//! A signature holds each key attribute's type, length and bytes, in the schema's order,
//! in one allocation. Typed keys write each value in one canonical form, so equal keys have
//! equal signatures, whether they come from a key item or straight from a model's fields.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};
use crate::model::{Item, Schema};
use crate::value::AttrError;

/// Appends one key value to a signature; a missing value has one of its own.
fn push_value(signature: &mut Vec<u8>, value: Option<&AttributeValue>) {
    let (tag, bytes): (u8, &[u8]) = match value {
        Some(AttributeValue::S(s)) => (b'S', s.as_bytes()),
        Some(AttributeValue::N(n)) => (b'N', n.as_bytes()),
        Some(AttributeValue::B(b)) => (b'B', b.as_ref()),
        _ => (b'-', &[]),
    };
    signature.push(tag);
    signature.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    signature.extend_from_slice(bytes);
}

/// The signature of a key item (or of an item's key attributes).
pub(crate) fn of_item(schema: &Schema, item: &Item) -> Vec<u8> {
    let mut signature = Vec::with_capacity(48);
    for attribute in schema.key_attributes() {
        push_value(&mut signature, item.get(attribute.name));
    }
    signature
}

/// Builds the signature of a model's key from its encoded key fields, hash key first,
/// checking each value as a typed key is checked. Used by the derive's
/// `Model::__key_signature`; not a public API.
#[doc(hidden)]
pub struct KeySignature<'s> {
    schema: &'s Schema,
    operation: &'static str,
    next: usize,
    bytes: Vec<u8>,
}

impl<'s> KeySignature<'s> {
    /// An empty signature for a key of `schema`, with errors attributed to `operation`.
    pub fn new(schema: &'s Schema, operation: &'static str) -> Self {
        Self {
            schema,
            operation,
            next: 0,
            bytes: Vec::with_capacity(48),
        }
    }

    /// Adds the next key attribute's encoded value.
    pub fn push(
        &mut self,
        value: std::result::Result<Option<AttributeValue>, AttrError>,
    ) -> Result<()> {
        let Some(attribute) = self.schema.keys.get(self.next) else {
            return Err(Error::config("more key values than key attributes")
                .with_model(self.schema.model)
                .with_operation(self.operation));
        };
        self.next += 1;
        let value = value.map_err(|e| {
            Error::conversion(self.schema.model, attribute.name, e).with_operation(self.operation)
        })?;
        self.schema
            .check_key_value(attribute, value.as_ref(), self.operation)?;
        push_value(&mut self.bytes, value.as_ref());
        Ok(())
    }

    /// The signature.
    pub fn finish(self) -> Vec<u8> {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(values: &[Option<&AttributeValue>]) -> Vec<u8> {
        let mut signature = Vec::new();
        for value in values {
            push_value(&mut signature, *value);
        }
        signature
    }

    #[test]
    fn signatures_tell_keys_apart_exactly() {
        let s = |v: &str| AttributeValue::S(v.to_owned());
        let n = |v: &str| AttributeValue::N(v.to_owned());
        assert_eq!(
            of(&[Some(&s("a")), Some(&n("1"))]),
            of(&[Some(&s("a")), Some(&n("1"))])
        );
        assert_ne!(
            of(&[Some(&s("ab")), Some(&s("c"))]),
            of(&[Some(&s("a")), Some(&s("bc"))])
        );
        assert_ne!(of(&[Some(&s("1"))]), of(&[Some(&n("1"))]));
        assert_ne!(of(&[Some(&s("")), None]), of(&[None, Some(&s(""))]));
        let bytes = AttributeValue::B(aws_sdk_dynamodb::primitives::Blob::new(*b"a"));
        assert_ne!(of(&[Some(&bytes)]), of(&[Some(&s("a"))]));
    }
}

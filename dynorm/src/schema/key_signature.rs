//! Key signatures: a primary key's identity, for finding an item written or read twice in
//! one batch before anything is sent.
//!
//! A signature is each key attribute's type, length and bytes, in the schema's order. It
//! is kept as bytes, for an exact comparison, or as a keyed 64-bit hash, for a set of many
//! keys without an allocation per key. Typed keys write each value in one canonical form,
//! so equal keys have equal signatures, whether they come from a key item or straight from
//! a model's fields.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, DefaultHasher, Hasher};

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};
use crate::schema::Schema;
use crate::value::Item;
use crate::value::{AttrError, ScalarType};

/// Where a signature's bytes go.
enum Sink {
    Bytes(Vec<u8>),
    Hash(DefaultHasher),
}

impl Sink {
    fn write(&mut self, tag: u8, bytes: &[u8]) {
        let length = (bytes.len() as u32).to_le_bytes();
        match self {
            Sink::Bytes(out) => {
                out.push(tag);
                out.extend_from_slice(&length);
                out.extend_from_slice(bytes);
            }
            Sink::Hash(hasher) => {
                hasher.write_u8(tag);
                hasher.write(&length);
                hasher.write(bytes);
            }
        }
    }

    /// The bytes of a bytes sink; a hash sink has none.
    fn into_bytes(self) -> Vec<u8> {
        match self {
            Sink::Bytes(bytes) => bytes,
            Sink::Hash(_) => Vec::new(),
        }
    }

    /// The hash of a hash sink; a bytes sink has 0.
    fn into_hash(self) -> u64 {
        match self {
            Sink::Hash(hasher) => hasher.finish(),
            Sink::Bytes(_) => 0,
        }
    }

    fn write_value(&mut self, value: Option<&AttributeValue>) {
        match value {
            Some(AttributeValue::S(s)) => self.write(b'S', s.as_bytes()),
            Some(AttributeValue::N(n)) => self.write(b'N', n.as_bytes()),
            Some(AttributeValue::B(b)) => self.write(b'B', b.as_ref()),
            _ => self.write(b'-', &[]),
        }
    }
}

/// The bytes signature of a key item (or of an item's key attributes).
pub(crate) fn of_item(schema: &Schema, item: &Item) -> Vec<u8> {
    let mut sink = Sink::Bytes(Vec::with_capacity(48));
    for attribute in schema.key_attributes() {
        sink.write_value(item.get(attribute.name));
    }
    sink.into_bytes()
}

/// Builds the signature of a model's key from its key fields, hash key first, checking
/// each value as a typed key is checked. `Model::__key_signature` fills it; not a public
/// API.
#[doc(hidden)]
pub struct KeySignature<'s> {
    schema: &'s Schema,
    operation: &'static str,
    next: usize,
    sink: Sink,
}

impl<'s> KeySignature<'s> {
    /// A signature kept as bytes.
    pub(crate) fn bytes(schema: &'s Schema, operation: &'static str) -> Self {
        Self::with_sink(schema, operation, Sink::Bytes(Vec::with_capacity(48)))
    }

    /// A signature kept as a hash keyed by `state`.
    pub(crate) fn hashed(schema: &'s Schema, operation: &'static str, state: &RandomState) -> Self {
        Self::with_sink(schema, operation, Sink::Hash(state.build_hasher()))
    }

    fn with_sink(schema: &'s Schema, operation: &'static str, sink: Sink) -> Self {
        Self {
            schema,
            operation,
            next: 0,
            sink,
        }
    }

    /// The operation errors are attributed to.
    pub fn operation(&self) -> &'static str {
        self.operation
    }

    /// The next key attribute, or an error if every one has its value.
    fn next_attribute(&mut self) -> Result<&'static crate::schema::KeyAttribute> {
        let schema = self.schema;
        let attribute = schema.keys.get(self.next).ok_or_else(|| {
            Error::config("more key values than key attributes")
                .with_model(schema.model)
                .with_operation(self.operation)
        })?;
        self.next += 1;
        Ok(attribute)
    }

    /// Adds the next key attribute's encoded value.
    pub fn push(
        &mut self,
        value: std::result::Result<Option<AttributeValue>, AttrError>,
    ) -> Result<()> {
        let attribute = self.next_attribute()?;
        let value = value.map_err(|e| {
            Error::unstorable(self.schema.model, attribute.name, e).with_operation(self.operation)
        })?;
        self.schema
            .check_key_value(attribute, value.as_ref(), self.operation)?;
        self.sink.write_value(value.as_ref());
        Ok(())
    }

    /// Adds the next key attribute's value when the field is a `String`, without copying it.
    pub fn push_str(&mut self, value: &str) -> Result<()> {
        let attribute = self.next_attribute()?;
        if attribute.scalar != ScalarType::S
            || value.is_empty()
            || value.starts_with(crate::schema::unique::GUARD_PREFIX)
        {
            // The general path words the error (or accepts a guard's prefix where it is
            // not the table's hash key).
            self.next -= 1;
            return self.push(Ok(Some(AttributeValue::S(value.to_owned()))));
        }
        self.sink.write(b'S', value.as_bytes());
        Ok(())
    }

    /// Adds every key attribute of a key item, checked as a typed key is.
    pub fn push_item(&mut self, key: &Item) -> Result<()> {
        self.schema.validate_key(key, self.operation)?;
        for attribute in self.schema.key_attributes() {
            self.next_attribute()?;
            self.sink.write_value(key.get(attribute.name));
        }
        Ok(())
    }

    /// The signature as bytes; empty for a hashed signature.
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.sink.into_bytes()
    }

    /// The signature as a hash; 0 for a bytes signature.
    pub(crate) fn into_hash(self) -> u64 {
        self.sink.into_hash()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(values: &[Option<&AttributeValue>]) -> Vec<u8> {
        let mut sink = Sink::Bytes(Vec::new());
        for value in values {
            sink.write_value(*value);
        }
        sink.into_bytes()
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

    #[test]
    fn a_hash_follows_the_bytes() {
        let state = RandomState::new();
        let hash = |values: &[&AttributeValue]| {
            let mut sink = Sink::Hash(state.build_hasher());
            for value in values {
                sink.write_value(Some(value));
            }
            sink.into_hash()
        };
        let (a, b) = (
            AttributeValue::S("ab".into()),
            AttributeValue::S("c".into()),
        );
        let (a2, b2) = (
            AttributeValue::S("a".into()),
            AttributeValue::S("bc".into()),
        );
        assert_eq!(hash(&[&a, &b]), hash(&[&a, &b]));
        assert_ne!(hash(&[&a, &b]), hash(&[&a2, &b2]));
    }
}

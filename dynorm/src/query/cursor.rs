//! Opaque page cursors: a `LastEvaluatedKey`, bound to its index and checked on the way
//! back in.
//!
//! A cursor is `c1.` followed by base64url fields (the index, then each key attribute's
//! name, type and value) and a checksum. A cursor from another index, a changed one, or
//! one whose key does not fit the index is a validation error before anything is sent.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};
use crate::schema::{IndexSchema, Schema};
use crate::value::Item;
use crate::value::ScalarType;

const VERSION: &str = "c1";

/// FNV-1a, 64 bits: enough to catch a changed cursor, with no secret involved.
fn checksum(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn field(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Encodes a `LastEvaluatedKey` from `index` into a cursor.
pub(crate) fn encode(index: &IndexSchema, key: &Item) -> Result<String> {
    let mut names: Vec<&String> = key.keys().collect();
    names.sort();
    let mut body = format!("{VERSION}.{}", field(index.label().as_bytes()));
    for name in names {
        let (tag, value) = match &key[name] {
            AttributeValue::S(s) => ("S", s.as_bytes().to_vec()),
            AttributeValue::N(n) => ("N", n.as_bytes().to_vec()),
            AttributeValue::B(b) => ("B", b.as_ref().to_vec()),
            other => {
                return Err(Error::validation(format!(
                    "a page key attribute `{name}` is {}, not S, N or B",
                    crate::value::describe(other)
                )))
            }
        };
        body.push('.');
        body.push_str(&field(name.as_bytes()));
        body.push('.');
        body.push_str(tag);
        body.push('.');
        body.push_str(&field(&value));
    }
    let sum = checksum(&body);
    Ok(format!("{body}.{sum:016x}"))
}

/// Decodes a cursor made by [`encode`] for the same index, checking everything.
pub(crate) fn decode(cursor: &str, schema: &Schema, index: &IndexSchema) -> Result<Item> {
    let invalid = |why: &str| {
        Err(Error::validation(format!(
            "the page cursor is not valid for `{}`: {why}",
            index.label()
        ))
        .with_model(schema.model))
    };
    let Some((body, sum)) = cursor.rsplit_once('.') else {
        return invalid("it is not a dynorm cursor");
    };
    if u64::from_str_radix(sum, 16).ok() != Some(checksum(body)) {
        return invalid("it was changed or cut short");
    }
    let mut parts = body.split('.');
    if parts.next() != Some(VERSION) {
        return invalid("unknown cursor version");
    }
    let text = |part: Option<&str>| {
        part.and_then(|p| URL_SAFE_NO_PAD.decode(p).ok())
            .and_then(|bytes| String::from_utf8(bytes).ok())
    };
    if text(parts.next()).as_deref() != Some(index.label()) {
        return invalid("it comes from a query on another index");
    }
    let mut key = Item::new();
    while let Some(name) = parts.next() {
        let (Some(name), Some(tag), Some(value)) = (text(Some(name)), parts.next(), parts.next())
        else {
            return invalid("it is incomplete");
        };
        let Ok(bytes) = URL_SAFE_NO_PAD.decode(value) else {
            return invalid("a value is not base64");
        };
        let value = match tag {
            "S" | "N" => match String::from_utf8(bytes) {
                Ok(s) if tag == "S" => AttributeValue::S(s),
                Ok(n) => AttributeValue::N(n),
                Err(_) => return invalid("a value is not text"),
            },
            "B" => AttributeValue::B(Blob::new(bytes)),
            _ => return invalid("unknown attribute type"),
        };
        key.insert(name, value);
    }
    let expected = index.cursor_attributes(schema);
    if key.len() != expected.len() {
        return invalid("its key has the wrong attributes");
    }
    for attribute in expected {
        let fits = matches!(
            (attribute.scalar, key.get(attribute.name)),
            (ScalarType::S, Some(AttributeValue::S(_)))
                | (ScalarType::N, Some(AttributeValue::N(_)))
                | (ScalarType::B, Some(AttributeValue::B(_)))
        );
        if !fits {
            return invalid("its key has the wrong attributes");
        }
    }
    Ok(key)
}

//! Opaque page cursors: a `LastEvaluatedKey`, bound to its index and checked on the way
//! back in.
//!
//! A cursor is `c1.` followed by base64url fields (the index, then each key attribute's
//! name, type and value) and a checksum. With a [`CursorKey`] it is `c2.` and the same
//! fields, signed: the checksum is an HMAC-SHA256 tag, so a cursor changed by its holder
//! is refused even when its checksum was recomputed. A cursor from another index, a
//! changed one, an unsigned one where a key is set (or the other way round), or one whose
//! key does not fit the index is a validation error before anything is sent.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::error::{Error, Result};
use crate::schema::{IndexSchema, Schema};
use crate::value::Item;
use crate::value::ScalarType;

const VERSION: &str = "c1";
/// The version of a signed cursor.
const SIGNED: &str = "c2";

/// The secret that signs page cursors: set with
/// [`ClientBuilder::cursor_key`](crate::client::ClientBuilder::cursor_key).
#[derive(Clone)]
pub struct CursorKey(Hmac<Sha256>);

impl CursorKey {
    pub(crate) fn new(key: &[u8]) -> Self {
        // HMAC takes a key of any length, so this never fails; an empty key falls back
        // to a key of one zero byte rather than panicking.
        let mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key)
            .or_else(|_| <Hmac<Sha256> as KeyInit>::new_from_slice(&[0]));
        match mac {
            Ok(mac) => Self(mac),
            Err(_) => Self(<Hmac<Sha256> as KeyInit>::new(&Default::default())),
        }
    }

    /// The tag of `body`: the first 16 bytes of its HMAC, as base64url.
    fn tag(&self, body: &str) -> String {
        let mut mac = self.0.clone();
        mac.update(body.as_bytes());
        field(&mac.finalize().into_bytes()[..16])
    }

    /// Whether `tag` is `body`'s, compared in constant time.
    fn verify(&self, body: &str, tag: &str) -> bool {
        let Ok(bytes) = URL_SAFE_NO_PAD.decode(tag) else {
            return false;
        };
        let mut mac = self.0.clone();
        mac.update(body.as_bytes());
        mac.verify_truncated_left(&bytes).is_ok() && bytes.len() == 16
    }
}

impl std::fmt::Debug for CursorKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CursorKey(..)")
    }
}

/// FNV-1a, 64 bits: enough to catch a changed cursor, with no secret involved.
fn checksum(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn field(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Encodes a `LastEvaluatedKey` from `index` into a cursor, signed with `signer` when
/// there is one.
pub(crate) fn encode(
    index: &IndexSchema,
    key: &Item,
    signer: Option<&CursorKey>,
) -> Result<String> {
    let mut names: Vec<&String> = key.keys().collect();
    names.sort();
    let version = if signer.is_some() { SIGNED } else { VERSION };
    let mut body = format!("{version}.{}", field(index.label().as_bytes()));
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
    Ok(match signer {
        Some(signer) => {
            let tag = signer.tag(&body);
            format!("{body}.{tag}")
        }
        None => {
            let sum = checksum(&body);
            format!("{body}.{sum:016x}")
        }
    })
}

/// Decodes a cursor made by [`encode`] for the same index with the same key (or none),
/// checking everything.
pub(crate) fn decode(
    cursor: &str,
    schema: &Schema,
    index: &IndexSchema,
    signer: Option<&CursorKey>,
) -> Result<Item> {
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
    let mut parts = body.split('.');
    match (parts.next(), signer) {
        (Some(SIGNED), Some(signer)) => {
            if !signer.verify(body, sum) {
                return invalid("it was changed, or signed with another key");
            }
        }
        (Some(VERSION), None) => {
            if u64::from_str_radix(sum, 16).ok() != Some(checksum(body)) {
                return invalid("it was changed or cut short");
            }
        }
        (Some(VERSION), Some(_)) => {
            return invalid("it is not signed, and this client signs its cursors");
        }
        (Some(SIGNED), None) => {
            return invalid("it is signed, and this client has no cursor key");
        }
        _ => return invalid("unknown cursor version"),
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

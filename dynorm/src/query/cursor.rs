//! Opaque page cursors: a `LastEvaluatedKey`, bound to what it pages and checked on the
//! way back in.
//!
//! A cursor is bound to a [`Binding`]: the full table name, the index (or the table), the
//! model (or the collection's entities) and the partition (a query's hash key values, a
//! scan's segment). A cursor made under another binding is refused before anything is
//! sent.
//!
//! - Without a [`CursorKey`] a cursor is `c3.` followed by base64url fields (the table,
//!   the model, the index, a digest of the partition, then each key attribute's name,
//!   type and value) and a checksum of all of them. Its key values are readable by
//!   whoever holds it, and a holder who edits one on purpose can recompute the checksum:
//!   it catches accidents, not forgeries.
//! - With a key it is `c4.` followed by the base64url of a random 24-byte nonce and the
//!   key attributes sealed with XChaCha20-Poly1305, the binding as associated data: its
//!   key values cannot be read, and a cursor that was changed, sealed with another key
//!   or made under another binding does not open.
//!
//! A cursor of another version, an unsealed one where a key is set (or the other way
//! round), or one whose key does not fit the index is a validation error naming the
//! model and the operation, before anything is sent.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;

use chacha20poly1305::aead::{Aead, Generate, Payload};
use chacha20poly1305::XNonce;

use super::cursor_key::CursorKey;
use crate::client::Client;
use crate::error::{Error, Result};
use crate::schema::{IndexSchema, Schema};
use crate::value::Item;
use crate::value::ScalarType;

/// The version of a cursor with a checksum.
const CHECKED: &str = "c3";
/// The version of a sealed cursor.
const SEALED: &str = "c4";
/// The versions of earlier releases, refused with a word on why.
const EARLIER: [&str; 2] = ["c1", "c2"];
/// The length of a sealed cursor's nonce.
const NONCE: usize = 24;

/// What a cursor is bound to, and how to make and read one: the full table name, the
/// index, the model and the partition, with the client's cursor key.
pub(crate) struct Binding {
    /// The schema whose key a cursor holds; its model names errors.
    schema: &'static Schema,
    index: IndexSchema,
    operation: &'static str,
    table: String,
    /// The model, or a collection's entities.
    model: String,
    /// The partition, in the form `partition_bytes` gives.
    partition: Vec<u8>,
    key: Option<CursorKey>,
}

impl Binding {
    /// The binding of pages of `schema`'s model through `index` on `client`'s table, by
    /// `operation`, over the whole index (a scan without segments) until a partition is
    /// set.
    pub(crate) fn new(
        client: &Client,
        schema: &'static Schema,
        index: IndexSchema,
        operation: &'static str,
    ) -> Self {
        Self {
            schema,
            index,
            operation,
            table: client.table_name_of(schema),
            model: schema.model.to_owned(),
            partition: vec![b'W'],
            key: client.cursor_key().cloned(),
        }
    }

    /// Bound to a collection's entities, rather than one model.
    pub(crate) fn collection(mut self, entities: &[&Schema]) -> Self {
        let names: Vec<&str> = entities
            .iter()
            .map(|s| s.entity.as_ref().map_or(s.model, |e| e.name))
            .collect();
        self.model = format!("collection of {}", names.join(", "));
        self
    }

    /// Bound to the partition of these hash key values.
    pub(crate) fn partition<'a>(
        mut self,
        values: impl IntoIterator<Item = (&'a str, &'a AttributeValue)>,
    ) -> Self {
        let mut bytes = vec![b'H'];
        for (name, value) in values {
            push_field(&mut bytes, name.as_bytes());
            let (tag, value) = scalar(value);
            bytes.push(tag);
            push_field(&mut bytes, &value);
        }
        self.partition = bytes;
        self
    }

    /// Bound to a scan's segment, or to the whole index without one.
    pub(crate) fn segment(mut self, segment: Option<(i32, i32)>) -> Self {
        self.partition = match segment {
            Some((segment, total)) => {
                let mut bytes = vec![b'S'];
                bytes.extend_from_slice(&segment.to_be_bytes());
                bytes.extend_from_slice(&total.to_be_bytes());
                bytes
            }
            None => vec![b'W'],
        };
        self
    }

    /// What a sealed cursor authenticates besides its key: the version and the binding,
    /// each field with its length.
    fn associated(&self) -> Vec<u8> {
        let mut out = b"dynorm page cursor\0".to_vec();
        out.extend_from_slice(SEALED.as_bytes());
        for field in [
            self.table.as_bytes(),
            self.model.as_bytes(),
            self.index.label().as_bytes(),
            &self.partition,
        ] {
            push_field(&mut out, field);
        }
        out
    }

    /// The key a page starts after, from the cursor of the page before it.
    pub(crate) fn start(&self, cursor: Option<&str>) -> Result<Option<Item>> {
        cursor.map(|c| self.decode(c)).transpose()
    }

    /// The cursor of the page after one that ended at `last_key`; `None` on the last page.
    pub(crate) fn next(&self, last_key: Option<Item>) -> Result<Option<String>> {
        last_key
            .filter(|k| !k.is_empty())
            .map(|key| self.encode(&key))
            .transpose()
    }

    fn invalid(&self, why: &str) -> Error {
        Error::validation(format!(
            "the page cursor is not valid for `{}` on table `{}`: {why}",
            self.index.label(),
            self.table
        ))
        .with_model(self.schema.model)
        .with_operation(self.operation)
    }

    /// Encodes a `LastEvaluatedKey` into a cursor, sealed when there is a key.
    fn encode(&self, key: &Item) -> Result<String> {
        let mut names: Vec<&String> = key.keys().collect();
        names.sort();
        let mut attributes = Vec::with_capacity(names.len());
        for name in names {
            let Some(value) = key.get(name) else { continue };
            let (tag, bytes) = scalar(value);
            if tag == b'?' {
                return Err(self.invalid(&format!(
                    "a page key attribute `{name}` is {}, not S, N or B",
                    crate::value::describe(value)
                )));
            }
            attributes.push((name.as_str(), char::from(tag), bytes));
        }
        match &self.key {
            Some(cipher) => self.seal(cipher, &attributes),
            None => Ok(self.checked(&attributes)),
        }
    }

    /// A `c3` cursor: readable fields and a checksum.
    fn checked(&self, attributes: &[(&str, char, Vec<u8>)]) -> String {
        let mut body = format!(
            "{CHECKED}.{}.{}.{}.{:016x}",
            field(self.table.as_bytes()),
            field(self.model.as_bytes()),
            field(self.index.label().as_bytes()),
            checksum(&self.partition)
        );
        for (name, tag, value) in attributes {
            body.push('.');
            body.push_str(&field(name.as_bytes()));
            body.push('.');
            body.push(*tag);
            body.push('.');
            body.push_str(&field(value));
        }
        let sum = checksum(body.as_bytes());
        format!("{body}.{sum:016x}")
    }

    /// A `c4` cursor: the key attributes sealed, the binding authenticated with them.
    fn seal(&self, cipher: &CursorKey, attributes: &[(&str, char, Vec<u8>)]) -> Result<String> {
        let mut plain = Vec::new();
        for (name, tag, value) in attributes {
            push_field(&mut plain, name.as_bytes());
            // The tag is one of `S`, `N`, `B`: ASCII.
            plain.push(*tag as u8);
            push_field(&mut plain, value);
        }
        let nonce = XNonce::try_generate().map_err(|e| {
            Error::config(format!("no random nonce for a page cursor: {e}"))
                .with_model(self.schema.model)
                .with_operation(self.operation)
        })?;
        let associated = self.associated();
        let sealed = cipher
            .0
            .encrypt(
                &nonce,
                Payload {
                    msg: &plain,
                    aad: &associated,
                },
            )
            .map_err(|_| self.invalid("it could not be sealed"))?;
        let mut bytes = Vec::with_capacity(NONCE + sealed.len());
        bytes.extend_from_slice(&nonce);
        bytes.extend_from_slice(&sealed);
        Ok(format!("{SEALED}.{}", field(&bytes)))
    }

    /// Decodes a cursor made under this binding with the same key (or none), checking
    /// everything.
    fn decode(&self, cursor: &str) -> Result<Item> {
        let (version, rest) = cursor.split_once('.').unwrap_or((cursor, ""));
        let attributes = match (version, &self.key) {
            (SEALED, Some(cipher)) => self.open(cipher, rest)?,
            (CHECKED, None) => self.read_checked(cursor)?,
            (CHECKED, Some(_)) => {
                return Err(self.invalid("it is not sealed, and this client seals its cursors"))
            }
            (SEALED, None) => {
                return Err(self.invalid("it is sealed, and this client has no cursor key"))
            }
            (earlier, _) if EARLIER.contains(&earlier) => {
                return Err(self.invalid(
                    "it was made by an earlier version of dynorm, whose cursors are not bound \
                     to their table, model and partition; read again from the first page",
                ))
            }
            _ => return Err(self.invalid("it is not a dynorm cursor")),
        };
        let mut key = Item::new();
        for (name, tag, bytes) in attributes {
            let value = match tag {
                b'S' | b'N' => match String::from_utf8(bytes) {
                    Ok(s) if tag == b'S' => AttributeValue::S(s),
                    Ok(n) => AttributeValue::N(n),
                    Err(_) => return Err(self.invalid("a value is not text")),
                },
                b'B' => AttributeValue::B(Blob::new(bytes)),
                _ => return Err(self.invalid("unknown attribute type")),
            };
            key.insert(name, value);
        }
        self.check_fits(&key)?;
        Ok(key)
    }

    /// The attributes of a sealed cursor, opened.
    fn open(&self, cipher: &CursorKey, text: &str) -> Result<Vec<(String, u8, Vec<u8>)>> {
        let refused = || {
            self.invalid(
                "it was made for another table, model, index or partition, was changed, or \
                 was sealed with another key",
            )
        };
        let bytes = URL_SAFE_NO_PAD.decode(text).map_err(|_| refused())?;
        if bytes.len() < NONCE {
            return Err(refused());
        }
        let (nonce, sealed) = bytes.split_at(NONCE);
        let nonce = XNonce::try_from(nonce).map_err(|_| refused())?;
        let associated = self.associated();
        let plain = cipher
            .0
            .decrypt(
                &nonce,
                Payload {
                    msg: sealed,
                    aad: &associated,
                },
            )
            .map_err(|_| refused())?;
        let mut rest = plain.as_slice();
        let mut out = Vec::new();
        while !rest.is_empty() {
            let name = take_field(&mut rest).ok_or_else(refused)?;
            let name = String::from_utf8(name.to_vec()).map_err(|_| refused())?;
            let (&tag, after) = rest.split_first().ok_or_else(refused)?;
            rest = after;
            let value = take_field(&mut rest).ok_or_else(refused)?;
            out.push((name, tag, value.to_vec()));
        }
        Ok(out)
    }

    /// The attributes of a `c3` cursor, once its checksum and binding are checked.
    fn read_checked(&self, cursor: &str) -> Result<Vec<(String, u8, Vec<u8>)>> {
        let Some((body, sum)) = cursor.rsplit_once('.') else {
            return Err(self.invalid("it is not a dynorm cursor"));
        };
        if sum != format!("{:016x}", checksum(body.as_bytes())) {
            return Err(self.invalid("it was changed or cut short"));
        }
        let text = |part: Option<&str>| {
            part.and_then(|p| URL_SAFE_NO_PAD.decode(p).ok())
                .and_then(|bytes| String::from_utf8(bytes).ok())
                .unwrap_or_default()
        };
        let mut parts = body.split('.').skip(1);
        let (table, model, index) = (text(parts.next()), text(parts.next()), text(parts.next()));
        if table != self.table {
            return Err(self.invalid(&format!("it comes from another table (`{table}`)")));
        }
        if model != self.model {
            return Err(self.invalid(&format!(
                "it comes from a read of another model (`{model}`)"
            )));
        }
        if index != self.index.label() {
            return Err(self.invalid(&format!(
                "it comes from a read of another index (`{index}`)"
            )));
        }
        if parts.next() != Some(format!("{:016x}", checksum(&self.partition)).as_str()) {
            return Err(self.invalid(
                "it comes from another partition (another hash key value, or another segment \
                 of a scan)",
            ));
        }
        let mut out = Vec::new();
        while let Some(name) = parts.next() {
            let (Some(tag), Some(value)) = (parts.next(), parts.next()) else {
                return Err(self.invalid("it is incomplete"));
            };
            let name = text(Some(name));
            let Ok(value) = URL_SAFE_NO_PAD.decode(value) else {
                return Err(self.invalid("a value is not base64"));
            };
            let tag = match tag {
                "S" => b'S',
                "N" => b'N',
                "B" => b'B',
                _ => return Err(self.invalid("unknown attribute type")),
            };
            out.push((name, tag, value));
        }
        Ok(out)
    }

    /// Whether a decoded key is one that `LastEvaluatedKey` of this index has.
    fn check_fits(&self, key: &Item) -> Result<()> {
        let expected = self.index.cursor_attributes(self.schema);
        let fits = key.len() == expected.len()
            && expected.iter().all(|attribute| {
                matches!(
                    (attribute.scalar, key.get(attribute.name)),
                    (ScalarType::S, Some(AttributeValue::S(_)))
                        | (ScalarType::N, Some(AttributeValue::N(_)))
                        | (ScalarType::B, Some(AttributeValue::B(_)))
                )
            });
        if fits {
            Ok(())
        } else {
            Err(self.invalid("its key has the wrong attributes"))
        }
    }
}

/// FNV-1a, 64 bits: enough to catch a changed cursor, with no secret involved.
fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn field(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// A key value's type tag and bytes; a value of another type (never a key's) as its
/// description.
fn scalar(value: &AttributeValue) -> (u8, Vec<u8>) {
    match value {
        AttributeValue::S(s) => (b'S', s.as_bytes().to_vec()),
        AttributeValue::N(n) => (b'N', n.as_bytes().to_vec()),
        AttributeValue::B(b) => (b'B', b.as_ref().to_vec()),
        other => (b'?', crate::value::describe(other).as_bytes().to_vec()),
    }
}

/// Appends `bytes` with their length in front (4 bytes, big-endian).
fn push_field(out: &mut Vec<u8>, bytes: &[u8]) {
    let length = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&length.to_be_bytes());
    out.extend_from_slice(bytes);
}

/// Takes a field `push_field` wrote from the front of `rest`.
fn take_field<'a>(rest: &mut &'a [u8]) -> Option<&'a [u8]> {
    let (length, after) = rest.split_first_chunk::<4>()?;
    let length = usize::try_from(u32::from_be_bytes(*length)).ok()?;
    let field = after.get(..length)?;
    *rest = after.get(length..)?;
    Some(field)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::cursor_key::MIN_KEY_BYTES;
    use crate::schema::{IndexKind, KeyAttribute, Projection};

    const EMAIL_KEY: KeyAttribute = KeyAttribute {
        name: "email",
        scalar: ScalarType::S,
    };
    const ID_KEY: KeyAttribute = KeyAttribute {
        name: "id",
        scalar: ScalarType::S,
    };

    /// Users by email, and a global index by team.
    const USER: Schema = Schema {
        range_key: Some(ID_KEY),
        keys: &[EMAIL_KEY, ID_KEY],
        attributes: &["email", "id", "team"],
        indexes: &[IndexSchema {
            name: "byTeam",
            type_name: "UserByTeam",
            kind: IndexKind::Global,
            hash_key: &[KeyAttribute {
                name: "team",
                scalar: ScalarType::S,
            }],
            range_key: &[],
            projection: Projection::All,
            range_prefix: None,
        }],
        ..Schema::blank("User", EMAIL_KEY)
    };

    const SECRET: &[u8] = b"0123456789abcdef0123456789abcdef";
    const EMAIL: &str = "ada@example.com";

    fn client(secret: Option<&[u8]>) -> Client {
        let client = Client::offline();
        match secret {
            Some(secret) => client
                .to_builder()
                .cursor_key(secret)
                .map(|b| b.build())
                .unwrap(),
            None => client,
        }
    }

    fn last_key() -> Item {
        Item::from([
            ("email".to_owned(), AttributeValue::S(EMAIL.into())),
            // Long enough that random bytes never spell it: the sealed cursor's test looks
            // for it in a nonce and a ciphertext (two letters appear there about once in
            // 600 runs).
            ("id".to_owned(), AttributeValue::S(USER_ID.into())),
        ])
    }

    /// The id in [`last_key`].
    const USER_ID: &str = "user-00000001";

    fn table(client: &Client, email: &str) -> Binding {
        let value = AttributeValue::S(email.into());
        Binding::new(client, &USER, USER.table_index(), "query").partition([("email", &value)])
    }

    fn refused(binding: &Binding, cursor: &str) -> String {
        let error = binding.start(Some(cursor)).unwrap_err();
        assert_eq!(error.kind(), crate::ErrorKind::Validation, "{error}");
        assert_eq!(error.model(), Some("User"));
        assert_eq!(error.operation(), Some("query"));
        error.to_string()
    }

    #[test]
    fn a_cursor_reads_back_the_key_it_was_made_from() {
        for secret in [None, Some(SECRET)] {
            let binding = table(&client(secret), EMAIL);
            let cursor = binding.next(Some(last_key())).unwrap().unwrap();
            let version = if secret.is_some() { SEALED } else { CHECKED };
            assert!(cursor.starts_with(&format!("{version}.")), "{cursor}");
            assert_eq!(binding.start(Some(&cursor)).unwrap(), Some(last_key()));
            assert_eq!(binding.next(None).unwrap(), None);
            assert_eq!(binding.next(Some(Item::new())).unwrap(), None);
        }
    }

    #[test]
    fn a_sealed_cursor_hides_its_key_values_and_changes_each_time() {
        let binding = table(&client(Some(SECRET)), EMAIL);
        let one = binding.next(Some(last_key())).unwrap().unwrap();
        let two = binding.next(Some(last_key())).unwrap().unwrap();
        assert_ne!(one, two, "a random nonce each time");
        let bytes = URL_SAFE_NO_PAD.decode(&one[3..]).unwrap();
        let shows = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
        assert!(!shows(EMAIL.as_bytes()) && !shows(b"email") && !shows(USER_ID.as_bytes()));
        // The checked cursor shows them, as documented.
        let plain = table(&client(None), EMAIL)
            .next(Some(last_key()))
            .unwrap()
            .unwrap();
        assert!(plain.contains(&field(EMAIL.as_bytes())), "{plain}");
    }

    #[test]
    fn a_changed_cursor_is_refused() {
        for secret in [None, Some(SECRET)] {
            let binding = table(&client(secret), EMAIL);
            let cursor = binding.next(Some(last_key())).unwrap().unwrap();
            // Every single character changed, one at a time.
            for at in 3..cursor.len() {
                let mut changed = cursor.clone().into_bytes();
                changed[at] = if changed[at] == b'A' { b'B' } else { b'A' };
                let changed = String::from_utf8(changed).unwrap();
                if changed != cursor {
                    refused(&binding, &changed);
                }
            }
            refused(&binding, &cursor[..cursor.len() - 2]);
            refused(&binding, "garbage");
            refused(&binding, "");
        }
    }

    #[test]
    fn a_cursor_is_refused_under_any_other_binding() {
        for secret in [None, Some(SECRET)] {
            let client = client(secret);
            let binding = table(&client, EMAIL);
            let cursor = binding.next(Some(last_key())).unwrap().unwrap();
            let value = AttributeValue::S(EMAIL.into());
            let others = [
                ("partition", table(&client, "bob@example.com")),
                (
                    "table",
                    table(&client.to_builder().table_prefix("other_").build(), EMAIL),
                ),
                ("model", table(&client, EMAIL).collection(&[&USER, &USER])),
                (
                    "index",
                    Binding::new(&client, &USER, USER.indexes[0], "query")
                        .partition([("team", &value)]),
                ),
                (
                    "segment",
                    Binding::new(&client, &USER, USER.table_index(), "query").segment(Some((0, 2))),
                ),
            ];
            for (what, other) in others {
                let message = refused(&other, &cursor);
                if secret.is_none() {
                    let expected = match what {
                        "partition" | "segment" => "another partition",
                        "table" => "another table",
                        other => other,
                    };
                    assert!(message.contains(expected), "{what}: {message}");
                } else {
                    assert!(
                        message.contains("another table, model"),
                        "{what}: {message}"
                    );
                }
            }
            // The segment of a scan binds too.
            let scan = |segment| {
                Binding::new(&client, &USER, USER.table_index(), "query").segment(segment)
            };
            let from_first = scan(Some((0, 2))).next(Some(last_key())).unwrap().unwrap();
            assert!(scan(Some((0, 2))).start(Some(&from_first)).is_ok());
            refused(&scan(Some((1, 2))), &from_first);
            refused(&scan(None), &from_first);
        }
    }

    #[test]
    fn sealed_and_checked_cursors_and_keys_do_not_mix() {
        let sealed = table(&client(Some(SECRET)), EMAIL);
        let checked = table(&client(None), EMAIL);
        let other = table(&client(Some(b"another secret of 32 bytes or more")), EMAIL);
        let from_sealed = sealed.next(Some(last_key())).unwrap().unwrap();
        let from_checked = checked.next(Some(last_key())).unwrap().unwrap();
        assert!(refused(&checked, &from_sealed).contains("no cursor key"));
        assert!(refused(&sealed, &from_checked).contains("not sealed"));
        assert!(refused(&other, &from_sealed).contains("another key"));
        // Cursors of earlier versions are refused with a word on why.
        assert!(refused(&checked, "c1.dGFibGU.abc.0000000000000000").contains("earlier version"));
    }

    #[test]
    fn a_short_or_empty_key_is_refused() {
        for secret in [&b""[..], b"short", &SECRET[..MIN_KEY_BYTES - 1]] {
            let error = CursorKey::new(secret).unwrap_err();
            assert_eq!(error.kind(), crate::ErrorKind::Config, "{error}");
            assert!(error.to_string().contains("at least 32 bytes"), "{error}");
        }
        assert!(CursorKey::new(SECRET).is_ok());
    }

    #[test]
    fn a_key_of_the_wrong_attributes_is_refused() {
        let binding = table(&client(Some(SECRET)), EMAIL);
        let mut key = last_key();
        key.remove("id");
        let cursor = binding.next(Some(key)).unwrap().unwrap();
        assert!(refused(&binding, &cursor).contains("wrong attributes"));
    }
}

//! Unique attributes (`#[unique]`): the guard item that holds each unique value of a
//! constraint (`Unique`, in `unique_constraint.rs`). Pure: the layout of a guard.
//!
//! A guard lives in the model's table. Its key is text made of the model's stable name,
//! the constraint and the values (scope first), so that two items holding the same values
//! would need the same guard: writing a guard on condition that it does not exist, in the
//! same transaction as the item, is what makes the value unique.
//!
//! The stable name is `#[dynorm(unique_name = "..")]`, else the entity name given with
//! `#[dynorm(entity = "..")]`, never the Rust type's name (the derive requires one of
//! them), so renaming a struct keeps its guards. Every hash key that begins with
//! `$unique#` is a guard's: no model's own key may begin so, and every path refuses one
//! before sending ([`refuse_guard_key`]).
//!
//! ```text
//! <hash key>   S  "$unique#<stable name>#<constraint>#<scope value>#...#<value>#..."
//! <range key>  S  "$unique"                      (when the table has one)
//! __dynorm_unique__      S  "<stable name>.<constraint>"   marks the item as a guard
//! __dynorm_owner_hash__  the owner's hash key value
//! __dynorm_owner_range__ the owner's range key value (when the table has one)
//! <entity attribute>     S  "dynorm.unique"      (single-table models: other readers skip it)
//! ```
//!
//! A value's text is a string as is, a number as DynamoDB stores it, a boolean as `true` or
//! `false`, and binary as lowercase hex; `\` and `#` inside it are escaped with `\`.

use std::fmt::Write as _;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};
use crate::schema::const_text::ConstText;
use crate::schema::unique_constraint::Unique;
use crate::schema::Schema;
use crate::value::{Item, ScalarType};

/// The attribute that marks a guard item; it holds `<entity or model>.<constraint>`.
pub const GUARD_MARKER: &str = "__dynorm_unique__";
/// The guard attribute that holds the owner's hash key value.
pub const GUARD_OWNER_HASH: &str = "__dynorm_owner_hash__";
/// The guard attribute that holds the owner's range key value.
pub const GUARD_OWNER_RANGE: &str = "__dynorm_owner_range__";
/// The entity name a guard carries in a single-table model's entity attribute.
pub const GUARD_ENTITY: &str = "dynorm.unique";
/// How every guard's hash key begins.
pub const GUARD_PREFIX: &str = "$unique#";
/// A guard's range key, when the table has one.
pub const GUARD_RANGE: &str = "$unique";

/// DynamoDB's limit on a partition key value, in bytes.
const MAX_HASH_KEY_BYTES: usize = 2048;

impl Unique {
    /// The guard's key for these values (in [`sources`](Self::sources) order).
    pub fn guard_key(&self, schema: &Schema, values: &[&AttributeValue]) -> Result<Item> {
        let mut text = String::with_capacity(64);
        text.push_str(GUARD_PREFIX);
        escape_into(&mut text, self.owner);
        text.push('#');
        escape_into(&mut text, self.name);
        for (name, value) in self.sources().zip(values) {
            text.push('#');
            value_text(&mut text, value).ok_or_else(|| {
                Error::validation(format!(
                    "`{name}` is part of a unique constraint, so it must hold a string, a \
                     number, a boolean or binary, not {}",
                    crate::value::describe(value)
                ))
                .with_model(schema.model)
                .with_attribute(name)
            })?;
        }
        if text.len() > MAX_HASH_KEY_BYTES {
            return Err(Error::validation(format!(
                "the guard key of the unique `{}` would be {} bytes; DynamoDB's limit for a \
                 partition key is {MAX_HASH_KEY_BYTES}",
                self.name,
                text.len()
            ))
            .with_model(schema.model)
            .with_attribute(self.attributes[0]));
        }
        let mut key = Item::with_capacity(2);
        key.insert(schema.hash_key.name.to_owned(), AttributeValue::S(text));
        if let Some(range) = schema.range_key {
            key.insert(
                range.name.to_owned(),
                AttributeValue::S(GUARD_RANGE.to_owned()),
            );
        }
        Ok(key)
    }

    /// The whole guard item for these values, owned by the item whose key is `owner`.
    pub fn guard_item(
        &self,
        schema: &Schema,
        values: &[&AttributeValue],
        owner: &Item,
    ) -> Result<Item> {
        let mut item = self.guard_key(schema, values)?;
        item.insert(
            GUARD_MARKER.to_owned(),
            AttributeValue::S(format!("{}.{}", self.owner, self.name)),
        );
        if let Some(hash) = owner.get(schema.hash_key.name) {
            item.insert(GUARD_OWNER_HASH.to_owned(), hash.clone());
        }
        if let Some(range) = schema.range_key.and_then(|r| owner.get(r.name)) {
            item.insert(GUARD_OWNER_RANGE.to_owned(), range.clone());
        }
        if let Some(entity) = schema.entity {
            item.insert(
                entity.attribute.to_owned(),
                AttributeValue::S(GUARD_ENTITY.to_owned()),
            );
        }
        Ok(item)
    }
}

/// The key of the item a guard belongs to, from the guard's owner attributes.
pub fn guard_owner(schema: &Schema, guard: &Item) -> Option<Item> {
    let mut key = Item::with_capacity(2);
    key.insert(
        schema.hash_key.name.to_owned(),
        guard.get(GUARD_OWNER_HASH)?.clone(),
    );
    if let Some(range) = schema.range_key {
        key.insert(range.name.to_owned(), guard.get(GUARD_OWNER_RANGE)?.clone());
    }
    Some(key)
}

/// Whether a stored item is a guard.
pub fn is_guard(item: &Item) -> bool {
    item.contains_key(GUARD_MARKER)
}

/// Whether a key is a guard's: its hash key is text that begins as every guard's does.
pub fn is_guard_key(schema: &Schema, key: &Item) -> bool {
    key.get(schema.hash_key.name).is_some_and(is_guard_text)
}

/// Whether a value is text that begins as every guard's hash key does.
fn is_guard_text(value: &AttributeValue) -> bool {
    matches!(value, AttributeValue::S(s) if s.starts_with(GUARD_PREFIX))
}

/// Refuses `value` of `attribute` when `attribute` is the table's hash key and the value
/// would address a guard item (text beginning with `$unique#`), so that no key a caller
/// gives reaches a guard: not to read it, not to write it. It holds for every model,
/// with unique attributes or not, since any model of a table can address the guards of
/// another model of that table. The caller adds the operation.
pub(crate) fn refuse_guard_key(
    schema: &Schema,
    attribute: &str,
    value: &AttributeValue,
) -> Result<()> {
    if attribute != schema.hash_key.name || !is_guard_text(value) {
        return Ok(());
    }
    Err(Error::validation(format!(
        "the key `{attribute}` begins with `{GUARD_PREFIX}`, which only the guard items of \
         unique attributes use; no item of a model can have such a key"
    ))
    .with_model(schema.model)
    .with_attribute(attribute))
}

/// [`refuse_guard_key`] for each of a partition's hash key values (a query's, a
/// collection's, a relation's), attributing the error to `operation`.
pub(crate) fn refuse_guard_partition<'a>(
    schema: &Schema,
    hash: impl IntoIterator<Item = (&'a str, &'a AttributeValue)>,
    operation: &'static str,
) -> Result<()> {
    hash.into_iter()
        .try_for_each(|(attribute, value)| refuse_guard_key(schema, attribute, value))
        .map_err(|e| e.with_operation(operation))
}

/// Appends `text` with `\` and `#` escaped.
fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        if c == '\\' || c == '#' {
            out.push('\\');
        }
        out.push(c);
    }
}

/// Appends a value's text, escaped; `None` for a type that has no text.
fn value_text(out: &mut String, value: &AttributeValue) -> Option<()> {
    match value {
        AttributeValue::S(s) => escape_into(out, s),
        AttributeValue::N(n) => out.push_str(n),
        AttributeValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        AttributeValue::B(bytes) => {
            for byte in bytes.as_ref() {
                let _ = write!(out, "{byte:02x}");
            }
        }
        _ => return None,
    }
    Some(())
}

/// The compile-time check that a model with unique attributes can hold guards: its table's
/// keys are strings (a guard's key is text) and it has no `#[ttl]` (DynamoDB's TTL deletes
/// an item without its guards).
pub const fn check_guards(schema: &Schema) {
    if schema.uniques.is_empty() {
        return;
    }
    let mut i = 0;
    while i < schema.keys.len() {
        if !matches!(schema.keys[i].scalar, ScalarType::S) {
            ConstText::new()
                .push("model `")
                .push(schema.model)
                .push("` has unique attributes, so its table keys must be strings: each unique value is kept in a guard item whose key is text, and `")
                .push(schema.keys[i].name)
                .push("` is not a string")
                .fail();
        }
        i += 1;
    }
    if schema.ttl.is_some() {
        ConstText::new()
            .push("model `")
            .push(schema.model)
            .push("` has unique attributes and a #[ttl]: DynamoDB's TTL deletes an item without its guard items, which would keep its values taken")
            .fail();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: crate::schema::KeyAttribute = crate::schema::KeyAttribute {
        name: "id",
        scalar: ScalarType::S,
    };

    fn schema() -> Schema {
        Schema {
            keys: &[K],
            attributes: &["id", "team", "email"],
            uniques: &[EMAIL],
            ..Schema::blank("Plain", K)
        }
    }

    const EMAIL: Unique = Unique {
        owner: "Person",
        name: "email",
        attributes: &["email"],
        scope: &["team"],
    };

    fn s(text: &str) -> AttributeValue {
        AttributeValue::S(text.to_owned())
    }

    #[test]
    fn guard_keys_escape_the_separator() {
        let schema = schema();
        let a = EMAIL.guard_key(&schema, &[&s("t#1"), &s("x")]).unwrap();
        let b = EMAIL.guard_key(&schema, &[&s("t"), &s("1#x")]).unwrap();
        assert_ne!(a, b);
        assert_eq!(
            a.get(schema.hash_key.name),
            Some(&s("$unique#Person#email#t\\#1#x"))
        );
    }

    #[test]
    fn absent_or_null_values_have_no_guard() {
        let mut item = Item::new();
        item.insert("email".into(), s("a@b"));
        assert!(EMAIL.values(&item).is_none());
        item.insert("team".into(), AttributeValue::Null(true));
        assert!(EMAIL.values(&item).is_none());
        item.insert("team".into(), s("t1"));
        assert_eq!(EMAIL.values(&item).unwrap(), vec![&s("t1"), &s("a@b")]);
    }

    #[test]
    fn guards_name_their_owner_and_are_recognised() {
        let schema = schema();
        let mut owner = Item::new();
        owner.insert(schema.hash_key.name.into(), s("u1"));
        let guard = EMAIL
            .guard_item(&schema, &[&s("t1"), &s("a@b")], &owner)
            .unwrap();
        assert!(is_guard(&guard));
        assert!(is_guard_key(&schema, &guard));
        assert_eq!(guard_owner(&schema, &guard), Some(owner));
    }

    #[test]
    fn guards_are_keyed_by_the_stable_name_not_the_model() {
        let schema = schema();
        let key = EMAIL.guard_key(&schema, &[&s("t"), &s("a")]).unwrap();
        assert!(
            matches!(&key[schema.hash_key.name], AttributeValue::S(t) if t.starts_with("$unique#Person#")),
            "{key:?}"
        );
    }

    #[test]
    fn hash_keys_that_address_a_guard_are_refused() {
        let schema = schema();
        let error = refuse_guard_key(&schema, "id", &s("$unique#Person#email#t#a")).unwrap_err();
        assert!(error.is_validation());
        assert_eq!(error.attribute(), Some("id"));
        assert_eq!(error.model(), Some("Plain"));
        // The prefix only: other text, other attributes and other types pass.
        assert!(refuse_guard_key(&schema, "id", &s("$unique")).is_ok());
        assert!(refuse_guard_key(&schema, "id", &s("x$unique#")).is_ok());
        assert!(refuse_guard_key(&schema, "email", &s("$unique#x")).is_ok());
        let bytes = AttributeValue::B(aws_sdk_dynamodb::primitives::Blob::new(*b"$unique#x"));
        assert!(refuse_guard_key(&schema, "id", &bytes).is_ok());
    }

    #[test]
    fn values_without_text_are_refused() {
        let schema = schema();
        let list = AttributeValue::L(vec![]);
        let error = EMAIL.guard_key(&schema, &[&s("t"), &list]).unwrap_err();
        assert!(error.is_validation());
        assert_eq!(error.attribute(), Some("email"));
    }
}

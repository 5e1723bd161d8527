//! What a model says about its table: names, keys, indexes and attribute behaviours,
//! built by the derive as constants.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};
use crate::schema::entity::Entity;
use crate::schema::index::{IndexKind, IndexSchema, Projection};
use crate::schema::shape::Shape;
use crate::schema::unique;
use crate::schema::{Combine, Count, Generated, StreamView, Unique};
use crate::value::{limits, AttrError, Item, ScalarType};

/// One key attribute: its name and type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyAttribute {
    /// The attribute name.
    pub name: &'static str,
    /// S, N or B.
    pub scalar: ScalarType,
}

/// What a model says about its table, built by the derive at compile time.
#[derive(Clone, Copy, Debug)]
pub struct Schema {
    /// The model's Rust name, used in error messages.
    pub model: &'static str,
    /// The base table name.
    pub table: &'static str,
    /// The model's own table name prefix, overriding the client's.
    pub table_prefix: Option<&'static str>,
    /// The model's own table name suffix, overriding the client's.
    pub table_suffix: Option<&'static str>,
    /// The hash key.
    pub hash_key: KeyAttribute,
    /// The range key, if any.
    pub range_key: Option<KeyAttribute>,
    /// The hash key, then the range key if any: the same attributes as one slice.
    pub keys: &'static [KeyAttribute],
    /// Every attribute name of the model, in field order.
    pub attributes: &'static [&'static str],
    /// The secondary indexes, global ones first, in declaration order.
    pub indexes: &'static [IndexSchema],
    /// The `#[version]` attribute, for optimistic locking.
    pub version: Option<&'static str>,
    /// The `#[ttl]` attribute: the item's expiry in epoch seconds.
    pub ttl: Option<&'static str>,
    /// The `#[combine]` attributes, each built from other attributes on every write.
    pub combines: &'static [Combine],
    /// For a single-table model: its entity name and key templates.
    pub entity: Option<Entity>,
    /// Attributes filled in by `create` when they are absent (`#[dynorm(default = ...)]`).
    pub defaults: &'static [Generated],
    /// The attribute set to now on every write (`#[dynorm(updated_at)]`).
    pub updated_at: Option<Generated>,
    /// The table's stream view type (`#[dynorm(stream = "..")]`), when it has a stream.
    pub stream: Option<StreamView>,
    /// The unique constraints (`#[unique]`), each kept by guard items in the table.
    pub uniques: &'static [Unique],
    /// The counts its items are kept in (`#[count]`), each on a parent item.
    pub counts: &'static [Count],
    /// The shape its items have (`#[dynorm(shape = ..)]`), when it declares one.
    pub shape: Option<Shape>,
    /// The largest item the model writes, in bytes as DynamoDB counts them
    /// (`#[dynorm(max_item_bytes = N)]`); `None`: DynamoDB's own limit, 400 KB.
    pub max_item_bytes: Option<usize>,
}

#[cfg(test)]
impl Schema {
    /// A schema for unit tests: model and table `name`, hash key `hash_key`, and nothing
    /// else; a test sets what it needs with `..Schema::blank(..)`.
    pub(crate) const fn blank(name: &'static str, hash_key: KeyAttribute) -> Self {
        Self {
            model: name,
            table: name,
            table_prefix: None,
            table_suffix: None,
            hash_key,
            range_key: None,
            keys: &[],
            attributes: &[],
            indexes: &[],
            version: None,
            ttl: None,
            combines: &[],
            entity: None,
            defaults: &[],
            updated_at: None,
            stream: None,
            uniques: &[],
            counts: &[],
            shape: None,
            max_item_bytes: None,
        }
    }
}

impl Schema {
    /// The most bytes one of its items holds: its `max_item_bytes`, else DynamoDB's limit.
    pub(crate) const fn item_bound(&self) -> usize {
        match self.max_item_bytes {
            Some(bytes) => bytes,
            None => limits::MAX_ITEM_BYTES,
        }
    }

    /// Whether a write of this model writes other items with it: the guards of its unique
    /// values, or the counts it is kept in.
    pub const fn has_companions(&self) -> bool {
        !self.uniques.is_empty() || !self.counts.is_empty()
    }

    /// The attributes those other items depend on: the unique constraints' values and
    /// scopes, the fields that name a counted parent, and the marker of the counts that
    /// hold the item.
    pub(crate) fn companion_sources(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.uniques
            .iter()
            .flat_map(|u| u.sources())
            .chain(self.counts.iter().flat_map(|c| c.fields.iter().copied()))
            .chain((!self.counts.is_empty()).then_some(crate::schema::count::COUNTED))
    }

    /// Whether an update that writes `touched` (an upsert: `upsert`) marks the item as held
    /// by every count of the model: when it may name a counted parent anew.
    pub(crate) fn update_marks_counted<'a>(
        &self,
        mut touched: impl Iterator<Item = &'a str>,
        upsert: bool,
    ) -> bool {
        !self.counts.is_empty()
            && (upsert || touched.any(|name| self.counts.iter().any(|c| c.fields.contains(&name))))
    }

    /// The table itself, seen as an index.
    pub fn table_index(&self) -> IndexSchema {
        let (hash_key, range_key) = self.keys.split_at(1.min(self.keys.len()));
        IndexSchema {
            name: self.table,
            type_name: self.model,
            kind: IndexKind::Table,
            hash_key,
            range_key,
            projection: Projection::All,
            range_prefix: self.entity.and_then(|e| {
                e.keys
                    .iter()
                    .find(|k| k.index.is_none() && !k.is_hash)
                    .map(|k| k.static_prefix())
            }),
        }
    }

    /// Every index a query can use: the global ones, then the local ones, then the table.
    pub fn query_targets(&self) -> Vec<IndexSchema> {
        let mut targets: Vec<_> = self
            .indexes
            .iter()
            .filter(|i| i.kind == IndexKind::Global)
            .copied()
            .collect();
        targets.extend(
            self.indexes
                .iter()
                .filter(|i| i.kind == IndexKind::Local)
                .copied(),
        );
        targets.push(self.table_index());
        targets
    }

    /// An index by name.
    pub fn index(&self, name: &str) -> Option<&IndexSchema> {
        self.indexes.iter().find(|i| i.name == name)
    }

    /// The key attributes: the hash key, then the range key.
    pub fn key_attributes(&self) -> impl Iterator<Item = &'static KeyAttribute> {
        self.keys.iter()
    }

    /// Checks that a key item has exactly the key attributes, each of the right type and
    /// not empty. Raw keys skip the typed key, so this is what catches their mistakes.
    pub(crate) fn validate_key(&self, key: &Item, operation: &'static str) -> Result<()> {
        for attribute in self.key_attributes() {
            self.check_key_value(attribute, key.get(attribute.name), operation)?;
        }
        if let Some(extra) = key
            .keys()
            .find(|name| self.key_attributes().all(|a| a.name != name.as_str()))
        {
            return Err(Error::validation(format!(
                "`{extra}` is not a key attribute of `{}`",
                self.model
            ))
            .with_model(self.model)
            .with_operation(operation)
            .with_attribute(extra.as_str()));
        }
        Ok(())
    }

    /// Checks a whole item against DynamoDB's limits before it is written, on every path
    /// that writes one: every number in range and precision, no set with an element twice,
    /// every table key present, every table and index key of the right type and not
    /// empty, and the item at most 400 KB. The error names the attribute (and the path
    /// inside it).
    pub fn check_item(&self, item: &Item, operation: &'static str) -> Result<()> {
        let fail = |attribute: &str, error: AttrError| {
            Error::validation(error.message().to_owned())
                .with_model(self.model)
                .with_operation(operation)
                .with_attribute(error.render_path(attribute))
        };
        for (name, value) in item {
            limits::check_value(value).map_err(|e| fail(name, e))?;
        }
        for attribute in self.key_attributes() {
            self.check_key_value(attribute, item.get(attribute.name), operation)?;
        }
        for index in self.indexes {
            for attribute in index.hash_key.iter().chain(index.range_key) {
                if let Some(value) = item.get(attribute.name) {
                    self.check_key_value(attribute, Some(value), operation)
                        .map_err(|e| {
                            e.with_context(&format!("it is a key of index `{}`", index.name))
                        })?;
                }
            }
        }
        let size = limits::item_size(item);
        if size > self.item_bound() {
            return Err(self.too_large(item, size, "the item holds", operation));
        }
        Ok(())
    }

    /// The error of `item` (`what` holds it, with its verb), of `size` bytes, over
    /// [`item_bound`](Self::item_bound): it names the attribute that holds more than half
    /// of it, when one does.
    pub(crate) fn too_large(
        &self,
        item: &Item,
        size: usize,
        what: &str,
        operation: &'static str,
    ) -> Error {
        let limit = match self.max_item_bytes {
            Some(bytes) => format!(
                "`{}` declares `max_item_bytes = {bytes}`, so it writes no item larger",
                self.model
            ),
            None => "DynamoDB's limit for an item is 400 KB".to_owned(),
        };
        let largest = item
            .iter()
            .map(|(name, value)| (name, limits::attribute_size(name, value)))
            .max_by_key(|(_, bytes)| *bytes)
            .filter(|(_, bytes)| 2 * bytes > size);
        let (held, attribute) = match largest {
            Some((name, bytes)) => (format!(", {bytes} of them in `{name}`"), Some(name)),
            None => (String::new(), None),
        };
        let error = Error::validation(format!("{what} about {size} bytes{held}; {limit}"))
            .with_model(self.model)
            .with_operation(operation);
        match attribute {
            Some(name) => error.with_attribute(name.as_str()),
            None => error,
        }
    }

    /// Checks one key attribute's value: present, of the attribute's type, not empty, and,
    /// for the table's hash key, not the key of a guard item (`schema/unique.rs`).
    pub(crate) fn check_key_value(
        &self,
        attribute: &KeyAttribute,
        value: Option<&AttributeValue>,
        operation: &'static str,
    ) -> Result<()> {
        let fail = |message: String| {
            Err(Error::validation(message)
                .with_model(self.model)
                .with_operation(operation)
                .with_attribute(attribute.name))
        };
        let Some(value) = value else {
            return fail(format!(
                "the key of `{}` has no `{}`",
                self.model, attribute.name
            ));
        };
        let type_ok = matches!(
            (attribute.scalar, value),
            (ScalarType::S, AttributeValue::S(_))
                | (ScalarType::N, AttributeValue::N(_))
                | (ScalarType::B, AttributeValue::B(_))
        );
        if !type_ok {
            return fail(format!(
                "a key attribute must be {:?}, found {}",
                attribute.scalar,
                crate::value::describe(value)
            ));
        }
        let empty = match value {
            AttributeValue::S(s) => s.is_empty(),
            AttributeValue::B(b) => b.as_ref().is_empty(),
            _ => false,
        };
        if empty {
            return fail("a key attribute cannot be empty".to_owned());
        }
        unique::refuse_guard_key(self, attribute.name, value)
            .map_err(|e| e.with_operation(operation))
    }

    /// Whether an item has expired by its `#[ttl]` (DynamoDB deletes such items only
    /// eventually, up to a few days later).
    pub fn is_expired(&self, item: &Item) -> bool {
        let Some(attribute) = self.ttl else {
            return false;
        };
        match item.get(attribute) {
            Some(AttributeValue::N(n)) => n
                .parse::<i64>()
                .is_ok_and(|at| at <= crate::value::clock::epoch_seconds()),
            _ => false,
        }
    }

    /// Whether `attribute` is a key of the table.
    pub(crate) fn is_table_key(&self, attribute: &str) -> bool {
        self.keys.iter().any(|k| k.name == attribute)
    }

    /// Picks the key attributes out of a whole item.
    pub fn key_of(&self, item: &Item) -> Item {
        self.key_attributes()
            .filter_map(|a| item.get(a.name).map(|v| (a.name.to_owned(), v.clone())))
            .collect()
    }
}

//! What a model says about its table: names, keys, indexes and attribute behaviours,
//! built by the derive as constants; with `Count`, which names its parent's schema, so
//! that the two types, each holding the other, share a file.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::schema::shape::Shape;
use crate::schema::{
    Combine, Entity, Generated, IndexKind, IndexSchema, KeyAttribute, Projection, StreamView,
    Unique,
};
use crate::value::{limits, Item};

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
    /// The `#[combine]` and `watch` attributes, each built from other attributes on every
    /// write.
    pub combines: &'static [Combine],
    /// The attributes stored through a `#[dynorm(set = f)]` transform: an update can only
    /// `set` them (`set_if_not_exists` too), since an amount or elements added would not be
    /// transformed, and the transform decides what an absent value stores.
    pub transformed: &'static [&'static str],
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

/// One count: each item of the model adds one to `attribute` of the parent item whose key
/// `references` hold the item's `fields`.
#[derive(Clone, Copy, Debug)]
pub struct Count {
    /// The parent model.
    pub parent: &'static Schema,
    /// The parent's attribute that holds the count.
    pub attribute: &'static str,
    /// This model's attributes that name the parent.
    pub fields: &'static [&'static str],
    /// The parent's attributes they hold, in the same order.
    pub references: &'static [&'static str],
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
            transformed: &[],
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

    /// Why an update must write `attribute` whole, never a path inside it: something
    /// reads or builds from the whole value (a key, a built field, a constraint, a
    /// transform), or dynorm sets it. `None` for an attribute a path update may change.
    pub(crate) fn read_whole(&self, attribute: &str) -> Option<&'static str> {
        let built_from = self.combines.iter().any(|c| c.sources.contains(&attribute))
            || self
                .entity
                .as_ref()
                .is_some_and(|e| e.keys.iter().any(|k| k.fields().any(|f| f == attribute)));
        if self.is_table_key(attribute) || self.indexes.iter().any(|i| i.has_key(attribute)) {
            Some("a key attribute")
        } else if self.combines.iter().any(|c| c.attribute == attribute) {
            Some("which is built from other attributes")
        } else if built_from {
            Some("a source of a key or of a field built from it")
        } else if self.transformed.contains(&attribute) {
            Some("which is stored through its `set` transform")
        } else if self.companion_sources().any(|s| s == attribute) {
            Some("part of a unique constraint or of a count's reference")
        } else if self.version == Some(attribute)
            || self.ttl == Some(attribute)
            || self.updated_at.is_some_and(|u| u.attribute == attribute)
        {
            Some("which dynorm sets itself")
        } else {
            None
        }
    }

    /// Picks the key attributes out of a whole item.
    pub fn key_of(&self, item: &Item) -> Item {
        self.key_attributes()
            .filter_map(|a| item.get(a.name).map(|v| (a.name.to_owned(), v.clone())))
            .collect()
    }
}

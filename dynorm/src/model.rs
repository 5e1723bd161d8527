//! The traits `#[derive(Model)]` implements, and the schema it describes.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};
use crate::value::ScalarType;

/// A DynamoDB item: attribute names to values.
pub type Item = HashMap<String, AttributeValue>;

/// A Rust struct stored as DynamoDB items. Derive it with `#[derive(Model)]`.
///
/// ```
/// use dynorm::Model;
///
/// #[derive(Model, Debug, Clone, PartialEq)]
/// struct User {
///     #[hash_key]
///     id: String,
///     name: String,
/// }
///
/// assert_eq!(User::HASH_KEY, "id");
/// assert_eq!(User::RANGE_KEY, None);
/// assert_eq!(User::TABLE_NAME, "User");
///
/// let user = User { id: "u1".into(), name: "Ada".into() };
/// let item = user.to_item().unwrap();
/// assert_eq!(User::from_item(item).unwrap(), user);
/// ```
pub trait Model: Sized + Send + Sync + 'static {
    /// The typed primary key, such as `UserKey { id }`.
    type Key: ModelKey<Model = Self>;

    /// The model's names and key schema.
    const SCHEMA: Schema;

    /// The hash key's attribute name.
    const HASH_KEY: &'static str = Self::SCHEMA.hash_key.name;
    /// The range key's attribute name, if the table has one.
    const RANGE_KEY: Option<&'static str> = match Self::SCHEMA.range_key {
        Some(range) => Some(range.name),
        None => None,
    };
    /// The base table name, before any prefix or suffix.
    const TABLE_NAME: &'static str = Self::SCHEMA.table;

    /// Converts the model into an item.
    fn to_item(&self) -> Result<Item>;

    /// Converts an item into the model, taking ownership so that values are moved.
    fn from_item(item: Item) -> Result<Self>;

    /// The model's primary key.
    fn key(&self) -> Self::Key;

    /// Writes the identity of the model's primary key into `signature`, checked as a typed
    /// key is, for finding an item written twice in one batch. The derive writes a version
    /// that reads the key fields in place instead of copying them into [`key`](Self::key).
    #[doc(hidden)]
    fn __key_signature(
        &self,
        signature: &mut crate::key_signature::KeySignature<'_>,
    ) -> Result<()> {
        let key = self
            .key()
            .to_key_item()
            .map_err(|e| e.with_operation(signature.operation()))?;
        signature.push_item(&key)
    }

    /// The `CreateTable` input for this model, with its own prefix and suffix but no
    /// client-wide ones. See [`Client::create_table_input`](crate::Client::create_table_input).
    fn create_table_input() -> aws_sdk_dynamodb::operation::create_table::CreateTableInput {
        let name = format!(
            "{}{}{}",
            Self::SCHEMA.table_prefix.unwrap_or(""),
            Self::SCHEMA.table,
            Self::SCHEMA.table_suffix.unwrap_or("")
        );
        crate::table::create_table_input(&Self::SCHEMA, name)
    }

    /// [`create_table_input`](Self::create_table_input) as the JSON that
    /// `aws dynamodb create-table --cli-input-json` accepts.
    fn create_table_json() -> String {
        crate::table::to_cli_json(&Self::create_table_input())
    }
}

/// A model's typed primary key.
pub trait ModelKey: Send + Sync {
    /// The model the key belongs to.
    type Model: Model<Key = Self>;

    /// The key as DynamoDB key attributes, each in its field's storage.
    fn to_key_item(&self) -> Result<Item>;
}

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
    pub indexes: &'static [crate::index::IndexSchema],
    /// The `#[version]` attribute, for optimistic locking.
    pub version: Option<&'static str>,
    /// The `#[ttl]` attribute: the item's expiry in epoch seconds.
    pub ttl: Option<&'static str>,
    /// The `#[combine]` attributes, each built from other attributes on every write.
    pub combines: &'static [Combine],
    /// For a single-table model: its entity name and key templates.
    pub entity: Option<crate::entity::Entity>,
    /// Attributes filled in by `create` when they are absent (`#[dynorm(default = ...)]`).
    pub defaults: &'static [Generated],
    /// The attribute set to now on every write (`#[dynorm(updated_at)]`).
    pub updated_at: Option<Generated>,
}

/// An attribute whose value dynorm generates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Generated {
    /// The attribute.
    pub attribute: &'static str,
    /// What it is set to.
    pub value: GeneratedValue,
}

/// A generated value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeneratedValue {
    /// The current time, in this storage.
    Now(crate::value::date::DateStorage),
    /// A new UUID v7: unique, and sortable by creation time.
    UuidV7,
}

impl GeneratedValue {
    /// A fresh value.
    pub fn generate(self) -> AttributeValue {
        match self {
            Self::Now(storage) => crate::value::date::encode(&chrono::Utc::now(), storage)
                .ok()
                .flatten()
                .unwrap_or(AttributeValue::Null(true)),
            Self::UuidV7 => AttributeValue::S(uuid::Uuid::now_v7().to_string()),
        }
    }
}

impl Schema {
    /// Fills in the `#[dynorm(default)]` attributes that are absent or empty, for `create`.
    pub(crate) fn apply_defaults(&self, item: &mut Item) {
        for default in self.defaults {
            let absent = match item.get(default.attribute) {
                None | Some(AttributeValue::Null(_)) => true,
                Some(AttributeValue::S(s)) => s.is_empty(),
                Some(_) => false,
            };
            if absent {
                item.insert(default.attribute.to_owned(), default.value.generate());
            }
        }
    }

    /// Sets the `#[dynorm(updated_at)]` attribute to now, for every whole-item write.
    pub(crate) fn touch_updated_at(&self, item: &mut Item) {
        if let Some(updated) = self.updated_at {
            item.insert(updated.attribute.to_owned(), updated.value.generate());
        }
    }
}

/// An attribute built from others, `#[combine(fields = [month, status], sep = "#")]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Combine {
    /// The combined attribute.
    pub attribute: &'static str,
    /// Its sources, in order.
    pub sources: &'static [&'static str],
    /// The text between sources.
    pub separator: &'static str,
}

impl Schema {
    /// The table itself, seen as an index.
    pub fn table_index(&self) -> crate::index::IndexSchema {
        let (hash_key, range_key) = self.keys.split_at(1.min(self.keys.len()));
        crate::index::IndexSchema {
            name: self.table,
            kind: crate::index::IndexKind::Table,
            hash_key,
            range_key,
            projection: crate::index::Projection::All,
            range_prefix: self.entity.and_then(|e| {
                e.keys
                    .iter()
                    .find(|k| k.index.is_none() && !k.is_hash)
                    .map(|k| k.static_prefix())
            }),
        }
    }

    /// Every index a query can use: the global ones, then the local ones, then the table.
    pub fn query_targets(&self) -> Vec<crate::index::IndexSchema> {
        use crate::index::IndexKind;
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
    pub fn index(&self, name: &str) -> Option<&crate::index::IndexSchema> {
        self.indexes.iter().find(|i| i.name == name)
    }

    /// The key attributes: the hash key, then the range key.
    pub fn key_attributes(&self) -> impl Iterator<Item = &'static KeyAttribute> {
        self.keys.iter()
    }

    /// Checks that a key item has exactly the key attributes, each of the right type and
    /// not empty. Raw keys skip the typed key, so this is what catches their mistakes.
    pub fn validate_key(&self, key: &Item, operation: &'static str) -> Result<()> {
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

    /// Checks one key attribute's value: present, of the attribute's type, and not empty.
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
        Ok(())
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
                .is_ok_and(|at| at <= chrono::Utc::now().timestamp()),
            _ => false,
        }
    }

    /// The filter that hides expired items: `attribute_not_exists(ttl) OR ttl > now`.
    pub(crate) fn unexpired_filter(&self) -> Option<crate::condition::Expr> {
        use crate::condition::{Comparison, Expr};
        let attribute = self.ttl?;
        let now = AttributeValue::N(chrono::Utc::now().timestamp().to_string());
        Some(Expr::Or(vec![
            Expr::NotExists(attribute),
            Expr::Compare(attribute, Comparison::Gt, now),
        ]))
    }

    /// The filter that keeps only this entity's items in a shared table.
    pub(crate) fn entity_filter(&self) -> Option<crate::condition::Expr> {
        use crate::condition::{Comparison, Expr};
        let entity = self.entity?;
        Some(Expr::Compare(
            entity.attribute,
            Comparison::Eq,
            AttributeValue::S(entity.name.to_owned()),
        ))
    }

    /// Whether `attribute` is a key of the table.
    pub fn is_table_key(&self, attribute: &str) -> bool {
        self.keys.iter().any(|k| k.name == attribute)
    }

    /// Whether `attribute` is a key of the table or of an index.
    pub fn is_any_key(&self, attribute: &str) -> bool {
        self.is_table_key(attribute) || self.indexes.iter().any(|i| i.has_key(attribute))
    }

    /// Picks the key attributes out of a whole item.
    pub fn key_of(&self, item: &Item) -> Item {
        self.key_attributes()
            .filter_map(|a| item.get(a.name).map(|v| (a.name.to_owned(), v.clone())))
            .collect()
    }
}

//! The traits `#[derive(Model)]` implements.

use crate::error::{CancellationReason, Error, Result};
use crate::schema::key_signature::KeySignature;
use crate::schema::stream_view::View;
use crate::schema::Derived;
use crate::schema::{table_definition, Schema};
use crate::value::Item;

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
pub trait Model: Derived + Sized + Send + Sync + 'static {
    /// The typed primary key, such as `UserKey { id }`.
    type Key: ModelKey<Model = Self>;

    /// The model's static description, which dynorm reads. Not a public API.
    #[doc(hidden)]
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

    /// The largest value the `#[version]` field's type holds.
    #[doc(hidden)]
    const __VERSION_MAX: u64 = u64::MAX;

    /// Converts the model into an item.
    fn to_item(&self) -> Result<Item>;

    /// Converts an item into the model, taking ownership so that values are moved.
    fn from_item(item: Item) -> Result<Self>;

    /// The model's primary key.
    fn key(&self) -> Self::Key;

    /// The attributes an item of earlier shape `shape` holds (its upcast type's fields), or
    /// `None` when they are not known. The derive writes it for a model with `upcasts`.
    #[doc(hidden)]
    fn __shape_fields(shape: u32) -> Option<&'static [&'static str]> {
        let _ = shape;
        None
    }

    /// Writes the identity of the model's primary key into `signature`, checked as a typed
    /// key is, for finding an item written twice in one batch. The derive writes a version
    /// that reads the key fields in place instead of copying them into [`key`](Self::key).
    #[doc(hidden)]
    fn __key_signature(&self, signature: &mut KeySignature<'_>) -> Result<()> {
        let key = self
            .key()
            .to_key_item()
            .map_err(|e| e.with_operation(signature.operation()))?;
        signature.push_item(&key)
    }

    /// The `CreateTable` input for this model, with its own prefix and suffix but no
    /// client-wide ones. `db.tables().create::<M>().preview()` gives the same with the client's naming.
    fn create_table_input() -> aws_sdk_dynamodb::operation::create_table::CreateTableInput {
        let name = format!(
            "{}{}{}",
            Self::SCHEMA.table_prefix.unwrap_or(""),
            Self::SCHEMA.table,
            Self::SCHEMA.table_suffix.unwrap_or("")
        );
        table_definition::create_table_input(&Self::SCHEMA, name)
    }

    /// [`create_table_input`](Self::create_table_input) as the JSON that
    /// `aws dynamodb create-table --cli-input-json` accepts.
    fn create_table_json() -> String {
        table_definition::to_cli_json(&Self::create_table_input())
    }
}

/// A model that a batch write can write: one without `#[unique]` attributes or
/// `#[count]`s. A batch write is not atomic, so it could not keep the guard items that
/// make a value unique, nor the counts of parents; such a model is written with `create`,
/// `put`, `delete`, `insert_many` or a transaction. The derive implements it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has unique attributes or counts, which a batch write cannot keep",
    label = "a batch write is not atomic, so it cannot write the guard items or the counts that go with `{Self}`",
    note = "write it with `create`, `put`, `delete`, `insert_many` or a transaction, which keep them"
)]
pub trait BatchWritable: Model {}

/// A model's typed primary key.
pub trait ModelKey: Derived + Send + Sync {
    /// The model the key belongs to.
    type Model: Model<Key = Self>;

    /// The key as DynamoDB key attributes, each in its field's storage.
    fn to_key_item(&self) -> Result<Item>;

    /// The key read back from DynamoDB key attributes (the `Keys` of a stream record, a
    /// `LastEvaluatedKey`): the inverse of [`to_key_item`](Self::to_key_item). A key built
    /// from templates is parsed back into its fields.
    fn from_key_item(item: Item) -> Result<Self>
    where
        Self: Sized;

    /// The stored attributes the key is made of: for a key built from templates, the
    /// fields it is rendered from; otherwise the key attributes themselves.
    #[doc(hidden)]
    fn __stored_sources(&self) -> Result<Item> {
        self.to_key_item()
    }
}

/// What a change stream decodes items into, and the typed key its changes carry: every
/// model, with its [`Model::Key`], and every `#[derive(Collection)]` enum, with the enum of
/// its entities' keys that the derive generates (`TeamItemKey::Member(MembershipKey { .. })`).
pub trait Keyed: Send + 'static {
    /// The typed key.
    type Key: Send + 'static;
}

impl<M: Model> Keyed for M {
    type Key = M::Key;
}

impl Error {
    /// The item DynamoDB returned with a failed condition, decoded as `M`.
    pub fn current_item<M: Model>(&self) -> Option<Result<M>> {
        self.item().cloned().map(M::from_item)
    }
}

impl CancellationReason {
    /// The stored item decoded as `M`, when this operation touched model `M`.
    pub fn current_item<M: Model>(&self) -> Option<Result<M>> {
        if self.model != M::SCHEMA.model {
            return None;
        }
        self.item.clone().map(M::from_item)
    }
}

/// A model whose table has a stream: `#[dynorm(stream = "new_and_old_images")]`
/// implements it, with the view type as a type.
pub trait Streamed: Model {
    /// The stream's view type: [`KeysOnly`](crate::schema::KeysOnly),
    /// [`NewImage`](crate::schema::NewImage), [`OldImage`](crate::schema::OldImage) or
    /// [`NewAndOldImages`](crate::schema::NewAndOldImages).
    type View: View;
}

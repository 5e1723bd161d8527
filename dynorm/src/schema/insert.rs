//! Insert types: a model without the attributes dynorm generates.

use crate::error::Result;
use crate::schema::Derived;
use crate::schema::Model;
use crate::value::Item;

/// The fields a caller fills to insert a new `Self::Model`: every field except those dynorm
/// generates (`#[dynorm(default = ..)]`, `#[dynorm(updated_at)]`, `#[version]` and
/// `#[combine]`). `#[derive(Model)]` on `User` generates `NewUser`, which implements it.
/// When dynorm generates none of `User`'s fields and its keys come from no template,
/// `NewUser` is a type alias of `User`, which then implements it.
///
/// ```
/// use dynorm::Model;
///
/// #[derive(Model, Debug, Clone)]
/// struct User {
///     #[hash_key]
///     #[dynorm(default = "uuid_v7")]
///     id: uuid::Uuid,
///     name: String,
/// }
///
/// // No id to make up: `insert` generates it, and `returning()` gives it back.
/// let new = NewUser { name: "Ada".into() };
/// # let _ = new;
/// ```
pub trait Insertable: Derived + Send + Sync {
    /// The model this inserts.
    type Model: Model;

    /// The given fields as an item; the generated ones are filled in on insert.
    fn to_item(&self) -> Result<Item>;
}

//! The key item of a request, from a typed key or a raw one, checked against the model's
//! schema.

use crate::error::Result;
use crate::schema::{Model, ModelKey};
use crate::value::Item;

/// Encodes a typed key and checks it, attributing errors to `operation`.
pub(crate) fn typed_key<M: Model>(key: &M::Key, operation: &'static str) -> Result<Item> {
    let item = key.to_key_item().map_err(|e| e.with_operation(operation))?;
    M::SCHEMA.validate_key(&item, operation)?;
    Ok(item)
}

/// Checks a raw key, attributing errors to `operation`.
pub(crate) fn raw_key<M: Model>(key: Item, operation: &'static str) -> Result<Item> {
    M::SCHEMA.validate_key(&key, operation)?;
    Ok(key)
}

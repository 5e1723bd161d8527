//! Single-item operations: get, create, put, update and delete, each reached from the
//! client through its own `impl Client` block.

pub(crate) mod companion;
mod delete;
mod get;
mod get_unique;
pub(crate) mod guarded;
mod insert;
mod parent_count;
pub(crate) mod predict;
mod put;
pub(crate) mod read_composite;
pub(crate) mod read_options;
mod replan;
pub(crate) mod transact;
mod update;
mod update_size;
pub(crate) mod whole_item;
pub(crate) mod write_request;

pub use delete::DeleteItem;
pub use get::GetItem;
pub use get_unique::GetUnique;
pub use insert::{InsertItem, InsertMany};
pub use put::{CreateItem, PutItem};
pub use update::UpdateItem;

use crate::error::{Error, Result};
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

/// The error of an SDK input that could not be built.
pub(crate) fn built(
    error: aws_sdk_dynamodb::error::BuildError,
    model: &'static str,
    operation: &'static str,
) -> Error {
    Error::validation(error.to_string())
        .with_model(model)
        .with_operation(operation)
}

/// Decodes an item returned by an operation.
pub(crate) fn decode<M: Model>(item: Option<Item>, operation: &'static str) -> Result<Option<M>> {
    item.filter(|item| !item.is_empty())
        .map(|item| M::from_item(item).map_err(|e: Error| e.with_operation(operation)))
        .transpose()
}

//! Single-item operations: get, create, put and delete.

mod delete;
mod get;
mod put;
mod update;
pub(crate) mod write;

pub use delete::DeleteItem;
pub use get::GetItem;
pub use put::{CreateItem, PutItem};
pub use update::{Numeric, SetLike, UpdateItem};

use aws_sdk_dynamodb::error::SdkError;

use crate::error::Error;
use crate::model::{Item, Model, ModelKey};

/// Turns an SDK error into a service error naming the model and operation.
pub(crate) fn sdk_error<E, R>(
    error: SdkError<E, R>,
    model: &'static str,
    operation: &'static str,
) -> Error
where
    E: std::error::Error + Send + Sync + 'static,
    R: std::fmt::Debug + Send + Sync + 'static,
{
    Error::service(error)
        .with_model(model)
        .with_operation(operation)
}

/// Encodes a typed key and checks it, attributing errors to `operation`.
pub(crate) fn typed_key<M: Model>(key: &M::Key, operation: &'static str) -> Result<Item, Error> {
    let item = key.to_key_item().map_err(|e| e.with_operation(operation))?;
    M::SCHEMA.validate_key(&item, operation)?;
    Ok(item)
}

/// Checks a raw key, attributing errors to `operation`.
pub(crate) fn raw_key<M: Model>(key: Item, operation: &'static str) -> Result<Item, Error> {
    M::SCHEMA.validate_key(&key, operation)?;
    Ok(key)
}

/// Decodes an item returned by an operation.
pub(crate) fn decode<M: Model>(
    item: Option<Item>,
    operation: &'static str,
) -> Result<Option<M>, Error> {
    item.filter(|item| !item.is_empty())
        .map(|item| M::from_item(item).map_err(|e| e.with_operation(operation)))
        .transpose()
}

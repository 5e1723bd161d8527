//! A model decoded from the item a request returned, if it returned one.

use crate::error::{Error, Result};
use crate::schema::Model;
use crate::value::Item;

/// Decodes an item returned by an operation.
pub(crate) fn decode<M: Model>(item: Option<Item>, operation: &'static str) -> Result<Option<M>> {
    item.filter(|item| !item.is_empty())
        .map(|item| M::from_item(item).map_err(|e: Error| e.with_operation(operation)))
        .transpose()
}

//! Single-item operations: get, create, put, update and delete, each reached from the
//! client through its own `impl Client` block.

mod build_error;
pub(crate) mod companion;
mod companion_write;
mod decode;
mod delete;
mod get;
mod get_unique;
pub(crate) mod guarded;
mod insert;
mod key_item;
mod parent_count;
pub(crate) mod predict;
mod put;
mod raw_read;
pub(crate) mod read_composite;
pub(crate) mod read_options;
mod replan;
pub(crate) mod single_write;
pub(crate) mod transact;
mod update;
mod update_item;
mod update_size;
pub(crate) mod whole_item;
pub(crate) mod write_request;

pub use delete::DeleteItem;
pub use get::GetItem;
pub use get_unique::GetUnique;
pub use insert::{InsertItem, InsertMany};
pub use put::{CreateItem, PutItem};
pub use update_item::UpdateItem;

pub(crate) use build_error::built;
pub(crate) use decode::decode;
pub(crate) use key_item::{raw_key, typed_key};

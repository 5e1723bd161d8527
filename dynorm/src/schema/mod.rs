//! The centre of dynorm: the traits `#[derive(Model)]` implements and the static schema
//! it describes — keys, indexes, key templates, entities, `#[combine]` and generated
//! values — and the `CreateTable` input that follows from it.
//!
//! Everything here is a pure description. It knows values and errors, and no client,
//! expression, query, batch or transaction.

pub(crate) mod checks;
pub(crate) mod collection;
pub(crate) mod collection_check;
pub(crate) mod combine;
pub(crate) mod const_text;
pub(crate) mod convention;
pub(crate) mod count;
mod derived;
pub(crate) mod entity;
pub(crate) mod entity_keys;
mod fill;
pub(crate) mod generated;
pub(crate) mod index;
pub(crate) mod index_schema;
mod insert;
pub(crate) mod key_attribute;
pub(crate) mod key_signature;
pub(crate) mod model;
pub(crate) mod shape;
pub(crate) mod shared_table;
pub(crate) mod stream_view;
pub(crate) mod table_definition;
pub(crate) mod table_drift;
pub(crate) mod table_schema;
pub(crate) mod template_parse;
pub(crate) mod unique;
pub(crate) mod unique_constraint;

pub(crate) use collection::entity_name;
pub(crate) use collection::Collection;
#[doc(hidden)]
pub use derived::Derived;
pub use index::{FromItem, Index};
pub use insert::Insertable;
pub(crate) use model::Model;
pub use model::{BatchWritable, Keyed, ModelKey, Streamed};
pub use shared_table::SharedTable;
pub use stream_view::{KeysOnly, NewAndOldImages, NewImage, NoImage, OldImage, StreamView, View};
pub use table_drift::{Difference, DifferenceKind};

// The static description the derive writes: read by dynorm, written through `__private`
// only, so that no field of it is a public promise.
pub(crate) use combine::Combine;
pub(crate) use convention::Convention;
pub(crate) use entity::{Entity, TemplatePart};
pub(crate) use generated::Generated;
pub(crate) use index_schema::{IndexKind, IndexSchema, Projection};
pub(crate) use key_attribute::KeyAttribute;
pub(crate) use table_schema::{Count, Schema};
pub(crate) use unique_constraint::Unique;

pub(crate) use shared_table::same as const_str_eq;

//! The centre of dynorm: the traits `#[derive(Model)]` implements and the static schema
//! it describes — keys, indexes, key templates, entities, `#[combine]` and generated
//! values — and the `CreateTable` input that follows from it.
//!
//! Everything here is a pure description. It knows values and errors, and no client,
//! expression, query, batch or transaction.

pub(crate) mod collection;
pub(crate) mod combine;
pub(crate) mod const_text;
pub(crate) mod convention;
pub(crate) mod entity;
mod generated;
mod index;
mod insert;
pub(crate) mod key_signature;
mod model;
pub(crate) mod shared_table;
pub(crate) mod stream_view;
pub(crate) mod table_definition;
mod table_schema;
pub(crate) mod template_parse;

pub(crate) use collection::entity_name;
pub use collection::Collection;
pub use combine::Combine;
pub use convention::Convention;
pub use entity::{Entity, KeyCasing, KeyTemplate, TemplatePart};
pub use generated::{Generated, GeneratedValue};
pub use index::{FromItem, Index, IndexKind, IndexSchema, Projection};
pub use insert::Insertable;
pub use model::{Keyed, Model, ModelKey};
pub use shared_table::SharedTable;
pub(crate) use stream_view::{StreamView, Streamed, View};
pub use table_schema::{KeyAttribute, Schema};

pub(crate) use shared_table::same as const_str_eq;

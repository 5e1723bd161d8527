//! Parses the derive's attributes into plain values: `#[dynorm(...)]` on the struct
//! (`container`) and on a field (`field`, with `#[combine]` and the key markers),
//! `#[index(...)]` (`index`), `#[key(...)]` (`key`), `#[unique(...)]` (`unique`) and
//! `#[count(...)]` (`count`).
//!
//! Every parser reports an unknown key through `parse::unknown_key`, so every misspelling gets
//! the same message and suggestion.

mod container;
mod count;
mod field;
mod index;
mod key;
mod parse;
mod relation;
mod unique;

pub use container::{container, ContainerAttrs};
pub use count::{count, CountDecl};
pub use field::{field, DateStorage, DefaultValue, FieldAttrs};
pub use index::{index, IndexDecl, ProjectDecl};
pub use key::{key, KeyDecl};
pub use parse::{ident_from_text, FieldRef};
pub use relation::{relation, RelationDecl, RelationKind};
pub use unique::{unique, UniqueDecl};

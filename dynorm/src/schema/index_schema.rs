//! `IndexSchema`: one index of a model, or the table itself, as the derive describes it:
//! its kind, keys and projection.

use crate::schema::key_attribute::KeyAttribute;

/// Where a query or scan reads from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum IndexKind {
    /// The base table.
    Table,
    /// A global secondary index.
    Global,
    /// A local secondary index: the table's hash key with another range key.
    Local,
}

/// Which attributes an index holds besides the keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Projection {
    /// Every attribute (`ALL`).
    All,
    /// The table and index keys only (`KEYS_ONLY`).
    KeysOnly,
    /// The keys and these attributes (`INCLUDE`).
    Include(&'static [&'static str]),
}

/// One index of a model, or the table itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexSchema {
    /// The index name; empty for the table.
    pub name: &'static str,
    /// The type that names the index in `query_by::<..>`, as the derive made it:
    /// `OrderByStatus`; the model's name for the table.
    pub type_name: &'static str,
    /// Table, global or local.
    pub kind: IndexKind,
    /// The partition key attributes: one, or up to four for a multi-attribute key.
    pub hash_key: &'static [KeyAttribute],
    /// The sort key attributes: none, one, or up to four.
    pub range_key: &'static [KeyAttribute],
    /// The projected attributes.
    pub projection: Projection,
    /// For a single-table entity: what its range key values start with, so that a query
    /// reads only this entity's items (`begins_with(sk, "MEMBER#")`).
    pub range_prefix: Option<&'static str>,
}

impl IndexSchema {
    /// The name to show in plans and errors: the index name, or `table`.
    pub fn label(&self) -> &'static str {
        if self.kind == IndexKind::Table {
            "table"
        } else {
            self.name
        }
    }

    /// The index name for the request, `None` for the table.
    pub fn request_name(&self) -> Option<&'static str> {
        (self.kind != IndexKind::Table).then_some(self.name)
    }

    /// Whether a key attribute of this index is named `attribute`.
    pub fn has_key(&self, attribute: &str) -> bool {
        self.hash_key
            .iter()
            .chain(self.range_key)
            .any(|k| k.name == attribute)
    }
}

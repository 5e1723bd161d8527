//! Schemas for the unit tests of predictions.

use crate::schema::{IndexKind, IndexSchema, KeyAttribute, Projection, Schema};
use crate::value::ScalarType;

/// A string key attribute.
pub(super) const fn key(name: &'static str) -> KeyAttribute {
    KeyAttribute {
        name,
        scalar: ScalarType::S,
    }
}

/// A global index on `hash`, projecting `projection`.
pub(super) const fn global(
    name: &'static str,
    hash: &'static [KeyAttribute],
    projection: Projection,
) -> IndexSchema {
    IndexSchema {
        name,
        type_name: name,
        kind: IndexKind::Global,
        hash_key: hash,
        range_key: &[],
        projection,
        range_prefix: None,
    }
}

/// The table `T`, hash key `id`, with `attributes` and `indexes`.
pub(super) const fn table(
    attributes: &'static [&'static str],
    indexes: &'static [IndexSchema],
) -> Schema {
    Schema {
        keys: &[ID],
        attributes,
        indexes,
        ..Schema::blank("T", ID)
    }
}

const ID: KeyAttribute = key("id");

//! Identity conventions: how an item says which entity it is. dynorm's own, ElectroDB's and
//! DynamoDB-Toolbox's, so that a table can be shared with services that use those libraries.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::value::Item;

/// The attribute ElectroDB stores the entity version in.
pub const ELECTRODB_VERSION: &str = "__edb_v__";
/// The attribute DynamoDB-Toolbox stores the creation time in, with `timestamps`.
pub const TOOLBOX_CREATED: &str = "_ct";
/// The attribute DynamoDB-Toolbox stores the last modification time in, with `timestamps`.
pub const TOOLBOX_MODIFIED: &str = "_md";

/// How a single-table entity's items carry their identity
/// (`#[dynorm(convention = "...")]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Convention {
    /// dynorm's own: the entity name in one attribute (`__entity` unless renamed).
    Dynorm,
    /// ElectroDB's: the entity name in `__edb_e__` and its version in `__edb_v__`. Both are
    /// written, and an item is the entity's only when both match, as ElectroDB decides.
    ElectroDb {
        /// The entity version (`model.version` in ElectroDB).
        version: &'static str,
    },
    /// DynamoDB-Toolbox v2's: the entity name in `_et` (written, and when present, checked),
    /// and with `timestamps`, the creation and modification times in `_ct` and `_md`.
    Toolbox {
        /// Whether `_ct` and `_md` are written.
        timestamps: bool,
    },
}

impl Convention {
    /// The version attribute and value, for conventions that have one.
    pub const fn version(&self) -> Option<(&'static str, &'static str)> {
        match self {
            Convention::ElectroDb { version } => Some((ELECTRODB_VERSION, version)),
            _ => None,
        }
    }

    /// Whether the convention stores creation and modification times.
    pub(crate) const fn timestamps(&self) -> bool {
        matches!(self, Convention::Toolbox { timestamps: true })
    }

    /// Whether a read by key takes an item that lacks the entity name: DynamoDB-Toolbox
    /// does, since its entity attribute may be absent from items written before it.
    pub(crate) const fn name_optional_on_read(&self) -> bool {
        matches!(self, Convention::Toolbox { .. })
    }
}

/// The current time as DynamoDB-Toolbox stores it: JavaScript's `toISOString()`, with
/// milliseconds and a `Z`.
pub(crate) fn toolbox_now() -> AttributeValue {
    AttributeValue::S(crate::value::clock::iso_millis(crate::value::clock::now()))
}

/// The text of a string attribute, if the item has one by that name.
pub(crate) fn text<'a>(item: &'a Item, attribute: &str) -> Option<&'a str> {
    match item.get(attribute) {
        Some(AttributeValue::S(text)) => Some(text),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toolbox_time_is_javascript_iso_text() {
        let AttributeValue::S(text) = toolbox_now() else {
            panic!("a string");
        };
        assert_eq!(text.len(), "2026-12-01T03:37:50.851Z".len(), "{text}");
        assert!(text.ends_with('Z') && text.as_bytes()[19] == b'.', "{text}");
    }

    #[test]
    fn only_toolbox_takes_an_item_without_a_name() {
        assert!(Convention::Toolbox { timestamps: false }.name_optional_on_read());
        assert!(!Convention::Dynorm.name_optional_on_read());
        assert!(!Convention::ElectroDb { version: "1" }.name_optional_on_read());
    }
}

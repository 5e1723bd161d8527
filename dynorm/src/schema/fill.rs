//! The attributes dynorm writes into a whole item itself: `#[dynorm(default)]`s when
//! absent, `updated_at`, and every `#[combine]` and `watch` attribute built again from its
//! sources.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::Result;
use crate::schema::generated::GeneratedValue;
use crate::schema::Schema;
use crate::value::Item;

/// The stored text of `Uuid::nil()`.
const NIL_UUID: &str = "00000000-0000-0000-0000-000000000000";

/// Whether a generated value is a UUID, whose nil value is a placeholder.
fn is_uuid(value: GeneratedValue) -> bool {
    #[cfg(feature = "uuid")]
    return matches!(value, GeneratedValue::UuidV7);
    #[cfg(not(feature = "uuid"))]
    {
        let _ = value;
        false
    }
}

impl Schema {
    /// Fills in the `#[dynorm(default)]` attributes that are absent or empty: every one on
    /// `create`, and on other whole-item writes (`put`, batch and transaction puts) the
    /// values given on the model, as an ElectroDB `put` does.
    pub(crate) fn apply_defaults(&self, item: &mut Item, create: bool) -> Result<()> {
        for default in self.defaults {
            if !create && !default.value.is_fixed() {
                continue;
            }
            let absent = match item.get(default.attribute) {
                None | Some(AttributeValue::Null(_)) => true,
                // A `Uuid` field left as `Uuid::nil()` is a placeholder, as "" is.
                Some(AttributeValue::S(s)) => {
                    s.is_empty() || (is_uuid(default.value) && s == NIL_UUID)
                }
                Some(_) => false,
            };
            if absent {
                if let Some(value) = default.value(self.model)? {
                    item.insert(default.attribute.to_owned(), value);
                }
            }
        }
        Ok(())
    }

    /// Sets the `#[dynorm(updated_at)]` attribute to now, for every whole-item write.
    pub(crate) fn touch_updated_at(&self, item: &mut Item) {
        if let Some(updated) = self.updated_at {
            if let Ok(Some(value)) = updated.value.generate() {
                item.insert(updated.attribute.to_owned(), value);
            }
        }
    }

    /// Builds every `#[combine]` and `watch` attribute again from the item's sources, for a
    /// whole-item write: after the attributes dynorm sets itself (`default`s, `updated_at`,
    /// the `#[version]`), so that one built from them holds the values stored.
    pub(crate) fn write_combines(&self, item: &mut Item) -> Result<()> {
        for combine in self.combines {
            match combine.value(self.model, item)? {
                Some(value) => item.insert(combine.attribute.to_owned(), value),
                None => item.remove(combine.attribute),
            };
        }
        Ok(())
    }
}

//! Attributes whose values dynorm generates: `default` and `updated_at`.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::schema::Schema;
use crate::value::{clock, DateStorage, Item};

/// An attribute whose value dynorm generates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Generated {
    /// The attribute.
    pub attribute: &'static str,
    /// What it is set to.
    pub value: GeneratedValue,
}

/// A generated value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum GeneratedValue {
    /// The current time, in this storage.
    Now(DateStorage),
    /// A new UUID v7: unique, and sortable by creation time (feature `uuid`).
    #[cfg(feature = "uuid")]
    UuidV7,
}

impl GeneratedValue {
    /// A fresh value.
    pub fn generate(self) -> AttributeValue {
        match self {
            Self::Now(storage) => now(storage),
            #[cfg(feature = "uuid")]
            Self::UuidV7 => AttributeValue::S(uuid::Uuid::now_v7().to_string()),
        }
    }
}

/// The current time in a date storage, as a `DateTime<Utc>` field stores it.
fn now(storage: DateStorage) -> AttributeValue {
    let time = std::time::SystemTime::now();
    let since = time
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    match storage {
        DateStorage::Iso => AttributeValue::S(clock::iso_millis(time)),
        DateStorage::Milliseconds => AttributeValue::N(since.as_millis().to_string()),
        DateStorage::Seconds => AttributeValue::N(since.as_secs().to_string()),
    }
}

/// The stored text of `Uuid::nil()`.
const NIL_UUID: &str = "00000000-0000-0000-0000-000000000000";

/// Whether a generated value is a UUID, whose nil value is a placeholder.
fn is_uuid(value: GeneratedValue) -> bool {
    #[cfg(feature = "uuid")]
    return value == GeneratedValue::UuidV7;
    #[cfg(not(feature = "uuid"))]
    {
        let _ = value;
        false
    }
}

impl Schema {
    /// Fills in the `#[dynorm(default)]` attributes that are absent or empty, for `create`.
    pub(crate) fn apply_defaults(&self, item: &mut Item) {
        for default in self.defaults {
            let absent = match item.get(default.attribute) {
                None | Some(AttributeValue::Null(_)) => true,
                // A `Uuid` field left as `Uuid::nil()` is a placeholder, as "" is.
                Some(AttributeValue::S(s)) => {
                    s.is_empty() || (is_uuid(default.value) && s == NIL_UUID)
                }
                Some(_) => false,
            };
            if absent {
                item.insert(default.attribute.to_owned(), default.value.generate());
            }
        }
    }

    /// Sets the `#[dynorm(updated_at)]` attribute to now, for every whole-item write.
    pub(crate) fn touch_updated_at(&self, item: &mut Item) {
        if let Some(updated) = self.updated_at {
            item.insert(updated.attribute.to_owned(), updated.value.generate());
        }
    }
}

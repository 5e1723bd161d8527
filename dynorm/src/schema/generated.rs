//! Attributes whose values dynorm generates: `default` and `updated_at`.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::value::{clock, DateStorage};

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

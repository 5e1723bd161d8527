//! Attributes whose values dynorm generates: `default` and `updated_at`.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::value::{clock, AttrError, DateStorage};

/// An attribute whose value dynorm generates.
#[derive(Clone, Copy, Debug)]
pub struct Generated {
    /// The attribute.
    pub attribute: &'static str,
    /// What it is set to.
    pub value: GeneratedValue,
}

/// A generated value.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum GeneratedValue {
    /// A value given on the model (`#[dynorm(default = "main")]`), encoded as its field.
    /// `None` is a value the field stores as nothing.
    Fixed(fn() -> Result<Option<AttributeValue>, AttrError>),
    /// The current time, in this storage.
    Now(DateStorage),
    /// A new UUID v7: unique, and sortable by creation time (feature `uuid`).
    #[cfg(feature = "uuid")]
    UuidV7,
}

impl GeneratedValue {
    /// A fresh value.
    pub fn generate(self) -> Result<Option<AttributeValue>, AttrError> {
        Ok(Some(match self {
            Self::Fixed(value) => return value(),
            Self::Now(storage) => now(storage),
            #[cfg(feature = "uuid")]
            Self::UuidV7 => AttributeValue::S(uuid::Uuid::now_v7().to_string()),
        }))
    }

    /// Whether the value is given on the model rather than made as the item is written.
    /// A given value fills an absent attribute on every whole-item write; a made one
    /// (a time, an id) only on create.
    pub fn is_fixed(self) -> bool {
        matches!(self, Self::Fixed(_))
    }
}

impl Generated {
    /// The value, or the error that names the model's attribute.
    pub(crate) fn value(&self, model: &'static str) -> crate::Result<Option<AttributeValue>> {
        self.value
            .generate()
            .map_err(|e| crate::Error::unstorable(model, self.attribute, e))
    }
}

/// The current time in a date storage, as a `DateTime<Utc>` field stores it.
fn now(storage: DateStorage) -> AttributeValue {
    let time = clock::now();
    let since = time
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    match storage {
        DateStorage::Iso => AttributeValue::S(clock::iso_millis(time)),
        DateStorage::Milliseconds => AttributeValue::N(since.as_millis().to_string()),
        DateStorage::Seconds => AttributeValue::N(since.as_secs().to_string()),
    }
}

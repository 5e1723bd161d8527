//! Chooses, per field type, at compile time, between native conversion and the serde fallback.
//!
//! The derive writes `(&Encode(&value)).dynorm_encode()`. Method resolution picks
//! [`EncodeNative`] when the type implements [`AttrValue`], because it matches without an
//! extra reference, and [`EncodeSerde`] otherwise. The same holds for [`Decode`]. Both are
//! resolved at compile time on the concrete type, so there is no run-time dispatch.

use std::marker::PhantomData;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::value::{AttrError, AttrValue};

/// Wraps a field value for encoding.
pub struct Encode<'a, T: ?Sized>(pub &'a T);

/// Native encoding, preferred.
pub trait EncodeNative {
    /// The attribute value, or `None` when the value is left out of the item.
    fn dynorm_encode(&self) -> Result<Option<AttributeValue>, AttrError>;
}

impl<T: AttrValue> EncodeNative for Encode<'_, T> {
    #[inline]
    fn dynorm_encode(&self) -> Result<Option<AttributeValue>, AttrError> {
        if self.0.is_omitted() {
            Ok(None)
        } else {
            self.0.to_attr().map(Some)
        }
    }
}

/// Serde encoding through `serde_dynamo`, for every other type.
pub trait EncodeSerde {
    /// The attribute value, or `None` when the value is left out of the item.
    fn dynorm_encode(&self) -> Result<Option<AttributeValue>, AttrError>;
}

impl<T: Serialize + ?Sized> EncodeSerde for &Encode<'_, T> {
    fn dynorm_encode(&self) -> Result<Option<AttributeValue>, AttrError> {
        // Unit enums, the most common fallback, skip serde_dynamo's machinery.
        if let Some(variant) = crate::value::unit_variant::unit_variant(self.0) {
            return Ok(Some(AttributeValue::S(variant.to_owned())));
        }
        serde_dynamo::to_attribute_value::<_, AttributeValue>(self.0)
            .map(|mut value| {
                leave_out_null_entries(&mut value);
                Some(value)
            })
            .map_err(|e| AttrError::new(e.to_string()))
    }
}

/// Leaves NULL entries out of every map inside `value`, at every depth: serde writes a
/// `None` field of a nested struct (or a `None` map value) as NULL, where a top-level
/// `Option` field, native maps, ElectroDB and DynamoDB-Toolbox leave the attribute out. A
/// list keeps its NULL elements, since a list cannot skip a position. Reading takes
/// absence and NULL alike as `None`.
fn leave_out_null_entries(value: &mut AttributeValue) {
    match value {
        // One pass over each map: an entry is walked, then kept unless it is NULL.
        AttributeValue::M(map) => map.retain(|_, entry| {
            leave_out_null_entries(entry);
            !matches!(entry, AttributeValue::Null(_))
        }),
        AttributeValue::L(list) => list.iter_mut().for_each(leave_out_null_entries),
        _ => {}
    }
}

/// Names the target type of a decode.
pub struct Decode<T>(PhantomData<fn() -> T>);

impl<T> Decode<T> {
    /// The one value of this marker.
    pub const NEW: Self = Decode(PhantomData);
}

/// Native decoding, preferred.
pub trait DecodeNative<T> {
    /// Decodes a value read from an item, `None` when the attribute is absent.
    fn dynorm_decode(&self, value: Option<AttributeValue>) -> Result<T, AttrError>;
}

impl<T: AttrValue> DecodeNative<T> for Decode<T> {
    #[inline]
    fn dynorm_decode(&self, value: Option<AttributeValue>) -> Result<T, AttrError> {
        match value {
            Some(value) => T::from_attr(value),
            None => T::when_absent().ok_or_else(AttrError::missing),
        }
    }
}

/// Serde decoding through `serde_dynamo`, for every other type.
pub trait DecodeSerde<T> {
    /// Decodes a value read from an item, `None` when the attribute is absent.
    fn dynorm_decode(&self, value: Option<AttributeValue>) -> Result<T, AttrError>;
}

impl<T: DeserializeOwned> DecodeSerde<T> for &Decode<T> {
    fn dynorm_decode(&self, value: Option<AttributeValue>) -> Result<T, AttrError> {
        let value = value.ok_or_else(AttrError::missing)?;
        // Text first goes straight to the type: unit enums, the most common fallback, read
        // their variant from it. Whatever this refuses goes to serde_dynamo, which decides.
        if let AttributeValue::S(text) = &value {
            let direct = serde::de::value::StrDeserializer::<serde::de::value::Error>::new(text);
            if let Ok(decoded) = T::deserialize(direct) {
                return Ok(decoded);
            }
        }
        // A scalar has no inner path to report, so it skips the path tracking (which
        // copies every enum variant name it sees).
        if !matches!(value, AttributeValue::L(_) | AttributeValue::M(_)) {
            return serde_dynamo::from_attribute_value(value)
                .map_err(|e| AttrError::new(e.to_string()));
        }
        let deserializer = serde_dynamo::Deserializer::from_attribute_value(value.into());
        serde_path_to_error::deserialize(deserializer)
            .map_err(|e| AttrError::at_serde_path(e.inner().to_string(), e.path().iter()))
    }
}

/// Reads an `Option` field: absent or NULL is `None`.
#[inline]
pub fn optional<T>(
    value: Option<AttributeValue>,
    decode: impl FnOnce(AttributeValue) -> Result<T, AttrError>,
) -> Result<Option<T>, AttrError> {
    match value {
        None | Some(AttributeValue::Null(_)) => Ok(None),
        Some(value) => decode(value).map(Some),
    }
}

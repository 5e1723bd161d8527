//! Versioned shapes (`#[dynorm(shape = 3, upcasts = [UserV1, UserV2])]`): a model says which
//! shape of its items it reads and writes, and names the Rust types of the earlier shapes,
//! each converted into the next with `From`. Pure: the stored shape of an item, and the
//! decoding of an earlier shape.
//!
//! Not to be confused with `#[version]` (optimistic locking, a counter per item) nor with
//! ElectroDB's `entity_version` (part of an item's identity): the shape is the layout of
//! the model's attributes, and every whole-item write stores the current one.

use aws_sdk_dynamodb::types::AttributeValue;
use serde::de::DeserializeOwned;

use crate::error::{Error, ErrorKind, Result};
use crate::value::Item;

/// A model's current shape and where items store theirs (`__shape`, unless
/// `shape_attribute` names another attribute).
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// The attribute that holds an item's shape (a number).
    pub attribute: &'static str,
    /// The shape the model reads and writes; earlier ones are upcast.
    pub current: u32,
}

impl Shape {
    /// The shape of a stored item: its shape attribute, or 1 for an item written before
    /// the model declared shapes. An item of a shape newer than the model's is an error
    /// that names both: a newer version of the application wrote it.
    pub fn of(&self, model: &'static str, item: &Item) -> Result<u32> {
        let stored = match item.get(self.attribute) {
            None => return Ok(1),
            Some(AttributeValue::N(n)) => n.parse::<u32>().ok().filter(|s| *s >= 1),
            Some(_) => None,
        };
        let Some(stored) = stored else {
            return Err(Error::new(
                ErrorKind::Conversion,
                format!(
                    "the item's shape is {}, not a whole number from 1",
                    item.get(self.attribute)
                        .map_or_else(String::new, crate::value::show)
                ),
            )
            .with_model(model)
            .with_attribute(self.attribute));
        };
        if stored > self.current {
            return Err(Error::new(
                ErrorKind::Conversion,
                format!(
                    "the item has shape {stored}, newer than shape {}, the newest `{model}` reads: a newer version of the application wrote it",
                    self.current
                ),
            )
            .with_model(model)
            .with_attribute(self.attribute));
        }
        Ok(stored)
    }

    /// Stores the current shape in an item being written whole.
    pub fn write(&self, item: &mut Item) {
        item.insert(
            self.attribute.to_owned(),
            AttributeValue::N(self.current.to_string()),
        );
    }
}

/// Decodes an item of an earlier shape as its Rust type `T`, with serde. An error names
/// the path of the attribute that does not read (`tags[2]`, `address.city`).
pub fn decode_shape<T: DeserializeOwned>(item: Item, model: &'static str, shape: u32) -> Result<T> {
    let deserializer =
        serde_dynamo::Deserializer::from_attribute_value(AttributeValue::M(item).into());
    serde_path_to_error::deserialize(deserializer).map_err(|e| {
        let message = format!(
            "the item has shape {shape}, and does not read as that shape's type: {}",
            e.inner()
        );
        let mut segments = e.path().iter();
        let error = Error::new(ErrorKind::Conversion, message).with_model(model);
        let Some(serde_path_to_error::Segment::Map { key: attribute }) = segments.next() else {
            return error;
        };
        let inner = crate::value::AttrError::at_serde_path("", segments);
        error.with_attribute(inner.render_path(attribute))
    })
}

/// The attribute names serde reads for `T`, the type of an earlier shape: the fields its
/// `Deserialize` asks for, renames applied. `None` when `T` is not read as a plain struct
/// (a map, or a struct with `#[serde(flatten)]`), whose fields are not known.
pub fn shape_fields<T: DeserializeOwned>() -> Option<&'static [&'static str]> {
    let mut fields = None;
    // The deserializer stops at the first request with an error; only what it captured
    // matters.
    let _ = T::deserialize(FieldNames(&mut fields));
    fields
}

/// A deserializer that records the fields a struct asks for, and reads nothing.
struct FieldNames<'a>(&'a mut Option<&'static [&'static str]>);

impl<'de> serde::Deserializer<'de> for FieldNames<'_> {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(
        self,
        _: V,
    ) -> std::result::Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> std::result::Result<V::Value, Self::Error> {
        *self.0 = Some(fields);
        Err(serde::de::Error::custom("fields recorded"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEFAULT_SHAPE_ATTRIBUTE: &str = "__shape";

    const SHAPE: Shape = Shape {
        attribute: DEFAULT_SHAPE_ATTRIBUTE,
        current: 3,
    };

    fn with_shape(value: AttributeValue) -> Item {
        Item::from([(DEFAULT_SHAPE_ATTRIBUTE.to_owned(), value)])
    }

    #[test]
    fn an_item_without_a_shape_is_the_first() {
        assert_eq!(SHAPE.of("User", &Item::new()).unwrap(), 1);
        let two = with_shape(AttributeValue::N("2".into()));
        assert_eq!(SHAPE.of("User", &two).unwrap(), 2);
    }

    #[test]
    fn a_newer_shape_names_both() {
        let error = SHAPE
            .of("User", &with_shape(AttributeValue::N("4".into())))
            .unwrap_err();
        assert!(error.kind().eq(&ErrorKind::Conversion));
        assert!(error.message().contains("shape 4"), "{error}");
        assert!(error.message().contains("shape 3"), "{error}");
        assert_eq!(error.attribute(), Some(DEFAULT_SHAPE_ATTRIBUTE));
    }

    #[test]
    fn a_shape_that_is_not_a_number_is_refused() {
        for bad in [AttributeValue::S("2".into()), AttributeValue::N("0".into())] {
            assert!(SHAPE
                .of("User", &with_shape(bad))
                .unwrap_err()
                .kind()
                .eq(&ErrorKind::Conversion));
        }
    }

    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    #[allow(dead_code)]
    struct OrgV1 {
        org: String,
        seat_text: String,
    }

    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Flattened {
        id: String,
        #[serde(flatten)]
        rest: std::collections::HashMap<String, String>,
    }

    #[test]
    fn the_fields_of_a_shape_are_what_serde_reads() {
        assert_eq!(shape_fields::<OrgV1>(), Some(&["org", "seatText"][..]));
        assert_eq!(shape_fields::<Flattened>(), None);
        assert_eq!(shape_fields::<String>(), None);
    }
}

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

/// Decodes an item of an earlier shape as its Rust type `T`, with serde.
pub fn decode_shape<T: DeserializeOwned>(item: Item, model: &'static str, shape: u32) -> Result<T> {
    serde_dynamo::from_item(item).map_err(|e| {
        Error::new(
            ErrorKind::Conversion,
            format!("the item has shape {shape}, and does not read as that shape's type: {e}"),
        )
        .with_model(model)
    })
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
        assert!(error.is_conversion());
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
                .is_conversion());
        }
    }
}

//! The checks of keys and items against a model's schema and DynamoDB's limits, made
//! before anything is sent.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};
use crate::schema::unique;
use crate::schema::{KeyAttribute, Schema};
use crate::value::{limits, AttrError, Item, ScalarType};

impl Schema {
    /// Checks that a key item has exactly the key attributes, each of the right type and
    /// not empty. Raw keys skip the typed key, so this is what catches their mistakes.
    pub(crate) fn validate_key(&self, key: &Item, operation: &'static str) -> Result<()> {
        for attribute in self.key_attributes() {
            self.check_key_value(attribute, key.get(attribute.name), operation)?;
        }
        if let Some(extra) = key
            .keys()
            .find(|name| self.key_attributes().all(|a| a.name != name.as_str()))
        {
            return Err(Error::validation(format!(
                "`{extra}` is not a key attribute of `{}`",
                self.model
            ))
            .with_model(self.model)
            .with_operation(operation)
            .with_attribute(extra.as_str()));
        }
        Ok(())
    }

    /// Checks a whole item against DynamoDB's limits before it is written, on every path
    /// that writes one: every number in range and precision, no set with an element twice,
    /// every table key present, every table and index key of the right type and not
    /// empty, and the item at most 400 KB. The error names the attribute (and the path
    /// inside it).
    pub fn check_item(&self, item: &Item, operation: &'static str) -> Result<()> {
        let fail = |attribute: &str, error: AttrError| {
            Error::validation(error.message().to_owned())
                .with_model(self.model)
                .with_operation(operation)
                .with_attribute(error.render_path(attribute))
        };
        for (name, value) in item {
            limits::check_value(value).map_err(|e| fail(name, e))?;
        }
        for attribute in self.key_attributes() {
            self.check_key_value(attribute, item.get(attribute.name), operation)?;
        }
        for index in self.indexes {
            for attribute in index.hash_key.iter().chain(index.range_key) {
                if let Some(value) = item.get(attribute.name) {
                    self.check_key_value(attribute, Some(value), operation)
                        .map_err(|e| {
                            e.with_context(&format!("it is a key of index `{}`", index.name))
                        })?;
                }
            }
        }
        let size = limits::item_size(item);
        if size > self.item_bound() {
            return Err(self.too_large(item, size, "the item holds", operation));
        }
        Ok(())
    }

    /// The error of `item` (`what` holds it, with its verb), of `size` bytes, over
    /// [`item_bound`](Self::item_bound): it names the attribute that holds more than half
    /// of it, when one does.
    pub(crate) fn too_large(
        &self,
        item: &Item,
        size: usize,
        what: &str,
        operation: &'static str,
    ) -> Error {
        let limit = match self.max_item_bytes {
            Some(bytes) => format!(
                "`{}` declares `max_item_bytes = {bytes}`, so it writes no item larger",
                self.model
            ),
            None => "DynamoDB's limit for an item is 400 KB".to_owned(),
        };
        let largest = item
            .iter()
            .map(|(name, value)| (name, limits::attribute_size(name, value)))
            .max_by_key(|(_, bytes)| *bytes)
            .filter(|(_, bytes)| 2 * bytes > size);
        let (held, attribute) = match largest {
            Some((name, bytes)) => (format!(", {bytes} of them in `{name}`"), Some(name)),
            None => (String::new(), None),
        };
        let error = Error::validation(format!("{what} about {size} bytes{held}; {limit}"))
            .with_model(self.model)
            .with_operation(operation);
        match attribute {
            Some(name) => error.with_attribute(name.as_str()),
            None => error,
        }
    }

    /// Checks one key attribute's value: present, of the attribute's type, not empty, and,
    /// for the table's hash key, not the key of a guard item (`schema/unique.rs`).
    pub(crate) fn check_key_value(
        &self,
        attribute: &KeyAttribute,
        value: Option<&AttributeValue>,
        operation: &'static str,
    ) -> Result<()> {
        let fail = |message: String| {
            Err(Error::validation(message)
                .with_model(self.model)
                .with_operation(operation)
                .with_attribute(attribute.name))
        };
        let Some(value) = value else {
            return fail(format!(
                "the key of `{}` has no `{}`",
                self.model, attribute.name
            ));
        };
        let type_ok = matches!(
            (attribute.scalar, value),
            (ScalarType::S, AttributeValue::S(_))
                | (ScalarType::N, AttributeValue::N(_))
                | (ScalarType::B, AttributeValue::B(_))
        );
        if !type_ok {
            return fail(format!(
                "a key attribute must be {:?}, found {}",
                attribute.scalar,
                crate::value::describe(value)
            ));
        }
        let empty = match value {
            AttributeValue::S(s) => s.is_empty(),
            AttributeValue::B(b) => b.as_ref().is_empty(),
            _ => false,
        };
        if empty {
            return fail("a key attribute cannot be empty".to_owned());
        }
        unique::refuse_guard_key(self, attribute.name, value)
            .map_err(|e| e.with_operation(operation))
    }
}

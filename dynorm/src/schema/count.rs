//! Counts kept by writes (`#[count]`): a model whose items are counted in an attribute of
//! a parent item, such as the members of a team in `Team::member_count`. Pure: which
//! parent an item counts in.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};
use crate::schema::entity::entity_key;
use crate::schema::Schema;
use crate::value::Item;

/// The attribute of a counted item that names the counts it is held in, each as
/// [`Count::id`], sorted and joined by `;`.
pub const COUNTED: &str = "__dynorm_counted__";

/// One count: each item of the model adds one to `attribute` of the parent item whose key
/// `references` hold the item's `fields`.
#[derive(Clone, Copy, Debug)]
pub struct Count {
    /// The parent model.
    pub parent: &'static Schema,
    /// The parent's attribute that holds the count.
    pub attribute: &'static str,
    /// This model's attributes that name the parent.
    pub fields: &'static [&'static str],
    /// The parent's attributes they hold, in the same order.
    pub references: &'static [&'static str],
}

impl Count {
    /// The count's name in the marker of the items it holds: `attribute(field,...)`.
    pub fn id(&self) -> String {
        format!("{}({})", self.attribute, self.fields.join(","))
    }

    /// Whether `item` carries this count's name in its marker, so that the count holds it
    /// (when it names a parent).
    pub fn holds(&self, item: &Item) -> bool {
        let Some(AttributeValue::S(marker)) = item.get(COUNTED) else {
            return false;
        };
        let id = self.id();
        marker.split(';').any(|name| name == id)
    }

    /// The key of the parent a stored item counts in; `None` when the item lacks one of
    /// the fields, and so counts nowhere.
    pub fn parent_key(&self, item: &Item) -> Result<Option<Item>> {
        let mut fields = Item::with_capacity(self.fields.len());
        for (field, reference) in self.fields.iter().zip(self.references) {
            match item.get(*field) {
                Some(value) => fields.insert((*reference).to_owned(), value.clone()),
                None => return Ok(None),
            };
        }
        if self.parent.entity.is_some() {
            return entity_key(self.parent, &fields).map(Some);
        }
        let mut key = Item::with_capacity(self.parent.keys.len());
        for attribute in self.parent.keys {
            let value = fields.remove(attribute.name).ok_or_else(|| {
                Error::config(format!(
                    "the count of `{}` names its parent `{}` by [{}], which does not hold its key attribute `{}`",
                    self.attribute,
                    self.parent.model,
                    self.references.join(", "),
                    attribute.name
                ))
                .with_model(self.parent.model)
            })?;
            key.insert(attribute.name.to_owned(), value);
        }
        Ok(Some(key))
    }
}

/// The marker of an item counted in every count of `counts`.
pub fn marker<'a>(counts: impl IntoIterator<Item = &'a Count>) -> AttributeValue {
    let mut ids: Vec<String> = counts.into_iter().map(Count::id).collect();
    ids.sort_unstable();
    ids.dedup();
    AttributeValue::S(ids.join(";"))
}

//! Counts kept by writes (`#[count]`): a model whose items are counted in an attribute of
//! a parent item, such as the members of a team in `Team::member_count`. Pure: which
//! parent an item counts in, and what a model's companion items depend on. `Count` itself
//! is in `table_schema.rs`, beside the `Schema` of its parent.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};
use crate::schema::entity_keys::entity_key;
use crate::schema::table_schema::{Count, Schema};
use crate::value::Item;

/// The attribute of a counted item that names the counts it is held in, each as
/// [`Count::id`], sorted and joined by `;`.
pub const COUNTED: &str = "__dynorm_counted__";

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

impl Schema {
    /// The attributes those other items depend on: the unique constraints' values and
    /// scopes, the fields that name a counted parent, and the marker of the counts that
    /// hold the item.
    pub(crate) fn companion_sources(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.uniques
            .iter()
            .flat_map(|u| u.sources())
            .chain(self.counts.iter().flat_map(|c| c.fields.iter().copied()))
            .chain((!self.counts.is_empty()).then_some(COUNTED))
    }

    /// Whether an update that writes `touched` (an upsert: `upsert`) marks the item as held
    /// by every count of the model: when it may name a counted parent anew.
    pub(crate) fn update_marks_counted<'a>(
        &self,
        mut touched: impl Iterator<Item = &'a str>,
        upsert: bool,
    ) -> bool {
        !self.counts.is_empty()
            && (upsert || touched.any(|name| self.counts.iter().any(|c| c.fields.contains(&name))))
    }
}

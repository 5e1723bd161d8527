//! A single-table model's keys and identity in an item, from its schema: writing them on
//! every whole-item write, checking them on a read, and building a key from its fields.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, ErrorKind, Result};
use crate::schema::convention::{self, Convention};
use crate::schema::entity::Entity;
use crate::schema::Schema;
use crate::value::Item;

fn entity(schema: &Schema) -> Result<&Entity> {
    schema
        .entity
        .as_ref()
        .ok_or_else(|| Error::config("the model has no #[key] templates").with_model(schema.model))
}

/// What to do with a table key whose template lacks a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MissingTableKey {
    /// Refuse the item: every write renders the keys with this.
    Refuse,
    /// Leave the key out: `to_item` does, since a `default` may fill it on create. An
    /// index key ElectroDB would refuse for lack of a value is left out too: the write
    /// renders every key again, strictly, after the defaults. A table key written into
    /// its own field's attribute is left to that pass, which renders it from the field.
    LeaveOut,
}

/// Adds the physical keys and the entity name to an item. An index whose template lacks a
/// value is left out: the item is not in that (sparse) index; under ElectroDB's convention,
/// an index is written as ElectroDB writes it (`electrodb_index_keys`). A table key that
/// lacks a value is refused or left out, as `missing` says.
pub fn write_entity_keys(schema: &Schema, item: &mut Item, missing: MissingTableKey) -> Result<()> {
    let entity = entity(schema)?;
    let mut rendered = Vec::new();
    for template in entity.templates(None) {
        if template.is_own() && missing == MissingTableKey::LeaveOut {
            // A key written into its own field's attribute is rendered once, as the item
            // is prepared for writing (`Refuse`): rendered here too, the field's value
            // would be gone, and that pass would render the key of the key.
            continue;
        }
        match template.render(schema.model, template.strictness(entity.convention), item)? {
            Some(text) => rendered.push((template.attribute, text)),
            None if missing == MissingTableKey::Refuse => {
                return Err(template.missing(schema.model, item))
            }
            None => {}
        }
    }
    let mut indexes: Vec<&str> = entity.keys.iter().filter_map(|k| k.index).collect();
    indexes.dedup();
    for index in indexes {
        if matches!(entity.convention, Convention::ElectroDb { .. }) {
            rendered.extend(electrodb_index_keys_with(
                schema, entity, index, item, missing,
            )?);
            continue;
        }
        let mut index_keys = Vec::new();
        for template in entity.templates(Some(index)) {
            match template.render(schema.model, entity.convention, item)? {
                Some(text) => index_keys.push((template.attribute, text)),
                None => {
                    index_keys.clear();
                    break;
                }
            }
        }
        rendered.extend(index_keys);
    }
    for (attribute, text) in rendered {
        item.insert(attribute.to_owned(), AttributeValue::S(text));
    }
    entity.write_identity(item);
    Ok(())
}

/// An index's keys as ElectroDB's `put` writes them. A key some of whose fields have a value
/// and others not is refused, as ElectroDB refuses it ("Incomplete composite attributes").
/// When no key with fields has all of them, the item is left out of the index. Otherwise
/// every key is written: one without values as its text up to its first field's label
/// (`$app#status_`), and left out when that text is empty.
pub(crate) fn electrodb_index_keys(
    schema: &Schema,
    entity: &Entity,
    index: &str,
    item: &Item,
) -> Result<Vec<(&'static str, String)>> {
    electrodb_index_keys_with(schema, entity, index, item, MissingTableKey::Refuse)
}

/// [`electrodb_index_keys`], leaving out (`LeaveOut`) an index ElectroDB would refuse for
/// lack of a value instead of refusing it.
fn electrodb_index_keys_with(
    schema: &Schema,
    entity: &Entity,
    index: &str,
    item: &Item,
    incomplete: MissingTableKey,
) -> Result<Vec<(&'static str, String)>> {
    let mut keys = Vec::new();
    let mut complete = false;
    for template in entity.templates(Some(index)) {
        let rendered = template.render_parts(schema.model, entity.convention, item)?;
        if rendered.present > 0 && rendered.present < rendered.fields {
            if incomplete == MissingTableKey::LeaveOut {
                return Ok(Vec::new());
            }
            let field = template.first_missing(item);
            return Err(Error::validation(format!(
                "key `{}` of index `{index}` has values for some of its fields but not for `{field}`; ElectroDB refuses such an item (incomplete composite attributes)",
                template.attribute,
            ))
            .with_model(schema.model)
            .with_attribute(field));
        }
        complete |= rendered.fields > 0 && rendered.present == rendered.fields;
        if !rendered.text.is_empty() {
            keys.push((template.attribute, rendered.text));
        }
    }
    if !complete {
        keys.clear();
    }
    Ok(keys)
}

/// Checks that an item is of this entity before it is decoded, as the convention's own
/// library would: the name (absent is accepted under DynamoDB-Toolbox's convention) and,
/// under ElectroDB's, the version.
pub fn check_entity(schema: &Schema, item: &Item) -> Result<()> {
    let entity = entity(schema)?;
    if entity.accepts(item) {
        return Ok(());
    }
    // Refused: say which identity attribute is wrong.
    let (attribute, message) = match convention::text(item, entity.attribute) {
        Some(name) if name != entity.name => (
            entity.attribute,
            format!("the item is a `{name}`, not a `{}`", entity.name),
        ),
        None => (
            entity.attribute,
            format!(
                "the item has no entity name in `{}`, so it is not a `{}`",
                entity.attribute, entity.name
            ),
        ),
        // A matching name is refused only for its version (ElectroDB's convention).
        Some(_) => {
            let (attribute, version) = entity.convention.version().unwrap_or_default();
            let found = convention::text(item, attribute)
                .map_or_else(|| "(none)".to_owned(), |v| format!("{v:?}"));
            (
                attribute,
                format!(
                    "the item is version {found} of `{}`; this model reads version {version:?}",
                    entity.name
                ),
            )
        }
    };
    Err(Error::new(ErrorKind::Conversion, message)
        .with_model(schema.model)
        .with_attribute(attribute))
}

/// The table key of an entity, from the attributes of its key fields.
pub fn entity_key(schema: &Schema, fields: &Item) -> Result<Item> {
    let entity = entity(schema)?;
    let mut key = Item::new();
    for template in entity.templates(None) {
        let text = template
            .render(schema.model, entity.convention, fields)?
            .ok_or_else(|| template.missing(schema.model, fields))?;
        key.insert(template.attribute.to_owned(), AttributeValue::S(text));
    }
    Ok(key)
}

/// The hash key of the table (`index = None`) or an index, from the attributes of its fields.
pub fn template_hash_values(
    schema: &Schema,
    index: Option<&str>,
    fields: &Item,
) -> Result<Vec<(&'static str, AttributeValue)>> {
    let entity = entity(schema)?;
    let mut out = Vec::new();
    for template in entity.templates(index).filter(|t| t.is_hash) {
        let text = template
            .render(schema.model, entity.convention, fields)?
            .ok_or_else(|| template.missing(schema.model, fields))?;
        out.push((template.attribute, AttributeValue::S(text)));
    }
    Ok(out)
}

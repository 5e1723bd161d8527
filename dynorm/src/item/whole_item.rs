//! Preparing a whole item for writing, the same way on every path that writes one:
//! `create`, `put`, batch puts and transaction puts.

use crate::error::Result;
use crate::schema::{entity_keys, Model};
use crate::value::Item;

/// Whether a whole-item write creates a new item or may replace one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WholeItemWrite {
    /// `create`: `#[dynorm(default)]` attributes are filled in where absent.
    Create,
    /// `put` and batch puts: the item is written as given, but for the defaults given on
    /// the model (`#[dynorm(default = "main")]`), which fill an absent attribute.
    Replace,
}

/// The item as it will be stored: converted, with defaults on create, `updated_at` set,
/// and every `#[combine]` attribute, template key and the entity name rendered again
/// after them, strictly, since what dynorm sets can be key parts (a generated id, the
/// time, the version a put writes, which the caller sets before). It is then checked
/// against DynamoDB's limits, so that every path refuses the same items before sending.
pub(crate) fn stored_item<M: Model>(
    model: &M,
    write: WholeItemWrite,
    operation: &'static str,
) -> Result<Item> {
    let item = model.to_item().map_err(|e| e.with_operation(operation))?;
    prepare_item::<M>(item, write, operation)
}

/// [`stored_item`] for an item already converted: a model's, or an insert type's, which
/// leaves the generated attributes out.
pub(crate) fn prepare_item<M: Model>(
    mut item: Item,
    write: WholeItemWrite,
    operation: &'static str,
) -> Result<Item> {
    M::SCHEMA
        .apply_defaults(&mut item, write == WholeItemWrite::Create)
        .map_err(|e| e.with_operation(operation))?;
    M::SCHEMA.touch_updated_at(&mut item);
    if !M::SCHEMA.combines.is_empty() {
        M::SCHEMA
            .write_combines(&mut item)
            .map_err(|e| e.with_operation(operation))?;
    }
    if let Some(shape) = M::SCHEMA.shape {
        shape.write(&mut item);
    }
    if !M::SCHEMA.counts.is_empty() {
        // The item is counted in its parents as it is written (`schema/count.rs`).
        item.insert(
            crate::schema::count::COUNTED.to_owned(),
            crate::schema::count::marker(M::SCHEMA.counts),
        );
    }
    if M::SCHEMA.entity.is_some() {
        entity_keys::write_entity_keys(&M::SCHEMA, &mut item, entity_keys::MissingTableKey::Refuse)
            .map_err(|e| e.with_operation(operation))?;
    }
    M::SCHEMA.check_item(&item, operation)?;
    Ok(item)
}

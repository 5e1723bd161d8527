//! One item of a backfill: whether it is current, the item it should be, and the
//! conditional write that makes it so without losing a concurrent write.

use dynorm::__ext::error::Context as _;
use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use tracing::Instrument as _;

use dynorm::__ext::client::Client;
use dynorm::__ext::error::{Error, Result};
use dynorm::__ext::observe::span::request_span;
use dynorm::__ext::schema::entity::{self, MissingTableKey};
use dynorm::__ext::schema::{Model, Schema};
use dynorm::__ext::value::Item;

use super::spend::Spend;

/// What a stored item needs.
pub(crate) enum Needed {
    /// Nothing: it is the item its model writes today.
    Nothing,
    /// A rewrite in place, or a move when its table key renders differently now.
    Rewrite { new: Item, moved: bool },
}

/// The attributes dynorm renders itself: table and index keys, the entity's identity,
/// the shape. One that the item as written today lacks is removed by a rewrite.
fn managed(schema: &Schema, name: &str) -> bool {
    schema.keys.iter().any(|k| k.name == name)
        || schema
            .indexes
            .iter()
            .flat_map(|i| i.hash_key.iter().chain(i.range_key))
            .any(|k| k.name == name)
        || schema.entity.is_some_and(|e| {
            e.attribute == name
                || e.keys.iter().any(|k| k.attribute == name)
                || e.convention.version().is_some_and(|(a, _)| a == name)
        })
        || schema.shape.is_some_and(|s| s.attribute == name)
}

/// The item a stored item should be: read as the model (earlier shapes upcast), then
/// written as the model writes it today, with its keys and identity rendered again. It
/// keeps every attribute dynorm does not own (another service's): only the model's own
/// attributes, those dynorm renders, and those an earlier shape's type read are dropped
/// when today's item lacks them.
///
/// When `expand`, an item of an earlier shape gains today's attributes (and keys) but
/// keeps its shape and every attribute its shape's type reads, with the values it holds:
/// readers of that shape still read it, and readers of today's shape still upcast it from
/// what those readers write. A later run without `expand` contracts it.
pub(crate) fn needed<M: Model>(old: &Item, expand: bool) -> Result<Needed> {
    let schema = &M::SCHEMA;
    let shape = stored_shape(schema, old)?;
    let model = M::from_item(old.clone())?;
    let mut new = model.to_item()?;
    if schema.entity.is_some() {
        entity::write_entity_keys(schema, &mut new, MissingTableKey::Refuse)?;
    }
    if let Some(shape) = schema.shape {
        shape.write(&mut new);
    }
    let earlier = match (schema.shape, shape) {
        (Some(current), Some(stored)) if stored < current.current => {
            M::__shape_fields(stored).unwrap_or_default()
        }
        _ => &[],
    };
    if let (true, Some(current), Some(stored)) = (expand, schema.shape, shape) {
        if stored < current.current {
            expanded(old, &mut new, current.attribute, earlier);
        }
    }
    for (name, value) in old {
        let owned = schema.attributes.contains(&name.as_str())
            || managed(schema, name)
            || earlier.contains(&name.as_str());
        if !owned && !new.contains_key(name) {
            new.insert(name.clone(), value.clone());
        }
    }
    if &new == old {
        return Ok(Needed::Nothing);
    }
    schema.check_item(&new, "backfill")?;
    let moved = schema.key_of(&new) != schema.key_of(old);
    Ok(Needed::Rewrite { new, moved })
}

/// Keeps in `new` what readers of `old`'s earlier shape read: its shape attribute (or
/// its absence), and each attribute of that shape (`earlier`) with the value `old` holds.
fn expanded(old: &Item, new: &mut Item, shape_attribute: &str, earlier: &[&str]) {
    match old.get(shape_attribute) {
        Some(value) => new.insert(shape_attribute.to_owned(), value.clone()),
        None => new.remove(shape_attribute),
    };
    for name in earlier {
        if let Some(value) = old.get(*name) {
            new.insert((*name).to_owned(), value.clone());
        }
    }
}

/// The stored shape of an item, for a model with shapes.
pub(crate) fn stored_shape(schema: &Schema, item: &Item) -> Result<Option<u32>> {
    schema
        .shape
        .map(|shape| shape.of(schema.model, item))
        .transpose()
}

/// A condition, with its own placeholders, that the stored item is still `old`: every
/// attribute read holds the value read (the `#[version]` among them, so a writer that does
/// not bump it is seen too), and no attribute of the model has appeared.
pub(crate) struct Unchanged {
    pub expression: String,
    pub names: HashMap<String, String>,
    pub values: HashMap<String, AttributeValue>,
}

impl Unchanged {
    pub(crate) fn of(schema: &Schema, old: &Item) -> Self {
        let mut out = Unchanged {
            expression: String::new(),
            names: HashMap::new(),
            values: HashMap::new(),
        };
        out.push_exists(schema.hash_key.name, true);
        // In a stable order, so that a request is the same each time.
        let mut read: Vec<_> = old.iter().collect();
        read.sort_unstable_by_key(|(name, _)| *name);
        for (name, value) in read {
            out.push_equal(name, value);
        }
        for name in schema.attributes.iter().filter(|a| !old.contains_key(**a)) {
            out.push_exists(name, false);
        }
        if let Some(version) = schema.version.filter(|v| !old.contains_key(*v)) {
            if !schema.attributes.contains(&version) {
                out.push_exists(version, false);
            }
        }
        out
    }

    fn name(&mut self, name: &str) -> String {
        let placeholder = format!("#b{}", self.names.len());
        self.names.insert(placeholder.clone(), name.to_owned());
        placeholder
    }

    fn join(&mut self, part: String) {
        if !self.expression.is_empty() {
            self.expression.push_str(" AND ");
        }
        self.expression.push_str(&part);
    }

    fn push_exists(&mut self, name: &str, exists: bool) {
        let name = self.name(name);
        let function = if exists {
            "attribute_exists"
        } else {
            "attribute_not_exists"
        };
        self.join(format!("{function}({name})"));
    }

    fn push_equal(&mut self, name: &str, value: &AttributeValue) {
        let name = self.name(name);
        let placeholder = format!(":b{}", self.values.len());
        self.values.insert(placeholder.clone(), value.clone());
        self.join(format!("{name} = {placeholder}"));
    }
}

/// How a rewrite ended.
pub(crate) enum Written {
    /// Written.
    Done,
    /// The item changed since it was read: read it again.
    Changed,
}

/// An update expression that turns `old` into `new`: `SET` of each attribute whose value
/// differs, `REMOVE` of each one `new` lacks. Its placeholders (`#u..`, `:u..`) are added
/// to `unchanged`'s, whose condition goes with it.
fn changes(old: &Item, new: &Item, unchanged: &mut Unchanged) -> String {
    let mut set: Vec<_> = new
        .iter()
        .filter(|(n, v)| old.get(*n) != Some(*v))
        .collect();
    set.sort_unstable_by_key(|(name, _)| *name);
    let mut removed: Vec<_> = old.keys().filter(|n| !new.contains_key(*n)).collect();
    removed.sort_unstable();
    let mut placeholder = |name: &str| {
        let placeholder = format!("#u{}", unchanged.names.len());
        unchanged.names.insert(placeholder.clone(), name.to_owned());
        placeholder
    };
    let mut sets = Vec::with_capacity(set.len());
    for (name, value) in set {
        let name = placeholder(name);
        let value_placeholder = format!(":u{}", sets.len());
        sets.push(format!("{name} = {value_placeholder}"));
        unchanged.values.insert(value_placeholder, value.clone());
    }
    let removes: Vec<_> = removed.into_iter().map(|n| placeholder(n)).collect();
    let mut expression = String::new();
    if !sets.is_empty() {
        expression.push_str("SET ");
        expression.push_str(&sets.join(", "));
    }
    if !removes.is_empty() {
        if !expression.is_empty() {
            expression.push(' ');
        }
        expression.push_str("REMOVE ");
        expression.push_str(&removes.join(", "));
    }
    expression
}

/// Makes the stored `old` into `new`, on condition that `old` is unchanged: an update of
/// the attributes that change in place, or, when the key moved, a transaction that
/// deletes the old key and creates the new one (which carries every attribute of `old`
/// that dynorm does not own). `capacity`: whether to ask DynamoDB what it consumed.
pub(crate) async fn write(
    client: &Client,
    schema: &'static Schema,
    table: &str,
    old: &Item,
    new: Item,
    moved: bool,
    spend: &Spend,
) -> Result<Written> {
    let mut unchanged = Unchanged::of(schema, old);
    let failed = |error: &Error| {
        error.kind() == dynorm::ErrorKind::ConditionFailed
            || error.kind() == dynorm::ErrorKind::TransactionCanceled
    };
    let asked = spend.asked();
    if !moved {
        let expression = changes(old, &new, &mut unchanged);
        let result = client
            .sdk()
            .update_item()
            .table_name(table)
            .set_key(Some(schema.key_of(old)))
            .update_expression(expression)
            .condition_expression(unchanged.expression)
            .set_expression_attribute_names(Some(unchanged.names))
            .set_expression_attribute_values(Some(unchanged.values))
            .set_return_consumed_capacity(asked)
            .send()
            .instrument(request_span!("UpdateItem", schema.model, table))
            .await;
        return match result {
            Ok(output) => {
                spend.spent(output.consumed_capacity.as_slice());
                Ok(Written::Done)
            }
            Err(e) => {
                let error = dynorm::__ext::error::sdk_error(e, schema.model, "backfill", table);
                if failed(&error) {
                    Ok(Written::Changed)
                } else {
                    Err(error)
                }
            }
        };
    }
    use aws_sdk_dynamodb::types::{Delete, Put, TransactWriteItem};
    let built = |e: aws_sdk_dynamodb::error::BuildError| {
        Error::new(dynorm::ErrorKind::Validation, e.to_string())
            .at_model(schema.model)
            .at_operation("backfill")
    };
    let delete = Delete::builder()
        .table_name(table)
        .set_key(Some(schema.key_of(old)))
        .condition_expression(unchanged.expression)
        .set_expression_attribute_names(Some(unchanged.names))
        .set_expression_attribute_values(Some(unchanged.values))
        .build()
        .map_err(built)?;
    // The item's guards move with it (`adopt.rs`).
    let mut items = super::adopt::moved_guards(client, schema, table, old, &new, spend).await?;
    let put = Put::builder()
        .table_name(table)
        .set_item(Some(new))
        .condition_expression("attribute_not_exists(#h)")
        .expression_attribute_names("#h", schema.hash_key.name)
        .build()
        .map_err(built)?;
    items.push(TransactWriteItem::builder().delete(delete).build());
    items.push(TransactWriteItem::builder().put(put).build());
    let result = client
        .sdk()
        .transact_write_items()
        .set_transact_items(Some(items))
        .set_return_consumed_capacity(asked)
        .send()
        .instrument(request_span!("TransactWriteItems", schema.model, table))
        .await;
    match result {
        Ok(output) => {
            spend.spent(output.consumed_capacity.as_deref().unwrap_or_default());
            Ok(Written::Done)
        }
        Err(e) => {
            let error = dynorm::__ext::error::sdk_error(e, schema.model, "backfill", table);
            if failed(&error) && !error.is_retryable() {
                Ok(Written::Changed)
            } else {
                Err(error)
            }
        }
    }
}

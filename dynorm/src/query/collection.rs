//! Reading a collection: its whole partition in one query, decoded into its enum.

use crate::client::Client;
use crate::error::{sdk_error, Error, Result};
use crate::expr::{Comparison, Expr, Placeholders};
use crate::schema::{Collection, Entity, Index, Model};
use crate::value::Item;

/// The items of a collection's partition.
#[derive(Debug)]
pub struct CollectionItems<C> {
    /// The items of the collection's entities, in range key order.
    pub items: Vec<C>,
    /// How many items of other entities the partition held; they are skipped, not failed.
    pub skipped: usize,
}

impl Client {
    /// Reads a collection's whole partition with one query (more only if it spans pages),
    /// decoding each item as the enum variant its entity name says.
    pub async fn collection<C: Collection>(
        &self,
        hash: impl Into<<C::Anchor as Index>::HashKey>,
    ) -> Result<CollectionItems<C>> {
        const OPERATION: &str = "collection";
        let schema = &<C::Anchor as Model>::SCHEMA;
        let fail = |e: Error| e.with_model(schema.model).with_operation(OPERATION);
        let attribute = schema.entity.map(|e| e.attribute).ok_or_else(|| {
            fail(Error::config(
                "a collection's entities need #[key(...)] templates",
            ))
        })?;
        let values = <C::Anchor as Index>::hash_values(&hash.into()).map_err(fail)?;
        let mut placeholders = Placeholders::default();
        let conditions: Vec<Expr> = values
            .into_iter()
            .map(|(name, value)| Expr::Compare(name, Comparison::Eq, value))
            .collect();
        let key_condition = placeholders.render_all(&conditions).unwrap_or_default();
        let (names, values) = (placeholders.take_names(), placeholders.take_values());
        let table = self.table_name::<C::Anchor>();
        let mut start: Option<Item> = None;
        let mut out = CollectionItems {
            items: Vec::new(),
            skipped: 0,
        };
        loop {
            let output = self
                .sdk()
                .query()
                .table_name(&table)
                .key_condition_expression(&key_condition)
                .set_expression_attribute_names(names.clone())
                .set_expression_attribute_values(values.clone())
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(|e| sdk_error(e, schema.model, OPERATION, &table))?;
            for item in output.items.unwrap_or_default() {
                let entity = Entity::of(attribute, &item);
                match entity.and_then(|name| C::decode(&name, item)) {
                    Some(decoded) => out
                        .items
                        .push(decoded.map_err(|e| e.with_operation(OPERATION))?),
                    None => out.skipped += 1,
                }
            }
            match output.last_evaluated_key.filter(|k| !k.is_empty()) {
                Some(key) => start = Some(key),
                None => return Ok(out),
            }
        }
    }
}

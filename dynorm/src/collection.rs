//! Collections: several entities that share a partition, read in one query and decoded by
//! their entity names into one enum.

use crate::client::Client;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::index::Index;
use crate::model::{Item, Model};

/// An enum of entities that share a partition. Derive it:
///
/// ```
/// use dynorm::{Collection, Model};
///
/// #[derive(Model)]
/// #[dynorm(table = "App", entity = "team")]
/// #[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
/// struct Team { team_id: String, name: String }
///
/// #[derive(Model)]
/// #[dynorm(table = "App", entity = "membership")]
/// #[key(pk = "TEAM#{team_id}", sk = "MEMBER#{user_id}")]
/// struct Membership { team_id: String, user_id: String, role: String }
///
/// /// The team's metadata and its members: one query on `TEAM#<id>`.
/// #[derive(Collection)]
/// enum TeamWithMembers {
///     Team(Team),
///     Member(Membership),
/// }
/// ```
///
/// The first variant's table key gives the partition: `db.collection::<TeamWithMembers>("t1")`.
pub trait Collection: Sized + Send + 'static {
    /// The entity whose hash key names the partition.
    type Anchor: Model + Index<Model = Self::Anchor>;

    /// Decodes an item of entity `entity`, or `None` for an entity not in the collection.
    fn decode(entity: &str, item: Item) -> Option<Result<Self>>;
}

/// The items of a collection's partition.
#[derive(Debug)]
pub struct CollectionItems<C> {
    /// The items of the collection's entities, in range key order.
    pub items: Vec<C>,
    /// How many items of other entities the partition held; they are skipped, not failed.
    pub skipped: usize,
}

/// The entity name of a schema, for generated code.
pub const fn entity_name(schema: &crate::model::Schema) -> &'static str {
    match &schema.entity {
        Some(entity) => entity.name,
        None => "",
    }
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
        let mut placeholders = crate::expr::Placeholders::default();
        let conditions: Vec<crate::condition::Expr> = values
            .into_iter()
            .map(|(name, value)| {
                crate::condition::Expr::Compare(name, crate::condition::Comparison::Eq, value)
            })
            .collect();
        let key_condition = placeholders.render_all(&conditions).unwrap_or_default();
        let (names, values) = (placeholders.take_names(), placeholders.take_values());
        let mut start: Option<Item> = None;
        let mut out = CollectionItems {
            items: Vec::new(),
            skipped: 0,
        };
        loop {
            let output = self
                .sdk()
                .query()
                .table_name(self.table_name::<C::Anchor>())
                .key_condition_expression(&key_condition)
                .set_expression_attribute_names(names.clone())
                .set_expression_attribute_values(values.clone())
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(|e| crate::ops::sdk_error(e, schema.model, OPERATION))?;
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

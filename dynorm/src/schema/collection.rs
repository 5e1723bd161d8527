//! Collections: an enum of entities that share a partition, decoded by entity name.

use crate::error::Result;
use crate::schema::Derived;
use crate::schema::{Index, Keyed, Model, Schema};
use crate::value::Item;

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
/// A collection on a global secondary index names it, `#[dynorm(index = "GSI1")]`, and the
/// first variant's key on that index gives the partition, as ElectroDB's collections on
/// an index: every entity of the collection keys the index, with the same hash key.
pub trait Collection: Derived + Keyed + Sized + Send + 'static {
    /// The first entity: its table holds the collection.
    type Anchor: Model + Index<Model = Self::Anchor>;

    /// The first entity's table, or its index named by `#[dynorm(index = "..")]`: its hash
    /// key names the partition.
    type Partition: Index<Model = Self::Anchor>;

    /// The schema of each entity, in variant order.
    #[doc(hidden)]
    const __ENTITIES: &'static [&'static Schema] = &[];

    /// Decodes an item of entity `entity`, or `None` for an entity not in the collection.
    fn decode(entity: &str, item: Item) -> Option<Result<Self>>;

    /// Decodes the key attributes of an item of entity `entity` as that entity's key, in
    /// the collection's key enum, or `None` for an entity not in the collection.
    #[doc(hidden)]
    fn __decode_key(entity: &str, key: Item) -> Option<Result<<Self as Keyed>::Key>>;
}

/// An entity of collection `C`: `#[derive(Collection)]` implements it for each variant's
/// model, so that a filter on the collection's query names the attributes of one of them
/// ([`CollectionQuery::filter`](crate::query::CollectionQuery::filter)).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an entity of the collection `{C}`",
    label = "a filter of `{C}` names the attributes of one of its entities",
    note = "`#[derive(Collection)]` makes each model of its variants a `Member` of it"
)]
pub trait Member<C: Collection>: Model {}

/// The entity name of a schema, for generated code.
pub const fn entity_name(schema: &Schema) -> &'static str {
    match &schema.entity {
        Some(entity) => entity.name,
        None => "",
    }
}

/// The entity among `entities` that holds a stored item, by its identity attributes.
pub fn owner(entities: &[&'static Schema], item: &Item) -> Option<&'static Schema> {
    entities
        .iter()
        .copied()
        .find(|schema| schema.entity.is_some_and(|e| e.holds(item)))
}

//! Relations whose items share a partition with their parents: which ones do, for any
//! values, and reading the partitions that hold both, split by entity.

use aws_sdk_dynamodb::types::AttributeValue;

use super::rounds::in_rounds;
use super::sending::Sending;
use super::{access, RelationSchema};
use crate::error::Result;
use crate::query::Partition;
use crate::schema::{IndexKind, IndexSchema, Schema};
use crate::value::Item;

/// A relation that may come in the same Query as its parents: one without a per-parent
/// limit, order or filter, to a model with an entity name.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Shared {
    /// The related model.
    pub schema: &'static Schema,
    /// The relation.
    pub relation: RelationSchema,
}

/// Related items read with their parents: one entry per relation of a loader, in the order
/// of [`Load::__candidates`](super::Load::__candidates); `Some` when that relation's items
/// came in the parents' partitions.
#[doc(hidden)]
pub type Prefetched = Vec<Option<Vec<Item>>>;

/// Whether two schemas are stored in the same table, whatever the client's naming.
fn same_table(a: &Schema, b: &Schema) -> bool {
    a.table == b.table && a.table_prefix == b.table_prefix && a.table_suffix == b.table_suffix
}

/// The index of `schema` with the name of `index` (its table for the table), if it has one.
fn same_index(schema: &Schema, index: &IndexSchema) -> Option<IndexSchema> {
    match index.kind {
        IndexKind::Table => Some(schema.table_index()),
        _ => schema
            .indexes
            .iter()
            .find(|i| i.name == index.name)
            .copied(),
    }
}

/// Whether every item `shared` relates to a parent whose attributes hold `parent` is in
/// the partition `hash` of `index`, an index of `schema`'s table, and comes whole from it.
pub(crate) fn in_partition(
    shared: &Shared,
    schema: &Schema,
    index: &IndexSchema,
    hash: &[(&'static str, AttributeValue)],
    parent: &Item,
) -> bool {
    if !same_table(shared.schema, schema) || shared.schema.entity.is_none() {
        return false;
    }
    let Some(own) = same_index(shared.schema, index) else {
        return false;
    };
    if !own.projects_all(shared.schema) {
        return false;
    }
    let mut references = Item::new();
    for (field, reference) in shared
        .relation
        .fields
        .iter()
        .zip(shared.relation.references)
    {
        match parent.get(*field) {
            Some(value) => references.insert((*reference).to_owned(), value.clone()),
            None => return false,
        };
    }
    access::hash_values(shared.schema, &own, &references).is_ok_and(|own| own == hash)
}

/// Which of `candidates` a Query of one partition of `index` of `schema`, the one that the
/// values of `references` build, returns too, whatever those values are; `None` when it
/// returns none of them.
///
/// The values are stand-ins, distinct per reference: a relation's items are in the same
/// partition for the stand-ins only when its hash key is rendered from the same references
/// in the same way, and then they are for every value.
pub(crate) fn carried(
    schema: &'static Schema,
    index: &IndexSchema,
    references: &[&str],
    candidates: &[Option<Shared>],
) -> Option<Vec<bool>> {
    schema.entity?;
    if !index.projects_all(schema) {
        return None;
    }
    let stand_ins: Item = references
        .iter()
        .enumerate()
        .map(|(i, r)| ((*r).to_owned(), AttributeValue::S(format!("\u{1}{i}\u{1}"))))
        .collect();
    let hash = access::hash_values(schema, index, &stand_ins).ok()?;
    let slots: Vec<bool> = candidates
        .iter()
        .map(|c| {
            c.as_ref()
                .is_some_and(|c| in_partition(c, schema, index, &hash, &stand_ins))
        })
        .collect();
    slots.contains(&true).then_some(slots)
}

/// The items of one partition, split by entity: those of the parents' model, then those
/// of each relation read with them (`None` for a relation that is not).
pub(crate) struct Split {
    /// The unexpired items of the parents' model.
    pub own: Vec<Item>,
    /// The unexpired items of each carried relation, in slot order.
    pub carried: Prefetched,
}

/// Reads whole partitions of `index` of `schema`'s table, one Query each (more only if a
/// partition spans pages), in rounds of at most `concurrency`, and splits each one's items.
pub(crate) async fn read_partitions(
    sending: Sending<'_>,
    schema: &'static Schema,
    index: &IndexSchema,
    hashes: Vec<Vec<(&'static str, AttributeValue)>>,
    candidates: &[Option<Shared>],
    slots: &[bool],
) -> Result<Vec<Split>> {
    let (db, report) = (sending.db, sending.report);
    let table = db.table_name_of(schema);
    let carried: Vec<Option<&'static Schema>> = candidates
        .iter()
        .zip(slots)
        .map(|(c, &slot)| c.filter(|_| slot).map(|c| c.schema))
        .collect();
    let index = *index;
    let reads: Vec<_> = hashes
        .into_iter()
        .map(|hash| {
            let (db, table, carried) = (db.clone(), table.clone(), carried.clone());
            // Boxed: a request's future is large, and the round moves it.
            Box::pin(async move {
                let partition = Partition {
                    model: schema.model,
                    operation: "find",
                    table: &table,
                    index: index.request_name(),
                    hash: &hash,
                };
                let mut split = Split {
                    own: Vec::new(),
                    carried: carried.iter().map(|c| c.map(|_| Vec::new())).collect(),
                };
                partition
                    .read(&db, report, |item| {
                        place(item, schema, &carried, &mut split);
                        Ok(())
                    })
                    .await?;
                Ok::<_, crate::error::Error>(split)
            })
        })
        .collect();
    in_rounds(reads, sending.concurrency).await
}

/// Puts an item with those of its entity, unless it is expired or of no entity wanted.
fn place(item: Item, own: &Schema, carried: &[Option<&'static Schema>], split: &mut Split) {
    let holds = |schema: &Schema| {
        schema.entity.is_some_and(|e| e.holds(&item)) && !schema.is_expired(&item)
    };
    if holds(own) {
        split.own.push(item);
        return;
    }
    let slot = carried.iter().position(|c| c.is_some_and(&holds));
    if let Some(Some(items)) = slot.map(|slot| &mut split.carried[slot]) {
        items.push(item);
    }
}

//! Loading one relation for many parents: from the items read with the parents, by one
//! Query per partition that also holds the relation's own relations, or by its own
//! requests (BatchGetItem, Query, or Scan); and its lines of the plan.

use aws_sdk_dynamodb::types::AttributeValue;

use super::access::{self, Access};
use super::grouping::{decode_groups, distinct, group, spread, OPERATION};
use super::load::sealed::{LoadInput, Sending};
use super::plan::Waves;
use super::rounds::{in_rounds, Rounds};
use super::shared::{self, Prefetched, Shared};
use super::{Load, RelationSchema};
use crate::batch::{BatchGet, BatchGetResults, BatchOptions};
use crate::error::{Error, Result};
use crate::expr::{Comparison, Conjunction, Expr};
use crate::observe::Tally;
use crate::query::Query;
use crate::schema::{Index, IndexSchema, Model, Schema};
use crate::value::Item;
use crate::Request;

/// Why a budgeted load refuses a relation read by Scan.
const BUDGETED_SCAN: &str = "a relation read by Scan (allow_scan) reads the whole table, which \
     a budget cannot stop midway: load it without a budget, or give it a key or index";

/// Errors of a relation name the parent model and the operation, and the parent's field
/// when the error is about the related attribute it references.
pub(super) fn fail<P: Model>(relation: &RelationSchema) -> impl Fn(Error) -> Error + '_ {
    move |e: Error| {
        let message = format!("relation `{}`: {}", relation.name, e.message());
        let field = relation
            .references
            .iter()
            .position(|r| e.attribute() == Some(*r))
            .and_then(|i| relation.fields.get(i));
        let error = Error::new(e.kind(), message)
            .with_model(P::SCHEMA.model)
            .with_operation(OPERATION);
        match field {
            Some(field) => error.with_attribute(*field),
            None => error,
        }
    }
}

/// Loads the nested tree of every related item, then gives each group its joined items.
async fn nest<C: Model, N: Load<C>>(
    sending: Sending<'_>,
    nested: &N,
    groups: Vec<Vec<C>>,
    prefetched: Prefetched,
) -> Result<Vec<Vec<N::Joined>>> {
    let sizes: Vec<usize> = groups.iter().map(Vec::len).collect();
    let flat: Vec<C> = groups.into_iter().flatten().collect();
    let outputs = nested
        .load_with(LoadInput {
            sending,
            parents: &flat,
            prefetched,
        })
        .await?;
    let mut joined = flat.into_iter().zip(outputs).map(|(c, o)| N::join(c, o));
    Ok(sizes
        .into_iter()
        .map(|size| joined.by_ref().take(size).collect())
        .collect())
}

/// A relation as its loader holds it: the declaration, `one` or `many`, the per-parent
/// options.
pub(super) struct Declared<'a> {
    pub relation: &'a RelationSchema,
    pub one: bool,
    /// `None` for a `one` relation.
    pub options: Option<&'a Options>,
}

impl Declared<'_> {
    /// The related items a parent keeps: the first for a `one` relation.
    fn first<C>(&self, groups: Vec<Vec<C>>) -> Vec<Vec<C>> {
        if self.one {
            groups
                .into_iter()
                .map(|g| g.into_iter().take(1).collect())
                .collect()
        } else {
            groups
        }
    }

    /// How the related items are reached.
    fn access<C: Model>(&self) -> Result<Access> {
        access::choose(
            &C::SCHEMA,
            self.relation.references,
            self.one,
            self.relation.allow_scan,
        )
    }

    /// The index whose partitions hold the related items of one parent and the items of
    /// some of their own relations (`nested`), with those relations marked; `None` when
    /// each is read on its own. Only without per-parent options, which the whole partition
    /// read could not apply, and without a budget, whose pages are cut to fit.
    fn carrier<C: Model>(
        &self,
        access: &Access,
        nested: &[Option<Shared>],
        budgeted: bool,
    ) -> Option<(IndexSchema, Vec<bool>)> {
        if budgeted || !self.options.is_none_or(Options::is_plain) {
            return None;
        }
        let index = match access {
            Access::Key => C::SCHEMA.table_index(),
            Access::Query(index) => *index,
            Access::Scan => return None,
        };
        let slots = shared::carried(&C::SCHEMA, &index, self.relation.references, nested)?;
        Some((index, slots))
    }

    /// The related items of each parent, with their own relations, each parent's group in
    /// its place: the parents' distinct values are loaded once ([`Self::load`]).
    pub(super) async fn for_parents<P, C, N>(
        &self,
        nested: &N,
        input: LoadInput<'_, P>,
    ) -> Result<Vec<Vec<N::Joined>>>
    where
        P: Model,
        C: Model + Clone + Index<Model = C, Item = C>,
        N: Load<C>,
    {
        let fail = fail::<P>(self.relation);
        let (values, positions) = distinct(input.parents, self.relation).map_err(&fail)?;
        let items = input.prefetched.into_iter().next().flatten();
        let joined = self
            .load::<C, N>(input.sending, nested, &values, items)
            .await
            .map_err(&fail)?;
        Ok(spread(joined, positions))
    }

    /// The related items of each distinct value, with their own relations: from the items
    /// read with the parents, or one Query per partition that holds them and their own
    /// carried relations, or the relation's own requests; in rounds of at most the
    /// load's concurrency, each request within its budget, if it has one.
    pub(super) async fn load<C, N>(
        &self,
        sending: Sending<'_>,
        nested: &N,
        values: &[Item],
        prefetched: Option<Vec<Item>>,
    ) -> Result<Vec<Vec<N::Joined>>>
    where
        C: Model + Clone + Index<Model = C, Item = C>,
        N: Load<C>,
    {
        let candidates = nested.candidates();
        let none: Prefetched = vec![None; candidates.len()];
        if let Some(items) = prefetched {
            let groups = decode_groups::<C>(items, values, self.relation)?;
            return nest(sending, nested, self.first(groups), none).await;
        }
        let (db, concurrency) = (sending.db, sending.concurrency);
        if values.is_empty() {
            return Ok(Vec::new());
        }
        let access = self.access::<C>()?;
        let budgeted = sending.meter.is_some();
        if let Some((index, slots)) = self.carrier::<C>(&access, &candidates, budgeted) {
            let hashes = values
                .iter()
                .map(|value| access::hash_values(&C::SCHEMA, &index, value))
                .collect::<Result<Vec<_>>>()?;
            let splits =
                shared::read_partitions(sending, &C::SCHEMA, &index, hashes, &candidates, &slots)
                    .await?;
            let mut own = Vec::new();
            let mut carried: Prefetched = slots.iter().map(|&s| s.then(Vec::new)).collect();
            for split in splits {
                own.extend(split.own);
                for (all, items) in carried.iter_mut().zip(split.carried) {
                    if let (Some(all), Some(items)) = (all, items) {
                        all.extend(items);
                    }
                }
            }
            let groups = decode_groups::<C>(own, values, self.relation)?;
            return nest(sending, nested, self.first(groups), carried).await;
        }
        let groups = match access {
            Access::Key => {
                // One BatchGetItem per 100 keys, as many at once as the relation's Queries.
                let options = BatchOptions::default()
                    .concurrency(u32::try_from(concurrency.get()).unwrap_or(u32::MAX));
                let mut batch = db.batch_get().options(options);
                for value in values {
                    batch = batch.get_key::<C>(access::table_key(&C::SCHEMA, value)?);
                }
                let found = send_batch(batch, sending, values.len())
                    .await?
                    .items::<C>()?;
                group(found, values, self.relation)?
            }
            other => {
                let plain = Options::default();
                let options = self.options.unwrap_or(&plain);
                many_groups::<C>(sending, &other, values, self.relation, options).await?
            }
        };
        nest(sending, nested, self.first(groups), none).await
    }

    /// The requests of this relation, in wave `wave`, and those of its own relations.
    pub(super) fn plan<P: Model, C: Model, N: Load<C>>(
        &self,
        nested: &N,
        wave: usize,
        waves: &mut Waves,
        prefetched: &[bool],
    ) -> Result<()> {
        let candidates = nested.candidates();
        if prefetched.first() == Some(&true) {
            // Read with the parents: its own relations start in this wave.
            return nested.plan(wave, waves, &vec![false; candidates.len()]);
        }
        let relation = self.relation;
        let access = self.access::<C>().map_err(fail::<P>(relation))?;
        let kind = if self.one { "one" } else { "many" };
        let name = format!(
            "`{}.{}` ({kind} {})",
            P::SCHEMA.model,
            relation.name,
            C::SCHEMA.model
        );
        if let Some((index, slots)) = self.carrier::<C>(&access, &candidates, waves.budgeted()) {
            let with: Vec<String> = candidates
                .iter()
                .zip(&slots)
                .filter_map(|(c, &slot)| c.filter(|_| slot))
                .map(|c| {
                    format!(
                        "`{}.{}` ({})",
                        C::SCHEMA.model,
                        c.relation.name,
                        c.schema.model
                    )
                })
                .collect();
            let in_flight = waves.concurrency();
            let text = format!(
                "{name} with {}: one Query on `{}` per distinct parent, one partition each, {in_flight} in flight",
                with.join(" and "),
                index.label()
            );
            let (rounds, reads) = (
                waves.per_parent(),
                waves.pages(&C::SCHEMA, index.request_name(), None),
            );
            waves.push(wave, text, rounds, reads);
            return nested.plan(wave + 1, waves, &slots);
        }
        let in_flight = waves.concurrency();
        if self.options.and_then(|options| options.limit) == Some(0) {
            // As `page_size(0)` and `concurrency(0)`: refused, not an empty read.
            return Err(fail::<P>(relation)(Error::validation(
                "limit(0) would read nothing: a relation's limit is at least 1",
            )));
        }
        // A page is cut to the per-parent limit only under a budget; otherwise the limit
        // applies to the items once read.
        let limit = self
            .options
            .and_then(|options| options.limit)
            .filter(|_| waves.budgeted());
        let (how, rounds, reads) = match access {
            Access::Key => (
                format!("one BatchGetItem per 100 distinct keys, {in_flight} in flight"),
                Rounds::PerHundredParents {
                    concurrency: u32::try_from(in_flight.get()).unwrap_or(u32::MAX),
                },
                waves.keys(&C::SCHEMA),
            ),
            Access::Scan if waves.budgeted() => {
                return Err(fail::<P>(relation)(Error::validation(BUDGETED_SCAN)));
            }
            Access::Scan => (
                "one Scan with a filter (allow_scan)".to_owned(),
                Rounds::One,
                waves.pages(&C::SCHEMA, None, None),
            ),
            Access::Query(index) => (
                format!("one {access} per distinct parent, {in_flight} in flight"),
                waves.per_parent(),
                waves.pages(&C::SCHEMA, index.request_name(), limit),
            ),
        };
        let mut described = String::new();
        if let Some(options) = self.options {
            if let Some(limit) = options.limit {
                described.push_str(&format!(", at most {limit} per parent"));
            }
            if options.descending {
                described.push_str(", descending");
            }
            if !options.filter.parts().is_empty() {
                described.push_str(", filtered");
            }
        }
        waves.push(wave, format!("{name}: {how}{described}"), rounds, reads);
        nested.plan(wave + 1, waves, &vec![false; candidates.len()])
    }
}

/// The per-parent options of a `many` relation.
#[derive(Clone, Default)]
pub(super) struct Options {
    pub limit: Option<usize>,
    pub descending: bool,
    pub filter: Conjunction,
}

impl Options {
    /// No limit, order or filter: every related item, in range key order.
    pub(super) fn is_plain(&self) -> bool {
        self.limit.is_none() && !self.descending && self.filter.parts().is_empty()
    }
}

/// One parent's values for a query planned with stand-ins: its hash key values, then its
/// values of `others`, the references outside the hash key.
fn parent_values(
    schema: &Schema,
    index: &IndexSchema,
    value: &Item,
    others: &[&'static str],
) -> Result<Vec<AttributeValue>> {
    let mut own: Vec<AttributeValue> = access::hash_values(schema, index, value)?
        .into_iter()
        .map(|(_, value)| value)
        .collect();
    for reference in others {
        let Some(value) = value.get(*reference) else {
            return Err(Error::validation("no value for a reference")
                .with_model(schema.model)
                .with_attribute(*reference));
        };
        own.push(value.clone());
    }
    Ok(own)
}

/// Sends a relation's `BatchGetItem`s for `keys` keys: within the load's budget, if it has
/// one (reserving the most `keys` items can cost, and giving back what they did not).
async fn send_batch(
    mut batch: BatchGet,
    sending: Sending<'_>,
    keys: usize,
) -> Result<BatchGetResults> {
    let report = sending.report;
    let Some(meter) = sending.meter else {
        if let Some(tally) = &report.tally {
            batch = batch.tally(tally);
        }
        return batch.send().await;
    };
    let reserved = meter.reserve_items(keys)?;
    // The batch's own tally says what it consumed, then goes to the load's.
    let own = Tally::default();
    let sent = batch.tally(&own).send().await;
    meter.settle_tally(reserved, &own, report.tally.as_ref());
    sent
}

/// A load's Query (the roots', or a relation's), adding to `tally` (which asks DynamoDB for
/// the capacity each request consumes).
pub(super) fn reporting<C: Model>(mut query: Query<C, C>, tally: Option<&Tally>) -> Query<C, C> {
    if let Some(tally) = tally {
        query = query.tally(tally);
    }
    query
}

/// The related items of each distinct value, through `access`: one request per value, in
/// rounds of at most the load's concurrency, or one Scan.
async fn many_groups<C: Model + Index<Model = C, Item = C>>(
    sending: Sending<'_>,
    access: &Access,
    values: &[Item],
    relation: &RelationSchema,
    options: &Options,
) -> Result<Vec<Vec<C>>> {
    let (db, concurrency) = (sending.db, sending.concurrency);
    match access {
        Access::Query(_) | Access::Key => {
            let index = match access {
                Access::Query(index) => *index,
                _ => C::SCHEMA.table_index(),
            };
            // Planned once, with stand-ins for the values that change from parent to
            // parent: the hash key, and the references outside it.
            let Some(first) = values.first() else {
                return Ok(Vec::new());
            };
            let hash_sources = access::index_hash_sources(&C::SCHEMA, &index);
            let others: Vec<&'static str> = relation
                .references
                .iter()
                .copied()
                .filter(|reference| !hash_sources.contains(reference))
                .collect();
            let stand_in = |i: usize| AttributeValue::S(format!("\u{1}{i}\u{1}"));
            let hash: Vec<_> = access::hash_values(&C::SCHEMA, &index, first)?
                .into_iter()
                .enumerate()
                .map(|(i, (name, _))| (name, stand_in(i)))
                .collect();
            let mut matching = Conjunction::default();
            for (i, reference) in others.iter().enumerate() {
                matching.push_expr(Expr::Compare(
                    reference,
                    Comparison::Eq,
                    stand_in(hash.len() + i),
                ));
            }
            let stand_ins: Vec<AttributeValue> =
                (0..hash.len() + others.len()).map(stand_in).collect();
            let mut query = Query::<C, C>::raw(db, index, hash)
                .matching_all(matching)
                .filter_all(options.filter.clone());
            if options.descending {
                query = query.descending();
            }
            let mut repeated =
                reporting(query, sending.report.tally.as_ref()).repeated(&stand_ins)?;
            if sending.meter.is_some() {
                repeated = repeated.metered();
            }
            // The requests of a round share what is left of a budget.
            let share = values.len().min(concurrency.get()) * sending.siblings;
            let meter = sending.meter.map(|meter| (meter, share));
            let requests: Vec<_> = values
                .iter()
                .map(|value| {
                    let own = parent_values(&C::SCHEMA, &index, value, &others);
                    let repeated = &repeated;
                    // Boxed: a request's future is large, and the round moves it.
                    Box::pin(async move { repeated.collect(&own?, options.limit, meter).await })
                })
                .collect();
            in_rounds(requests, concurrency).await
        }
        Access::Scan => {
            if sending.meter.is_some() {
                return Err(Error::validation(BUDGETED_SCAN));
            }
            // One scan for every parent, matched by value here.
            let mut scan = db.scan::<C>().filter_all(options.filter.clone());
            if let Some(tally) = &sending.report.tally {
                scan = scan.tally(tally);
            }
            let found: Vec<C> = scan.all().await?;
            let mut groups = group(found, values, relation)?;
            for group in &mut groups {
                if options.descending {
                    group.reverse();
                }
                if let Some(limit) = options.limit {
                    group.truncate(limit);
                }
            }
            Ok(groups)
        }
    }
}

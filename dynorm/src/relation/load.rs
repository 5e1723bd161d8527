//! The relation loaders: `one`, `many`, no relation, and several at one level.

use std::collections::HashMap;
use std::marker::PhantomData;

use aws_sdk_dynamodb::types::AttributeValue;
use futures::future::BoxFuture;
use futures::stream::{self, StreamExt, TryStreamExt};

use super::access::{self, Access};
use super::shared::{self, Prefetched, Shared};
use super::{RelationSchema, CONCURRENCY};
use crate::client::Client;
use crate::error::{Error, Result};
use crate::expr::{Comparison, Condition, Conjunction, Expr};
use crate::query::Query;
use crate::schema::{Index, IndexSchema, Model, Schema};
use crate::value::Item;

const OPERATION: &str = "find";

/// Loads what a tree of relations adds to each parent of type `P`.
///
/// Implemented by [`One`], [`Many`], `()` (nothing) and tuples of up to four loaders (several
/// relations of one level, loaded concurrently). Models in a loaded tree are `Clone`, since
/// a related item shared by several parents is given to each.
pub trait Load<P: Model>: Send + Sync {
    /// What the loader adds to one parent: `Option<User>`, `Vec<Comment>`, a tuple of them.
    type Output: Clone + Send + 'static;
    /// A parent with what was loaded for it: `P` itself when nothing is, else
    /// `(P, Self::Output)`.
    type Joined: Clone + Send + 'static;

    /// Puts a parent and its output together.
    fn join(parent: P, output: Self::Output) -> Self::Joined;

    /// Loads the output of every parent, in order.
    #[doc(hidden)]
    fn __load<'a>(
        &'a self,
        db: &'a Client,
        parents: &'a [P],
    ) -> BoxFuture<'a, Result<Vec<Self::Output>>> {
        self.__load_with(db, parents, vec![None; self.__candidates().len()])
    }

    /// One entry per relation of this loader (a tuple has several, `()` none): the
    /// relation, when its items could come in the same Query as the parents.
    #[doc(hidden)]
    fn __candidates(&self) -> Vec<Option<Shared>>;

    /// Loads the output of every parent, with the items of the relations that came with
    /// the parents already read (`prefetched`, one entry per candidate).
    #[doc(hidden)]
    fn __load_with<'a>(
        &'a self,
        db: &'a Client,
        parents: &'a [P],
        prefetched: Prefetched,
    ) -> BoxFuture<'a, Result<Vec<Self::Output>>>;

    /// Describes the requests this loader sends, in `waves[wave]` and after. A relation
    /// whose items come with the parents (`prefetched`, one entry per candidate) sends
    /// nothing itself, and its own relations start in `waves[wave]`.
    #[doc(hidden)]
    fn __plan(&self, wave: usize, waves: &mut Vec<Vec<String>>, prefetched: &[bool]) -> Result<()>;
}

impl<P: Model + Clone> Load<P> for () {
    type Output = ();
    type Joined = P;

    fn join(parent: P, (): ()) -> P {
        parent
    }

    fn __candidates(&self) -> Vec<Option<Shared>> {
        Vec::new()
    }

    fn __load_with<'a>(
        &'a self,
        _: &'a Client,
        parents: &'a [P],
        _: Prefetched,
    ) -> BoxFuture<'a, Result<Vec<()>>> {
        let count = parents.len();
        Box::pin(async move { Ok(vec![(); count]) })
    }

    fn __plan(&self, _: usize, _: &mut Vec<Vec<String>>, _: &[bool]) -> Result<()> {
        Ok(())
    }
}

macro_rules! tuples {
    ($(($($name:ident $index:tt),+))*) => {$(
        impl<P: Model + Clone, $($name: Load<P>),+> Load<P> for ($($name,)+) {
            type Output = ($($name::Output,)+);
            type Joined = (P, Self::Output);

            fn join(parent: P, output: Self::Output) -> Self::Joined {
                (parent, output)
            }

            fn __candidates(&self) -> Vec<Option<Shared>> {
                let mut out = Vec::new();
                $(out.extend(self.$index.__candidates());)+
                out
            }

            fn __load_with<'a>(
                &'a self,
                db: &'a Client,
                parents: &'a [P],
                prefetched: Prefetched,
            ) -> BoxFuture<'a, Result<Vec<Self::Output>>> {
                Box::pin(async move {
                    let mut rest = prefetched.into_iter();
                    let parts = ($(
                        rest.by_ref()
                            .take(self.$index.__candidates().len())
                            .collect::<Prefetched>(),
                    )+);
                    // Independent branches of the tree, concurrently.
                    let outputs =
                        futures::try_join!($(self.$index.__load_with(db, parents, parts.$index)),+)?;
                    let mut iters = ($(outputs.$index.into_iter(),)+);
                    Ok((0..parents.len())
                        .filter_map(|_| Some(($(iters.$index.next()?,)+)))
                        .collect())
                })
            }

            fn __plan(
                &self,
                wave: usize,
                waves: &mut Vec<Vec<String>>,
                prefetched: &[bool],
            ) -> Result<()> {
                let mut rest = prefetched.iter().copied();
                $(
                    let part: Vec<bool> = rest
                        .by_ref()
                        .take(self.$index.__candidates().len())
                        .collect();
                    self.$index.__plan(wave, waves, &part)?;
                )+
                Ok(())
            }
        }
    )*};
}

tuples! {
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
}

/// The values a parent gives a relation, under the related model's attribute names; `None`
/// when one is absent (an `Option` field holding `None`).
fn reference_values<P: Model>(parent: &P, relation: &RelationSchema) -> Result<Option<Item>> {
    let mut item = parent.to_item().map_err(|e| e.with_operation(OPERATION))?;
    let mut out = Item::new();
    for (field, reference) in relation.fields.iter().zip(relation.references) {
        match item.remove(*field) {
            None | Some(AttributeValue::Null(_)) => return Ok(None),
            Some(value) => {
                out.insert((*reference).to_owned(), value);
            }
        }
    }
    Ok(Some(out))
}

/// The identity of a set of reference values: each value's type, length and text, so
/// that no two sets have the same identity.
fn signature(values: &Item, relation: &RelationSchema) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for reference in relation.references {
        let _ = match values.get(*reference) {
            Some(AttributeValue::S(text)) => write!(out, "S{}:{text}", text.len()),
            Some(AttributeValue::N(number)) => write!(out, "N{}:{number}", number.len()),
            other => {
                let debug = format!("{other:?}");
                write!(out, "D{}:{debug}", debug.len())
            }
        };
    }
    out
}

/// Each parent's output, from the outputs of the distinct values at `positions` (`None`:
/// the parent has no values, and gets `missing`): moved to the last parent that uses it,
/// cloned for the others.
fn spread<T: Clone>(outputs: Vec<T>, positions: Vec<Option<usize>>, missing: fn() -> T) -> Vec<T> {
    let mut last = vec![usize::MAX; outputs.len()];
    for (parent, position) in positions.iter().enumerate() {
        if let Some(slot) = position.and_then(|p| last.get_mut(p)) {
            *slot = parent;
        }
    }
    let mut outputs: Vec<Option<T>> = outputs.into_iter().map(Some).collect();
    positions
        .into_iter()
        .enumerate()
        .map(|(parent, position)| {
            let Some(p) = position else {
                return missing();
            };
            let output = if last.get(p) == Some(&parent) {
                outputs.get_mut(p).and_then(Option::take)
            } else {
                outputs.get(p).cloned().flatten()
            };
            output.unwrap_or_else(missing)
        })
        .collect()
}

/// The reference values of each parent, deduplicated: the distinct values, and for each
/// parent the position of its values among them.
fn distinct<P: Model>(
    parents: &[P],
    relation: &RelationSchema,
) -> Result<(Vec<Item>, Vec<Option<usize>>)> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut values = Vec::new();
    let mut positions = Vec::with_capacity(parents.len());
    for parent in parents {
        let position = reference_values(parent, relation)?.map(|item| {
            *seen.entry(signature(&item, relation)).or_insert_with(|| {
                values.push(item);
                values.len() - 1
            })
        });
        positions.push(position);
    }
    Ok((values, positions))
}

/// Equalities on the references that do not build the hash key of `index` of `schema`:
/// the related items must hold exactly these values. Those that build it are in the key
/// condition already, and a key attribute cannot be tested in a filter; the query places
/// a range key equality in the key condition, and the rest in the filter.
fn reference_conditions(
    schema: &Schema,
    index: &IndexSchema,
    values: &Item,
    relation: &RelationSchema,
) -> Conjunction {
    let hash = access::index_hash_sources(schema, index);
    let mut conditions = Conjunction::default();
    for reference in relation.references {
        if hash.contains(reference) {
            continue;
        }
        if let Some(value) = values.get(*reference) {
            conditions.push_expr(Expr::Compare(reference, Comparison::Eq, value.clone()));
        }
    }
    conditions
}

/// Groups related items by the reference values they hold.
fn group<C: Model>(
    items: Vec<C>,
    values: &[Item],
    relation: &RelationSchema,
) -> Result<Vec<Vec<C>>> {
    let index: HashMap<String, usize> = values
        .iter()
        .enumerate()
        .map(|(i, v)| (signature(v, relation), i))
        .collect();
    let mut groups: Vec<Vec<C>> = (0..values.len()).map(|_| Vec::new()).collect();
    for item in items {
        let stored = item.to_item().map_err(|e| e.with_operation(OPERATION))?;
        if let Some(&i) = index.get(&signature(&stored, relation)) {
            groups[i].push(item);
        }
    }
    Ok(groups)
}

/// Errors of a relation name the parent model and the operation.
fn fail<P: Model>(relation: &RelationSchema) -> impl Fn(Error) -> Error + '_ {
    move |e: Error| {
        let message = format!("relation `{}`: {}", relation.name, e.message());
        Error::new(e.kind(), message)
            .with_model(P::SCHEMA.model)
            .with_operation(OPERATION)
    }
}

/// Loads the nested tree of every related item, then gives each group its joined items.
async fn nest<C: Model, N: Load<C>>(
    db: &Client,
    nested: &N,
    groups: Vec<Vec<C>>,
    prefetched: Prefetched,
) -> Result<Vec<Vec<N::Joined>>> {
    let sizes: Vec<usize> = groups.iter().map(Vec::len).collect();
    let flat: Vec<C> = groups.into_iter().flatten().collect();
    let outputs = nested.__load_with(db, &flat, prefetched).await?;
    let mut joined = flat.into_iter().zip(outputs).map(|(c, o)| N::join(c, o));
    Ok(sizes
        .into_iter()
        .map(|size| joined.by_ref().take(size).collect())
        .collect())
}

/// Raw items grouped by the reference values they hold, then decoded.
fn decode_groups<C: Model>(
    items: Vec<Item>,
    values: &[Item],
    relation: &RelationSchema,
) -> Result<Vec<Vec<C>>> {
    let index: HashMap<String, usize> = values
        .iter()
        .enumerate()
        .map(|(i, v)| (signature(v, relation), i))
        .collect();
    let mut groups: Vec<Vec<C>> = (0..values.len()).map(|_| Vec::new()).collect();
    for item in items {
        if let Some(&i) = index.get(&signature(&item, relation)) {
            groups[i].push(C::from_item(item)?);
        }
    }
    Ok(groups)
}

/// A relation as its loader holds it: the declaration, `one` or `many`, the per-parent
/// options.
struct Declared<'a> {
    relation: &'a RelationSchema,
    one: bool,
    /// `None` for a `one` relation.
    options: Option<&'a Options>,
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
    /// read could not apply.
    fn carrier<C: Model>(
        &self,
        access: &Access,
        nested: &[Option<Shared>],
    ) -> Option<(IndexSchema, Vec<bool>)> {
        if !self.options.is_none_or(Options::is_plain) {
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

    /// The related items of each distinct value, with their own relations: from the items
    /// read with the parents, or one Query per partition that holds them and their own
    /// carried relations, or the relation's own requests.
    async fn load<C, N>(
        &self,
        db: &Client,
        nested: &N,
        values: &[Item],
        prefetched: Option<Vec<Item>>,
    ) -> Result<Vec<Vec<N::Joined>>>
    where
        C: Model + Clone + Index<Model = C, Item = C>,
        N: Load<C>,
    {
        let candidates = nested.__candidates();
        let none: Prefetched = vec![None; candidates.len()];
        if let Some(items) = prefetched {
            let groups = decode_groups::<C>(items, values, self.relation)?;
            return nest(db, nested, self.first(groups), none).await;
        }
        if values.is_empty() {
            return Ok(Vec::new());
        }
        let access = self.access::<C>()?;
        if let Some((index, slots)) = self.carrier::<C>(&access, &candidates) {
            let hashes = values
                .iter()
                .map(|value| access::hash_values(&C::SCHEMA, &index, value))
                .collect::<Result<Vec<_>>>()?;
            let splits =
                shared::read_partitions(db, &C::SCHEMA, &index, hashes, &candidates, &slots)
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
            return nest(db, nested, self.first(groups), carried).await;
        }
        let groups = match access {
            Access::Key => {
                let mut batch = db.batch_get();
                for value in values {
                    batch = batch.get_key::<C>(access::table_key(&C::SCHEMA, value)?);
                }
                let found = batch.send().await?.items::<C>()?;
                group(found, values, self.relation)?
            }
            other => {
                let plain = Options::default();
                let options = self.options.unwrap_or(&plain);
                many_groups::<C>(db, &other, values, self.relation, options).await?
            }
        };
        nest(db, nested, self.first(groups), none).await
    }

    /// The requests of this relation, in `waves[wave]`, and those of its own relations.
    fn plan<P: Model, C: Model, N: Load<C>>(
        &self,
        nested: &N,
        wave: usize,
        waves: &mut Vec<Vec<String>>,
        prefetched: &[bool],
    ) -> Result<()> {
        let candidates = nested.__candidates();
        if prefetched.first() == Some(&true) {
            // Read with the parents: its own relations start in this wave.
            return nested.__plan(wave, waves, &vec![false; candidates.len()]);
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
        if let Some((index, slots)) = self.carrier::<C>(&access, &candidates) {
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
            push(
                waves,
                wave,
                format!(
                    "{name} with {}: one Query on `{}` per distinct parent, one partition each, {CONCURRENCY} in flight",
                    with.join(" and "),
                    index.label()
                ),
            );
            return nested.__plan(wave + 1, waves, &slots);
        }
        let how = match access {
            Access::Key => "one BatchGetItem per 100 distinct keys".to_owned(),
            Access::Scan => "one Scan with a filter (allow_scan)".to_owned(),
            other => format!("one {other} per distinct parent, {CONCURRENCY} in flight"),
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
        push(waves, wave, format!("{name}: {how}{described}"));
        nested.__plan(wave + 1, waves, &vec![false; candidates.len()])
    }
}

/// A `one` relation from `P` to `C`, with the relations `N` loaded for the related item.
/// A parent whose related item is missing gets `None`.
#[must_use = "a relation does nothing until it is loaded with `with`"]
pub struct One<P, C, N = ()> {
    relation: RelationSchema,
    nested: N,
    types: PhantomData<fn() -> (P, C)>,
}

impl<P: Model, C: Model> One<P, C> {
    /// The relation the derive declared.
    #[doc(hidden)]
    pub const fn new(relation: RelationSchema) -> Self {
        Self {
            relation,
            nested: (),
            types: PhantomData,
        }
    }
}

impl<P: Model, C: Model, N> One<P, C, N> {
    /// Loads `nested` for the related item too: `Post::author().with(User::posts())`.
    pub fn with<M: Load<C>>(self, nested: M) -> One<P, C, M> {
        One {
            relation: self.relation,
            nested,
            types: PhantomData,
        }
    }

    /// The relation's declaration.
    pub fn schema(&self) -> &RelationSchema {
        &self.relation
    }
}

/// Adds a line to a wave.
fn push(waves: &mut Vec<Vec<String>>, wave: usize, line: String) {
    while waves.len() <= wave {
        waves.push(Vec::new());
    }
    waves[wave].push(line);
}

/// The per-parent options of a `many` relation.
#[derive(Clone, Default)]
struct Options {
    limit: Option<usize>,
    descending: bool,
    filter: Conjunction,
}

impl Options {
    /// No limit, order or filter: every related item, in range key order.
    fn is_plain(&self) -> bool {
        self.limit.is_none() && !self.descending && self.filter.parts().is_empty()
    }
}

/// The related items of each distinct value, through `access`.
async fn many_groups<C: Model + Index<Model = C, Item = C>>(
    db: &Client,
    access: &Access,
    values: &[Item],
    relation: &RelationSchema,
    options: &Options,
) -> Result<Vec<Vec<C>>> {
    match access {
        Access::Query(_) | Access::Key => {
            let index = match access {
                Access::Query(index) => *index,
                _ => C::SCHEMA.table_index(),
            };
            let requests: Vec<_> = values
                .iter()
                .map(|value| {
                    let hash = access::hash_values(&C::SCHEMA, &index, value);
                    let matching = reference_conditions(&C::SCHEMA, &index, value, relation);
                    let filter = options.filter.clone();
                    let (limit, descending) = (options.limit, options.descending);
                    let db = db.clone();
                    async move {
                        let mut query = Query::<C, C>::raw(&db, index, hash?)
                            .matching_all(matching)
                            .filter_all(filter);
                        if descending {
                            query = query.descending();
                        }
                        let stream = query.stream();
                        match limit {
                            Some(limit) => stream.take(limit).try_collect::<Vec<C>>().await,
                            None => stream.try_collect::<Vec<C>>().await,
                        }
                    }
                })
                .collect();
            stream::iter(requests)
                .buffered(CONCURRENCY)
                .try_collect()
                .await
        }
        Access::Scan => {
            // One scan for every parent, matched by value here.
            let scan = db.scan::<C>().filter_all(options.filter.clone());
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

/// A `many` relation from `P` to `C`, with the relations `N` loaded for each related item.
/// Each parent can take a limit, an order and a filter.
#[must_use = "a relation does nothing until it is loaded with `with`"]
pub struct Many<P, C, N = ()> {
    relation: RelationSchema,
    nested: N,
    options: Options,
    types: PhantomData<fn() -> (P, C)>,
}

impl<P: Model, C: Model> Many<P, C> {
    /// The relation the derive declared.
    #[doc(hidden)]
    pub fn new(relation: RelationSchema) -> Self {
        Self {
            relation,
            nested: (),
            options: Options::default(),
            types: PhantomData,
        }
    }
}

impl<P: Model, C: Model, N> Many<P, C, N> {
    /// Loads `nested` for each related item too: `Post::comments().with(Comment::author())`.
    pub fn with<M: Load<C>>(self, nested: M) -> Many<P, C, M> {
        Many {
            relation: self.relation,
            nested,
            options: self.options,
            types: PhantomData,
        }
    }

    /// At most `limit` related items per parent.
    pub fn limit(mut self, limit: usize) -> Self {
        self.options.limit = Some(limit);
        self
    }

    /// Related items in descending range key order (ascending by default).
    pub fn descending(mut self) -> Self {
        self.options.descending = true;
        self
    }

    /// Only the related items that meet `condition`, per parent.
    pub fn filter(mut self, condition: Condition<C>) -> Self {
        self.options.filter.push(condition);
        self
    }

    /// The relation's declaration.
    pub fn schema(&self) -> &RelationSchema {
        &self.relation
    }
}

impl<P: Model + Clone, C: Model + Clone + Index<Model = C, Item = C>, N: Load<C>> Load<P>
    for One<P, C, N>
{
    type Output = Option<N::Joined>;
    type Joined = (P, Self::Output);

    fn join(parent: P, output: Self::Output) -> Self::Joined {
        (parent, output)
    }

    fn __candidates(&self) -> Vec<Option<Shared>> {
        vec![Some(Shared {
            schema: &C::SCHEMA,
            relation: self.relation,
        })]
    }

    fn __load_with<'a>(
        &'a self,
        db: &'a Client,
        parents: &'a [P],
        prefetched: Prefetched,
    ) -> BoxFuture<'a, Result<Vec<Self::Output>>> {
        Box::pin(async move {
            let fail = fail::<P>(&self.relation);
            let (values, positions) = distinct(parents, &self.relation).map_err(&fail)?;
            let declared = self.declared();
            let items = prefetched.into_iter().next().flatten();
            let joined = declared
                .load::<C, N>(db, &self.nested, &values, items)
                .await
                .map_err(&fail)?;
            let firsts: Vec<Option<N::Joined>> =
                joined.into_iter().map(|g| g.into_iter().next()).collect();
            Ok(spread(firsts, positions, || None))
        })
    }

    fn __plan(&self, wave: usize, waves: &mut Vec<Vec<String>>, prefetched: &[bool]) -> Result<()> {
        self.declared()
            .plan::<P, C, N>(&self.nested, wave, waves, prefetched)
    }
}

impl<P, C, N> One<P, C, N> {
    fn declared(&self) -> Declared<'_> {
        Declared {
            relation: &self.relation,
            one: true,
            options: None,
        }
    }
}

impl<P: Model + Clone, C: Model + Clone + Index<Model = C, Item = C>, N: Load<C>> Load<P>
    for Many<P, C, N>
{
    type Output = Vec<N::Joined>;
    type Joined = (P, Self::Output);

    fn join(parent: P, output: Self::Output) -> Self::Joined {
        (parent, output)
    }

    fn __candidates(&self) -> Vec<Option<Shared>> {
        vec![self.options.is_plain().then_some(Shared {
            schema: &C::SCHEMA,
            relation: self.relation,
        })]
    }

    fn __load_with<'a>(
        &'a self,
        db: &'a Client,
        parents: &'a [P],
        prefetched: Prefetched,
    ) -> BoxFuture<'a, Result<Vec<Self::Output>>> {
        Box::pin(async move {
            let fail = fail::<P>(&self.relation);
            if let Some(error) = self.options.filter.first_error() {
                return Err(fail(error.clone()));
            }
            let (values, positions) = distinct(parents, &self.relation).map_err(&fail)?;
            let items = prefetched.into_iter().next().flatten();
            let joined = self
                .declared()
                .load::<C, N>(db, &self.nested, &values, items)
                .await
                .map_err(&fail)?;
            Ok(spread(joined, positions, Vec::new))
        })
    }

    fn __plan(&self, wave: usize, waves: &mut Vec<Vec<String>>, prefetched: &[bool]) -> Result<()> {
        self.declared()
            .plan::<P, C, N>(&self.nested, wave, waves, prefetched)
    }
}

impl<P, C, N> Many<P, C, N> {
    fn declared(&self) -> Declared<'_> {
        Declared {
            relation: &self.relation,
            one: false,
            options: Some(&self.options),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAIR: RelationSchema = RelationSchema {
        name: "pair",
        fields: &["a", "b"],
        references: &["a", "b"],
        allow_scan: false,
    };

    fn values(a: &str, b: &str) -> Item {
        Item::from([
            ("a".to_owned(), AttributeValue::S(a.to_owned())),
            ("b".to_owned(), AttributeValue::S(b.to_owned())),
        ])
    }

    #[test]
    fn signatures_of_different_values_differ() {
        let one = signature(&values("x:S1", "y"), &PAIR);
        let other = signature(&values("x", "S1:y"), &PAIR);
        assert_ne!(one, other);
        let number = Item::from([
            ("a".to_owned(), AttributeValue::N("1".to_owned())),
            ("b".to_owned(), AttributeValue::S("y".to_owned())),
        ]);
        assert_ne!(
            signature(&number, &PAIR),
            signature(&values("1", "y"), &PAIR)
        );
        assert_eq!(
            signature(&values("x", "y"), &PAIR),
            signature(&values("x", "y"), &PAIR)
        );
    }

    #[test]
    fn each_parent_gets_its_output_once_moved_else_cloned() {
        let outputs = vec![vec!["a"], vec!["b"]];
        let positions = vec![Some(0), None, Some(0), Some(1)];
        assert_eq!(
            spread(outputs, positions, Vec::new),
            vec![vec!["a"], vec![], vec!["a"], vec!["b"]]
        );
    }
}

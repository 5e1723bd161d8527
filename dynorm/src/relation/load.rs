//! The relation loaders: `one`, `many`, no relation, and several at one level.

use std::collections::HashMap;
use std::marker::PhantomData;

use aws_sdk_dynamodb::types::AttributeValue;
use futures::future::BoxFuture;
use futures::stream::{self, StreamExt, TryStreamExt};

use super::access::{self, Access};
use super::{RelationSchema, CONCURRENCY};
use crate::client::Client;
use crate::error::{Error, Result};
use crate::expr::{Comparison, Condition, Conjunction, Expr};
use crate::query::Query;
use crate::schema::{Index, Model, Schema};
use crate::value::Item;

const OPERATION: &str = "find";

/// What a `many` relation whose items share its parents' partition needs from the loader.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Shared {
    /// The related model.
    pub schema: &'static Schema,
    /// The relation.
    pub relation: RelationSchema,
}

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
    ) -> BoxFuture<'a, Result<Vec<Self::Output>>>;

    /// Describes the requests this loader sends, in `waves[wave]` and after.
    #[doc(hidden)]
    fn __plan(&self, wave: usize, waves: &mut Vec<Vec<String>>) -> Result<()>;

    /// The relation whose items can come with the parents' own query, if this is one.
    #[doc(hidden)]
    fn __shared(&self) -> Option<Shared> {
        None
    }

    /// Builds the output from related items read with the parents (see `__shared`).
    #[doc(hidden)]
    fn __load_shared<'a>(
        &'a self,
        db: &'a Client,
        parents: &'a [P],
        items: Vec<Item>,
    ) -> BoxFuture<'a, Result<Vec<Self::Output>>> {
        let _ = (items, db);
        Box::pin(async move { self.__load(db, parents).await })
    }
}

impl<P: Model + Clone> Load<P> for () {
    type Output = ();
    type Joined = P;

    fn join(parent: P, (): ()) -> P {
        parent
    }

    fn __load<'a>(&'a self, _: &'a Client, parents: &'a [P]) -> BoxFuture<'a, Result<Vec<()>>> {
        let count = parents.len();
        Box::pin(async move { Ok(vec![(); count]) })
    }

    fn __plan(&self, _: usize, _: &mut Vec<Vec<String>>) -> Result<()> {
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

            fn __load<'a>(
                &'a self,
                db: &'a Client,
                parents: &'a [P],
            ) -> BoxFuture<'a, Result<Vec<Self::Output>>> {
                Box::pin(async move {
                    // Independent branches of the tree, concurrently.
                    let outputs = futures::try_join!($(self.$index.__load(db, parents)),+)?;
                    let mut iters = ($(outputs.$index.into_iter(),)+);
                    Ok((0..parents.len())
                        .map(|_| ($(iters.$index.next().expect("one output per parent"),)+))
                        .collect())
                })
            }

            fn __plan(&self, wave: usize, waves: &mut Vec<Vec<String>>) -> Result<()> {
                $(self.$index.__plan(wave, waves)?;)+
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

/// The identity of a set of reference values.
fn signature(values: &Item, relation: &RelationSchema) -> String {
    let mut out = String::new();
    for reference in relation.references {
        out.push_str(&format!("{:?}\u{1f}", values.get(*reference)));
    }
    out
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

/// Equalities on every reference: the related items must hold exactly these values.
fn reference_filter(values: &Item, relation: &RelationSchema) -> Conjunction {
    let mut filter = Conjunction::default();
    for reference in relation.references {
        if let Some(value) = values.get(*reference) {
            filter.push_expr(Expr::Compare(reference, Comparison::Eq, value.clone()));
        }
    }
    filter
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
) -> Result<Vec<Vec<N::Joined>>> {
    let sizes: Vec<usize> = groups.iter().map(Vec::len).collect();
    let flat: Vec<C> = groups.into_iter().flatten().collect();
    let outputs = nested.__load(db, &flat).await?;
    let mut joined = flat.into_iter().zip(outputs).map(|(c, o)| N::join(c, o));
    Ok(sizes
        .into_iter()
        .map(|size| joined.by_ref().take(size).collect())
        .collect())
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

impl<P: Model + Clone, C: Model + Clone + Index<Model = C, Item = C>, N: Load<C>> Load<P>
    for One<P, C, N>
{
    type Output = Option<N::Joined>;
    type Joined = (P, Self::Output);

    fn join(parent: P, output: Self::Output) -> Self::Joined {
        (parent, output)
    }

    fn __load<'a>(
        &'a self,
        db: &'a Client,
        parents: &'a [P],
    ) -> BoxFuture<'a, Result<Vec<Self::Output>>> {
        Box::pin(async move {
            let relation = &self.relation;
            let fail = fail::<P>(relation);
            let access = access::choose(&C::SCHEMA, relation.references, true, relation.allow_scan)
                .map_err(&fail)?;
            let (values, positions) = distinct(parents, relation).map_err(&fail)?;
            if values.is_empty() {
                return Ok(vec![None; parents.len()]);
            }
            let groups: Vec<Vec<C>> = match access {
                Access::Key => {
                    let mut batch = db.batch_get();
                    for value in &values {
                        batch = batch
                            .get_key::<C>(access::table_key(&C::SCHEMA, value).map_err(&fail)?);
                    }
                    let found = batch
                        .send()
                        .await
                        .map_err(&fail)?
                        .items::<C>()
                        .map_err(&fail)?;
                    group(found, &values, relation).map_err(&fail)?
                }
                other => many_groups::<C>(db, &other, &values, relation, &Options::default())
                    .await
                    .map_err(&fail)?,
            };
            let groups = groups
                .into_iter()
                .map(|g| g.into_iter().take(1).collect())
                .collect();
            let joined = nest(db, &self.nested, groups).await?;
            let firsts: Vec<Option<N::Joined>> =
                joined.into_iter().map(|g| g.into_iter().next()).collect();
            Ok(positions
                .into_iter()
                .map(|p| p.and_then(|p| firsts[p].clone()))
                .collect())
        })
    }

    fn __plan(&self, wave: usize, waves: &mut Vec<Vec<String>>) -> Result<()> {
        let relation = &self.relation;
        let access = access::choose(&C::SCHEMA, relation.references, true, relation.allow_scan)
            .map_err(fail::<P>(relation))?;
        let how = match access {
            Access::Key => "one BatchGetItem per 100 distinct keys".to_owned(),
            Access::Query(index) => format!(
                "one Query on `{}` per distinct parent, {CONCURRENCY} in flight",
                index.label()
            ),
            Access::Scan => "one Scan with a filter (allow_scan)".to_owned(),
        };
        push(
            waves,
            wave,
            format!(
                "`{}.{}` (one {}): {how}",
                P::SCHEMA.model,
                relation.name,
                C::SCHEMA.model
            ),
        );
        self.nested.__plan(wave + 1, waves)
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
                    let mut filter = reference_filter(value, relation);
                    filter.extend(options.filter.clone());
                    let (limit, descending) = (options.limit, options.descending);
                    let db = db.clone();
                    async move {
                        let mut query = Query::<C, C>::raw(&db, index, hash?).filter_all(filter);
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
    for Many<P, C, N>
{
    type Output = Vec<N::Joined>;
    type Joined = (P, Self::Output);

    fn join(parent: P, output: Self::Output) -> Self::Joined {
        (parent, output)
    }

    fn __load<'a>(
        &'a self,
        db: &'a Client,
        parents: &'a [P],
    ) -> BoxFuture<'a, Result<Vec<Self::Output>>> {
        Box::pin(async move {
            let relation = &self.relation;
            let fail = fail::<P>(relation);
            if let Some(error) = self.options.filter.first_error() {
                return Err(fail(error.clone()));
            }
            let access =
                access::choose(&C::SCHEMA, relation.references, false, relation.allow_scan)
                    .map_err(&fail)?;
            let (values, positions) = distinct(parents, relation).map_err(&fail)?;
            let groups = many_groups::<C>(db, &access, &values, relation, &self.options)
                .await
                .map_err(&fail)?;
            let joined = nest(db, &self.nested, groups).await?;
            Ok(positions
                .into_iter()
                .map(|p| p.map(|p| joined[p].clone()).unwrap_or_default())
                .collect())
        })
    }

    fn __plan(&self, wave: usize, waves: &mut Vec<Vec<String>>) -> Result<()> {
        let relation = &self.relation;
        let access = access::choose(&C::SCHEMA, relation.references, false, relation.allow_scan)
            .map_err(fail::<P>(relation))?;
        let how = match access {
            Access::Scan => "one Scan with a filter (allow_scan)".to_owned(),
            other => format!("one {other} per distinct parent, {CONCURRENCY} in flight"),
        };
        let mut options = String::new();
        if let Some(limit) = self.options.limit {
            options.push_str(&format!(", at most {limit} per parent"));
        }
        if self.options.descending {
            options.push_str(", descending");
        }
        if !self.options.filter.parts().is_empty() {
            options.push_str(", filtered");
        }
        push(
            waves,
            wave,
            format!(
                "`{}.{}` (many {}): {how}{options}",
                P::SCHEMA.model,
                relation.name,
                C::SCHEMA.model
            ),
        );
        self.nested.__plan(wave + 1, waves)
    }

    fn __shared(&self) -> Option<Shared> {
        let plain = self.options.limit.is_none()
            && !self.options.descending
            && self.options.filter.parts().is_empty();
        plain.then_some(Shared {
            schema: &C::SCHEMA,
            relation: self.relation,
        })
    }

    fn __load_shared<'a>(
        &'a self,
        db: &'a Client,
        parents: &'a [P],
        items: Vec<Item>,
    ) -> BoxFuture<'a, Result<Vec<Self::Output>>> {
        Box::pin(async move {
            let relation = &self.relation;
            let fail = fail::<P>(relation);
            let (values, positions) = distinct(parents, relation).map_err(&fail)?;
            let children = items
                .into_iter()
                .map(C::from_item)
                .collect::<Result<Vec<C>>>()
                .map_err(&fail)?;
            let groups = group(children, &values, relation).map_err(&fail)?;
            let joined = nest(db, &self.nested, groups).await?;
            Ok(positions
                .into_iter()
                .map(|p| p.map(|p| joined[p].clone()).unwrap_or_default())
                .collect())
        })
    }
}

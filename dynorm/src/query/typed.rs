//! The typed query: [`Client::query`] and [`Client::query_by`], and [`Query`], which
//! plans the index and the key conditions, then pages, streams, collects or counts.

use std::collections::HashMap;
use std::marker::PhantomData;

use aws_sdk_dynamodb::operation::query::builders::QueryInputBuilder;
use aws_sdk_dynamodb::operation::query::QueryInput;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity, Select};
use futures_util::stream::{StreamExt, TryStreamExt};

use super::budget;
use super::cursor;
use super::page::{self, Fetched, ItemStream, Page};
use crate::client::Client;
use crate::error::{Error, Result};
use crate::expr::plan::{self, Conditions};
use crate::expr::Plan;
use crate::expr::{filters, Condition, Conjunction};
use crate::item::read_options::{read_setters, ReadOptions};
use crate::observe::span::request_span;
use crate::observe::{request, Predicted, RateLimiter, Reporting, Tally};
use crate::schema::{FromItem, Index, IndexKind, IndexSchema, Model, Schema};
use crate::value::Item;

pub(super) const OPERATION: &str = "query";

impl Client {
    /// A query on `M`, with the index chosen from the conditions given to
    /// [`matching`](Query::matching), by dynotable-orm's four rules.
    ///
    /// It returns whole `M` items, so it fails before sending when the chosen index does
    /// not project every attribute; name the index with [`query_by`](Self::query_by) then,
    /// or [`hydrate`](Query::hydrate) it to read the whole items by key.
    pub fn query<M: Model>(&self) -> Query<M, M> {
        Query::auto(self)
    }

    /// A query through index `I` (or the table, with `I` the model itself), with its hash
    /// key value up front. It returns `I::Item`: the index's projected item type.
    ///
    /// For a multi-attribute hash key, the value is a tuple of every hash attribute.
    pub fn query_by<I: Index>(&self, hash: impl Into<I::HashKey>) -> Query<I::Model, I::Item> {
        Query::by::<I>(self, hash.into())
    }
}

/// A pending query on `M`'s table or one of its indexes, returning `R` items.
///
/// Build it with [`Client::query`] (the index is chosen from the conditions) or
/// [`Client::query_by`] (the index is named, with its hash key given up front).
#[must_use = "a query does nothing until it is sent"]
pub struct Query<M: Model, R: FromItem = M> {
    pub(super) client: Client,
    pub(super) named: Option<IndexSchema>,
    pub(super) hash: Option<Vec<(&'static str, AttributeValue)>>,
    pub(super) matching: Conjunction,
    pub(super) range: Conjunction,
    pub(super) filter: Conjunction,
    pub(super) errors: Vec<Error>,
    pub(super) limit: Option<i32>,
    pub(super) budget: Option<f64>,
    pub(super) max_item_bytes: u32,
    pub(super) descending: bool,
    pub(super) read: ReadOptions,
    pub(super) projection: Option<Vec<&'static str>>,
    pub(super) needs_full_items: bool,
    /// Whether the whole items are read by key after an index that does not hold them.
    pub(super) hydrate: bool,
    pub(super) report: Reporting,
    pub(super) types: PhantomData<fn() -> (M, R)>,
}

impl<M: Model, R: FromItem> Clone for Query<M, R> {
    fn clone(&self) -> Self {
        Self {
            client: self.client.clone(),
            named: self.named,
            hash: self.hash.clone(),
            matching: self.matching.clone(),
            range: self.range.clone(),
            filter: self.filter.clone(),
            errors: self.errors.clone(),
            limit: self.limit,
            budget: self.budget,
            max_item_bytes: self.max_item_bytes,
            descending: self.descending,
            read: self.read,
            projection: self.projection.clone(),
            needs_full_items: self.needs_full_items,
            hydrate: self.hydrate,
            report: self.report.clone(),
            types: PhantomData,
        }
    }
}

impl<M: Model> Query<M, M> {
    pub(crate) fn auto(client: &Client) -> Self {
        Self::new(client, None, None, Vec::new(), true)
    }
}

impl<M: Model, R: FromItem> Query<M, R> {
    pub(super) fn new(
        client: &Client,
        named: Option<IndexSchema>,
        hash: Option<Vec<(&'static str, AttributeValue)>>,
        errors: Vec<Error>,
        needs_full_items: bool,
    ) -> Self {
        Self {
            client: client.clone(),
            named,
            hash,
            matching: Conjunction::default(),
            range: Conjunction::default(),
            filter: Conjunction::default(),
            errors,
            limit: None,
            budget: None,
            max_item_bytes: budget::MAX_ITEM_BYTES,
            descending: false,
            read: ReadOptions::default(),
            projection: None,
            needs_full_items,
            hydrate: false,
            report: Reporting::default(),
            types: PhantomData,
        }
    }

    /// A query through `index` (or the table) with hash key values already rendered, for
    /// the relation loader.
    pub(crate) fn raw(
        client: &Client,
        index: IndexSchema,
        hash: Vec<(&'static str, AttributeValue)>,
    ) -> Self {
        Self::new(client, Some(index), Some(hash), Vec::new(), true)
    }

    /// Adds conditions for the filter expression.
    pub(crate) fn filter_all(mut self, conditions: Conjunction) -> Self {
        self.filter.extend(conditions);
        self
    }

    /// Adds conditions the planner places.
    pub(crate) fn matching_all(mut self, conditions: Conjunction) -> Self {
        self.matching.extend(conditions);
        self
    }

    /// A query through index `I`, with its hash key value(s).
    pub(crate) fn by<I: Index<Model = M, Item = R>>(client: &Client, hash: I::HashKey) -> Self {
        let (values, errors) = match I::hash_values(&hash) {
            Ok(values) => (Some(values), Vec::new()),
            Err(e) => (Some(Vec::new()), vec![e]),
        };
        Self::new(client, Some(I::INDEX), values, errors, false)
    }

    /// Conditions the query places itself: each goes into the key condition when it can
    /// (an equality on the hash key, a range key condition), and into the filter
    /// otherwise. Without a named index, they also choose the index.
    pub fn matching(mut self, condition: Condition<M>) -> Self {
        self.matching.push(condition);
        self
    }

    /// A condition on the range key, which must go in the key condition: `=`, `<`, `<=`,
    /// `>`, `>=`, `between` or `begins_with` on a range key attribute of the index.
    pub fn range(mut self, condition: Condition<M>) -> Self {
        self.range.push(condition);
        self
    }

    /// A condition for the filter expression, applied after the key condition.
    pub fn filter(mut self, condition: Condition<M>) -> Self {
        self.filter.push(condition);
        self
    }

    /// The most items DynamoDB reads per request (`Limit`), before the filter: the page
    /// size. 0 is refused before anything is sent.
    pub fn page_size(mut self, limit: u32) -> Self {
        page::set_limit(&mut self.limit, limit, &mut self.errors);
        self
    }

    /// Returns items in descending range key order.
    pub fn descending(mut self) -> Self {
        self.descending = true;
        self
    }

    read_setters!(
        read;
        /// Reads with strong consistency; not possible on a global index.
        ;
        /// Returns items whose `#[ttl]` has passed but that DynamoDB has not deleted yet. By
        /// default a filter hides them.
    );

    budget::budget_setters!();

    /// Sends every page within `limiter`'s rate: each waits for the units spent before
    /// it and spends what it consumed (asked for as `Total` unless a
    /// [`tally`](crate::Request::tally) asks for it by index).
    pub fn rate_limiter(mut self, limiter: &RateLimiter) -> Self {
        self.report.limiter = Some(limiter.clone());
        self
    }

    /// The `Query` input of the page after `cursor` (or of the first page), exactly as
    /// [`page`](Self::page) would send it. Placeholders are numbered in
    /// the order the conditions were given, so the input is stable.
    pub(crate) fn preview_page(&self, cursor: Option<&str>) -> Result<QueryInput> {
        let prepared = self.clone().prepare()?;
        let start = prepared.binding().start(cursor)?;
        prepared
            .input(start, None)
            .build()
            .map_err(|e| crate::item::built(e, M::SCHEMA.model, OPERATION))
    }

    /// Reads only the named attributes, as raw items.
    pub fn project<I>(self, attributes: I) -> Query<M, Item>
    where
        I: IntoIterator<Item = &'static str>,
    {
        let mut query = self.returning::<Item>();
        query.projection = Some(attributes.into_iter().collect());
        query.needs_full_items = false;
        query
    }

    /// The same query, returning `T` items.
    pub(super) fn returning<T: FromItem>(self) -> Query<M, T> {
        Query {
            client: self.client,
            named: self.named,
            hash: self.hash,
            matching: self.matching,
            range: self.range,
            filter: self.filter,
            errors: self.errors,
            limit: self.limit,
            budget: self.budget,
            max_item_bytes: self.max_item_bytes,
            descending: self.descending,
            read: self.read,
            projection: self.projection,
            needs_full_items: self.needs_full_items,
            hydrate: self.hydrate,
            report: self.report,
            types: PhantomData,
        }
    }

    /// The plan: the index and why, the expressions, their names and values. Nothing is
    /// sent. Every error `send` would find before sending is found here.
    pub fn plan(&self) -> Result<Plan> {
        self.first_error()?;
        let conditions = Conditions {
            matching: self.matching.parts().to_vec(),
            range: self.range.parts().to_vec(),
            filter: self.filter.parts().to_vec(),
            hash: self.hash.clone(),
            managed: Vec::new(),
        };
        let mut plan = self.plan_of(conditions, true)?;
        if let (Some(limit), Some(_)) = (self.limit, &plan.filter) {
            plan.notes.push(format!(
                "`limit({limit})` caps the items each page reads before the filter: a page may \
                 return few of them or none, and the read may go through far more items than it \
                 returns, each paid for; a `budget` caps what it spends"
            ));
        }
        Ok(plan)
    }

    /// The first error a builder call recorded.
    pub(super) fn first_error(&self) -> Result<()> {
        let first_error = self.errors.first().or_else(|| {
            [&self.matching, &self.range, &self.filter]
                .into_iter()
                .find_map(Conjunction::first_error)
        });
        match first_error {
            Some(error) => Err(error
                .clone()
                .with_model(M::SCHEMA.model)
                .with_operation(OPERATION)),
            None => Ok(()),
        }
    }

    /// The plan of `conditions`, with the reason for the index when `explain` is set.
    pub(super) fn plan_of(&self, mut conditions: Conditions, explain: bool) -> Result<Plan> {
        let fail = |e: Error| Err(e.with_model(M::SCHEMA.model).with_operation(OPERATION));
        if !self.read.include_expired {
            conditions.managed.extend(filters::unexpired(&M::SCHEMA));
        }
        conditions.managed.extend(filters::entity(&M::SCHEMA));
        let mut plan = plan::plan_query(&M::SCHEMA, self.named, conditions, explain)
            .map_err(|e| e.with_operation(OPERATION))?;
        if self.read.consistent_read && plan.index.kind == IndexKind::Global {
            return fail(Error::validation(format!(
                "global index `{}` does not support consistent reads",
                plan.index.name
            )));
        }
        if self.needs_full_items && !plan.index.projects_all(&M::SCHEMA) {
            return fail(Error::validation(format!(
                "the query uses index `{}`, which does not project every attribute of `{}`; \
                 name it with `query_by::<{}>(..)` to get its projected item type, \
                 or call `.hydrate()` to read the whole items by key",
                plan.index.name,
                M::SCHEMA.model,
                plan.index.type_name
            )));
        }
        plan.hydrated = self.hydrate && !plan.index.projects_all(&M::SCHEMA);
        Ok(plan)
    }

    /// Everything a request needs, planned once.
    pub(super) fn prepare(mut self) -> Result<Prepared> {
        self.first_error()?;
        // The conditions are moved into the plan, not copied.
        let conditions = Conditions {
            matching: std::mem::take(&mut self.matching).into_parts()?,
            range: std::mem::take(&mut self.range).into_parts()?,
            filter: std::mem::take(&mut self.filter).into_parts()?,
            hash: self.hash.take(),
            managed: Vec::new(),
        };
        let mut plan = self.plan_of(conditions, false)?;
        self.client
            .check_index_readable(&M::SCHEMA, plan.index.request_name(), OPERATION)?;
        // A hydrated query reads only the table key from the index: the rest comes by key.
        let projection = if plan.hydrated {
            Some(M::SCHEMA.key_attributes().map(|k| k.name).collect())
        } else {
            self.projection
        };
        let projection = projection.map(|attributes: Vec<&'static str>| {
            attributes
                .iter()
                .enumerate()
                .map(|(i, attribute)| {
                    let placeholder = format!("#p{i}");
                    plan.names
                        .insert(placeholder.clone(), (*attribute).to_owned());
                    placeholder
                })
                .collect::<Vec<_>>()
                .join(", ")
        });
        let budget = self.budget.map(|units| budget::Budget {
            units,
            max_item_bytes: self.max_item_bytes,
            consistent: self.read.consistent_read,
        });
        if let Some(budget) = &budget {
            budget
                .check()
                .map_err(|e| e.with_model(M::SCHEMA.model).with_operation(OPERATION))?;
        }
        // A budget counts what each page consumed.
        let return_capacity = match (self.report.capacity(), &budget) {
            (None, Some(_)) => Some(ReturnConsumedCapacity::Total),
            (capacity, _) => capacity,
        };
        Ok(Prepared {
            client: self.client,
            table: String::new(),
            plan,
            limit: self.limit,
            budget,
            descending: self.descending,
            consistent_read: self.read.consistent_read,
            projection,
            schema: &M::SCHEMA,
            return_capacity,
            limiter: self.report.limiter,
            tally: self.report.tally,
        }
        .with_table::<M>())
    }

    /// Every matching item, across pages, as a stream. One page is held at a time.
    pub fn stream(self) -> ItemStream<R> {
        let prepared = self.prepare();
        futures_util::stream::once(async move { prepared })
            .map_ok(|prepared| {
                page::stream_items::<R, _, _>(move |start| prepared.fetch(start, None), OPERATION)
            })
            .try_flatten()
            .boxed()
    }

    /// Every matching item, collected.
    pub async fn all(self) -> Result<Vec<R>> {
        let prepared = self.prepare()?;
        page::collect_all(|start| prepared.fetch(start, None), OPERATION).await
    }

    /// Plans the query once, to be sent for many partitions: `stand_ins` are values of its
    /// conditions (hash key values, equalities), each distinct and given once, that every
    /// request replaces with its own. For the relation loader's many small queries, which
    /// differ only in those values.
    pub(crate) fn repeated(self, stand_ins: &[AttributeValue]) -> Result<Repeated<R>> {
        let prepared = self.prepare()?;
        let slots = stand_ins
            .iter()
            .map(|stand_in| {
                // Placeholders never share a value, so each stand-in has one.
                let mut found = prepared.plan.values.iter().filter(|(_, v)| *v == stand_in);
                let message = match (found.next(), found.next()) {
                    (Some((placeholder, _)), None) => return Ok(placeholder.clone()),
                    (None, _) => "a value that changes from request to request is not in the plan",
                    (Some(_), Some(_)) => {
                        "a condition value is the same as a stand-in for a value that changes from request to request"
                    }
                };
                Err(Error::validation(message)
                    .with_model(M::SCHEMA.model)
                    .with_operation(OPERATION))
            })
            .collect::<Result<_>>()?;
        Ok(Repeated {
            prepared,
            slots,
            types: PhantomData,
        })
    }

    /// One page, starting after `cursor` (from a previous page) or at the beginning.
    pub async fn page(self, cursor: Option<&str>) -> Result<Page<R>> {
        let mut prepared = self.prepare()?;
        let binding = prepared.binding();
        let start = binding.start(cursor)?;
        let Some(budget) = prepared.budget else {
            let fetched = prepared.fetch(start, None).await?;
            return page::into_page(fetched, &binding, OPERATION);
        };
        let limit = prepared.limit;
        let (items, last_key) = budget::read_within(budget, limit, start, |start, page_limit| {
            prepared.limit = page_limit;
            prepared.fetch(start, None)
        })
        .await
        .map_err(|e| e.with_model(M::SCHEMA.model).with_operation(OPERATION))?;
        page::items_page(items, last_key, &binding, OPERATION)
    }

    /// The number of matching items (after the filter), across pages.
    pub async fn count(self) -> Result<u32> {
        let prepared = self.prepare()?;
        page::count_all(|start| prepared.fetch(start, Some(Select::Count))).await
    }
}

/// A query planned once and sent for many partitions, each with its own values in place
/// of the stand-ins it was planned with: see [`Query::repeated`].
pub(crate) struct Repeated<R> {
    prepared: Prepared,
    /// The placeholder of each stand-in, in the order they were given.
    slots: Vec<String>,
    types: PhantomData<fn() -> R>,
}

impl<R: FromItem> Repeated<R> {
    /// Asks DynamoDB for the capacity each request consumes (`TOTAL`, unless a tally asks
    /// for more), which a meter settles its reservations with: without it, every page
    /// would count as its worst case.
    pub(crate) fn metered(mut self) -> Self {
        self.prepared
            .return_capacity
            .get_or_insert(ReturnConsumedCapacity::Total);
        self
    }

    /// Every item the query matches with `values` in place of the stand-ins, or the first
    /// `limit`, page after page, without the machinery of a stream. With a `meter`, each
    /// page reserves its worst case first (its `Limit` cut to fit a `share`-th of what is
    /// left), and gives back what it did not consume.
    pub(crate) async fn collect(
        &self,
        values: &[AttributeValue],
        limit: Option<usize>,
        meter: Option<(&budget::Meter, usize)>,
    ) -> Result<Vec<R>> {
        if values.len() != self.slots.len() {
            return Err(Error::validation(format!(
                "{} values for a query planned with {} stand-ins",
                values.len(),
                self.slots.len()
            ))
            .with_model(self.prepared.schema.model)
            .with_operation(OPERATION));
        }
        let mut out = Vec::new();
        let mut start = None;
        loop {
            let mut placed = self.prepared.plan.values.clone();
            for (slot, value) in self.slots.iter().zip(values) {
                if let Some(placeholder) = placed.get_mut(slot) {
                    placeholder.clone_from(value);
                }
            }
            let fetched = match meter {
                None => {
                    let limit = self.prepared.limit;
                    self.prepared.fetch_with(start, None, placed, limit).await?
                }
                Some(_) if limit == Some(0) => return Ok(out),
                Some((meter, share)) => {
                    let want = limit.map(|limit| limit - out.len());
                    let (page_limit, reserved) = meter.reserve_page(want, share)?;
                    let fetched = self
                        .prepared
                        .fetch_with(start, None, placed, Some(page_limit))
                        .await;
                    meter.settle(reserved, fetched.as_ref().ok().and_then(|f| f.units));
                    fetched?
                }
            };
            for item in fetched.items {
                if limit.is_some_and(|limit| out.len() >= limit) {
                    return Ok(out);
                }
                out.push(R::from_item(item).map_err(|e| e.with_operation(OPERATION))?);
            }
            match fetched.last_key.filter(|key| !key.is_empty()) {
                Some(key) if limit.is_none_or(|limit| out.len() < limit) => start = Some(key),
                _ => return Ok(out),
            }
        }
    }
}

/// A planned query, ready to send page after page.
pub(super) struct Prepared {
    pub(super) client: Client,
    pub(super) table: String,
    pub(super) plan: Plan,
    pub(super) limit: Option<i32>,
    pub(super) descending: bool,
    pub(super) consistent_read: bool,
    pub(super) projection: Option<String>,
    pub(super) schema: &'static Schema,
    pub(super) return_capacity: Option<ReturnConsumedCapacity>,
    pub(super) tally: Option<Tally>,
    pub(super) limiter: Option<RateLimiter>,
    pub(super) budget: Option<budget::Budget>,
}

impl Prepared {
    /// What this query's cursors are bound to: its table, index, model and partition.
    pub(super) fn binding(&self) -> cursor::Binding {
        cursor::Binding::new(&self.client, self.schema, self.plan.index, OPERATION).partition(
            self.plan
                .partition
                .iter()
                .map(|(name, value)| (*name, value)),
        )
    }

    pub(super) fn with_table<M: Model>(mut self) -> Self {
        self.table = self.client.table_name::<M>();
        self
    }

    /// The request of the page after `start`, with the plan's values.
    pub(super) fn input(&self, start: Option<Item>, select: Option<Select>) -> QueryInputBuilder {
        self.input_with(start, select, self.plan.values.clone(), self.limit)
    }

    /// The request of the page after `start`, with `values` for the plan's placeholders
    /// and `limit` items at most.
    pub(super) fn input_with(
        &self,
        start: Option<Item>,
        select: Option<Select>,
        values: HashMap<String, AttributeValue>,
        limit: Option<i32>,
    ) -> QueryInputBuilder {
        let plan = &self.plan;
        QueryInput::builder()
            .table_name(&self.table)
            .set_index_name(plan.index.request_name().map(str::to_owned))
            .key_condition_expression(&plan.key_condition)
            .set_filter_expression(plan.filter.clone())
            .set_expression_attribute_names(Some(plan.names.clone()))
            .set_expression_attribute_values(Some(values))
            .set_limit(limit)
            .scan_index_forward(!self.descending)
            .consistent_read(self.consistent_read)
            .set_projection_expression(self.projection.clone())
            .set_select(select)
            .set_exclusive_start_key(start)
            .set_return_consumed_capacity(self.return_capacity.clone())
    }

    pub(super) fn fetch(&self, start: Option<Item>, select: Option<Select>) -> impl page::Fetching {
        self.fetch_with(start, select, self.plan.values.clone(), self.limit)
    }

    /// Sends the request of the page after `start`, with `values` for the placeholders
    /// and `limit` items at most.
    pub(super) fn fetch_with(
        &self,
        start: Option<Item>,
        select: Option<Select>,
        values: HashMap<String, AttributeValue>,
        limit: Option<i32>,
    ) -> impl std::future::Future<Output = Result<Fetched>> + Send + 'static {
        let span = request_span!(
            "Query",
            self.schema.model,
            self.table.as_str(),
            "aws.dynamodb.index_name" = self.plan.index.request_name(),
            "aws.dynamodb.limit" = limit,
            "aws.dynamodb.consistent_read" = self.consistent_read,
            "aws.dynamodb.scan_forward" = !self.descending,
            "aws.dynamodb.projection" = self.projection.as_deref(),
            "aws.dynamodb.select" = select.as_ref().map(Select::as_str),
            "aws.dynamodb.count" = tracing::field::Empty,
            "aws.dynamodb.scanned_count" = tracing::field::Empty,
            "dynorm.key_condition" = self.plan.key_condition.as_str(),
            "dynorm.filter" = self.plan.filter.as_deref(),
            "dynorm.continued" = start.is_some(),
        );
        let request = self.input_with(start, select, values, limit);
        page::send_page!(request, span, self, OPERATION)
    }
}

super::paged!(impl[M: Model, R: FromItem] Query<M, R> => R);

request! {
    impl[M: Model, R: FromItem] Query<M, R> { report => QueryInput }

    /// The `Query` input of the first page, exactly as [`page`](Query::page) would send it
    /// (later pages add only `ExclusiveStartKey`). Placeholders are numbered in the order
    /// the conditions were given, so the input is stable.
    fn preview(&self) -> Result<QueryInput> {
        self.preview_page(None)
    }

    /// The read units one page would consume: from 0 (no item matches) up to what its
    /// [`page_size`](Query::page_size) of the largest items (the model's `max_item_bytes`,
    /// or the read's [`max_item_bytes`](Query::max_item_bytes) when smaller) or 1 MB costs,
    /// whichever is less, read before any filter. Every page costs this much at most;
    /// nothing says how many pages there are. With a [`budget`](Query::budget),
    /// [`page`](Query::page) reads pages while they fit, so from 0 up to the budget. A hydrated query then reads the whole items by key, which is not counted here.
    fn predict(&self) -> Result<Predicted> {
        let input = self.preview_page(None)?;
        let schema: &Schema = &M::SCHEMA;
        let bound = schema.item_bound().min(usize::try_from(self.max_item_bytes).unwrap_or(usize::MAX));
        Ok(page::predict(page::page_of!(&input), None, bound, self.budget))
    }
}

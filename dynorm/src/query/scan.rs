//! Scans of a table or an index, with filters and parallel segments.

use std::collections::HashMap;
use std::num::NonZeroUsize;

use aws_sdk_dynamodb::operation::scan::builders::ScanInputBuilder;
use aws_sdk_dynamodb::operation::scan::ScanInput;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity, Select};
use futures_util::stream::{self, StreamExt, TryStreamExt};

use crate::batch::checked_concurrency;
use crate::client::Client;
use crate::error::{Error, Result};
use crate::expr::{filters, Condition, Conjunction, Expr, Placeholders};
use crate::item::read_options::{read_setters, ReadOptions};
use crate::observe::span::request_span;
use crate::observe::{request, Predicted, RateLimiter, Reporting, Tally};
use crate::query::budget::{budget_setters, read_within, Budget};
use crate::query::cursor::Binding;
use crate::query::page::{self, ItemStream, Page};
use crate::schema::{Index, IndexKind, Model, Schema};
use crate::value::Item;

const OPERATION: &str = "scan";

/// The segments a parallel scan reads at once unless [`Scan::concurrency`] says otherwise.
// `NonZeroUsize::new(16)` needs an `unwrap` in a constant; 1 + 15 does not.
const DEFAULT_CONCURRENCY: NonZeroUsize = NonZeroUsize::MIN.saturating_add(15);

impl Client {
    /// A scan of `M`'s table, returning `M`s.
    pub fn scan<M: Model + Index>(&self) -> Scan<M> {
        Scan::new(self)
    }

    /// A scan through index `I`, returning the items it projects (`I::Item`), as
    /// [`query_by`](Client::query_by) names an index.
    pub fn scan_by<I: Index>(&self) -> Scan<I> {
        Scan::new(self)
    }
}

/// A pending scan of index `I` (the model itself for its table), returning `I::Item`.
/// Build it with [`Client::scan`] or [`Client::scan_by`].
#[must_use = "a scan does nothing until it is sent"]
pub struct Scan<I: Index> {
    client: Client,
    filter: Conjunction,
    errors: Vec<Error>,
    limit: Option<i32>,
    budget: Option<f64>,
    max_item_bytes: u32,
    read: ReadOptions,
    segment: Option<(i32, i32)>,
    concurrency: NonZeroUsize,
    report: Reporting,
    index: std::marker::PhantomData<fn() -> I>,
}

impl<I: Index> Clone for Scan<I> {
    fn clone(&self) -> Self {
        Self {
            client: self.client.clone(),
            filter: self.filter.clone(),
            errors: self.errors.clone(),
            limit: self.limit,
            budget: self.budget,
            max_item_bytes: self.max_item_bytes,
            read: self.read,
            segment: self.segment,
            concurrency: self.concurrency,
            report: self.report.clone(),
            index: std::marker::PhantomData,
        }
    }
}

impl<I: Index> Scan<I> {
    pub(crate) fn new(client: &Client) -> Self {
        Self {
            client: client.clone(),
            filter: Conjunction::default(),
            errors: Vec::new(),
            limit: None,
            budget: None,
            max_item_bytes: super::budget::MAX_ITEM_BYTES,
            read: ReadOptions::default(),
            segment: None,
            concurrency: DEFAULT_CONCURRENCY,
            report: Reporting::default(),
            index: std::marker::PhantomData,
        }
    }

    /// Adds conditions for the filter expression.
    pub(crate) fn filter_all(mut self, conditions: crate::expr::Conjunction) -> Self {
        self.filter.extend(conditions);
        self
    }

    /// Keeps only the items that match; conditions given in several calls all apply.
    pub fn filter(mut self, condition: Condition<I::Model>) -> Self {
        self.filter.push(condition);
        self
    }

    /// The most items DynamoDB reads per request (`Limit`), before the filter: the page
    /// size. 0 is refused before anything is sent.
    pub fn page_size(mut self, limit: u32) -> Self {
        page::set_limit(&mut self.limit, limit, &mut self.errors);
        self
    }

    read_setters!(
        read;
        /// Reads with strong consistency; not possible on a global index.
        ;
        /// Returns items whose `#[ttl]` has passed but that DynamoDB has not deleted yet. By
        /// default a filter hides them.
    );

    budget_setters!();

    /// Sends every page, of every segment of a parallel scan, within `limiter`'s rate:
    /// each waits for the units spent before it and spends what it consumed (asked for
    /// as `Total` unless a [`tally`](crate::Request::tally)
    /// asks for it by index).
    pub fn rate_limiter(mut self, limiter: &RateLimiter) -> Self {
        self.report.limiter = Some(limiter.clone());
        self
    }

    /// The `Scan` input of the page after `cursor` (or of the first page), exactly as
    /// [`page`](Self::page) would send it.
    pub(crate) fn preview_page(&self, cursor: Option<&str>) -> Result<ScanInput> {
        let schema = &<I::Model as Model>::SCHEMA;
        let prepared = self.clone().prepare()?;
        let start = self.binding().start(cursor)?;
        prepared
            .input(start, None)
            .build()
            .map_err(|e| crate::item::built(e, schema.model, OPERATION))
    }

    /// What this scan's cursors are bound to: its table, index, model and segment.
    fn binding(&self) -> Binding {
        let schema = &<I::Model as Model>::SCHEMA;
        Binding::new(&self.client, schema, I::INDEX, OPERATION).segment(self.segment)
    }

    /// Scans only `segment` of `total` (a parallel scan run by you).
    pub fn segment(mut self, segment: u32, total: u32) -> Self {
        match (i32::try_from(segment), i32::try_from(total)) {
            (Ok(s), Ok(t)) if (1..=1_000_000).contains(&t) && s < t => self.segment = Some((s, t)),
            _ => self.errors.push(Error::validation(format!(
                "segment {segment} of {total} is out of range: total must be 1 to 1000000 and segment below it"
            ))),
        }
        self
    }

    /// Sets the segments a [`parallel`](Self::parallel) scan reads at once, each with one
    /// request in flight (at least 1; 16 by default). The other segments wait for a free
    /// place, so a scan of many segments keeps to the capacity of `concurrency` requests
    /// at a time. 0 is refused before anything is sent. Other reads send one request at a
    /// time whatever it is.
    pub fn concurrency(mut self, concurrency: u32) -> Self {
        match checked_concurrency(concurrency) {
            Ok(concurrency) => self.concurrency = concurrency,
            Err(e) => self.errors.push(e),
        }
        self
    }

    fn prepare(mut self) -> Result<Prepared> {
        let schema = &<I::Model as Model>::SCHEMA;
        let fail = |e: Error| Err(e.with_model(schema.model).with_operation(OPERATION));
        if let Some(error) = self.errors.drain(..).next() {
            return fail(error);
        }
        self.client
            .check_index_readable(schema, I::INDEX.request_name(), OPERATION)?;
        if self.read.consistent_read && I::INDEX.kind == IndexKind::Global {
            return fail(Error::validation(format!(
                "global index `{}` does not support consistent reads",
                I::INDEX.name
            )));
        }
        let mut parts = match self.filter.into_parts() {
            Ok(parts) => parts,
            Err(e) => return fail(e),
        };
        if let Some(hidden) = parts
            .iter()
            .flat_map(Expr::tested_attributes)
            .find(|a| !I::INDEX.projects(schema, a))
        {
            return fail(Error::validation(format!(
                "the filter tests `{hidden}`, which index `{}` does not project, so it would match nothing; \
                 project it into the index or scan another index",
                I::INDEX.label()
            )));
        }
        let managed = (!self.read.include_expired)
            .then(|| filters::unexpired(schema))
            .flatten()
            .into_iter()
            .chain(filters::entity(schema))
            .chain(filters::key_prefixes(schema, I::INDEX.request_name()));
        parts.extend(managed.filter(|expr| {
            expr.tested_attributes()
                .iter()
                .all(|a| I::INDEX.projects(schema, a))
        }));
        let mut placeholders = Placeholders::default();
        let filter = placeholders.render_all(&parts);
        let budget = self.budget.map(|units| Budget {
            units,
            max_item_bytes: self.max_item_bytes,
            consistent: self.read.consistent_read,
        });
        if let Some(Err(e)) = budget.as_ref().map(Budget::check) {
            return fail(e);
        }
        // A budget counts what each page consumed.
        let return_capacity = match (self.report.capacity(), &budget) {
            (None, Some(_)) => Some(ReturnConsumedCapacity::Total),
            (capacity, _) => capacity,
        };
        Ok(Prepared {
            table: self.client.table_name::<I::Model>(),
            client: self.client,
            filter,
            names: placeholders.take_names(),
            values: placeholders.take_values(),
            limit: self.limit,
            consistent_read: self.read.consistent_read,
            segment: self.segment,
            index: I::INDEX.request_name(),
            schema,
            return_capacity,
            limiter: self.report.limiter,
            tally: self.report.tally,
            budget,
        })
    }

    /// Every matching item, as a stream, page after page. [`parallel`](Self::parallel)
    /// reads several segments at once.
    pub fn stream(self) -> ItemStream<I::Item> {
        let prepared = self.prepare();
        stream::once(async move { prepared })
            .map_ok(|prepared| {
                page::stream_items::<I::Item, _, _>(
                    move |start| prepared.fetch(start, None),
                    OPERATION,
                )
            })
            .try_flatten()
            .boxed()
    }

    /// Scans `total` segments, at most [`concurrency`](Self::concurrency) at once (16
    /// unless set), and merges their items into one stream as they come. Every item
    /// appears exactly once. `total` is 1 to 1,000,000, as DynamoDB allows; any other is
    /// an error the stream yields before anything is sent. A segment starts when one
    /// before it has read its last page, in segment order.
    pub fn parallel(self, total: u32) -> ItemStream<I::Item> {
        let at_once = self.concurrency.get();
        let prepared = match self.segment(0, total).prepare() {
            Ok(prepared) => prepared,
            Err(e) => return stream::once(async move { Err(e) }).boxed(),
        };
        let total = prepared.segment.map_or(1, |(_, total)| total);
        // Each segment's stream is made when a place is free, not all up front.
        stream::iter(0..total)
            .map(move |segment| {
                let mut part = prepared.clone();
                part.segment = Some((segment, total));
                page::stream_items::<I::Item, _, _>(move |start| part.fetch(start, None), OPERATION)
                    .boxed()
            })
            .flatten_unordered(at_once)
            .boxed()
    }

    /// Every matching item, collected.
    pub async fn all(self) -> Result<Vec<I::Item>> {
        self.stream().try_collect().await
    }

    /// One page, starting after `cursor` or at the beginning.
    pub async fn page(self, cursor: Option<&str>) -> Result<Page<I::Item>> {
        let binding = self.binding();
        let mut prepared = self.prepare()?;
        let schema = &<I::Model as Model>::SCHEMA;
        let start = binding.start(cursor)?;
        let Some(budget) = prepared.budget else {
            let fetched = prepared.fetch(start, None).await?;
            return page::into_page(fetched, &binding, OPERATION);
        };
        let limit = prepared.limit;
        let (items, last_key) = read_within(budget, limit, start, |start, page_limit| {
            prepared.limit = page_limit;
            prepared.fetch(start, None)
        })
        .await
        .map_err(|e| e.with_model(schema.model).with_operation(OPERATION))?;
        page::items_page(items, last_key, &binding, OPERATION)
    }

    /// The number of matching items, across pages.
    pub async fn count(self) -> Result<u32> {
        let prepared = self.prepare()?;
        page::count_all(|start| prepared.fetch(start, Some(Select::Count))).await
    }
}

/// A scan ready to send page after page.
#[derive(Clone)]
struct Prepared {
    client: Client,
    table: String,
    filter: Option<String>,
    names: Option<HashMap<String, String>>,
    values: Option<HashMap<String, AttributeValue>>,
    limit: Option<i32>,
    consistent_read: bool,
    segment: Option<(i32, i32)>,
    index: Option<&'static str>,
    schema: &'static Schema,
    return_capacity: Option<ReturnConsumedCapacity>,
    tally: Option<Tally>,
    limiter: Option<RateLimiter>,
    budget: Option<Budget>,
}

impl Prepared {
    /// The request of the page after `start`.
    fn input(&self, start: Option<Item>, select: Option<Select>) -> ScanInputBuilder {
        ScanInput::builder()
            .table_name(&self.table)
            .set_index_name(self.index.map(str::to_owned))
            .set_filter_expression(self.filter.clone())
            .set_expression_attribute_names(self.names.clone())
            .set_expression_attribute_values(self.values.clone())
            .set_limit(self.limit)
            .consistent_read(self.consistent_read)
            .set_segment(self.segment.map(|(s, _)| s))
            .set_total_segments(self.segment.map(|(_, t)| t))
            .set_select(select)
            .set_exclusive_start_key(start)
            .set_return_consumed_capacity(self.return_capacity.clone())
    }

    fn fetch(&self, start: Option<Item>, select: Option<Select>) -> impl page::Fetching {
        let span = request_span!(
            "Scan",
            self.schema.model,
            self.table.as_str(),
            "aws.dynamodb.index_name" = self.index,
            "aws.dynamodb.limit" = self.limit,
            "aws.dynamodb.consistent_read" = self.consistent_read,
            "aws.dynamodb.segment" = self.segment.map(|(s, _)| s),
            "aws.dynamodb.total_segments" = self.segment.map(|(_, t)| t),
            "aws.dynamodb.select" = select.as_ref().map(Select::as_str),
            "aws.dynamodb.count" = tracing::field::Empty,
            "aws.dynamodb.scanned_count" = tracing::field::Empty,
            "dynorm.filter" = self.filter.as_deref(),
            "dynorm.continued" = start.is_some(),
        );
        let request = self.input(start, select);
        page::send_page!(request, span, self, OPERATION)
    }
}

super::paged!(impl[I: Index] Scan<I> => I::Item);

request! {
    impl[I: Index] Scan<I> { report => ScanInput }

    /// The `Scan` input of the first page, exactly as [`page`](Scan::page) would send it
    /// (later pages add only `ExclusiveStartKey`). Placeholders are numbered in the order
    /// the conditions were given, so the input is stable.
    fn preview(&self) -> Result<ScanInput> {
        self.preview_page(None)
    }

    /// The read units one page would consume: from 0 (no item matches) up to what its
    /// [`page_size`](Scan::page_size) of the largest items (the model's `max_item_bytes`,
    /// or the read's [`max_item_bytes`](Scan::max_item_bytes) when smaller) or 1 MB costs,
    /// whichever is less, read before any filter. Every page costs this much at most;
    /// nothing says how many pages there are. With a [`budget`](Scan::budget),
    /// [`page`](Scan::page) reads pages while they fit, so from 0 up to the budget. A parallel scan reads a page per segment.
    fn predict(&self) -> Result<Predicted> {
        let input = self.preview_page(None)?;
        let schema: &Schema = &<I::Model as Model>::SCHEMA;
        let bound = schema.item_bound().min(usize::try_from(self.max_item_bytes).unwrap_or(usize::MAX));
        Ok(page::predict(page::page_of!(&input), None, bound, self.budget))
    }
}

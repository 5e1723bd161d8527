//! Hydrated queries: a query through an index that does not hold the whole items, whose
//! keys are then read as whole items with `BatchGetItem`, in the order of the index.

use std::collections::VecDeque;
use std::marker::PhantomData;

use aws_sdk_dynamodb::operation::query::QueryInput;
use futures_util::stream::{self, StreamExt, TryStreamExt};

use super::page::{self, ItemStream, Page};
use super::typed::{Prepared, Query, OPERATION};
use crate::batch::{BatchOptions, MAX_BATCH_KEYS};
use crate::error::Result;
use crate::expr::Plan;
use crate::item::read_options::ReadOptions;
use crate::observe::{reads, request, Predicted, Reporting};
use crate::schema::{FromItem, Model};
use crate::value::Item;
use crate::Request;

impl<M: Model, R: FromItem> Query<M, R> {
    /// Returns whole `M` items, whatever the index projects. Through an index that does
    /// not project every attribute (`KEYS_ONLY`, `INCLUDE`), the index is read for the
    /// table keys only, and the items are then read by key with `BatchGetItem`: one request
    /// per 100 keys, plus retries of keys DynamoDB returns unprocessed, under the
    /// [`BatchOptions`] given to [`options`](Hydrated::options). Through the table or an
    /// index that projects everything, nothing more is sent.
    ///
    /// Items come in the order of the index. An item deleted between the index read and
    /// its `BatchGetItem` is left out, as an expired one is; it is not an error.
    /// Conditions still apply to the index: a filter may test only what it projects.
    ///
    /// With [`Client::query`](crate::Client::query), the index may then be chosen among
    /// those that do not project every attribute, which is otherwise refused.
    ///
    /// ```no_run
    /// # use dynorm::Model;
    /// # #[derive(Model)] struct Ticket {
    /// #     #[hash_key] id: String,
    /// #     #[index(name = "byQueue", range_key = "rank", project = false)] queue: String,
    /// #     rank: u32, body: String,
    /// # }
    /// # async fn demo(db: dynorm::Client) -> Result<(), dynorm::Error> {
    /// // One Query page, then one BatchGetItem per 100 tickets.
    /// let tickets: Vec<Ticket> = db.query_by::<TicketByQueue>("support").hydrate().all().await?;
    /// # Ok(()) }
    /// ```
    pub fn hydrate(self) -> Hydrated<M> {
        let mut query = self.returning::<M>();
        query.needs_full_items = false;
        query.projection = None;
        query.hydrate = true;
        Hydrated {
            query,
            options: BatchOptions::default(),
            projection: None,
            returns: PhantomData,
        }
    }
}

/// A query that returns whole `M` items (or, with [`project`](Hydrated::project), the
/// attributes it names of them as raw items, `R = Item`), reading them by key after an
/// index that does not hold them. Build it with [`Query::hydrate`]; it ends in
/// [`all`](Self::all), [`page`](Self::page) or [`stream`](Self::stream).
#[must_use = "a query does nothing until it is sent"]
pub struct Hydrated<M: Model, R = M> {
    query: Query<M, M>,
    options: BatchOptions,
    /// The attributes read of each item, for `R = Item`.
    projection: Option<Vec<&'static str>>,
    returns: PhantomData<fn() -> R>,
}

impl<M: Model, R> Clone for Hydrated<M, R> {
    fn clone(&self) -> Self {
        Self {
            query: self.query.clone(),
            options: self.options,
            projection: self.projection.clone(),
            returns: PhantomData,
        }
    }
}

impl<M: Model> Hydrated<M> {
    /// Reads only the named attributes of each item, as raw items, as ElectroDB's
    /// `hydrate` with `attributes` does: the `BatchGetItem` requests project them (with
    /// the table's key, the entity's identity and the `#[ttl]`, which tell the items apart
    /// and are left out of what is returned). Through an index that projects everything,
    /// the index's items are cut to the attributes named.
    pub fn project<I>(self, attributes: I) -> Hydrated<M, Item>
    where
        I: IntoIterator<Item = &'static str>,
    {
        Hydrated {
            query: self.query,
            options: self.options,
            projection: Some(attributes.into_iter().collect()),
            returns: PhantomData,
        }
    }
}

impl<M: Model, R: FromItem> Hydrated<M, R> {
    /// Sets the concurrency, attempts and delays of the `BatchGetItem` requests.
    pub fn options(mut self, options: BatchOptions) -> Self {
        self.options = options;
        self
    }

    /// The plan: the index and why, and whether the items are then read by key
    /// ([`Plan::hydrated`]). Nothing is sent.
    pub fn plan(&self) -> Result<Plan> {
        self.query.plan()
    }

    /// Every matching item, whole, in index order: every index page, then one
    /// `BatchGetItem` per 100 keys.
    pub async fn all(self) -> Result<Vec<R>> {
        let reader = self.reader()?;
        let fetch = |start| reader.prepared.fetch(start, None);
        let items = page::collect_all::<Item, _, _>(fetch, OPERATION).await?;
        reader.whole(items).await
    }

    /// One index page, starting after `cursor` (from a previous page) or at the beginning,
    /// with its items whole, in index order: one `BatchGetItem` per 100 of its keys. The
    /// cursor is the index page's.
    pub async fn page(self, cursor: Option<&str>) -> Result<Page<R>> {
        let reader = self.reader()?;
        let binding = reader.prepared.binding();
        let start = binding.start(cursor)?;
        let fetched = reader.prepared.fetch(start, None).await?;
        let cursor = binding.next(fetched.last_key)?;
        let items = reader.whole(fetched.items).await?;
        Ok(Page { items, cursor })
    }

    /// Every matching item, whole, in index order, as a stream: index pages are read as
    /// the keys run out, and keys are read 100 at a time. One page of keys and 100 items
    /// are held at a time.
    pub fn stream(self) -> ItemStream<R> {
        let reader = self.reader();
        stream::once(async move { reader })
            .map_ok(|reader| {
                stream::try_unfold(
                    (reader, Some(None::<Item>), VecDeque::new()),
                    |(reader, mut next, mut pending)| async move {
                        loop {
                            if pending.len() >= MAX_BATCH_KEYS
                                || (next.is_none() && !pending.is_empty())
                            {
                                let take = pending.len().min(MAX_BATCH_KEYS);
                                let keys: Vec<Item> = pending.drain(..take).collect();
                                let items = reader.whole(keys).await?;
                                return Ok(Some((items, (reader, next, pending))));
                            }
                            let Some(start) = next.take() else {
                                return Ok(None);
                            };
                            let fetched = reader.prepared.fetch(start, None).await?;
                            next = fetched.last_key.filter(|key| !key.is_empty()).map(Some);
                            pending.extend(fetched.items);
                        }
                    },
                )
                .map_ok(|items| stream::iter(items.into_iter().map(Ok)))
                .try_flatten()
            })
            .try_flatten()
            .boxed()
    }

    /// The query, planned, with what its `BatchGetItem` requests need.
    fn reader(self) -> Result<Reader<M, R>> {
        let (read, report) = (self.query.read, self.query.report.clone());
        Ok(Reader {
            prepared: self.query.prepare()?,
            options: self.options,
            read,
            report,
            projection: self.projection,
            model: PhantomData,
        })
    }
}

/// A hydrated query, planned: its index pages, and how to read their items whole.
struct Reader<M, R> {
    prepared: Prepared,
    options: BatchOptions,
    read: ReadOptions,
    report: Reporting,
    projection: Option<Vec<&'static str>>,
    model: PhantomData<fn() -> (M, R)>,
}

impl<M: Model, R: FromItem> Reader<M, R> {
    /// The whole items of the index items `found` (or their projected attributes), in
    /// their order: decoded when the index holds them, otherwise read by key with one
    /// `BatchGetItem` per 100 keys.
    async fn whole(&self, found: Vec<Item>) -> Result<Vec<R>> {
        if !self.prepared.plan.hydrated {
            return found.into_iter().map(|item| self.decode(item)).collect();
        }
        if found.is_empty() {
            return Ok(Vec::new());
        }
        let keys: Vec<Item> = found.iter().map(|item| M::SCHEMA.key_of(item)).collect();
        let mut batch = self
            .prepared
            .client
            .batch_get()
            .options(self.options)
            .consistent_read(self.read.consistent_read)
            .include_expired(self.read.include_expired);
        if let Some(tally) = &self.report.tally {
            batch = batch.tally(tally);
        }
        if let Some(attributes) = &self.projection {
            batch = batch.project::<M>(attributes);
        }
        // An index holds each item once, so the keys are distinct.
        for key in &keys {
            batch = batch.get_key::<M>(key.clone());
        }
        let context = |e: crate::Error| {
            e.with_model(M::SCHEMA.model).with_context(&format!(
                "reading the whole items of a query through `{}`",
                self.prepared.plan.index.label()
            ))
        };
        let found = batch.send().await.map_err(context)?;
        found
            .in_order_items::<M>(&keys)
            .into_iter()
            .map(|item| self.decode(item.clone()).map_err(context))
            .collect()
    }

    /// An item as `R`: the model, or with a projection, the attributes it names.
    fn decode(&self, mut item: Item) -> Result<R> {
        if let Some(attributes) = &self.projection {
            item.retain(|name, _| attributes.contains(&name.as_str()));
        }
        R::from_item(item).map_err(|e| e.with_operation(OPERATION))
    }
}

request! {
    impl[M: Model, R: FromItem] Hydrated<M, R> { query.report => QueryInput }

    /// The `Query` input of the first index page. When the plan is
    /// [hydrated](Plan::hydrated), the page's keys are then read with one `BatchGetItem`
    /// per 100 keys, which depend on what the page returns.
    fn preview(&self) -> Result<QueryInput> {
        self.query.preview_page(None)
    }

    /// The capacity one page would consume: the index page (as [`Query`]'s prediction
    /// bounds it), then, when the plan is [hydrated](Plan::hydrated), each key it finds
    /// read whole with `BatchGetItem`: from nothing up to the largest item's (400 KB)
    /// units per key, for at most the query's `page_size` of keys. Without a `page_size`,
    /// a page's keys are bounded only by its 1 MB. Its
    /// [`requests`](Predicted::requests) are the most the page can send: the index page
    /// and one `BatchGetItem` per 100 keys it may find (none when it finds none).
    fn predict(&self) -> Result<Predicted> {
        let input = self.preview()?;
        let table = input.table_name().unwrap_or_default();
        let bound = M::SCHEMA.item_bound();
        let mut predicted = page::predict(page::page_of!(&input), None, bound, None);
        if self.plan()?.hydrated {
            let keys = input.limit().and_then(|l| usize::try_from(l).ok());
            let consistent = self.query.read.consistent_read;
            let most = reads::keys_found(&mut predicted, table, keys, consistent, None, bound);
            predicted.add_requests(most.div_ceil(MAX_BATCH_KEYS));
        }
        Ok(predicted)
    }
}

//! Pagination shared by queries and scans: a stream across pages, one page at a time.

use std::future::Future;

use futures_util::stream::{self, Stream, StreamExt, TryStreamExt};

use crate::error::{Error, Result};
use aws_sdk_dynamodb::types::ConsumedCapacity;

use crate::observe::span::record_capacity;
use crate::observe::{reads, Capacity, Predicted, Tally};
use crate::query::cursor::Binding;
use crate::schema::FromItem;
use crate::value::Item;

/// A stream of items across pages. It is boxed, so it is `Unpin` and easy to hold.
pub type ItemStream<R> = std::pin::Pin<Box<dyn Stream<Item = Result<R>> + Send + 'static>>;

/// One page of results, with the cursor that continues after it. What the page cost and
/// counted goes to the builder's [`Tally`].
#[derive(Debug)]
#[non_exhaustive]
pub struct Page<R> {
    /// The items of this page.
    pub items: Vec<R>,
    /// Pass it back to get the next page; `None` on the last page.
    pub cursor: Option<String>,
}

/// The predicted read units of one page, from what its request names: the table, the
/// index, consistency and limit (as the SDK's `Query` and `Scan` inputs hold them), for
/// items of `size` bytes when the caller knows it, and of at most `bound` bytes; within
/// its `budget` of units, when it has one (then as many pages as fit are read).
pub(crate) fn predict(
    input: PageInput<'_>,
    size: Option<usize>,
    bound: usize,
    budget: Option<f64>,
) -> Predicted {
    let mut predicted = Predicted::default();
    predicted.add_requests(1);
    let table = input.table.unwrap_or_default();
    let consistent = input.consistent.unwrap_or_default();
    let limit = input.limit.and_then(|l| u32::try_from(l).ok());
    reads::page(
        &mut predicted,
        table,
        input.index,
        consistent,
        limit,
        size,
        bound,
    );
    match budget {
        Some(units) => reads::budgeted(&predicted, units, consistent),
        None => predicted,
    }
}

/// What a page's request names, as the SDK's `Query` and `Scan` inputs hold it.
pub(crate) struct PageInput<'a> {
    pub table: Option<&'a str>,
    pub index: Option<&'a str>,
    pub consistent: Option<bool>,
    pub limit: Option<i32>,
}

/// The [`PageInput`] of a `Query` or `Scan` input (`$input`), whose fields they share but no
/// trait.
macro_rules! page_of {
    ($input:expr) => {{
        let input = $input;
        $crate::query::page::PageInput {
            table: input.table_name(),
            index: input.index_name(),
            consistent: input.consistent_read(),
            limit: input.limit(),
        }
    }};
}

pub(crate) use page_of;

/// The future of one page, sent: what `fetch` of a prepared query or scan gives.
pub(crate) trait Fetching: Future<Output = Result<Fetched>> + Send + 'static {}

impl<F: Future<Output = Result<Fetched>> + Send + 'static> Fetching for F {}

/// What one request returned: the items and the key to continue from.
pub(crate) struct Fetched {
    pub items: Vec<Item>,
    pub last_key: Option<Item>,
    pub count: usize,
    /// The capacity units the page consumed, when DynamoDB reported them.
    pub units: Option<f64>,
}

/// The future of one page of a query or scan: its request (`$request`, a `Query` or `Scan`
/// input builder, whose outputs share the page fields) sent in `$span` by `$prepared` (a
/// prepared query or scan: its `client`, `schema`, `tally` and `limiter`), within the rate
/// limiter when there is one, giving the page, its counts and capacity added to the tally,
/// or the error, recorded on the span. The SDK's outputs share these fields but no trait,
/// hence a macro.
macro_rules! send_page {
    ($request:expr, $span:expr, $prepared:expr, $operation:expr) => {{
        let request = $request;
        let span = $span;
        // The table name goes into the request; an error names it again.
        let (client, schema) = ($prepared.client.clone(), $prepared.schema);
        let (tally, limiter) = ($prepared.tally.clone(), $prepared.limiter.clone());
        async move {
            use ::tracing::Instrument as _;
            if let Some(limiter) = &limiter {
                limiter.wait().await;
            }
            let result = request
                .send_with(client.sdk())
                .instrument(span.clone())
                .await
                .map_err(|e| {
                    let table = client.table_name_of(schema);
                    $crate::error::sdk_error(e, schema.model, $operation, &table)
                });
            if let (Some(limiter), Ok(output)) = (&limiter, &result) {
                limiter.spend($crate::observe::units(output.consumed_capacity.as_slice()));
            }
            if let (Some(limiter), Err(error)) = (&limiter, &result) {
                if error.is_throttled() {
                    limiter.throttled(error.throttling_reasons());
                }
            }
            match result {
                Ok(output) => Ok($crate::query::page::fetched(
                    &span,
                    tally.as_ref(),
                    output.count,
                    output.scanned_count,
                    output.consumed_capacity.as_slice(),
                    output.items,
                    output.last_evaluated_key,
                )),
                Err(error) => {
                    $crate::observe::span::record_error(&span, &error);
                    Err(error)
                }
            }
        }
    }};
}

pub(crate) use send_page;

/// What one page's response holds, recorded on its span and its tally.
pub(crate) fn fetched(
    span: &tracing::Span,
    tally: Option<&Tally>,
    count: i32,
    scanned_count: i32,
    capacity: &[ConsumedCapacity],
    items: Option<Vec<Item>>,
    last_key: Option<Item>,
) -> Fetched {
    let count = usize::try_from(count).unwrap_or(0);
    let scanned_count = usize::try_from(scanned_count).unwrap_or(0);
    if !span.is_disabled() {
        span.record("aws.dynamodb.count", count);
        span.record("aws.dynamodb.scanned_count", scanned_count);
        record_capacity(span, capacity);
    }
    let units = (!capacity.is_empty()).then(|| crate::observe::units(capacity));
    let capacity = Capacity::from_sdk(capacity);
    if let Some(tally) = tally {
        tally.add_page(count, scanned_count, capacity.as_ref());
    }
    Fetched {
        items: items.unwrap_or_default(),
        last_key,
        count,
        units,
    }
}

/// A stream of decoded items across every page. Only one page is held at a time.
pub(crate) fn stream_items<R, F, Fut>(
    fetch: F,
    operation: &'static str,
) -> impl Stream<Item = Result<R>> + Send + 'static
where
    R: FromItem,
    F: FnMut(Option<Item>) -> Fut + Send + 'static,
    Fut: Future<Output = Result<Fetched>> + Send + 'static,
{
    stream::try_unfold(
        (fetch, Some(None::<Item>)),
        |(mut fetch, start)| async move {
            let Some(start) = start else { return Ok(None) };
            let fetched = fetch(start).await?;
            let next = fetched.last_key.filter(|key| !key.is_empty()).map(Some);
            Ok(Some((fetched.items, (fetch, next))))
        },
    )
    .map_ok(move |items| {
        stream::iter(
            items
                .into_iter()
                .map(move |item| R::from_item(item).map_err(|e| e.with_operation(operation))),
        )
    })
    .try_flatten()
    .boxed()
}

/// Folds every page into `acc`, page after page, until the last one.
async fn fold_pages<A, F, Fut>(
    mut fetch: F,
    mut acc: A,
    mut add: impl FnMut(&mut A, Fetched) -> Result<Option<Item>>,
) -> Result<A>
where
    F: FnMut(Option<Item>) -> Fut,
    Fut: Future<Output = Result<Fetched>>,
{
    let mut start = None;
    loop {
        let fetched = fetch(start).await?;
        match add(&mut acc, fetched)?.filter(|key| !key.is_empty()) {
            Some(key) => start = Some(key),
            None => return Ok(acc),
        }
    }
}

/// Counts matching items across every page, without reading them.
pub(crate) async fn count_all<F, Fut>(fetch: F) -> Result<u32>
where
    F: FnMut(Option<Item>) -> Fut,
    Fut: Future<Output = Result<Fetched>>,
{
    fold_pages(fetch, 0u32, |total, fetched| {
        let page = u32::try_from(fetched.count).unwrap_or(u32::MAX);
        *total = total.saturating_add(page);
        Ok(fetched.last_key)
    })
    .await
}

/// Every matching item across every page, decoded into one `Vec` grown once per page.
pub(crate) async fn collect_all<R, F, Fut>(fetch: F, operation: &'static str) -> Result<Vec<R>>
where
    R: FromItem,
    F: FnMut(Option<Item>) -> Fut,
    Fut: Future<Output = Result<Fetched>>,
{
    fold_pages(fetch, Vec::new(), |out, fetched| {
        out.reserve(fetched.items.len());
        for item in fetched.items {
            out.push(R::from_item(item).map_err(|e| e.with_operation(operation))?);
        }
        Ok(fetched.last_key)
    })
    .await
}

/// Checks a page size: DynamoDB's `Limit` is 1 to `i32::MAX`.
pub(crate) fn page_limit(limit: u32) -> Result<i32> {
    match i32::try_from(limit) {
        Ok(limit) if limit > 0 => Ok(limit),
        _ => Err(Error::validation(format!(
            "the limit must be 1 to {}, not {limit}",
            i32::MAX
        ))),
    }
}

/// Sets a builder's page size, or records why it cannot be one.
pub(crate) fn set_limit(slot: &mut Option<i32>, limit: u32, errors: &mut Vec<Error>) {
    match page_limit(limit) {
        Ok(limit) => *slot = Some(limit),
        Err(e) => errors.push(e),
    }
}

/// One fetched page as decoded items and the cursor to the next one.
pub(crate) fn into_page<R: FromItem>(
    fetched: Fetched,
    binding: &Binding,
    operation: &'static str,
) -> Result<Page<R>> {
    items_page(fetched.items, fetched.last_key, binding, operation)
}

/// A page of `items`, decoded, whose cursor continues after `last_key`.
pub(crate) fn items_page<R: FromItem>(
    items: Vec<Item>,
    last_key: Option<Item>,
    binding: &Binding,
    operation: &'static str,
) -> Result<Page<R>> {
    let cursor = binding.next(last_key)?;
    let items = items
        .into_iter()
        .map(|item| R::from_item(item).map_err(|e| e.with_operation(operation)))
        .collect::<Result<_>>()?;
    Ok(Page { items, cursor })
}

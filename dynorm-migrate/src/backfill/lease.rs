//! A backfill's progress, in a DynamoDB table. Under the run's name (the hash key) it
//! holds one item that fixes the run's number of segments (`#run`), one item per segment
//! (its cursor, its counts, whether it is done, and its lease: the worker that holds it
//! and a counter that the holder increments on every renewal and save), and one item per
//! item set aside (`aside.rs`).
//!
//! Workers on any machine share a run through these items alone. Every change to a
//! segment is conditional on its owner or on the counter a worker saw, so that no two
//! workers' clocks are ever compared (`takeover.rs` decides when a lease may be taken
//! over), and a worker killed at any moment loses at most the page in flight.

use dynorm::__ext::error::Context as _;
use std::collections::HashMap;

use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};

use tracing::Instrument as _;

use dynorm::__ext::client::Client;
use dynorm::__ext::error::{from_sdk, Error, Result};
use dynorm::__ext::observe::span::request_span;
use dynorm::__ext::value::Item;

use super::spend::Spend;

/// The progress table's hash key: the run.
pub(crate) const RUN: &str = "run";
/// The progress table's range key: a segment as zero-padded text, `#run`, or a set-aside
/// item's `aside#..`.
pub(crate) const SEGMENT: &str = "segment";
/// The range key of the item that fixes the run's number of segments; sorts before every
/// segment.
const HEADER: &str = "#run";
/// The lowest and highest range keys of segments (`{segment:07}`).
const FIRST_SEGMENT: &str = "0000000";
const LAST_SEGMENT: &str = "9999999";

/// One segment's saved progress.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct SegmentState {
    pub segment: u32,
    pub cursor: Option<Item>,
    pub done: bool,
    pub scanned: u64,
    pub rewritten: u64,
    pub set_aside: u64,
    /// The worker that holds the lease, if any.
    pub owner: Option<String>,
    /// The lease's counter: incremented by every take, renewal and save.
    pub counter: u64,
}

impl SegmentState {
    /// A segment read from its start.
    pub(crate) fn fresh(segment: u32) -> Self {
        Self {
            segment,
            ..Self::default()
        }
    }
}

/// What a worker saw of a segment's lease, which a takeover is conditional on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Seen {
    pub owner: String,
    pub counter: u64,
}

/// The progress items of one run, in one table, as one worker sees them.
pub(crate) struct Progress<'a> {
    pub client: &'a Client,
    pub table: &'a str,
    pub run: &'a str,
    pub worker: &'a str,
    /// Where its requests are counted: a tally's, never paced.
    pub spend: &'a Spend,
}

pub(crate) fn s(text: &str) -> AttributeValue {
    AttributeValue::S(text.to_owned())
}

pub(crate) fn n(number: impl ToString) -> AttributeValue {
    AttributeValue::N(number.to_string())
}

/// A number attribute of a progress item, 0 when absent.
pub(crate) fn number(item: &Item, name: &str) -> u64 {
    item.get(name)
        .and_then(|v| v.as_n().ok())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or(0)
}

impl Progress<'_> {
    /// Writes a record of the run (an item set aside, a value held twice) as it is.
    pub(crate) async fn record(&self, item: Item) -> Result<()> {
        self.client
            .sdk()
            .put_item()
            .table_name(self.table)
            .set_item(Some(item))
            .set_return_consumed_capacity(self.spend.asked())
            .send()
            .instrument(request_span!("PutItem", tracing::field::Empty, self.table))
            .await
            .map(|output| self.spend.counted(output.consumed_capacity.as_slice()))
            .map_err(|e| self.fail(from_sdk(e)))
    }

    pub(crate) fn key(&self, range: &str) -> Item {
        Item::from([
            (RUN.to_owned(), s(self.run)),
            (SEGMENT.to_owned(), s(range)),
        ])
    }

    fn segment_key(&self, segment: u32) -> Item {
        self.key(&format!("{segment:07}"))
    }

    pub(crate) fn fail(&self, e: impl Into<Error>) -> Error {
        e.into()
            .at_operation("backfill")
            .at_table(self.table.to_owned())
    }

    /// Puts `item` unless an item with its key exists; `false` when one does.
    async fn put_new(&self, item: Item) -> Result<bool> {
        let result = self
            .client
            .sdk()
            .put_item()
            .table_name(self.table)
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(#r)")
            .expression_attribute_names("#r", RUN)
            .set_return_consumed_capacity(self.spend.asked())
            .send()
            .instrument(request_span!("PutItem", tracing::field::Empty, self.table))
            .await;
        match result {
            Ok(output) => {
                self.spend.counted(output.consumed_capacity.as_slice());
                Ok(true)
            }
            Err(e) => {
                let error = from_sdk(e);
                if error.kind() == dynorm::ErrorKind::ConditionFailed {
                    Ok(false)
                } else {
                    Err(self.fail(error))
                }
            }
        }
    }

    /// Fixes the run's number of segments, unless an earlier worker did, and writes the
    /// segment items that do not exist yet. Returns the run's number of segments: this
    /// worker's `segments` when it started the run, the first worker's otherwise.
    pub(crate) async fn start(&self, segments: u32) -> Result<u32> {
        let mut header = self.key(HEADER);
        header.insert("total".to_owned(), n(segments));
        let total = if self.put_new(header).await? {
            segments
        } else {
            self.total().await?.unwrap_or(segments)
        };
        for segment in 0..total {
            let mut item = self.segment_key(segment);
            item.insert("total".to_owned(), n(total));
            item.insert("done".to_owned(), AttributeValue::Bool(false));
            item.insert("scanned".to_owned(), n(0));
            item.insert("rewritten".to_owned(), n(0));
            item.insert("counter".to_owned(), n(0));
            self.put_new(item).await?;
        }
        Ok(total)
    }

    /// The run's number of segments, as its first worker fixed it.
    async fn total(&self) -> Result<Option<u32>> {
        let read = self
            .client
            .sdk()
            .get_item()
            .table_name(self.table)
            .set_key(Some(self.key(HEADER)))
            .consistent_read(true)
            .set_return_consumed_capacity(self.spend.asked())
            .send()
            .instrument(request_span!("GetItem", tracing::field::Empty, self.table))
            .await
            .map_err(|e| self.fail(from_sdk(e)))?;
        self.spend.counted(read.consumed_capacity.as_slice());
        Ok(read
            .item
            .map(|item| number(&item, "total"))
            .and_then(|total| u32::try_from(total).ok()))
    }

    /// Every item of the run whose range key is between `low` and `high`, as saved.
    pub(crate) async fn between(&self, low: &str, high: &str) -> Result<Vec<Item>> {
        let mut out = Vec::new();
        let mut start = None;
        loop {
            let page = self
                .client
                .sdk()
                .query()
                .table_name(self.table)
                .key_condition_expression("#r = :r AND #s BETWEEN :low AND :high")
                .expression_attribute_names("#r", RUN)
                .expression_attribute_names("#s", SEGMENT)
                .expression_attribute_values(":r", s(self.run))
                .expression_attribute_values(":low", s(low))
                .expression_attribute_values(":high", s(high))
                .consistent_read(true)
                .set_exclusive_start_key(start)
                .set_return_consumed_capacity(self.spend.asked())
                .send()
                .instrument(request_span!("Query", tracing::field::Empty, self.table))
                .await
                .map_err(|e| self.fail(from_sdk(e)))?;
            self.spend.counted(page.consumed_capacity.as_slice());
            out.extend(page.items.unwrap_or_default());
            start = page.last_evaluated_key;
            if start.is_none() {
                return Ok(out);
            }
        }
    }

    /// Every segment of the run, as saved.
    pub(crate) async fn segments(&self) -> Result<Vec<SegmentState>> {
        let items = self.between(FIRST_SEGMENT, LAST_SEGMENT).await?;
        Ok(items.iter().map(state).collect())
    }

    /// Takes the segment's lease: a free one (or this worker's own), or, with `seen`, the
    /// lease of a worker whose counter stayed `seen.counter` for a lease duration. Returns
    /// the segment as it is now this worker's; `None` if another worker got there first.
    pub(crate) async fn take(
        &self,
        segment: u32,
        seen: Option<&Seen>,
    ) -> Result<Option<SegmentState>> {
        let mut values = HashMap::new();
        let condition = match seen {
            None => "#d = :false AND (attribute_not_exists(#o) OR #o = :me)",
            Some(seen) => {
                values.insert(":seen_owner".to_owned(), s(&seen.owner));
                values.insert(":seen".to_owned(), n(seen.counter));
                "#d = :false AND #o = :seen_owner AND #k = :seen"
            }
        };
        let updated = self
            .lease_update(segment, "SET #o = :me ADD #k :one", condition, values)
            .await?;
        Ok(updated.map(|item| state(&item)))
    }

    /// Renews this worker's lease on the segment; `false` when it was lost.
    pub(crate) async fn renew(&self, segment: u32) -> Result<bool> {
        let updated = self
            .lease_update(segment, "ADD #k :one", HELD, HashMap::new())
            .await?;
        Ok(updated.is_some())
    }

    /// Saves the cursor and counts after a page (the segment is done when there is no
    /// cursor), renewing the lease; `false` when the lease was lost to another worker
    /// (this one stops reading the segment).
    pub(crate) async fn save(&self, segment: u32, at: &SegmentState) -> Result<bool> {
        let mut values = HashMap::from([
            (":scanned".to_owned(), n(at.scanned)),
            (":rewritten".to_owned(), n(at.rewritten)),
            (":aside".to_owned(), n(at.set_aside)),
            (
                ":done".to_owned(),
                AttributeValue::Bool(at.cursor.is_none()),
            ),
        ]);
        let expression = match &at.cursor {
            Some(cursor) => {
                values.insert(":cursor".to_owned(), AttributeValue::M(cursor.clone()));
                "SET #c = :cursor, #s = :scanned, #w = :rewritten, #a = :aside, #d = :done ADD #k :one"
            }
            None => {
                "SET #s = :scanned, #w = :rewritten, #a = :aside, #d = :done ADD #k :one REMOVE #c"
            }
        };
        let updated = self.lease_update(segment, expression, HELD, values).await?;
        Ok(updated.is_some())
    }

    /// Gives the segment's lease up, so that another worker takes it without waiting.
    pub(crate) async fn release(&self, segment: u32) -> Result<()> {
        self.lease_update(segment, "REMOVE #o ADD #k :one", HELD, HashMap::new())
            .await
            .map(drop)
    }

    /// A conditional update of a segment item; its new state, or `None` when the
    /// condition failed.
    async fn lease_update(
        &self,
        segment: u32,
        expression: &str,
        condition: &str,
        mut values: HashMap<String, AttributeValue>,
    ) -> Result<Option<Item>> {
        values.insert(":me".to_owned(), s(self.worker));
        values.insert(":one".to_owned(), n(1));
        values.insert(":false".to_owned(), AttributeValue::Bool(false));
        // DynamoDB refuses names and values an expression does not use.
        let used =
            |placeholder: &str| expression.contains(placeholder) || condition.contains(placeholder);
        values.retain(|placeholder, _| used(placeholder));
        let names = [
            ("#o", "owner"),
            ("#k", "counter"),
            ("#d", "done"),
            ("#c", "cursor"),
            ("#s", "scanned"),
            ("#w", "rewritten"),
            ("#a", "set_aside"),
        ]
        .into_iter()
        .filter(|(placeholder, _)| used(placeholder))
        .map(|(placeholder, name)| (placeholder.to_owned(), name.to_owned()))
        .collect();
        let result = self
            .client
            .sdk()
            .update_item()
            .table_name(self.table)
            .set_key(Some(self.segment_key(segment)))
            .update_expression(expression)
            .condition_expression(condition)
            .set_expression_attribute_names(Some(names))
            .set_expression_attribute_values(Some(values))
            .return_values(ReturnValue::AllNew)
            .set_return_consumed_capacity(self.spend.asked())
            .send()
            .instrument(request_span!(
                "UpdateItem",
                tracing::field::Empty,
                self.table
            ))
            .await;
        match result {
            Ok(output) => {
                self.spend.counted(output.consumed_capacity.as_slice());
                Ok(Some(output.attributes.unwrap_or_default()))
            }
            Err(e) => {
                let error = from_sdk(e);
                if error.kind() == dynorm::ErrorKind::ConditionFailed {
                    Ok(None)
                } else {
                    Err(self.fail(error))
                }
            }
        }
    }
}

/// The condition of every change a lease's holder makes: it still holds it.
const HELD: &str = "#d = :false AND #o = :me";

/// A segment item as read.
fn state(item: &Item) -> SegmentState {
    SegmentState {
        segment: item
            .get(SEGMENT)
            .and_then(|v| v.as_s().ok())
            .and_then(|s| s.parse().ok())
            .unwrap_or(0),
        cursor: item.get("cursor").and_then(|v| v.as_m().ok()).cloned(),
        done: matches!(item.get("done"), Some(AttributeValue::Bool(true))),
        scanned: number(item, "scanned"),
        rewritten: number(item, "rewritten"),
        set_aside: number(item, "set_aside"),
        owner: item.get("owner").and_then(|v| v.as_s().ok()).cloned(),
        counter: number(item, "counter"),
    }
}

/// Creates the progress table unless it exists (on-demand), and waits until it is active.
pub(crate) async fn ensure_table(client: &Client, table: &str) -> Result<()> {
    dynorm::__ext::client::ensure_keyed_table(client, table, RUN, SEGMENT)
        .await
        .map_err(|e| e.at_operation("ensure_backfill_table"))
}

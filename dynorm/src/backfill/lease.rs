//! A backfill's progress, in a DynamoDB table: one item per segment of a run, holding its
//! cursor, its counts, whether it is done, and the lease of the worker reading it. Workers
//! on any machine share a run through these items alone: a worker takes a segment whose
//! lease is free or expired, renews the lease with each page, and saves the cursor after
//! each page, so that a worker killed at any moment loses at most the page in flight.

use std::collections::HashMap;
use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;

use tracing::Instrument as _;

use crate::client::Client;
use crate::error::{from_sdk, Error, Result};
use crate::observe::span::request_span;
use crate::value::Item;

/// The progress table's hash key: the run.
const RUN: &str = "run";
/// The progress table's range key: the segment, as zero-padded text.
const SEGMENT: &str = "segment";

/// One segment's saved progress.
#[derive(Clone, Debug)]
pub(crate) struct SegmentState {
    pub segment: u32,
    pub cursor: Option<Item>,
    pub done: bool,
    pub scanned: u64,
    pub rewritten: u64,
    owner: Option<String>,
    lease_until: u64,
}

impl SegmentState {
    /// Whether `worker` can take it now: not done, and its lease free, expired or its own.
    pub(crate) fn takeable(&self, worker: &str, now: u64) -> bool {
        !self.done && (self.owner.as_deref().is_none_or(|o| o == worker) || self.lease_until <= now)
    }
}

/// The progress items of one run, in one table.
pub(crate) struct Progress<'a> {
    pub client: &'a Client,
    pub table: &'a str,
    pub run: &'a str,
    pub worker: &'a str,
    pub lease: Duration,
}

fn s(text: &str) -> AttributeValue {
    AttributeValue::S(text.to_owned())
}

fn n(number: impl ToString) -> AttributeValue {
    AttributeValue::N(number.to_string())
}

/// Milliseconds since the epoch.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl Progress<'_> {
    fn key(&self, segment: u32) -> Item {
        Item::from([
            (RUN.to_owned(), s(self.run)),
            (SEGMENT.to_owned(), s(&format!("{segment:07}"))),
        ])
    }

    fn fail(&self, e: impl Into<Error>) -> Error {
        e.into()
            .with_operation("backfill")
            .with_table(self.table.to_owned())
    }

    /// Writes the run's segment items that do not exist yet: the first worker of a run
    /// fixes its number of segments; later ones find them.
    pub(crate) async fn start(&self, segments: u32) -> Result<()> {
        for segment in 0..segments {
            let mut item = self.key(segment);
            item.insert("total".to_owned(), n(segments));
            item.insert("done".to_owned(), AttributeValue::Bool(false));
            item.insert("scanned".to_owned(), n(0));
            item.insert("rewritten".to_owned(), n(0));
            let result = self
                .client
                .sdk()
                .put_item()
                .table_name(self.table)
                .set_item(Some(item))
                .condition_expression("attribute_not_exists(#r)")
                .expression_attribute_names("#r", RUN)
                .send()
                .instrument(request_span!("PutItem", tracing::field::Empty, self.table))
                .await;
            if let Err(e) = result {
                let error = from_sdk(e);
                if !error.is_condition_failed() {
                    return Err(self.fail(error));
                }
            }
        }
        Ok(())
    }

    /// Every segment of the run, as saved.
    pub(crate) async fn segments(&self) -> Result<Vec<SegmentState>> {
        let mut out = Vec::new();
        let mut start = None;
        loop {
            let page = self
                .client
                .sdk()
                .query()
                .table_name(self.table)
                .key_condition_expression("#r = :r")
                .expression_attribute_names("#r", RUN)
                .expression_attribute_values(":r", s(self.run))
                .consistent_read(true)
                .set_exclusive_start_key(start)
                .send()
                .instrument(request_span!("Query", tracing::field::Empty, self.table))
                .await
                .map_err(|e| self.fail(from_sdk(e)))?;
            for item in page.items.unwrap_or_default() {
                out.push(state(&item));
            }
            start = page.last_evaluated_key;
            if start.is_none() {
                return Ok(out);
            }
        }
    }

    /// Takes the segment's lease, if it is still takeable; `false` if another worker took
    /// it first.
    pub(crate) async fn take(&self, segment: u32) -> Result<bool> {
        self.lease_update(segment, "SET #o = :me, #l = :until", None)
            .await
    }

    /// Saves the cursor and counts after a page, renewing the lease; `false` when the
    /// lease was lost to another worker (this one stops reading the segment).
    pub(crate) async fn save(
        &self,
        segment: u32,
        cursor: Option<Item>,
        scanned: u64,
        rewritten: u64,
    ) -> Result<bool> {
        let mut values = HashMap::from([
            (":scanned".to_owned(), n(scanned)),
            (":rewritten".to_owned(), n(rewritten)),
            (":done".to_owned(), AttributeValue::Bool(cursor.is_none())),
        ]);
        let expression = match cursor {
            Some(cursor) => {
                values.insert(":cursor".to_owned(), AttributeValue::M(cursor));
                "SET #o = :me, #l = :until, #c = :cursor, #s = :scanned, #w = :rewritten, #d = :done"
            }
            None => {
                "SET #o = :me, #l = :until, #s = :scanned, #w = :rewritten, #d = :done REMOVE #c"
            }
        };
        self.lease_update(segment, expression, Some(values)).await
    }

    async fn lease_update(
        &self,
        segment: u32,
        expression: &str,
        extra: Option<HashMap<String, AttributeValue>>,
    ) -> Result<bool> {
        let now = now_ms();
        let mut values = extra.unwrap_or_default();
        values.insert(":me".to_owned(), s(self.worker));
        values.insert(":until".to_owned(), n(now + self.lease.as_millis() as u64));
        values.insert(":now".to_owned(), n(now));
        values.insert(":false".to_owned(), AttributeValue::Bool(false));
        let condition = "#d = :false AND (attribute_not_exists(#o) OR #o = :me OR #l <= :now)";
        // DynamoDB refuses names an expression does not use.
        let names = [
            ("#o", "owner"),
            ("#l", "lease_until"),
            ("#d", "done"),
            ("#c", "cursor"),
            ("#s", "scanned"),
            ("#w", "rewritten"),
        ]
        .into_iter()
        .filter(|(placeholder, _)| {
            expression.contains(placeholder) || condition.contains(placeholder)
        })
        .map(|(placeholder, name)| (placeholder.to_owned(), name.to_owned()))
        .collect();
        let result = self
            .client
            .sdk()
            .update_item()
            .table_name(self.table)
            .set_key(Some(self.key(segment)))
            .update_expression(expression)
            .condition_expression(condition)
            .set_expression_attribute_names(Some(names))
            .set_expression_attribute_values(Some(values))
            .send()
            .instrument(request_span!(
                "UpdateItem",
                tracing::field::Empty,
                self.table
            ))
            .await;
        match result {
            Ok(_) => Ok(true),
            Err(e) => {
                let error = from_sdk(e);
                if error.is_condition_failed() {
                    Ok(false)
                } else {
                    Err(self.fail(error))
                }
            }
        }
    }
}

/// A segment item as read.
fn state(item: &Item) -> SegmentState {
    let number = |name: &str| {
        item.get(name)
            .and_then(|v| v.as_n().ok())
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(0)
    };
    SegmentState {
        segment: item
            .get(SEGMENT)
            .and_then(|v| v.as_s().ok())
            .and_then(|s| s.parse().ok())
            .unwrap_or(0),
        cursor: item.get("cursor").and_then(|v| v.as_m().ok()).cloned(),
        done: matches!(item.get("done"), Some(AttributeValue::Bool(true))),
        scanned: number("scanned"),
        rewritten: number("rewritten"),
        owner: item.get("owner").and_then(|v| v.as_s().ok()).cloned(),
        lease_until: number("lease_until"),
    }
}

/// Creates the progress table unless it exists (on-demand), and waits until it is active.
pub(crate) async fn ensure_table(client: &Client, table: &str) -> Result<()> {
    crate::stream::checkpoint::ensure_keyed_table(client, table, RUN, SEGMENT)
        .await
        .map_err(|e| e.with_operation("ensure_backfill_table"))
}

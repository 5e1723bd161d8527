//! Where a backfill run is, read from its progress table.

use std::fmt;

use crate::backfill::lease::Progress as Leases;
use crate::backfill::spend::Spend;
use dynorm::__ext::client::Client;
use dynorm::__ext::error::Result;
use dynorm::__ext::value::Item;

/// Where a backfill run is: its segments, how many are done, what its workers read and
/// rewrote so far, and the items they set aside.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BackfillStatus {
    /// The run's segments.
    pub segments: u32,
    /// Those that are done.
    pub done: u32,
    /// Items read, in every segment.
    pub scanned: u64,
    /// Items rewritten (or, in a dry run, that needed it), in every segment.
    pub rewritten: u64,
    /// Items that did not decode, set aside by a run with
    /// [`set_aside_undecodable(true)`](crate::backfill::Backfill::set_aside_undecodable).
    pub set_aside: Vec<SetAside>,
    /// Unique values held by more than one item, as last recorded: the constraint is
    /// claimed once none is left (see [`Duplicate`]).
    pub duplicates: Vec<Duplicate>,
}

/// A unique value that more than one item holds, found by a backfill that adopted the
/// `#[unique]` on a table with items. The run reports it, and does not claim the value for
/// any of them, until all but one give it up (through any writer); the next run sent then
/// claims it for the one left.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Duplicate {
    /// The constraint: its attributes joined by `+`.
    pub constraint: String,
    /// The values, as errors show them: `email = "ada@example.com"`.
    pub values: String,
    /// The table keys of the items that hold them.
    pub holders: Vec<Item>,
}

// As for `SetAside`: keys hold no floating point numbers.
impl Eq for Duplicate {}

impl fmt::Display for Duplicate {
    /// `email = "ada@example.com" held by {id: "u1"}, {id: "u7"}`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let holders: Vec<String> = self.holders.iter().map(show_key).collect();
        write!(f, "{} held by {}", self.values, holders.join(", "))
    }
}

/// An item a backfill set aside, as its progress table records it.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct SetAside {
    /// The item's table key.
    pub key: Item,
    /// Its stored shape (1 for an item without one, or of a model without shapes).
    pub shape: u32,
    /// The path of the attribute that did not decode, such as `tags[2]`, when known.
    pub attribute: Option<String>,
    /// The error, as its message says it.
    pub error: String,
}

// The values of a key hold no floating point numbers (a number is its text), so equality
// is an equivalence.
impl Eq for SetAside {}

impl fmt::Display for SetAside {
    /// `key {pk: "DOC#d1", sk: "DOC"}, shape 1: conversion error ...`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "key {}, shape {}: {}",
            show_key(&self.key),
            self.shape,
            self.error
        )
    }
}

impl BackfillStatus {
    /// Whether every segment is done.
    pub fn is_done(&self) -> bool {
        self.segments > 0 && self.done == self.segments
    }

    /// Whether every segment is done and no unique value is held twice: the model's
    /// constraints hold for every item of the table.
    pub fn constraints_hold(&self) -> bool {
        self.is_done() && self.duplicates.is_empty()
    }
}

/// Where backfill run `run` is, from progress table `progress_table`; `None` when it
/// was never started (or the table does not exist).
pub async fn backfill_status(
    db: &Client,
    run: &str,
    progress_table: &str,
) -> Result<Option<BackfillStatus>> {
    let leases = Leases {
        client: db,
        table: progress_table,
        run,
        worker: "",
        spend: &Spend::default(),
    };
    let segments = match leases.segments().await {
        Ok(segments) => segments,
        Err(e) if e.kind() == dynorm::ErrorKind::TableNotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if segments.is_empty() {
        return Ok(None);
    }
    let mut status = BackfillStatus {
        segments: u32::try_from(segments.len()).unwrap_or(u32::MAX),
        set_aside: leases.set_aside_items().await?,
        duplicates: leases.duplicates().await?,
        ..BackfillStatus::default()
    };
    for segment in &segments {
        status.done += u32::from(segment.done);
        status.scanned += segment.scanned;
        status.rewritten += segment.rewritten;
    }
    Ok(Some(status))
}

/// A key, readable: `{pk: "DOC#d1", sk: "DOC"}`, its attributes in name order.
pub(crate) fn show_key(key: &Item) -> String {
    let mut names: Vec<_> = key.iter().collect();
    names.sort_unstable_by_key(|(name, _)| *name);
    let shown: Vec<_> = names
        .into_iter()
        .map(|(name, value)| format!("{name}: {}", dynorm::__ext::value::show(value)))
        .collect();
    format!("{{{}}}", shown.join(", "))
}

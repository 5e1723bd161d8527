//! Consumed capacity, summed over requests, and the running totals of a stream of pages.

use super::limiter::RateLimiter;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use aws_sdk_dynamodb::types::{ConsumedCapacity, ReturnConsumedCapacity};

/// The capacity units one request or several consumed, as DynamoDB reported them in
/// `ConsumedCapacity`, summed.
///
/// DynamoDB reports capacity only when the request asks for it: every request a
/// [`Tally`] counts asks for `INDEXES` (the totals, and the table and each index apart).
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Capacity {
    /// `CapacityUnits`: every unit consumed, reads and writes.
    pub units: f64,
    /// `ReadCapacityUnits`, where DynamoDB reported them apart.
    pub read_units: f64,
    /// `WriteCapacityUnits`, where DynamoDB reported them apart.
    pub write_units: f64,
    /// `CapacityUnits` by table name.
    pub tables: BTreeMap<String, f64>,
    /// The units of each table's base table and secondary indexes apart,
    /// keyed `table` for the base table and `table/index` for an index.
    pub indexes: BTreeMap<String, f64>,
}

impl Capacity {
    /// The sum of what DynamoDB returned, or `None` when it returned nothing.
    pub(crate) fn from_sdk<'a>(
        entries: impl IntoIterator<Item = &'a ConsumedCapacity>,
    ) -> Option<Self> {
        let mut total = None::<Capacity>;
        for entry in entries {
            total.get_or_insert_with(Capacity::default).add(entry);
        }
        total
    }

    /// Adds one `ConsumedCapacity` DynamoDB returned.
    pub(crate) fn add(&mut self, entry: &ConsumedCapacity) {
        let units = entry.capacity_units().unwrap_or(0.0);
        self.units += units;
        self.read_units += entry.read_capacity_units().unwrap_or(0.0);
        self.write_units += entry.write_capacity_units().unwrap_or(0.0);
        let table = entry.table_name().unwrap_or_default();
        *self.tables.entry(table.to_owned()).or_default() += units;
        if let Some(base) = entry.table().and_then(|c| c.capacity_units()) {
            *self.indexes.entry(table.to_owned()).or_default() += base;
        }
        let indexes = entry
            .global_secondary_indexes()
            .into_iter()
            .chain(entry.local_secondary_indexes())
            .flatten();
        for (index, capacity) in indexes {
            *self.indexes.entry(format!("{table}/{index}")).or_default() +=
                capacity.capacity_units().unwrap_or(0.0);
        }
    }

    /// Adds another sum to this one.
    pub(crate) fn merge(&mut self, other: &Capacity) {
        self.units += other.units;
        self.read_units += other.read_units;
        self.write_units += other.write_units;
        for (table, units) in &other.tables {
            *self.tables.entry(table.clone()).or_default() += units;
        }
        for (index, units) in &other.indexes {
            *self.indexes.entry(index.clone()).or_default() += units;
        }
    }
}

/// Adds `more` to an optional sum.
pub(crate) fn merge_into(total: &mut Option<Capacity>, more: Option<&Capacity>) {
    if let Some(more) = more {
        total.get_or_insert_with(Capacity::default).merge(more);
    }
}

/// What an operation's requests cost, added to the builder's [`Tally`] when it has one.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Metadata {
    /// The capacity consumed, summed over every request; `None` when DynamoDB reported
    /// none (capacity was not asked for).
    pub consumed_capacity: Option<Capacity>,
    /// How many requests were sent: 1 for a single-item operation or a transaction, one
    /// per chunk attempt for a batch, retries included.
    pub requests: u32,
}

impl Metadata {
    /// The metadata of one request that returned `capacity`.
    pub(crate) fn single<'a>(capacity: impl IntoIterator<Item = &'a ConsumedCapacity>) -> Self {
        Self {
            consumed_capacity: Capacity::from_sdk(capacity),
            requests: 1,
        }
    }

    /// Adds the metadata of more requests.
    pub(crate) fn merge(&mut self, other: &Metadata) {
        merge_into(
            &mut self.consumed_capacity,
            other.consumed_capacity.as_ref(),
        );
        self.requests += other.requests;
    }
}

/// Running totals of what a builder's requests cost and returned: hand it to any builder
/// with `.tally(&tally)`, and read it at any time, during a stream or after it. It is the
/// one place dynorm reports capacity and counts; a clone shares the same totals, so one
/// tally can sum several operations. Its counts stop at `u32::MAX`.
///
/// ```no_run
/// # use dynorm::Model;
/// # #[derive(Model)] struct Order { #[hash_key] customer: String, #[range_key] id: String }
/// # async fn demo(db: dynorm::Client) -> Result<(), dynorm::Error> {
/// use dynorm::observe::Tally;
/// use dynorm::Request;
/// use futures::TryStreamExt;
/// let tally = Tally::default();
/// let mut orders = db.query_by::<Order>("c1").tally(&tally).stream();
/// while let Some(_order) = orders.try_next().await? {
///     // tally.requests(), tally.scanned_count(), tally.consumed_capacity() so far
/// }
/// println!("{} pages, {:?}", tally.requests(), tally.consumed_capacity());
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, Default)]
pub struct Tally {
    totals: Arc<Mutex<Totals>>,
}

#[derive(Clone, Debug, Default)]
struct Totals {
    requests: usize,
    count: usize,
    scanned_count: usize,
    skipped: usize,
    dead_lettered: usize,
    capacity: Option<Capacity>,
}

/// A count as the getters give it: `u32::MAX` once it passes that.
fn saturating(count: usize) -> u32 {
    u32::try_from(count).unwrap_or(u32::MAX)
}

impl Tally {
    fn read<T>(&self, f: impl FnOnce(&Totals) -> T) -> T {
        f(&self.totals.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn write(&self, f: impl FnOnce(&mut Totals)) {
        f(&mut self.totals.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Adds one page of a query or scan.
    pub(crate) fn add_page(&self, count: usize, scanned_count: usize, capacity: Option<&Capacity>) {
        self.write(|totals| {
            totals.requests += 1;
            totals.count += count;
            totals.scanned_count += scanned_count;
            merge_into(&mut totals.capacity, capacity);
        });
    }

    /// Adds the requests of an operation and what they cost.
    pub(crate) fn add(&self, metadata: &Metadata) {
        self.write(|totals| {
            totals.requests += metadata.requests as usize;
            merge_into(&mut totals.capacity, metadata.consumed_capacity.as_ref());
        });
    }

    /// Adds everything `other` has counted.
    pub(crate) fn add_tally(&self, other: &Tally) {
        let other = other.read(Totals::clone);
        self.write(|totals| {
            totals.requests += other.requests;
            totals.count += other.count;
            totals.scanned_count += other.scanned_count;
            totals.skipped += other.skipped;
            totals.dead_lettered += other.dead_lettered;
            merge_into(&mut totals.capacity, other.capacity.as_ref());
        });
    }

    /// Adds requests that report no capacity: those of a change stream.
    pub(crate) fn add_requests(&self, requests: usize) {
        self.write(|totals| totals.requests += requests);
    }

    /// Adds change records handed to a dead-letter sink.
    pub(crate) fn add_dead_lettered(&self, records: usize) {
        self.write(|totals| totals.dead_lettered += records);
    }

    /// Adds items that were read but skipped, as items of entities a collection or a
    /// stream does not list.
    pub(crate) fn add_skipped(&self, skipped: usize) {
        self.write(|totals| totals.skipped += skipped);
    }

    /// The requests sent so far: one per page of a query or scan, one per chunk attempt of
    /// a batch, retries included, one per single-item operation or transaction, and one
    /// per attempt of a change consumer's DynamoDB Streams requests.
    pub fn requests(&self) -> u32 {
        self.read(|t| saturating(t.requests))
    }

    /// `Count` summed over query and scan pages: the items that matched the filter.
    pub fn matched(&self) -> u32 {
        self.read(|t| saturating(t.count))
    }

    /// `ScannedCount` summed over query and scan pages: the items read before the filter.
    /// The difference with [`matched`](Self::matched) is what the filter threw away.
    pub fn scanned_count(&self) -> u32 {
        self.read(|t| saturating(t.scanned_count))
    }

    /// Items read but skipped because they belong to an entity the read does not list
    /// (a collection's or a change consumer's other entities); they are never failed.
    pub fn skipped(&self) -> u32 {
        self.read(|t| saturating(t.skipped))
    }

    /// Change records that did not decode and went to the consumer's dead-letter sink
    /// (`dynorm_streams::ChangesBuilder::dead_letters`).
    pub fn dead_lettered(&self) -> u32 {
        self.read(|t| saturating(t.dead_lettered))
    }

    /// The capacity consumed so far, in total and by table and index; `None` when DynamoDB
    /// reported none (a request a tally counts asks for it: `ReturnConsumedCapacity` is
    /// `INDEXES`).
    pub fn consumed_capacity(&self) -> Option<Capacity> {
        self.read(|t| t.capacity.clone())
    }
}

/// What a builder asks DynamoDB to report, and where it adds what comes back: the one
/// piece every builder holds for capacity and counts.
#[derive(Clone, Debug, Default)]
pub struct Reporting {
    /// The tally that sums the requests.
    pub tally: Option<Tally>,
    /// The rate limiter the requests wait for and spend from, where a builder takes one.
    pub limiter: Option<RateLimiter>,
}

impl Reporting {
    /// What every request asks DynamoDB to report: by table and index when a tally
    /// counts it, the total when only a rate limiter needs the units, and nothing
    /// otherwise.
    pub fn capacity(&self) -> Option<ReturnConsumedCapacity> {
        match (&self.tally, &self.limiter) {
            (Some(_), _) => Some(ReturnConsumedCapacity::Indexes),
            (None, Some(_)) => Some(ReturnConsumedCapacity::Total),
            (None, None) => None,
        }
    }

    /// Adds what an operation's requests cost to the tally, if there is one.
    pub(crate) fn record(&self, metadata: &Metadata) {
        if let Some(tally) = &self.tally {
            tally.add(metadata);
        }
    }
}

/// The `tally` setter of a builder, written once: the argument is the path of the
/// builder's [`Reporting`] field (`report`, or `write.report`).
macro_rules! report_setters {
    ($($field:ident).+) => {
        /// Adds the requests sent and what they cost (by table and index) to `tally`.
        pub fn tally(mut self, tally: &$crate::observe::Tally) -> Self {
            self.$($field).+.tally = Some(tally.clone());
            self
        }
    };
}

pub(crate) use report_setters;

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::types::Capacity as SdkCapacity;
    use std::collections::HashMap;

    #[test]
    fn capacity_sums_totals_tables_and_indexes() {
        let entry = ConsumedCapacity::builder()
            .table_name("T")
            .capacity_units(3.0)
            .read_capacity_units(3.0)
            .table(SdkCapacity::builder().capacity_units(1.0).build())
            .set_global_secondary_indexes(Some(HashMap::from([(
                "byX".to_owned(),
                SdkCapacity::builder().capacity_units(2.0).build(),
            )])))
            .build();
        let other = ConsumedCapacity::builder()
            .table_name("U")
            .capacity_units(0.5)
            .build();
        let total = Capacity::from_sdk([&entry, &entry, &other]).expect("entries");
        assert_eq!(total.units, 6.5);
        assert_eq!(total.read_units, 6.0);
        assert_eq!(total.tables["T"], 6.0);
        assert_eq!(total.tables["U"], 0.5);
        assert_eq!(total.indexes["T"], 2.0);
        assert_eq!(total.indexes["T/byX"], 4.0);
        assert_eq!(Capacity::from_sdk([]), None);
    }

    #[test]
    fn a_tally_sums_pages() {
        let tally = Tally::default();
        let capacity = Capacity {
            units: 0.5,
            ..Capacity::default()
        };
        tally.clone().add_page(2, 5, Some(&capacity));
        tally.add_page(1, 1, None);
        assert_eq!(
            (tally.requests(), tally.matched(), tally.scanned_count()),
            (2, 3, 6)
        );
        assert_eq!(tally.consumed_capacity().map(|c| c.units), Some(0.5));
    }
}

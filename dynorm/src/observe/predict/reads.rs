//! The read units of reads: one item by key (alone, in a batch, in a transaction), and
//! one page of a query or scan.
//!
//! DynamoDB charges an item read by key per started 4 KB of the item (half as much when
//! eventually consistent, twice as much in a transaction), and a page for the sum of
//! the sizes of every item it read, before any filter, rounded up per 4 KB. A page stops
//! at 1 MB read, or at its `limit` of items.

use super::units::{item_read_units, max_item_read_units, read_units, PAGE_BYTES};
use super::{index_key, Access, Predicted, Units};
const UNKNOWN_SIZE: &str = "an item's size is known only once it is read (up to the model's \
     `max_item_bytes`, or 400 KB)";
const BUDGET: &str = "a budgeted page reads DynamoDB pages while the most the next one can \
     cost fits in what is left of its budget, so it consumes at most the budget (an item \
     larger than the read's `max_item_bytes` could pass it)";
const BATCH_ABSENT: &str = "a batch read may find no item for a key, which DynamoDB Local charges \
     nothing";
const KEYS_FOUND: &str = "items read by key for the keys a read before found (a hydrated page's, \
     a relation's parents'): none when it found none";
const KEYS_UNBOUNDED: &str = "without a limit, the keys of a page are bounded only by its 1 MB: \
     give the query a `limit`";
const PAGE: &str = "a page reads the items that match its key condition, before any filter, up \
     to its limit or 1 MB: 0 when none match";

/// How a read by key is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ByKey {
    /// `GetItem`: an absent item costs as much as the smallest one.
    Get,
    /// One key of a `BatchGetItem`: an absent item may cost nothing.
    Batch,
    /// One `Get` of a `TransactGetItems`: strongly consistent, and twice the units.
    Transaction,
}

/// One item read by key from `table`, of `size` bytes when the caller knows it, and of at
/// most `bound` bytes.
pub(crate) fn by_key(
    predicted: &mut Predicted,
    table: &str,
    how: ByKey,
    consistent: bool,
    size: Option<usize>,
    bound: usize,
) {
    let (consistent, factor) = match how {
        ByKey::Transaction => (true, 2.0),
        ByKey::Get | ByKey::Batch => (consistent, 1.0),
    };
    let least = match how {
        ByKey::Batch => 0.0,
        ByKey::Get | ByKey::Transaction => item_read_units(0, consistent),
    };
    let units = match size {
        Some(size) => Units::exact(item_read_units(size, consistent)),
        None => Units::between(least, max_item_read_units(bound, consistent)),
    };
    if !units.is_exact() {
        predicted.because(UNKNOWN_SIZE);
    }
    if how == ByKey::Batch && size.is_none() {
        predicted.because(BATCH_ABSENT);
    }
    predicted.add(Access::Read, index_key(table, None), units, factor);
}

/// One page of a query or scan of `table` (through `index`, if any): up to `limit`
/// items (before the filter) of `size` bytes each when the caller knows it, and of at
/// most `bound` bytes.
pub(crate) fn page(
    predicted: &mut Predicted,
    table: &str,
    index: Option<&str>,
    consistent: bool,
    limit: Option<u32>,
    size: Option<usize>,
    bound: usize,
) {
    let item = size.unwrap_or(bound);
    let bytes = match limit {
        Some(limit) => (limit as usize).saturating_mul(item).min(PAGE_BYTES),
        None => PAGE_BYTES,
    };
    // A page stops after the item that crosses 1 MB, so it may read one item more.
    let bytes = if bytes == PAGE_BYTES && limit.is_none_or(|l| l as usize * item > PAGE_BYTES) {
        PAGE_BYTES + item
    } else {
        bytes
    };
    let most = read_units(bytes, consistent);
    predicted.add(
        Access::Read,
        index_key(table, index),
        Units::between(0.0, most),
        1.0,
    );
    predicted.because(PAGE);
    if index.is_some() {
        // DynamoDB reports the base table of an index read too, with 0 units.
        predicted.add(Access::Read, index_key(table, None), Units::exact(0.0), 1.0);
    }
}

/// The items read by key with `BatchGetItem` for the keys a read before found (a hydrated
/// query's page, a relation's parents): at most `most` keys (`None`: as many as 1 MB of index entries holds), each
/// costing from nothing up to its item's units. Gives the most keys there can be.
pub(crate) fn keys_found(
    predicted: &mut Predicted,
    table: &str,
    most: Option<usize>,
    consistent: bool,
    size: Option<usize>,
    bound: usize,
) -> usize {
    // An index entry is at least a byte: a page of 1 MB holds no more entries than that.
    let most = most.unwrap_or(PAGE_BYTES);
    if most == PAGE_BYTES {
        predicted.because(KEYS_UNBOUNDED);
    }
    let per_key = match size {
        Some(size) => item_read_units(size, consistent),
        None => {
            predicted.because(UNKNOWN_SIZE);
            max_item_read_units(bound, consistent)
        }
    };
    predicted.because(KEYS_FOUND);
    let units = Units::between(0.0, per_key * most as f64);
    predicted.add(Access::Read, index_key(table, None), units, 1.0);
    most
}

/// A budgeted page of a query or scan of `table` (through `index`, if any): as many
/// DynamoDB pages as fit in `units`, each sent only when the most it can cost fits in what
/// is left, so from 0 up to `units` in all. `page` is the prediction of one DynamoDB page
/// of the read: it says which table or index is read. Each page but the last reads an
/// item at least, and so consumes at least what one small item costs, which bounds the
/// requests.
pub(crate) fn budgeted(page: &Predicted, units: f64, consistent: bool) -> Predicted {
    let least = read_units(1, consistent);
    let mut predicted = Predicted::default();
    let pages = (units / least).floor().max(0.0) as usize + 1;
    predicted.add_requests(pages);
    for (key, range) in page.by_table_and_index() {
        let read = if range.max() == 0.0 {
            *range
        } else {
            Units::between(0.0, units)
        };
        predicted.add(Access::Read, key.clone(), read, 1.0);
    }
    predicted.because(BUDGET);
    predicted
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: usize = 400 * 1024;

    #[test]
    fn a_get_of_a_known_size_is_exact() {
        let mut p = Predicted::default();
        by_key(&mut p, "T", ByKey::Get, false, Some(5000), MAX);
        by_key(&mut p, "T", ByKey::Get, true, Some(5000), MAX);
        assert_eq!(p.of("T"), Units::exact(3.0));
        assert!(p.reasons().is_empty());
    }

    #[test]
    fn an_unknown_size_is_a_range() {
        let mut p = Predicted::default();
        by_key(&mut p, "T", ByKey::Get, false, None, MAX);
        assert_eq!(p.of("T"), Units::between(0.5, 50.0));
        let mut p = Predicted::default();
        by_key(&mut p, "T", ByKey::Get, true, None, 6000);
        assert_eq!(p.of("T"), Units::between(1.0, 2.0));
        let mut p = Predicted::default();
        by_key(&mut p, "T", ByKey::Batch, true, None, MAX);
        assert_eq!(p.of("T"), Units::between(0.0, 100.0));
        let mut p = Predicted::default();
        by_key(&mut p, "T", ByKey::Transaction, false, Some(5000), MAX);
        assert_eq!(p.of("T"), Units::exact(4.0));
    }

    #[test]
    fn a_page_is_bounded_by_its_limit_or_a_megabyte() {
        let mut p = Predicted::default();
        page(&mut p, "T", Some("g"), false, Some(5), Some(1100), MAX);
        assert_eq!(p.of("T/g"), Units::between(0.0, 1.0));
        assert_eq!(p.of("T"), Units::exact(0.0));
        let mut p = Predicted::default();
        page(&mut p, "T", None, true, None, Some(1000), MAX);
        assert_eq!(p.of("T").max(), 257.0);
        let mut p = Predicted::default();
        page(&mut p, "T", None, true, Some(10), None, 2000);
        assert_eq!(p.of("T").max(), 5.0);
    }

    #[test]
    fn the_keys_a_page_finds_cost_up_to_their_items() {
        let mut p = Predicted::default();
        assert_eq!(
            keys_found(&mut p, "T", Some(250), true, Some(5000), MAX),
            250
        );
        assert_eq!(p.of("T"), Units::between(0.0, 500.0));
        let mut p = Predicted::default();
        assert_eq!(keys_found(&mut p, "T", None, false, None, MAX), PAGE_BYTES);
        assert_eq!(p.of("T").max(), 50.0 * PAGE_BYTES as f64);
        assert!(p.reasons().iter().any(|r| r.contains("limit")));
    }

    #[test]
    fn a_budgeted_page_reads_at_most_its_budget() {
        let mut one = Predicted::default();
        page(&mut one, "T", Some("g"), false, None, None, MAX);
        let p = budgeted(&one, 10.0, false);
        assert_eq!(p.of("T/g"), Units::between(0.0, 10.0));
        assert_eq!(p.of("T"), Units::exact(0.0));
        assert_eq!(p.requests(), 21);
        assert!(!p.is_exact());
        // However little one page costs, the read goes on to the next while it fits.
        let mut one = Predicted::default();
        page(&mut one, "T", None, true, Some(2), Some(100), MAX);
        let p = budgeted(&one, 10.0, true);
        assert_eq!(p.of("T"), Units::between(0.0, 10.0));
        assert_eq!(p.requests(), 11);
    }
}

//! A capacity budget for one page of a query or scan: as many DynamoDB pages as fit, each
//! sent only when its worst case fits in what is left, so the read never passes it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::observe::Tally;
use crate::value::Item;

use super::page::Fetched;

/// DynamoDB's largest item, in bytes.
pub(crate) const MAX_ITEM_BYTES: u32 = 400 * 1024;

/// A read's capacity budget and what bounds the cost of its pages.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budget {
    /// Capacity units the read may consume.
    pub units: f64,
    /// The largest item the read can meet, in bytes (as DynamoDB sizes it).
    pub max_item_bytes: u32,
    /// Whether the read is strongly consistent (a unit per 4 KB, else half).
    pub consistent: bool,
}

impl Budget {
    /// Checks the settings a builder was given, before anything is sent.
    pub(crate) fn check(&self) -> Result<()> {
        if !(self.units.is_finite() && self.units > 0.0) {
            return Err(Error::validation(format!(
                "a budget is a finite number of capacity units above 0, not {}",
                self.units
            )));
        }
        if !(1..=MAX_ITEM_BYTES).contains(&self.max_item_bytes) {
            return Err(Error::validation(format!(
                "an item holds 1 to {MAX_ITEM_BYTES} bytes, not {}",
                self.max_item_bytes
            )));
        }
        Ok(())
    }

    fn per_4kb(&self) -> f64 {
        if self.consistent {
            1.0
        } else {
            0.5
        }
    }

    /// The most one item can cost: its 4 KB blocks, each rounded up. DynamoDB rounds a
    /// page's total and DynamoDB Local each item; this bound holds for both.
    pub(crate) fn per_item(&self) -> f64 {
        f64::from(self.max_item_bytes.div_ceil(4096)) * self.per_4kb()
    }

    /// The most a page of at most `limit` items can cost (`None`: no limit, no bound).
    pub(crate) fn worst_case(&self, limit: Option<i32>) -> f64 {
        match limit {
            Some(limit) => f64::from(limit.max(0)) * self.per_item(),
            None => f64::INFINITY,
        }
    }

    /// The `Limit` of the next page, so that its worst case fits in `left` units, within
    /// the caller's own `limit`; `None` when no item fits.
    pub(crate) fn next_limit(&self, left: f64, limit: Option<i32>) -> Option<Option<i32>> {
        let items = (left / self.per_item()).floor().min(f64::from(i32::MAX)) as i32;
        let items = limit.map_or(items, |limit| items.min(limit));
        (items > 0).then_some(Some(items))
    }
}

/// The words of a meter's refusal, by which a load tells it from its other errors.
const REFUSAL: &str = "too little for the next request's items";

/// A budget shared by every request of one budgeted load (a relation tree): each request
/// reserves the most it can cost before it is sent, and gives back what it did not
/// consume when it has answered, so that the requests in flight together never pass it.
#[derive(Debug)]
pub(crate) struct Meter {
    budget: Budget,
    /// The units neither consumed nor reserved.
    left: Mutex<f64>,
    /// Whether a reservation was refused: the load stopped for the budget.
    refused: AtomicBool,
}

impl Meter {
    /// A meter of `budget`'s units, checked.
    pub(crate) fn new(budget: Budget) -> Result<Self> {
        budget.check()?;
        Ok(Self {
            left: Mutex::new(budget.units),
            budget,
            refused: AtomicBool::new(false),
        })
    }

    /// Reserves the worst case of one page of at most `want` items (`None`: as many as
    /// fit), taking at most a `share`-th of what is left when that pays for an item, so
    /// that the `share` requests of a round each get a page. Gives the page's `Limit`
    /// and the units reserved, or an error when not even one item fits.
    pub(crate) fn reserve_page(&self, want: Option<usize>, share: usize) -> Result<(i32, f64)> {
        let mut left = self.lock();
        if self.refused() {
            return Err(self.refuse(*left));
        }
        let fair = *left / share.max(1) as f64;
        let per_item = self.budget.per_item();
        let room = if fair >= per_item { fair } else { *left };
        let want = want.map(|w| i32::try_from(w).unwrap_or(i32::MAX));
        match self.budget.next_limit(room, want) {
            Some(Some(items)) => {
                let units = self.budget.worst_case(Some(items));
                *left -= units;
                Ok((items, units))
            }
            _ => Err(self.refuse(*left)),
        }
    }

    /// Reserves the worst case of reading `items` items by key, or an error when it does
    /// not fit in what is left.
    pub(crate) fn reserve_items(&self, items: usize) -> Result<f64> {
        let mut left = self.lock();
        let units = self
            .budget
            .worst_case(Some(i32::try_from(items).unwrap_or(i32::MAX)));
        if self.refused() || units > *left {
            return Err(self.refuse(*left));
        }
        *left -= units;
        Ok(units)
    }

    /// Gives back what a request reserved and did not consume (`consumed`, as DynamoDB
    /// reported it; all of it was, when it did not say). A request that consumed more
    /// (an item larger than `max_item_bytes`) takes the rest from what is left, which
    /// may then fall below 0 and refuse every later request.
    pub(crate) fn settle(&self, reserved: f64, consumed: Option<f64>) {
        let consumed = consumed.unwrap_or(reserved);
        *self.lock() += reserved - consumed;
    }

    /// Settles a request whose own tally `own` holds what it consumed, then adds that
    /// tally to `into`, the load's, if it has one.
    pub(crate) fn settle_tally(&self, reserved: f64, own: &Tally, into: Option<&Tally>) {
        self.settle(reserved, own.consumed_capacity().map(|c| c.units));
        if let Some(into) = into {
            into.add_tally(own);
        }
    }

    /// The units left, neither consumed nor reserved.
    #[cfg(test)]
    fn left(&self) -> f64 {
        *self.lock()
    }

    /// Whether a reservation was refused since the meter was made: every later one is.
    pub(crate) fn refused(&self) -> bool {
        self.refused.load(Ordering::Relaxed)
    }

    /// Whether `error` is this meter's refusal (perhaps with a relation's name before it),
    /// rather than another error of the load.
    pub(crate) fn is_refusal(&self, error: &Error) -> bool {
        self.refused() && error.message().contains(REFUSAL)
    }

    fn refuse(&self, left: f64) -> Error {
        self.refused.store(true, Ordering::Relaxed);
        Error::validation(format!(
            "the budget of {} units has {left} left, {REFUSAL} of up to {} bytes",
            self.budget.units, self.budget.max_item_bytes
        ))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, f64> {
        // A panic while the lock is held leaves a number, still meaningful.
        self.left
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Reads pages from `start` while the next one's worst case fits what is left of the
/// budget; `fetch` sends one with the given `Limit`. Gives the items read and the key to
/// continue from (`None` at the end).
pub(crate) async fn read_within<F, Fut>(
    budget: Budget,
    limit: Option<i32>,
    mut start: Option<Item>,
    mut fetch: F,
) -> Result<(Vec<Item>, Option<Item>)>
where
    F: FnMut(Option<Item>, Option<i32>) -> Fut,
    Fut: std::future::Future<Output = Result<Fetched>>,
{
    let mut left = budget.units;
    let mut items = Vec::new();
    if budget.next_limit(left, limit).is_none() {
        // Not even one item fits: an empty page would read as the end.
        return Err(Error::validation(format!(
            "a budget of {} units cannot pay for one item of up to {} bytes ({} units): \
             raise it, or bound the items with `max_item_bytes`",
            budget.units,
            budget.max_item_bytes,
            budget.worst_case(Some(1))
        )));
    }
    while let Some(page_limit) = budget.next_limit(left, limit) {
        let fetched = fetch(start.take(), page_limit).await?;
        // What DynamoDB says it consumed, or the worst case when it says nothing.
        left -= fetched
            .units
            .unwrap_or_else(|| budget.worst_case(page_limit));
        items.extend(fetched.items);
        match fetched.last_key.filter(|k| !k.is_empty()) {
            Some(key) => start = Some(key),
            None => return Ok((items, None)),
        }
    }
    Ok((items, start))
}

/// The `budget` and `max_item_bytes` setters of a query or scan builder, written once.
macro_rules! budget_setters {
    () => {
        /// Makes [`page`](Self::page) read as many DynamoDB pages as fit in `units`
        /// capacity units, sending each only when the most it can cost fits in what is
        /// left (its `Limit` cut to fit), so the read never passes the budget. The page's
        /// cursor resumes exactly after the last item read. Bound the cost of a page with
        /// [`max_item_bytes`](Self::max_item_bytes). A budget stops a read midway, so the
        /// read it makes has only `page`: set the rest first.
        pub fn budget(mut self, units: f64) -> $crate::query::Budgeted<Self> {
            self.budget = Some(units);
            $crate::query::Budgeted { read: self }
        }

        /// The largest item the read can meet, in bytes as DynamoDB sizes them (names and
        /// values; 400 KB, DynamoDB's limit, by default): how a [`budget`](Self::budget)
        /// bounds the cost of a page. An item larger than this could make a page pass the
        /// budget.
        pub fn max_item_bytes(mut self, bytes: u32) -> Self {
            self.max_item_bytes = bytes;
            self
        }
    };
}

pub(crate) use budget_setters;

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(units: f64, max_item_bytes: u32, consistent: bool) -> Budget {
        Budget {
            units,
            max_item_bytes,
            consistent,
        }
    }

    #[test]
    fn a_page_is_cut_to_what_its_worst_case_lets_through() {
        // Items up to 1 KB, eventually consistent: half a unit each at most.
        let b = budget(10.0, 1024, false);
        assert_eq!(b.next_limit(10.0, None), Some(Some(20)));
        assert_eq!(b.worst_case(Some(20)), 10.0);
        assert_eq!(b.next_limit(10.0, Some(15)), Some(Some(15)));
        assert_eq!(
            b.next_limit(0.4, None),
            None,
            "half a unit is the least an item costs"
        );
        assert_eq!(
            b.worst_case(None),
            f64::INFINITY,
            "a page without a limit has no bound"
        );
        // Items of 5 KB, strongly consistent: two blocks each.
        let b = budget(100.0, 5 * 1024, true);
        assert_eq!(b.next_limit(100.0, None), Some(Some(50)));
        // The largest items, strongly consistent: 100 units each.
        let b = budget(250.0, MAX_ITEM_BYTES, true);
        assert_eq!(b.next_limit(250.0, None), Some(Some(2)));
        assert_eq!(b.next_limit(99.0, None), None);
    }

    #[test]
    fn a_meter_shares_what_is_left_and_takes_back_what_was_not_consumed() {
        // Items up to 1 KB, eventually consistent: half a unit each at most.
        let meter = Meter::new(budget(10.0, 1024, false)).unwrap();
        // Four requests of a round: the first takes a quarter (5 items).
        assert_eq!(meter.reserve_page(None, 4).unwrap(), (5, 2.5));
        assert_eq!(meter.reserve_page(Some(2), 4).unwrap(), (2, 1.0));
        meter.settle(2.5, Some(0.5));
        assert_eq!(meter.left(), 8.5);
        meter.settle(1.0, None);
        assert_eq!(meter.left(), 8.5, "unreported: all of it was consumed");
        assert_eq!(meter.reserve_items(17).unwrap(), 8.5);
        assert!(!meter.refused());
        assert!(meter.reserve_page(None, 1).is_err());
        assert!(meter.refused());
        meter.settle(8.5, Some(1.0));
        assert!(
            meter.reserve_items(1).is_err(),
            "after a refusal, every request is refused"
        );
        let refusal = meter.reserve_items(1).unwrap_err();
        assert!(meter.is_refusal(&refusal));
        assert!(!meter.is_refusal(&Error::validation("throttled")));
        // Less than a fair share of an item: what is left, when it pays for one.
        let meter = Meter::new(budget(1.0, 1024, false)).unwrap();
        assert_eq!(meter.reserve_page(None, 8).unwrap(), (2, 1.0));
        assert!(meter.reserve_items(1).is_err());
        // An item larger than the bound: what it consumed beyond its reservation is taken
        // from what is left.
        let meter = Meter::new(budget(2.0, 1024, false)).unwrap();
        let (_, reserved) = meter.reserve_page(Some(1), 1).unwrap();
        meter.settle(reserved, Some(2.5));
        assert_eq!(meter.left(), -0.5);
        assert!(meter.reserve_items(1).is_err());
    }

    #[test]
    fn settings_are_checked() {
        for bad in [
            budget(0.0, 1024, true),
            budget(f64::NAN, 1024, true),
            budget(5.0, 0, true),
        ] {
            assert!(bad.check().unwrap_err().is_validation());
        }
        assert!(budget(5.0, MAX_ITEM_BYTES + 1, true).check().is_err());
        assert!(budget(5.0, MAX_ITEM_BYTES, false).check().is_ok());
    }
}

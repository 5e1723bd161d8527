//! One rate of capacity units per second, shared by the requests of a process that carry
//! it: scans (parallel ones included), queries, batch writes and backfills.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use crate::error::{Error, Result, ThrottlingReason};

/// A shared rate of capacity units per second. Clones share it, so one limiter given to
/// every task of a process keeps them all within it together.
///
/// A request that carries it waits, before it is sent, until the units spent so far are
/// paid for at the rate; the units it consumed (as DynamoDB reports them: it asks for
/// them) are then added. When DynamoDB throttles a request anyway, the rate is lowered,
/// by half when the table or account is over its throughput, by a tenth when only one
/// partition is hot (its key range), and it comes back by a tenth of the set rate each
/// second without throttling. It never retries a request itself: the builder's retry
/// policy does, with its bound.
///
/// ```no_run
/// # use dynorm::Model;
/// # #[derive(Model)] struct Order { #[hash_key] id: String }
/// # async fn demo(db: dynorm::Client) -> Result<(), dynorm::Error> {
/// use dynorm::observe::RateLimiter;
/// let limiter = RateLimiter::new(200.0)?;
/// // A scan and a batch writer, 200 units per second between them.
/// let orders: Vec<Order> = db.scan::<Order>().rate_limiter(&limiter).all().await?;
/// db.batch_write().put_many(&orders).rate_limiter(&limiter).send().await?;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct RateLimiter {
    state: Arc<Mutex<State>>,
}

#[derive(Debug)]
struct State {
    /// The rate it was set to.
    set: f64,
    /// The rate now: lower than `set` after throttling.
    rate: f64,
    /// When the units spent so far are paid for.
    paid_at: Instant,
    /// The last throttling, or when the rate last came back a step.
    changed: Instant,
    /// Every unit spent so far.
    spent: f64,
}

/// The lowest rate throttling brings a limiter to, as a share of its set rate.
const FLOOR: f64 = 0.05;

impl RateLimiter {
    /// A limiter of `units_per_second` capacity units (read and write units together), a
    /// finite number above 0.
    pub fn new(units_per_second: f64) -> Result<Self> {
        if !(units_per_second.is_finite() && units_per_second > 0.0) {
            return Err(Error::validation(format!(
                "a rate limiter needs a finite number of units per second above 0, not {units_per_second}"
            )));
        }
        let now = Instant::now();
        Ok(Self {
            state: Arc::new(Mutex::new(State {
                set: units_per_second,
                rate: units_per_second,
                paid_at: now,
                changed: now,
                spent: 0.0,
            })),
        })
    }

    /// The rate it keeps now, in units per second: the set rate, or less after throttling.
    pub fn units_per_second(&self) -> f64 {
        self.with(|state| {
            state.recover(Instant::now());
            state.rate
        })
    }

    /// The capacity units the requests that carry it have consumed so far, as DynamoDB
    /// reported them.
    pub fn units_spent(&self) -> f64 {
        self.with(|state| state.spent)
    }

    fn with<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        f(&mut self.state.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Waits until the units spent so far are paid for.
    pub(crate) async fn wait(&self) {
        let paid_at = self.with(|state| state.paid_at);
        tokio::time::sleep_until(paid_at).await;
    }

    /// Adds the units a request consumed.
    pub(crate) fn spend(&self, units: f64) {
        if !(units.is_finite() && units > 0.0) {
            return;
        }
        self.with(|state| {
            let now = Instant::now();
            state.recover(now);
            state.spent += units;
            let from = state.paid_at.max(now);
            state.paid_at = from + Duration::from_secs_f64(units / state.rate);
        });
    }

    /// Lowers the rate after DynamoDB throttled a request, by what it said.
    pub(crate) fn throttled(&self, reasons: &[ThrottlingReason]) {
        let hot_partition = !reasons.is_empty()
            && reasons
                .iter()
                .all(|r| r.reason.contains("KeyRangeThroughputExceeded"));
        let factor = if hot_partition { 0.9 } else { 0.5 };
        self.with(|state| {
            state.rate = (state.rate * factor).max(state.set * FLOOR);
            state.changed = Instant::now();
        });
    }
}

/// The capacity units a response says it consumed, tables and indexes together.
pub fn units(capacity: &[aws_sdk_dynamodb::types::ConsumedCapacity]) -> f64 {
    capacity.iter().filter_map(|c| c.capacity_units).sum()
}

impl State {
    /// Brings the rate back by a tenth of the set rate per second since it last changed.
    fn recover(&mut self, now: Instant) {
        if self.rate >= self.set {
            return;
        }
        let seconds = now.saturating_duration_since(self.changed).as_secs_f64();
        if seconds >= 1.0 {
            self.rate = (self.rate + self.set * 0.1 * seconds.floor()).min(self.set);
            self.changed = now;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(text: &str) -> ThrottlingReason {
        ThrottlingReason {
            reason: text.to_owned(),
            resource: None,
        }
    }

    #[test]
    fn a_rate_is_a_finite_number_above_zero() {
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(RateLimiter::new(bad).unwrap_err().is_validation());
        }
    }

    #[tokio::test(start_paused = true)]
    async fn requests_wait_for_the_units_spent_before_them() {
        let limiter = RateLimiter::new(10.0).unwrap();
        let start = Instant::now();
        limiter.wait().await;
        assert_eq!(start.elapsed(), Duration::ZERO);
        limiter.spend(5.0);
        limiter.spend(5.0);
        limiter.wait().await;
        assert_eq!(start.elapsed(), Duration::from_secs(1));
        // A clone shares the debt.
        limiter.clone().spend(20.0);
        limiter.wait().await;
        assert_eq!(start.elapsed(), Duration::from_secs(3));
        assert_eq!(limiter.units_spent(), 30.0);
    }

    #[tokio::test(start_paused = true)]
    async fn throttling_lowers_the_rate_by_its_reason_and_it_comes_back() {
        let limiter = RateLimiter::new(100.0).unwrap();
        limiter.throttled(&[reason("TableWriteProvisionedThroughputExceeded")]);
        assert_eq!(limiter.units_per_second(), 50.0);
        limiter.throttled(&[reason("TableWriteKeyRangeThroughputExceeded")]);
        assert_eq!(limiter.units_per_second(), 45.0);
        for _ in 0..10 {
            limiter.throttled(&[]);
        }
        assert_eq!(limiter.units_per_second(), 5.0, "never below a twentieth");
        tokio::time::advance(Duration::from_secs(3)).await;
        assert_eq!(limiter.units_per_second(), 35.0);
        tokio::time::advance(Duration::from_secs(30)).await;
        assert_eq!(limiter.units_per_second(), 100.0);
    }
}

//! Rounds: how a relation sends its per-parent requests, at most `concurrency` at once, a
//! round starting when the one before it has ended; and how many rounds a plan's line
//! takes for a number of parents.

use std::fmt;
use std::future::Future;
use std::num::NonZeroUsize;

use futures_util::stream::{FuturesUnordered, StreamExt};
use futures_util::FutureExt;

use crate::batch::MAX_BATCH_KEYS;
use crate::error::Result;

/// The requests of one relation in flight at once unless [`Find::concurrency`] says
/// otherwise: 100, so that a wave of up to 100 distinct parents is one round (the reasons
/// are on [`Find::concurrency`]).
///
/// [`Find::concurrency`]: super::Find::concurrency
// `NonZeroUsize::new(100)` needs an `unwrap` in a constant; 1 + 99 does not.
pub(crate) const DEFAULT_CONCURRENCY: NonZeroUsize = NonZeroUsize::MIN.saturating_add(99);

/// Sends `requests` in rounds of at most `concurrency`: every request of a round at once,
/// each round when the one before it has ended, so that a wave of `n` requests takes
/// `ceil(n / concurrency)` rounds, as [`Rounds::PerParent`] plans. The outputs are in the
/// order of `requests`; the first error to arrive ends the load once every request of its
/// round has answered, so that none is dropped in flight (a budget or a tally then counts
/// what each consumed).
///
/// A round is a `FuturesUnordered`, which polls only the requests that were woken, as the
/// `buffered` stream of hand-written code does. (`try_join_all` polls every request of a
/// round of up to 30 each time any one of them is woken: with 20 requests in flight, 100 to
/// 150 thousand more instructions per load in the relations benchmark.)
pub(crate) async fn in_rounds<T, F>(requests: Vec<F>, concurrency: NonZeroUsize) -> Result<Vec<T>>
where
    F: Future<Output = Result<T>>,
{
    let mut outputs = Vec::with_capacity(requests.len());
    let mut requests = requests.into_iter().peekable();
    while requests.peek().is_some() {
        let round: FuturesUnordered<_> = requests
            .by_ref()
            .take(concurrency.get())
            .enumerate()
            .map(|(at, request)| request.map(move |output| output.map(|output| (at, output))))
            .collect();
        let mut arrived: Vec<Option<T>> =
            std::iter::repeat_with(|| None).take(round.len()).collect();
        let mut round = round;
        let mut failed = None;
        while let Some(answer) = round.next().await {
            match answer {
                Ok((at, output)) => {
                    if let Some(slot) = arrived.get_mut(at) {
                        *slot = Some(output);
                    }
                }
                Err(error) => {
                    failed.get_or_insert(error);
                }
            }
        }
        if let Some(error) = failed {
            return Err(error);
        }
        // Every request of the round has answered once: each slot holds its output.
        outputs.extend(arrived.into_iter().flatten());
    }
    Ok(outputs)
}

/// How many sequential rounds one request of a [`LoadPlan`](super::LoadPlan) takes, as a
/// function of the number of distinct parents its relation has: requests of one round are
/// in flight together, and a round starts when the one before it has ended. A read of more
/// than one page (more than 1 MB, or a partition larger than that) takes one more round
/// for each further page, and a `BatchGetItem` whose keys come back unprocessed one more
/// for each retry; the counts here are for reads of one page that are answered whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rounds {
    /// One request, whatever the number of parents: the roots' Query, or the one Scan of
    /// an `allow_scan` relation. One round (none for a relation of no parents).
    One,
    /// One request per distinct parent, `concurrency` at a time:
    /// `ceil(parents / concurrency)` rounds.
    PerParent {
        /// The requests in flight at once.
        concurrency: u32,
    },
    /// One `BatchGetItem` per 100 distinct parents, `concurrency` at a time:
    /// `ceil(ceil(parents / 100) / concurrency)` rounds. The batch reader starts a request
    /// as soon as another ends rather than in rounds, so beyond one round (more than
    /// `100 * concurrency` parents) this is the fewest the load can take.
    PerHundredParents {
        /// The requests in flight at once.
        concurrency: u32,
    },
}

impl Rounds {
    /// The rounds this request takes for `parents` distinct parents. A relation of no
    /// parents sends nothing: 0 rounds.
    pub(crate) fn for_parents(self, parents: usize) -> usize {
        match self {
            Rounds::One => usize::from(parents > 0),
            Rounds::PerParent { concurrency } => parents.div_ceil(widen(concurrency).max(1)),
            Rounds::PerHundredParents { concurrency } => parents
                .div_ceil(MAX_BATCH_KEYS)
                .div_ceil(widen(concurrency).max(1)),
        }
    }

    /// The requests this takes for `parents` distinct parents (each of a query's pages
    /// beyond its first is one more).
    pub(crate) fn requests_for(self, parents: usize) -> usize {
        match self {
            Rounds::One => usize::from(parents > 0),
            Rounds::PerParent { .. } => parents,
            Rounds::PerHundredParents { .. } => parents.div_ceil(MAX_BATCH_KEYS),
        }
    }
}

impl fmt::Display for Rounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let per = |f: &mut fmt::Formatter<'_>, parents: usize| match parents {
            1 => write!(f, "one round per distinct parent"),
            n => write!(f, "one round per {n} distinct parents"),
        };
        match *self {
            Rounds::One => write!(f, "one round"),
            Rounds::PerParent { concurrency } => per(f, widen(concurrency)),
            Rounds::PerHundredParents { concurrency } => {
                per(f, widen(concurrency).saturating_mul(MAX_BATCH_KEYS))
            }
        }
    }
}

/// A count the API gives as a `u32`, as the code counts it.
pub(crate) fn widen(count: u32) -> usize {
    usize::try_from(count).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_are_the_ceiling_of_parents_over_concurrency() {
        let eight = Rounds::PerParent { concurrency: 8 };
        assert_eq!(eight.for_parents(0), 0);
        assert_eq!(eight.for_parents(1), 1);
        assert_eq!(eight.for_parents(8), 1);
        assert_eq!(eight.for_parents(20), 3);
        let default = Rounds::PerParent {
            concurrency: u32::try_from(DEFAULT_CONCURRENCY.get()).unwrap(),
        };
        assert_eq!(
            default.for_parents(100),
            1,
            "a wave of 100 parents is one round"
        );
        assert_eq!(default.for_parents(101), 2);
        let batch = Rounds::PerHundredParents { concurrency: 2 };
        assert_eq!(batch.for_parents(200), 1);
        assert_eq!(batch.for_parents(201), 2);
        assert_eq!(Rounds::One.for_parents(5000), 1);
        assert_eq!(Rounds::One.for_parents(0), 0);
        assert_eq!(eight.to_string(), "one round per 8 distinct parents");
        assert_eq!(batch.to_string(), "one round per 200 distinct parents");
    }

    /// A request that answers `at` after yielding `yields` times, or fails.
    async fn request(at: usize, yields: usize, fails: bool) -> Result<usize> {
        for _ in 0..yields {
            tokio::task::yield_now().await;
        }
        if fails {
            return Err(crate::error::Error::validation(format!(
                "request {at} failed"
            )));
        }
        Ok(at)
    }

    #[tokio::test]
    async fn outputs_keep_the_order_of_the_requests_and_the_first_error_ends_the_load() {
        let four = NonZeroUsize::new(4).unwrap();
        // The later a request, the sooner it answers.
        let requests: Vec<_> = (0..10).map(|at| request(at, 10 - at, false)).collect();
        let outputs = in_rounds(requests, four).await.unwrap();
        assert_eq!(outputs, (0..10).collect::<Vec<_>>());
        // Request 5 fails first in time, though request 4 (which fails later) comes first.
        let requests: Vec<_> = (0..8)
            .map(|at| match at {
                4 => request(at, 50, true),
                5 => request(at, 1, true),
                _ => request(at, 2, false),
            })
            .collect();
        let error = in_rounds(requests, four).await.unwrap_err();
        assert!(error.to_string().contains("request 5 failed"), "{error}");
        assert!(
            in_rounds(Vec::<std::future::Ready<Result<usize>>>::new(), four)
                .await
                .unwrap()
                .is_empty()
        );
    }
}

//! The plan of a load: its waves, each request of a wave in words, and the rounds each
//! takes with the load's concurrency.

use std::fmt;
use std::num::NonZeroUsize;

use super::rounds::Rounds;

/// The requests a find sends, wave by wave, before anything is sent. Requests of one wave
/// go out together; a wave starts when the one before it has ended. Within a wave, each
/// relation sends its requests in rounds of at most [`concurrency`](Self::concurrency),
/// and [`rounds`](Self::rounds) says how many rounds each takes.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct LoadPlan {
    /// Each wave's requests, in words.
    pub waves: Vec<Vec<String>>,
    /// The rounds of each request of [`waves`](Self::waves), in the same places.
    pub rounds: Vec<Vec<Rounds>>,
    /// The requests of one relation in flight at once: the find's
    /// [`concurrency`](super::Find::concurrency).
    pub concurrency: usize,
}

impl LoadPlan {
    /// The rounds wave `wave` takes (0 is the roots' wave, one round) when each of its
    /// relations has `parents` distinct parents: the most any of its requests takes, since
    /// the relations of one wave run side by side. 0 for a wave the plan does not have.
    pub fn wave_rounds(&self, wave: usize, parents: usize) -> usize {
        let parents = if wave == 0 { 1 } else { parents };
        self.rounds.get(wave).map_or(0, |requests| {
            requests
                .iter()
                .map(|r| r.for_parents(parents))
                .max()
                .unwrap_or(0)
        })
    }

    /// The rounds of the whole load when no relation has more than `parents` distinct
    /// parents: the roots' round, then each wave's, one after the other. The number of
    /// parents is known only once the wave before has been read, so this is a bound:
    /// exact when every relation has `parents`, and more than the load takes when a
    /// branch of the tree is shallower than another and runs beside its deeper waves.
    pub fn total_rounds(&self, parents: usize) -> usize {
        (0..self.rounds.len())
            .map(|wave| self.wave_rounds(wave, parents))
            .sum()
    }
}

impl LoadPlan {
    /// The requests of the whole load when no relation has more than `parents` distinct
    /// parents: the sum of every request's (the roots' Query counts one, and each page
    /// beyond a query's first one more), a bound in the sense of
    /// [`total_rounds`](Self::total_rounds).
    pub fn total_requests(&self, parents: usize) -> usize {
        self.rounds
            .iter()
            .enumerate()
            .flat_map(|(wave, requests)| {
                let parents = if wave == 0 { 1 } else { parents };
                requests.iter().map(move |r| r.requests_for(parents))
            })
            .sum()
    }
}

impl fmt::Display for LoadPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, wave) in self.waves.iter().enumerate() {
            writeln!(f, "wave {}:", i + 1)?;
            for request in wave {
                writeln!(f, "  {request}")?;
            }
        }
        Ok(())
    }
}

/// A plan being written: each wave's requests, in words and rounds, and the concurrency
/// they are sent with. Not a public API: the loaders write into it.
#[doc(hidden)]
pub struct Waves {
    lines: Vec<Vec<(String, Rounds)>>,
    concurrency: NonZeroUsize,
}

impl Waves {
    /// No wave yet.
    pub(crate) fn new(concurrency: NonZeroUsize) -> Self {
        Self {
            lines: Vec::new(),
            concurrency,
        }
    }

    /// The requests of one relation in flight at once.
    pub(crate) fn concurrency(&self) -> NonZeroUsize {
        self.concurrency
    }

    /// The rounds of one request per distinct parent, with this plan's concurrency.
    pub(crate) fn per_parent(&self) -> Rounds {
        Rounds::PerParent {
            concurrency: self.concurrency.get(),
        }
    }

    /// Adds a request to wave `wave`, with its rounds after its words.
    pub(crate) fn push(&mut self, wave: usize, text: String, rounds: Rounds) {
        while self.lines.len() <= wave {
            self.lines.push(Vec::new());
        }
        self.lines[wave].push((format!("{text}: {rounds}"), rounds));
    }

    /// The plan, without the waves where nothing is sent.
    pub(crate) fn finish(self) -> LoadPlan {
        let (waves, rounds) = self
            .lines
            .into_iter()
            .filter(|wave| !wave.is_empty())
            .map(|wave| wave.into_iter().unzip())
            .unzip();
        LoadPlan {
            waves,
            rounds,
            concurrency: self.concurrency.get(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wave_takes_the_rounds_of_its_slowest_request_and_waves_add_up() {
        let mut waves = Waves::new(NonZeroUsize::MIN.saturating_add(7));
        waves.push(0, "roots".into(), Rounds::One);
        // Wave 1 sends nothing (its relation came with the roots); wave 2 has two relations.
        let per_parent = waves.per_parent();
        waves.push(2, "comments".into(), per_parent);
        waves.push(
            2,
            "author".into(),
            Rounds::PerHundredParents { concurrency: 8 },
        );
        let plan = waves.finish();
        assert_eq!(plan.waves.len(), 2, "the empty wave is left out");
        assert_eq!(
            plan.waves[1][0],
            "comments: one round per 8 distinct parents"
        );
        assert_eq!(plan.concurrency, 8);
        assert_eq!(plan.wave_rounds(0, 500), 1, "the roots are one round");
        assert_eq!(plan.wave_rounds(1, 20), 3);
        assert_eq!(plan.wave_rounds(1, 0), 0);
        assert_eq!(plan.wave_rounds(2, 20), 0, "no such wave");
        assert_eq!(plan.total_rounds(20), 1 + 3);
        assert_eq!(plan.total_rounds(0), 1);
    }
}

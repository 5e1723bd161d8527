//! The plan of a load: its waves, each request of a wave in words, and the rounds each
//! takes with the load's concurrency.

use std::fmt;
use std::num::NonZeroUsize;

use super::rounds::{widen, Rounds};
use crate::client::Client;
use crate::observe::reads;
use crate::observe::Predicted;
use crate::schema::Schema;

const PARENTS: &str = "a relation's requests depend on the distinct parents the wave before \
     finds: predicted for the number of parents given";
const MORE_PAGES: &str = "a Query or Scan that reads more than one page (1 MB) costs as much \
     again for each further page";

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
    pub concurrency: u32,
    /// What each request reads, in the places of [`rounds`](Self::rounds).
    reads: Vec<Vec<Reads>>,
}

/// What one request of a plan reads, to predict its capacity.
#[derive(Clone, Debug)]
pub(crate) enum Reads {
    /// Query or Scan pages of `table`, through `index`, of at most `limit` items each,
    /// eventually consistent, as every read of a load is.
    Pages {
        table: String,
        index: Option<&'static str>,
        limit: Option<u32>,
        /// The largest item the table holds, in bytes.
        bound: usize,
    },
    /// One item per parent, by key, in `BatchGetItem`s of `table`.
    Keys {
        table: String,
        /// The largest item the table holds, in bytes.
        bound: usize,
    },
}

impl LoadPlan {
    /// The rounds wave `wave` takes (0 is the roots' wave, one round) when each of its
    /// relations has `parents` distinct parents: the most any of its requests takes, since
    /// the relations of one wave run side by side. 0 for a wave the plan does not have.
    pub fn wave_rounds(&self, wave: u32, parents: u32) -> u32 {
        narrow(self.rounds_of(widen(wave), widen(parents)))
    }

    fn rounds_of(&self, wave: usize, parents: usize) -> usize {
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
    pub fn total_rounds(&self, parents: u32) -> u32 {
        narrow(
            (0..self.rounds.len())
                .map(|wave| self.rounds_of(wave, widen(parents)))
                .sum(),
        )
    }
}

impl LoadPlan {
    /// The requests of the whole load when no relation has more than `parents` distinct
    /// parents: the sum of every request's (the roots' Query counts one, and each page
    /// beyond a query's first one more), a bound in the sense of
    /// [`total_rounds`](Self::total_rounds).
    pub fn total_requests(&self, parents: u32) -> u32 {
        let parents = widen(parents);
        let requests = self
            .rounds
            .iter()
            .enumerate()
            .flat_map(|(wave, requests)| {
                let parents = if wave == 0 { 1 } else { parents };
                requests.iter().map(move |r| r.requests_for(parents))
            })
            .sum();
        narrow(requests)
    }
}

impl LoadPlan {
    /// The capacity the load would consume when no relation has more than `parents`
    /// distinct parents, predicted without sending anything: each request of
    /// [`total_requests`](Self::total_requests) bounded as its own `predict` bounds it (a
    /// Query page by its limit or 1 MB of the largest items, from 0; a key read from
    /// nothing to the largest item). A bound in the sense of
    /// [`total_rounds`](Self::total_rounds), for first pages.
    pub fn predict(&self, parents: u32) -> Predicted {
        self.predicted(widen(parents), None)
    }

    fn predicted(&self, parents: usize, size: Option<usize>) -> Predicted {
        let mut predicted = Predicted::default();
        for (wave, (rounds, reads)) in self.rounds.iter().zip(&self.reads).enumerate() {
            let parents = if wave == 0 { 1 } else { parents };
            for (rounds, read) in rounds.iter().zip(reads) {
                let requests = rounds.requests_for(parents);
                predicted.add_requests(requests);
                match read {
                    Reads::Pages {
                        table,
                        index,
                        limit,
                        bound,
                    } => {
                        for _ in 0..requests {
                            let (index, limit) = (*index, *limit);
                            reads::page(&mut predicted, table, index, false, limit, size, *bound);
                        }
                        predicted.because(MORE_PAGES);
                    }
                    Reads::Keys { table, bound } => {
                        let parents = Some(parents);
                        reads::keys_found(&mut predicted, table, parents, false, size, *bound);
                    }
                }
            }
        }
        if self.rounds.len() > 1 {
            predicted.because(PARENTS);
        }
        predicted
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

/// A plan being written: each wave's requests, in words, rounds and reads, and the
/// concurrency they are sent with. Not a public API: the loaders write into it.
#[doc(hidden)]
pub struct Waves {
    lines: Vec<Vec<(String, Rounds, Reads)>>,
    concurrency: NonZeroUsize,
    client: Client,
    budgeted: bool,
}

impl Waves {
    /// No wave yet, for a load by `client` (which names the tables), with a budget or not.
    pub(crate) fn new(concurrency: NonZeroUsize, client: &Client, budgeted: bool) -> Self {
        Self {
            lines: Vec::new(),
            concurrency,
            client: client.clone(),
            budgeted,
        }
    }

    /// Whether the load has a budget: every relation is then read on its own, in pages
    /// cut to fit.
    pub(crate) fn budgeted(&self) -> bool {
        self.budgeted
    }

    /// What pages of `schema`'s table, through `index`, read.
    pub(crate) fn pages(
        &self,
        schema: &Schema,
        index: Option<&'static str>,
        limit: Option<usize>,
    ) -> Reads {
        Reads::Pages {
            table: self.client.table_name_of(schema),
            index,
            limit: limit.map(|l| u32::try_from(l).unwrap_or(u32::MAX)),
            bound: schema.item_bound(),
        }
    }

    /// What key reads of `schema`'s table read.
    pub(crate) fn keys(&self, schema: &Schema) -> Reads {
        Reads::Keys {
            table: self.client.table_name_of(schema),
            bound: schema.item_bound(),
        }
    }

    /// The requests of one relation in flight at once.
    pub(crate) fn concurrency(&self) -> NonZeroUsize {
        self.concurrency
    }

    /// The rounds of one request per distinct parent, with this plan's concurrency.
    pub(crate) fn per_parent(&self) -> Rounds {
        Rounds::PerParent {
            concurrency: narrow(self.concurrency.get()),
        }
    }

    /// Adds a request to wave `wave`, with its rounds after its words, and what it reads.
    pub(crate) fn push(&mut self, wave: usize, text: String, rounds: Rounds, reads: Reads) {
        while self.lines.len() <= wave {
            self.lines.push(Vec::new());
        }
        self.lines[wave].push((format!("{text}: {rounds}"), rounds, reads));
    }

    /// The plan, without the waves where nothing is sent.
    pub(crate) fn finish(self) -> LoadPlan {
        let mut plan = LoadPlan {
            waves: Vec::new(),
            rounds: Vec::new(),
            concurrency: narrow(self.concurrency.get()),
            reads: Vec::new(),
        };
        for wave in self.lines.into_iter().filter(|wave| !wave.is_empty()) {
            let (mut texts, mut rounds, mut reads) = (Vec::new(), Vec::new(), Vec::new());
            for (text, r, read) in wave {
                texts.push(text);
                rounds.push(r);
                reads.push(read);
            }
            plan.waves.push(texts);
            plan.rounds.push(rounds);
            plan.reads.push(reads);
        }
        plan
    }
}

/// A count as the index it is used as.
/// A count the code keeps as a `usize`, as the API gives it: `u32::MAX` past that.
fn narrow(count: usize) -> u32 {
    u32::try_from(count).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::Units;

    #[test]
    fn a_wave_takes_the_rounds_of_its_slowest_request_and_waves_add_up() {
        let client = Client::offline();
        let mut waves = Waves::new(NonZeroUsize::MIN.saturating_add(7), &client, false);
        let pages = || Reads::Pages {
            table: "T".into(),
            index: None,
            limit: None,
            bound: 400 * 1024,
        };
        waves.push(0, "roots".into(), Rounds::One, pages());
        // Wave 1 sends nothing (its relation came with the roots); wave 2 has two relations.
        let per_parent = waves.per_parent();
        waves.push(2, "comments".into(), per_parent, pages());
        waves.push(
            2,
            "author".into(),
            Rounds::PerHundredParents { concurrency: 8 },
            Reads::Keys {
                table: "U".into(),
                bound: 400 * 1024,
            },
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
        // The roots' page, 20 comment pages and 20 author keys of items of 1 KB, eventually
        // consistent: each page up to 1 MB and one more item, each key up to half a unit.
        let predicted = plan.predicted(20, Some(1024));
        assert_eq!(predicted.requests(), 1 + 20 + 1);
        assert_eq!(predicted.of("T").max(), 21.0 * 128.5);
        assert_eq!(predicted.of("U"), Units::between(0.0, 10.0));
        assert_eq!(predicted.of("T").min(), 0.0);
    }
}

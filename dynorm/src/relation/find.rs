//! `find`: the roots of a tree, their access path, and the waves.

use std::marker::PhantomData;
use std::num::NonZeroUsize;

use aws_sdk_dynamodb::types::AttributeValue;
use futures_util::stream::TryStreamExt;

use super::load::sealed::{LoadInput, Sending};
use super::load::Load;
use super::plan::{LoadPlan, Waves};
use super::related::reporting;
use super::rounds::{Rounds, DEFAULT_CONCURRENCY};
use super::{access, shared};
use crate::batch::checked_concurrency;
use crate::client::Client;
use crate::error::{Error, Result};
use crate::expr::{Comparison, Condition, Conjunction, Expr};
use crate::observe::{report_setters, Reporting, Tally};
use crate::query::budget::{Budget, Meter, MAX_ITEM_BYTES};
use crate::query::{paged, Budgeted, Page, Query};
use crate::schema::{IndexKind, IndexSchema, Model};
use crate::value::Item;
use crate::Request;

const OPERATION: &str = "find";

impl Client {
    /// The `M`s that match the conditions given to [`matching`](Find::matching), with the
    /// relations given to [`with`](Find::with): read them with [`all`](Find::all) or
    /// [`first`](Find::first).
    pub fn find<M: Model + Clone>(&self) -> Find<M> {
        Find {
            client: self.clone(),
            conditions: Conjunction::default(),
            loader: (),
            concurrency: u32::try_from(DEFAULT_CONCURRENCY.get()).unwrap_or(u32::MAX),
            budget: None,
            max_item_bytes: MAX_ITEM_BYTES,
            report: Reporting::default(),
            model: PhantomData,
        }
    }
}

/// A pending read of models with their relations. Build it with [`Client::find`].
#[must_use = "a find does nothing until it is sent"]
pub struct Find<M: Model, L = ()> {
    client: Client,
    conditions: Conjunction,
    loader: L,
    /// Checked when the find is planned or sent.
    concurrency: u32,
    budget: Option<f64>,
    max_item_bytes: u32,
    report: Reporting,
    model: PhantomData<fn() -> M>,
}

/// Where the roots are read from.
enum Root {
    /// A templated model: its table or index, with the hash key rendered from equalities.
    Templated {
        index: IndexSchema,
        hash: Vec<(&'static str, AttributeValue)>,
        /// The equalities the hash key was rendered from, by attribute.
        values: Item,
        /// Whether every condition is one of those equalities.
        only_key: bool,
    },
    /// A model with plain key fields: `query`'s own index selection.
    Plain,
}

impl<M: Model + Clone, L: Load<M>> Find<M, L> {
    /// Sends the requests as [`all`](Self::all) does, and returns the first root with its
    /// relations; `None` when no root matches.
    pub async fn first(self) -> Result<Option<L::Joined>> {
        Ok(self.all().await?.into_iter().next())
    }

    /// A condition on the roots. Equalities choose the table or index by `query`'s rules
    /// (for key templates: the first global, then local index, then the table whose hash
    /// key is built from attributes with an equality); the rest filter.
    pub fn matching(mut self, condition: Condition<M>) -> Self {
        self.conditions.push(condition);
        self
    }

    /// The relations to load with each root: one, or a tuple of several.
    pub fn with<W: Load<M>>(self, loader: W) -> Find<M, W> {
        Find {
            client: self.client,
            conditions: self.conditions,
            loader,
            concurrency: self.concurrency,
            budget: self.budget,
            max_item_bytes: self.max_item_bytes,
            report: self.report,
            model: PhantomData,
        }
    }

    /// Sets the requests of one relation in flight at once (at least 1; 100 by default).
    ///
    /// Each relation sends its per-parent requests in rounds of at most `concurrency`, a
    /// round starting when the one before it has ended, so that a wave of `n` distinct
    /// parents takes `ceil(n / concurrency)` rounds; [`plan`](Self::plan) counts them.
    /// Relations of one level run side by side, each in rounds of its own.
    ///
    /// The default, 100, sends a wave of up to 100 distinct parents in one round, as one
    /// `BatchGetItem` reads 100 keys. Each request reads its own partition, so a round
    /// spreads over partitions rather than loading one; a Query that reads up to 4 KB
    /// costs half a read unit (eventually consistent), so a round of 100 such Queries
    /// costs 50, within an on-demand table's limits and a provisioned table's burst
    /// capacity. Lower it for a table provisioned for fewer read units per second than a
    /// round costs; parents with many related items cost more (up to 128 units per 1 MB
    /// page). 0 is refused before anything is sent.
    pub fn concurrency(mut self, concurrency: u32) -> Self {
        self.concurrency = concurrency;
        self
    }

    /// The concurrency, checked.
    fn checked_concurrency(&self) -> Result<NonZeroUsize> {
        checked_concurrency(self.concurrency).map_err(Self::fail)
    }

    fn fail(e: Error) -> Error {
        e.with_model(M::SCHEMA.model).with_operation(OPERATION)
    }

    /// The equalities among the conditions, by attribute.
    fn equalities(&self) -> Item {
        self.conditions
            .parts()
            .iter()
            .filter_map(|part| match part {
                Expr::Compare(name, Comparison::Eq, value) => {
                    Some(((*name).to_owned(), value.clone()))
                }
                _ => None,
            })
            .collect()
    }

    /// Chooses where the roots come from.
    fn root(&self) -> Result<Root> {
        if let Some(error) = self.conditions.first_error() {
            return Err(Self::fail(error.clone()));
        }
        let Some(entity) = M::SCHEMA.entity else {
            return Ok(Root::Plain);
        };
        let values = self.equalities();
        let references: Vec<&str> = values.keys().map(String::as_str).collect();
        let mut candidates: Vec<IndexSchema> = M::SCHEMA
            .indexes
            .iter()
            .filter(|i| i.kind == IndexKind::Global)
            .chain(
                M::SCHEMA
                    .indexes
                    .iter()
                    .filter(|i| i.kind == IndexKind::Local),
            )
            .copied()
            .collect();
        candidates.push(M::SCHEMA.table_index());
        let covers = |index: &IndexSchema, hash: bool| {
            let name = (index.kind != IndexKind::Table).then_some(index.name);
            let mut templates = entity
                .keys
                .iter()
                .filter(|t| t.index == name && t.is_hash == hash)
                .peekable();
            templates.peek().is_some()
                && templates.all(|t| t.fields().all(|f| references.contains(&f)))
        };
        let fitting: Vec<IndexSchema> =
            candidates.into_iter().filter(|i| covers(i, true)).collect();
        let chosen = fitting
            .iter()
            .find(|i| covers(i, false))
            .or_else(|| fitting.iter().find(|i| i.kind == IndexKind::Table))
            .or_else(|| fitting.first())
            .copied()
            .ok_or_else(|| {
                Self::fail(Error::validation(
                    "no table or index hash key is built from the attributes with an equality",
                ))
            })?;
        let hash = access::hash_values(&M::SCHEMA, &chosen, &values).map_err(Self::fail)?;
        let sources: Vec<&str> = entity
            .keys
            .iter()
            .filter(|t| {
                t.is_hash && t.index == (chosen.kind != IndexKind::Table).then_some(chosen.name)
            })
            .flat_map(|t| t.fields())
            .collect();
        let only_key = self.conditions.parts().iter().all(
            |part| matches!(part, Expr::Compare(name, Comparison::Eq, _) if sources.contains(name)),
        );
        Ok(Root::Templated {
            index: chosen,
            hash,
            values,
            only_key,
        })
    }

    /// Which relations of the loader share the roots' partition (one entry per candidate),
    /// when the roots come from one partition, with no other condition, whole, and the
    /// find has no budget (whose pages are cut to fit).
    fn shared(&self, root: &Root) -> Option<Vec<bool>> {
        if self.budget.is_some() {
            return None;
        }
        let Root::Templated {
            index,
            hash,
            values,
            only_key: true,
        } = root
        else {
            return None;
        };
        if !index.projects_all(&M::SCHEMA) {
            return None;
        }
        let slots: Vec<bool> = self
            .loader
            .candidates()
            .iter()
            .map(|c| {
                c.as_ref()
                    .is_some_and(|c| shared::in_partition(c, &M::SCHEMA, index, hash, values))
            })
            .collect();
        slots.contains(&true).then_some(slots)
    }

    /// The waves and requests, and the rounds each takes with the find's
    /// [`concurrency`](Self::concurrency), without sending anything.
    pub fn plan(&self) -> Result<LoadPlan> {
        let mut waves = Waves::new(
            self.checked_concurrency()?,
            &self.client,
            self.budget.is_some(),
        );
        let root = self.root()?;
        let shared = self.shared(&root);
        let (line, root_index) = match (&root, &shared) {
            (Root::Templated { index, hash, .. }, Some(slots)) => {
                let with: Vec<String> = self
                    .loader
                    .candidates()
                    .iter()
                    .zip(slots)
                    .filter_map(|(c, &slot)| c.filter(|_| slot))
                    .map(|c| {
                        format!(
                            "`{}.{}` ({})",
                            M::SCHEMA.model,
                            c.relation.name,
                            c.schema.model
                        )
                    })
                    .collect();
                let line = format!(
                    "`{}` and {}: one Query on `{}` where {}, one partition",
                    M::SCHEMA.model,
                    with.join(" and "),
                    index.label(),
                    show(hash)
                );
                (line, index.request_name())
            }
            (Root::Templated { index, hash, .. }, None) => {
                let line = format!(
                    "`{}`: Query on `{}` where {}",
                    M::SCHEMA.model,
                    index.label(),
                    show(hash)
                );
                (line, index.request_name())
            }
            (Root::Plain, _) => {
                let plan = self.roots_query(Root::Plain).plan()?;
                let line = format!("`{}`: Query on `{}`", M::SCHEMA.model, plan.index.label());
                (line, plan.index.request_name())
            }
        };
        let reads = waves.pages(&M::SCHEMA, root_index, None);
        waves.push(0, line, Rounds::One, reads);
        let slots = shared.unwrap_or_else(|| vec![false; self.loader.candidates().len()]);
        self.loader.plan(1, &mut waves, &slots)?;
        Ok(waves.finish())
    }

    /// Sends the requests, wave by wave, and returns every root with its relations. A
    /// mistake [`plan`](Self::plan) finds is an error before anything is sent.
    pub async fn all(self) -> Result<Vec<L::Joined>> {
        self.plan()?;
        let concurrency = self.checked_concurrency()?;
        let sending = Sending {
            db: &self.client,
            concurrency,
            report: &self.report,
            meter: None,
            siblings: 1,
        };
        let root = self.root()?;
        let (roots, prefetched) = match (self.shared(&root), root) {
            (
                Some(slots),
                Root::Templated {
                    index,
                    hash,
                    values,
                    ..
                },
            ) => {
                let candidates = self.loader.candidates();
                let split = shared::read_partitions(
                    sending,
                    &M::SCHEMA,
                    &index,
                    vec![hash],
                    &candidates,
                    &slots,
                )
                .await
                .map_err(Self::fail)?
                .into_iter()
                .next();
                let (own, prefetched) = match split {
                    Some(split) => (split.own, split.carried),
                    None => (Vec::new(), vec![None; candidates.len()]),
                };
                let roots = own
                    .into_iter()
                    .filter(|item| values.iter().all(|(k, v)| item.get(k) == Some(v)))
                    .map(M::from_item)
                    .collect::<Result<Vec<M>>>()
                    .map_err(Self::fail)?;
                (roots, prefetched)
            }
            (_, root) => {
                let roots: Vec<M> = self.roots_query(root).stream().try_collect().await?;
                (roots, vec![None; self.loader.candidates().len()])
            }
        };
        let outputs = self
            .loader
            .load_with(LoadInput {
                sending,
                parents: &roots,
                prefetched,
            })
            .await?;
        Ok(roots
            .into_iter()
            .zip(outputs)
            .map(|(r, o)| L::join(r, o))
            .collect())
    }

    /// The Query that reads the roots, reporting as the find does.
    fn roots_query(&self, root: Root) -> Query<M, M> {
        let query = match root {
            Root::Templated { index, hash, .. } => {
                Query::<M, M>::raw(&self.client, index, hash).filter_all(self.conditions.clone())
            }
            Root::Plain => Query::<M, M>::auto(&self.client).matching_all(self.conditions.clone()),
        };
        reporting(query, self.report.tally.as_ref())
    }

    /// Makes [`page`](Self::page) load as many roots, each with its whole tree, as fit in
    /// `units` capacity units, and stop before it would pass them: every request reserves
    /// the most it can cost before it is sent (a Query page's `Limit` cut to fit, a
    /// `BatchGetItem` its keys' largest items) and gives back what it did not consume, so
    /// the requests in flight together never pass the budget. Bound the cost of an item
    /// with [`max_item_bytes`](Self::max_item_bytes).
    ///
    /// Roots are read in pages of 1, 2, 4, ... roots, up to the
    /// [`concurrency`](Self::concurrency), each page's trees loaded before the next page is
    /// read. When the budget runs out within a page's trees, that page's roots are left
    /// for the next call: the cursor resumes exactly after the last root returned with
    /// its whole tree, so no root is lost or repeated, though the units spent on the
    /// unfinished trees are spent again. A budget too small for the first root's tree is
    /// an error. With a budget, every relation is read with its own requests (none comes
    /// with its parents' partition) and a relation read by Scan is refused. A budget stops a
    /// find midway, so the read it makes has only `page` (and `plan`): set the rest first.
    pub fn budget(mut self, units: f64) -> Budgeted<Self> {
        self.budget = Some(units);
        Budgeted { read: self }
    }

    /// The largest item the find can meet, roots and related items, in bytes as DynamoDB
    /// sizes them (400 KB, DynamoDB's limit, by default): how a [`budget`](Self::budget)
    /// bounds each request. An item larger than this could make a request pass the budget.
    pub fn max_item_bytes(mut self, bytes: u32) -> Self {
        self.max_item_bytes = bytes;
        self
    }

    report_setters!(report);

    /// Roots after `cursor` (from a previous page) or from the beginning, each with its
    /// whole tree. With a [`budget`](Self::budget), as many as fit in it; without one, one
    /// DynamoDB page of roots. The cursor is `None` once every root has been read.
    ///
    /// A page reads each relation with its own requests, none with its parents' partition:
    /// [`plan`](Self::plan) describes them so for a find with a budget, and describes
    /// [`all`](Self::all) and [`first`](Self::first) otherwise.
    pub async fn page(self, cursor: Option<&str>) -> Result<Page<L::Joined>> {
        self.plan()?;
        let concurrency = self.checked_concurrency()?;
        let meter = match self.budget {
            Some(units) => Some(
                Meter::new(Budget {
                    units,
                    max_item_bytes: self.max_item_bytes,
                    consistent: false,
                })
                .map_err(Self::fail)?,
            ),
            None => None,
        };
        let sending = Sending {
            db: &self.client,
            concurrency,
            report: &self.report,
            meter: meter.as_ref(),
            siblings: 1,
        };
        let query = self.roots_query(self.root()?);
        let mut cursor = cursor.map(str::to_owned);
        let mut out = Vec::new();
        let mut roots_per_page = 1;
        // Whether a page of roots was read whole, with its trees: the cursor has moved.
        let mut moved = false;
        loop {
            let page = match self
                .roots_page(&query, cursor.as_deref(), roots_per_page, sending)
                .await
            {
                Err(e) if meter.as_ref().is_some_and(|m| m.is_refusal(&e)) => {
                    return Self::stopped(e, moved, out, cursor);
                }
                page => page?,
            };
            let loaded = self
                .loader
                .load_with(LoadInput {
                    sending,
                    parents: &page.items,
                    prefetched: vec![None; self.loader.candidates().len()],
                })
                .await;
            let outputs = match loaded {
                Err(e) if meter.as_ref().is_some_and(|m| m.is_refusal(&e)) => {
                    return Self::stopped(e, moved, out, cursor);
                }
                loaded => loaded?,
            };
            out.extend(
                page.items
                    .into_iter()
                    .zip(outputs)
                    .map(|(r, o)| L::join(r, o)),
            );
            (cursor, moved) = (page.cursor, true);
            if cursor.is_none() || meter.is_none() {
                return Ok(Page { items: out, cursor });
            }
            roots_per_page = (roots_per_page * 2).min(concurrency.get());
        }
    }

    /// One page of at most `roots` roots after `cursor`: within the budget, if there is
    /// one.
    async fn roots_page(
        &self,
        query: &Query<M, M>,
        cursor: Option<&str>,
        roots: usize,
        sending: Sending<'_>,
    ) -> Result<Page<M>> {
        let Some(meter) = sending.meter else {
            return query.clone().page(cursor).await;
        };
        let (limit, reserved) = meter.reserve_page(Some(roots), 1)?;
        // The page's own tally says what it consumed, then goes to the find's.
        let own = Tally::default();
        let page = query
            .clone()
            .page_size(u32::try_from(limit).unwrap_or(1))
            .tally(&own)
            .page(cursor)
            .await;
        meter.settle_tally(reserved, &own, self.report.tally.as_ref());
        page
    }

    /// The page a budgeted find returns when its budget ran out: the roots read whole so
    /// far, resuming at the first one left; an error when none could be.
    fn stopped(
        error: Error,
        moved: bool,
        items: Vec<L::Joined>,
        cursor: Option<String>,
    ) -> Result<Page<L::Joined>> {
        if moved {
            return Ok(Page { items, cursor });
        }
        Err(Self::fail(Error::validation(format!(
            "the budget cannot pay for the first root with its whole tree ({}): raise it, or \
             bound the items with `max_item_bytes`",
            error.message()
        ))))
    }
}

paged!(impl[M: Model + Clone, L: Load<M>] Find<M, L> => L::Joined);

impl<M: Model + Clone, L: Load<M>> Budgeted<Find<M, L>> {
    /// The waves and requests of a [`page`](Self::page) within the budget, and the rounds
    /// each takes, without sending anything: every relation with its own requests.
    pub fn plan(&self) -> Result<LoadPlan> {
        self.read.plan()
    }
}

/// `gsi1pk = "POST#1"`, for plans.
fn show(hash: &[(&'static str, AttributeValue)]) -> String {
    hash.iter()
        .map(|(name, value)| format!("{name} = {}", crate::value::show(value)))
        .collect::<Vec<_>>()
        .join(" and ")
}

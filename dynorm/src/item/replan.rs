//! Why an attempt of writes with companions (`guarded.rs`) failed: the cause that is
//! true, or that the plan was stale and is to be made again.
//!
//! DynamoDB evaluates every condition of a cancelled transaction and returns, for each
//! failed one, the item as it is. A companion's failure is often a consequence of its
//! write's item having changed since it was read (another writer moved the same member
//! first: its old parent's count is then lower, the guard it claims is its own already),
//! so every reason is looked at before any is reported:
//!
//! 1. A write whose own condition failed although its item still holds what the plan
//!    depends on failed for the caller's reasons (its condition, its version, an item
//!    that exists or does not): that is the error, whatever else failed.
//! 2. A write whose item changed is planned again from the item returned, and no
//!    companion failure of that attempt is reported.
//! 3. A companion failure that can come from a stale plan (a guard released that another
//!    item owns, a guard claimed that names the writer itself) has its writes' items read
//!    again; if one changed, the plan is made again. If none did, a guard released that
//!    another item owns is that item's (the value was held twice, written around dynorm):
//!    the plan is made again without releasing it.
//! 4. A count failure on a parent that is gone or does not hold the count yet is planned
//!    again from the parent returned (`parent_count.rs`); any other companion failure
//!    (a value another item holds, a count below what leaves it, a child of a parent that
//!    does not exist) is the error.

use crate::client::Client;
use crate::error::retry;
use crate::error::{Error, Result};
use crate::item::companion::{self, Companion, Known, Role};
use crate::item::raw_read::read;
use crate::item::write_request::{Guarded, WriteSpec};
use crate::value::Item;

/// The failed conditions of one attempt.
pub(crate) struct Failed {
    pub error: Error,
    /// The writes (by index) whose own condition failed, with their items as returned.
    own: Vec<(usize, Option<Item>)>,
    /// The companions (by position) whose condition failed, with their items as returned.
    companions: Vec<(usize, Option<Item>)>,
}

impl Failed {
    /// The failure of a single write sent as its own request.
    pub fn single(error: Error) -> Self {
        let item = error.item().filter(|i| !i.is_empty()).cloned();
        Self {
            error,
            own: vec![(0, item)],
            companions: Vec::new(),
        }
    }

    /// The failure of a transaction of `writes` writes followed by their companions.
    pub fn transaction(error: Error, writes: usize) -> Self {
        let mut own = Vec::new();
        let mut companions = Vec::new();
        for reason in error.cancellation_reasons() {
            if reason.code != "ConditionalCheckFailed" {
                continue;
            }
            let item = reason.item.clone().filter(|i| !i.is_empty());
            match reason.index.checked_sub(writes) {
                None => own.push((reason.index, item)),
                Some(position) => companions.push((position, item)),
            }
        }
        Self {
            error,
            own,
            companions,
        }
    }
}

/// What to do after a failed attempt.
pub(crate) enum Verdict {
    /// Plan again from what is now known.
    Replan,
    /// Another transaction was writing the same items: wait, read them again, plan again.
    Conflict,
    /// Write `.0`'s own condition failed for a reason the plan does not change; `.1` is its
    /// item as returned.
    Own(usize, Option<Item>),
    /// A companion failed for a true reason: this error.
    Companion(Error),
    /// Nothing to plan from: the request's error as it is.
    Other,
}

/// Whether a write creates its item (`create`, `insert`): planned from no stored item.
pub(crate) fn creating(spec: &WriteSpec) -> bool {
    spec.checks.absent && matches!(spec.guarded, Some(Guarded::Put))
}

/// Whether the write's own checks fail on `stored` whatever the plan: a create of an item
/// that exists, an update or delete that requires an item that does not, a version that
/// differs.
fn certain(spec: &WriteSpec, stored: Option<&Item>) -> bool {
    let live = stored.filter(|item| !spec.schema.is_expired(item));
    let checks = &spec.checks;
    let version = match (&checks.version, spec.schema.version) {
        (Some(expected), Some(attribute)) => {
            live.is_none_or(|i| i.get(attribute) != Some(expected))
        }
        _ => false,
    };
    (checks.absent && live.is_some()) || (checks.present && live.is_none()) || version
}

/// Judges a failed attempt (see the module's comment), updating what is known for the
/// next one.
pub(crate) async fn judge(
    client: &Client,
    specs: &[WriteSpec],
    known: &mut Known,
    companions: &[Companion],
    failed: &Failed,
) -> Result<Verdict> {
    let mut stale = false;
    let mut own = None;
    for (index, stored) in &failed.own {
        let spec = &specs[*index];
        let old = known.olds[*index].as_ref();
        if certain(spec, stored.as_ref()) {
            return Ok(Verdict::Own(*index, stored.clone()));
        }
        if spec.guarded.is_some() && !companion::same_sources(spec.schema, stored.as_ref(), old) {
            known.olds[*index] = stored.clone();
            stale = true;
        } else {
            own.get_or_insert((*index, stored.clone()));
        }
    }
    if let Some((index, stored)) = own {
        return Ok(Verdict::Own(index, stored));
    }
    if stale {
        return Ok(Verdict::Replan);
    }
    let mut suspects: Vec<usize> = Vec::new();
    let mut error = None;
    let mut foreign = Vec::new();
    let mut learned = false;
    for (position, current) in &failed.companions {
        let companion = &companions[*position];
        match &companion.role {
            Role::Counts(counts) => {
                known
                    .parents
                    .record(counts.table(), counts.key(), current.clone());
                match counts.failure(specs, current.as_ref()) {
                    Some(e) => {
                        error.get_or_insert(e);
                    }
                    None => learned = true,
                }
            }
            Role::Release => {
                let guard = (companion.spec.table.clone(), companion.spec.key());
                foreign.push(guard);
                suspects.extend(&companion.owners);
            }
            Role::Claim(..) => match companion::claim_failure(specs, companion, current.as_ref()) {
                Some(e) => {
                    error.get_or_insert(e);
                }
                None => {
                    learned = true;
                    suspects.extend(&companion.owners);
                }
            },
        }
    }
    suspects.sort_unstable();
    suspects.dedup();
    for index in suspects {
        let spec = &specs[index];
        if creating(spec) {
            continue;
        }
        let stored = read(client, spec).await?;
        if !companion::same_sources(spec.schema, stored.as_ref(), known.olds[index].as_ref()) {
            known.olds[index] = stored;
            stale = true;
        }
    }
    if stale {
        return Ok(Verdict::Replan);
    }
    learned |= !foreign.is_empty();
    known.foreign.extend(foreign);
    Ok(if let Some(error) = error {
        Verdict::Companion(error)
    } else if learned {
        Verdict::Replan
    } else if retry::contention(&failed.error) {
        Verdict::Conflict
    } else {
        Verdict::Other
    })
}

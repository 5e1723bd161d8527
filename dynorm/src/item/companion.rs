//! The writes that go with a write of a model with `#[unique]` attributes or `#[count]`s:
//! the guard items of its unique values (`schema/unique.rs`) and the counts of its parents
//! (`schema/count.rs`, written by `parent_count.rs`). Planned from the item as stored
//! before the write and the item the write leaves, and merged across the writes of one
//! request (a transaction touches an item only once); `guarded.rs` sends them with the
//! writes, in one transaction.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::client::Client;
use crate::error::{Error, ErrorKind, Result};
use crate::expr::{Comparison, Expr, Placeholders};
use crate::item::companion_write::companion_write;
use crate::item::parent_count::{self, CountMove, ParentCounts, Parents};
use crate::item::write_request::{Delete, Guarded, Put, WriteKind, WriteSpec};
use crate::schema::unique::{self, GUARD_OWNER_HASH, GUARD_OWNER_RANGE};
use crate::schema::Schema;
use crate::value::Item;

/// What a companion write is for, to explain its failure.
#[derive(Debug)]
pub(crate) enum Role {
    /// The guard of constraint `.0` for these values (shown as `.1`): fails when another
    /// item holds them.
    Claim(usize, String),
    /// The guard of a value the item gives up: fails when another item owns it.
    Release,
    /// The counts of one parent, for every write of the request that moves them.
    Counts(ParentCounts),
}

/// One write that goes with the request's own writes.
pub(crate) struct Companion {
    pub spec: WriteSpec,
    pub role: Role,
    /// The writes (by index) it goes with; for a guard, the one its role concerns first.
    pub owners: Vec<usize>,
}

/// A guard write of one write.
struct Guard {
    spec: WriteSpec,
    role: Role,
}

/// The companion writes of one write, and the condition its item must meet for them to
/// be right: that the stored item is still the one they were planned from.
pub(crate) struct Plan {
    /// The condition on the item: what the companions depend on holds what was read (or
    /// the item is absent).
    pub unchanged: Expr,
    guards: Vec<Guard>,
    counts: Vec<CountMove>,
}

impl Plan {
    /// How many guard items the write writes or deletes.
    pub fn guards(&self) -> usize {
        self.guards.len()
    }

    /// The counts it moves.
    pub fn counts(&self) -> &[CountMove] {
        &self.counts
    }
}

/// What the companions of a request's writes are planned from.
#[derive(Default)]
pub(crate) struct Known {
    /// Each write's stored item, as last read or returned.
    pub olds: Vec<Option<Item>>,
    /// The parents of counts, as last returned.
    pub parents: Parents,
    /// The guards (by table and key) of values a write's item holds that another item
    /// owns (the value was held twice, written around dynorm): giving the value up leaves
    /// them to their owner.
    pub foreign: Vec<(String, Item)>,
}

/// The writes of one attempt: each of the request's writes on condition that its item is
/// as planned from, and their companions, merged.
pub(crate) struct Attempt {
    pub writes: Vec<WriteSpec>,
    pub companions: Vec<Companion>,
}

/// The item a write leaves, as far as the companions are concerned: `None` when deleted.
pub(crate) fn new_item(guarded: &Guarded, kind: &WriteKind, old: Option<&Item>) -> Option<Item> {
    match (guarded, kind) {
        (Guarded::Put, WriteKind::Put(Put(item))) => Some(item.clone()),
        (Guarded::Update { base, touches }, _) => {
            let mut item = old.cloned().unwrap_or_else(|| base.clone());
            for (name, value) in touches {
                match value {
                    Some(value) => item.insert((*name).to_owned(), value.clone()),
                    None => item.remove(*name),
                };
            }
            Some(item)
        }
        _ => None,
    }
}

/// `name = value`, or `attribute_not_exists(name)` for no value.
fn holds(name: &'static str, value: Option<&AttributeValue>) -> Expr {
    match value {
        Some(value) => Expr::Compare(name, Comparison::Eq, value.clone()),
        None => Expr::NotExists(name),
    }
}

/// The attributes the companions depend on, each once.
fn sources(schema: &'static Schema) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for name in schema.companion_sources() {
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// The condition that the stored item holds what `old` holds of the companions'
/// sources, and exists exactly when `old` does.
fn unchanged(schema: &'static Schema, old: Option<&Item>) -> Expr {
    let Some(old) = old else {
        return Expr::NotExists(schema.hash_key.name);
    };
    let mut parts = vec![Expr::Exists(schema.hash_key.name)];
    parts.extend(sources(schema).into_iter().map(|n| holds(n, old.get(n))));
    Expr::And(parts)
}

/// The condition a write's first attempt adds: the item exists and already holds the
/// sources the write writes, so that no companion changes.
pub(crate) fn already_written(spec: &WriteSpec, guarded: &Guarded) -> Expr {
    let schema = spec.schema;
    let mut parts = vec![Expr::Exists(schema.hash_key.name)];
    match (guarded, &spec.kind) {
        (Guarded::Update { touches, .. }, _) => {
            parts.extend(touches.iter().map(|(n, v)| holds(n, v.as_ref())));
        }
        (_, WriteKind::Put(Put(item))) => {
            parts.extend(sources(schema).into_iter().map(|n| holds(n, item.get(n))));
        }
        _ => {}
    }
    Expr::And(parts)
}

/// Whether `stored` is what the first attempt assumed, so that its failure was the
/// caller's condition (or the write's own checks), not a changed source.
pub(crate) fn assumption_holds(spec: &WriteSpec, guarded: &Guarded, stored: Option<&Item>) -> bool {
    let Some(stored) = stored else {
        return false;
    };
    let same = |name: &str, value: Option<&AttributeValue>| stored.get(name) == value;
    match (guarded, &spec.kind) {
        (Guarded::Update { touches, .. }, _) => touches
            .iter()
            .all(|(name, value)| same(name, value.as_ref())),
        (_, WriteKind::Put(Put(item))) => sources(spec.schema)
            .into_iter()
            .all(|name| same(name, item.get(name))),
        _ => true,
    }
}

/// Whether two reads of the item agree on everything the companions depend on.
pub(crate) fn same_sources(schema: &'static Schema, a: Option<&Item>, b: Option<&Item>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => sources(schema)
            .into_iter()
            .all(|name| a.get(name) == b.get(name)),
        _ => false,
    }
}

/// Plans the companion writes of `spec`, from the stored item `old`.
pub(crate) fn plan(spec: &WriteSpec, old: Option<&Item>) -> Result<Plan> {
    let schema = spec.schema;
    let fail = |e: Error| e.with_model(schema.model).with_operation(spec.operation);
    let mut plan = Plan {
        unchanged: unchanged(schema, old),
        guards: Vec::new(),
        counts: Vec::new(),
    };
    if let Some(guarded) = &spec.guarded {
        let new = new_item(guarded, &spec.kind, old);
        guards(spec, old, new.as_ref(), &mut plan.guards).map_err(fail)?;
        counts(spec, old, new.as_ref(), &mut plan.counts).map_err(fail)?;
    }
    Ok(plan)
}

/// Plans one attempt of a request's writes, from what is known of their items, guards and
/// parents.
pub(crate) fn attempt(client: &Client, specs: &[WriteSpec], known: &Known) -> Result<Attempt> {
    let mut writes = Vec::with_capacity(specs.len());
    let mut guards = Vec::new();
    let mut moves = Vec::new();
    let theirs = |guard: &Guard| {
        matches!(guard.role, Role::Release)
            && known
                .foreign
                .iter()
                .any(|(table, key)| *table == guard.spec.table && *key == guard.spec.key())
    };
    for (index, (spec, old)) in specs.iter().zip(&known.olds).enumerate() {
        let mut write = spec.clone();
        write.guarded = None;
        if spec.guarded.is_some() {
            let plan = plan(spec, old.as_ref())?;
            add_condition(&mut write, &plan.unchanged);
            let kept = plan.guards.into_iter().filter(|g| !theirs(g));
            guards.extend(kept.map(|g| (index, g)));
            moves.extend(plan.counts.into_iter().map(|m| (index, m)));
        }
        writes.push(write);
    }
    let mut companions = merge_guards(specs, guards)?;
    for counts in parent_count::group(client, moves) {
        let owners = counts.owners();
        let operation = owners
            .first()
            .map_or("transact_write", |&owner| specs[owner].operation);
        companions.push(Companion {
            spec: counts.write(operation, &known.parents),
            role: Role::Counts(counts),
            owners,
        });
    }
    untouched(specs, &companions)?;
    Ok(Attempt { writes, companions })
}

/// `owner_hash = <hash> [AND owner_range = <range>]`: the guard names this owner.
fn owned_by(schema: &'static Schema, owner: &Item) -> Option<Expr> {
    let mut owned = vec![Expr::Compare(
        GUARD_OWNER_HASH,
        Comparison::Eq,
        owner.get(schema.hash_key.name)?.clone(),
    )];
    if let Some(range) = schema.range_key {
        owned.push(Expr::Compare(
            GUARD_OWNER_RANGE,
            Comparison::Eq,
            owner.get(range.name)?.clone(),
        ));
    }
    Some(Expr::And(owned))
}

/// The guards to delete and write for each unique constraint whose values change. Both
/// are on condition that the guard is missing or already names the item: a guard missing
/// when released (an item written before the constraint) is fine, and one that names the
/// item when claimed is the item's already.
fn guards(
    spec: &WriteSpec,
    old: Option<&Item>,
    new: Option<&Item>,
    out: &mut Vec<Guard>,
) -> Result<()> {
    let schema = spec.schema;
    let owner = spec.key();
    let free_or_own = Expr::Or(
        std::iter::once(Expr::NotExists(schema.hash_key.name))
            .chain(owned_by(schema, &owner))
            .collect(),
    );
    for (index, constraint) in schema.uniques.iter().enumerate() {
        let before = old.and_then(|item| constraint.values(item));
        let after = new.and_then(|item| constraint.values(item));
        if before == after {
            continue;
        }
        if let Some(values) = &before {
            let key = constraint.guard_key(schema, values)?;
            out.push(Guard {
                spec: write(spec, Delete(key).into(), free_or_own.clone()),
                role: Role::Release,
            });
        }
        if let Some(values) = &after {
            let item = constraint.guard_item(schema, values, &owner)?;
            out.push(Guard {
                spec: write(spec, Put(item).into(), free_or_own.clone()),
                role: Role::Claim(index, constraint.describe(values)),
            });
        }
    }
    Ok(())
}

/// The counts of each parent the item stops or starts counting in. An item is counted
/// where it names a parent and carries the count's marker (`schema/count.rs`): an item
/// written before the count, not counted yet, leaves no count when it goes.
fn counts(
    spec: &WriteSpec,
    old: Option<&Item>,
    new: Option<&Item>,
    out: &mut Vec<CountMove>,
) -> Result<()> {
    for count in spec.schema.counts {
        let before = old
            .filter(|item| count.holds(item))
            .map(|item| count.parent_key(item))
            .transpose()?
            .flatten();
        let after = new
            .filter(|item| count.holds(item))
            .map(|item| count.parent_key(item))
            .transpose()?
            .flatten();
        if before == after {
            continue;
        }
        for (key, delta) in before
            .map(|k| (k, -1))
            .into_iter()
            .chain(after.map(|k| (k, 1)))
        {
            out.push(CountMove { count, key, delta });
        }
    }
    Ok(())
}

/// A guard's write, in the model's own table, on `condition`.
fn write(spec: &WriteSpec, kind: WriteKind, condition: Expr) -> WriteSpec {
    let mut placeholders = Placeholders::default();
    let condition = placeholders.render_all(&[condition]);
    let table = spec.table.clone();
    companion_write(
        spec.schema,
        spec.operation,
        table,
        kind,
        (condition, placeholders),
    )
}

/// Adds `expr` to the spec's condition, with AND.
pub(crate) fn add_condition<K>(spec: &mut WriteSpec<K>, expr: &Expr) {
    let Some(extra) = spec.placeholders.render_all(std::slice::from_ref(expr)) else {
        return;
    };
    spec.condition = Some(match spec.condition.take() {
        Some(own) => format!("({own}) AND ({extra})"),
        None => extra,
    });
}

/// The error of a guard claimed whose condition failed, given the guard as it is: the
/// value is another item's. `None` when the guard names one of the claim's own writes,
/// which means their items changed since the plan, which is then to be made again.
pub(crate) fn claim_failure(
    writes: &[WriteSpec],
    companion: &Companion,
    current: Option<&Item>,
) -> Option<Error> {
    let Role::Claim(constraint, values) = &companion.role else {
        return None;
    };
    let spec = &writes[*companion.owners.first()?];
    let schema = spec.schema;
    let holder = current.and_then(|g| unique::guard_owner(schema, g));
    if let Some(key) = &holder {
        if companion.owners.iter().any(|&o| writes[o].key() == *key) {
            return None;
        }
    }
    let message = match &holder {
        Some(key) => format!(
            "{values} is already taken by the item {}",
            crate::value::show(&AttributeValue::M(key.clone()))
        ),
        None => format!("{values} is already taken"),
    };
    Some(
        Error::new(ErrorKind::UniqueConflict, message)
            .with_attribute(schema.uniques[*constraint].attributes[0])
            .with_item(holder)
            .with_model(schema.model)
            .with_operation(spec.operation),
    )
}

/// The guards of a request's writes, merged where two touch one guard, as a transaction
/// can touch an item only once: a guard one write releases and another claims is one put
/// on the release's condition. Each guard comes with the index of the write it belongs to.
fn merge_guards(writes: &[WriteSpec], guards: Vec<(usize, Guard)>) -> Result<Vec<Companion>> {
    let mut out: Vec<Companion> = Vec::with_capacity(guards.len());
    for (index, guard) in guards {
        let key = guard.spec.key();
        let Some(taken) = out
            .iter()
            .position(|c| c.spec.table == guard.spec.table && c.spec.key() == key)
        else {
            out.push(Companion {
                spec: guard.spec,
                role: guard.role,
                owners: vec![index],
            });
            continue;
        };
        let earlier = out.remove(taken);
        let first = earlier.owners.first().copied().unwrap_or(index);
        match (earlier.role, guard.role) {
            (Role::Release, role @ Role::Claim(..)) => {
                let spec = earlier.spec.replace_kind(guard.spec.kind).1;
                out.push(Companion {
                    spec,
                    role,
                    owners: vec![index, first],
                });
            }
            (role @ Role::Claim(..), Role::Release) => {
                let spec = guard.spec.replace_kind(earlier.spec.kind).1;
                out.push(Companion {
                    spec,
                    role,
                    owners: vec![first, index],
                });
            }
            (earlier, later) => {
                let shown = |role: &Role| match role {
                    Role::Claim(_, values) => values.clone(),
                    _ => String::new(),
                };
                return Err(Error::validation(format!(
                    "operations {first} and {index} both claim the unique value {}; \
                     a transaction can touch an item only once",
                    if matches!(later, Role::Claim(..)) {
                        shown(&later)
                    } else {
                        shown(&earlier)
                    }
                ))
                .with_model(writes[index].schema.model)
                .with_operation("transact_write"));
            }
        }
    }
    Ok(out)
}

/// Refuses a request one of whose writes writes an item a companion of another changes.
fn untouched(writes: &[WriteSpec], companions: &[Companion]) -> Result<()> {
    for companion in companions {
        let key = companion.spec.key();
        let table = companion.spec.table.as_str();
        let Some(write) = writes
            .iter()
            .position(|w| w.table == table && w.key() == key)
        else {
            continue;
        };
        let index = companion.owners.first().copied().unwrap_or(write);
        return Err(Error::validation(format!(
            "operation {write} writes the `{}` item that operation {index} also changes (its {}); \
             a transaction can touch an item only once, so write them in two transactions",
            companion.spec.schema.model,
            match companion.role {
                Role::Counts(_) => "count",
                _ => "guard",
            }
        ))
        .with_model(writes[index].schema.model)
        .with_operation("transact_write"));
    }
    Ok(())
}

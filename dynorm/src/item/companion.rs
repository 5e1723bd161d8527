//! The writes that go with a write of a model with `#[unique]` attributes or `#[count]`s:
//! the guard items of its unique values (`schema/unique.rs`) and the counts of its parents
//! (`schema/count.rs`). Planned from the item as stored before the write and the item the
//! write leaves; `guarded.rs` sends them with the write, in one transaction.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::client::Client;
use crate::error::{Error, ErrorKind, Result};
use crate::expr::{Comparison, Expr, Placeholders};
use crate::item::write_request::{Checks, Delete, Guarded, Put, Update, WriteKind, WriteSpec};
use crate::observe::Reporting;
use crate::schema::unique::{self, GUARD_OWNER_HASH, GUARD_OWNER_RANGE};
use crate::schema::{Count, Schema};
use crate::value::Item;

/// What a companion write is for, to explain its failure.
#[derive(Clone, Debug)]
pub(crate) enum Role {
    /// The guard of constraint `.0` for these values (shown as `.1`): fails when another
    /// item holds them.
    Claim(usize, String),
    /// The guard of a value the item gives up: fails when another item owns it now.
    Release,
    /// A count of parent `count` moved by `delta`: fails when the parent is missing, or
    /// the count would go below zero.
    Count { count: &'static Count, delta: i64 },
}

/// One write that goes with the item's.
pub(crate) struct Companion {
    pub spec: WriteSpec,
    pub role: Role,
}

/// The companion writes of one write, and the condition its item must meet for them to
/// be right: that the stored item is still the one they were planned from.
pub(crate) struct Plan {
    /// The condition on the item: what the companions depend on holds what was read (or
    /// the item is absent).
    pub unchanged: Expr,
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
pub(crate) fn plan(client: &Client, spec: &WriteSpec, old: Option<&Item>) -> Result<Plan> {
    let schema = spec.schema;
    let fail = |e: Error| e.with_model(schema.model).with_operation(spec.operation);
    let mut companions = Vec::new();
    if let Some(guarded) = &spec.guarded {
        let new = new_item(guarded, &spec.kind, old);
        guards(spec, old, new.as_ref(), &mut companions).map_err(fail)?;
        counts(client, spec, old, new.as_ref(), &mut companions).map_err(fail)?;
    }
    Ok(Plan {
        unchanged: unchanged(schema, old),
        companions,
    })
}

/// The guards to delete and write for each unique constraint whose values change.
fn guards(
    spec: &WriteSpec,
    old: Option<&Item>,
    new: Option<&Item>,
    out: &mut Vec<Companion>,
) -> Result<()> {
    let schema = spec.schema;
    let owner = spec.key();
    for (index, constraint) in schema.uniques.iter().enumerate() {
        let before = old.and_then(|item| constraint.values(item));
        let after = new.and_then(|item| constraint.values(item));
        if before == after {
            continue;
        }
        if let Some(values) = &before {
            let key = constraint.guard_key(schema, values)?;
            let mut owned = vec![Expr::Compare(
                GUARD_OWNER_HASH,
                Comparison::Eq,
                owner[schema.hash_key.name].clone(),
            )];
            if let Some(range) = schema.range_key {
                owned.push(Expr::Compare(
                    GUARD_OWNER_RANGE,
                    Comparison::Eq,
                    owner[range.name].clone(),
                ));
            }
            // A guard that is missing (an item written before the constraint) is fine.
            let condition = Expr::Or(vec![
                Expr::NotExists(schema.hash_key.name),
                Expr::And(owned),
            ]);
            out.push(Companion {
                spec: write(
                    spec,
                    schema,
                    spec.table.clone(),
                    Delete(key).into(),
                    condition,
                ),
                role: Role::Release,
            });
        }
        if let Some(values) = &after {
            let item = constraint.guard_item(schema, values, &owner)?;
            let condition = Expr::NotExists(schema.hash_key.name);
            out.push(Companion {
                spec: write(
                    spec,
                    schema,
                    spec.table.clone(),
                    Put(item).into(),
                    condition,
                ),
                role: Role::Claim(index, constraint.describe(values)),
            });
        }
    }
    Ok(())
}

/// The count updates for each parent the item stops or starts counting in.
fn counts(
    client: &Client,
    spec: &WriteSpec,
    old: Option<&Item>,
    new: Option<&Item>,
    out: &mut Vec<Companion>,
) -> Result<()> {
    for count in spec.schema.counts {
        let before = old
            .map(|item| count.parent_key(item))
            .transpose()?
            .flatten();
        let after = new
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
            out.push(count_update(client, spec, count, key, delta));
        }
    }
    Ok(())
}

/// `ADD count delta` on the parent, on condition that it exists and (going down) that
/// the count stays at zero or above.
pub(crate) fn count_update(
    client: &Client,
    spec: &WriteSpec,
    count: &'static Count,
    key: Item,
    delta: i64,
) -> Companion {
    let parent = count.parent;
    let mut placeholders = Placeholders::default();
    let name = placeholders.name(count.attribute);
    let value = placeholders.value(AttributeValue::N(delta.to_string()));
    let expression = format!("ADD #n{name} :v{value}");
    let mut condition = vec![Expr::Exists(parent.hash_key.name)];
    if delta < 0 {
        condition.push(Expr::Compare(
            count.attribute,
            Comparison::Ge,
            AttributeValue::N((-delta).to_string()),
        ));
    }
    let condition = placeholders.render_all(&[Expr::And(condition)]);
    Companion {
        spec: WriteSpec {
            schema: parent,
            operation: spec.operation,
            table: client.table_name_of(parent),
            kind: Update { key, expression }.into(),
            condition,
            placeholders,
            checks: Checks::default(),
            report: Reporting::default(),
            guarded: None,
        },
        role: Role::Count { count, delta },
    }
}

/// A companion's write, on `condition`.
fn write(
    spec: &WriteSpec,
    schema: &'static Schema,
    table: String,
    kind: WriteKind,
    condition: Expr,
) -> WriteSpec {
    let mut placeholders = Placeholders::default();
    let condition = placeholders.render_all(&[condition]);
    WriteSpec {
        schema,
        operation: spec.operation,
        table,
        kind,
        condition,
        placeholders,
        checks: Checks::default(),
        report: Reporting::default(),
        guarded: None,
    }
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

/// The error of a companion write whose condition failed, with the item as it is (the
/// guard, or the parent), or `None` when the failure means the item changed and the
/// write is to be planned again (a guard to release that another item owns).
pub(crate) fn failure(spec: &WriteSpec, role: &Role, current: Option<&Item>) -> Option<Error> {
    let schema = spec.schema;
    let error = match role {
        Role::Release => return None,
        Role::Claim(constraint, values) => {
            let unique = &schema.uniques[*constraint];
            let holder = current.and_then(|g| unique::guard_owner(schema, g));
            let message = match &holder {
                Some(key) => format!(
                    "{values} is already taken by the item {}",
                    crate::value::show(&AttributeValue::M(key.clone()))
                ),
                None => format!("{values} is already taken"),
            };
            Error::new(ErrorKind::UniqueConflict, message)
                .with_attribute(unique.attributes[0])
                .with_item(holder)
        }
        Role::Count { count, delta } => {
            let parent = count.parent.model;
            let (kind, message) = match current {
                None => (
                    ErrorKind::NotFound,
                    format!(
                        "the `{parent}` that counts this item in `{}` does not exist",
                        count.attribute
                    ),
                ),
                Some(_) => (
                    ErrorKind::ConditionFailed,
                    format!(
                        "`{}` of the `{parent}` that counts this item is below {}, so it cannot go down by it; a count never goes below zero",
                        count.attribute,
                        -delta
                    ),
                ),
            };
            Error::new(kind, message)
                .with_attribute(count.fields[0])
                .with_item(current.cloned())
        }
    };
    Some(
        error
            .with_model(schema.model)
            .with_operation(spec.operation),
    )
}

/// The companions of a transaction's writes, merged where two touch one item, as a
/// transaction can touch an item only once: a guard one write releases and another
/// claims is one put on the release's condition; the counts of one parent add up. Each
/// companion comes with the index of the write it belongs to. `writes` are the
/// transaction's own writes, which no companion may touch.
pub(crate) fn merge(
    client: &Client,
    writes: &[WriteSpec],
    companions: Vec<(usize, Companion)>,
) -> Result<Vec<(usize, Companion)>> {
    let mut out: Vec<(usize, Companion)> = Vec::with_capacity(companions.len());
    for (index, companion) in companions {
        let key = companion.spec.key();
        let table = companion.spec.table.as_str();
        let spec = &writes[index];
        if let Some(write) = writes
            .iter()
            .position(|w| w.table == table && w.key() == key)
        {
            return Err(Error::validation(format!(
                "operation {write} writes the `{}` item that operation {index} also changes (its {}); \
                 a transaction can touch an item only once, so write them in two transactions",
                companion.spec.schema.model,
                match companion.role {
                    Role::Count { .. } => "count",
                    _ => "guard",
                }
            ))
            .with_model(spec.schema.model)
            .with_operation("transact_write"));
        }
        let Some(taken) = out
            .iter()
            .position(|(_, c)| c.spec.table == table && c.spec.key() == key)
        else {
            out.push((index, companion));
            continue;
        };
        let (first, earlier) = out.remove(taken);
        match (earlier.role, companion.role) {
            (Role::Release, role @ Role::Claim(..)) => {
                let spec = earlier.spec.replace_kind(companion.spec.kind).1;
                out.push((index, Companion { spec, role }));
            }
            (role @ Role::Claim(..), Role::Release) => {
                let spec = companion.spec.replace_kind(earlier.spec.kind).1;
                out.push((first, Companion { spec, role }));
            }
            (Role::Count { count, delta: a }, Role::Count { delta: b, .. }) => {
                if a + b != 0 {
                    out.push((first, count_update(client, spec, count, key, a + b)));
                }
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
                .with_model(spec.schema.model)
                .with_operation("transact_write"));
            }
        }
    }
    Ok(out)
}

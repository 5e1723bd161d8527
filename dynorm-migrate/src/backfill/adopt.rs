//! Constraints adopted on a live table: `#[unique]` or `#[count]` added to a model whose
//! table already holds items. A backfill brings each item it reads up to date with its
//! model's constraints, after any rewrite:
//!
//! - **Guards.** Each unique value the item holds without a guard is claimed, in a
//!   transaction with a check that the item still holds it. A value whose guard names
//!   another item is a duplicate: both holders are recorded in the progress table
//!   (`duplicates.rs`), the constraint is not claimed for this item, and the run reports
//!   it until one of them gives the value up.
//! - **Counts.** An item that names a parent but is not counted there yet (it carries no
//!   marker, `schema/count.rs`) is marked and added to its parent's count in one
//!   transaction, the one every counted write sends (`item/guarded.rs`), so a count built
//!   while other writers move children is exact. An item whose parent does not exist is
//!   counted nowhere and reported as such.

use aws_sdk_dynamodb::types::{
    AttributeValue, ConditionCheck, Put, ReturnValue, TransactWriteItem,
};
use dynorm::__ext::error::Context as _;
use tracing::Instrument as _;

use dynorm::__ext::client::Client;
use dynorm::__ext::error::{sdk_error, Error, ErrorKind, Result};
use dynorm::__ext::expr::{Comparison, Expr, Placeholders};
use dynorm::__ext::item::guarded;
use dynorm::__ext::item::write_request::{Checks, Guarded, Update, WriteSpec};
use dynorm::__ext::observe::span::request_span;
use dynorm::__ext::schema::count::{self, Count, COUNTED};
use dynorm::__ext::schema::unique::{self, Unique};
use dynorm::__ext::schema::Schema;
use dynorm::__ext::value::Item;

use super::spend::Spend;

/// How many times one item's guard is claimed again when its item or guard changed
/// between the read and the claim.
const MAX_CLAIMS: u32 = 8;

const OPERATION: &str = "backfill";

/// A value held by more than one item: the guard names `holders[0]`, the item read holds
/// it too.
pub(super) struct Found {
    pub constraint: &'static Unique,
    pub guard: Item,
    pub values: String,
    pub holders: [Item; 2],
}

/// What bringing one item up to date did.
#[derive(Default)]
pub(super) struct Adopted {
    /// Guards claimed for it.
    pub claimed: u64,
    /// Counts it was added to.
    pub counted: u64,
    /// Counts it names a parent of that does not exist.
    pub orphaned: u64,
    /// Its values another item's guard holds.
    pub duplicates: Vec<Found>,
    /// The item changed meanwhile: read it again and start over.
    pub changed: bool,
}

/// Brings the guards and counts of `stored`, as read from `table`, up to date. In a dry
/// run it only reads, and counts what it would write.
pub(super) async fn adopt(
    client: &Client,
    schema: &'static Schema,
    table: &str,
    stored: &Item,
    dry_run: bool,
    spend: &Spend,
) -> Result<Adopted> {
    let at = Adoption {
        client,
        schema,
        table,
        stored,
        dry_run,
        spend,
    };
    let mut adopted = Adopted::default();
    for constraint in schema.uniques {
        at.claim(constraint, &mut adopted).await?;
        if adopted.changed {
            return Ok(adopted);
        }
    }
    at.count(&mut adopted).await?;
    Ok(adopted)
}

enum Claim {
    Done,
    Refused,
}

/// One item being brought up to date: where it lives, as it was read, and how requests
/// are paced and counted.
struct Adoption<'a> {
    client: &'a Client,
    schema: &'static Schema,
    table: &'a str,
    stored: &'a Item,
    dry_run: bool,
    spend: &'a Spend,
}

impl Adoption<'_> {
    /// The guard of `constraint` for what the item holds: claimed when missing, recorded
    /// as a duplicate when another item's.
    async fn claim(&self, constraint: &'static Unique, adopted: &mut Adopted) -> Result<()> {
        let (client, schema, table, spend) = (self.client, self.schema, self.table, self.spend);
        let Some(values) = constraint.values(self.stored) else {
            return Ok(());
        };
        let guard_key = constraint.guard_key(schema, &values)?;
        let own = schema.key_of(self.stored);
        for _ in 0..MAX_CLAIMS {
            let guard = read(client, schema, table, &guard_key, spend).await?;
            match guard.as_ref().and_then(|g| unique::guard_owner(schema, g)) {
                Some(owner) if owner == own => return Ok(()),
                Some(owner) => {
                    adopted.duplicates.push(Found {
                        constraint,
                        guard: guard_key,
                        values: constraint.describe(&values),
                        holders: [owner, own],
                    });
                    return Ok(());
                }
                None if self.dry_run => {
                    adopted.claimed += 1;
                    return Ok(());
                }
                None => {}
            }
            let item = constraint.guard_item(schema, &values, &own)?;
            match claim_free(self, constraint, &values, &own, item, guard).await? {
                Claim::Done => {
                    adopted.claimed += 1;
                    return Ok(());
                }
                Claim::Refused => {
                    // The item or the guard changed: is the item still what was read?
                    let again = read(client, schema, table, &own, spend).await?;
                    if again.as_ref() != Some(self.stored) {
                        adopted.changed = true;
                        return Ok(());
                    }
                }
            }
        }
        Err(Error::new(
            ErrorKind::TransactionConflict,
            format!(
                "the guard of {} changed {MAX_CLAIMS} times while the backfill claimed it",
                constraint.describe(&values)
            ),
        )
        .at_model(schema.model)
        .at_operation(OPERATION)
        .at_item(Some(own)))
    }

    /// Adds the item to every count it names a parent of and is not counted in yet,
    /// marking it, through the transaction of every counted write.
    async fn count(&self, adopted: &mut Adopted) -> Result<()> {
        let mut named = Vec::with_capacity(self.schema.counts.len());
        for c in self.schema.counts {
            if c.parent_key(self.stored)?.is_some() {
                named.push(c);
            }
        }
        let mut missing: Vec<&Count> = named
            .iter()
            .copied()
            .filter(|c| !c.holds(self.stored))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        if self.dry_run {
            adopted.counted += missing.len() as u64;
            return Ok(());
        }
        let held: Vec<&Count> = named
            .iter()
            .copied()
            .filter(|c| c.holds(self.stored))
            .collect();
        while !missing.is_empty() {
            let marker = count::marker(held.iter().chain(&missing).copied());
            match guarded::send(
                self.client,
                mark(self.schema, self.table, self.stored, marker, self.spend),
                ReturnValue::None,
            )
            .await
            {
                Ok(_) => {
                    adopted.counted += missing.len() as u64;
                    return Ok(());
                }
                Err(error) if error.kind() == ErrorKind::NotFound => {
                    // A parent that does not exist (its count names the field), or the item
                    // itself deleted meanwhile.
                    let field = error.attribute().map(str::to_owned);
                    let before = missing.len();
                    missing.retain(|c| Some(c.fields[0]) != field.as_deref());
                    if missing.len() == before {
                        adopted.changed = true;
                        return Ok(());
                    }
                    adopted.orphaned += (before - missing.len()) as u64;
                }
                Err(error) => return Err(error),
            }
        }
        Ok(())
    }
}

/// Writes `guard_item` for the item `owner`, in one transaction with a check that
/// the item still holds `values`, on condition that the guard is as read: absent, or
/// (`seen`) a guard that names no owner.
async fn claim_free(
    at: &Adoption<'_>,
    constraint: &Unique,
    values: &[&AttributeValue],
    owner: &Item,
    guard_item: Item,
    seen: Option<Item>,
) -> Result<Claim> {
    let Adoption {
        client,
        schema,
        table,
        spend,
        ..
    } = *at;
    let mut check = Placeholders::default();
    let holds: Vec<Expr> = std::iter::once(Expr::Exists(schema.hash_key.name))
        .chain(
            constraint
                .sources()
                .zip(values)
                .map(|(name, value)| Expr::Compare(name, Comparison::Eq, (*value).clone())),
        )
        .collect();
    let check_condition = check.render_all(&[Expr::And(holds)]);
    let mut put = Placeholders::default();
    let free = match &seen {
        None => Expr::NotExists(schema.hash_key.name),
        // A guard without an owner (written around dynorm): replaced only as it was read.
        Some(_) => Expr::And(vec![
            Expr::NotExists(unique::GUARD_OWNER_HASH),
            Expr::Exists(schema.hash_key.name),
        ]),
    };
    let put_condition = put.render_all(&[free]);
    let built = |e: aws_sdk_dynamodb::error::BuildError| {
        Error::new(dynorm::ErrorKind::Validation, e.to_string())
            .at_model(schema.model)
            .at_operation(OPERATION)
    };
    let check = ConditionCheck::builder()
        .table_name(table)
        .set_key(Some(owner.clone()))
        .set_condition_expression(check_condition)
        .set_expression_attribute_names(check.take_names())
        .set_expression_attribute_values(check.take_values())
        .build()
        .map_err(built)?;
    let put = Put::builder()
        .table_name(table)
        .set_item(Some(guard_item))
        .set_condition_expression(put_condition)
        .set_expression_attribute_names(put.take_names())
        .set_expression_attribute_values(put.take_values())
        .build()
        .map_err(built)?;
    spend.pace().await;
    let result = client
        .sdk()
        .transact_write_items()
        .transact_items(TransactWriteItem::builder().condition_check(check).build())
        .transact_items(TransactWriteItem::builder().put(put).build())
        .set_return_consumed_capacity(spend.asked())
        .send()
        .instrument(request_span!("TransactWriteItems", schema.model, table))
        .await;
    match result {
        Ok(output) => {
            spend.spent(output.consumed_capacity.as_deref().unwrap_or_default());
            Ok(Claim::Done)
        }
        Err(e) => {
            let error = sdk_error(e, schema.model, OPERATION, table);
            if error.kind() == dynorm::ErrorKind::TransactionCanceled && !error.is_retryable() {
                Ok(Claim::Refused)
            } else {
                Err(error)
            }
        }
    }
}

/// The update that marks `stored` as held by the counts of `marker`, as a counted write
/// whose companions are the counts it starts in.
fn mark(
    schema: &'static Schema,
    table: &str,
    stored: &Item,
    marker: AttributeValue,
    spend: &Spend,
) -> WriteSpec {
    let key = schema.key_of(stored);
    let mut placeholders = Placeholders::default();
    let name = placeholders.name(COUNTED);
    let value = placeholders.value(marker.clone());
    let condition = placeholders.render_all(&[Expr::Exists(schema.hash_key.name)]);
    WriteSpec {
        schema,
        operation: OPERATION,
        table: table.to_owned(),
        kind: Update {
            key: key.clone(),
            expression: format!("SET #n{name} = :v{value}"),
        }
        .into(),
        condition,
        placeholders,
        checks: Checks {
            present: true,
            ..Checks::default()
        },
        report: spend.reporting(),
        guarded: Some(Guarded::Update {
            base: key,
            touches: vec![(COUNTED, Some(marker))],
        }),
    }
}

/// An item of `table` by key, read strongly consistent.
pub(super) async fn read(
    client: &Client,
    schema: &'static Schema,
    table: &str,
    key: &Item,
    spend: &Spend,
) -> Result<Option<Item>> {
    spend.pace().await;
    let output = client
        .sdk()
        .get_item()
        .table_name(table)
        .set_key(Some(key.clone()))
        .consistent_read(true)
        .set_return_consumed_capacity(spend.asked())
        .send()
        .instrument(request_span!("GetItem", schema.model, table))
        .await
        .map_err(|e| sdk_error(e, schema.model, OPERATION, table))?;
    spend.spent(output.consumed_capacity.as_slice());
    Ok(output.item)
}

/// The guard writes that go with moving `old` to `new`'s key, in the same transaction:
/// each guard that names `old` is pointed at the new key (or, when the value changed on
/// the way, deleted: the new value is claimed once the item is moved), on condition that
/// it still names `old`. A guard that names another item, or none, is left as it is:
/// adopting the moved item claims it or records the duplicate.
pub(super) async fn moved_guards(
    client: &Client,
    schema: &'static Schema,
    table: &str,
    old: &Item,
    new: &Item,
    spend: &Spend,
) -> Result<Vec<TransactWriteItem>> {
    use aws_sdk_dynamodb::types::Delete;
    let from = schema.key_of(old);
    let to = schema.key_of(new);
    let built = |e: aws_sdk_dynamodb::error::BuildError| {
        Error::new(dynorm::ErrorKind::Validation, e.to_string())
            .at_model(schema.model)
            .at_operation(OPERATION)
    };
    let mut out = Vec::new();
    for constraint in schema.uniques {
        let Some(values) = constraint.values(old) else {
            continue;
        };
        let key = constraint.guard_key(schema, &values)?;
        let guard = read(client, schema, table, &key, spend).await?;
        if guard.as_ref().and_then(|g| unique::guard_owner(schema, g)) != Some(from.clone()) {
            continue;
        }
        let mut placeholders = Placeholders::default();
        let condition = placeholders.render_all(&[names(schema, &from)]);
        let item = if constraint.values(new).as_ref() == Some(&values) {
            let put = Put::builder()
                .table_name(table)
                .set_item(Some(constraint.guard_item(schema, &values, &to)?))
                .set_condition_expression(condition)
                .set_expression_attribute_names(placeholders.take_names())
                .set_expression_attribute_values(placeholders.take_values())
                .build()
                .map_err(built)?;
            TransactWriteItem::builder().put(put).build()
        } else {
            let delete = Delete::builder()
                .table_name(table)
                .set_key(Some(key))
                .set_condition_expression(condition)
                .set_expression_attribute_names(placeholders.take_names())
                .set_expression_attribute_values(placeholders.take_values())
                .build()
                .map_err(built)?;
            TransactWriteItem::builder().delete(delete).build()
        };
        out.push(item);
    }
    Ok(out)
}

/// The condition that a guard names the item whose key is `owner`.
pub(super) fn names(schema: &Schema, owner: &Item) -> Expr {
    Expr::And(
        [
            (unique::GUARD_OWNER_HASH, Some(schema.hash_key.name)),
            (unique::GUARD_OWNER_RANGE, schema.range_key.map(|r| r.name)),
        ]
        .into_iter()
        .filter_map(|(attribute, name)| {
            let value = owner.get(name?)?.clone();
            Some(Expr::Compare(attribute, Comparison::Eq, value))
        })
        .collect(),
    )
}

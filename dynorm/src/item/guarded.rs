//! Writes of a model with `#[unique]` attributes: each unique value has one guard item
//! (`schema/unique.rs`), written or deleted in the same transaction as the item.
//!
//! What a guard needs is the value the item held before the write, which DynamoDB does
//! not give to a transaction. So the stored item is read first, and the write is sent on
//! condition that its unique values are still the ones read: if another writer changed
//! them in between, the condition fails, DynamoDB returns the item as it is now, and the
//! write is planned again from it, a bounded number of times.
//!
//! - `create` and `insert` assume there is no item: one `TransactWriteItems`.
//! - `put` and an update that sets a unique attribute first assume the value does not
//!   change: one request with that condition, and no guard, when it holds (the failed
//!   condition returns the stored item otherwise).
//! - `delete` reads the item with a strongly consistent `GetItem` first.
//! - An update that does not touch a unique attribute is sent as it is.

use std::time::Duration;

use aws_sdk_dynamodb::operation::delete_item::{DeleteItemError, DeleteItemInput};
use aws_sdk_dynamodb::operation::get_item::GetItemInput;
use aws_sdk_dynamodb::operation::put_item::{PutItemError, PutItemInput};
use aws_sdk_dynamodb::operation::update_item::{UpdateItemError, UpdateItemInput};
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};
use tracing::Instrument as _;

use crate::batch::retry::Backoff;
use crate::client::Client;
use crate::error::{sdk_error, Error, ErrorKind, Result};
use crate::expr::{Comparison, Expr, Placeholders};
use crate::item::write_request::{
    self, Checks, Delete, Guarded, Put, Update, WriteKind, WriteSpec,
};
use crate::observe::span::{self, request_span};
use crate::observe::{Metadata, Reporting};
use crate::schema::unique::{self, GUARD_OWNER_HASH, GUARD_OWNER_RANGE};
use crate::schema::Schema;
use crate::value::Item;

/// How many times a write is planned again after another writer changed the item's
/// unique values between the read and the write, or a transaction touching the same
/// guard made DynamoDB cancel it (`TransactionConflict`).
const MAX_ATTEMPTS: u32 = 8;

/// The wait before planning again after a transaction conflict.
const BACKOFF: Backoff = Backoff {
    base: Duration::from_millis(10),
    max: Duration::from_millis(400),
};

/// The guard writes of one write, and the condition its item must meet for them to be
/// right: that the stored item is still the one they were planned from.
pub(crate) struct GuardPlan {
    /// The condition on the item: its unique sources hold what was read (or it is absent).
    pub unchanged: Expr,
    /// The guards to write and delete.
    pub guards: Vec<WriteSpec>,
    /// For each guard put, in `guards` order, the constraint and the values it claims.
    pub claims: Vec<Option<(usize, String)>>,
}

/// The item a write leaves, as far as the guards are concerned: `None` when deleted.
fn new_item(guarded: &Guarded, kind: &WriteKind, old: Option<&Item>) -> Option<Item> {
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

/// The condition that the stored item's unique sources are as in `old`, and that it
/// exists exactly when `old` does.
fn unchanged(schema: &'static Schema, old: Option<&Item>) -> Expr {
    let Some(old) = old else {
        return Expr::NotExists(schema.hash_key.name);
    };
    let mut parts = vec![Expr::Exists(schema.hash_key.name)];
    let mut seen: Vec<&'static str> = Vec::new();
    for name in schema.uniques.iter().flat_map(|u| u.sources()) {
        if seen.contains(&name) {
            continue;
        }
        seen.push(name);
        parts.push(match old.get(name) {
            Some(value) => Expr::Compare(name, Comparison::Eq, value.clone()),
            None => Expr::NotExists(name),
        });
    }
    Expr::And(parts)
}

/// The condition a write's first attempt adds: the unique sources it writes hold what it
/// writes already, so that no guard changes.
fn already_written(schema: &'static Schema, guarded: &Guarded, kind: &WriteKind) -> Expr {
    let compare = |name: &'static str, value: Option<&AttributeValue>| match value {
        Some(value) => Expr::Compare(name, Comparison::Eq, value.clone()),
        None => Expr::NotExists(name),
    };
    match (guarded, kind) {
        (Guarded::Update { touches, .. }, _) => Expr::And(
            touches
                .iter()
                .map(|(name, value)| compare(name, value.as_ref()))
                .collect(),
        ),
        (_, WriteKind::Put(Put(item))) => {
            let mut parts = vec![Expr::Exists(schema.hash_key.name)];
            for name in schema.uniques.iter().flat_map(|u| u.sources()) {
                parts.push(compare(name, item.get(name)));
            }
            Expr::And(parts)
        }
        _ => Expr::Exists(schema.hash_key.name),
    }
}

/// Whether `stored` holds the unique sources the first attempt assumed, so that its
/// failure was the caller's condition (or the write's own checks), not a changed value.
fn assumption_holds(spec: &WriteSpec, guarded: &Guarded, stored: Option<&Item>) -> bool {
    let Some(stored) = stored else {
        return false;
    };
    let same = |name: &str, value: Option<&AttributeValue>| stored.get(name) == value;
    match (guarded, &spec.kind) {
        (Guarded::Update { touches, .. }, _) => touches
            .iter()
            .all(|(name, value)| same(name, value.as_ref())),
        (_, WriteKind::Put(Put(item))) => spec
            .schema
            .uniques
            .iter()
            .flat_map(|u| u.sources())
            .all(|name| same(name, item.get(name))),
        _ => true,
    }
}

/// Whether two reads of the item agree on everything the guards depend on.
fn same_sources(schema: &Schema, a: Option<&Item>, b: Option<&Item>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => schema
            .uniques
            .iter()
            .flat_map(|u| u.sources())
            .all(|name| a.get(name) == b.get(name)),
        _ => false,
    }
}

/// Plans the guard writes of `spec`, from the stored item `old`.
pub(crate) fn plan(spec: &WriteSpec, old: Option<&Item>) -> Result<GuardPlan> {
    let schema = spec.schema;
    let fail = |e: Error| e.with_model(schema.model).with_operation(spec.operation);
    let Some(guarded) = &spec.guarded else {
        return Ok(GuardPlan {
            unchanged: unchanged(schema, old),
            guards: Vec::new(),
            claims: Vec::new(),
        });
    };
    let owner = spec.key();
    let new = new_item(guarded, &spec.kind, old);
    let mut guards = Vec::new();
    let mut claims = Vec::new();
    for (index, constraint) in schema.uniques.iter().enumerate() {
        let before = old.and_then(|item| constraint.values(item));
        let after = new.as_ref().and_then(|item| constraint.values(item));
        if before == after {
            continue;
        }
        if let Some(values) = &before {
            let key = constraint.guard_key(schema, values).map_err(fail)?;
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
            let condition = Expr::Or(vec![
                Expr::NotExists(schema.hash_key.name),
                Expr::And(owned),
            ]);
            guards.push(guard_spec(spec, WriteKind::Delete(Delete(key)), condition));
            claims.push(None);
        }
        if let Some(values) = &after {
            let item = constraint
                .guard_item(schema, values, &owner)
                .map_err(fail)?;
            let condition = Expr::NotExists(schema.hash_key.name);
            guards.push(guard_spec(spec, WriteKind::Put(Put(item)), condition));
            claims.push(Some((index, constraint.describe(values))));
        }
    }
    Ok(GuardPlan {
        unchanged: unchanged(schema, old),
        guards,
        claims,
    })
}

/// A guard's write, in the table of the write it follows.
fn guard_spec(spec: &WriteSpec, kind: WriteKind, condition: Expr) -> WriteSpec {
    let mut placeholders = Placeholders::default();
    let condition = placeholders.render_all(&[condition]);
    WriteSpec {
        schema: spec.schema,
        operation: spec.operation,
        table: spec.table.clone(),
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

/// The error of a guard put that failed: the value is held by the item the guard names.
pub(crate) fn conflict(
    schema: &'static Schema,
    operation: &'static str,
    constraint: usize,
    values: &str,
    guard: Option<&Item>,
) -> Error {
    let unique = &schema.uniques[constraint];
    let holder = guard.and_then(|g| unique::guard_owner(schema, g));
    let message = match &holder {
        Some(key) => format!(
            "{values} is already taken by the item {}",
            crate::value::show(&AttributeValue::M(key.clone()))
        ),
        None => format!("{values} is already taken"),
    };
    Error::new(ErrorKind::UniqueConflict, message)
        .with_model(schema.model)
        .with_operation(operation)
        .with_attribute(unique.attributes[0])
        .with_item(holder)
}

/// Whether an error is a failed condition of a single write (what `condition_failed`
/// makes), whose item is then the stored one.
fn is_condition(error: &Error) -> bool {
    matches!(
        error.kind(),
        ErrorKind::NotFound
            | ErrorKind::AlreadyExists
            | ErrorKind::ConditionFailed
            | ErrorKind::VersionConflict
    )
}

/// Sends a write of a model with unique attributes, with its guards. Gives what
/// `return_values` asks for, as a single write would.
pub(crate) async fn send(
    client: &Client,
    spec: WriteSpec,
    return_values: ReturnValue,
) -> Result<Option<Item>> {
    let Some(guarded) = spec.guarded.clone() else {
        return send_single(client, spec, return_values).await;
    };
    let creating = spec.checks.absent && matches!(guarded, Guarded::Put);
    let mut old = match guarded {
        // `create` and `insert`: the item must be new.
        _ if creating => None,
        Guarded::Delete => read(client, &spec).await?,
        _ => {
            // First assume that the unique values do not change: no guard to write.
            let mut first = spec.clone();
            add_condition(
                &mut first,
                &already_written(spec.schema, &guarded, &spec.kind),
            );
            match send_single(client, first, return_values.clone()).await {
                Ok(returned) => return Ok(returned),
                Err(error) if is_condition(&error) => {
                    let stored = error.item().filter(|i| !i.is_empty()).cloned();
                    if assumption_holds(&spec, &guarded, stored.as_ref()) {
                        return Err(error);
                    }
                    if stored.is_none() && spec.checks.present {
                        return Err(spec.condition_failed(None));
                    }
                    stored
                }
                Err(error) => return Err(error),
            }
        }
    };
    for attempt in 1..=MAX_ATTEMPTS {
        let plan = plan(&spec, old.as_ref())?;
        let mut main = spec.clone();
        main.guarded = None;
        add_condition(&mut main, &plan.unchanged);
        let outcome = if plan.guards.is_empty() {
            match send_single(client, main, return_values.clone()).await {
                Ok(returned) => return Ok(returned),
                Err(error) if is_condition(&error) => {
                    Failure::Item(error.item().filter(|i| !i.is_empty()).cloned())
                }
                Err(error) => return Err(error),
            }
        } else {
            let report = spec.report.clone();
            match send_transaction(client, main, plan.guards, report).await {
                Ok(()) => return returned_after(client, &spec, old, return_values).await,
                Err(failure) => failure,
            }
        };
        match outcome {
            Failure::Item(stored) => {
                if same_sources(spec.schema, stored.as_ref(), old.as_ref()) {
                    // The item is as planned from: the caller's condition or the write's
                    // own checks failed.
                    return Err(spec.condition_failed(stored));
                }
                old = stored;
            }
            Failure::Guard(position, guard) => {
                let Some((constraint, values)) = plan.claims.get(position).cloned().flatten()
                else {
                    // A guard to delete that another item owns: the stored item changed.
                    old = read(client, &spec).await?;
                    continue;
                };
                return Err(conflict(
                    spec.schema,
                    spec.operation,
                    constraint,
                    &values,
                    guard.as_ref(),
                ));
            }
            Failure::Other(error) if error.is_retryable() && attempt < MAX_ATTEMPTS => {
                // Another transaction was writing the same item or guard: wait, read again.
                tokio::time::sleep(BACKOFF.delay(attempt)).await;
                old = read(client, &spec).await?;
            }
            Failure::Other(error) => return Err(error),
        }
    }
    Err(Error::new(
        ErrorKind::TransactionConflict,
        format!(
            "the item's unique values changed {MAX_ATTEMPTS} times while this write was planned; \
             other writers keep changing it"
        ),
    )
    .with_model(spec.schema.model)
    .with_operation(spec.operation))
}

/// Why a guarded write failed.
enum Failure {
    /// The item's condition failed; DynamoDB returned the item as it is (if any).
    Item(Option<Item>),
    /// The guard write at this position (in the plan's guards) failed; the guard as it is.
    Guard(usize, Option<Item>),
    /// Anything else.
    Other(Error),
}

/// Sends the item's write and its guards in one transaction.
async fn send_transaction(
    client: &Client,
    main: WriteSpec,
    guards: Vec<WriteSpec>,
    report: Reporting,
) -> std::result::Result<(), Failure> {
    let mut transaction = client.transact_write().write_spec(main);
    for guard in guards {
        transaction = transaction.write_spec(guard);
    }
    transaction.report = report;
    let Err(error) = transaction.send_as_built().await else {
        return Ok(());
    };
    let failed = error
        .cancellation_reasons()
        .iter()
        .find(|r| r.code == "ConditionalCheckFailed");
    Err(match failed {
        Some(reason) if reason.index == 0 => Failure::Item(reason.item.clone()),
        Some(reason) => Failure::Guard(reason.index - 1, reason.item.clone()),
        None => Failure::Other(error),
    })
}

/// What a write sent as a transaction gives back, which DynamoDB does not return for
/// transactions: the item as read before (`ALL_OLD`), the item as written (a put's
/// `ALL_NEW`), or a strongly consistent read after it (an update's `ALL_NEW`); `UPDATED_*`
/// keep the attributes that differ between the two.
async fn returned_after(
    client: &Client,
    spec: &WriteSpec,
    old: Option<Item>,
    return_values: ReturnValue,
) -> Result<Option<Item>> {
    let new = || async {
        match &spec.kind {
            WriteKind::Put(Put(item)) => Ok(Some(item.clone())),
            _ => read(client, spec).await,
        }
    };
    Ok(match return_values {
        ReturnValue::AllOld => old,
        ReturnValue::AllNew => new().await?,
        ReturnValue::UpdatedNew | ReturnValue::UpdatedOld => {
            let new = new().await?.unwrap_or_default();
            let old = old.unwrap_or_default();
            let (from, other) = if return_values == ReturnValue::UpdatedNew {
                (new, old)
            } else {
                (old, new)
            };
            Some(
                from.into_iter()
                    .filter(|(name, value)| {
                        other.get(name) != Some(value)
                            && !spec.schema.keys.iter().any(|k| k.name == name)
                    })
                    .collect(),
            )
        }
        _ => None,
    })
}

/// Reads the stored item the write touches, strongly consistent.
async fn read(client: &Client, spec: &WriteSpec) -> Result<Option<Item>> {
    let read = RawRead {
        schema: spec.schema,
        operation: spec.operation,
        table: &spec.table,
        consistent: true,
        report: &spec.report,
    };
    read.send(client, spec.key()).await
}

/// One `GetItem` of raw attributes, in its own span.
pub(crate) struct RawRead<'a> {
    pub schema: &'static Schema,
    pub operation: &'static str,
    pub table: &'a str,
    pub consistent: bool,
    pub report: &'a Reporting,
}

impl RawRead<'_> {
    /// Reads the item with this key.
    pub(crate) async fn send(&self, client: &Client, key: Item) -> Result<Option<Item>> {
        let span = request_span!(
            "GetItem",
            self.schema.model,
            self.table,
            "aws.dynamodb.consistent_read" = self.consistent,
        );
        let result = GetItemInput::builder()
            .table_name(self.table)
            .set_key(Some(key))
            .consistent_read(self.consistent)
            .set_return_consumed_capacity(self.report.capacity.clone())
            .send_with(client.sdk())
            .instrument(span.clone())
            .await;
        match result {
            Ok(output) => {
                span::record_capacity(&span, output.consumed_capacity.as_slice());
                self.report
                    .record(&Metadata::single(output.consumed_capacity.as_slice()));
                Ok(output.item)
            }
            Err(e) => {
                let error = sdk_error(e, self.schema.model, self.operation, self.table);
                span::record_error(&span, &error);
                Err(error)
            }
        }
    }
}

/// Sends one write of any kind as its own request.
pub(crate) async fn send_single(
    client: &Client,
    spec: WriteSpec,
    return_values: ReturnValue,
) -> Result<Option<Item>> {
    let (kind, mut spec) = spec.replace_kind(());
    match kind {
        WriteKind::Put(Put(item)) => write_request::send_write!(
            client,
            "PutItem",
            &mut spec,
            PutItemInput::builder().set_item(Some(item)),
            return_values,
            PutItemError
        ),
        WriteKind::Update(Update { key, expression }) => write_request::send_write!(
            client,
            "UpdateItem",
            &mut spec,
            UpdateItemInput::builder()
                .set_key(Some(key))
                .update_expression(expression),
            return_values,
            UpdateItemError
        ),
        WriteKind::Delete(Delete(key)) => write_request::send_write!(
            client,
            "DeleteItem",
            &mut spec,
            DeleteItemInput::builder().set_key(Some(key)),
            return_values,
            DeleteItemError
        ),
        WriteKind::ConditionCheck(_) => Err(Error::validation(
            "a condition check is sent only as part of a transaction",
        )
        .with_model(spec.schema.model)
        .with_operation(spec.operation)),
    }
}

/// Sends a transaction some of whose writes are of models with unique attributes: their
/// stored items are read, their guards join the transaction, and each such write is on
/// condition that its item is still as read. A write whose item changed in between is
/// planned again (not with an idempotency token, which must not change its request).
pub(crate) async fn send_transaction_with_guards(
    client: &Client,
    specs: Vec<WriteSpec>,
    token: Option<String>,
    report: Reporting,
) -> Result<()> {
    let creating =
        |spec: &WriteSpec| spec.checks.absent && matches!(spec.guarded, Some(Guarded::Put));
    let mut olds = Vec::with_capacity(specs.len());
    for spec in &specs {
        olds.push(match &spec.guarded {
            Some(_) if !creating(spec) => read(client, spec).await?,
            _ => None,
        });
    }
    let count = specs.len();
    for attempt in 1..=MAX_ATTEMPTS {
        let mut transaction = client.transact_write();
        let mut guards: Vec<WriteSpec> = Vec::new();
        // For each guard: the operation it belongs to, and the value a guard put claims.
        let mut owners: Vec<usize> = Vec::new();
        let mut claims: Vec<Option<(usize, String)>> = Vec::new();
        for (index, (spec, old)) in specs.iter().zip(&olds).enumerate() {
            let mut main = spec.clone();
            if spec.guarded.is_some() {
                let plan = plan(spec, old.as_ref())?;
                add_condition(&mut main, &plan.unchanged);
                for (guard, claim) in plan.guards.into_iter().zip(plan.claims) {
                    let key = guard.key();
                    let Some(taken) = guards.iter().position(|g| g.key() == key) else {
                        guards.push(guard);
                        owners.push(index);
                        claims.push(claim);
                        continue;
                    };
                    // One operation frees the value that another takes: one put of the
                    // guard, on the freeing operation's condition that it owns it.
                    let deletes = |g: &WriteSpec| matches!(g.kind, WriteKind::Delete(_));
                    match (deletes(&guards[taken]), deletes(&guard)) {
                        (true, false) => {
                            let freed = guards.remove(taken);
                            owners.remove(taken);
                            claims.remove(taken);
                            guards.push(freed.replace_kind(guard.kind).1);
                            owners.push(index);
                            claims.push(claim);
                        }
                        (false, true) => {
                            let taking = guards.remove(taken);
                            let taker = owners.remove(taken);
                            let taker_claim = claims.remove(taken);
                            guards.push(guard.replace_kind(taking.kind).1);
                            owners.push(taker);
                            claims.push(taker_claim);
                        }
                        _ => {
                            let values = claim
                                .or_else(|| claims[taken].clone())
                                .map_or_else(String::new, |(_, values)| values);
                            return Err(Error::validation(format!(
                                "operations {} and {index} both write the guard of the unique value {values}; \
                                 a transaction can touch an item only once",
                                owners[taken]
                            ))
                            .with_model(spec.schema.model)
                            .with_operation("transact_write"));
                        }
                    }
                }
            }
            main.guarded = None;
            transaction = transaction.write_spec(main);
        }
        for guard in guards {
            transaction = transaction.write_spec(guard);
        }
        if let Some(token) = &token {
            transaction = transaction.idempotency_token(token.clone());
        }
        transaction.report = report.clone();
        let Err(error) = transaction.send_as_built().await else {
            return Ok(());
        };
        let mut replan = false;
        for reason in error.cancellation_reasons() {
            if reason.code != "ConditionalCheckFailed" {
                continue;
            }
            if reason.index < count {
                let spec = &specs[reason.index];
                let stored = reason.item.clone();
                if spec.guarded.is_some()
                    && !same_sources(spec.schema, stored.as_ref(), olds[reason.index].as_ref())
                {
                    olds[reason.index] = stored;
                    replan = true;
                }
                continue;
            }
            let position = reason.index - count;
            let owner = &specs[owners[position]];
            match claims.get(position).cloned().flatten() {
                Some((constraint, values)) => {
                    return Err(conflict(
                        owner.schema,
                        owner.operation,
                        constraint,
                        &values,
                        reason.item.as_ref(),
                    ))
                }
                None => {
                    olds[owners[position]] = read(client, owner).await?;
                    replan = true;
                }
            }
        }
        if !replan && token.is_none() && error.is_retryable() && attempt < MAX_ATTEMPTS {
            // Another transaction was writing the same items or guards: wait, read again.
            tokio::time::sleep(BACKOFF.delay(attempt)).await;
            for (spec, old) in specs.iter().zip(olds.iter_mut()) {
                if spec.guarded.is_some() && !creating(spec) {
                    *old = read(client, spec).await?;
                }
            }
            continue;
        }
        if !replan || token.is_some() {
            let reasons = error
                .cancellation_reasons()
                .iter()
                .take(count)
                .cloned()
                .collect();
            return Err(error.with_reasons(reasons));
        }
    }
    Err(Error::new(
        ErrorKind::TransactionConflict,
        format!(
            "the unique values of the transaction's items changed {MAX_ATTEMPTS} times while it was planned; \
             other writers keep changing them"
        ),
    )
    .with_operation("transact_write"))
}

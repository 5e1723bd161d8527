//! Writes of a model with `#[unique]` attributes or `#[count]`s, sent with their companion
//! writes (`companion.rs`: guard items and parent counts) in one transaction.
//!
//! The companions depend on what the item held before the write, which DynamoDB does not
//! give to a transaction. So the stored item is read first, and the write is sent on
//! condition that what the companions depend on is still what was read: if another
//! writer changed it in between, the condition fails, DynamoDB returns the item as it is
//! now, and the write is planned again from it, a bounded number of times.
//!
//! - `create` and `insert` assume there is no item: one `TransactWriteItems`.
//! - `put`, an `upsert`, and an update that sets a unique attribute or a counted parent's
//!   field first assume that the item exists and the values do not change: one request
//!   with that condition, and no companion, when it holds (the failed condition returns
//!   the stored item otherwise).
//! - `delete` reads the item with a strongly consistent `GetItem` first.
//! - An update that touches none of those attributes is sent as it is.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use aws_sdk_dynamodb::operation::delete_item::{DeleteItemError, DeleteItemInput};
use aws_sdk_dynamodb::operation::get_item::GetItemInput;
use aws_sdk_dynamodb::operation::put_item::{PutItemError, PutItemInput};
use aws_sdk_dynamodb::operation::update_item::{UpdateItemError, UpdateItemInput};
use aws_sdk_dynamodb::types::ReturnValue;
use tracing::Instrument as _;

use crate::batch::retry::{self, Backoff};
use crate::client::Client;
use crate::error::{sdk_error, Error, ErrorKind, Result};
use crate::item::companion::{self, add_condition};
use crate::item::write_request::{self, Delete, Guarded, Put, Update, WriteKind, WriteSpec};
use crate::observe::span::{self, request_span};
use crate::observe::{Metadata, Reporting};
use crate::schema::Schema;
use crate::value::Item;

/// How many times a write is planned again after another writer changed what its
/// companions depend on between the read and the write, or a transaction touching the
/// same items made DynamoDB cancel it (`TransactionConflict`).
const MAX_ATTEMPTS: u32 = 8;

/// The wait before planning again after a transaction conflict.
const BACKOFF: Backoff = Backoff {
    base: Duration::from_millis(10),
    max: Duration::from_millis(400),
};

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

/// Sends the write of a builder: `spec` is what its `spec()` made of it.
pub(crate) async fn send_spec<K: Into<WriteKind>>(
    client: Client,
    spec: Result<WriteSpec<K>>,
    return_values: ReturnValue,
) -> Result<Option<Item>> {
    send(&client, spec?.into_any(), return_values).await
}

/// [`send`] behind a pointer, for a caller that knows when it is compiled whether it needs
/// it: an `async fn` keeps a state, and the code to poll it, for every future it awaits,
/// even on a branch a constant rules out, but a boxed future's code is linked only where
/// the box is made.
pub(crate) fn send_boxed<'a>(
    client: &'a Client,
    spec: WriteSpec,
    return_values: ReturnValue,
) -> Pin<Box<dyn Future<Output = Result<Option<Item>>> + Send + 'a>> {
    Box::pin(send(client, spec, return_values))
}

/// Sends a single write (`create`, `put`, `update`, `delete`, `insert`): as its own
/// request, or with its companions when it has any. Gives what `return_values` asks for.
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
            // First assume that nothing the companions depend on changes.
            let mut first = spec.clone();
            add_condition(&mut first, &companion::already_written(&spec, &guarded));
            match send_single(client, first, return_values.clone()).await {
                Ok(returned) => return Ok(returned),
                Err(error) if is_condition(&error) => {
                    let stored = error.item().filter(|i| !i.is_empty()).cloned();
                    if companion::assumption_holds(&spec, &guarded, stored.as_ref()) {
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
        let plan = companion::plan(client, &spec, old.as_ref())?;
        let mut main = spec.clone();
        main.guarded = None;
        add_condition(&mut main, &plan.unchanged);
        let outcome = if plan.companions.is_empty() {
            match send_single(client, main, return_values.clone()).await {
                Ok(returned) => return Ok(returned),
                Err(error) if is_condition(&error) => {
                    Failure::Item(error.item().filter(|i| !i.is_empty()).cloned())
                }
                Err(error) => return Err(error),
            }
        } else {
            let report = spec.report.clone();
            let companions = plan.companions.iter().map(|c| c.spec.clone()).collect();
            match send_transaction(client, main, companions, report).await {
                Ok(()) => return returned_after(client, &spec, old, return_values).await,
                Err(failure) => failure,
            }
        };
        match outcome {
            Failure::Item(stored) => {
                if companion::same_sources(spec.schema, stored.as_ref(), old.as_ref()) {
                    // The item is as planned from: the caller's condition or the write's
                    // own checks failed.
                    return Err(spec.condition_failed(stored));
                }
                old = stored;
            }
            Failure::Companion(position, current) => {
                let role = &plan.companions[position].role;
                match companion::failure(&spec, role, current.as_ref()) {
                    Some(error) => return Err(error),
                    // A guard to release that another item owns: the stored item changed.
                    None => old = read(client, &spec).await?,
                }
            }
            Failure::Other(error) if retry::contention(&error) && attempt < MAX_ATTEMPTS => {
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
            "the item changed {MAX_ATTEMPTS} times while this write and its guards or counts were planned; \
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
    /// The companion write at this position failed; its item as it is.
    Companion(usize, Option<Item>),
    /// Anything else.
    Other(Error),
}

/// Sends the item's write and its companions in one transaction.
async fn send_transaction(
    client: &Client,
    main: WriteSpec,
    companions: Vec<WriteSpec>,
    report: Reporting,
) -> std::result::Result<(), Failure> {
    let mut transaction = client.transact_write().write_spec(main);
    for companion in companions {
        transaction = transaction.write_spec(companion);
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
        Some(reason) => Failure::Companion(reason.index - 1, reason.item.clone()),
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

/// Sends a put as its own `PutItem` request: `send_single` of a put, in a function of its
/// own, which puts of a model without companions call directly.
pub(crate) async fn send_put_single(
    client: &Client,
    spec: WriteSpec<Put>,
    return_values: ReturnValue,
) -> Result<Option<Item>> {
    let (Put(item), mut spec) = spec.replace_kind(());
    write_request::send_write!(
        client,
        "PutItem",
        &mut spec,
        PutItemInput::builder().set_item(Some(item)),
        return_values,
        PutItemError
    )
}

/// Sends one write of any kind as its own request.
pub(crate) async fn send_single(
    client: &Client,
    spec: WriteSpec,
    return_values: ReturnValue,
) -> Result<Option<Item>> {
    let (kind, mut spec) = spec.replace_kind(());
    match kind {
        WriteKind::Put(put) => {
            send_put_single(client, spec.replace_kind(put).1, return_values).await
        }
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

/// Sends a transaction some of whose writes have companions: their stored items are
/// read, their companions join the transaction (merged where two touch one item), and
/// each such write is on condition that its item is still as read. A write whose item
/// changed in between is planned again (not with an idempotency token, which must not
/// change its request).
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
        let mut companions = Vec::new();
        for (index, (spec, old)) in specs.iter().zip(&olds).enumerate() {
            let mut main = spec.clone();
            if spec.guarded.is_some() {
                let plan = companion::plan(client, spec, old.as_ref())?;
                add_condition(&mut main, &plan.unchanged);
                companions.extend(plan.companions.into_iter().map(|c| (index, c)));
            }
            main.guarded = None;
            transaction = transaction.write_spec(main);
        }
        let companions = companion::merge(client, &specs, companions)?;
        for (_, companion) in &companions {
            transaction = transaction.write_spec(companion.spec.clone());
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
                let old = olds[reason.index].as_ref();
                if spec.guarded.is_some()
                    && !companion::same_sources(spec.schema, stored.as_ref(), old)
                {
                    olds[reason.index] = stored;
                    replan = true;
                }
                continue;
            }
            let (owner, companion) = &companions[reason.index - count];
            let spec = &specs[*owner];
            match companion::failure(spec, &companion.role, reason.item.as_ref()) {
                Some(failure) => return Err(failure),
                None => {
                    olds[*owner] = read(client, spec).await?;
                    replan = true;
                }
            }
        }
        if !replan && token.is_none() && retry::contention(&error) && attempt < MAX_ATTEMPTS {
            // Another transaction was writing the same items: wait, read again.
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
            "the transaction's items changed {MAX_ATTEMPTS} times while their guards and counts were planned; \
             other writers keep changing them"
        ),
    )
    .with_operation("transact_write"))
}

//! Writes of a model with `#[unique]` attributes or `#[count]`s, sent with their companion
//! writes (`companion.rs`: guard items and parent counts) in one transaction.
//!
//! The companions depend on what the item held before the write, which DynamoDB does not
//! give to a transaction. So the stored item is read first, and the write is sent on
//! condition that what the companions depend on is still what was read: if another
//! writer changed it in between, the condition fails, DynamoDB returns the item as it is
//! now, and the write is planned again from it, a bounded number of times. A single write
//! and a `transact_write` are sent by one loop (`Request`), whose failed attempts
//! `replan.rs` judges from every reason DynamoDB gives, so both plan again alike.
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
use aws_sdk_dynamodb::operation::put_item::{PutItemError, PutItemInput};
use aws_sdk_dynamodb::operation::update_item::{UpdateItemError, UpdateItemInput};
use aws_sdk_dynamodb::types::ReturnValue;

use crate::client::Client;
use crate::error::retry::Backoff;
use crate::error::{Error, ErrorKind, Result};
use crate::item::companion::Known;
use crate::item::companion::{self, add_condition, Companion};
use crate::item::raw_read::read;
use crate::item::replan::{self, Failed, Verdict};
use crate::item::single_write;
use crate::item::transact::{Transaction, MAX_TRANSACTION_ITEMS};
use crate::item::write_request::{Delete, Guarded, Put, Update, WriteKind, WriteSpec};
use crate::observe::Reporting;
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
pub async fn send(
    client: &Client,
    spec: WriteSpec,
    return_values: ReturnValue,
) -> Result<Option<Item>> {
    let Some(guarded) = spec.guarded.clone() else {
        return send_single(client, spec, return_values).await;
    };
    let old = match guarded {
        // `create` and `insert`: the item must be new.
        _ if replan::creating(&spec) => None,
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
    let known = Known {
        olds: vec![old],
        ..Known::default()
    };
    let report = spec.report.clone();
    let request = Request {
        specs: std::slice::from_ref(&spec),
        token: None,
        report: &report,
        single: Some(return_values),
    };
    request.send(client, known).await
}

/// The writes of one request with their companions, and how to send them.
struct Request<'a> {
    specs: &'a [WriteSpec],
    /// A transaction's idempotency token: then it is sent once, never planned again.
    token: Option<&'a str>,
    report: &'a Reporting,
    /// For a single write, what it returns: it is then sent as its own request when it
    /// has no companion, and its errors are its own rather than a transaction's.
    single: Option<ReturnValue>,
}

impl Request<'_> {
    /// Sends the writes with their companions, planned from what is known, and planned
    /// again (`replan.rs`) while DynamoDB's answers show that the plan was stale, at most
    /// [`MAX_ATTEMPTS`] times.
    async fn send(&self, client: &Client, mut known: Known) -> Result<Option<Item>> {
        for attempt in 1..=MAX_ATTEMPTS {
            let planned = companion::attempt(client, self.specs, &known)?;
            let failed = match self
                .attempt(client, planned.writes, &planned.companions)
                .await
            {
                Sent::Written => {
                    return match (&self.single, self.specs.first()) {
                        (Some(return_values), Some(spec)) => {
                            let old = known.olds.into_iter().next().flatten();
                            returned_after(client, spec, old, return_values.clone()).await
                        }
                        _ => Ok(None),
                    };
                }
                Sent::Returned(returned) => return Ok(returned),
                Sent::Failed(failed) => failed,
                Sent::Error(error) => return Err(error),
            };
            let verdict =
                replan::judge(client, self.specs, &mut known, &planned.companions, &failed).await?;
            match verdict {
                Verdict::Own(index, stored) => return Err(self.own_error(index, stored, failed)),
                Verdict::Companion(error) => return Err(error),
                Verdict::Replan if self.token.is_none() => {}
                Verdict::Conflict if self.token.is_none() && attempt < MAX_ATTEMPTS => {
                    // Another transaction was writing the same items: wait, read again.
                    tokio::time::sleep(BACKOFF.delay(attempt)).await;
                    for (spec, old) in self.specs.iter().zip(known.olds.iter_mut()) {
                        if spec.guarded.is_some() && !replan::creating(spec) {
                            *old = read(client, spec).await?;
                        }
                    }
                }
                _ => return Err(self.request_error(failed)),
            }
        }
        let changed = match self.single {
            Some(_) => "the item changed",
            None => "the transaction's items changed",
        };
        let error = Error::new(
            ErrorKind::TransactionConflict,
            format!(
                "{changed} {MAX_ATTEMPTS} times while its guards and counts were planned; \
                 other writers keep changing them"
            ),
        )
        .with_operation(self.operation());
        Err(match (&self.single, self.specs.first()) {
            (Some(_), Some(spec)) => error.with_model(spec.schema.model),
            _ => error,
        })
    }

    fn operation(&self) -> &'static str {
        match (&self.single, self.specs.first()) {
            (Some(_), Some(spec)) => spec.operation,
            _ => "transact_write",
        }
    }

    /// Sends one attempt: a single write without companions as its own request, anything
    /// else as one transaction.
    async fn attempt(
        &self,
        client: &Client,
        mut writes: Vec<WriteSpec>,
        companions: &[Companion],
    ) -> Sent {
        if let (Some(return_values), true, 1) = (&self.single, companions.is_empty(), writes.len())
        {
            if let Some(write) = writes.pop() {
                return match send_single(client, write, return_values.clone()).await {
                    Ok(returned) => Sent::Returned(returned),
                    Err(error) if is_condition(&error) => Sent::Failed(Failed::single(error)),
                    Err(error) => Sent::Error(error),
                };
            }
        }
        let count = writes.len();
        let items = count + companions.len();
        if items > MAX_TRANSACTION_ITEMS {
            return Sent::Error(
                Error::validation(format!(
                    "the {count} operations write {} guards and counts with them: {items} items, \
                     and a transaction holds at most {MAX_TRANSACTION_ITEMS}; write them in smaller transactions",
                    companions.len()
                ))
                .with_operation(self.operation()),
            );
        }
        let mut transaction = Transaction::new(client);
        for write in writes {
            transaction = transaction.write_spec(write);
        }
        for companion in companions {
            transaction = transaction.write_spec(companion.spec.clone());
        }
        if let Some(token) = self.token {
            transaction = transaction.idempotency_token(token.to_owned());
        }
        transaction.report = self.report.clone();
        match transaction.send_as_built().await {
            Ok(()) => Sent::Written,
            Err(error) => Sent::Failed(Failed::transaction(error, count)),
        }
    }

    /// The error of the request when write `index`'s own condition failed: a single
    /// write's own error, or the transaction's.
    fn own_error(&self, index: usize, stored: Option<Item>, failed: Failed) -> Error {
        match (&self.single, self.specs.get(index)) {
            (Some(_), Some(spec)) => spec.condition_failed(stored),
            _ => self.request_error(failed),
        }
    }

    /// The request's error as DynamoDB gave it; a transaction's cancellation keeps the
    /// reasons of its own operations, not its companions'.
    fn request_error(&self, failed: Failed) -> Error {
        if self.single.is_some() {
            return failed.error;
        }
        let reasons = failed
            .error
            .cancellation_reasons()
            .iter()
            .take(self.specs.len())
            .cloned()
            .collect();
        failed.error.with_reasons(reasons)
    }
}

/// How an attempt ended.
enum Sent {
    /// Its transaction was written.
    Written,
    /// A single write sent as its own request, written: what it returned.
    Returned(Option<Item>),
    /// Conditions failed.
    Failed(Failed),
    /// Any other error.
    Error(Error),
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

/// Sends a put as its own `PutItem` request: `send_single` of a put, in a function of its
/// own, which puts of a model without companions call directly.
pub(crate) async fn send_put_single(
    client: &Client,
    spec: WriteSpec<Put>,
    return_values: ReturnValue,
) -> Result<Option<Item>> {
    let (Put(item), mut spec) = spec.replace_kind(());
    single_write::send_write!(
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
        WriteKind::Update(Update { key, expression }) => single_write::send_write!(
            client,
            "UpdateItem",
            &mut spec,
            UpdateItemInput::builder()
                .set_key(Some(key))
                .update_expression(expression),
            return_values,
            UpdateItemError
        ),
        WriteKind::Delete(Delete(key)) => single_write::send_write!(
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

/// Sends a write transaction: as it is built when none of its writes has companions, and
/// with their guards and counts otherwise (`send_transaction_with_guards`).
pub(crate) async fn send_transaction(transaction: Transaction) -> Result<()> {
    if transaction.has_guarded() {
        let report = transaction.report.clone();
        let (client, specs, token) = transaction.specs()?;
        return send_transaction_with_guards(&client, specs, token, report).await;
    }
    transaction.send_as_built().await
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
    let mut olds = Vec::with_capacity(specs.len());
    for spec in &specs {
        olds.push(match &spec.guarded {
            Some(_) if !replan::creating(spec) => read(client, spec).await?,
            _ => None,
        });
    }
    let known = Known {
        olds,
        ..Known::default()
    };
    let request = Request {
        specs: &specs,
        token: token.as_deref(),
        report: &report,
        single: None,
    };
    request.send(client, known).await.map(drop)
}

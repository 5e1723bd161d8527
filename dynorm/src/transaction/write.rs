//! Write transactions, and the condition checks they can hold.

use std::marker::PhantomData;

use aws_sdk_dynamodb::operation::transact_write_items::{
    TransactWriteItemsError, TransactWriteItemsInput,
};
use aws_sdk_dynamodb::types::{ReturnConsumedCapacity, TransactWriteItem};
use tracing::Instrument;

use crate::client::Client;
use crate::error::{from_sdk, CancellationReason, Error, Result};
use crate::expr::{Condition, Conjunction, Placeholders};
use crate::item;
use crate::item::write_request::{self, Checks, ConditionCheck, WriteSpec};
use crate::observe::span::{self, request_span};
use crate::observe::{report_setters, Metadata, Predicted, Reporting};
use crate::schema::Model;
use crate::transaction::{
    canceled, private, single_table, with_table, TransactWriteOperation, MAX_TRANSACTION_ITEMS,
};
use crate::value::Item;

/// The operation a write transaction's errors name.
const OPERATION: &str = "transact_write";

impl Client {
    /// A write transaction: up to 100 `create`, `put`, `update` and `delete` operations
    /// and condition [`check`](TransactWrite::check)s across models, all or nothing.
    pub fn transact_write(&self) -> TransactWrite {
        TransactWrite::new(self)
    }
}

/// A condition on an item that a transaction checks without writing it: made by
/// [`TransactWrite::check`].
#[must_use = "a condition check does nothing until it is part of a transaction"]
pub struct ConditionCheckItem<M: Model> {
    client: Client,
    key: Result<Item>,
    condition: Conjunction,
    model: PhantomData<fn() -> M>,
}

impl<M: Model> ConditionCheckItem<M> {
    pub(crate) fn new(client: &Client, key: M::Key, condition: Condition<M>) -> Self {
        let mut conjunction = Conjunction::default();
        conjunction.push(condition);
        Self {
            client: client.clone(),
            key: item::typed_key::<M>(&key, "condition_check"),
            condition: conjunction,
            model: PhantomData,
        }
    }
}

impl<M: Model> TransactWriteOperation for ConditionCheckItem<M> {}
#[allow(private_interfaces)]
impl<M: Model> private::Sealed for ConditionCheckItem<M> {
    fn into_spec(self) -> Result<WriteSpec> {
        let fail = |e: Error| {
            e.with_model(M::SCHEMA.model)
                .with_operation("condition_check")
        };
        if let Some(error) = self.condition.first_error() {
            return Err(fail(error.clone()));
        }
        let key = self.key?;
        let checks = Checks::default();
        let mut placeholders = Placeholders::default();
        let condition =
            write_request::condition(&M::SCHEMA, &checks, self.condition, &mut placeholders)
                .map_err(fail)?;
        Ok(WriteSpec {
            schema: &M::SCHEMA,
            operation: "condition_check",
            table: self.client.table_name::<M>(),
            kind: ConditionCheck(key).into(),
            condition,
            placeholders,
            checks,
            report: Reporting::default(),
            guarded: None,
        })
    }
}

/// A pending write transaction. Build it with [`Client::transact_write`].
///
/// ```no_run
/// # use dynorm::Model;
/// # #[derive(Model, Clone)] struct Order { #[hash_key] id: String, paid: bool }
/// # async fn demo(db: dynorm::Client, open: Order) -> Result<(), dynorm::Error> {
/// let paid = Order { id: "o2".into(), paid: true };
/// db.transact_write()
///     .write(db.delete::<Order>(open.key()).require_exists(true))
///     .write(db.create(&paid))
///     .send()
///     .await?;
/// # Ok(()) }
/// ```
#[must_use = "a transaction does nothing until it is sent"]
pub struct TransactWrite {
    client: Client,
    writes: Vec<Result<WriteSpec>>,
    token: Option<String>,
    pub(crate) report: Reporting,
}

impl TransactWrite {
    pub(crate) fn new(client: &Client) -> Self {
        Self {
            client: client.clone(),
            writes: Vec::new(),
            token: None,
            report: Reporting::default(),
        }
    }

    /// Adds a write: a `create`, `put`, `update` or `delete` builder.
    pub fn write(mut self, write: impl TransactWriteOperation) -> Self {
        self.writes.push(private::Sealed::into_spec(write));
        self
    }

    /// Adds a condition on the item of `M` with this key, which the transaction checks
    /// without writing it: the transaction is cancelled unless it holds.
    pub fn check<M: Model>(self, key: impl Into<M::Key>, condition: Condition<M>) -> Self {
        let check = ConditionCheckItem::new(&self.client, key.into(), condition);
        self.write(check)
    }

    /// Adds a write already checked, for the operations that build their own transactions.
    pub(crate) fn write_spec(mut self, spec: WriteSpec) -> Self {
        self.writes.push(Ok(spec));
        self
    }

    /// Makes the request idempotent for ten minutes: sending it again with the same token
    /// does not apply it twice.
    pub fn idempotency_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    report_setters!(report);

    /// The `TransactWriteItems` input [`send`](Self::send) would send, without sending
    /// it. Every error `send` would find before sending is found here. Without an
    /// [`idempotency_token`](Self::idempotency_token), the SDK makes one as it sends, so
    /// only that field of the request differs from the preview.
    pub fn preview(&self) -> Result<TransactWriteItemsInput> {
        let copy = TransactWrite {
            client: self.client.clone(),
            writes: self.writes.clone(),
            token: self.token.clone(),
            report: self.report.clone(),
        };
        let capacity = copy.report.capacity.clone();
        let (_, specs, token) = copy.specs()?;
        let items = transact_items(&specs)?;
        input(items, token, capacity)
            .build()
            .map_err(|e| Error::validation(e.to_string()).with_operation(OPERATION))
    }

    /// The capacity the transaction would consume, predicted without sending it: each
    /// operation's write units, twice over, as DynamoDB charges a transaction; ranges with
    /// their reasons where the items already stored decide. Every error `send` would find
    /// before sending is found here.
    pub fn predict(&self) -> Result<Predicted> {
        let copy = TransactWrite {
            client: self.client.clone(),
            writes: self.writes.clone(),
            token: self.token.clone(),
            report: self.report.clone(),
        };
        let (client, specs, _) = copy.specs()?;
        item::predict::transaction(&client, &specs)
    }

    /// Checks everything that can be checked before sending.
    fn specs(self) -> Result<(Client, Vec<WriteSpec>, Option<String>)> {
        let operation = OPERATION;
        let count = self.writes.len();
        if count == 0 || count > MAX_TRANSACTION_ITEMS {
            return Err(Error::validation(format!(
                "a transaction has 1 to {MAX_TRANSACTION_ITEMS} operations, not {count}"
            ))
            .with_operation(operation));
        }
        let mut specs = Vec::with_capacity(count);
        for (index, write) in self.writes.into_iter().enumerate() {
            let spec = write.map_err(|e| {
                let message = format!("operation {index}: {}", e.message());
                let mut error = Error::new(e.kind(), message).with_operation(operation);
                if let Some(model) = e.model() {
                    error = error.with_model(model);
                }
                if let Some(attribute) = e.attribute() {
                    error = error.with_attribute(attribute);
                }
                error
            })?;
            if let Some(first) = specs
                .iter()
                .position(|s: &WriteSpec| s.table == spec.table && s.key() == spec.key())
            {
                return Err(Error::validation(format!(
                    "operations {first} and {index} touch the same item; a transaction can touch an item only once"
                ))
                .with_model(spec.schema.model)
                .with_operation(operation));
            }
            specs.push(spec);
        }
        Ok((self.client, specs, self.token))
    }

    /// Sends the transaction. When DynamoDB cancels it, the error is
    /// [`ErrorKind::TransactionCanceled`](crate::ErrorKind::TransactionCanceled) with one [`CancellationReason`] per operation.
    pub async fn send(self) -> Result<()> {
        if self
            .writes
            .iter()
            .any(|w| w.as_ref().is_ok_and(|s| s.guarded.is_some()))
        {
            let report = self.report.clone();
            let (client, specs, token) = self.specs()?;
            return item::guarded::send_transaction_with_guards(&client, specs, token, report)
                .await;
        }
        self.send_as_built().await
    }

    /// Sends the transaction as it is, without adding guard items.
    pub(crate) async fn send_as_built(self) -> Result<()> {
        let report = self.report.clone();
        let capacity = self.report.capacity.clone();
        let (client, specs, token) = self.specs()?;
        let items = transact_items(&specs)?;
        let span = request_span!(
            "TransactWriteItems",
            tracing::field::Empty,
            tracing::field::Empty,
            "dynorm.transaction.items" = specs.len(),
        );
        span::record_names(
            &span,
            || span::joined(specs.iter().map(|s| s.schema.model)),
            || span::joined(specs.iter().map(|s| s.table.as_str())),
        );
        let result = input(items, token, capacity)
            .send_with(client.sdk())
            .instrument(span.clone())
            .await;
        let result = match result {
            Ok(output) => {
                let consumed = output.consumed_capacity.as_deref().unwrap_or_default();
                span::record_capacity(&span, consumed);
                report.record(&Metadata::single(consumed));
                Ok(())
            }
            Err(e) => Err(Self::failure(e, &specs)),
        };
        if let Err(error) = &result {
            span::record_error(&span, error);
        }
        result
    }

    /// The error of a transaction DynamoDB refused.
    fn failure(
        e: aws_sdk_dynamodb::error::SdkError<
            TransactWriteItemsError,
            aws_sdk_dynamodb::config::http::HttpResponse,
        >,
        specs: &[WriteSpec],
    ) -> Error {
        match e.as_service_error() {
            Some(TransactWriteItemsError::TransactionCanceledException(cancelled)) => {
                let reasons: Vec<CancellationReason> = specs
                    .iter()
                    .enumerate()
                    .map(|(index, spec)| {
                        let reason = cancelled.cancellation_reasons().get(index);
                        let code = reason.and_then(|r| r.code()).unwrap_or("None").to_owned();
                        let item = reason
                            .and_then(|r| r.item().cloned())
                            .filter(|i| !i.is_empty());
                        let kind = (code == "ConditionalCheckFailed")
                            .then(|| spec.condition_failed(item.clone()).kind());
                        CancellationReason {
                            index,
                            operation: spec.operation,
                            model: spec.schema.model,
                            code,
                            message: reason.and_then(|r| r.message()).map(str::to_owned),
                            kind,
                            item,
                        }
                    })
                    .collect();
                canceled(OPERATION, reasons, e)
            }
            _ => {
                let table = single_table(specs.iter().map(|s| s.table.as_str()));
                with_table(from_sdk(e).with_operation(OPERATION), table)
            }
        }
    }
}

/// The items of a transaction, in order.
fn transact_items(specs: &[WriteSpec]) -> Result<Vec<TransactWriteItem>> {
    specs
        .iter()
        .cloned()
        .map(WriteSpec::into_transact_item)
        .collect()
}

/// The request of a transaction: what is sent, and what a preview shows.
fn input(
    items: Vec<TransactWriteItem>,
    token: Option<String>,
    capacity: Option<ReturnConsumedCapacity>,
) -> aws_sdk_dynamodb::operation::transact_write_items::builders::TransactWriteItemsInputBuilder {
    TransactWriteItemsInput::builder()
        .set_transact_items(Some(items))
        .set_client_request_token(token)
        .set_return_consumed_capacity(capacity)
}

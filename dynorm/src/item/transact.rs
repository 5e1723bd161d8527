//! One `TransactWriteItems` request of writes already checked, sent as it is built: what
//! a write transaction, a write with companions (`guarded.rs`) and `insert_many` send.
//! Whether guards and counts join it first is `guarded::send_transaction`'s to decide.

use aws_sdk_dynamodb::operation::transact_write_items::{
    TransactWriteItemsError, TransactWriteItemsInput,
};
use aws_sdk_dynamodb::types::{ReturnConsumedCapacity, TransactWriteItem};
use tracing::Instrument;

use crate::client::Client;
use crate::error::{from_sdk, CancellationReason, Error, ErrorKind, Result};
use crate::item::write_request::WriteSpec;
use crate::observe::span::{self, request_span};
use crate::observe::{Metadata, Predicted, Reporting};

/// The operation a write transaction's errors name.
const OPERATION: &str = "transact_write";

/// DynamoDB's limit on the operations of one transaction.
pub const MAX_TRANSACTION_ITEMS: usize = 100;

/// The error of a transaction DynamoDB cancelled: one reason per operation, and a
/// message that lists the operations that failed.
pub(crate) fn canceled<S>(
    operation: &'static str,
    reasons: Vec<CancellationReason>,
    source: S,
) -> Error
where
    S: std::error::Error + Send + Sync + 'static,
{
    let summary = reasons
        .iter()
        .filter(|r| r.is_failure())
        .map(|r| {
            format!(
                "operation {} ({} on `{}`): {}",
                r.index, r.operation, r.model, r.code
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    Error::new(
        ErrorKind::TransactionCanceled,
        format!("the transaction was cancelled: {summary}"),
    )
    .with_operation(operation)
    .with_reasons(reasons)
    .with_source(source)
}

/// The table every operation of a transaction touches, when they all touch one.
pub(crate) fn single_table<'a>(mut tables: impl Iterator<Item = &'a str>) -> Option<String> {
    let first = tables.next()?;
    tables.all(|t| t == first).then(|| first.to_owned())
}

/// Names the transaction's table, when it has one, on an error of the whole request.
pub(crate) fn with_table(error: Error, table: Option<String>) -> Error {
    match table {
        Some(table) => error.with_table(table),
        None => error,
    }
}

/// A write transaction's checked writes, its idempotency token and its reporting.
#[derive(Clone)]
pub(crate) struct Transaction {
    client: Client,
    writes: Vec<Result<WriteSpec>>,
    token: Option<String>,
    pub(crate) report: Reporting,
}

impl Transaction {
    /// The client the transaction is sent with.
    pub(crate) fn client(&self) -> &Client {
        &self.client
    }

    pub(crate) fn new(client: &Client) -> Self {
        Self {
            client: client.clone(),
            writes: Vec::new(),
            token: None,
            report: Reporting::default(),
        }
    }

    /// Adds a write, or the error of a write that could not be built.
    pub(crate) fn write(mut self, write: Result<WriteSpec>) -> Self {
        self.writes.push(write);
        self
    }

    /// Adds a write already checked.
    pub(crate) fn write_spec(self, spec: WriteSpec) -> Self {
        self.write(Ok(spec))
    }

    /// Makes the request idempotent.
    pub(crate) fn idempotency_token(mut self, token: String) -> Self {
        self.token = Some(token);
        self
    }

    /// Whether a write has companions, which `guarded::send_transaction` adds.
    pub(crate) fn has_guarded(&self) -> bool {
        self.writes
            .iter()
            .any(|w| w.as_ref().is_ok_and(|s| s.guarded.is_some()))
    }

    /// The `TransactWriteItems` input, without sending it.
    pub(crate) fn preview(&self) -> Result<TransactWriteItemsInput> {
        let copy = self.clone();
        let capacity = copy.report.capacity();
        let (_, specs, token) = copy.specs()?;
        let items = transact_items(&specs)?;
        input(items, token, capacity)
            .build()
            .map_err(|e| Error::validation(e.to_string()).with_operation(OPERATION))
    }

    /// The capacity the transaction would consume, predicted without sending it.
    pub(crate) fn predict(&self) -> Result<Predicted> {
        let (client, specs, _) = self.clone().specs()?;
        crate::item::predict::transaction(&client, &specs)
    }

    /// Checks everything that can be checked before sending.
    pub(crate) fn specs(self) -> Result<(Client, Vec<WriteSpec>, Option<String>)> {
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

    /// Sends the transaction as it is, without adding guard items.
    pub(crate) async fn send_as_built(self) -> Result<()> {
        let report = self.report.clone();
        let capacity = self.report.capacity();
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

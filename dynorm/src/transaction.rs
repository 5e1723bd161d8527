//! Transactions: up to 100 writes across models, all or nothing, with typed reasons when
//! DynamoDB cancels one; and transactional reads.

use std::marker::PhantomData;

use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{Get, TransactGetItem};

use crate::client::Client;
use crate::condition::{Condition, Expr};
use crate::error::{Error, ErrorKind, Result};
use crate::expr::Placeholders;
use crate::model::{Item, Model};
use crate::ops::write::{self, Checks, WriteKind, WriteSpec};
use crate::ops::{self, CreateItem, DeleteItem, PutItem, UpdateItem};

/// DynamoDB's limit on the operations of one transaction.
pub const MAX_TRANSACTION_ITEMS: usize = 100;

/// A write that can be part of a transaction: `create`, `put`, `update`, `delete` and
/// `condition_check` builders.
pub trait TransactionWrite: private::Sealed {}

/// The sealed half of [`TransactionWrite`]: what it does stays inside dynorm.
#[allow(private_interfaces)]
mod private {
    /// Turns a builder into the write it describes.
    pub trait Sealed: Sized {
        fn into_spec(self) -> crate::error::Result<crate::ops::write::WriteSpec>;
    }
}

impl<M: Model> TransactionWrite for CreateItem<'_, M> {}
#[allow(private_interfaces)]
impl<M: Model> private::Sealed for CreateItem<'_, M> {
    fn into_spec(self) -> Result<WriteSpec> {
        self.spec()
    }
}

impl<M: Model> TransactionWrite for PutItem<'_, M> {}
#[allow(private_interfaces)]
impl<M: Model> private::Sealed for PutItem<'_, M> {
    fn into_spec(self) -> Result<WriteSpec> {
        self.spec()
    }
}

impl<M: Model> TransactionWrite for DeleteItem<M> {}
#[allow(private_interfaces)]
impl<M: Model> private::Sealed for DeleteItem<M> {
    fn into_spec(self) -> Result<WriteSpec> {
        self.spec()
    }
}

impl<M: Model> TransactionWrite for UpdateItem<M> {}
#[allow(private_interfaces)]
impl<M: Model> private::Sealed for UpdateItem<M> {
    fn into_spec(self) -> Result<WriteSpec> {
        self.spec()
    }
}

/// A condition on an item that a transaction checks without writing it. Build it with
/// [`Client::condition_check`].
#[must_use = "a condition check does nothing until it is part of a transaction"]
pub struct ConditionCheckItem<M: Model> {
    client: Client,
    key: Result<Item>,
    condition: Vec<Expr>,
    errors: Vec<Error>,
    model: PhantomData<fn() -> M>,
}

impl<M: Model> ConditionCheckItem<M> {
    pub(crate) fn new(client: &Client, key: M::Key, condition: Condition<M>) -> Self {
        let (parts, errors) = condition.into_conjuncts();
        Self {
            client: client.clone(),
            key: ops::typed_key::<M>(&key, "condition_check"),
            condition: parts,
            errors,
            model: PhantomData,
        }
    }
}

impl<M: Model> TransactionWrite for ConditionCheckItem<M> {}
#[allow(private_interfaces)]
impl<M: Model> private::Sealed for ConditionCheckItem<M> {
    fn into_spec(self) -> Result<WriteSpec> {
        if let Some(error) = self.errors.into_iter().next() {
            return Err(error
                .with_model(M::SCHEMA.model)
                .with_operation("condition_check"));
        }
        let key = self.key?;
        let checks = Checks::default();
        let mut placeholders = Placeholders::default();
        let condition = write::condition(&M::SCHEMA, &checks, self.condition, &mut placeholders);
        Ok(WriteSpec {
            schema: &M::SCHEMA,
            operation: "condition_check",
            table: self.client.table_name::<M>(),
            kind: WriteKind::ConditionCheck(key),
            condition,
            placeholders,
            checks,
        })
    }
}

/// Why one operation of a cancelled transaction failed, from DynamoDB's structured
/// `CancellationReasons`.
#[derive(Clone, Debug)]
pub struct CancellationReason {
    /// The operation's position in the transaction, from 0.
    pub index: usize,
    /// `create`, `put`, `update`, `delete` or `condition_check`.
    pub operation: &'static str,
    /// The model the operation wrote.
    pub model: &'static str,
    /// DynamoDB's code: `None` for an operation that did not fail, `ConditionalCheckFailed`,
    /// `TransactionConflict`, `ValidationError`, `ItemCollectionSizeLimitExceeded`, ...
    pub code: String,
    /// DynamoDB's message, if any.
    pub message: Option<String>,
    /// For a failed condition, what it means: `AlreadyExists` for a `create`, `NotFound`
    /// for an item that had to exist, `VersionConflict`, or `ConditionFailed`.
    pub kind: Option<ErrorKind>,
    /// The item as stored, for a failed condition.
    pub item: Option<Item>,
}

impl CancellationReason {
    /// Whether this operation caused the cancellation.
    pub fn is_failure(&self) -> bool {
        self.code != "None"
    }

    /// The stored item decoded as `M`, when this operation wrote model `M`.
    pub fn current_item<M: Model>(&self) -> Option<Result<M>> {
        if self.model != M::SCHEMA.model {
            return None;
        }
        self.item.clone().map(M::from_item)
    }
}

/// A pending write transaction. Build it with [`Client::transaction`].
///
/// ```no_run
/// # use dynorm::Model;
/// # #[derive(Model, Clone)] struct Order { #[hash_key] id: String, paid: bool }
/// # async fn demo(db: dynorm::Client, open: Order) -> Result<(), dynorm::Error> {
/// let paid = Order { id: "o2".into(), paid: true };
/// db.transaction()
///     .write(db.delete::<Order>(open.key()).require_exists(true))
///     .write(db.create(&paid))
///     .send()
///     .await?;
/// # Ok(()) }
/// ```
#[must_use = "a transaction does nothing until it is sent"]
pub struct WriteTransaction {
    client: Client,
    writes: Vec<Result<WriteSpec>>,
    token: Option<String>,
}

impl WriteTransaction {
    pub(crate) fn new(client: &Client) -> Self {
        Self {
            client: client.clone(),
            writes: Vec::new(),
            token: None,
        }
    }

    /// Adds a write: a `create`, `put`, `update`, `delete` or `condition_check` builder.
    pub fn write(mut self, write: impl TransactionWrite) -> Self {
        self.writes.push(private::Sealed::into_spec(write));
        self
    }

    /// Makes the request idempotent for ten minutes: sending it again with the same token
    /// does not apply it twice.
    pub fn idempotency_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// Checks everything that can be checked before sending.
    fn specs(self) -> Result<(Client, Vec<WriteSpec>, Option<String>)> {
        let operation = "transaction";
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
    /// [`ErrorKind::TransactionCanceled`] with one [`CancellationReason`] per operation.
    pub async fn send(self) -> Result<()> {
        let (client, specs, token) = self.specs()?;
        let items = specs
            .iter()
            .cloned()
            .map(WriteSpec::into_transact_item)
            .collect::<Result<Vec<_>>>()?;
        let result = client
            .sdk()
            .transact_write_items()
            .set_transact_items(Some(items))
            .set_client_request_token(token)
            .send()
            .await;
        match result {
            Ok(_) => Ok(()),
            Err(e) => match e.as_service_error() {
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
                    Err(Error::new(
                        ErrorKind::TransactionCanceled,
                        format!("the transaction was cancelled: {summary}"),
                    )
                    .with_operation("transaction")
                    .with_reasons(reasons)
                    .with_source(e))
                }
                _ => Err(Error::service(e).with_operation("transaction")),
            },
        }
    }
}

/// A pending read transaction: a consistent snapshot of up to 100 items across models.
/// Build it with [`Client::transact_get`].
#[must_use = "a transaction does nothing until it is sent"]
pub struct GetTransaction {
    client: Client,
    gets: Vec<Result<(&'static str, TransactGetItem)>>,
}

impl GetTransaction {
    pub(crate) fn new(client: &Client) -> Self {
        Self {
            client: client.clone(),
            gets: Vec::new(),
        }
    }

    /// Reads the item of `M` with this key; its result has the position of this call.
    pub fn get<M: Model>(mut self, key: impl Into<M::Key>) -> Self {
        let get = ops::typed_key::<M>(&key.into(), "transact_get").and_then(|key| {
            let get = Get::builder()
                .table_name(self.client.table_name::<M>())
                .set_key(Some(key))
                .build()
                .map_err(|e| Error::validation(e.to_string()).with_model(M::SCHEMA.model))?;
            Ok((M::SCHEMA.model, TransactGetItem::builder().get(get).build()))
        });
        self.gets.push(get);
        self
    }

    /// Sends the request.
    pub async fn send(self) -> Result<GetTransactionItems> {
        let count = self.gets.len();
        if count == 0 || count > MAX_TRANSACTION_ITEMS {
            return Err(Error::validation(format!(
                "a transaction has 1 to {MAX_TRANSACTION_ITEMS} operations, not {count}"
            ))
            .with_operation("transact_get"));
        }
        let (models, items): (Vec<_>, Vec<_>) = self
            .gets
            .into_iter()
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .unzip();
        let output = self
            .client
            .sdk()
            .transact_get_items()
            .set_transact_items(Some(items))
            .send()
            .await
            .map_err(|e| Error::service(e).with_operation("transact_get"))?;
        let responses = output.responses.unwrap_or_default();
        let items = models
            .into_iter()
            .enumerate()
            .map(|(i, model)| {
                (
                    model,
                    responses
                        .get(i)
                        .and_then(|r| r.item.clone())
                        .filter(|i| !i.is_empty()),
                )
            })
            .collect();
        Ok(GetTransactionItems { items })
    }
}

/// The items a read transaction returned, in request order.
#[derive(Debug, Clone)]
pub struct GetTransactionItems {
    items: Vec<(&'static str, Option<Item>)>,
}

impl GetTransactionItems {
    /// The item at `index` decoded as `M`: `Ok(None)` when there is no such item, and an
    /// error when `index` is out of range or was a read of another model.
    pub fn get<M: Model>(&self, index: usize) -> Result<Option<M>> {
        match self.items.get(index) {
            Some((model, item)) if *model == M::SCHEMA.model => item
                .clone()
                .map(M::from_item)
                .transpose()
                .map_err(|e| e.with_operation("transact_get")),
            Some((model, _)) => Err(Error::validation(format!(
                "read {index} is of model `{model}`, not `{}`",
                M::SCHEMA.model
            ))),
            None => Err(Error::validation(format!(
                "there is no read {index}; there are {}",
                self.items.len()
            ))),
        }
    }

    /// How many reads there were.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether there were no reads.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

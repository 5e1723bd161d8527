//! Write transactions, and the condition checks they can hold.

use std::marker::PhantomData;

use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsInput;

use super::operation::{private, TransactWriteOperation};
use crate::client::Client;
use crate::error::{Error, Result};
use crate::expr::{Condition, Conjunction, Placeholders};
use crate::item;
use crate::item::guarded;
use crate::item::transact::Transaction;
use crate::item::write_request::{self, Checks, ConditionCheck, WriteSpec};
use crate::observe::{request, Predicted, Reporting};
use crate::schema::Model;
use crate::value::Item;

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
    inner: Transaction,
}

impl TransactWrite {
    pub(crate) fn new(client: &Client) -> Self {
        Self {
            inner: Transaction::new(client),
        }
    }

    /// Adds a write: a `create`, `put`, `update` or `delete` builder.
    pub fn write(mut self, write: impl TransactWriteOperation) -> Self {
        self.inner = self.inner.write(private::Sealed::into_spec(write));
        self
    }

    /// Adds a condition on the item of `M` with this key, which the transaction checks
    /// without writing it: the transaction is cancelled unless it holds.
    pub fn check<M: Model>(self, key: impl Into<M::Key>, condition: Condition<M>) -> Self {
        let check = ConditionCheckItem::new(self.inner.client(), key.into(), condition);
        self.write(check)
    }

    /// Makes the request idempotent for ten minutes: sending it again with the same token
    /// does not apply it twice.
    pub fn idempotency_token(mut self, token: impl Into<String>) -> Self {
        self.inner = self.inner.idempotency_token(token.into());
        self
    }

    /// Sends the transaction. When DynamoDB cancels it, the error is
    /// [`ErrorKind::TransactionCanceled`](crate::ErrorKind::TransactionCanceled) with one [`CancellationReason`](crate::error::CancellationReason) per operation.
    pub async fn send(self) -> Result<()> {
        guarded::send_transaction(self.inner).await
    }
}

request! {
    impl[] TransactWrite { inner.report => TransactWriteItemsInput }

    /// The `TransactWriteItems` input [`send`](TransactWrite::send) would send, without sending
    /// it. Every error `send` would find before sending is found here. Without an
    /// [`idempotency_token`](TransactWrite::idempotency_token), the SDK makes one as it sends, so
    /// only that field of the request differs from the preview.
    fn preview(&self) -> Result<TransactWriteItemsInput> {
        self.inner.preview()
    }

    /// The capacity the transaction would consume, predicted without sending it: each
    /// operation's write units, twice over, as DynamoDB charges a transaction; ranges with
    /// their reasons where the items already stored decide. Every error `send` would find
    /// before sending is found here.
    fn predict(&self) -> Result<Predicted> {
        self.inner.predict()
    }
}

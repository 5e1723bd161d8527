//! Read transactions: a consistent snapshot of up to 100 items across models.

use aws_sdk_dynamodb::operation::transact_get_items::{
    TransactGetItemsError, TransactGetItemsInput,
};
use aws_sdk_dynamodb::types::{Get, TransactGetItem};
use tracing::Instrument;

use crate::client::Client;
use crate::error::{from_sdk, CancellationReason, Error, Result};
use crate::item;
use crate::item::transact::{canceled, single_table, with_table, MAX_TRANSACTION_ITEMS};
use crate::observe::reads::{self, ByKey};
use crate::observe::span::{self, request_span};
use crate::observe::{request, Metadata, Predicted, Reporting};
use crate::schema::Model;
use crate::value::Item;

/// The operation a read transaction's errors name.
const OPERATION: &str = "transact_get";

impl Client {
    /// A read transaction: a consistent snapshot of up to 100 items across models.
    pub fn transact_get(&self) -> TransactGet {
        TransactGet::new(self)
    }
}

/// A pending read transaction: a consistent snapshot of up to 100 items across models.
/// Build it with [`Client::transact_get`].
#[must_use = "a transaction does nothing until it is sent"]
pub struct TransactGet {
    client: Client,
    gets: Vec<Result<(&'static str, TransactGetItem)>>,
    /// The largest item each read can return: its model's `max_item_bytes`, or 400 KB.
    bounds: Vec<usize>,
    include_expired: bool,
    report: Reporting,
}

impl TransactGet {
    pub(crate) fn new(client: &Client) -> Self {
        Self {
            client: client.clone(),
            gets: Vec::new(),
            bounds: Vec::new(),
            include_expired: false,
            report: Reporting::default(),
        }
    }

    /// Reads the item of `M` with this key; its result has the position of this call.
    pub fn get<M: Model>(mut self, key: impl Into<M::Key>) -> Self {
        let get = item::typed_key::<M>(&key.into(), OPERATION).and_then(|key| {
            let get = Get::builder()
                .table_name(self.client.table_name::<M>())
                .set_key(Some(key))
                .build()
                .map_err(|e| Error::validation(e.to_string()).with_model(M::SCHEMA.model))?;
            Ok((M::SCHEMA.model, TransactGetItem::builder().get(get).build()))
        });
        self.gets.push(get);
        self.bounds.push(M::SCHEMA.item_bound());
        self
    }

    /// Returns items whose `#[ttl]` has passed but that DynamoDB has not deleted yet. By
    /// default they read as absent, as with `get`.
    pub fn include_expired(mut self, include: bool) -> Self {
        self.include_expired = include;
        self
    }

    /// The models and items of the reads, once checked.
    fn checked(
        gets: Vec<Result<(&'static str, TransactGetItem)>>,
    ) -> Result<(Vec<&'static str>, Vec<TransactGetItem>)> {
        let count = gets.len();
        if count == 0 || count > MAX_TRANSACTION_ITEMS {
            return Err(Error::validation(format!(
                "a transaction has 1 to {MAX_TRANSACTION_ITEMS} operations, not {count}"
            ))
            .with_operation(OPERATION));
        }
        Ok(gets
            .into_iter()
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .unzip())
    }

    fn predicted(&self, size: Option<usize>) -> Result<Predicted> {
        let (_, items) = Self::checked(self.gets.clone())?;
        let mut predicted = Predicted::default();
        predicted.add_requests(1);
        for (item, &bound) in items.iter().zip(&self.bounds) {
            let table = item.get().map(|get| get.table_name()).unwrap_or_default();
            reads::by_key(&mut predicted, table, ByKey::Transaction, true, size, bound);
        }
        Ok(predicted)
    }

    /// Sends the request.
    pub async fn send(self) -> Result<TransactGetResults> {
        let (models, items) = Self::checked(self.gets)?;
        let table = single_table(items.iter().filter_map(|i| i.get()).map(Get::table_name));
        let span = request_span!(
            "TransactGetItems",
            tracing::field::Empty,
            tracing::field::Empty,
            "dynorm.transaction.items" = items.len(),
        );
        span::record_names(
            &span,
            || span::joined(models.iter().copied()),
            || span::joined(items.iter().filter_map(|i| i.get()).map(Get::table_name)),
        );
        let result = TransactGetItemsInput::builder()
            .set_transact_items(Some(items))
            .set_return_consumed_capacity(self.report.capacity())
            .send_with(self.client.sdk())
            .instrument(span.clone())
            .await;
        let output = match result {
            Ok(output) => output,
            Err(e) => {
                let error = match e.as_service_error() {
                    Some(TransactGetItemsError::TransactionCanceledException(cancelled)) => {
                        let reasons = models
                            .iter()
                            .enumerate()
                            .map(|(index, model)| {
                                let reason = cancelled.cancellation_reasons().get(index);
                                CancellationReason {
                                    index,
                                    operation: OPERATION,
                                    model,
                                    code: reason
                                        .and_then(|r| r.code())
                                        .unwrap_or("None")
                                        .to_owned(),
                                    message: reason.and_then(|r| r.message()).map(str::to_owned),
                                    kind: None,
                                    item: reason
                                        .and_then(|r| r.item().cloned())
                                        .filter(|i| !i.is_empty()),
                                }
                            })
                            .collect();
                        canceled(OPERATION, reasons, e)
                    }
                    _ => with_table(from_sdk(e).with_operation(OPERATION), table),
                };
                span::record_error(&span, &error);
                return Err(error);
            }
        };
        let consumed = output.consumed_capacity.as_deref().unwrap_or_default();
        span::record_capacity(&span, consumed);
        self.report.record(&Metadata::single(consumed));
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
        Ok(TransactGetResults {
            items,
            include_expired: self.include_expired,
        })
    }
}

/// The items a read transaction returned, in request order.
#[derive(Debug, Clone)]
pub struct TransactGetResults {
    items: Vec<(&'static str, Option<Item>)>,
    include_expired: bool,
}

impl TransactGetResults {
    /// The item at `index` decoded as `M`: `Ok(None)` when there is no such item, and an
    /// error when `index` is out of range or was a read of another model.
    pub fn get<M: Model>(&self, index: usize) -> Result<Option<M>> {
        match self.items.get(index) {
            Some((model, item)) if *model == M::SCHEMA.model => item
                .clone()
                .filter(|item| self.include_expired || !M::SCHEMA.is_expired(item))
                .map(M::from_item)
                .transpose()
                .map_err(|e| e.with_operation(OPERATION)),
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

request! {
    impl[] TransactGet { report => TransactGetItemsInput }

    /// The `TransactGetItems` input [`send`](TransactGet::send) would send, without sending it.
    fn preview(&self) -> Result<TransactGetItemsInput> {
        let (_, items) = Self::checked(self.gets.clone())?;
        TransactGetItemsInput::builder()
            .set_transact_items(Some(items))
            .set_return_consumed_capacity(self.report.capacity())
            .build()
            .map_err(|e| Error::validation(e.to_string()).with_operation(OPERATION))
    }

    /// The read units the transaction would consume, predicted without sending it: each
    /// item read strongly and counted twice, as DynamoDB charges a transaction, in a range
    /// up to the largest item (its model's `max_item_bytes`, or 400 KB), since an item's size is known only once it is read.
    fn predict(&self) -> Result<Predicted> {
        self.predicted(None)
    }
}

//! Read transactions: a consistent snapshot of up to 100 items across models.

use aws_sdk_dynamodb::operation::transact_get_items::TransactGetItemsError;
use aws_sdk_dynamodb::types::{Get, TransactGetItem};

use crate::client::Client;
use crate::error::{from_sdk, CancellationReason, Error, Result};
use crate::item;
use crate::schema::Model;
use crate::transaction::{canceled, single_table, with_table, MAX_TRANSACTION_ITEMS};
use crate::value::Item;

/// The operation a read transaction's errors name.
const OPERATION: &str = "transact_get";

impl Client {
    /// A read transaction: a consistent snapshot of up to 100 items across models.
    pub fn transact_get(&self) -> GetTransaction {
        GetTransaction::new(self)
    }
}

/// A pending read transaction: a consistent snapshot of up to 100 items across models.
/// Build it with [`Client::transact_get`].
#[must_use = "a transaction does nothing until it is sent"]
pub struct GetTransaction {
    client: Client,
    gets: Vec<Result<(&'static str, TransactGetItem)>>,
    include_expired: bool,
}

impl GetTransaction {
    pub(crate) fn new(client: &Client) -> Self {
        Self {
            client: client.clone(),
            gets: Vec::new(),
            include_expired: false,
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
        self
    }

    /// Returns items whose `#[ttl]` has passed but that DynamoDB has not deleted yet. By
    /// default they read as absent, as with `get`.
    pub fn include_expired(mut self, include: bool) -> Self {
        self.include_expired = include;
        self
    }

    /// Sends the request.
    pub async fn send(self) -> Result<GetTransactionItems> {
        let count = self.gets.len();
        if count == 0 || count > MAX_TRANSACTION_ITEMS {
            return Err(Error::validation(format!(
                "a transaction has 1 to {MAX_TRANSACTION_ITEMS} operations, not {count}"
            ))
            .with_operation(OPERATION));
        }
        let (models, items): (Vec<_>, Vec<_>) = self
            .gets
            .into_iter()
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .unzip();
        let table = single_table(items.iter().filter_map(|i| i.get()).map(Get::table_name));
        let result = self
            .client
            .sdk()
            .transact_get_items()
            .set_transact_items(Some(items))
            .send()
            .await;
        let output = match result {
            Ok(output) => output,
            Err(e) => {
                return Err(match e.as_service_error() {
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
                })
            }
        };
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
        Ok(GetTransactionItems {
            items,
            include_expired: self.include_expired,
        })
    }
}

/// The items a read transaction returned, in request order.
#[derive(Debug, Clone)]
pub struct GetTransactionItems {
    items: Vec<(&'static str, Option<Item>)>,
    include_expired: bool,
}

impl GetTransactionItems {
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

//! `PutItem`: `create` (conditional on the key being new) and `put` (unconditional).

use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::types::{ReturnValue, ReturnValuesOnConditionCheckFailure};

use crate::client::Client;
use crate::error::{Error, ErrorKind, Result};
use crate::model::{Item, Model};
use crate::ops;

/// A pending `create`. Build it with [`Client::create`].
#[must_use = "a request does nothing until it is sent"]
pub struct CreateItem<'a, M: Model> {
    client: Client,
    item: &'a M,
    overwrite: bool,
}

impl<'a, M: Model> CreateItem<'a, M> {
    pub(crate) fn new(client: &Client, item: &'a M) -> Self {
        Self {
            client: client.clone(),
            item,
            overwrite: false,
        }
    }

    /// Writes even when an item with the same key exists, replacing it.
    pub fn overwrite(mut self, overwrite: bool) -> Self {
        self.overwrite = overwrite;
        self
    }

    /// Sends the request. Without `overwrite`, an existing item gives
    /// [`ErrorKind::AlreadyExists`], carrying the stored item.
    pub async fn send(self) -> Result<()> {
        const OPERATION: &str = "create";
        let item = self
            .item
            .to_item()
            .map_err(|e| e.with_operation(OPERATION))?;
        let mut request = self
            .client
            .sdk()
            .put_item()
            .table_name(self.client.table_name::<M>())
            .set_item(Some(item));
        if !self.overwrite {
            request = request
                .condition_expression("attribute_not_exists(#hash)")
                .expression_attribute_names("#hash", M::SCHEMA.hash_key.name)
                .return_values_on_condition_check_failure(
                    ReturnValuesOnConditionCheckFailure::AllOld,
                );
        }
        match request.send().await {
            Ok(_) => Ok(()),
            Err(e) => Err(match condition_failure(&e) {
                Some(existing) => Error::new(
                    ErrorKind::AlreadyExists,
                    "an item with this key already exists",
                )
                .with_model(M::SCHEMA.model)
                .with_operation(OPERATION)
                .with_item(existing),
                None => ops::sdk_error(e, M::SCHEMA.model, OPERATION),
            }),
        }
    }
}

/// The stored item, when a put failed its condition.
fn condition_failure<R>(
    error: &aws_sdk_dynamodb::error::SdkError<PutItemError, R>,
) -> Option<Option<Item>> {
    match error.as_service_error() {
        Some(PutItemError::ConditionalCheckFailedException(failed)) => Some(failed.item.clone()),
        _ => None,
    }
}

/// A pending `put`. Build it with [`Client::put`].
#[must_use = "a request does nothing until it is sent"]
pub struct PutItem<'a, M: Model> {
    client: Client,
    item: &'a M,
}

impl<'a, M: Model> PutItem<'a, M> {
    const OPERATION: &'static str = "put";

    pub(crate) fn new(client: &Client, item: &'a M) -> Self {
        Self {
            client: client.clone(),
            item,
        }
    }

    async fn send_with(self, return_values: ReturnValue) -> Result<Option<Item>> {
        let item = self
            .item
            .to_item()
            .map_err(|e| e.with_operation(Self::OPERATION))?;
        let output = self
            .client
            .sdk()
            .put_item()
            .table_name(self.client.table_name::<M>())
            .set_item(Some(item))
            .return_values(return_values)
            .send()
            .await
            .map_err(|e| ops::sdk_error(e, M::SCHEMA.model, Self::OPERATION))?;
        Ok(output.attributes)
    }

    /// Sends the request.
    pub async fn send(self) -> Result<()> {
        self.send_with(ReturnValue::None).await.map(drop)
    }

    /// Sends the request and returns the item it replaced, if any.
    pub async fn send_returning_old(self) -> Result<Option<M>> {
        let old = self.send_with(ReturnValue::AllOld).await?;
        ops::decode(old, Self::OPERATION)
    }
}

//! `DeleteItem` by typed or raw key.

use std::marker::PhantomData;

use aws_sdk_dynamodb::operation::delete_item::DeleteItemError;
use aws_sdk_dynamodb::types::ReturnValue;

use crate::client::Client;
use crate::error::{Error, ErrorKind, Result};
use crate::model::{Item, Model};
use crate::ops;

const OPERATION: &str = "delete";

/// A pending `DeleteItem`. Build it with [`Client::delete`].
#[must_use = "a request does nothing until it is sent"]
pub struct DeleteItem<M: Model> {
    client: Client,
    key: Result<Item>,
    require_exists: bool,
    model: PhantomData<fn() -> M>,
}

impl<M: Model> DeleteItem<M> {
    pub(crate) fn new(client: &Client, key: M::Key) -> Self {
        Self::with_key(client, ops::typed_key::<M>(&key, OPERATION))
    }

    pub(crate) fn new_raw(client: &Client, key: Item) -> Self {
        Self::with_key(client, ops::raw_key::<M>(key, OPERATION))
    }

    fn with_key(client: &Client, key: Result<Item>) -> Self {
        Self {
            client: client.clone(),
            key,
            require_exists: false,
            model: PhantomData,
        }
    }

    /// Fails with [`ErrorKind::NotFound`] when there is no such item, instead of
    /// succeeding without deleting anything.
    pub fn require_exists(mut self, require: bool) -> Self {
        self.require_exists = require;
        self
    }

    async fn send_with(self, return_values: ReturnValue) -> Result<Option<Item>> {
        let key = self.key?;
        let mut request = self
            .client
            .sdk()
            .delete_item()
            .table_name(self.client.table_name::<M>())
            .set_key(Some(key))
            .return_values(return_values);
        if self.require_exists {
            request = request
                .condition_expression("attribute_exists(#hash)")
                .expression_attribute_names("#hash", M::SCHEMA.hash_key.name);
        }
        match request.send().await {
            Ok(output) => Ok(output.attributes),
            Err(e)
                if matches!(
                    e.as_service_error(),
                    Some(DeleteItemError::ConditionalCheckFailedException(_))
                ) =>
            {
                Err(Error::new(ErrorKind::NotFound, "no item has this key")
                    .with_model(M::SCHEMA.model)
                    .with_operation(OPERATION))
            }
            Err(e) => Err(ops::sdk_error(e, M::SCHEMA.model, OPERATION)),
        }
    }

    /// Sends the request.
    pub async fn send(self) -> Result<()> {
        self.send_with(ReturnValue::None).await.map(drop)
    }

    /// Sends the request and returns the deleted item, if there was one.
    pub async fn send_returning_old(self) -> Result<Option<M>> {
        let old = self.send_with(ReturnValue::AllOld).await?;
        ops::decode(old, OPERATION)
    }
}

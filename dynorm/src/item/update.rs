//! Sending an [`UpdateItem`]: [`Client::update`], its preview, its prediction and its
//! sends, through [`read_composite`](super::read_composite) when it reads first.

use aws_sdk_dynamodb::operation::update_item::UpdateItemInput;
use aws_sdk_dynamodb::types::ReturnValue;

use crate::client::Client;
use crate::error::{Error, Result};
use crate::item;
use crate::item::update_item::UpdateItem;
use crate::observe::{request, Predicted};
use crate::schema::Model;
use crate::value::Item;

const OPERATION: &str = "update";

impl Client {
    /// Updates one item by its typed key, with typed actions. The item must exist unless
    /// the update is an [`upsert`](UpdateItem::upsert).
    pub fn update<M: Model>(&self, key: impl Into<M::Key>) -> UpdateItem<M> {
        UpdateItem::new(self, key.into())
    }
}

impl<M: Model> UpdateItem<M> {
    async fn send_with(self, return_values: ReturnValue) -> Result<Option<Item>> {
        if self.reads_first() {
            return item::read_composite::send(self, return_values).await;
        }
        item::guarded::send_spec(self.client().clone(), self.spec(), return_values).await
    }

    /// Sends the `UpdateItem` request.
    pub async fn send(self) -> Result<()> {
        self.send_with(ReturnValue::None).await.map(drop)
    }

    /// Sends the request and returns the whole item after the update.
    pub async fn send_returning_new(self) -> Result<M> {
        let new = self.send_with(ReturnValue::AllNew).await?;
        item::decode(new, OPERATION)?.ok_or_else(|| {
            Error::validation("DynamoDB returned no item")
                .with_model(M::SCHEMA.model)
                .with_operation(OPERATION)
        })
    }

    /// Sends the request and returns the whole item before the update, if there was one.
    pub async fn send_returning_old(self) -> Result<Option<M>> {
        let old = self.send_with(ReturnValue::AllOld).await?;
        item::decode(old, OPERATION)
    }

    /// Sends the request and returns the updated attributes, after the update.
    pub async fn send_returning_updated_new(self) -> Result<Item> {
        Ok(self
            .send_with(ReturnValue::UpdatedNew)
            .await?
            .unwrap_or_default())
    }

    /// Sends the request and returns the updated attributes, before the update.
    pub async fn send_returning_updated_old(self) -> Result<Item> {
        Ok(self
            .send_with(ReturnValue::UpdatedOld)
            .await?
            .unwrap_or_default())
    }
}

request! {
    impl[M: Model] UpdateItem<M> { report => UpdateItemInput }

    /// The `UpdateItem` input [`send`](UpdateItem::send) would send, without sending it. Every
    /// error `send` would find before sending is found here.
    fn preview(&self) -> Result<UpdateItemInput> {
        let spec = self.clone().spec()?;
        item::single_write::preview_write!(
            &spec,
            UpdateItemInput::builder()
                .set_key(Some(spec.kind.key.clone()))
                .update_expression(&spec.kind.expression),
            ReturnValue::None
        )
    }

    /// The capacity the request would consume, predicted from the request and the model's
    /// schema without sending it: exact where the request decides it, a range with its
    /// reasons where the item already stored does. With
    /// [`read_composite`](UpdateItem::read_composite), the `GetItem` it sends first is counted.
    /// Every error `send` would find before sending is found here.
    fn predict(&self) -> Result<Predicted> {
        if !self.reads_first() {
            return item::predict::single(self.client(), &self.clone().spec()?);
        }
        item::read_composite::predict(self)
    }
}

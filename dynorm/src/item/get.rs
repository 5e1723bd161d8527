//! `GetItem` by typed or raw key.

use std::marker::PhantomData;

use crate::client::Client;
use crate::error::{sdk_error, Error, ErrorKind, Result};
use crate::item;
use crate::schema::Model;
use crate::value::Item;

const OPERATION: &str = "get";

impl Client {
    /// Reads one item by its typed key. A model with only a hash key also takes the bare
    /// value: `db.get::<User>("u1")`.
    pub fn get<M: Model>(&self, key: impl Into<M::Key>) -> GetItem<M> {
        GetItem::new(self, key.into())
    }

    /// Reads one item by raw key attributes, skipping the fields' storage. The key must
    /// still have every key attribute; a missing one is an error before sending.
    pub fn get_raw<M: Model>(&self, key: Item) -> GetItem<M> {
        GetItem::new_raw(self, key)
    }
}

/// A pending `GetItem`. Build it with [`Client::get`], then call [`send`](Self::send).
#[must_use = "a request does nothing until it is sent"]
pub struct GetItem<M: Model> {
    client: Client,
    key: Result<Item>,
    consistent_read: bool,
    include_expired: bool,
    model: PhantomData<fn() -> M>,
}

impl<M: Model> GetItem<M> {
    pub(crate) fn new(client: &Client, key: M::Key) -> Self {
        Self::with_key(client, item::typed_key::<M>(&key, OPERATION))
    }

    pub(crate) fn new_raw(client: &Client, key: Item) -> Self {
        Self::with_key(client, item::raw_key::<M>(key, OPERATION))
    }

    fn with_key(client: &Client, key: Result<Item>) -> Self {
        Self {
            client: client.clone(),
            key,
            consistent_read: false,
            include_expired: false,
            model: PhantomData,
        }
    }

    /// Reads with strong consistency.
    pub fn consistent_read(mut self, consistent: bool) -> Self {
        self.consistent_read = consistent;
        self
    }

    /// Returns an item even when its `#[ttl]` has passed. By default such an item reads as
    /// absent, since DynamoDB deletes expired items only eventually.
    pub fn include_expired(mut self, include: bool) -> Self {
        self.include_expired = include;
        self
    }

    /// Sends the request. `Ok(None)` when there is no such item, or it has expired.
    pub async fn send(self) -> Result<Option<M>> {
        let key = self.key?;
        let table = self.client.table_name::<M>();
        let output = self
            .client
            .sdk()
            .get_item()
            .table_name(&table)
            .set_key(Some(key))
            .consistent_read(self.consistent_read)
            .send()
            .await
            .map_err(|e| sdk_error(e, M::SCHEMA.model, OPERATION, &table))?;
        let item = output
            .item
            .filter(|item| self.include_expired || !M::SCHEMA.is_expired(item));
        item::decode(item, OPERATION)
    }

    /// Sends the request, with [`ErrorKind::NotFound`] when there is no such item.
    pub async fn send_required(self) -> Result<M> {
        self.send().await?.ok_or_else(|| {
            Error::new(ErrorKind::NotFound, "no item has this key")
                .with_model(M::SCHEMA.model)
                .with_operation(OPERATION)
        })
    }
}

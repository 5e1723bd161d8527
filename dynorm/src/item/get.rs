//! `GetItem` by typed or raw key.

use std::marker::PhantomData;

use aws_sdk_dynamodb::operation::get_item::builders::GetItemInputBuilder;
use aws_sdk_dynamodb::operation::get_item::GetItemInput;
use tracing::Instrument;

use crate::client::Client;
use crate::error::{sdk_error, Result};
use crate::item;
use crate::item::read_options::{read_setters, ReadOptions};
use crate::observe::reads::{self, ByKey};
use crate::observe::span::{self, request_span};
use crate::observe::{request, Metadata, Predicted, Reporting};
use crate::schema::Model;
use crate::value::Item;

const OPERATION: &str = "get";

impl Client {
    /// Reads one item by its typed key. A model with only a hash key also takes the bare
    /// value: `db.get::<User>("u1")`.
    pub fn get<M: Model>(&self, key: impl Into<M::Key>) -> GetItem<M> {
        GetItem::with_key(self, item::typed_key::<M>(&key.into(), OPERATION))
    }
}

/// A pending `GetItem`. Build it with [`Client::get`], then call [`send`](Self::send).
#[must_use = "a request does nothing until it is sent"]
pub struct GetItem<M: Model> {
    client: Client,
    key: Result<Item>,
    read: ReadOptions,
    /// Whether the item is taken whatever its identity attributes say.
    ignore_identity: bool,
    report: Reporting,
    model: PhantomData<fn() -> M>,
}

impl<M: Model> Clone for GetItem<M> {
    fn clone(&self) -> Self {
        Self {
            client: self.client.clone(),
            key: self.key.clone(),
            read: self.read,
            ignore_identity: self.ignore_identity,
            report: self.report.clone(),
            model: PhantomData,
        }
    }
}

impl<M: Model> GetItem<M> {
    /// Reads one item of `M` by raw key attributes, skipping the fields' storage:
    /// `GetItem::<User>::raw(&db, key)`. The key must still have every key attribute; a
    /// missing one is an error before sending.
    pub fn raw(client: &Client, key: Item) -> Self {
        Self::with_key(client, item::raw_key::<M>(key, OPERATION))
    }

    fn with_key(client: &Client, key: Result<Item>) -> Self {
        Self {
            client: client.clone(),
            key,
            read: ReadOptions::default(),
            ignore_identity: false,
            report: Reporting::default(),
            model: PhantomData,
        }
    }

    read_setters!(
        read;
        /// Reads with strong consistency.
        ;
        /// Returns an item even when its `#[ttl]` has passed. By default such an item reads as
        /// absent, since DynamoDB deletes expired items only eventually.
    );

    /// Takes the item at the key as `M`'s even when it lacks the entity's identity
    /// attributes, or they name another entity: an item another program wrote with the
    /// same keys, as ElectroDB's `ignoreOwnership` reads it. By default such an item is an
    /// error ([`ErrorKind::Conversion`](crate::ErrorKind)) naming the attribute. It must still
    /// decode as `M`.
    pub fn ignore_identity(mut self) -> Self {
        self.ignore_identity = true;
        self
    }

    /// The request, from its table name and key.
    fn input(&self, table: String, key: crate::value::Item) -> GetItemInputBuilder {
        GetItemInput::builder()
            .table_name(table)
            .set_key(Some(key))
            .consistent_read(self.read.consistent_read)
            .set_return_consumed_capacity(self.report.capacity())
    }

    /// Sends the request. `Ok(None)` when there is no such item, or it has expired.
    pub async fn send(mut self) -> Result<Option<M>> {
        let key = std::mem::replace(&mut self.key, Ok(crate::value::Item::new()))?;
        let table = self.client.table_name::<M>();
        let span = request_span!(
            "GetItem",
            M::SCHEMA.model,
            table.as_str(),
            "aws.dynamodb.consistent_read" = self.read.consistent_read,
        );
        let result = self
            .input(table, key)
            .send_with(self.client.sdk())
            .instrument(span.clone())
            .await
            .map_err(|e| {
                let table = self.client.table_name::<M>();
                sdk_error(e, M::SCHEMA.model, OPERATION, &table)
            });
        let output = match result {
            Ok(output) => output,
            Err(error) => {
                span::record_error(&span, &error);
                return Err(error);
            }
        };
        span::record_capacity(&span, output.consumed_capacity.as_slice());
        self.report
            .record(&Metadata::single(output.consumed_capacity.as_slice()));
        let mut item = output
            .item
            .filter(|item| self.read.include_expired || !M::SCHEMA.is_expired(item));
        if let (true, Some(item), Some(entity)) =
            (self.ignore_identity, item.as_mut(), M::SCHEMA.entity)
        {
            entity.adopt(item);
        }
        item::decode(item, OPERATION)
    }
}

request! {
    impl[M: Model] GetItem<M> { report => GetItemInput }

    /// The `GetItem` input [`send`](GetItem::send) would send.
    fn preview(&self) -> Result<GetItemInput> {
        let key = self.key.clone()?;
        self.input(self.client.table_name::<M>(), key)
            .build()
            .map_err(|e| item::built(e, M::SCHEMA.model, OPERATION))
    }

    /// The read units the request would consume: a range from what an absent item costs
    /// to what the largest item (the model's `max_item_bytes`, or 400 KB) costs, since an
    /// item's size is known only once it is read.
    fn predict(&self) -> Result<Predicted> {
        self.key.as_ref().map_err(Clone::clone)?;
        let mut predicted = Predicted::default();
        predicted.add_requests(1);
        let table = self.client.table_name::<M>();
        let consistent = self.read.consistent_read;
        let bound = M::SCHEMA.item_bound();
        reads::by_key(&mut predicted, &table, ByKey::Get, consistent, None, bound);
        Ok(predicted)
    }
}

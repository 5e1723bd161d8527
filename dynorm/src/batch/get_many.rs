//! [`GetMany`], a read of many items of one model by key: a [`BatchGet`] of one model.

use std::marker::PhantomData;

use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemInput;
use aws_sdk_dynamodb::types::ReturnConsumedCapacity;

use super::get::BatchGet;
use super::options::BatchOptions;
use crate::observe::{Predicted, Tally};
use crate::schema::Model;

/// A pending read of many items of one model by key. Build it with [`Client::get_many`](crate::Client::get_many).
#[must_use = "a request does nothing until it is sent"]
pub struct GetMany<M: Model> {
    pub(super) batch: BatchGet,
    pub(super) model: PhantomData<fn() -> M>,
}

impl<M: Model> GetMany<M> {
    /// Reads with strong consistency.
    pub fn consistent_read(self, consistent: bool) -> Self {
        self.map(|batch| batch.consistent_read(consistent))
    }

    /// Returns items whose `#[ttl]` has passed but that DynamoDB has not deleted yet.
    pub fn include_expired(self, include: bool) -> Self {
        self.map(|batch| batch.include_expired(include))
    }

    /// Sets concurrency, attempts and delays.
    pub fn options(self, options: BatchOptions) -> Self {
        self.map(|batch| batch.options(options))
    }

    /// Asks DynamoDB for the capacity the requests consume; it is added to the
    /// [`tally`](Self::tally).
    pub fn return_consumed_capacity(self, capacity: ReturnConsumedCapacity) -> Self {
        self.map(|batch| batch.return_consumed_capacity(capacity))
    }

    /// Adds the requests sent and what they cost to `tally`.
    pub fn tally(self, tally: &Tally) -> Self {
        self.map(|batch| batch.tally(tally))
    }

    /// The `BatchGetItem` input of each chunk, without sending anything.
    pub fn preview(&self) -> crate::Result<Vec<BatchGetItemInput>> {
        self.batch.preview()
    }

    /// The read units the reads would consume, predicted without sending them, as
    /// [`BatchGet::predict`] does.
    pub fn predict(&self) -> crate::Result<Predicted> {
        self.batch.predict()
    }

    /// As [`predict`](Self::predict), for items of `item_bytes` bytes each, as
    /// [`BatchGet::predict_for`] does.
    pub fn predict_for(&self, item_bytes: u32) -> crate::Result<Predicted> {
        self.batch.predict_for(item_bytes)
    }

    /// Sends every read, and returns the items that exist; order is not kept.
    pub async fn send(self) -> crate::Result<Vec<M>> {
        self.batch.send().await?.items::<M>()
    }

    fn map(self, f: impl FnOnce(BatchGet) -> BatchGet) -> Self {
        Self {
            batch: f(self.batch),
            model: PhantomData,
        }
    }
}

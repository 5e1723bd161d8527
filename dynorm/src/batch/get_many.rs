//! [`GetMany`], a read of many items of one model by key: a [`BatchGet`] of one model.

use std::marker::PhantomData;

use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemInput;

use super::get::BatchGet;
use super::options::BatchOptions;
use crate::observe::request::sealed::Sealed;
use crate::observe::{Predicted, Tally};
use crate::schema::Model;
use crate::Request;

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

impl<M: Model> Sealed for GetMany<M> {}

impl<M: Model> Request for GetMany<M> {
    type Input = Vec<BatchGetItemInput>;

    /// The `BatchGetItem` input of each chunk.
    fn preview(&self) -> crate::Result<Vec<BatchGetItemInput>> {
        self.batch.preview()
    }

    /// As [`BatchGet`]'s prediction.
    fn predict(&self) -> crate::Result<Predicted> {
        self.batch.predict()
    }

    fn tally(self, tally: &Tally) -> Self {
        self.map(|batch| batch.tally(tally))
    }
}

//! The client's doors to batches: [`Client::batch_write`], [`Client::batch_get`] and
//! [`Client::get_many`].

use std::marker::PhantomData;

use super::get::BatchGet;
use super::get_many::GetMany;
use super::write::BatchWrite;
use crate::client::Client;
use crate::schema::Model;

impl Client {
    /// A batch of puts and deletes across models, chunked, retried and complete. It
    /// borrows the items it puts until it is sent.
    pub fn batch_write<'a>(&self) -> BatchWrite<'a> {
        BatchWrite::new(self)
    }

    /// A batch of reads across models, chunked, retried and complete.
    pub fn batch_get(&self) -> BatchGet {
        BatchGet::new(self)
    }

    /// Reads the items of `M` with these keys, in batches (a [`BatchGet`] of one model);
    /// missing items are left out. End it with [`send`](GetMany::send).
    pub fn get_many<M: Model, K: Into<M::Key>>(
        &self,
        keys: impl IntoIterator<Item = K>,
    ) -> GetMany<M> {
        GetMany {
            batch: self.batch_get().get_many::<M, K>(keys),
            model: PhantomData,
        }
    }
}

//! Transactions: up to 100 writes across models, all or nothing, with typed reasons when
//! DynamoDB cancels one; and transactional reads.

mod read;
mod write;

pub use crate::error::CancellationReason;
pub use read::{GetTransaction, GetTransactionItems};
pub use write::{ConditionCheckItem, WriteTransaction};

use crate::error::Result;
use crate::item::write_request::WriteSpec;
use crate::item::{CreateItem, DeleteItem, PutItem, UpdateItem};
use crate::schema::Model;

/// DynamoDB's limit on the operations of one transaction.
pub const MAX_TRANSACTION_ITEMS: usize = 100;

/// A write that can be part of a transaction: `create`, `put`, `update`, `delete` and
/// `condition_check` builders.
pub trait TransactionWrite: private::Sealed {}

/// The sealed half of [`TransactionWrite`]: what it does stays inside dynorm.
#[allow(private_interfaces)]
mod private {
    /// Turns a builder into the write it describes.
    pub trait Sealed: Sized {
        fn into_spec(self) -> crate::error::Result<crate::item::write_request::WriteSpec>;
    }
}

impl<M: Model> TransactionWrite for CreateItem<'_, M> {}
#[allow(private_interfaces)]
impl<M: Model> private::Sealed for CreateItem<'_, M> {
    fn into_spec(self) -> Result<WriteSpec> {
        self.spec()
    }
}

impl<M: Model> TransactionWrite for PutItem<'_, M> {}
#[allow(private_interfaces)]
impl<M: Model> private::Sealed for PutItem<'_, M> {
    fn into_spec(self) -> Result<WriteSpec> {
        self.spec()
    }
}

impl<M: Model> TransactionWrite for DeleteItem<M> {}
#[allow(private_interfaces)]
impl<M: Model> private::Sealed for DeleteItem<M> {
    fn into_spec(self) -> Result<WriteSpec> {
        self.spec()
    }
}

impl<M: Model> TransactionWrite for UpdateItem<M> {}
#[allow(private_interfaces)]
impl<M: Model> private::Sealed for UpdateItem<M> {
    fn into_spec(self) -> Result<WriteSpec> {
        self.spec()
    }
}

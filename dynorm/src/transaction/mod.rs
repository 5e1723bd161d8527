//! Transactions: up to 100 writes across models, all or nothing, with typed reasons when
//! DynamoDB cancels one; and transactional reads.

mod read;
mod write;

pub use read::{TransactGet, TransactGetResults};
pub use write::{ConditionCheckItem, TransactWrite};

use crate::error::CancellationReason;
use crate::error::{Error, ErrorKind, Result};
use crate::item::write_request::WriteSpec;
use crate::item::{CreateItem, DeleteItem, PutItem, UpdateItem};
use crate::schema::Model;

/// DynamoDB's limit on the operations of one transaction.
pub const MAX_TRANSACTION_ITEMS: usize = 100;

/// The error of a transaction DynamoDB cancelled: one reason per operation, and a
/// message that lists the operations that failed.
fn canceled<S>(operation: &'static str, reasons: Vec<CancellationReason>, source: S) -> Error
where
    S: std::error::Error + Send + Sync + 'static,
{
    let summary = reasons
        .iter()
        .filter(|r| r.is_failure())
        .map(|r| {
            format!(
                "operation {} ({} on `{}`): {}",
                r.index, r.operation, r.model, r.code
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    Error::new(
        ErrorKind::TransactionCanceled,
        format!("the transaction was cancelled: {summary}"),
    )
    .with_operation(operation)
    .with_reasons(reasons)
    .with_source(source)
}

/// The table every operation of a transaction touches, when they all touch one.
fn single_table<'a>(mut tables: impl Iterator<Item = &'a str>) -> Option<String> {
    let first = tables.next()?;
    tables.all(|t| t == first).then(|| first.to_owned())
}

/// Names the transaction's table, when it has one, on an error of the whole request.
fn with_table(error: Error, table: Option<String>) -> Error {
    match table {
        Some(table) => error.with_table(table),
        None => error,
    }
}

/// A write that can be part of a transaction: `create`, `put`, `update`, `delete` and
/// `condition_check` builders.
pub trait TransactWriteOperation: private::Sealed {}

/// The sealed half of [`TransactWriteOperation`]: what it does stays inside dynorm.
#[allow(private_interfaces)]
mod private {
    /// Turns a builder into the write it describes.
    pub trait Sealed: Sized {
        fn into_spec(self) -> crate::error::Result<crate::item::write_request::WriteSpec>;
    }
}

/// Makes each builder a [`TransactWriteOperation`], through the spec it builds.
macro_rules! transact_write_operations {
    ($([$($generics:tt)*] $builder:ty),* $(,)?) => {$(
        impl<$($generics)*> TransactWriteOperation for $builder {}
        #[allow(private_interfaces)]
        impl<$($generics)*> private::Sealed for $builder {
            fn into_spec(self) -> Result<WriteSpec> {
                self.spec().map(WriteSpec::into_any)
            }
        }
    )*};
}

transact_write_operations!(
    [M: Model] CreateItem<'_, M>,
    [N: crate::schema::Insertable] crate::item::InsertItem<N>,
    [M: Model] PutItem<'_, M>,
    [M: Model] DeleteItem<M>,
    [M: Model] UpdateItem<M>,
);

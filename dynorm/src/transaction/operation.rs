//! Which builders a write transaction takes: the sealed [`TransactWriteOperation`], and
//! the write each of them turns into.

use crate::error::Result;
use crate::item::write_request::WriteSpec;
use crate::item::{CreateItem, DeleteItem, PutItem, UpdateItem};
use crate::schema::Model;

/// A write that can be part of a transaction: `create`, `put`, `update`, `delete` and
/// `condition_check` builders.
pub trait TransactWriteOperation: private::Sealed {}

/// The sealed half of [`TransactWriteOperation`]: what it does stays inside dynorm.
#[allow(private_interfaces)]
pub(super) mod private {
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

//! Transactions: up to 100 writes across models, all or nothing, with typed reasons when
//! DynamoDB cancels one; and transactional reads.

mod operation;
mod read;
mod write;

pub use crate::item::transact::MAX_TRANSACTION_ITEMS;
pub use operation::TransactWriteOperation;
pub use read::{TransactGet, TransactGetResults};
pub use write::{ConditionCheckItem, TransactWrite};

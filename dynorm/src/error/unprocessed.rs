//! What a batch could not do before its attempts ran out.

use aws_sdk_dynamodb::types::WriteRequest;

use crate::value::Item;

/// What a batch could not do before its attempts ran out, to retry or inspect.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Unprocessed {
    /// Writes not applied, with their full table names.
    pub writes: Vec<(String, WriteRequest)>,
    /// Keys not read, with their full table names.
    pub keys: Vec<(String, Item)>,
}

impl Unprocessed {
    /// How many writes and keys are left.
    pub fn len(&self) -> usize {
        self.writes.len() + self.keys.len()
    }

    /// Whether nothing is left.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

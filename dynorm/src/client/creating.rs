//! The indexes a client and its clones are creating, which queries and scans refuse to
//! read, and [`IndexCreation`], the mark of one until it is finished.

use std::sync::{Arc, Mutex, MutexGuard};

/// The indexes a client and its clones are creating, by full table name and index name.
#[derive(Debug, Default)]
pub(crate) struct Creating {
    indexes: Mutex<Vec<(String, String)>>,
}

impl Creating {
    fn lock(&self) -> MutexGuard<'_, Vec<(String, String)>> {
        // A panic while the list was held leaves it as it was: a list of names.
        self.indexes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) fn contains(&self, table: &str, index: &str) -> bool {
        self.lock().iter().any(|(t, i)| t == table && i == index)
    }

    pub(super) fn mark(&self, table: &str, index: &str) {
        self.lock().push((table.to_owned(), index.to_owned()));
    }

    pub(super) fn unmark(&self, table: &str, index: &str) {
        let mut indexes = self.lock();
        if let Some(at) = indexes.iter().position(|(t, i)| t == table && i == index) {
            indexes.remove(at);
        }
    }
}

/// A global index this client is creating. Until it is dropped (or
/// [`finish`](Self::finish)ed), every query and scan through the index, by this client
/// or any of its clones, fails before sending with an
/// [`IndexNotActive`](crate::error::ErrorKind::IndexNotActive) error: DynamoDB has made the index, but
/// items written before it may still lack its keys until a backfill writes them.
#[derive(Debug)]
#[must_use = "the index is readable again as soon as this is dropped"]
pub struct IndexCreation {
    pub(super) creating: Arc<Creating>,
    pub(super) table: String,
    pub(super) index: &'static str,
}

impl IndexCreation {
    /// The full table name.
    pub fn table(&self) -> &str {
        &self.table
    }

    /// The index name.
    pub fn index(&self) -> &'static str {
        self.index
    }

    /// Lets queries and scans read the index again.
    pub fn finish(self) {}
}

impl Drop for IndexCreation {
    fn drop(&mut self) {
        self.creating.unmark(&self.table, self.index);
    }
}

//! [`BatchOptions`], how a batch runs: the requests in flight at once.

/// How a batch runs. How a chunk is retried is the client's
/// [`RetryPolicy`](crate::client::RetryPolicy), the one every path shares: a chunk makes at
/// most its `max_attempts` HTTP attempts in all.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct BatchOptions {
    /// Requests in flight at once.
    pub concurrency: u32,
}

impl BatchOptions {
    /// Sets the requests in flight at once (at least 1: 0 is refused before anything is
    /// sent, as on `find` and `scan`).
    pub fn concurrency(mut self, concurrency: u32) -> Self {
        self.concurrency = concurrency;
        self
    }
}

impl Default for BatchOptions {
    fn default() -> Self {
        Self { concurrency: 8 }
    }
}

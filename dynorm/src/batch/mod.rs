//! Batches that lose nothing: automatic chunking (25 writes or 100 keys per request, and
//! under 16 MB), bounded concurrency, bounded retries of unprocessed items with
//! exponential backoff and jitter, and whatever is still unprocessed handed back in the
//! error.

mod chunks;
mod consumed;
mod get;
mod get_many;
mod in_flight;
mod incomplete;
mod limits;
mod options;
pub(crate) mod retry;
mod start;
mod tables;
mod write;
mod write_chunk;
mod write_source;

use consumed::record_consumed;
pub use get::{BatchGet, BatchGetResults};
pub use get_many::GetMany;
pub(crate) use in_flight::checked_concurrency;
use incomplete::incomplete;
pub use limits::{MAX_BATCH_KEYS, MAX_BATCH_WRITES};
pub use options::BatchOptions;
use tables::Tables;
pub use write::BatchWrite;

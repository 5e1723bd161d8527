//! Backfills: rewrite every item of a model that is not what the model writes today (an
//! earlier shape, a key template or `#[combine]` that renders differently now, an index
//! key missing from an item written before the index existed), without ever losing a
//! concurrent write, resumable after a kill, and shared by workers on many machines.
//!
//! A run reads the table with a parallel scan whose number of segments its first worker
//! fixes; each segment is an item in a progress table (`lease.rs`) that one worker at a
//! time holds a lease on (`takeover.rs`: an owner and a counter, never a time), with the
//! segment's cursor saved after every page (`worker.rs`). Each item is rewritten on
//! condition that it is still the item read (`rewrite.rs`); when another writer changed
//! it, it is read again and planned again. An item that does not decode stops the run,
//! or is set aside (`aside.rs`), and `status.rs` says where a run is.

mod adopt;
mod aside;
mod builder;
mod duplicates;
mod lease;
mod report;
mod rewrite;
mod run;
mod spend;
mod status;
mod takeover;
mod worker;

pub use self::builder::{backfill, Backfill};
pub use self::report::{BackfillReport, Progress};
pub use self::status::{backfill_status, BackfillStatus, Duplicate, SetAside};

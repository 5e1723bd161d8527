//! # dynorm-migrate
//!
//! Evolving the tables of [dynorm](https://docs.rs/dynorm) models while they serve:
//!
//! - [`backfill`]: rewrites every item of a model that is not what the model writes today
//!   (an earlier shape, a key template that renders differently now, an index key missing
//!   from an item written before the index), claims the guards of unique values and
//!   counts items written before a constraint existed; resumable after a kill, shared by
//!   workers on many machines, and never losing a concurrent write.
//! - [`add_index`]: a global index added to a live table, readable once every item has its
//!   keys.
//! - [`backfill_status`]: where a run is, the items it set aside, and the duplicates it
//!   found.
//! - [`cli`] (feature `cli`, on by default): a command line for an application's models:
//!   `plan`, `export`, `check`, `sync` and `migrate`.
//!
//! ```no_run
//! # use dynorm::Model;
//! # #[derive(Model)] struct User { #[hash_key] id: String }
//! # async fn demo(db: dynorm::Client) -> Result<(), dynorm::Error> {
//! let report = dynorm_migrate::backfill::<User>(&db, "users-v3", "Backfills")
//!     .segments(8)
//!     .send()
//!     .await?;
//! println!("{} of {} items rewritten", report.rewritten, report.scanned);
//! # Ok(()) }
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod backfill;
#[cfg(feature = "cli")]
#[cfg_attr(docsrs, doc(cfg(feature = "cli")))]
pub mod cli;
mod index;

pub use backfill::{
    backfill, backfill_status, Backfill, BackfillReport, BackfillStatus, Duplicate, Progress,
    SetAside,
};
pub use index::add_index;

/// The crate's README (what crates.io shows), compiled as a doctest so that it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

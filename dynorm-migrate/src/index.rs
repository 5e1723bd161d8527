//! A global index added to a live table: created, then backfilled, then readable.

use dynorm::{Client, Model, Result};

use crate::backfill::{backfill, BackfillReport};

/// Adds `M`'s global index `index` to its live table
/// ([`Tables::create_index`](dynorm::client::Tables::create_index): `UpdateTable`, then
/// waiting until the index is `ACTIVE`), then backfills `M` as run `run` with its progress
/// in table `progress_table` (see [`backfill`]), which writes the index keys that items
/// written before the index lack. Until both are done, this client's queries and scans
/// through the index are refused before sending.
pub async fn add_index<M: Model>(
    db: &Client,
    index: &str,
    run: impl Into<String>,
    progress_table: impl Into<String>,
) -> Result<BackfillReport> {
    let creation = db.tables().create_index::<M>(index).send().await?;
    let report = backfill::<M>(db, run, progress_table).send().await?;
    creation.finish();
    Ok(report)
}

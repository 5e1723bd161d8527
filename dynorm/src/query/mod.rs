//! Reading many items: typed queries (through a named index, or with the index chosen
//! from the conditions), scans, pages with cursors, and collections.

pub(crate) mod budget;
pub(crate) mod budgeted;
mod collection;
mod cursor;
mod cursor_key;
mod hydrate;
mod page;
mod partition;
mod scan;
mod typed;

pub(crate) use budgeted::paged;
pub use budgeted::Budgeted;
pub use collection::CollectionQuery;
pub(crate) use cursor_key::CursorKey;
pub use hydrate::Hydrated;
pub use page::{ItemStream, Page};
pub(crate) use partition::Partition;
pub use scan::Scan;
pub use typed::Query;

//! The write spec of a companion item (a guard, a parent's count): its condition says all,
//! so it has no check of dynorm's own, and no report, as the request has one.

use crate::expr::Placeholders;
use crate::item::write_request::{Checks, WriteKind, WriteSpec};
use crate::observe::Reporting;
use crate::schema::Schema;

/// A companion's write of `kind` on an item of `schema` in `table`, on a condition
/// rendered with its placeholders: with no check of dynorm's own, as the companion's
/// condition says all, and no report, as the request has one.
pub(crate) fn companion_write(
    schema: &'static Schema,
    operation: &'static str,
    table: String,
    kind: WriteKind,
    (condition, placeholders): (Option<String>, Placeholders),
) -> WriteSpec {
    WriteSpec {
        schema,
        operation,
        table,
        kind,
        condition,
        placeholders,
        checks: Checks::default(),
        report: Reporting::default(),
        guarded: None,
    }
}

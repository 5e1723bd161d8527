//! The error of a batch that ran out of attempts, with what is left unprocessed.

use crate::error::{Error, ErrorKind, Unprocessed};

/// The error of a batch that ran out of attempts: what was done, what is left (in
/// [`Error::unprocessed`]) and the last failure.
pub(super) fn incomplete(
    operation: &'static str,
    mut summary: String,
    left: Unprocessed,
    source: Option<Error>,
) -> Error {
    if let Some(source) = &source {
        summary.push_str("; the last failure: ");
        summary.push_str(source.code().unwrap_or(source.message()));
    }
    let mut error = Error::new(ErrorKind::BatchIncomplete, summary)
        .with_operation(operation)
        .with_unprocessed(left);
    if let Some(source) = source {
        if let Some(table) = source.table() {
            error = error.with_table(table.to_owned());
        }
        error = error.with_source(source);
    }
    error
}

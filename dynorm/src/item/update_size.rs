//! The size limit of an update, checked before sending: an update does not know the item
//! it leaves (the stored item decides), so what it refuses is an update whose key and the
//! values it sets are alone larger than the model's `max_item_bytes` (or 400 KB).

use crate::error::Result;
use crate::item::write_request::{Update, WriteSpec};
use crate::observe::writes;
use crate::value::limits::item_size;

/// Refuses `spec` when the attributes it is certain to leave (its key and the values it
/// sets) are larger than the model's items can be.
pub(crate) fn check(spec: &WriteSpec<Update>) -> Result<()> {
    let known = writes::known_after(
        &spec.kind.key,
        &spec.kind.expression,
        &spec.placeholders.names,
        &spec.placeholders.values,
    );
    let size = item_size(&known);
    if size > spec.schema.item_bound() {
        return Err(spec.schema.too_large(
            &known,
            size,
            "the key and the values the update sets hold",
            spec.operation,
        ));
    }
    Ok(())
}

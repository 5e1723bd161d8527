//! Capacity units from sizes, as DynamoDB counts them: writes per 1 KB, reads per 4 KB.

/// The bytes one write unit writes.
const WRITE_UNIT_BYTES: usize = 1024;
/// The bytes one strongly consistent read unit reads.
const READ_UNIT_BYTES: usize = 4096;
/// The most one query or scan page reads before it stops: 1 MB.
pub(crate) const PAGE_BYTES: usize = 1024 * 1024;

/// The write units of writing `bytes`: one per started KB, at least one.
pub(crate) fn write_units(bytes: usize) -> f64 {
    bytes.div_ceil(WRITE_UNIT_BYTES).max(1) as f64
}

/// The read units of reading `bytes` at once: one per started 4 KB (half as much when
/// eventually consistent), and nothing for nothing.
pub(crate) fn read_units(bytes: usize, consistent: bool) -> f64 {
    let units = bytes.div_ceil(READ_UNIT_BYTES) as f64;
    if consistent {
        units
    } else {
        units / 2.0
    }
}

/// The read units of one item read by key: as [`read_units`], but at least one unit's
/// worth (an absent item costs that much too).
pub(crate) fn item_read_units(bytes: usize, consistent: bool) -> f64 {
    read_units(bytes.max(1), consistent)
}

/// The read units of an item of at most `bound` bytes, at most.
pub(crate) fn max_item_read_units(bound: usize, consistent: bool) -> f64 {
    read_units(bound, consistent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_round_up_per_kilobyte() {
        assert_eq!(write_units(0), 1.0);
        assert_eq!(write_units(1024), 1.0);
        assert_eq!(write_units(1025), 2.0);
        assert_eq!(write_units(400 * 1024), 400.0);
    }

    #[test]
    fn reads_round_up_per_four_kilobytes_and_halve_when_eventual() {
        assert_eq!(read_units(0, false), 0.0);
        assert_eq!(read_units(5000, false), 1.0);
        assert_eq!(read_units(5000, true), 2.0);
        assert_eq!(item_read_units(0, false), 0.5);
        assert_eq!(max_item_read_units(400 * 1024, true), 100.0);
        assert_eq!(read_units(PAGE_BYTES, false), 128.0);
    }
}

//! How many requests an operation keeps in flight at once: the chunks of a batch, the
//! segments of a parallel scan, the per-parent requests of a relation. One check, before
//! anything is sent.

use std::num::NonZeroUsize;

use crate::error::{Error, Result};

/// `concurrency` as every operation takes it: 0 is refused, since nothing would ever be sent.
pub(crate) fn checked_concurrency(concurrency: u32) -> Result<NonZeroUsize> {
    NonZeroUsize::new(usize::try_from(concurrency).unwrap_or(usize::MAX)).ok_or_else(|| {
        Error::validation("concurrency 0 would send nothing: at least 1 request must be in flight")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_is_refused_and_the_rest_kept() {
        let error = checked_concurrency(0).unwrap_err();
        assert!(error.is_validation(), "{error}");
        assert!(error.to_string().contains("concurrency 0"), "{error}");
        assert_eq!(checked_concurrency(3).map(NonZeroUsize::get).ok(), Some(3));
    }
}

//! How a date field is stored: a choice made by the model, whatever features are on.

/// How a `DateTime` field is stored, chosen with `#[dynorm(date = "...")]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum DateStorage {
    /// `2026-11-06T09:30:00.000Z`: a string (S). The default.
    #[default]
    Iso,
    /// Epoch milliseconds: a number (N).
    Milliseconds,
    /// Epoch seconds: a number (N).
    Seconds,
}

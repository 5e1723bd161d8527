//! `KeyAttribute`: one key attribute of a table or index, its name and its type.

use crate::value::ScalarType;

/// One key attribute: its name and type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyAttribute {
    /// The attribute name.
    pub name: &'static str,
    /// S, N or B.
    pub scalar: ScalarType,
}

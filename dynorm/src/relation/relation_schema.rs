//! What the derive records about one relation, which every part of a load reads.

/// What the derive records about one relation. Not a public API: generated code builds
/// it through `__private`.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct RelationSchema {
    /// The relation's name: `comments`.
    pub name: &'static str,
    /// The attributes of the parent model that hold the values.
    pub fields: &'static [&'static str],
    /// The attributes of the related model that must equal them.
    pub references: &'static [&'static str],
    /// Whether the related side may be read with a scan when no key reaches it.
    pub allow_scan: bool,
}

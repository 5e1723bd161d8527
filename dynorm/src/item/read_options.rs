//! What every read by key, query and scan may ask for besides its keys: strong
//! consistency, and items whose `#[ttl]` has passed.

/// A read's options: the one piece every reading builder holds for them.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ReadOptions {
    /// `ConsistentRead`.
    pub consistent_read: bool,
    /// Whether items whose `#[ttl]` has passed are returned.
    pub include_expired: bool,
}

/// The `consistent_read` and `include_expired` setters of a builder, written once: the
/// argument is the name of the builder's [`ReadOptions`] field, then each setter's docs,
/// which say what the option means for that builder (`read; #[doc = ".."] ; #[doc = ".."]`).
macro_rules! read_setters {
    ($field:ident; $(#[$consistent:meta])* ; $(#[$expired:meta])*) => {
        $(#[$consistent])*
        pub fn consistent_read(mut self, consistent: bool) -> Self {
            self.$field.consistent_read = consistent;
            self
        }

        $(#[$expired])*
        pub fn include_expired(mut self, include: bool) -> Self {
            self.$field.include_expired = include;
            self
        }
    };
}

pub(crate) use read_setters;

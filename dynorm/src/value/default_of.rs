//! The value of a literal `#[dynorm(default = ..)]`, typed as its field.

/// Turns what `#[dynorm(default = ..)]` says into the field's (present) type: the value
/// itself, or a `String` from a string literal. Anything else is a compile error at the
/// default, so a default always has its field's type.
#[diagnostic::on_unimplemented(
    message = "this `#[dynorm(default = ..)]` is not a `{T}`, the field's type",
    label = "a `{Self}`, not a `{T}`"
)]
pub trait DefaultOf<T> {
    /// The default as the field's type.
    fn default_of(self) -> T;
}

impl<T> DefaultOf<T> for T {
    #[inline]
    fn default_of(self) -> T {
        self
    }
}

impl DefaultOf<String> for &str {
    #[inline]
    fn default_of(self) -> String {
        self.to_owned()
    }
}

//! `Derived`: the seal of the traits only dynorm's derives and macros implement.

/// The seal of every trait that only dynorm's derives and macros implement (`Model`,
/// `ModelKey`, `Index`, `FromItem`, `Collection`, `Insertable`, `SharedTable`): generated
/// code implements it through `__private`, so those traits can grow without breaking
/// anyone. Not a public API.
#[doc(hidden)]
pub trait Derived {}

impl Derived for crate::value::Item {}

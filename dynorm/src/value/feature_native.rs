//! The types dynorm stores natively only with a cargo feature on. The derive checks every
//! field of such a type against [`FeatureNative`], so that with the feature off the field is
//! a compile error instead of a silent change to serde's stored form: features only add.

/// A type dynorm stores natively with its cargo feature on.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is stored natively by dynorm only with its cargo feature on",
    label = "needs a dynorm feature",
    note = "enable dynorm's `chrono` feature for `DateTime<Utc>` and `NaiveDate`, `uuid` for `Uuid`, `decimal` for `Decimal`; a feature never changes how a field is stored, so without it such a field does not compile"
)]
pub trait FeatureNative {}

#[cfg(feature = "chrono")]
impl FeatureNative for chrono::DateTime<chrono::Utc> {}
#[cfg(feature = "chrono")]
impl FeatureNative for chrono::NaiveDate {}
#[cfg(feature = "uuid")]
impl FeatureNative for uuid::Uuid {}
#[cfg(feature = "decimal")]
impl FeatureNative for rust_decimal::Decimal {}

/// Compiles only for a type whose feature is on: the derive names it for each such field.
pub const fn feature_native<T: FeatureNative + ?Sized>() {}

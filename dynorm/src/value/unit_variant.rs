//! A fast path for the most common serde fallback, unit enums such as
//! `enum Status { Open, Paid }`: their variant name is read, and written, directly.
//! Any other shape is not handled here and goes through `serde_dynamo` as before, so the
//! result is always what `serde_dynamo` gives.

use serde::ser::{Impossible, Serialize, Serializer};

/// Not a unit variant.
#[derive(Debug)]
pub(crate) struct NotUnit;

impl std::fmt::Display for NotUnit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a unit variant")
    }
}

impl std::error::Error for NotUnit {}

impl serde::ser::Error for NotUnit {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        NotUnit
    }
}

/// The name of `value`'s variant if it is a unit variant (through newtype wrappers).
pub(crate) fn unit_variant<T: Serialize + ?Sized>(value: &T) -> Option<&'static str> {
    value.serialize(UnitVariant).ok()
}

/// A serializer that only accepts unit variants.
struct UnitVariant;

type Never = Impossible<&'static str, NotUnit>;

/// Methods of `Serializer` that refuse: a value of another shape. Each line is
/// `method(argument types) -> what it would have returned`.
macro_rules! refuse {
    ($($method:ident($($arg:ty),*) -> $ok:ty;)*) => {$(
        fn $method(self, $(_: $arg),*) -> Result<$ok, NotUnit> {
            Err(NotUnit)
        }
    )*};
}

impl Serializer for UnitVariant {
    type Ok = &'static str;
    type Error = NotUnit;
    type SerializeSeq = Never;
    type SerializeTuple = Never;
    type SerializeTupleStruct = Never;
    type SerializeTupleVariant = Never;
    type SerializeMap = Never;
    type SerializeStruct = Never;
    type SerializeStructVariant = Never;

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<&'static str, NotUnit> {
        Ok(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<&'static str, NotUnit> {
        value.serialize(self)
    }

    refuse! {
        serialize_bool(bool) -> &'static str;
        serialize_i8(i8) -> &'static str;
        serialize_i16(i16) -> &'static str;
        serialize_i32(i32) -> &'static str;
        serialize_i64(i64) -> &'static str;
        serialize_u8(u8) -> &'static str;
        serialize_u16(u16) -> &'static str;
        serialize_u32(u32) -> &'static str;
        serialize_u64(u64) -> &'static str;
        serialize_f32(f32) -> &'static str;
        serialize_f64(f64) -> &'static str;
        serialize_char(char) -> &'static str;
        serialize_str(&str) -> &'static str;
        serialize_bytes(&[u8]) -> &'static str;
        serialize_none() -> &'static str;
        serialize_unit() -> &'static str;
        serialize_unit_struct(&'static str) -> &'static str;
        serialize_seq(Option<usize>) -> Never;
        serialize_tuple(usize) -> Never;
        serialize_tuple_struct(&'static str, usize) -> Never;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Never;
        serialize_map(Option<usize>) -> Never;
        serialize_struct(&'static str, usize) -> Never;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Never;
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<&'static str, NotUnit> {
        Err(NotUnit)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<&'static str, NotUnit> {
        Err(NotUnit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::types::AttributeValue;
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    enum Status {
        InProgress,
        Done,
        Blocked(String),
    }

    #[derive(Serialize)]
    struct Wrapper(Status);

    #[derive(Serialize)]
    struct Point {
        x: i32,
    }

    #[test]
    fn unit_variants_are_read_as_serde_dynamo_writes_them() {
        for status in [Status::InProgress, Status::Done] {
            let name = unit_variant(&status).expect("a unit variant");
            let expected: AttributeValue = serde_dynamo::to_attribute_value(&status).unwrap();
            assert_eq!(AttributeValue::S(name.to_owned()), expected);
        }
        assert_eq!(unit_variant(&Wrapper(Status::Done)), Some("DONE"));
    }

    #[test]
    fn decoding_reads_text_directly_and_leaves_the_rest_to_serde_dynamo() {
        use crate::value::field_codec::{Decode, DecodeSerde};
        let decode = |value: AttributeValue| (&Decode::<Status>::NEW).dynorm_decode(Some(value));
        assert_eq!(
            decode(AttributeValue::S("IN_PROGRESS".into())).unwrap(),
            Status::InProgress
        );
        let blocked: AttributeValue =
            serde_dynamo::to_attribute_value(Status::Blocked("why".into())).unwrap();
        assert_eq!(decode(blocked).unwrap(), Status::Blocked("why".into()));
        let error = decode(AttributeValue::S("LOST".into())).unwrap_err();
        assert!(error.message().contains("LOST"), "{}", error.message());
    }

    #[test]
    fn every_other_shape_is_left_to_serde_dynamo() {
        assert_eq!(unit_variant(&Status::Blocked("x".into())), None);
        assert_eq!(unit_variant(&Point { x: 1 }), None);
        assert_eq!(unit_variant("text"), None);
        assert_eq!(unit_variant(&1u8), None);
        assert_eq!(unit_variant(&Some(Status::Done)), None);
        assert_eq!(unit_variant(&vec![1]), None);
    }
}

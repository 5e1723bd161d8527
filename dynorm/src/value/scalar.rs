//! Strings, numbers, booleans and binary.

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;

use super::{AttrError, AttrValue, KeyScalar, ScalarType};

impl AttrValue for String {
    #[inline]
    fn to_attr(&self) -> Result<AttributeValue, AttrError> {
        Ok(AttributeValue::S(self.clone()))
    }

    #[inline]
    fn from_attr(value: AttributeValue) -> Result<Self, AttrError> {
        match value {
            AttributeValue::S(s) => Ok(s),
            other => Err(AttrError::mismatch("a string (S)", &other)),
        }
    }
}

impl KeyScalar for String {
    const SCALAR_TYPE: ScalarType = ScalarType::S;
}

impl AttrValue for bool {
    #[inline]
    fn to_attr(&self) -> Result<AttributeValue, AttrError> {
        Ok(AttributeValue::Bool(*self))
    }

    #[inline]
    fn from_attr(value: AttributeValue) -> Result<Self, AttrError> {
        match value {
            AttributeValue::Bool(b) => Ok(b),
            other => Err(AttrError::mismatch("a boolean (BOOL)", &other)),
        }
    }
}

/// Reads the text of an N value.
#[inline]
fn number_text(value: AttributeValue) -> Result<String, AttrError> {
    match value {
        AttributeValue::N(n) => Ok(n),
        other => Err(AttrError::mismatch("a number (N)", &other)),
    }
}

macro_rules! integers {
    ($($ty:ty),*) => {$(
        impl AttrValue for $ty {
            #[inline]
            fn to_attr(&self) -> Result<AttributeValue, AttrError> {
                let text = itoa::Buffer::new().format(*self).to_owned();
                // Only 128-bit integers can exceed DynamoDB's 38 digits.
                if std::mem::size_of::<$ty>() > 8 {
                    super::limits::check_number(&text)?;
                }
                Ok(AttributeValue::N(text))
            }

            #[inline]
            fn from_attr(value: AttributeValue) -> Result<Self, AttrError> {
                let text = number_text(value)?;
                text.parse::<$ty>().map_err(|_| {
                    AttrError::new(format!(
                        "expected a number that fits in {}, found `{text}`",
                        stringify!($ty)
                    ))
                })
            }
        }

        impl KeyScalar for $ty {
            const SCALAR_TYPE: ScalarType = ScalarType::N;
        }
    )*};
}

integers!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

macro_rules! floats {
    ($($ty:ty),*) => {$(
        impl AttrValue for $ty {
            #[inline]
            fn to_attr(&self) -> Result<AttributeValue, AttrError> {
                if !self.is_finite() {
                    return Err(AttrError::new(format!(
                        "{self} cannot be stored: a DynamoDB number must be finite"
                    )));
                }
                // `-0.0` is `0`, as in JavaScript and in DynamoDB.
                if *self == 0.0 {
                    return Ok(AttributeValue::N("0".to_owned()));
                }
                if !(1e-130..1e126).contains(&(self.abs() as f64)) {
                    return Err(AttrError::new(format!(
                        "{self:e} cannot be stored: a DynamoDB number is zero or between 1E-130 and 9.99E+125 in magnitude"
                    )));
                }
                // Rust's shortest round-trip text, never in exponent form: the text
                // JavaScript writes for the same number from 1e-6 to 1e21, so keys that
                // hold a number match those TypeScript services build.
                Ok(AttributeValue::N(self.to_string()))
            }

            #[inline]
            fn from_attr(value: AttributeValue) -> Result<Self, AttrError> {
                let text = number_text(value)?;
                text.parse::<$ty>().map_err(|_| {
                    AttrError::new(format!("expected a number, found `{text}`"))
                })
            }
        }

        impl KeyScalar for $ty {
            const SCALAR_TYPE: ScalarType = ScalarType::N;
        }
    )*};
}

floats!(f32, f64);

impl AttrValue for Blob {
    #[inline]
    fn to_attr(&self) -> Result<AttributeValue, AttrError> {
        Ok(AttributeValue::B(self.clone()))
    }

    #[inline]
    fn from_attr(value: AttributeValue) -> Result<Self, AttrError> {
        match value {
            AttributeValue::B(b) => Ok(b),
            other => Err(AttrError::mismatch("binary (B)", &other)),
        }
    }
}

impl KeyScalar for Blob {
    const SCALAR_TYPE: ScalarType = ScalarType::B;
}

impl KeyScalar for Vec<u8> {
    const SCALAR_TYPE: ScalarType = ScalarType::B;
}

/// `Vec<u8>` fields are stored as binary (B). The derive routes them here, since
/// `Vec<T>` in general is a list.
pub mod bytes {
    use super::*;

    /// Encodes bytes as a B value.
    #[inline]
    pub fn encode(value: &[u8]) -> Result<Option<AttributeValue>, AttrError> {
        Ok(Some(AttributeValue::B(Blob::new(value.to_vec()))))
    }

    /// Decodes a B value into bytes.
    #[inline]
    pub fn decode(value: Option<AttributeValue>) -> Result<Vec<u8>, AttrError> {
        match value {
            Some(AttributeValue::B(b)) => Ok(b.into_inner()),
            Some(other) => Err(AttrError::mismatch("binary (B)", &other)),
            None => Err(AttrError::missing()),
        }
    }
}

impl AttrValue for AttributeValue {
    #[inline]
    fn to_attr(&self) -> Result<AttributeValue, AttrError> {
        Ok(self.clone())
    }

    #[inline]
    fn from_attr(value: AttributeValue) -> Result<Self, AttrError> {
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::limits::check_number;

    fn text(value: f64) -> String {
        match value.to_attr() {
            Ok(AttributeValue::N(text)) => text,
            other => panic!("{value} encoded as {other:?}"),
        }
    }

    #[test]
    fn floats_are_stored_as_javascript_writes_them() {
        // `String(x)` in JavaScript, for the same numbers.
        for (value, js) in [
            (1234.5, "1234.5"),
            (5.0, "5"),
            (-0.25, "-0.25"),
            (-0.0, "0"),
            (0.1, "0.1"),
            (1e16, "10000000000000000"),
            (123_456_789.012_345_67, "123456789.01234567"),
            (1e-6, "0.000001"),
        ] {
            assert_eq!(text(value), js);
            assert_eq!(text(value).parse::<f64>().unwrap(), value);
        }
        assert_eq!(text(0.1_f32.into()), "0.10000000149011612");
        assert_eq!(
            match 0.1_f32.to_attr() {
                Ok(AttributeValue::N(text)) => text,
                other => panic!("{other:?}"),
            },
            "0.1"
        );
    }

    #[test]
    fn the_largest_and_smallest_floats_stored_are_valid_numbers() {
        for value in [9.99e125, -9.99e125, 1.5e-130, f64::MIN_POSITIVE * 1e200] {
            let text = text(value);
            assert!(!text.contains('e'), "{text}");
            check_number(&text).unwrap_or_else(|e| panic!("{value}: {e}"));
            assert_eq!(text.parse::<f64>().unwrap(), value);
        }
        assert!(1e126_f64.to_attr().is_err());
        assert!(1e-131_f64.to_attr().is_err());
    }
}

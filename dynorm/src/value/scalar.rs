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
                let magnitude = self.abs();
                if magnitude != 0.0 && !(1e-130..1e126).contains(&(magnitude as f64)) {
                    return Err(AttrError::new(format!(
                        "{self:e} cannot be stored: a DynamoDB number is zero or between 1E-130 and 9.99E+125 in magnitude"
                    )));
                }
                Ok(AttributeValue::N(ryu::Buffer::new().format_finite(*self).to_owned()))
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

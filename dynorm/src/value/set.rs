//! Typed sets: SS, NS and BS.
//!
//! A `HashSet<String>` is a string set, never a list. DynamoDB has no empty set, so an
//! empty set is left out of the item and an absent attribute reads back as empty.

use std::collections::{BTreeSet, HashSet};
use std::hash::{BuildHasher, Hash};

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;

use super::{AttrError, AttrValue};

/// The kind of set an element type builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SetKind {
    /// SS
    String,
    /// NS
    Number,
    /// BS
    Binary,
}

/// A type that can be a member of a DynamoDB set.
pub trait SetElement: Sized {
    /// Which set the element type builds.
    const KIND: SetKind;
    /// The member as an attribute value of the element kind (S, N or B).
    fn to_member(&self) -> Result<AttributeValue, AttrError>;
    /// Reads a member back from an attribute value of the element kind.
    fn from_member(value: AttributeValue) -> Result<Self, AttrError>;
}

macro_rules! set_elements {
    ($kind:ident: $($ty:ty),*) => {$(
        impl SetElement for $ty {
            const KIND: SetKind = SetKind::$kind;
            fn to_member(&self) -> Result<AttributeValue, AttrError> {
                self.to_attr()
            }
            fn from_member(value: AttributeValue) -> Result<Self, AttrError> {
                <$ty>::from_attr(value)
            }
        }
    )*};
}

set_elements!(String: String);
set_elements!(Number: i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
set_elements!(Binary: Blob);

impl SetElement for Vec<u8> {
    const KIND: SetKind = SetKind::Binary;
    fn to_member(&self) -> Result<AttributeValue, AttrError> {
        Ok(AttributeValue::B(Blob::new(self.clone())))
    }
    fn from_member(value: AttributeValue) -> Result<Self, AttrError> {
        Blob::from_attr(value).map(Blob::into_inner)
    }
}

/// Builds the set value for the members of a set.
fn encode_set<'a, T: SetElement + 'a>(
    members: impl ExactSizeIterator<Item = &'a T>,
) -> Result<AttributeValue, AttrError> {
    if members.len() == 0 {
        return Ok(AttributeValue::Null(true));
    }
    macro_rules! collect {
        ($variant:ident, $inner:ident) => {{
            let mut out = Vec::with_capacity(members.len());
            for member in members {
                match member.to_member()? {
                    AttributeValue::$inner(v) => out.push(v),
                    other => return Err(AttrError::mismatch(stringify!($inner), &other)),
                }
            }
            Ok(AttributeValue::$variant(out))
        }};
    }
    match T::KIND {
        SetKind::String => collect!(Ss, S),
        SetKind::Number => collect!(Ns, N),
        SetKind::Binary => collect!(Bs, B),
    }
}

/// Reads the members of a set value, accepting NULL and absent as empty, and a list for
/// data written by serde-based libraries.
fn decode_set<T: SetElement, C: FromIterator<T>>(value: AttributeValue) -> Result<C, AttrError> {
    match (T::KIND, value) {
        (SetKind::String, AttributeValue::Ss(members)) => members
            .into_iter()
            .map(|m| T::from_member(AttributeValue::S(m)))
            .collect(),
        (SetKind::Number, AttributeValue::Ns(members)) => members
            .into_iter()
            .map(|m| T::from_member(AttributeValue::N(m)))
            .collect(),
        (SetKind::Binary, AttributeValue::Bs(members)) => members
            .into_iter()
            .map(|m| T::from_member(AttributeValue::B(m)))
            .collect(),
        (_, AttributeValue::Null(_)) => Ok(std::iter::empty().collect()),
        (_, AttributeValue::L(list)) => list
            .into_iter()
            .enumerate()
            .map(|(i, m)| T::from_member(m).map_err(|e| e.in_index(i)))
            .collect(),
        (kind, other) => {
            let expected = match kind {
                SetKind::String => "a string set (SS)",
                SetKind::Number => "a number set (NS)",
                SetKind::Binary => "a binary set (BS)",
            };
            Err(AttrError::mismatch(expected, &other))
        }
    }
}

/// `AttrValue` for a set type: stored as a DynamoDB set, omitted when empty, and empty
/// when absent.
macro_rules! set_attr_value {
    ($([$($generics:tt)*] $set:ty;)*) => {$(
        impl<$($generics)*> AttrValue for $set {
            fn to_attr(&self) -> Result<AttributeValue, AttrError> {
                encode_set(self.iter())
            }
            fn from_attr(value: AttributeValue) -> Result<Self, AttrError> {
                decode_set(value)
            }
            fn is_omitted(&self) -> bool {
                self.is_empty()
            }
            fn when_absent() -> Option<Self> {
                Some(Self::default())
            }
        }
    )*};
}

set_attr_value! {
    [T: SetElement + Eq + Hash, S: BuildHasher + Default] HashSet<T, S>;
    [T: SetElement + Ord] BTreeSet<T>;
}

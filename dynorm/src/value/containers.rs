//! Lists, maps and `Option`.

use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasher;

use aws_sdk_dynamodb::types::AttributeValue;

use super::{AttrError, AttrValue};

impl<T: AttrValue> AttrValue for Vec<T> {
    #[inline]
    fn to_attr(&self) -> Result<AttributeValue, AttrError> {
        let mut list = Vec::with_capacity(self.len());
        for (index, element) in self.iter().enumerate() {
            list.push(element.to_attr().map_err(|e| e.in_index(index))?);
        }
        Ok(AttributeValue::L(list))
    }

    fn from_attr(value: AttributeValue) -> Result<Self, AttrError> {
        match value {
            AttributeValue::L(list) => list
                .into_iter()
                .enumerate()
                .map(|(index, element)| T::from_attr(element).map_err(|e| e.in_index(index)))
                .collect(),
            other => Err(AttrError::mismatch("a list (L)", &other)),
        }
    }
}

/// `None` inside a list or map is NULL. A top-level `Option` field is left out of the
/// item instead; the derive handles that case.
impl<T: AttrValue> AttrValue for Option<T> {
    fn to_attr(&self) -> Result<AttributeValue, AttrError> {
        match self {
            Some(value) => value.to_attr(),
            None => Ok(AttributeValue::Null(true)),
        }
    }

    fn from_attr(value: AttributeValue) -> Result<Self, AttrError> {
        match value {
            AttributeValue::Null(_) => Ok(None),
            other => T::from_attr(other).map(Some),
        }
    }

    fn is_omitted(&self) -> bool {
        self.is_none()
    }

    fn when_absent() -> Option<Self> {
        Some(None)
    }
}

impl<T: AttrValue> AttrValue for Box<T> {
    fn to_attr(&self) -> Result<AttributeValue, AttrError> {
        (**self).to_attr()
    }

    fn from_attr(value: AttributeValue) -> Result<Self, AttrError> {
        T::from_attr(value).map(Box::new)
    }

    fn is_omitted(&self) -> bool {
        (**self).is_omitted()
    }

    fn when_absent() -> Option<Self> {
        T::when_absent().map(Box::new)
    }
}

/// Encodes map entries into an M value, leaving out omitted values.
fn encode_entries<'a, T: AttrValue + 'a>(
    len: usize,
    entries: impl Iterator<Item = (&'a String, &'a T)>,
) -> Result<AttributeValue, AttrError> {
    let mut map = HashMap::with_capacity(len);
    for (key, value) in entries {
        if !value.is_omitted() {
            map.insert(key.clone(), value.to_attr().map_err(|e| e.in_key(key))?);
        }
    }
    Ok(AttributeValue::M(map))
}

/// Decodes an M value entry by entry.
fn decode_entries<T: AttrValue, C: FromIterator<(String, T)>>(
    value: AttributeValue,
) -> Result<C, AttrError> {
    match value {
        AttributeValue::M(map) => map
            .into_iter()
            .map(|(key, value)| match T::from_attr(value) {
                Ok(value) => Ok((key, value)),
                Err(e) => Err(e.in_key(&key)),
            })
            .collect(),
        other => Err(AttrError::mismatch("a map (M)", &other)),
    }
}

impl<T: AttrValue, S: BuildHasher + Default> AttrValue for HashMap<String, T, S> {
    fn to_attr(&self) -> Result<AttributeValue, AttrError> {
        encode_entries(self.len(), self.iter())
    }

    fn from_attr(value: AttributeValue) -> Result<Self, AttrError> {
        decode_entries(value)
    }
}

impl<T: AttrValue> AttrValue for BTreeMap<String, T> {
    fn to_attr(&self) -> Result<AttributeValue, AttrError> {
        encode_entries(self.len(), self.iter())
    }

    fn from_attr(value: AttributeValue) -> Result<Self, AttrError> {
        decode_entries(value)
    }
}

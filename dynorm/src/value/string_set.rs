//! A set of strings stored as a DynamoDB string set wherever it is, inside a map or a list
//! too.

use std::collections::BTreeSet;
use std::ops::{Deref, DerefMut};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A set of strings stored as a DynamoDB string set (`SS`), inside a map or a list too,
/// where serde's form of a `BTreeSet` is a list. Give a nested struct's field this type
/// (ElectroDB's `set` attribute inside a `map` or `list`), and an update adds elements to
/// it and deletes them with [`add_to_set`](crate::Update::add_to_set) and
/// [`delete_from_set`](crate::Update::delete_from_set) on its path. DynamoDB has no empty
/// set and refuses one: hold it as an `Option` that serde skips when `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StringSet(pub BTreeSet<String>);

impl Serialize for StringSet {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde_dynamo::string_set::serialize(&self.0, serializer)
    }
}

impl<'de> Deserialize<'de> for StringSet {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde_dynamo::string_set::deserialize(deserializer).map(Self)
    }
}

impl Deref for StringSet {
    type Target = BTreeSet<String>;

    fn deref(&self) -> &BTreeSet<String> {
        &self.0
    }
}

impl DerefMut for StringSet {
    fn deref_mut(&mut self) -> &mut BTreeSet<String> {
        &mut self.0
    }
}

impl<S: Into<String>> FromIterator<S> for StringSet {
    fn from_iter<I: IntoIterator<Item = S>>(elements: I) -> Self {
        Self(elements.into_iter().map(Into::into).collect())
    }
}

impl<S: Into<String>, const N: usize> From<[S; N]> for StringSet {
    fn from(elements: [S; N]) -> Self {
        elements.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::types::AttributeValue;

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Entry {
        tags: StringSet,
    }

    #[test]
    fn inside_a_map_a_string_set_is_stored_and_read_as_a_set() {
        let entry = Entry {
            tags: StringSet::from(["b", "a"]),
        };
        let item: serde_dynamo::Item = serde_dynamo::to_item(&entry).unwrap();
        let stored: std::collections::HashMap<String, AttributeValue> = item.into();
        assert_eq!(
            stored["tags"],
            AttributeValue::Ss(vec!["a".into(), "b".into()])
        );
        let read: Entry = serde_dynamo::from_item(stored).unwrap();
        assert_eq!(read, entry);
    }
}

//! What an item puts into each of its indexes: whether it is there at all (a sparse
//! index holds only items with every key attribute), and the size of its entry.

use crate::schema::{IndexKind, IndexSchema, Schema};
use crate::value::limits::item_size;
use crate::value::Item;

/// Whether `item` has an entry in `index`: it holds every key attribute of the index.
pub(crate) fn in_index(index: &IndexSchema, item: &Item) -> bool {
    index
        .hash_key
        .iter()
        .chain(index.range_key)
        .all(|key| item.contains_key(key.name))
}

/// The bytes a local index adds to each entry it writes.
const LOCAL_ENTRY_OVERHEAD: usize = 100;

/// The size of `item`'s entry in `index`: the table's keys, the index's keys and the
/// projected attributes, counted as an item's are, plus 100 bytes in a local index.
pub(crate) fn entry_size(schema: &Schema, index: &IndexSchema, item: &Item) -> usize {
    let entry: Item = item
        .iter()
        .filter(|(name, _)| index.projects(schema, name))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect();
    item_size(&entry) + overhead(index)
}

/// The size of the largest entry `index` can hold for an item of at most `bound` bytes:
/// the item's, with the index's overhead.
pub(crate) fn max_entry_size(index: &IndexSchema, bound: usize) -> usize {
    bound + overhead(index)
}

fn overhead(index: &IndexSchema) -> usize {
    match index.kind {
        IndexKind::Local => LOCAL_ENTRY_OVERHEAD,
        _ => 0,
    }
}

/// The attributes of the update expression `expression` names, through the placeholder
/// map `names` (`#n0` to `status`): every attribute it sets, removes, adds to or reads.
pub(crate) fn named<'a>(
    expression: &'a str,
    names: &'a std::collections::HashMap<String, String>,
) -> impl Iterator<Item = &'a str> + 'a {
    placeholders(expression, '#').filter_map(move |p| names.get(p).map(String::as_str))
}

/// Every placeholder that starts with `sigil` in `text`: `#n0`, `:v12`.
pub(crate) fn placeholders(text: &str, sigil: char) -> impl Iterator<Item = &str> {
    text.match_indices(sigil).map(move |(at, _)| {
        let rest = &text[at + 1..];
        let end = rest
            .char_indices()
            .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
            .map_or(rest.len(), |(i, _)| i);
        &text[at..at + 1 + end]
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::predict::fixtures::{global, key, table};
    use crate::schema::Projection;
    use aws_sdk_dynamodb::types::AttributeValue;
    use std::collections::HashMap;

    const BY_STATUS: IndexSchema = global(
        "byStatus",
        &[key("status")],
        Projection::Include(&["total"]),
    );
    const SCHEMA: Schema = table(&["id", "status", "total", "note"], &[BY_STATUS]);

    fn s(text: &str) -> AttributeValue {
        AttributeValue::S(text.to_owned())
    }

    #[test]
    fn an_entry_holds_the_keys_and_the_projected_attributes() {
        let item = Item::from([
            ("id".to_owned(), s("o1")),
            ("status".to_owned(), s("paid")),
            ("total".to_owned(), AttributeValue::N("12".to_owned())),
            ("note".to_owned(), s("a long note")),
        ]);
        assert!(in_index(&BY_STATUS, &item));
        assert_eq!(entry_size(&SCHEMA, &BY_STATUS, &item), 4 + 10 + 7);
        let local = IndexSchema {
            kind: IndexKind::Local,
            ..BY_STATUS
        };
        assert_eq!(entry_size(&SCHEMA, &local, &item), 4 + 10 + 7 + 100);
        let without = Item::from([("id".to_owned(), s("o1"))]);
        assert!(!in_index(&BY_STATUS, &without));
    }

    #[test]
    fn an_update_names_its_attributes() {
        let names = HashMap::from([
            ("#n0".to_owned(), "total".to_owned()),
            ("#n1".to_owned(), "note".to_owned()),
            ("#n10".to_owned(), "status".to_owned()),
        ]);
        let named: Vec<&str> =
            named("SET #n0 = #n0 + :v0, #n10 = :v1 REMOVE #n1", &names).collect();
        assert_eq!(named, ["total", "total", "status", "note"]);
    }
}

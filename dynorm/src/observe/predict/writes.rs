//! The write units of one write, on its table and on each of the model's indexes.
//!
//! DynamoDB charges a write for the larger of the item before and after it, per started
//! KB, and each index for the entry it writes or deletes: an item without every key
//! attribute of an index has no entry there (a sparse index), an entry in a local index
//! counts 100 bytes more than its attributes, an entry whose key changes
//! is deleted and written again, and an entry that does not change costs nothing. In a
//! transaction every unit counts twice.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use super::entry::{entry_size, in_index, max_entry_size, named, placeholders};
use super::units::{max_write_units, write_units};
use super::{index_key, Access, Predicted, Units};
use crate::schema::Schema;
use crate::value::limits::item_size;
use crate::value::Item;

const PUT_OVER: &str = "a put replaces whatever item has its key, and is charged for the larger \
     of the two (up to 400 KB), and for each index entry it writes or deletes; an entry \
     that does not change costs nothing";
const UPDATE: &str = "an update is charged for the larger of the item before and after it \
     (up to 400 KB), and each index whose key or projected attributes it changes is \
     written (an entry whose key changes: deleted, then written), unless the stored values \
     are the same: only the stored item tells";
const DELETE: &str = "a delete is charged for the item it deletes (1 unit when there is none, \
     up to 400 KB), and for each index entry that item had";
const CONDITION_CHECK: &str = "a condition check is charged for the item it checks, whose size \
     only the stored item tells (DynamoDB Local reports no units for it)";
const EXPIRED: &str = "with a #[ttl], a create may replace an expired item that DynamoDB has \
     not deleted yet";

/// Where a write goes: the model's schema and its table's full name, and how many times
/// each unit counts (2 in a transaction).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Target<'a> {
    pub schema: &'static Schema,
    pub table: &'a str,
    pub factor: f64,
}

impl Target<'_> {
    fn add(&self, predicted: &mut Predicted, index: Option<&str>, units: Units) {
        let key = index_key(self.table, index);
        predicted.add(Access::Write, key, units, self.factor);
    }
}

/// A `PutItem` (or a transaction or batch put) of `item`. `over_nothing`: the write's
/// condition makes sure no item has its key (`create`), so nothing is replaced.
pub(crate) fn put(predicted: &mut Predicted, target: Target<'_>, item: &Item, over_nothing: bool) {
    let schema = target.schema;
    let exact = over_nothing && schema.ttl.is_none();
    let new = write_units(item_size(item));
    let table = if exact {
        Units::exact(new)
    } else {
        Units::between(new, new.max(max_write_units()))
    };
    target.add(predicted, None, table);
    for index in schema.indexes {
        let entry = in_index(index, item).then(|| write_units(entry_size(schema, index, item)));
        let most = write_units(max_entry_size(index));
        let units = match (entry, exact) {
            (Some(entry), true) => Units::exact(entry),
            (None, true) => Units::exact(0.0),
            (Some(entry), false) => Units::between(0.0, entry + most),
            (None, false) => Units::between(0.0, most),
        };
        target.add(predicted, Some(index.name), units);
    }
    if over_nothing && !exact {
        predicted.because(EXPIRED);
    } else if !exact {
        predicted.because(PUT_OVER);
    }
}

/// An `UpdateItem` of the item with `key`, with the rendered update `expression` and its
/// placeholders.
pub(crate) fn update(
    predicted: &mut Predicted,
    target: Target<'_>,
    key: &Item,
    expression: &str,
    names: &HashMap<String, String>,
    values: &HashMap<String, AttributeValue>,
) {
    let schema = target.schema;
    let touched: Vec<&str> = named(expression, names).collect();
    // The item after the update holds at least its key and what is set to a value.
    let mut known = key.clone();
    for (name, value) in assignments(expression, names, values) {
        known.insert(name.to_owned(), value.clone());
    }
    let least = write_units(item_size(&known));
    target.add(
        predicted,
        None,
        Units::between(least, least.max(max_write_units())),
    );
    for index in schema.indexes {
        let most = write_units(max_entry_size(index));
        let units = if touched.iter().any(|a| index.has_key(a)) {
            Units::between(0.0, 2.0 * most)
        } else if touched.iter().any(|a| index.projects(schema, a)) {
            Units::between(0.0, most)
        } else {
            Units::exact(0.0)
        };
        target.add(predicted, Some(index.name), units);
    }
    predicted.because(UPDATE);
}

/// The plain assignments of an update expression, `#n0 = :v0`: attributes it sets to a
/// value it holds, with that value.
fn assignments<'a>(
    expression: &'a str,
    names: &'a HashMap<String, String>,
    values: &'a HashMap<String, AttributeValue>,
) -> impl Iterator<Item = (&'a str, &'a AttributeValue)> + 'a {
    let set = expression
        .strip_prefix("SET ")
        .map(|rest| rest.split(" REMOVE ").next().unwrap_or(rest))
        .map(|rest| rest.split(" ADD ").next().unwrap_or(rest))
        .map(|rest| rest.split(" DELETE ").next().unwrap_or(rest))
        .unwrap_or_default();
    set.split(", ").filter_map(move |action| {
        let (name, value) = action.split_once(" = ")?;
        let value = value.trim();
        let whole = |text: &str, sigil| placeholders(text, sigil).next() == Some(text);
        if !whole(name, '#') || !whole(value, ':') {
            return None;
        }
        Some((names.get(name)?.as_str(), values.get(value)?))
    })
}

/// A `DeleteItem` (or a transaction or batch delete).
pub(crate) fn delete(predicted: &mut Predicted, target: Target<'_>) {
    target.add(predicted, None, Units::between(1.0, max_write_units()));
    for index in target.schema.indexes {
        let most = write_units(max_entry_size(index));
        target.add(predicted, Some(index.name), Units::between(0.0, most));
    }
    predicted.because(DELETE);
}

/// A transaction's `ConditionCheck`.
pub(crate) fn condition_check(predicted: &mut Predicted, target: Target<'_>) {
    target.add(predicted, None, Units::between(0.0, max_write_units()));
    predicted.because(CONDITION_CHECK);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::predict::fixtures::{global, key, table};
    use crate::schema::Projection;

    const SCHEMA: Schema = table(
        &["id", "g", "body"],
        &[global("byG", &[key("g")], Projection::KeysOnly)],
    );

    fn s(text: &str) -> AttributeValue {
        AttributeValue::S(text.to_owned())
    }

    fn target(factor: f64) -> Target<'static> {
        Target {
            schema: &SCHEMA,
            table: "T",
            factor,
        }
    }

    #[test]
    fn a_create_is_exact_and_counts_only_the_indexes_it_is_in() {
        let item = Item::from([
            ("id".to_owned(), s("a")),
            ("g".to_owned(), s("x")),
            ("body".to_owned(), s(&"b".repeat(1100))),
        ]);
        let mut p = Predicted::default();
        put(&mut p, target(1.0), &item, true);
        assert_eq!(
            (p.of("T"), p.of("T/byG")),
            (Units::exact(2.0), Units::exact(1.0))
        );
        assert!(p.is_exact());
        let mut p = Predicted::default();
        put(&mut p, target(2.0), &item, true);
        assert_eq!(p.write_units(), Units::exact(6.0));
        let sparse = Item::from([("id".to_owned(), s("a"))]);
        let mut p = Predicted::default();
        put(&mut p, target(1.0), &sparse, true);
        assert_eq!(p.of("T/byG"), Units::exact(0.0));
    }

    #[test]
    fn a_put_over_an_unknown_item_is_a_range_with_its_reason() {
        let item = Item::from([("id".to_owned(), s("a"))]);
        let mut p = Predicted::default();
        put(&mut p, target(1.0), &item, false);
        assert_eq!(p.of("T"), Units::between(1.0, 400.0));
        assert_eq!(p.of("T/byG"), Units::between(0.0, 400.0));
        assert_eq!(p.reasons(), [PUT_OVER]);
    }

    #[test]
    fn an_update_writes_only_the_indexes_it_touches() {
        let key = Item::from([("id".to_owned(), s("a"))]);
        let names = HashMap::from([("#n0".to_owned(), "body".to_owned())]);
        let values = HashMap::from([(":v0".to_owned(), s(&"b".repeat(2000)))]);
        let mut p = Predicted::default();
        update(&mut p, target(1.0), &key, "SET #n0 = :v0", &names, &values);
        assert_eq!(p.of("T"), Units::between(2.0, 400.0));
        assert_eq!(p.of("T/byG"), Units::exact(0.0));
        let names = HashMap::from([("#n0".to_owned(), "g".to_owned())]);
        let mut p = Predicted::default();
        update(&mut p, target(1.0), &key, "SET #n0 = :v0", &names, &values);
        assert_eq!(p.of("T/byG"), Units::between(0.0, 800.0));
    }

    #[test]
    fn assignments_are_plain_sets_only() {
        let names = HashMap::from([
            ("#n0".to_owned(), "a".to_owned()),
            ("#n1".to_owned(), "b".to_owned()),
            ("#n2".to_owned(), "c".to_owned()),
        ]);
        let values = HashMap::from([(":v0".to_owned(), s("x")), (":v1".to_owned(), s("y"))]);
        let found: Vec<&str> =
            assignments("SET #n0 = :v0, #n1 = #n1 + :v1 REMOVE #n2", &names, &values)
                .map(|(name, _)| name)
                .collect();
        assert_eq!(found, ["a"]);
    }
}

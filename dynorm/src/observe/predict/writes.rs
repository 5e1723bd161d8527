//! The write units of one write, on its table and on each of the model's indexes.
//!
//! DynamoDB charges a write for the larger of the item before and after it, per started
//! KB, and each index for the entry it writes or deletes: an item without every key
//! attribute of an index has no entry there (a sparse index), an entry in a local index
//! counts 100 bytes more than its attributes, an entry whose key changes
//! is deleted and written again, and an entry that does not change costs nothing. A write
//! whose condition fails is charged for the item stored (at least 1 unit) and writes no
//! index. In a transaction every unit counts twice.
//!
//! No stored item is larger than the model's `max_item_bytes` (DynamoDB's 400 KB when it
//! declares none): that bounds whatever the stored item decides.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

pub(crate) use super::entry::in_index;
use super::entry::{entry_size, max_entry_size, named, placeholders};
use super::units::write_units;
use super::{index_key, Access, Predicted, Units};
use crate::schema::{IndexSchema, Schema};
use crate::value::limits::item_size;
use crate::value::Item;

const PUT_OVER: &str = "a put replaces whatever item has its key, and is charged for the larger \
     of the two, and for each index entry it writes or deletes; an entry that does not \
     change costs nothing";
const UPDATE: &str = "an update is charged for the larger of the item before and after it, and \
     each index whose key or projected attributes it changes is written (an entry whose key \
     changes: deleted, then written), unless the stored values are the same: only the \
     stored item tells";
const DELETE: &str = "a delete is charged for the item it deletes (1 unit when there is none), \
     and for each index entry that item had";
const CONDITION_CHECK: &str = "a condition check is charged for the item it checks, whose size \
     only the stored item tells (DynamoDB Local reports no units for it)";
const EXPIRED: &str = "with a #[ttl], a create may replace an expired item that DynamoDB has \
     not deleted yet";
const FAILED: &str = "a write whose condition fails (`create` over an existing item, a version \
     or a condition that does not hold) writes nothing, and is charged for the item stored, \
     at least 1 unit";
const COUNT: &str = "a count's parent is charged for its size, which only the stored parent \
     tells";

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

    /// The write units of the largest item of the model.
    fn most(&self) -> f64 {
        write_units(self.schema.item_bound())
    }

    /// The write units of the largest entry of the model's items in `index`.
    fn most_entry(&self, index: &IndexSchema) -> f64 {
        write_units(max_entry_size(index, self.schema.item_bound()))
    }

    /// Adds the reasons that explain the ranges of one write, when a number is one.
    fn explain(&self, predicted: &mut Predicted, ranged: bool, reasons: &[&str]) {
        if !ranged {
            return;
        }
        for reason in reasons {
            predicted.because(reason);
        }
        predicted.because(&bound_reason(self.schema));
    }
}

/// Why a range ends where it does: the largest item the model can store.
fn bound_reason(schema: &Schema) -> String {
    match schema.max_item_bytes {
        Some(bytes) => format!(
            "no `{}` item is larger than its `max_item_bytes` ({bytes} bytes): every write \
             refuses a larger one, though an update cannot tell the size it leaves",
            schema.model
        ),
        None => format!(
            "a `{}` item may be as large as DynamoDB allows (400 KB): declare \
             `#[dynorm(max_item_bytes = N)]` to bound it",
            schema.model
        ),
    }
}

/// What a write's request says about the item it meets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Meets {
    /// Its condition requires that no item has its key (`create`, `insert`): when it is
    /// written, nothing is replaced.
    pub nothing: bool,
    /// It has a condition, which may fail.
    pub conditional: bool,
}

/// `units` of a write that succeeds, or, when its condition may fail, what it costs then:
/// `failed` (the stored item's units on the table, nothing on an index).
fn or_failed(units: Units, meets: Meets, failed: Units) -> Units {
    if meets.conditional {
        units.or(failed)
    } else {
        units
    }
}

/// A `PutItem` (or a transaction or batch put) of `item`.
pub(crate) fn put(predicted: &mut Predicted, target: Target<'_>, item: &Item, meets: Meets) {
    let schema = target.schema;
    let replaces = !meets.nothing || schema.ttl.is_some();
    let new = write_units(item_size(item));
    let table = if replaces {
        Units::between(new, new.max(target.most()))
    } else {
        Units::exact(new)
    };
    let table = or_failed(table, meets, Units::between(1.0, target.most()));
    let mut ranged = !table.is_exact();
    target.add(predicted, None, table);
    for index in schema.indexes {
        let entry = in_index(index, item).then(|| write_units(entry_size(schema, index, item)));
        let most = target.most_entry(index);
        let units = match (entry, replaces) {
            (Some(entry), false) => Units::exact(entry),
            (None, false) => Units::exact(0.0),
            (Some(entry), true) => Units::between(0.0, entry + most),
            (None, true) => Units::between(0.0, most),
        };
        let units = or_failed(units, meets, Units::exact(0.0));
        ranged |= !units.is_exact();
        target.add(predicted, Some(index.name), units);
    }
    let why = match (replaces, meets.nothing) {
        (false, _) => None,
        (true, true) => Some(EXPIRED),
        (true, false) => Some(PUT_OVER),
    };
    let failed = meets.conditional.then_some(FAILED);
    let reasons: Vec<&str> = why.into_iter().chain(failed).collect();
    target.explain(predicted, ranged, &reasons);
}

/// An `UpdateItem` of the item with `key`, with the rendered update `expression` and its
/// placeholders; `conditional` when it has a condition (an update that requires the item
/// to exist always has one).
pub(crate) fn update(
    predicted: &mut Predicted,
    target: Target<'_>,
    key: &Item,
    expression: &str,
    names: &HashMap<String, String>,
    values: &HashMap<String, AttributeValue>,
    conditional: bool,
) {
    let touched: Vec<&str> = named(expression, names).collect();
    let least = write_units(item_size(&known_after(key, expression, names, values)));
    let meets = Meets {
        nothing: false,
        conditional,
    };
    let ranged = changes(predicted, target, least, &touched, meets);
    target.explain(
        predicted,
        ranged,
        &[UPDATE, FAILED][..1 + usize::from(conditional)],
    );
}

/// The count update on a parent: `ADD attribute delta`, on condition that the parent
/// exists (and that the count stays at zero or above).
pub(crate) fn count(predicted: &mut Predicted, target: Target<'_>, attribute: &str) {
    let meets = Meets {
        nothing: false,
        conditional: true,
    };
    let ranged = changes(predicted, target, write_units(0), &[attribute], meets);
    target.explain(predicted, ranged, &[COUNT]);
}

/// The units of an update that leaves an item of at least `least` units and changes the
/// `touched` attributes; whether a number is a range.
fn changes(
    predicted: &mut Predicted,
    target: Target<'_>,
    least: f64,
    touched: &[&str],
    meets: Meets,
) -> bool {
    let schema = target.schema;
    let table = Units::between(least, least.max(target.most()));
    let table = or_failed(table, meets, Units::between(1.0, target.most()));
    let mut ranged = !table.is_exact();
    target.add(predicted, None, table);
    for index in schema.indexes {
        let most = target.most_entry(index);
        let units = if touched.iter().any(|a| index.has_key(a)) {
            Units::between(0.0, 2.0 * most)
        } else if touched.iter().any(|a| index.projects(schema, a)) {
            Units::between(0.0, most)
        } else {
            Units::exact(0.0)
        };
        ranged |= !units.is_exact();
        target.add(predicted, Some(index.name), units);
    }
    ranged
}

/// The item an update leaves, as far as the request tells: its key, and every attribute
/// it sets to a value it holds.
pub(crate) fn known_after(
    key: &Item,
    expression: &str,
    names: &HashMap<String, String>,
    values: &HashMap<String, AttributeValue>,
) -> Item {
    let mut known = key.clone();
    for (name, value) in assignments(expression, names, values) {
        known.insert(name.to_owned(), value.clone());
    }
    known
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

/// A `DeleteItem` (or a transaction or batch delete) of one of the model's items.
pub(crate) fn delete(predicted: &mut Predicted, target: Target<'_>) {
    bounded(
        predicted,
        target,
        target.schema.item_bound(),
        |_| true,
        DELETE,
    );
}

/// A write of an item of at most `bound` bytes whose size only the stored item tells,
/// which is in the indexes `indexed` says it may be in: 1 unit up to its size on the
/// table, up to its entry on each such index. `why` explains the range.
pub(crate) fn bounded(
    predicted: &mut Predicted,
    target: Target<'_>,
    bound: usize,
    indexed: impl Fn(&IndexSchema) -> bool,
    why: &str,
) {
    let table = Units::between(1.0, write_units(bound));
    let mut ranged = !table.is_exact();
    target.add(predicted, None, table);
    for index in target.schema.indexes {
        let units = if indexed(index) {
            Units::between(0.0, write_units(max_entry_size(index, bound)))
        } else {
            Units::exact(0.0)
        };
        ranged |= !units.is_exact();
        target.add(predicted, Some(index.name), units);
    }
    target.explain(predicted, ranged, &[why]);
}

/// A single write whose condition failed: the stored item's units on the table (at
/// least 1), nothing on an index.
pub(crate) fn failed(predicted: &mut Predicted, target: Target<'_>) {
    let table = Units::between(1.0, target.most());
    target.add(predicted, None, table);
    for index in target.schema.indexes {
        target.add(predicted, Some(index.name), Units::exact(0.0));
    }
    target.explain(predicted, !table.is_exact(), &[FAILED]);
}

/// A transaction's `ConditionCheck`.
pub(crate) fn condition_check(predicted: &mut Predicted, target: Target<'_>) {
    target.add(predicted, None, Units::between(0.0, target.most()));
    target.explain(predicted, true, &[CONDITION_CHECK]);
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
    /// The same, declaring `max_item_bytes = 3000`.
    const BOUNDED: Schema = Schema {
        max_item_bytes: Some(3000),
        ..SCHEMA
    };

    fn s(text: &str) -> AttributeValue {
        AttributeValue::S(text.to_owned())
    }

    fn target(schema: &'static Schema, factor: f64) -> Target<'static> {
        Target {
            schema,
            table: "T",
            factor,
        }
    }

    const CREATE: Meets = Meets {
        nothing: true,
        conditional: true,
    };
    const PUT: Meets = Meets {
        nothing: false,
        conditional: false,
    };

    fn indexed() -> Item {
        Item::from([
            ("id".to_owned(), s("a")),
            ("g".to_owned(), s("x")),
            ("body".to_owned(), s(&"b".repeat(1100))),
        ])
    }

    #[test]
    fn a_new_item_written_unconditionally_is_exact() {
        let item = indexed();
        let mut p = Predicted::default();
        let new = Meets {
            nothing: true,
            conditional: false,
        };
        put(&mut p, target(&SCHEMA, 1.0), &item, new);
        assert_eq!(
            (p.of("T"), p.of("T/byG")),
            (Units::exact(2.0), Units::exact(1.0))
        );
        assert!(p.is_exact());
        let sparse = Item::from([("id".to_owned(), s("a"))]);
        let mut p = Predicted::default();
        put(&mut p, target(&SCHEMA, 1.0), &sparse, new);
        assert_eq!(p.of("T/byG"), Units::exact(0.0));
    }

    #[test]
    fn a_create_may_fail_and_be_charged_for_the_stored_item() {
        let item = indexed();
        let mut p = Predicted::default();
        put(&mut p, target(&SCHEMA, 1.0), &item, CREATE);
        assert_eq!(p.of("T"), Units::between(1.0, 400.0));
        assert_eq!(p.of("T/byG"), Units::between(0.0, 1.0));
        assert!(p.reasons().iter().any(|r| r.as_str() == FAILED));
        assert!(!p.is_exact());
        // Bounded: the stored item is at most 3000 bytes, 3 units.
        let mut p = Predicted::default();
        put(&mut p, target(&BOUNDED, 2.0), &item, CREATE);
        assert_eq!(p.of("T"), Units::between(2.0, 6.0));
        assert_eq!(p.write_units(), Units::between(2.0, 8.0));
        assert!(p.reasons().iter().any(|r| r.contains("3000 bytes")));
    }

    #[test]
    fn a_put_over_an_unknown_item_is_bounded_by_the_largest_item() {
        let item = Item::from([("id".to_owned(), s("a"))]);
        let mut p = Predicted::default();
        put(&mut p, target(&SCHEMA, 1.0), &item, PUT);
        assert_eq!(p.of("T"), Units::between(1.0, 400.0));
        assert_eq!(p.of("T/byG"), Units::between(0.0, 400.0));
        assert!(p.reasons().iter().any(|r| r.as_str() == PUT_OVER));
        assert!(p.reasons().iter().any(|r| r.contains("max_item_bytes = N")));
        let mut p = Predicted::default();
        put(&mut p, target(&BOUNDED, 1.0), &indexed(), PUT);
        assert_eq!(p.of("T"), Units::between(2.0, 3.0));
        assert_eq!(p.of("T/byG"), Units::between(0.0, 4.0));
    }

    #[test]
    fn an_update_writes_only_the_indexes_it_touches() {
        let key = Item::from([("id".to_owned(), s("a"))]);
        let names = HashMap::from([("#n0".to_owned(), "body".to_owned())]);
        let values = HashMap::from([(":v0".to_owned(), s(&"b".repeat(2000)))]);
        let mut p = Predicted::default();
        let t = target(&SCHEMA, 1.0);
        update(&mut p, t, &key, "SET #n0 = :v0", &names, &values, false);
        assert_eq!(p.of("T"), Units::between(2.0, 400.0));
        assert_eq!(p.of("T/byG"), Units::exact(0.0));
        // With a condition, it may fail over a small item, or none: 1 unit.
        let mut p = Predicted::default();
        update(&mut p, t, &key, "SET #n0 = :v0", &names, &values, true);
        assert_eq!(p.of("T"), Units::between(1.0, 400.0));
        let names = HashMap::from([("#n0".to_owned(), "g".to_owned())]);
        let mut p = Predicted::default();
        let t = target(&BOUNDED, 1.0);
        update(&mut p, t, &key, "SET #n0 = :v0", &names, &values, true);
        assert_eq!(p.of("T/byG"), Units::between(0.0, 6.0));
        assert_eq!(p.of("T"), Units::between(1.0, 3.0));
    }

    #[test]
    fn a_small_bound_makes_a_delete_exact() {
        const SMALL: Schema = Schema {
            max_item_bytes: Some(1000),
            indexes: &[],
            ..SCHEMA
        };
        let mut p = Predicted::default();
        delete(&mut p, target(&SMALL, 1.0));
        assert_eq!(p.of("T"), Units::exact(1.0));
        assert!(p.is_exact(), "{p}");
        let mut p = Predicted::default();
        delete(&mut p, target(&BOUNDED, 1.0));
        assert_eq!(p.write_units(), Units::between(1.0, 6.0));
    }

    #[test]
    fn a_count_update_is_bounded_by_its_parent() {
        let mut p = Predicted::default();
        count(&mut p, target(&BOUNDED, 2.0), "body");
        assert_eq!(p.of("T"), Units::between(2.0, 6.0));
        assert_eq!(p.of("T/byG"), Units::exact(0.0));
        assert!(p.reasons().iter().any(|r| r.as_str() == COUNT));
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
        let key = Item::from([("id".to_owned(), s("k"))]);
        let known = known_after(&key, "SET #n0 = :v0", &names, &values);
        assert_eq!(known.len(), 2);
    }
}

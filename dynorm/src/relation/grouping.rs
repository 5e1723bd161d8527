//! The values parents give a relation, deduplicated, and the related items grouped by
//! the values they hold.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use super::RelationSchema;
use crate::error::Result;
use crate::schema::{Model, ModelKey, Schema};
use crate::value::Item;

/// The operation a relation load's errors name.
pub(super) const OPERATION: &str = "find";

/// The values a parent gives a relation, under the related model's attribute names; `None`
/// when one is absent (an `Option` field holding `None`).
/// `from_key`: every field is a source of the parent's table key, so the key's sources
/// are read instead of the whole item.
fn reference_values<P: Model>(
    parent: &P,
    relation: &RelationSchema,
    from_key: bool,
) -> Result<Option<Item>> {
    let item = if from_key {
        parent.key().__stored_sources()
    } else {
        parent.to_item()
    };
    let mut item = item.map_err(|e| e.with_operation(OPERATION))?;
    let mut out = Item::new();
    for (field, reference) in relation.fields.iter().zip(relation.references) {
        match item.remove(*field) {
            None | Some(AttributeValue::Null(_)) => return Ok(None),
            Some(value) => {
                out.insert((*reference).to_owned(), value);
            }
        }
    }
    Ok(Some(out))
}

/// The attributes a model's table key is built from: its template fields, or its key
/// attributes.
fn key_sources(schema: &Schema) -> Vec<&'static str> {
    match schema.entity {
        Some(entity) => entity
            .keys
            .iter()
            .filter(|t| t.index.is_none())
            .flat_map(|t| t.fields())
            .collect(),
        None => schema.keys.iter().map(|k| k.name).collect(),
    }
}

/// The identity of a set of reference values: each value's type, length and text, so
/// that no two sets have the same identity.
fn signature(values: &Item, relation: &RelationSchema) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for reference in relation.references {
        let _ = match values.get(*reference) {
            Some(AttributeValue::S(text)) => write!(out, "S{}:{text}", text.len()),
            Some(AttributeValue::N(number)) => write!(out, "N{}:{number}", number.len()),
            other => {
                let debug = format!("{other:?}");
                write!(out, "D{}:{debug}", debug.len())
            }
        };
    }
    out
}

/// Each parent's output, from the outputs of the distinct values at `positions` (`None`:
/// the parent has no values, and gets an empty output): moved to the last parent that uses it,
/// cloned for the others.
pub(super) fn spread<T: Clone + Default>(outputs: Vec<T>, positions: Vec<Option<usize>>) -> Vec<T> {
    let mut last = vec![usize::MAX; outputs.len()];
    for (parent, position) in positions.iter().enumerate() {
        if let Some(slot) = position.and_then(|p| last.get_mut(p)) {
            *slot = parent;
        }
    }
    let mut outputs: Vec<Option<T>> = outputs.into_iter().map(Some).collect();
    positions
        .into_iter()
        .enumerate()
        .map(|(parent, position)| {
            let Some(p) = position else {
                return T::default();
            };
            let output = if last.get(p) == Some(&parent) {
                outputs.get_mut(p).and_then(Option::take)
            } else {
                outputs.get(p).cloned().flatten()
            };
            output.unwrap_or_default()
        })
        .collect()
}

/// The reference values of each parent, deduplicated: the distinct values, and for each
/// parent the position of its values among them.
pub(super) fn distinct<P: Model>(
    parents: &[P],
    relation: &RelationSchema,
) -> Result<(Vec<Item>, Vec<Option<usize>>)> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut values = Vec::new();
    let mut positions = Vec::with_capacity(parents.len());
    let from_key = relation
        .fields
        .iter()
        .all(|field| key_sources(&P::SCHEMA).contains(field));
    for parent in parents {
        let position = reference_values(parent, relation, from_key)?.map(|item| {
            *seen.entry(signature(&item, relation)).or_insert_with(|| {
                values.push(item);
                values.len() - 1
            })
        });
        positions.push(position);
    }
    Ok((values, positions))
}

/// The position of each parent's reference values, by signature, and an empty group for each.
fn empty_groups<C>(
    values: &[Item],
    relation: &RelationSchema,
) -> (HashMap<String, usize>, Vec<Vec<C>>) {
    let index = values
        .iter()
        .enumerate()
        .map(|(i, v)| (signature(v, relation), i))
        .collect();
    let groups = (0..values.len()).map(|_| Vec::new()).collect();
    (index, groups)
}

/// Groups related items by the reference values they hold.
pub(super) fn group<C: Model>(
    items: Vec<C>,
    values: &[Item],
    relation: &RelationSchema,
) -> Result<Vec<Vec<C>>> {
    let (index, mut groups) = empty_groups::<C>(values, relation);
    for item in items {
        let stored = item.to_item().map_err(|e| e.with_operation(OPERATION))?;
        if let Some(&i) = index.get(&signature(&stored, relation)) {
            groups[i].push(item);
        }
    }
    Ok(groups)
}

/// Raw items grouped by the reference values they hold, then decoded.
pub(super) fn decode_groups<C: Model>(
    items: Vec<Item>,
    values: &[Item],
    relation: &RelationSchema,
) -> Result<Vec<Vec<C>>> {
    let (index, mut groups) = empty_groups::<C>(values, relation);
    for item in items {
        if let Some(&i) = index.get(&signature(&item, relation)) {
            groups[i].push(C::from_item(item)?);
        }
    }
    Ok(groups)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAIR: RelationSchema = RelationSchema {
        name: "pair",
        fields: &["a", "b"],
        references: &["a", "b"],
        allow_scan: false,
    };

    fn values(a: &str, b: &str) -> Item {
        Item::from([
            ("a".to_owned(), AttributeValue::S(a.to_owned())),
            ("b".to_owned(), AttributeValue::S(b.to_owned())),
        ])
    }

    #[test]
    fn signatures_of_different_values_differ() {
        let one = signature(&values("x:S1", "y"), &PAIR);
        let other = signature(&values("x", "S1:y"), &PAIR);
        assert_ne!(one, other);
        let number = Item::from([
            ("a".to_owned(), AttributeValue::N("1".to_owned())),
            ("b".to_owned(), AttributeValue::S("y".to_owned())),
        ]);
        assert_ne!(
            signature(&number, &PAIR),
            signature(&values("1", "y"), &PAIR)
        );
        assert_eq!(
            signature(&values("x", "y"), &PAIR),
            signature(&values("x", "y"), &PAIR)
        );
    }

    #[test]
    fn each_parent_gets_its_output_once_moved_else_cloned() {
        let outputs = vec![vec!["a"], vec!["b"]];
        let positions = vec![Some(0), None, Some(0), Some(1)];
        assert_eq!(
            spread(outputs, positions),
            vec![vec!["a"], vec![], vec!["a"], vec!["b"]]
        );
    }
}

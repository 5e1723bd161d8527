//! How the related side of a relation is reached: a table key, an index key, a key
//! template, or (only when allowed) a scan.

use std::fmt;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};
use crate::schema::{entity_keys, unique, IndexSchema, Schema, TemplatePart};
use crate::value::Item;

/// The access path to the related items of one parent.
#[derive(Clone, Debug)]
pub enum Access {
    /// `GetItem` by the whole table key (batched as `BatchGetItem`).
    Key,
    /// `Query` on the table or an index, whose hash key the references determine.
    Query(IndexSchema),
    /// `Scan` with a filter: no key reaches the references (`allow_scan`).
    Scan,
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Access::Key => f.write_str("BatchGetItem by table key"),
            Access::Query(index) => write!(f, "Query on `{}`", index.label()),
            Access::Scan => f.write_str("Scan with a filter"),
        }
    }
}

/// Whether every source of a hash key is among `references`.
fn covered(sources: &mut dyn Iterator<Item = &'static str>, references: &[&str]) -> bool {
    let mut any = false;
    for source in sources {
        any = true;
        if !references.contains(&source) {
            return false;
        }
    }
    any
}

/// The hash key sources of the table (`None`) or an index, from templates or key fields.
fn hash_sources(schema: &Schema, index: Option<&IndexSchema>) -> Vec<&'static str> {
    if let Some(entity) = schema.entity {
        let name = index.map(|i| i.name);
        let templated: Vec<_> = entity
            .keys
            .iter()
            .filter(|t| t.is_hash && t.index == name)
            .flat_map(|t| t.fields())
            .collect();
        if !templated.is_empty() || name.is_none() {
            return templated;
        }
    }
    match index {
        Some(index) => index.hash_key.iter().map(|k| k.name).collect(),
        None => vec![schema.hash_key.name],
    }
}

/// The attributes the hash key of `index` (an index of `schema`, or its table) is built
/// from: template fields, or the key attributes themselves.
pub(crate) fn index_hash_sources(schema: &Schema, index: &IndexSchema) -> Vec<&'static str> {
    let named = (index.kind != crate::schema::IndexKind::Table).then_some(index);
    hash_sources(schema, named)
}

/// Whether the range key of the table is fixed once the references are known: a key
/// field among them, or a template of static parts and references.
fn table_range_covered(schema: &Schema, references: &[&str]) -> bool {
    if let Some(entity) = schema.entity {
        return entity
            .keys
            .iter()
            .filter(|t| t.index.is_none() && !t.is_hash)
            .all(|t| {
                t.parts.iter().all(|p| match p {
                    TemplatePart::Static(_) => true,
                    TemplatePart::Field(name) => references.contains(name),
                })
            });
    }
    schema
        .range_key
        .is_none_or(|range| references.contains(&range.name))
}

/// Chooses how to reach `schema`'s items from `references`: the whole table key for a
/// `one` relation when it is fixed, else the table or index whose hash key the references
/// determine (the table first, then global, then local indexes), else a scan if allowed.
pub(crate) fn choose(
    schema: &Schema,
    references: &[&str],
    one: bool,
    allow_scan: bool,
) -> Result<Access> {
    let table_hash = hash_sources(schema, None);
    if covered(&mut table_hash.iter().copied(), references) {
        if one && table_range_covered(schema, references) {
            return Ok(Access::Key);
        }
        return Ok(Access::Query(schema.table_index()));
    }
    for index in schema.indexes {
        if covered(
            &mut hash_sources(schema, Some(index)).into_iter(),
            references,
        ) {
            return Ok(Access::Query(*index));
        }
    }
    if allow_scan {
        return Ok(Access::Scan);
    }
    Err(Error::validation(format!(
        "no table or index key of `{}` is built from {:?}; add an index, or `allow_scan` to the relation",
        schema.model, references
    ))
    .with_model(schema.model))
}

/// The hash key values of `index` for the related item whose references hold `values`;
/// a partition of the table's hash key that is a guard's is refused.
pub(crate) fn hash_values(
    schema: &Schema,
    index: &IndexSchema,
    values: &Item,
) -> Result<Vec<(&'static str, AttributeValue)>> {
    let hash = partition_values(schema, index, values)?;
    let partition = hash.iter().map(|(name, value)| (*name, value));
    unique::refuse_guard_partition(schema, partition, "find")?;
    Ok(hash)
}

/// [`hash_values`], unchecked.
fn partition_values(
    schema: &Schema,
    index: &IndexSchema,
    values: &Item,
) -> Result<Vec<(&'static str, AttributeValue)>> {
    if schema.entity.is_some() {
        let name = (index.kind != crate::schema::IndexKind::Table).then_some(index.name);
        let rendered = entity_keys::template_hash_values(schema, name, values)?;
        if !rendered.is_empty() {
            return Ok(rendered);
        }
    }
    index
        .hash_key
        .iter()
        .map(|k| {
            values
                .get(k.name)
                .cloned()
                .map(|v| (k.name, v))
                .ok_or_else(|| {
                    Error::validation(format!("no value for key attribute `{}`", k.name))
                        .with_model(schema.model)
                })
        })
        .collect()
}

/// The whole table key of the related item whose references hold `values`.
pub(crate) fn table_key(schema: &Schema, values: &Item) -> Result<Item> {
    if schema.entity.is_some() {
        return entity_keys::entity_key(schema, values);
    }
    schema
        .keys
        .iter()
        .map(|k| {
            values
                .get(k.name)
                .cloned()
                .map(|v| (k.name.to_owned(), v))
                .ok_or_else(|| {
                    Error::validation(format!("no value for key attribute `{}`", k.name))
                        .with_model(schema.model)
                })
        })
        .collect()
}

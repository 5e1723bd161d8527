//! The filters dynorm adds to reads on its own: hide expired items, and keep one entity's
//! items in a shared table.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::expr::condition::{Comparison, Expr};
use crate::schema::convention::Convention;
use crate::schema::entity::TemplatePart;
use crate::schema::unique::GUARD_MARKER;
use crate::schema::Schema;

/// The filter that hides expired items: `attribute_not_exists(ttl) OR ttl > now`.
pub(crate) fn unexpired(schema: &Schema) -> Option<Expr> {
    let attribute = schema.ttl?;
    let now = AttributeValue::N(crate::value::clock::epoch_seconds().to_string());
    Some(Expr::Or(vec![
        Expr::NotExists(attribute),
        Expr::Compare(attribute, Comparison::Gt, now),
    ]))
}

/// The filter that keeps only this entity's items in a shared table: its name, and under
/// ElectroDB's convention its version too. A model of its own table with unique
/// attributes keeps its guard items out instead (a single-table model's guards carry
/// another entity name).
pub fn entity(schema: &Schema) -> Option<Expr> {
    let Some(entity) = schema.entity else {
        return (!schema.uniques.is_empty()).then_some(Expr::NotExists(GUARD_MARKER));
    };
    let name = Expr::Compare(
        entity.attribute,
        Comparison::Eq,
        AttributeValue::S(entity.name.to_owned()),
    );
    Some(match entity.convention.version() {
        Some((attribute, version)) => Expr::And(vec![
            name,
            Expr::Compare(
                attribute,
                Comparison::Eq,
                AttributeValue::S(version.to_owned()),
            ),
        ]),
        None => name,
    })
}

/// Under ElectroDB's convention, what ElectroDB's scan adds to keep its entity's items:
/// each key of the scanned table or index (`index`) begins with its template's text
/// before the first field (`$mallstoredirectory#cityid_`). Every item either library
/// writes for the entity has such keys.
pub(crate) fn key_prefixes(schema: &Schema, index: Option<&str>) -> Vec<Expr> {
    let Some(entity) = schema.entity else {
        return Vec::new();
    };
    if !matches!(entity.convention, Convention::ElectroDb { .. }) {
        return Vec::new();
    }
    entity
        .keys
        .iter()
        .filter(|template| template.index == index)
        .filter_map(|template| match template.parts.first() {
            Some(TemplatePart::Static(prefix)) if !prefix.is_empty() => Some(Expr::BeginsWith(
                template.attribute,
                AttributeValue::S((*prefix).to_owned()),
            )),
            _ => None,
        })
        .collect()
}

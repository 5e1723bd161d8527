//! The compile-time check of a `#[derive(Collection)]`: one query reads the collection's
//! partition, so every entity in it keys that partition the same way.

use crate::schema::const_text::ConstText;
use crate::schema::entity::{KeyCasing, KeyTemplate, TemplatePart};
use crate::schema::index_schema::{IndexKind, IndexSchema};
use crate::schema::shared_table::{key_template, same};
use crate::schema::Schema;

/// Whether two partition key templates render the same text from the same values: the
/// same static text around their fields, whatever the fields are named in each entity
/// (`TICKET#{id}` and `TICKET#{ticket_id}`), folded alike.
const fn same_template(a: &KeyTemplate, b: &KeyTemplate) -> bool {
    if !same(a.attribute, b.attribute) || a.parts.len() != b.parts.len() {
        return false;
    }
    if !matches!(
        (a.casing, b.casing),
        (KeyCasing::None, KeyCasing::None)
            | (KeyCasing::Lower, KeyCasing::Lower)
            | (KeyCasing::Upper, KeyCasing::Upper)
    ) {
        return false;
    }
    let mut i = 0;
    while i < a.parts.len() {
        let equal = match (&a.parts[i], &b.parts[i]) {
            (TemplatePart::Static(x), TemplatePart::Static(y)) => same(x, y),
            (TemplatePart::Field(_), TemplatePart::Field(_)) => true,
            _ => false,
        };
        if !equal {
            return false;
        }
        i += 1;
    }
    true
}

/// The compile-time check of a collection of `entities` on `index`: each entity keys the
/// index with a template, all of them the same partition key. Otherwise the collection's
/// query, which reads one partition, could never find some of its entities' items.
pub const fn check_collection(entities: &[&Schema], index: &IndexSchema) {
    let name = match index.kind {
        IndexKind::Table => None,
        _ => Some(index.name),
    };
    let mut first: Option<(&Schema, &KeyTemplate)> = None;
    let mut i = 0;
    while i < entities.len() {
        let schema = entities[i];
        let template = match &schema.entity {
            Some(entity) => key_template(entity, name, true),
            None => None,
        };
        let Some(template) = template else {
            let text = ConstText::new()
                .push("`")
                .push(schema.model)
                .push("` of the collection has no key template on ");
            let text = match name {
                Some(name) => text.push("index `").push(name).push("`"),
                None => text.push("the table"),
            };
            text.push(
                ": a collection reads one partition that each of its entities keys with #[key(..)]",
            )
            .fail();
        };
        match first {
            None => first = Some((schema, template)),
            Some((anchor, anchor_template)) => {
                if !same_template(anchor_template, template) {
                    ConstText::new()
                        .push("`")
                        .push(anchor.model)
                        .push("` and `")
                        .push(schema.model)
                        .push("` key the collection's partition (`")
                        .push(template.attribute)
                        .push("`) differently: a collection's query reads one partition")
                        .fail();
                }
            }
        }
        i += 1;
    }
}

//! `plan`: each model's table and indexes, what each keys and projects, and the index the
//! planner chooses for each access pattern, with its reason.

use dynorm::__ext::error::Context as _;
use std::fmt::Write as _;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;

use crate::cli::registry::Registered;
use dynorm::__ext::error::{Error, Result};
use dynorm::__ext::expr::plan::{plan_query, Conditions};
use dynorm::__ext::expr::{Comparison, Expr};
use dynorm::__ext::schema::{IndexKind, IndexSchema, KeyAttribute, Projection, Schema};
use dynorm::__ext::value::ScalarType;

/// The plan of every model, or of the one named `only`.
pub(crate) fn run(models: &[Box<dyn Registered>], only: Option<&str>) -> Result<String> {
    let mut out = String::new();
    let mut shown = 0;
    for model in models {
        let schema = model.schema();
        if only.is_some_and(|name| name != schema.model) {
            continue;
        }
        shown += 1;
        model_plan(&mut out, schema);
    }
    if shown == 0 {
        return Err(Error::new(
            dynorm::ErrorKind::Validation,
            match only {
                Some(name) => format!("no model `{name}` is registered"),
                None => "no model is registered".to_owned(),
            },
        )
        .at_operation("plan"));
    }
    Ok(out)
}

/// One model: its table, then each of its query targets with its access pattern.
fn model_plan(out: &mut String, schema: &'static Schema) {
    let _ = write!(out, "{} (table `{}`", schema.model, schema.table);
    if let Some(entity) = &schema.entity {
        let _ = write!(out, ", entity `{}`", entity.name);
    }
    out.push_str(")\n");
    for index in schema.query_targets() {
        let kind = match index.kind {
            IndexKind::Table => "table",
            IndexKind::Global => "global index",
            IndexKind::Local => "local index",
            _ => "index",
        };
        let label = if index.kind == IndexKind::Table {
            kind.to_owned()
        } else {
            format!("{kind} `{}`", index.name)
        };
        let _ = writeln!(
            out,
            "  {label}: hash {}{}; projects {}",
            keys(schema, &index, index.hash_key),
            if index.range_key.is_empty() {
                String::new()
            } else {
                format!(", range {}", keys(schema, &index, index.range_key))
            },
            projection(&index)
        );
        let _ = writeln!(
            out,
            "    query_by::<{}>(..) reads it by name",
            index.type_name
        );
        let _ = writeln!(out, "    {}", chosen(schema, &index));
    }
}

/// Key attributes with their types, and the template each is written from.
fn keys(schema: &Schema, index: &IndexSchema, attributes: &[KeyAttribute]) -> String {
    attributes
        .iter()
        .map(|attribute| {
            let template = schema.entity.as_ref().and_then(|entity| {
                entity
                    .keys
                    .iter()
                    .find(|k| k.index == index.request_name() && k.attribute == attribute.name)
            });
            let scalar = match attribute.scalar {
                ScalarType::S => "S",
                ScalarType::N => "N",
                ScalarType::B => "B",
                _ => "?",
            };
            match template {
                Some(template) => {
                    let text: String = template
                        .parts
                        .iter()
                        .map(|part| match part {
                            dynorm::__ext::schema::TemplatePart::Static(text) => (*text).to_owned(),
                            dynorm::__ext::schema::TemplatePart::Field(name) => {
                                format!("{{{name}}}")
                            }
                            other => format!("{other:?}"),
                        })
                        .collect();
                    format!("`{}` {scalar} = \"{text}\"", attribute.name)
                }
                None => format!("`{}` {scalar}", attribute.name),
            }
        })
        .collect::<Vec<_>>()
        .join(" + ")
}

fn projection(index: &IndexSchema) -> String {
    match index.projection {
        Projection::All => "ALL".to_owned(),
        Projection::KeysOnly => "KEYS_ONLY".to_owned(),
        Projection::Include(names) => format!("INCLUDE [{}]", names.join(", ")),
        _ => "?".to_owned(),
    }
}

/// What `query::<M>()` chooses for an equality on the index's hash key and a condition
/// on its range key, and why, from the planner itself.
fn chosen(schema: &Schema, index: &IndexSchema) -> String {
    let mut matching: Vec<Expr> = index
        .hash_key
        .iter()
        .map(|k| Expr::Compare(k.name, Comparison::Eq, stand_in(k.scalar)))
        .collect();
    if let Some(range) = index.range_key.first() {
        matching.push(Expr::Compare(
            range.name,
            Comparison::Ge,
            stand_in(range.scalar),
        ));
    }
    let pattern = index
        .hash_key
        .iter()
        .map(|k| format!("`{}` =", k.name))
        .chain(index.range_key.first().map(|k| format!("`{}` >=", k.name)))
        .collect::<Vec<_>>()
        .join(" and ");
    let conditions = Conditions {
        matching,
        ..Conditions::default()
    };
    match plan_query(schema, None, conditions, true) {
        Ok(plan) if plan.index_name() == index.label() => {
            format!(
                "query::<{}>() with {pattern}: uses it ({})",
                schema.model, plan.reason
            )
        }
        Ok(plan) => format!(
            "query::<{}>() with {pattern}: uses `{}` instead ({}); name this one with query_by",
            schema.model,
            plan.index_name(),
            plan.reason
        ),
        Err(e) => format!(
            "query::<{}>() with {pattern}: {}",
            schema.model,
            e.message()
        ),
    }
}

/// A value of the key's type, for planning only.
fn stand_in(scalar: ScalarType) -> AttributeValue {
    match scalar {
        ScalarType::S => AttributeValue::S("…".to_owned()),
        ScalarType::N => AttributeValue::N("0".to_owned()),
        ScalarType::B => AttributeValue::B(Blob::new(vec![0])),
        _ => AttributeValue::S("…".to_owned()),
    }
}

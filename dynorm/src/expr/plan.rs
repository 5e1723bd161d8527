//! Query planning: which index a query uses, and which conditions become the key
//! condition and which the filter.
//!
//! With no index named, the index is chosen by the same four rules as dynotable-orm:
//!
//! 1. Take every index whose hash key has an equality in the conditions: global indexes
//!    first, then local ones, then the table.
//! 2. Pick the first of those whose range key is also in the conditions.
//! 3. Else the table, if the table's hash key has an equality.
//! 4. Else the first one.
//!
//! A hash key built from fields (a template) has its equality when each of its fields has
//! one, and a range key built from fields is in the conditions when its first field is.
//! A query with no equality on any hash key is an error. Equalities on other attributes
//! become filters.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};
use crate::expr::condition::{Comparison, Expr};
use crate::expr::placeholders::Placeholders;
use crate::schema::entity::{KeyCasing, KeyTemplate, TemplatePart};
use crate::schema::entity_keys::template_hash_values;
use crate::schema::unique;
use crate::schema::{IndexKind, IndexSchema, Schema};
use crate::value::Item;

/// A query's conditions, as the caller gave them.
#[derive(Clone, Debug, Default)]
pub struct Conditions {
    /// Conditions the planner places: in the key condition when it can, else the filter.
    pub matching: Vec<Expr>,
    /// Conditions that must be on the index's range key.
    pub range: Vec<Expr>,
    /// Conditions that always go to the filter.
    pub filter: Vec<Expr>,
    /// Filters dynorm adds itself (hide expired items, keep one entity): kept only where
    /// the index projects the attributes they test.
    pub managed: Vec<Expr>,
    /// The hash key values, when the index was named with them.
    pub hash: Option<Vec<(&'static str, AttributeValue)>>,
}

/// Which of the selection rules chose an index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    /// The caller named the index.
    Named,
    /// Rule 2: a candidate whose range key is in the conditions.
    RangeKeyInConditions,
    /// Rule 3: the table, whose hash key has an equality.
    Table,
    /// Rule 4: the first candidate.
    FirstCandidate,
}

/// Why an index was chosen, in words.
fn chosen_because(rule: Rule, index: &IndexSchema) -> String {
    let hash = names(index.hash_key.iter().map(|k| k.name));
    match rule {
        Rule::Named => format!("named by the caller: `{}`", index.label()),
        Rule::RangeKeyInConditions => format!(
            "rule 2: the first index with an equality on its hash key ({hash}) whose range key ({}) is in the conditions",
            names(index.range_key.iter().map(|k| k.name))
        ),
        Rule::Table => format!(
            "rule 3: no candidate's range key is in the conditions, and the table's hash key ({hash}) has an equality"
        ),
        Rule::FirstCandidate => format!(
            "rule 4: the first index with an equality on its hash key ({hash}); no candidate's range key is in the conditions"
        ),
    }
}

fn names<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether `conditions` has a top-level equality on `attribute`.
fn has_equality(conditions: &[Expr], attribute: &str) -> bool {
    conditions
        .iter()
        .any(|c| matches!(c, Expr::Compare(a, Comparison::Eq, _) if *a == attribute))
}

/// Whether `conditions` has a top-level condition usable on range key `attribute`.
fn has_range_condition(conditions: &[Expr], attribute: &str) -> bool {
    conditions
        .iter()
        .any(|c| c.attribute() == Some(attribute) && c.is_range_key_condition())
}

/// The key template of `index` (`None`: the table) of the hash key (`hash`) or the range
/// key, when the model's keys are built from its fields.
fn key_template(schema: &Schema, index: &IndexSchema, hash: bool) -> Option<&'static KeyTemplate> {
    schema
        .entity?
        .keys
        .iter()
        .find(|k| k.index == index.request_name() && k.is_hash == hash)
}

/// The fields of `index`'s hash key template, when it has some: an equality on each of
/// them gives the key, as one on the key attribute would.
fn hash_fields(schema: &Schema, index: &IndexSchema) -> Option<Vec<&'static str>> {
    let fields: Vec<&'static str> = key_template(schema, index, true)?.fields().collect();
    (!fields.is_empty()).then_some(fields)
}

/// Picks the index for `conditions` by the four rules, with the reason. A hash key built
/// from fields (ElectroDB's `pk = [mall_id]`) has its equality when each field has one,
/// and a range key built from fields its condition on the first field.
fn choose_index(schema: &Schema, conditions: &[Expr]) -> Result<(IndexSchema, Rule)> {
    let candidates: Vec<IndexSchema> = schema
        .query_targets()
        .into_iter()
        .filter(|index| {
            index
                .hash_key
                .iter()
                .all(|k| has_equality(conditions, k.name))
                || hash_fields(schema, index)
                    .is_some_and(|fields| fields.iter().all(|f| has_equality(conditions, f)))
        })
        .collect();
    let range_condition = |index: &IndexSchema| {
        let first_field = key_template(schema, index, false).and_then(|t| t.fields().next());
        index
            .range_key
            .first()
            .is_some_and(|k| has_range_condition(conditions, k.name))
            || first_field.is_some_and(|f| has_range_condition(conditions, f))
    };
    if let Some(index) = candidates.iter().find(|i| range_condition(i)) {
        return Ok((*index, Rule::RangeKeyInConditions));
    }
    if let Some(table) = candidates.iter().find(|i| i.kind == IndexKind::Table) {
        return Ok((*table, Rule::Table));
    }
    match candidates.first() {
        Some(first) => Ok((*first, Rule::FirstCandidate)),
        None => Err(Error::validation(format!(
            "no index fits the query: it needs an equality on a hash key: {}",
            hash_keys_served(schema)
        ))
        .with_model(schema.model)),
    }
}

/// Each hash key attribute once, with the indexes it serves:
/// "`customerId` (table, byCoupon), `status` (byStatus)".
fn hash_keys_served(schema: &Schema) -> String {
    let mut served: Vec<(&str, Vec<&str>)> = Vec::new();
    for index in schema.query_targets().iter().rev() {
        for key in index.hash_key {
            match served.iter_mut().find(|(name, _)| *name == key.name) {
                Some((_, users)) => users.push(index.label()),
                None => served.push((key.name, vec![index.label()])),
            }
        }
    }
    served
        .iter()
        .map(|(name, users)| format!("`{name}` ({})", users.join(", ")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Takes the first top-level condition matching `pick` out of `conditions`.
/// The range key condition that equalities on the leading fields of `template` make: the
/// whole key (`=`) when every field has one, else `begins_with` the text up to the first
/// field without one (`None` when that text is empty). The equalities the key enforces
/// exactly leave `matching`; the others stay there, to filter.
fn leading_key(
    template: &KeyTemplate,
    attribute: &'static str,
    matching: &mut Vec<Expr>,
) -> Option<Expr> {
    let equality = |field: &str| {
        matching.iter().find_map(|c| match c {
            Expr::Compare(a, Comparison::Eq, value) if *a == field => Some(value),
            _ => None,
        })
    };
    let leading = template.leading(equality);
    if leading.text.is_empty() {
        return None;
    }
    for field in &leading.enforced {
        take(
            matching,
            |c| matches!(c, Expr::Compare(a, Comparison::Eq, _) if a == field),
        );
    }
    let text = AttributeValue::S(leading.text);
    Some(if leading.complete {
        Expr::Compare(attribute, Comparison::Eq, text)
    } else {
        Expr::BeginsWith(attribute, text)
    })
}

/// The key condition that `range` conditions on the fields of sort key `template`'s fields make,
/// as ElectroDB composes one: equalities on leading fields, then at most one `<`,
/// `<=`, `>`, `>=`, `between` or `begins_with` on the next, each compared with the
/// key's text (values folded as the key folds them). Equalities on some leading fields
/// only read the keys that begin with their text and the next field's label; on every
/// field, the one key. `Ok(None)` when a condition is not on a field of the template.
fn composed_range(
    template: &KeyTemplate,
    attribute: &'static str,
    conditions: &[Expr],
) -> std::result::Result<Option<Expr>, String> {
    let fields: Vec<&str> = template
        .parts
        .iter()
        .filter_map(|part| match part {
            TemplatePart::Field(name) => Some(*name),
            TemplatePart::Static(_) => None,
        })
        .collect();
    if conditions
        .iter()
        .any(|c| c.attribute().is_none_or(|a| !fields.contains(&a)))
    {
        return Ok(None);
    }
    let render = |field: &str, value: &AttributeValue| {
        template
            .value_text(value)
            .map(|text| text.into_owned())
            .ok_or_else(|| {
                format!("`{field}` in a key condition needs a string that is not empty, a number or a boolean")
            })
    };
    let mut text = String::new();
    let mut used = 0;
    let mut condition = None;
    for part in template.parts {
        let name = match part {
            TemplatePart::Static(static_text) => {
                text.push_str(static_text);
                continue;
            }
            TemplatePart::Field(name) => *name,
        };
        let Some(given) = conditions.iter().find(|c| c.attribute() == Some(name)) else {
            break;
        };
        used += 1;
        let key = |value: &AttributeValue| -> std::result::Result<AttributeValue, String> {
            Ok(AttributeValue::S(format!("{text}{}", render(name, value)?)))
        };
        condition = Some(match given {
            Expr::Compare(_, Comparison::Eq, value) => {
                text.push_str(&render(name, value)?);
                continue;
            }
            Expr::Compare(_, op, value) if *op != Comparison::Ne => {
                Expr::Compare(attribute, *op, key(value)?)
            }
            Expr::Between(_, low, high) => Expr::Between(attribute, key(low)?, key(high)?),
            Expr::BeginsWith(_, value) => Expr::BeginsWith(attribute, key(value)?),
            other => {
                return Err(format!(
                    "a key condition on `{name}` must be `=`, `<`, `<=`, `>`, `>=`, `between` or `begins_with`, not {other:?}"
                ))
            }
        });
        break;
    }
    if used != conditions.len() {
        let gap = fields
            .iter()
            .find(|f| !conditions.iter().any(|c| c.attribute() == Some(**f)))
            .copied()
            .unwrap_or("?");
        return Err(format!(
            "the key `{attribute}` is composed of {} left to right: a key condition gives equalities on leading ones and at most one range on the next, and needs `{gap}` first",
            fields.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ")
        ));
    }
    Ok(Some(match condition {
        Some(condition) => condition,
        None if used == fields.len() => {
            Expr::Compare(attribute, Comparison::Eq, AttributeValue::S(text))
        }
        None => Expr::BeginsWith(attribute, AttributeValue::S(text)),
    }))
}

fn take(conditions: &mut Vec<Expr>, pick: impl Fn(&Expr) -> bool) -> Option<Expr> {
    let position = conditions.iter().position(pick)?;
    Some(conditions.remove(position))
}

/// A query's plan: the index, the expressions and their placeholders. Nothing is sent
/// to make one.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Plan {
    /// The chosen index, or the table.
    pub(crate) index: IndexSchema,
    /// Why it was chosen (empty in the plan of a request being sent).
    pub reason: String,
    /// The `KeyConditionExpression`.
    pub key_condition: String,
    /// The `FilterExpression`, if any.
    pub filter: Option<String>,
    /// `ExpressionAttributeNames`.
    pub names: HashMap<String, String>,
    /// `ExpressionAttributeValues`.
    pub values: HashMap<String, AttributeValue>,
    /// Whether the whole items are read again by key after the index: a hydrated query
    /// through an index that does not project every attribute. The keys then cost one
    /// `BatchGetItem` per 100, plus a retry for keys returned unprocessed.
    pub hydrated: bool,
    /// What the read may cost beyond what it returns, in words: a `limit` with a filter.
    pub notes: Vec<String>,
    /// The hash key values: the partition the query reads, which its cursors are bound to.
    pub(crate) partition: Vec<(&'static str, AttributeValue)>,
}

impl Plan {
    /// The name of the chosen index, or `table`.
    pub fn index_name(&self) -> &'static str {
        self.index.label()
    }

    /// An expression with its placeholders replaced by the names and values, for reading:
    /// `#n0 = :v0` becomes `customerId = "c1"`. It is never sent.
    pub fn readable(&self, expression: &str) -> String {
        let mut out = String::with_capacity(expression.len());
        let mut rest = expression;
        while let Some(start) = rest.find(['#', ':']) {
            out.push_str(&rest[..start]);
            let tail = &rest[start + 1..];
            let end = tail
                .find(|c: char| !c.is_ascii_alphanumeric())
                .unwrap_or(tail.len());
            let placeholder = &rest[start..start + 1 + end];
            match (self.names.get(placeholder), self.values.get(placeholder)) {
                (Some(name), _) => out.push_str(name),
                (_, Some(value)) => out.push_str(&crate::value::show(value)),
                _ => out.push_str(placeholder),
            }
            rest = &rest[start + 1 + end..];
        }
        out.push_str(rest);
        out
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "index: {}", self.index.label())?;
        writeln!(f, "why: {}", self.reason)?;
        writeln!(
            f,
            "key condition: {}  [{}]",
            self.key_condition,
            self.readable(&self.key_condition)
        )?;
        match &self.filter {
            Some(filter) => writeln!(f, "filter: {filter}  [{}]", self.readable(filter))?,
            None => writeln!(f, "filter: (none)")?,
        }
        let names: BTreeMap<_, _> = self.names.iter().collect();
        writeln!(f, "names: {names:?}")?;
        let values: BTreeMap<_, _> = self.values.iter().collect();
        let values: Vec<String> = values
            .iter()
            .map(|(k, v)| format!("{k}: {}", crate::value::show(v)))
            .collect();
        write!(f, "values: {{{}}}", values.join(", "))?;
        if self.hydrated {
            write!(
                f,
                "\nthen: BatchGetItem of the whole items by key, one request per 100 keys \
                 (plus retries of unprocessed keys), in index order"
            )?;
        }
        for note in &self.notes {
            write!(f, "\nnote: {note}")?;
        }
        Ok(())
    }
}

/// Plans a query on `index` (chosen, or named when `named` is set). The reason is written
/// only when `explain` is set: a request to send needs none.
pub fn plan_query(
    schema: &Schema,
    named: Option<IndexSchema>,
    mut conditions: Conditions,
    explain: bool,
) -> Result<Plan> {
    let (index, rule) = match named {
        Some(index) => (index, Rule::Named),
        None => choose_index(schema, &conditions.matching)?,
    };
    let reason = if explain {
        chosen_because(rule, &index)
    } else {
        String::new()
    };
    let fail = |message: String| Err(Error::validation(message).with_model(schema.model));

    // The hash key: given values, or an equality from the conditions.
    let mut key = Vec::new();
    // A hash key built from fields, each with an equality (and not given itself).
    let from_fields = key_template(schema, &index, true).filter(|template| {
        conditions.hash.is_none()
            && template.fields().next().is_some()
            && template
                .fields()
                .all(|f| has_equality(&conditions.matching, f))
            && index
                .hash_key
                .iter()
                .any(|k| !has_equality(&conditions.matching, k.name))
    });
    match (conditions.hash.take(), from_fields) {
        (Some(values), _) => key.extend(
            values
                .into_iter()
                .map(|(a, v)| Expr::Compare(a, Comparison::Eq, v)),
        ),
        (None, Some(template)) => {
            // The key rendered from its fields' equalities. A key that folds letter case
            // holds other values too (`EastPointe` and `eastpointe`), as does one of several
            // fields whose values may hold the text between them, so their equalities stay,
            // to filter; the key of one field written as given enforces it.
            let mut fields = Item::new();
            let exact = template.casing == KeyCasing::None && template.fields().count() == 1;
            for field in template.fields() {
                let pick =
                    |c: &Expr| matches!(c, Expr::Compare(a, Comparison::Eq, _) if *a == field);
                let value = if exact {
                    take(&mut conditions.matching, pick)
                } else {
                    conditions.matching.iter().find(|c| pick(c)).cloned()
                };
                if let Some(Expr::Compare(_, _, value)) = value {
                    fields.insert(field.to_owned(), value);
                }
            }
            let rendered = template_hash_values(schema, index.request_name(), &fields)?;
            key.extend(
                rendered
                    .into_iter()
                    .map(|(a, v)| Expr::Compare(a, Comparison::Eq, v)),
            );
        }
        (None, None) => {
            for attribute in index.hash_key {
                match take(
                    &mut conditions.matching,
                    |c| matches!(c, Expr::Compare(a, Comparison::Eq, _) if *a == attribute.name),
                ) {
                    Some(condition) => key.push(condition),
                    None => {
                        return fail(format!(
                            "the query on `{}` needs an equality on `{}`",
                            index.label(),
                            attribute.name
                        ))
                    }
                }
            }
        }
    }

    let partition = key
        .iter()
        .filter_map(|condition| match condition {
            Expr::Compare(attribute, Comparison::Eq, value) => Some((*attribute, value.clone())),
            _ => None,
        })
        .collect();
    // A partition of the table's hash key that is a guard's would read guard items.
    for condition in &key {
        if let Expr::Compare(attribute, Comparison::Eq, value) = condition {
            unique::refuse_guard_key(schema, attribute, value)?;
        }
    }

    // The range key: the caller's range conditions, or the planner's pick, left to right.
    let mut range = Vec::new();
    if conditions.range.is_empty() {
        for attribute in index.range_key {
            let equality =
                |c: &Expr| matches!(c, Expr::Compare(a, Comparison::Eq, _) if *a == attribute.name);
            if let Some(condition) = take(&mut conditions.matching, equality) {
                range.push(condition);
                continue;
            }
            if let Some(condition) = take(&mut conditions.matching, |c| {
                c.attribute() == Some(attribute.name) && c.is_range_key_condition()
            }) {
                range.push(condition);
            }
            break;
        }
    } else {
        range = std::mem::take(&mut conditions.range);
        // On a key composed of fields, conditions on the fields compose its text.
        let template = schema
            .entity
            .and_then(|entity| entity.range_template(index.request_name()));
        if let (Some(template), Some(attribute)) = (template, index.range_key.first()) {
            match composed_range(template, attribute.name, &range) {
                Ok(Some(condition)) => range = vec![condition],
                Ok(None) => {}
                Err(message) => return fail(message),
            }
        }
    }
    // A single-table entity reads only its own items: its range key's text up to the first
    // field without an equality (ElectroDB's query on leading sort key attributes), or its
    // static prefix.
    if let (true, Some(attribute)) = (range.is_empty(), index.range_key.first()) {
        let template = schema
            .entity
            .and_then(|entity| entity.range_template(index.request_name()));
        if let Some(condition) =
            template.and_then(|t| leading_key(t, attribute.name, &mut conditions.matching))
        {
            range.push(condition);
        } else if let Some(prefix) = index.range_prefix.filter(|p| !p.is_empty()) {
            range.push(Expr::BeginsWith(
                attribute.name,
                AttributeValue::S(prefix.to_owned()),
            ));
        }
    }
    if let Err(message) = check_range(&index, &mut range) {
        return fail(message);
    }
    key.extend(range);

    // Everything else filters. DynamoDB refuses key attributes in a query's filter.
    let mut filter = std::mem::take(&mut conditions.matching);
    filter.append(&mut conditions.filter);
    let tested: Vec<&str> = filter.iter().flat_map(Expr::tested_attributes).collect();
    if let Some(hidden) = tested.iter().find(|a| !index.projects(schema, a)) {
        return fail(format!(
            "the filter tests `{hidden}`, which index `{}` does not project, so it would match nothing; \
             project it into the index or query another index",
            index.label()
        ));
    }
    for managed in std::mem::take(&mut conditions.managed) {
        if managed
            .tested_attributes()
            .iter()
            .all(|a| index.projects(schema, a))
        {
            filter.push(managed);
        }
    }
    if let Some(key_attribute) = tested.iter().find(|a| index.has_key(a)) {
        return fail(format!(
            "`{key_attribute}` is a key attribute of `{}`; a query can only test it in the key condition \
             (an equality on the hash key, and one `=`, `<`, `<=`, `>`, `>=`, `between` or `begins_with` on the range key)",
            index.label()
        ));
    }

    let mut placeholders = Placeholders::default();
    let key_condition = placeholders.render_all(&key).unwrap_or_default();
    let filter = placeholders.render_all(&filter);
    Ok(Plan {
        index,
        reason,
        key_condition,
        filter,
        names: placeholders.names,
        values: placeholders.values,
        hydrated: false,
        notes: Vec::new(),
        partition,
    })
}

/// Checks range conditions against DynamoDB's rules: each on a range attribute of the
/// index, in key order with no gap, with a range operator only on the last one.
fn check_range(index: &IndexSchema, range: &mut [Expr]) -> std::result::Result<(), String> {
    let position = |c: &Expr| {
        c.attribute()
            .and_then(|a| index.range_key.iter().position(|k| k.name == a))
    };
    for condition in range.iter() {
        if position(condition).is_none() {
            let attribute = condition.attribute().unwrap_or("a compound condition");
            return Err(if index.range_key.is_empty() {
                format!(
                    "`{}` has no range key, so `{attribute}` cannot be in its key condition",
                    index.label()
                )
            } else {
                format!(
                    "`{attribute}` is not a range key attribute of `{}` (its range key: {})",
                    index.label(),
                    names(index.range_key.iter().map(|k| k.name))
                )
            });
        }
        if !condition.is_range_key_condition() {
            return Err(format!(
                "a range key condition must be `=`, `<`, `<=`, `>`, `>=`, `between` or `begins_with`, not {condition:?}"
            ));
        }
    }
    range.sort_by_key(|c| position(c).unwrap_or(usize::MAX));
    for (expected, condition) in range.iter().enumerate() {
        let at = position(condition).unwrap_or(usize::MAX);
        if at != expected {
            let missing = index.range_key.get(expected).map_or("?", |k| k.name);
            return Err(if at < expected {
                format!("the range key attribute `{missing}` has two conditions")
            } else {
                format!(
                    "range key attributes are used left to right with no gap: `{}` needs a condition on `{missing}` first",
                    condition.attribute().unwrap_or("?")
                )
            });
        }
        let last = expected + 1 == range.len();
        if !last && !matches!(condition, Expr::Compare(_, Comparison::Eq, _)) {
            return Err(format!(
                "only the last range key attribute given may have a range operator; `{}` needs `=`",
                condition.attribute().unwrap_or("?")
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{KeyAttribute, Projection};
    use crate::value::ScalarType;

    const fn key(name: &'static str) -> KeyAttribute {
        KeyAttribute {
            name,
            scalar: ScalarType::S,
        }
    }

    /// The seed's "Which index a query uses" model.
    const ORDER: Schema = Schema {
        hash_key: key("customerId"),
        range_key: Some(key("orderId")),
        keys: &[key("customerId"), key("orderId")],
        attributes: &["customerId", "orderId", "status", "placedAt"],
        indexes: &[
            IndexSchema {
                name: "byStatus",
                type_name: "OrderByStatus",
                kind: IndexKind::Global,
                hash_key: &[key("status")],
                range_key: &[key("placedAt")],
                projection: Projection::All,
                range_prefix: None,
            },
            IndexSchema {
                name: "byPlacedAt",
                type_name: "OrderByPlacedAt",
                kind: IndexKind::Local,
                hash_key: &[key("customerId")],
                range_key: &[key("placedAt")],
                projection: Projection::Include(&["status"]),
                range_prefix: None,
            },
        ],
        ..Schema::blank("Order", key("customerId"))
    };

    fn eq(attribute: &'static str) -> Expr {
        Expr::Compare(attribute, Comparison::Eq, AttributeValue::S("x".into()))
    }

    fn gt(attribute: &'static str) -> Expr {
        Expr::Compare(attribute, Comparison::Gt, AttributeValue::S("x".into()))
    }

    fn chosen(conditions: &[Expr]) -> &'static str {
        choose_index(&ORDER, conditions).unwrap().0.label()
    }

    #[test]
    fn the_seed_queries_choose_the_seed_indexes() {
        assert_eq!(chosen(&[eq("customerId")]), "table");
        assert_eq!(chosen(&[eq("status")]), "byStatus");
        assert_eq!(chosen(&[eq("customerId"), gt("placedAt")]), "byPlacedAt");
        assert_eq!(chosen(&[eq("customerId"), eq("status")]), "table");
    }

    #[test]
    fn global_indexes_come_before_local_ones_and_the_table() {
        // Both byStatus and byPlacedAt have their hash and range keys in the conditions.
        assert_eq!(
            chosen(&[eq("customerId"), eq("status"), gt("placedAt")]),
            "byStatus"
        );
        // The table's own range key counts too.
        assert_eq!(chosen(&[eq("customerId"), gt("orderId")]), "table");
    }

    #[test]
    fn a_query_without_a_hash_equality_is_an_error() {
        let error = choose_index(&ORDER, &[gt("customerId"), eq("placedAt")]).unwrap_err();
        assert!(error.is_validation());
        // Each attribute once, with the indexes it serves.
        assert!(
            error
                .to_string()
                .ends_with("`customerId` (table, byPlacedAt), `status` (byStatus)"),
            "{error}"
        );
    }

    #[test]
    fn non_key_equalities_become_filters() {
        let conditions = Conditions {
            matching: vec![eq("customerId"), eq("status")],
            ..Conditions::default()
        };
        let plan = plan_query(&ORDER, None, conditions, true).unwrap();
        assert_eq!(plan.key_condition, "#n0 = :v0");
        assert_eq!(plan.filter.as_deref(), Some("#n1 = :v1"));
        assert_eq!(
            plan.readable(plan.filter.as_deref().unwrap()),
            "status = \"x\""
        );
        assert!(plan.reason.starts_with("rule 3"));
    }

    #[test]
    fn a_named_index_uses_the_given_hash_values() {
        let index = ORDER.indexes[0];
        let conditions = Conditions {
            hash: Some(vec![("status", AttributeValue::S("open".into()))]),
            range: vec![gt("placedAt")],
            ..Conditions::default()
        };
        let plan = plan_query(&ORDER, Some(index), conditions, true).unwrap();
        assert_eq!(plan.index.label(), "byStatus");
        assert_eq!(
            plan.readable(&plan.key_condition),
            "status = \"open\" AND placedAt > \"x\""
        );
    }

    #[test]
    fn multi_attribute_range_keys_go_left_to_right() {
        const INDEX: IndexSchema = IndexSchema {
            name: "byTeamRole",
            type_name: "TeamByTeamRole",
            kind: IndexKind::Global,
            hash_key: &[key("team"), key("role")],
            range_key: &[key("month"), key("score")],
            projection: Projection::All,
            range_prefix: None,
        };
        let ok = |range: Vec<Expr>| check_range(&INDEX, &mut range.clone());
        assert!(ok(vec![eq("month")]).is_ok());
        assert!(
            ok(vec![gt("score"), eq("month")]).is_ok(),
            "order does not matter"
        );
        assert!(ok(vec![gt("score")]).unwrap_err().contains("left to right"));
        assert!(ok(vec![gt("month"), eq("score")])
            .unwrap_err()
            .contains("needs `=`"));
        assert!(ok(vec![eq("month"), gt("month")])
            .unwrap_err()
            .contains("two conditions"));
        assert!(ok(vec![eq("total")])
            .unwrap_err()
            .contains("not a range key attribute"));
    }

    /// ElectroDB's `units` sort key: `$mallstore_1#buildingid_{buildingId}#unitid_{unitId}`.
    const UNITS: KeyTemplate = KeyTemplate {
        index: Some("units"),
        attribute: "gsi1sk",
        is_hash: false,
        parts: &[
            TemplatePart::Static("$mallstore_1#buildingid_"),
            TemplatePart::Field("buildingId"),
            TemplatePart::Static("#unitid_"),
            TemplatePart::Field("unitId"),
        ],
        casing: crate::schema::entity::KeyCasing::Lower,
    };

    fn text(value: &str) -> AttributeValue {
        AttributeValue::S(value.to_owned())
    }

    fn compare(attribute: &'static str, op: Comparison, value: &str) -> Expr {
        Expr::Compare(attribute, op, text(value))
    }

    fn composed(conditions: &[Expr]) -> String {
        format!("{:?}", composed_range(&UNITS, "gsi1sk", conditions))
    }

    #[test]
    fn range_conditions_on_a_composed_key_compare_its_text_as_electrodb_does() {
        let building = |op, v| compare("buildingId", op, v);
        let unit = |op, v| compare("unitId", op, v);
        let expect = |conditions: &[Expr], expected: Expr| {
            assert_eq!(
                composed(conditions),
                format!("{:?}", Ok::<_, String>(Some(expected)))
            );
        };
        // Equalities on every field: the one key.
        expect(
            &[building(Comparison::Eq, "F34"), unit(Comparison::Eq, "U1")],
            compare(
                "gsi1sk",
                Comparison::Eq,
                "$mallstore_1#buildingid_f34#unitid_u1",
            ),
        );
        // On a leading field: the keys that begin with it and the next field's label.
        expect(
            &[building(Comparison::Eq, "F34")],
            Expr::BeginsWith("gsi1sk", text("$mallstore_1#buildingid_f34#unitid_")),
        );
        // A range on the first field, or after equalities, compares the text so far.
        expect(
            &[building(Comparison::Gt, "F34")],
            compare("gsi1sk", Comparison::Gt, "$mallstore_1#buildingid_f34"),
        );
        expect(
            &[building(Comparison::Eq, "B1"), unit(Comparison::Le, "U1")],
            compare(
                "gsi1sk",
                Comparison::Le,
                "$mallstore_1#buildingid_b1#unitid_u1",
            ),
        );
        expect(
            &[Expr::Between("buildingId", text("A"), text("F"))],
            Expr::Between(
                "gsi1sk",
                text("$mallstore_1#buildingid_a"),
                text("$mallstore_1#buildingid_f"),
            ),
        );
        expect(
            &[Expr::BeginsWith("buildingId", text("F3"))],
            Expr::BeginsWith("gsi1sk", text("$mallstore_1#buildingid_f3")),
        );
        // Not on the template: left to the range key checks.
        assert_eq!(
            composed(&[compare("status", Comparison::Eq, "x")]),
            "Ok(None)"
        );
        // A gap, a range before the last, `<>`: refused with the reason.
        for refused in [
            vec![unit(Comparison::Eq, "U1")],
            vec![building(Comparison::Gt, "A"), unit(Comparison::Eq, "U1")],
            vec![building(Comparison::Ne, "A")],
            vec![building(Comparison::Eq, "A"), building(Comparison::Eq, "B")],
        ] {
            assert!(composed(&refused).starts_with("Err("), "{refused:?}");
        }
    }
}

//! The count writes on one parent item (`#[count]`): every count that the writes of one
//! request move on that parent, merged into one write, as a transaction touches an item
//! only once. Each attribute moves by its own amount, with its own condition, and a
//! failure names the count it concerns.
//!
//! # Counts not built yet, and parents that are gone
//!
//! A parent may not hold a count yet (it was written before its children's `#[count]`, or
//! the attribute was removed so that a backfill builds it again), or may be gone (deleted
//! before its children). Neither makes a child's write fail:
//!
//! - Going up, a count is an `ADD`, on condition that the parent exists. `ADD` creates a
//!   count the parent does not hold yet. A child whose parent does not exist is refused
//!   (`NotFound`, naming the parent): nothing is counted on an item that is not there.
//! - Going down, a count is an `ADD` of the negative amount, on condition that it holds
//!   at least that amount, so that it never goes below zero.
//! - When the condition fails and DynamoDB returns a parent that does not hold the count,
//!   the write is planned again with the condition that it still does not
//!   (`attribute_not_exists`) and no `ADD`: a count not built yet stays not built, since
//!   it cannot start below what it counts. When DynamoDB returns no parent, the update is
//!   replaced by a condition check that the parent still does not exist: the child leaves
//!   a parent that is gone, and nothing is written for it.
//!
//! These conditions keep the count exact when other writers race: if the count or the
//! parent appears between DynamoDB's answer and the next attempt, the condition fails,
//! DynamoDB returns the parent as it is then, and the write is planned again from it, with
//! the `ADD`. So a count is never moved on a parent the plan believed absent, and never left
//! unmoved when it exists. Going up and down in one request (one child leaves as another
//! arrives) needs the parent, as any increment does.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::client::Client;
use crate::error::{Error, ErrorKind};
use crate::expr::{Comparison, Expr, Placeholders};
use crate::item::companion_write::companion_write;
use crate::item::write_request::{ConditionCheck, Update, WriteKind, WriteSpec};
use crate::schema::{Count, Schema};
use crate::value::Item;

/// One count that one write moves: `count` of the parent with this key, by `delta`.
#[derive(Debug, Clone)]
pub(crate) struct CountMove {
    pub count: &'static Count,
    pub key: Item,
    pub delta: i64,
}

/// How far one attribute of a parent moves, and the first count and write (by index) that
/// move it up and down, which its failures name.
#[derive(Debug)]
struct AttributeMove {
    attribute: &'static str,
    up: i64,
    down: i64,
    raised_by: Option<(&'static Count, usize)>,
    lowered_by: Option<(&'static Count, usize)>,
}

impl AttributeMove {
    fn net(&self) -> i64 {
        self.up - self.down
    }
}

/// The counts of one parent that the writes of one request move.
#[derive(Debug)]
pub(crate) struct ParentCounts {
    parent: &'static Schema,
    table: String,
    key: Item,
    attributes: Vec<AttributeMove>,
}

/// The parents as DynamoDB last returned them with a failed condition (`None`: the parent
/// does not exist), by table and key, so that the next plan follows them.
#[derive(Debug, Default)]
pub(crate) struct Parents(Vec<(String, Item, Option<Item>)>);

impl Parents {
    /// Remembers the parent as DynamoDB returned it.
    pub fn record(&mut self, table: &str, key: &Item, item: Option<Item>) {
        match self.0.iter_mut().find(|(t, k, _)| t == table && k == key) {
            Some(entry) => entry.2 = item,
            None => self.0.push((table.to_owned(), key.clone(), item)),
        }
    }

    /// The parent as last returned: `None` when it was never returned.
    fn get(&self, table: &str, key: &Item) -> Option<Option<&Item>> {
        self.0
            .iter()
            .find(|(t, k, _)| t == table && k == key)
            .map(|(_, _, item)| item.as_ref())
    }
}

/// The moves of a request's writes (each with the index of its write), grouped by parent
/// and, within a parent, by attribute.
pub(crate) fn group(client: &Client, moves: Vec<(usize, CountMove)>) -> Vec<ParentCounts> {
    let mut parents: Vec<ParentCounts> = Vec::new();
    for (owner, CountMove { count, key, delta }) in moves {
        let table = client.table_name_of(count.parent);
        let at = match parents
            .iter()
            .position(|p| p.table == table && p.key == key)
        {
            Some(at) => at,
            None => {
                parents.push(ParentCounts {
                    parent: count.parent,
                    table,
                    key,
                    attributes: Vec::new(),
                });
                parents.len() - 1
            }
        };
        let attributes = &mut parents[at].attributes;
        let at = match attributes
            .iter()
            .position(|a| a.attribute == count.attribute)
        {
            Some(at) => at,
            None => {
                attributes.push(AttributeMove {
                    attribute: count.attribute,
                    up: 0,
                    down: 0,
                    raised_by: None,
                    lowered_by: None,
                });
                attributes.len() - 1
            }
        };
        let moved = &mut attributes[at];
        if delta > 0 {
            moved.up += delta;
            moved.raised_by.get_or_insert((count, owner));
        } else {
            moved.down -= delta;
            moved.lowered_by.get_or_insert((count, owner));
        }
    }
    parents
}

impl ParentCounts {
    /// The parent's table.
    pub fn table(&self) -> &str {
        &self.table
    }

    /// The parent's key.
    pub fn key(&self) -> &Item {
        &self.key
    }

    /// The writes (by index) whose counts this moves, each once, in order.
    pub fn owners(&self) -> Vec<usize> {
        let mut owners: Vec<usize> = self
            .attributes
            .iter()
            .flat_map(|a| a.raised_by.into_iter().chain(a.lowered_by))
            .map(|(_, owner)| owner)
            .collect();
        owners.sort_unstable();
        owners.dedup();
        owners
    }

    /// Whether any count goes up, which needs the parent.
    fn raises(&self) -> bool {
        self.attributes.iter().any(|a| a.up > 0)
    }

    /// The write, as the parent was last returned (see the module's comment), for the
    /// request's `operation`.
    pub fn write(&self, operation: &'static str, parents: &Parents) -> WriteSpec {
        let seen = parents.get(&self.table, &self.key);
        let hash = self.parent.hash_key.name;
        let mut placeholders = Placeholders::default();
        if seen == Some(None) && !self.raises() {
            let condition = placeholders.render_all(&[Expr::NotExists(hash)]);
            return self.spec(
                operation,
                ConditionCheck(self.key.clone()).into(),
                condition,
                placeholders,
            );
        }
        let held = |attribute: &str| {
            seen.flatten()
                .is_none_or(|item| item.contains_key(attribute))
        };
        let mut conditions = vec![Expr::Exists(hash)];
        let mut expression = String::new();
        for moved in &self.attributes {
            let net = moved.net();
            if net < 0 && !held(moved.attribute) {
                conditions.push(Expr::NotExists(moved.attribute));
                continue;
            }
            if net < 0 {
                conditions.push(Expr::Compare(
                    moved.attribute,
                    Comparison::Ge,
                    AttributeValue::N((-net).to_string()),
                ));
            }
            if net != 0 {
                let name = placeholders.name(moved.attribute);
                let value = placeholders.value(AttributeValue::N(net.to_string()));
                expression.push_str(if expression.is_empty() { "ADD " } else { ", " });
                expression.push_str(&format!("#n{name} :v{value}"));
            }
        }
        let condition = placeholders.render_all(&[Expr::And(conditions)]);
        let kind = if expression.is_empty() {
            ConditionCheck(self.key.clone()).into()
        } else {
            Update {
                key: self.key.clone(),
                expression,
            }
            .into()
        };
        self.spec(operation, kind, condition, placeholders)
    }

    fn spec(
        &self,
        operation: &'static str,
        kind: WriteKind,
        condition: Option<String>,
        placeholders: Placeholders,
    ) -> WriteSpec {
        let table = self.table.clone();
        companion_write(
            self.parent,
            operation,
            table,
            kind,
            (condition, placeholders),
        )
    }

    /// The error a failed condition of this write means, given the parent as DynamoDB
    /// returned it: a child of a parent that does not exist, or a count below what leaves
    /// it. `None` when it means that the write is to be planned again from the parent as
    /// returned (a count not built yet, a parent gone, or either changed since the plan).
    /// `writes` are the request's writes, which the error names.
    pub fn failure(&self, writes: &[WriteSpec], current: Option<&Item>) -> Option<Error> {
        let parent = self.parent.model;
        let Some(current) = current else {
            let (count, owner) = self.attributes.iter().find_map(|a| a.raised_by)?;
            let message = format!(
                "the `{parent}` that counts this item in `{}` does not exist",
                count.attribute
            );
            return Some(named(
                &writes[owner],
                count,
                ErrorKind::NotFound,
                message,
                None,
            ));
        };
        for moved in &self.attributes {
            let net = moved.net();
            let Some((count, owner)) = moved.lowered_by.filter(|_| net < 0) else {
                continue;
            };
            let message = match current.get(moved.attribute) {
                // Not built yet: planned again without the `ADD`.
                None => continue,
                Some(AttributeValue::N(n)) => match n.parse::<f64>() {
                    Ok(held) if held >= (-net) as f64 => continue,
                    Ok(_) => format!(
                        "`{}` of the `{parent}` that counts this item is {n}, below {}, so it cannot go down by it; a count never goes below zero",
                        moved.attribute,
                        -net
                    ),
                    Err(_) => not_a_count(moved.attribute, parent, n),
                },
                Some(other) => not_a_count(moved.attribute, parent, &crate::value::show(other)),
            };
            return Some(named(
                &writes[owner],
                count,
                ErrorKind::ConditionFailed,
                message,
                Some(current.clone()),
            ));
        }
        None
    }
}

fn not_a_count(attribute: &str, parent: &str, held: &str) -> String {
    format!(
        "`{attribute}` of the `{parent}` that counts this item holds {held}, which is not a count"
    )
}

/// A count's error, naming the write's model and operation and the count's field.
fn named(
    write: &WriteSpec,
    count: &Count,
    kind: ErrorKind,
    message: String,
    parent: Option<Item>,
) -> Error {
    Error::new(kind, message)
        .with_model(write.schema.model)
        .with_operation(write.operation)
        .with_attribute(count.fields[0])
        .with_item(parent)
}

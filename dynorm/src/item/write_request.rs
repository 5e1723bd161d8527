//! What every single-item write shares: its request, its condition, and what a failed
//! condition means.
//!
//! A single write and a transaction item are built from the same [`WriteSpec`], so a
//! condition, a version check or a key check behaves the same in both.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::{
    self as sdk, AttributeValue, ReturnConsumedCapacity, ReturnValuesOnConditionCheckFailure,
    TransactWriteItem,
};

use crate::error::{Error, ErrorKind, Result};
use crate::expr::{Comparison, Conjunction, Expr, Placeholders};
use crate::observe::Reporting;
use crate::schema::Schema;
use crate::value::Item;

/// What a `put` or `create` writes: the whole item.
#[derive(Debug, Clone)]
pub struct Put(pub Item);

/// What a `delete` removes: the key.
#[derive(Debug, Clone)]
pub struct Delete(pub Item);

/// What an `update` changes: the key and the rendered update expression.
#[derive(Debug, Clone)]
pub struct Update {
    /// The item's key.
    pub key: Item,
    /// The rendered update expression.
    pub expression: String,
}

/// What a transaction's `condition_check` checks: the key.
#[derive(Debug, Clone)]
pub struct ConditionCheck(pub Item);

/// Any of the write kinds, as a transaction holds them.
#[derive(Debug, Clone)]
pub enum WriteKind {
    /// A whole item.
    Put(Put),
    /// A deletion.
    Delete(Delete),
    /// An update.
    Update(Update),
    /// A condition on an item, in a transaction.
    ConditionCheck(ConditionCheck),
}

/// `From<kind> for WriteKind`, for each kind.
macro_rules! write_kinds {
    ($($kind:ident),*) => {$(
        impl From<$kind> for WriteKind {
            fn from(kind: $kind) -> Self {
                Self::$kind(kind)
            }
        }
    )*};
}

write_kinds!(Put, Delete, Update, ConditionCheck);

/// A write, ready for a single request or a transaction. `K` is what it writes: a single
/// write's builder holds its own kind (`Put`, `Delete`, `Update`), so its request is
/// filled from that kind's payload by type; a transaction holds any kind, as a
/// `WriteKind`.
#[derive(Debug, Clone)]
pub struct WriteSpec<K = WriteKind> {
    /// The model written.
    pub schema: &'static Schema,
    /// The operation, as errors name it.
    pub operation: &'static str,
    /// The full table name.
    pub table: String,
    /// What it writes.
    pub kind: K,
    /// The condition expression, when there is one.
    pub condition: Option<String>,
    /// The names and values the expressions refer to.
    pub placeholders: Placeholders,
    /// The conditions dynorm adds.
    pub checks: Checks,
    /// What consumed capacity a single write asks for, and the tally it adds to; a
    /// transaction has its own.
    pub report: Reporting,
    /// What the write does to the values of the model's `#[unique]` attributes, when it
    /// may change them: such a write also writes their guard items.
    pub guarded: Option<Guarded>,
}

/// What a write does to the values a model declares unique, so that their guards follow.
#[derive(Debug, Clone)]
pub enum Guarded {
    /// A whole item replaces whatever is stored (`create`, `put`, `insert`).
    Put,
    /// An update sets or removes these attributes (`None`: removed). `base` holds what the
    /// item is certain to hold: its key and the attributes the key is made of.
    Update {
        /// What the item is certain to hold.
        base: Item,
        /// The attributes set (or removed: `None`).
        touches: Vec<(&'static str, Option<AttributeValue>)>,
    },
    /// The item is deleted.
    Delete,
}

/// The conditions dynorm adds, and so how to explain a failure.
#[derive(Debug, Clone, Default)]
pub struct Checks {
    /// The item must not exist (`create`).
    pub absent: bool,
    /// The item must exist (`update`, `delete(..).require_exists(true)`).
    pub present: bool,
    /// The stored version must be this one.
    pub version: Option<AttributeValue>,
    /// For an `update` or `upsert` of a model with shapes: a stored item must be of the
    /// current shape or one of these earlier ones, those that hold every attribute the
    /// update writes. Otherwise the update would write what the item's upcast does not
    /// read, and a backfill would drop it.
    pub shapes: Option<Vec<u32>>,
    /// For an update: stored values it named (`composite`) or read, which the caller's
    /// condition requires (`None`: the attribute is absent).
    pub composite: Vec<(&'static str, Option<AttributeValue>)>,
}

impl Checks {
    /// The condition nodes these checks add, in a fixed array (at most five), so that
    /// the common case allocates nothing. An item whose `#[ttl]` has passed counts as
    /// absent: DynamoDB deletes expired items only eventually.
    pub fn exprs(&self, schema: &'static Schema) -> [Option<Expr>; 5] {
        let hash = schema.hash_key.name;
        let now = || AttributeValue::N(crate::value::clock::epoch_seconds().to_string());
        let absent = self.absent.then(|| match schema.ttl {
            Some(ttl) => Expr::Or(vec![
                Expr::NotExists(hash),
                Expr::Compare(ttl, Comparison::Le, now()),
            ]),
            None => Expr::NotExists(hash),
        });
        let present = self.present.then_some(Expr::Exists(hash));
        let unexpired = match (self.present, schema.ttl) {
            (true, Some(ttl)) => Some(Expr::Or(vec![
                Expr::NotExists(ttl),
                Expr::Compare(ttl, Comparison::Gt, now()),
            ])),
            _ => None,
        };
        let version = match (&self.version, schema.version) {
            (Some(version), Some(attribute)) => {
                Some(Expr::Compare(attribute, Comparison::Eq, version.clone()))
            }
            _ => None,
        };
        let shape = schema
            .shape
            .zip(self.shapes.as_ref())
            .map(|(shape, older)| {
                let number = |n: u32| AttributeValue::N(n.to_string());
                let mut allowed = vec![Expr::Compare(
                    shape.attribute,
                    Comparison::Eq,
                    number(shape.current),
                )];
                for &n in older {
                    allowed.push(match n {
                        // Shape 1 is an item written before the model declared shapes.
                        1 => Expr::NotExists(shape.attribute),
                        n => Expr::Compare(shape.attribute, Comparison::Eq, number(n)),
                    });
                }
                if !self.present {
                    // An upsert may create the item, which then gets the current shape.
                    allowed.push(Expr::NotExists(hash));
                }
                match allowed.len() {
                    1 => allowed.remove(0),
                    _ => Expr::Or(allowed),
                }
            });
        [absent, present, unexpired, version, shape]
    }
}

/// Renders the checks and the caller's condition into one condition expression, or
/// gives the first error the caller's condition values raised.
pub(crate) fn condition(
    schema: &'static Schema,
    checks: &Checks,
    user: Conjunction,
    placeholders: &mut Placeholders,
) -> Result<Option<String>> {
    let checks = checks.exprs(schema);
    let user = user.into_parts()?;
    Ok(placeholders.render_conjunction(checks.iter().flatten().chain(&user)))
}

/// What a single write's request holds besides its item or key.
pub struct RequestParts {
    pub table: String,
    pub condition: Option<String>,
    pub names: Option<HashMap<String, String>>,
    pub values: Option<HashMap<String, AttributeValue>>,
    pub return_capacity: Option<ReturnConsumedCapacity>,
}

impl<K> WriteSpec<K> {
    /// The spec with `kind` in place of its own, and its own kind apart: a single write
    /// moves its payload into the request this way.
    pub fn replace_kind<L>(self, kind: L) -> (K, WriteSpec<L>) {
        let WriteSpec {
            schema,
            operation,
            table,
            kind: own,
            condition,
            placeholders,
            checks,
            report,
            guarded,
        } = self;
        let spec = WriteSpec {
            schema,
            operation,
            table,
            kind,
            condition,
            placeholders,
            checks,
            report,
            guarded,
        };
        (own, spec)
    }

    /// The spec as a transaction holds it.
    pub fn into_any(self) -> WriteSpec
    where
        K: Into<WriteKind>,
    {
        let (kind, spec) = self.replace_kind(());
        spec.replace_kind(kind.into()).1
    }

    /// The request's parts, copied, for a preview.
    pub fn parts(&self) -> RequestParts {
        let mut placeholders = self.placeholders.clone();
        RequestParts {
            table: self.table.clone(),
            condition: self.condition.clone(),
            names: placeholders.take_names(),
            values: placeholders.take_values(),
            return_capacity: self.report.capacity(),
        }
    }

    /// The request's parts, moved out, for sending: the spec keeps what explains a
    /// failure (schema, operation, checks).
    pub fn take_parts(&mut self) -> RequestParts {
        RequestParts {
            table: std::mem::take(&mut self.table),
            condition: self.condition.take(),
            names: self.placeholders.take_names(),
            values: self.placeholders.take_values(),
            return_capacity: self.report.capacity(),
        }
    }

    /// `(stored, current)` when a stored item is of an earlier shape than the model's that
    /// the update's shape check refuses.
    fn refused_shape(&self, item: &Item) -> Option<(u32, u32)> {
        let (shape, older) = self.schema.shape.zip(self.checks.shapes.as_ref())?;
        let stored = shape.of(self.schema.model, item).ok()?;
        (stored < shape.current && !older.contains(&stored)).then_some((stored, shape.current))
    }

    /// The error for a failed condition, given the item DynamoDB returned with it.
    pub fn condition_failed(&self, current: Option<Item>) -> Error {
        let current = current.filter(|item| !item.is_empty());
        // An expired item is absent, as the condition itself counts it.
        let live = current
            .as_ref()
            .filter(|item| !self.schema.is_expired(item));
        let stored_version = self
            .schema
            .version
            .and_then(|attribute| live.and_then(|item| item.get(attribute)));
        let older = live.and_then(|item| self.refused_shape(item));
        // A named value the stored item does not hold.
        let unheld = live.and_then(|item| {
            let show = |v: Option<&AttributeValue>| {
                v.map_or_else(|| "absent".to_owned(), crate::value::show)
            };
            self.checks
                .composite
                .iter()
                .find(|(name, value)| item.get(*name) != value.as_ref())
                .map(|(name, value)| {
                    let message = format!(
                        "the stored `{name}` is {}, not {} as the update named it (with \
                         `composite`, or read before): a key rendered from it would be stale",
                        show(item.get(*name)),
                        show(value.as_ref())
                    );
                    (*name, message)
                })
        });
        let (kind, message) = match (&live, &self.checks) {
            (None, checks) if checks.present => {
                (ErrorKind::NotFound, "no item has this key".to_owned())
            }
            (Some(_), checks) if checks.absent => (
                ErrorKind::AlreadyExists,
                "an item with this key already exists".to_owned(),
            ),
            (
                Some(_),
                Checks {
                    version: Some(expected),
                    ..
                },
            ) if stored_version != Some(expected) => (
                ErrorKind::VersionConflict,
                format!(
                    "the stored version is {}, not {}: another writer changed the item",
                    stored_version.map_or_else(|| "missing".to_owned(), crate::value::show),
                    crate::value::show(expected)
                ),
            ),
            (
                None,
                Checks {
                    version: Some(_), ..
                },
            ) => (
                ErrorKind::VersionConflict,
                "the item was deleted by another writer".to_owned(),
            ),
            (Some(_), _) if unheld.is_some() => (
                ErrorKind::ConditionFailed,
                unheld
                    .clone()
                    .map(|(_, message)| message)
                    .unwrap_or_default(),
            ),
            (Some(_), _) if older.is_some() => {
                let (stored, current) = older.unwrap_or_default();
                (
                    ErrorKind::ConditionFailed,
                    format!(
                        "the stored item has shape {stored}, older than the model's {current}, \
                         and does not hold every attribute the update writes: its upcast would \
                         not read them; backfill it, or put the whole item"
                    ),
                )
            }
            _ => (
                ErrorKind::ConditionFailed,
                "the condition expression failed".to_owned(),
            ),
        };
        let mut error = Error::new(kind, message)
            .with_model(self.schema.model)
            .with_operation(self.operation);
        if let (Some(_), Some(shape)) = (older, self.schema.shape) {
            error = error.with_attribute(shape.attribute);
        }
        if let (Some((name, _)), ErrorKind::ConditionFailed) = (unheld, kind) {
            error = error.with_attribute(name);
        }
        if let Some(attribute) = self
            .schema
            .version
            .filter(|_| kind == ErrorKind::VersionConflict)
        {
            error = error.with_attribute(attribute);
        }
        error.with_item(current)
    }
}

/// Fills an SDK transaction item's builder (`$builder`, which already holds the item or
/// key) with what every kind shares. The SDK's builders share these setters but no trait,
/// hence a macro.
macro_rules! transact_part {
    ($builder:expr, $spec:ident, $names:ident, $values:ident) => {
        $builder
            .table_name($spec.table)
            .set_condition_expression($spec.condition)
            .set_expression_attribute_names($names)
            .set_expression_attribute_values($values)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .map_err(|e| crate::item::built(e, $spec.schema.model, $spec.operation))?
    };
}

impl WriteSpec {
    /// The write as one item of a `TransactWriteItems` request.
    pub fn into_transact_item(self) -> Result<TransactWriteItem> {
        let (kind, mut spec) = self.replace_kind(());
        let names = spec.placeholders.take_names();
        let values = spec.placeholders.take_values();
        let item = TransactWriteItem::builder();
        let item = match kind {
            WriteKind::Put(Put(stored)) => item.put(transact_part!(
                sdk::Put::builder().set_item(Some(stored)),
                spec,
                names,
                values
            )),
            WriteKind::Delete(Delete(key)) => item.delete(transact_part!(
                sdk::Delete::builder().set_key(Some(key)),
                spec,
                names,
                values
            )),
            WriteKind::Update(Update { key, expression }) => item.update(transact_part!(
                sdk::Update::builder()
                    .set_key(Some(key))
                    .update_expression(expression),
                spec,
                names,
                values
            )),
            WriteKind::ConditionCheck(ConditionCheck(key)) => item.condition_check(transact_part!(
                sdk::ConditionCheck::builder().set_key(Some(key)),
                spec,
                names,
                values
            )),
        };
        Ok(item.build())
    }

    /// The key of the item the write touches, for duplicate checks.
    pub fn key(&self) -> Item {
        match &self.kind {
            WriteKind::Put(Put(item)) => self.schema.key_of(item),
            WriteKind::Delete(Delete(key))
            | WriteKind::Update(Update { key, .. })
            | WriteKind::ConditionCheck(ConditionCheck(key)) => key.clone(),
        }
    }
}

/// The version a put or create writes, after the version it read.
pub(crate) fn next_version(
    schema: &Schema,
    item: &mut Item,
    creating: bool,
    max: u64,
) -> Result<Option<AttributeValue>> {
    let Some(attribute) = schema.version else {
        return Ok(None);
    };
    let current = match item.get(attribute) {
        Some(AttributeValue::N(n)) => n.parse::<u64>().map_err(|_| {
            Error::validation(format!("the version `{n}` is not a whole number"))
                .with_model(schema.model)
                .with_attribute(attribute)
        })?,
        _ => 0,
    };
    let (next, expected) = if creating {
        (1, None)
    } else {
        let next = current
            .checked_add(1)
            .filter(|next| *next <= max)
            .ok_or_else(|| {
                Error::validation(format!(
                    "the version is {current}, its maximum, so it cannot be increased"
                ))
                .with_model(schema.model)
                .with_attribute(attribute)
            })?;
        (next, Some(current))
    };
    item.insert(attribute.to_owned(), AttributeValue::N(next.to_string()));
    Ok(expected
        .filter(|v| *v > 0)
        .map(|v| AttributeValue::N(v.to_string())))
}

//! `UpdateItem` with typed actions.
//!
//! Every action takes the field's [`Attr`] and a value of the field's type. An update
//! requires the item to exist unless it is an [`upsert`](UpdateItem::upsert), never
//! touches a table key, and never leaves a `#[combine]` key stale.

use std::collections::{BTreeSet, HashSet};
use std::marker::PhantomData;

use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};

use crate::client::Client;
use crate::condition::{Attr, Condition, Expr, Optional};
use crate::error::{Error, Result};
use crate::expr::Placeholders;
use crate::model::{Item, Model};
use crate::ops::write::{self, Checks, WriteKind, WriteSpec};
use crate::ops::{self};
use crate::value::AttrValue;

const OPERATION: &str = "update";

/// A number an update can add to: every integer and float type.
pub trait Numeric: AttrValue {}

macro_rules! numeric {
    ($($ty:ty),*) => {$(impl Numeric for $ty {})*};
}

numeric!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64);

/// A set an update can add elements to or delete them from.
pub trait SetLike {}

impl<E, S> SetLike for HashSet<E, S> {}
impl<E> SetLike for BTreeSet<E> {}

/// A pending `UpdateItem`. Build it with [`Client::update`].
///
/// ```no_run
/// # use dynorm::Model;
/// # #[derive(Model)] struct Order { #[hash_key] id: String, total: f64, visits: u32, note: Option<String>, tags: Vec<String> }
/// # async fn demo(db: dynorm::Client) -> Result<(), dynorm::Error> {
/// let updated: Order = db
///     .update::<Order>("o1")
///     .set(Order::TOTAL, 99.5)
///     .increment(Order::VISITS, 1)
///     .remove(Order::NOTE) // only `Option` fields can be removed
///     .append(Order::TAGS, vec!["rush".to_owned()])
///     .condition(Order::TOTAL.lt(100.0))
///     .send_returning_new()
///     .await?;
/// # Ok(()) }
/// ```
#[must_use = "a request does nothing until it is sent"]
pub struct UpdateItem<M: Model> {
    client: Client,
    key: Result<Item>,
    placeholders: Placeholders,
    set: Vec<String>,
    remove: Vec<String>,
    add: Vec<String>,
    delete: Vec<String>,
    /// Every attribute written, with its new value when it is a plain `set`.
    touched: Vec<(&'static str, Option<AttributeValue>)>,
    condition: Vec<Expr>,
    errors: Vec<Error>,
    upsert: bool,
    expected_version: Option<u64>,
    ignore_version: bool,
    model: PhantomData<fn() -> M>,
}

impl<M: Model> UpdateItem<M> {
    pub(crate) fn new(client: &Client, key: M::Key) -> Self {
        Self {
            client: client.clone(),
            key: ops::typed_key::<M>(&key, OPERATION),
            placeholders: Placeholders::default(),
            set: Vec::new(),
            remove: Vec::new(),
            add: Vec::new(),
            delete: Vec::new(),
            touched: Vec::new(),
            condition: Vec::new(),
            errors: Vec::new(),
            upsert: false,
            expected_version: None,
            ignore_version: false,
            model: PhantomData,
        }
    }

    /// Records that `name` is written, refusing table keys and dynorm-managed attributes.
    fn touch(&mut self, name: &'static str, value: Option<AttributeValue>) -> Option<String> {
        let schema = &M::SCHEMA;
        let refuse = |message: String| Error::validation(message).with_attribute(name);
        let problem = if schema.is_table_key(name) {
            Some(refuse(format!(
                "`{name}` is a key attribute of the table; an update cannot change it (write the item at its new key)"
            )))
        } else if schema.version == Some(name) {
            Some(refuse(format!(
                "`{name}` is the #[version]; dynorm increments it on every update"
            )))
        } else if schema.combines.iter().any(|c| c.attribute == name) {
            Some(refuse(format!(
                "`{name}` is built by #[combine]; update its sources instead"
            )))
        } else if self.touched.iter().any(|(t, _)| *t == name) {
            Some(refuse(format!("`{name}` is updated twice in one request")))
        } else {
            None
        };
        if let Some(error) = problem {
            self.errors.push(error);
            return None;
        }
        self.touched.push((name, value));
        Some(self.placeholders.name(name))
    }

    /// Encodes a value with the field's storage, recording any error.
    fn encode<T, O>(&mut self, attr: &Attr<M, T, O>, value: &T) -> Option<String> {
        match attr.value(value) {
            Ok(encoded) => Some(self.placeholders.value(encoded)),
            Err(e) => {
                self.errors.push(e);
                None
            }
        }
    }

    /// `SET attribute = value`
    pub fn set<T, O>(mut self, attr: Attr<M, T, O>, value: impl Into<T>) -> Self {
        let value = value.into();
        let encoded = attr.value(&value).ok();
        if let (Some(name), Some(value)) =
            (self.touch(attr.name(), encoded), self.encode(&attr, &value))
        {
            self.set.push(format!("{name} = {value}"));
        }
        self
    }

    /// `SET attribute = if_not_exists(attribute, value)`: sets it only when it is absent.
    pub fn set_if_not_exists<T, O>(mut self, attr: Attr<M, T, O>, value: impl Into<T>) -> Self {
        let value = value.into();
        if let (Some(name), Some(value)) =
            (self.touch(attr.name(), None), self.encode(&attr, &value))
        {
            self.set
                .push(format!("{name} = if_not_exists({name}, {value})"));
        }
        self
    }

    /// `REMOVE attribute`: only for `Option` fields, since a required field must stay.
    pub fn remove<T>(mut self, attr: Attr<M, T, Optional>) -> Self {
        if let Some(name) = self.touch(attr.name(), None) {
            self.remove.push(name);
        }
        self
    }

    /// `ADD attribute value`: adds to a number, starting from 0 when it is absent.
    pub fn add<T: Numeric, O>(mut self, attr: Attr<M, T, O>, by: T) -> Self {
        if let (Some(name), Some(value)) = (self.touch(attr.name(), None), self.encode(&attr, &by))
        {
            self.add.push(format!("{name} {value}"));
        }
        self
    }

    fn arithmetic<T: Numeric, O>(mut self, attr: Attr<M, T, O>, by: T, operator: char) -> Self {
        if let (Some(name), Some(value)) = (self.touch(attr.name(), None), self.encode(&attr, &by))
        {
            let zero = self.placeholders.value(AttributeValue::N("0".into()));
            self.set.push(format!(
                "{name} = if_not_exists({name}, {zero}) {operator} {value}"
            ));
        }
        self
    }

    /// `SET attribute = attribute + by`, from 0 when absent.
    pub fn increment<T: Numeric, O>(self, attr: Attr<M, T, O>, by: T) -> Self {
        self.arithmetic(attr, by, '+')
    }

    /// `SET attribute = attribute - by`, from 0 when absent.
    pub fn decrement<T: Numeric, O>(self, attr: Attr<M, T, O>, by: T) -> Self {
        self.arithmetic(attr, by, '-')
    }

    fn list<E, O>(mut self, attr: Attr<M, Vec<E>, O>, items: Vec<E>, at_end: bool) -> Self {
        if let (Some(name), Some(value)) =
            (self.touch(attr.name(), None), self.encode(&attr, &items))
        {
            let empty = self.placeholders.value(AttributeValue::L(Vec::new()));
            let current = format!("if_not_exists({name}, {empty})");
            let (first, second) = if at_end {
                (current, value)
            } else {
                (value, current)
            };
            self.set
                .push(format!("{name} = list_append({first}, {second})"));
        }
        self
    }

    /// Appends to a list.
    pub fn append<E, O>(self, attr: Attr<M, Vec<E>, O>, items: Vec<E>) -> Self {
        self.list(attr, items, true)
    }

    /// Prepends to a list.
    pub fn prepend<E, O>(self, attr: Attr<M, Vec<E>, O>, items: Vec<E>) -> Self {
        self.list(attr, items, false)
    }

    /// `ADD attribute elements`: adds elements to a set.
    pub fn add_to_set<T: SetLike, O>(mut self, attr: Attr<M, T, O>, elements: T) -> Self {
        if let (Some(name), Some(value)) =
            (self.touch(attr.name(), None), self.encode(&attr, &elements))
        {
            self.add.push(format!("{name} {value}"));
        }
        self
    }

    /// `DELETE attribute elements`: deletes elements from a set.
    pub fn delete_from_set<T: SetLike, O>(mut self, attr: Attr<M, T, O>, elements: T) -> Self {
        if let (Some(name), Some(value)) =
            (self.touch(attr.name(), None), self.encode(&attr, &elements))
        {
            self.delete.push(format!("{name} {value}"));
        }
        self
    }

    /// A condition the stored item must meet.
    pub fn condition(mut self, condition: Condition<M>) -> Self {
        let (parts, errors) = condition.into_conjuncts();
        self.condition.extend(parts);
        self.errors.extend(errors);
        self
    }

    /// Creates the item when it does not exist, instead of failing with
    /// [`ErrorKind::NotFound`](crate::ErrorKind). The new item has only the key and the
    /// updated attributes, so make sure that is a whole model.
    pub fn upsert(mut self) -> Self {
        self.upsert = true;
        self
    }

    /// Updates only if the stored `#[version]` is `version`; otherwise
    /// [`ErrorKind::VersionConflict`](crate::ErrorKind).
    pub fn expect_version(mut self, version: u64) -> Self {
        self.expected_version = Some(version);
        self
    }

    /// Updates whatever the stored `#[version]` is (it is still incremented), for
    /// updates that commute, such as counters.
    pub fn ignore_version(mut self) -> Self {
        self.ignore_version = true;
        self
    }

    /// Rebuilds `#[combine]` attributes whose sources this update sets, or refuses.
    fn rebuild_combined(&mut self) -> Result<()> {
        let schema = &M::SCHEMA;
        for combine in schema.combines {
            let touched: Vec<&str> = combine
                .sources
                .iter()
                .copied()
                .filter(|s| self.touched.iter().any(|(t, _)| t == s))
                .collect();
            if touched.is_empty() {
                continue;
            }
            let attribute = combine.attribute;
            if schema.is_table_key(attribute) {
                return Err(Error::validation(format!(
                    "`{}` is a source of the key `{attribute}`, so an update cannot change it; \
                     write the item at its new key and delete the old one in one transaction",
                    touched[0]
                ))
                .with_attribute(touched[0]));
            }
            let mut sources = Item::new();
            for source in combine.sources {
                match self.touched.iter().find(|(t, _)| t == source) {
                    Some((_, Some(value))) => {
                        sources.insert((*source).to_owned(), value.clone());
                    }
                    _ => {
                        return Err(Error::validation(format!(
                            "the update changes `{}`, a source of `{attribute}`, but does not `set` `{source}`; \
                             set every source so that `{attribute}` can be rebuilt",
                            touched[0]
                        ))
                        .with_attribute(*source))
                    }
                }
            }
            let text = crate::__private::combined_text(
                schema.model,
                attribute,
                combine.separator,
                &sources,
                combine.sources,
            )?;
            let name = self.placeholders.name(attribute);
            let value = self.placeholders.value(AttributeValue::S(text));
            self.set.push(format!("{name} = {value}"));
        }
        Ok(())
    }

    pub(crate) fn spec(mut self) -> Result<WriteSpec> {
        let fail = |e: Error| Err(e.with_model(M::SCHEMA.model).with_operation(OPERATION));
        if let Some(error) = self.errors.first() {
            return fail(error.clone());
        }
        let key = self.key.clone()?;
        if self.touched.is_empty() {
            return fail(Error::validation("an update needs at least one action"));
        }
        if let Err(e) = self.rebuild_combined() {
            return fail(e);
        }
        if let Some(updated) = M::SCHEMA.updated_at {
            if self.touched.iter().all(|(t, _)| *t != updated.attribute) {
                let name = self.placeholders.name(updated.attribute);
                let value = self.placeholders.value(updated.value.generate());
                self.set.push(format!("{name} = {value}"));
            }
        }
        let mut checks = Checks {
            present: !self.upsert,
            ..Checks::default()
        };
        if let Some(attribute) = M::SCHEMA.version {
            match (self.expected_version, self.ignore_version) {
                (Some(version), _) => checks.version = Some(AttributeValue::N(version.to_string())),
                (None, true) => {}
                (None, false) => {
                    return fail(
                        Error::validation(
                            "the model has a #[version]: call `.expect_version(v)` with the version you read, \
                             or `.ignore_version()` for an update that does not depend on it",
                        )
                        .with_attribute(attribute),
                    )
                }
            }
            let name = self.placeholders.name(attribute);
            let zero = self.placeholders.value(AttributeValue::N("0".into()));
            let one = self.placeholders.value(AttributeValue::N("1".into()));
            self.set
                .push(format!("{name} = if_not_exists({name}, {zero}) + {one}"));
        } else if self.expected_version.is_some() {
            return fail(Error::validation("the model has no #[version] attribute"));
        }
        let mut expression = Vec::new();
        for (clause, actions) in [
            ("SET", &self.set),
            ("REMOVE", &self.remove),
            ("ADD", &self.add),
            ("DELETE", &self.delete),
        ] {
            if !actions.is_empty() {
                expression.push(format!("{clause} {}", actions.join(", ")));
            }
        }
        let condition =
            write::condition(&M::SCHEMA, &checks, self.condition, &mut self.placeholders);
        Ok(WriteSpec {
            schema: &M::SCHEMA,
            operation: OPERATION,
            table: self.client.table_name::<M>(),
            kind: WriteKind::Update {
                key,
                expression: expression.join(" "),
            },
            condition,
            placeholders: self.placeholders,
            checks,
        })
    }

    async fn send_with(self, return_values: ReturnValue) -> Result<Option<Item>> {
        let client = self.client.clone();
        let spec = self.spec()?;
        let WriteKind::Update { key, expression } = spec.kind.clone() else {
            unreachable!("an update spec holds a key and an expression")
        };
        write::send_write!(
            &spec,
            client
                .sdk()
                .update_item()
                .set_key(Some(key))
                .update_expression(expression),
            return_values,
            UpdateItemError
        )
    }

    /// Sends the request.
    pub async fn send(self) -> Result<()> {
        self.send_with(ReturnValue::None).await.map(drop)
    }

    /// Sends the request and returns the whole item after the update.
    pub async fn send_returning_new(self) -> Result<M> {
        let new = self.send_with(ReturnValue::AllNew).await?;
        ops::decode(new, OPERATION)?.ok_or_else(|| {
            Error::validation("DynamoDB returned no item")
                .with_model(M::SCHEMA.model)
                .with_operation(OPERATION)
        })
    }

    /// Sends the request and returns the whole item before the update, if there was one.
    pub async fn send_returning_old(self) -> Result<Option<M>> {
        let old = self.send_with(ReturnValue::AllOld).await?;
        ops::decode(old, OPERATION)
    }

    /// Sends the request and returns the updated attributes, after the update.
    pub async fn send_returning_updated_new(self) -> Result<Item> {
        Ok(self
            .send_with(ReturnValue::UpdatedNew)
            .await?
            .unwrap_or_default())
    }

    /// Sends the request and returns the updated attributes, before the update.
    pub async fn send_returning_updated_old(self) -> Result<Item> {
        Ok(self
            .send_with(ReturnValue::UpdatedOld)
            .await?
            .unwrap_or_default())
    }
}

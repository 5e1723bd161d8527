//! `UpdateItem`: a typed [`Update`] for one item, built up, then rendered into its request.
//!
//! An update requires the item to exist unless it is an
//! [`upsert`](UpdateItem::upsert), never touches a table key, and never leaves a
//! `#[combine]` attribute stale. Sending it is `update.rs`'s.

use std::marker::PhantomData;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::client::Client;
use crate::error::{Error, Result};
use crate::expr::{
    Attr, Comparison, Condition, Conjunction, Expr, Numeric, Operand, Optional, Placeholders,
    SetLike, Stored, TextMap, Updatable, Update,
};
use crate::item;
use crate::item::write_request::{self, Checks, Guarded, WriteSpec};
use crate::observe::Reporting;
use crate::schema::{Model, ModelKey};
use crate::value::Item;

const OPERATION: &str = "update";

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
    /// The stored attributes the key is made of, which an update never changes; `None`
    /// when they are the key itself (no key template), which is then not encoded twice.
    key_sources: Option<Result<Item>>,
    update: Update<M>,
    condition: Conjunction,
    upsert: bool,
    expected_version: Option<u64>,
    ignore_version: bool,
    /// Stored values named with [`composite`](UpdateItem::composite), or read with
    /// [`read_composite`](UpdateItem::read_composite); the condition requires each.
    composite: Vec<(&'static str, Option<AttributeValue>)>,
    /// The first value `composite` could not encode.
    composite_error: Option<Error>,
    read_composite: bool,
    pub(super) report: Reporting,
    model: PhantomData<fn() -> M>,
}

impl<M: Model> Clone for UpdateItem<M> {
    fn clone(&self) -> Self {
        Self {
            client: self.client.clone(),
            key: self.key.clone(),
            key_sources: self.key_sources.clone(),
            update: self.update.clone(),
            condition: self.condition.clone(),
            upsert: self.upsert,
            expected_version: self.expected_version,
            ignore_version: self.ignore_version,
            composite: self.composite.clone(),
            composite_error: self.composite_error.clone(),
            read_composite: self.read_composite,
            report: self.report.clone(),
            model: PhantomData,
        }
    }
}

impl<M: Model> UpdateItem<M> {
    /// Updates one item of `M` by raw key attributes: `UpdateItem::<User>::raw(&db, key)`.
    /// The key must have every key attribute, and a key built from templates must parse
    /// back into its fields; otherwise the error comes before sending.
    pub fn raw(client: &Client, key: Item) -> Self {
        let checked = item::raw_key::<M>(key, OPERATION)
            .and_then(|key| M::Key::from_key_item(key).map_err(|e| e.with_operation(OPERATION)));
        match checked {
            Ok(key) => Self::new(client, key),
            Err(error) => Self::with_key(client, Err(error), None),
        }
    }

    pub(crate) fn new(client: &Client, key: M::Key) -> Self {
        let key_sources = M::SCHEMA.entity.is_some().then(|| {
            key.__stored_sources()
                .map_err(|e| e.with_operation(OPERATION))
        });
        Self::with_key(client, item::typed_key::<M>(&key, OPERATION), key_sources)
    }

    fn with_key(client: &Client, key: Result<Item>, key_sources: Option<Result<Item>>) -> Self {
        Self {
            client: client.clone(),
            key,
            key_sources,
            update: Update::new(),
            condition: Conjunction::default(),
            upsert: false,
            expected_version: None,
            ignore_version: false,
            composite: Vec::new(),
            composite_error: None,
            read_composite: false,
            report: Reporting::default(),
            model: PhantomData,
        }
    }

    /// Adds every action of a prepared [`Update`].
    pub fn apply(mut self, update: Update<M>) -> Self {
        self.update = self.update.merge(update);
        self
    }

    /// `SET attribute = value`
    pub fn set<T, O, W: Updatable>(
        mut self,
        attr: Attr<M, T, O, W>,
        value: impl Operand<T>,
    ) -> Self {
        self.update = self.update.set(attr, value);
        self
    }

    /// `SET attribute = if_not_exists(attribute, value)`: sets it only when it is absent.
    pub fn set_if_not_exists<T, O, W: Updatable>(
        mut self,
        attr: Attr<M, T, O, W>,
        value: impl Operand<T>,
    ) -> Self {
        self.update = self.update.set_if_not_exists(attr, value);
        self
    }

    /// `REMOVE attribute`: only for `Option` fields, since a required field must stay, and
    /// for paths inside an attribute (a path to a field its type requires leaves an item
    /// that does not read back: remove the optional ones).
    pub fn remove<T, W: Updatable>(mut self, attr: Attr<M, T, Optional, W>) -> Self {
        self.update = self.update.remove(attr);
        self
    }

    /// `SET attribute = attribute + by`, from 0 when absent.
    pub fn increment<T: Numeric, O, W: Updatable>(mut self, attr: Attr<M, T, O, W>, by: T) -> Self {
        self.update = self.update.increment(attr, by);
        self
    }

    /// `SET attribute = attribute - by`, from 0 when absent.
    pub fn decrement<T: Numeric, O, W: Updatable>(mut self, attr: Attr<M, T, O, W>, by: T) -> Self {
        self.update = self.update.decrement(attr, by);
        self
    }

    /// `SET attribute = attribute + other`: adds the stored value of another numeric
    /// attribute ([`Update::increment_by_attribute`]).
    pub fn increment_by_attribute<T: Numeric, O, W: Updatable, P, V>(
        mut self,
        attr: Attr<M, T, O, W>,
        other: Attr<M, T, P, V>,
    ) -> Self {
        self.update = self.update.increment_by_attribute(attr, other);
        self
    }

    /// `SET attribute = attribute - other`: subtracts the stored value of another numeric
    /// attribute ([`Update::decrement_by_attribute`]).
    pub fn decrement_by_attribute<T: Numeric, O, W: Updatable, P, V>(
        mut self,
        attr: Attr<M, T, O, W>,
        other: Attr<M, T, P, V>,
    ) -> Self {
        self.update = self.update.decrement_by_attribute(attr, other);
        self
    }

    /// `SET attribute.key = value`: the entry under `key`, chosen at run time, of a map
    /// keyed by text ([`Update::set_entry`]).
    pub fn set_entry<K: TextMap, O, W: Updatable>(
        mut self,
        attr: Attr<M, K, O, W>,
        key: impl Into<String>,
        value: K::Value,
    ) -> Self {
        self.update = self.update.set_entry(attr, key, value);
        self
    }

    /// `REMOVE attribute.key`: the entry under `key`, chosen at run time, of a map keyed by
    /// text ([`Update::remove_entry`]).
    pub fn remove_entry<K: TextMap, O, W: Updatable>(
        mut self,
        attr: Attr<M, K, O, W>,
        key: impl Into<String>,
    ) -> Self {
        self.update = self.update.remove_entry(attr, key);
        self
    }

    /// Appends to a list.
    pub fn append<E, O, W: Updatable>(
        mut self,
        attr: Attr<M, Vec<E>, O, W>,
        items: Vec<E>,
    ) -> Self {
        self.update = self.update.append(attr, items);
        self
    }

    /// Prepends to a list.
    pub fn prepend<E, O, W: Updatable>(
        mut self,
        attr: Attr<M, Vec<E>, O, W>,
        items: Vec<E>,
    ) -> Self {
        self.update = self.update.prepend(attr, items);
        self
    }

    /// `ADD attribute elements`: adds elements to a set.
    pub fn add_to_set<T: SetLike, O, W: Updatable>(
        mut self,
        attr: Attr<M, T, O, W>,
        elements: T,
    ) -> Self {
        self.update = self.update.add_to_set(attr, elements);
        self
    }

    /// `DELETE attribute elements`: deletes elements from a set.
    pub fn delete_from_set<T: SetLike, O, W: Updatable>(
        mut self,
        attr: Attr<M, T, O, W>,
        elements: T,
    ) -> Self {
        self.update = self.update.delete_from_set(attr, elements);
        self
    }

    /// A condition the stored item must meet.
    pub fn condition(mut self, condition: Condition<M>) -> Self {
        self.condition.push(condition);
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

    /// Names the stored value of `attribute`, a source of a key the update rebuilds that
    /// the update does not write, as ElectroDB's `composite` does: a `read_only` one, or
    /// one the update leaves alone. The key is rendered with the value, which is not
    /// written, and the update's condition requires that the stored item holds it, so a
    /// wrong value fails the update ([`ErrorKind::ConditionFailed`](crate::ErrorKind))
    /// instead of storing a stale key.
    ///
    /// ```no_run
    /// # use dynorm::Model;
    /// # use chrono::{DateTime, Utc};
    /// #[derive(Model)]
    /// #[dynorm(table = "App", entity = "org")]
    /// #[key(pk = "ORG#{id}", sk = "#META")]
    /// #[key(index = "GSI1", gsi1pk = "ORGS", gsi1sk = "{status}#{created_at}")]
    /// struct Org {
    ///     id: String,
    ///     status: String,
    ///     #[dynorm(default = "now", read_only)]
    ///     created_at: DateTime<Utc>,
    /// }
    /// # async fn demo(db: dynorm::Client, org: Org) -> Result<(), dynorm::Error> {
    /// db.update::<Org>(org.id.as_str())
    ///     .set(Org::STATUS, "deleted")
    ///     .composite(Org::CREATED_AT, org.created_at) // gsi1sk needs it; no update writes it
    ///     .send()
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn composite<T, O, W>(mut self, attr: Attr<M, T, O, W>, value: impl Operand<T>) -> Self {
        let value = match attr.refuse_nested("`composite`") {
            Some(error) => Err(error),
            None => attr.value(&value.into_operand()),
        };
        match value {
            Ok(value) => self.composite.push((attr.name(), Some(value))),
            Err(error) => {
                self.composite_error
                    .get_or_insert(error.with_attribute(attr.name()));
            }
        }
        self
    }

    /// With `true`, the sources of the keys the update rebuilds that it neither writes nor
    /// names with [`composite`](Self::composite) are read from the stored item first: one
    /// strongly consistent `GetItem` (which [`predict`](crate::Request::predict) counts), then the
    /// `UpdateItem`, on condition that the item still holds what was read. When another
    /// writer changed them in between, they are read again, at most
    /// 3 times in all. When the read finds no item, an update that is not an
    /// [`upsert`](Self::upsert) fails with [`ErrorKind::NotFound`](crate::ErrorKind)
    /// without sending the `UpdateItem`. An update whose keys need nothing from the stored
    /// item reads nothing. Not in a transaction, which cannot read first: name the values
    /// there.
    pub fn read_composite(mut self, read: bool) -> Self {
        self.read_composite = read;
        self
    }

    /// The stored attributes the table key is made of (the key itself, without a
    /// template), which an update never changes.
    fn fixed(&self) -> Result<std::borrow::Cow<'_, Item>> {
        match (&self.key_sources, &self.key) {
            (Some(Ok(sources)), _) => Ok(std::borrow::Cow::Borrowed(sources)),
            (Some(Err(error)), _) | (None, Err(error)) => Err(error.clone()),
            (None, Ok(key)) => Ok(std::borrow::Cow::Borrowed(key)),
        }
    }

    /// The sources the update needs from the stored item to rebuild its keys (what
    /// `read_composite` reads); empty when it needs none.
    pub(super) fn missing_sources(&self) -> Result<Vec<&'static str>> {
        let fail = |e: Error| e.with_model(M::SCHEMA.model).with_operation(OPERATION);
        let fixed = self.fixed()?;
        let stored = Stored {
            fixed: &fixed,
            composite: &self.composite,
            version: self.expected_version,
        };
        self.update
            .missing_sources(&stored, self.upsert)
            .map_err(fail)
    }

    /// The update with values read from the stored item, each required by its condition.
    pub(super) fn with_read(mut self, values: Vec<(&'static str, Option<AttributeValue>)>) -> Self {
        self.composite.extend(values);
        self
    }

    /// Whether the update reads the sources of its keys from the stored item first.
    pub(super) fn reads_first(&self) -> bool {
        self.read_composite
    }

    /// Whether the update creates the item when it is absent.
    pub(super) fn is_upsert(&self) -> bool {
        self.upsert
    }

    /// The client the update is sent with.
    pub(super) fn client(&self) -> &Client {
        &self.client
    }

    /// The key, and the tally and capacity setting a read before the update reports to.
    pub(super) fn read_target(&self) -> Result<(Item, String, &Reporting)> {
        Ok((
            self.key.clone()?,
            self.client.table_name::<M>(),
            &self.report,
        ))
    }

    pub(crate) fn spec(mut self) -> Result<WriteSpec<write_request::Update>> {
        let fail = |e: Error| e.with_model(M::SCHEMA.model).with_operation(OPERATION);
        if let Some(error) = &self.composite_error {
            return Err(fail(error.clone()));
        }
        if self.read_composite {
            let missing = self.missing_sources()?;
            if let Some(first) = missing.first() {
                return Err(fail(
                    Error::validation(format!(
                        "`read_composite` reads {} from the stored item before the update is sent \
                     on its own; a transaction or a preview cannot read first: name the stored \
                     values with `.composite(attribute, value)`",
                        missing
                            .iter()
                            .map(|m| format!("`{m}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                    .with_attribute(*first),
                ));
            }
        }
        let mut placeholders = Placeholders::default();
        let fixed = self.fixed()?.into_owned();
        let stored = Stored {
            fixed: &fixed,
            composite: &self.composite,
            version: self.expected_version,
        };
        let expression = self
            .update
            .render(&mut placeholders, &stored, self.upsert)
            .map_err(fail)?;
        // A named value is used, not written: the stored item must hold it.
        for (name, value) in &self.composite {
            self.condition.push_expr(match value {
                Some(value) => Expr::Compare(name, Comparison::Eq, value.clone()),
                None => Expr::NotExists(name),
            });
        }
        let guarded = if M::SCHEMA.has_companions() {
            // An upsert may create a counted item: it marks it as counted. An upsert that
            // creates the item claims what its key holds too (a unique ticket that is one
            // part of the table key, a count's parent named by a key source), so it is
            // guarded even when it sets no other companion source.
            let touches = self.update.companion_touches(self.upsert).map_err(fail)?;
            (!touches.is_empty() || self.upsert).then(|| {
                let mut base = fixed.clone();
                if let Ok(key) = &self.key {
                    base.extend(key.iter().map(|(k, v)| (k.clone(), v.clone())));
                }
                Guarded::Update { base, touches }
            })
        } else {
            None
        };
        let key = self.key?;
        let mut checks = Checks {
            present: !self.upsert,
            shapes: M::SCHEMA.shape.map(|shape| {
                // The earlier shapes whose items hold every attribute this update writes.
                // Not shape 1 for an upsert: its items have no shape attribute, so the
                // upsert's `if_not_exists` would mark one as current.
                let first = if self.upsert { 2 } else { 1 };
                (first..shape.current)
                    .filter(|&n| {
                        M::__shape_fields(n).is_some_and(|fields| {
                            self.update.touched().all(|name| fields.contains(&name))
                        })
                    })
                    .collect()
            }),
            composite: std::mem::take(&mut self.composite),
            ..Checks::default()
        };
        match (M::SCHEMA.version, self.expected_version, self.ignore_version) {
            (Some(attribute), Some(version), _) => {
                if version >= M::__VERSION_MAX {
                    let max = M::__VERSION_MAX;
                    let why = if version == max {
                        format!(
                            "the expected version {version} is the largest `{attribute}` holds, \
                             so the update could not increase it"
                        )
                    } else {
                        format!(
                            "the expected version {version} is above {max}, the largest \
                             `{attribute}` holds, so no stored item can have it"
                        )
                    };
                    return Err(fail(Error::validation(why).with_attribute(attribute)));
                }
                checks.version = Some(AttributeValue::N(version.to_string()))
            }
            (Some(attribute), None, true) => {
                // Whatever the stored version is, it must be below the maximum.
                self.condition.push_expr(Expr::Or(vec![
                    Expr::NotExists(attribute),
                    Expr::Compare(
                        attribute,
                        Comparison::Lt,
                        AttributeValue::N(M::__VERSION_MAX.to_string()),
                    ),
                ]));
            }
            (Some(attribute), None, false) => {
                return Err(fail(
                    Error::validation(
                        "the model has a #[version]: call `.expect_version(v)` with the version you read, \
                         or `.ignore_version()` for an update that does not depend on it",
                    )
                    .with_attribute(attribute),
                ))
            }
            (None, Some(_), _) => {
                return Err(fail(Error::validation(
                    "the model has no #[version] attribute",
                )))
            }
            (None, None, _) => {}
        }
        let condition =
            write_request::condition(&M::SCHEMA, &checks, self.condition, &mut placeholders)
                .map_err(fail)?;
        let spec = WriteSpec {
            schema: &M::SCHEMA,
            operation: OPERATION,
            table: self.client.table_name::<M>(),
            kind: write_request::Update { key, expression },
            condition,
            placeholders,
            checks,
            report: self.report,
            guarded,
        };
        item::update_size::check(&spec)?;
        Ok(spec)
    }
}

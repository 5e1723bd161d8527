//! The typed update expression: a plain value of actions on model `M`, that an
//! `update` request, a transaction or a test can hold, reuse and render.
//!
//! ```
//! use dynorm::{Model, Update};
//!
//! #[derive(Model)]
//! struct Order { #[hash_key] id: String, total: f64, visits: u32, note: Option<String> }
//!
//! let paid: Update<Order> = Update::new()
//!     .set(Order::TOTAL, 99.5)
//!     .increment(Order::VISITS, 1)
//!     .remove(Order::NOTE);
//! assert_eq!(paid.attributes().collect::<Vec<_>>(), ["total", "visits", "note"]);
//! ```

use std::collections::{BTreeSet, HashSet};
use std::marker::PhantomData;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};
use crate::expr::attr::{Attr, Operand, Optional, Updatable};
use crate::expr::path::{Inner, MAX_STEPS};
use crate::expr::placeholders::{Placeholders, EXPRESSION_CAPACITY};
use crate::schema::convention::{toolbox_now, TOOLBOX_CREATED, TOOLBOX_MODIFIED};
use crate::schema::{Convention, Entity, Model, Schema};
use crate::value::{AttrValue, Item};

mod action;
mod keys;
mod state;

use action::{Action, ListEnd, Sign, CLAUSE_KEYWORDS};
pub(crate) use keys::Stored;
use keys::{After, Managed};
pub use state::Update;

/// A number an update can add to: every integer and float type. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a number, so nothing can add to it",
    label = "an integer or float attribute is needed here"
)]
pub trait Numeric: AttrValue + sealed::Sealed {}

/// A set an update can add elements to or delete them from. Sealed.
pub trait SetLike: sealed::Sealed {}

mod sealed {
    pub trait Sealed {}
}

macro_rules! numeric {
    ($($ty:ty),*) => {$(impl sealed::Sealed for $ty {} impl Numeric for $ty {})*};
}

numeric!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64);

/// A map keyed by text, whose entries an update writes one at a time
/// ([`Update::set_entry`]): `HashMap<String, V>` and `BTreeMap<String, V>`.
pub trait TextMap: sealed::Sealed {
    /// The map's values.
    type Value: serde::Serialize;
}

impl<V: serde::Serialize, S> sealed::Sealed for std::collections::HashMap<String, V, S> {}
impl<V: serde::Serialize, S> TextMap for std::collections::HashMap<String, V, S> {
    type Value = V;
}
impl<V: serde::Serialize> sealed::Sealed for std::collections::BTreeMap<String, V> {}
impl<V: serde::Serialize> TextMap for std::collections::BTreeMap<String, V> {
    type Value = V;
}

impl<E, S> sealed::Sealed for HashSet<E, S> {}
impl<E, S> SetLike for HashSet<E, S> {}
impl<E> sealed::Sealed for BTreeSet<E> {}
impl<E> SetLike for BTreeSet<E> {}
impl sealed::Sealed for crate::value::StringSet {}
impl SetLike for crate::value::StringSet {}

impl<M: Model> Default for Update<M> {
    fn default() -> Self {
        Self::new()
    }
}

impl<M: Model> Update<M> {
    /// An update with no actions yet.
    pub fn new() -> Self {
        Self {
            actions: Vec::new(),
            nested: Vec::new(),
            errors: Vec::new(),
            model: PhantomData,
        }
    }

    /// Whether the caller gave no action.
    pub fn is_empty(&self) -> bool {
        self.actions.is_empty() && self.nested.is_empty()
    }

    /// The attributes the caller's actions write (or write a path inside), in order.
    pub fn attributes(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.actions
            .iter()
            .map(|(name, _)| *name)
            .chain(self.nested.iter().map(|(name, _, _)| *name))
    }

    /// Adds every action of `other`, with the same checks.
    pub fn merge(mut self, other: Update<M>) -> Self {
        self.errors.extend(other.errors);
        for (name, action) in other.actions {
            self = self.push(name, Ok(action));
        }
        for (name, inner, action) in other.nested {
            self = self.push_inside(name, inner, Ok(action));
        }
        self
    }

    /// Records an action on the attribute or the path inside it that `attr` stands for.
    fn push_at<T, O, W>(self, attr: &Attr<M, T, O, W>, action: Result<Action>) -> Self {
        let steps = attr.steps();
        if steps.is_empty() && !steps.too_deep() {
            return self.push(attr.name(), action);
        }
        self.push_inside(attr.name(), Inner::of(steps), action)
    }

    /// Records an action on a path inside `name`, refusing what DynamoDB or the model's
    /// invariants refuse: a path too deep, set elements added or deleted (a set inside an
    /// attribute is stored as a list), an attribute a key, a built field, a constraint or a
    /// transform reads whole, and paths that overlap another action's.
    fn push_inside(mut self, name: &'static str, inner: Inner, action: Result<Action>) -> Self {
        let schema = &M::SCHEMA;
        let path = inner.describe(name);
        let refuse = |message: String| {
            Error::validation(message)
                .with_model(schema.model)
                .with_attribute(name)
        };
        let problem = if inner.steps.too_deep() {
            Some(refuse(format!(
                "a path goes at most {MAX_STEPS} steps inside an attribute: `{path}..` goes further"
            )))
        } else if matches!(&action, Ok(Action::Add(v) | Action::DeleteFromSet(v)) if !is_set(v)) {
            Some(refuse(format!(
                "inside an attribute values are in serde's form, where a set is a list, and DynamoDB adds and deletes elements only in a set; `set` the path `{path}` instead, or store it as a `StringSet`"
            )))
        } else if let Some(why) = schema.read_whole(name) {
            Some(refuse(format!(
                "`{path}` is inside `{name}`, {why}, so an update writes `{name}` whole"
            )))
        } else if self.actions.iter().any(|(t, _)| *t == name) {
            Some(refuse(format!(
                "`{path}` is inside `{name}`, which the update also writes"
            )))
        } else if let Some((_, other, _)) = self
            .nested
            .iter()
            .find(|(t, other, _)| *t == name && other.overlaps(&inner))
        {
            Some(refuse(format!(
                "`{path}` and `{}` overlap: DynamoDB refuses two actions on one document path",
                other.describe(name)
            )))
        } else {
            None
        };
        match (problem, action) {
            (Some(error), _) => self.errors.push(error),
            (None, Err(error)) if error.attribute().is_none() => {
                self.errors.push(error.with_attribute(name))
            }
            (None, Err(error)) => self.errors.push(error),
            (None, Ok(action)) => self.nested.push((name, inner, action)),
        }
        self
    }

    /// Records an action, refusing table keys and dynorm-managed attributes.
    fn push(mut self, name: &'static str, action: Result<Action>) -> Self {
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
                "`{name}` is built from other attributes (#[combine] or `watch`); update its sources instead"
            )))
        } else if schema.transformed.contains(&name)
            && !matches!(action, Ok(Action::Set(_) | Action::SetIfNotExists(_)))
        {
            Some(refuse(format!(
                "`{name}` is stored through its #[dynorm(set)] transform, so an update can only `set` it: an amount or elements added would be stored untransformed, and the transform decides what an absent value stores (write the item whole to store it)"
            )))
        } else if self.actions.iter().any(|(t, _)| *t == name) {
            Some(refuse(format!("`{name}` is updated twice in one request")))
        } else if self.touches_inside(name) {
            Some(refuse(format!(
                "`{name}` is updated whole and at a path inside it in one request"
            )))
        } else {
            empty_index_key(schema, name, &action).map(|index| {
                refuse(format!(
                    "`{name}` is a key of index `{index}`, and a key value cannot be empty; \
                     `remove` it (for an `Option` field) to take the item out of the index"
                ))
            })
        };
        match (problem, action) {
            (Some(error), _) => self.errors.push(error),
            (None, Err(error)) if error.attribute().is_none() => {
                self.errors.push(error.with_attribute(name))
            }
            (None, Err(error)) => self.errors.push(error),
            (None, Ok(action)) => self.actions.push((name, action)),
        }
        self
    }

    /// `SET attribute = value`. An empty set is stored as no attribute, so setting one
    /// is `REMOVE attribute`.
    pub fn set<T, O, W: Updatable>(self, attr: Attr<M, T, O, W>, value: impl Operand<T>) -> Self {
        let action = attr
            .value_or_omitted(&value.into_operand())
            .map(|value| match value {
                Some(value) => Action::Set(value),
                None => Action::Remove,
            });
        self.push_at(&attr, action)
    }

    /// `SET attribute = if_not_exists(attribute, value)`: sets it only when it is absent.
    pub fn set_if_not_exists<T, O, W: Updatable>(
        self,
        attr: Attr<M, T, O, W>,
        value: impl Operand<T>,
    ) -> Self {
        let action = attr
            .value(&value.into_operand())
            .map(Action::SetIfNotExists);
        self.push_at(&attr, action)
    }

    /// `REMOVE attribute`: only for `Option` fields, since a required field must stay, and
    /// for paths inside an attribute (a path to a field its type requires leaves an item
    /// that does not read back: remove the optional ones).
    pub fn remove<T, W: Updatable>(self, attr: Attr<M, T, Optional, W>) -> Self {
        self.push_at(&attr, Ok(Action::Remove))
    }

    /// `SET attribute = attribute + by`, from 0 when absent.
    pub fn increment<T: Numeric, O, W: Updatable>(self, attr: Attr<M, T, O, W>, by: T) -> Self {
        let action = attr.value(&by).map(|v| Action::Arithmetic(Sign::Plus, v));
        self.push_at(&attr, action)
    }

    /// `SET attribute = attribute - by`, from 0 when absent.
    pub fn decrement<T: Numeric, O, W: Updatable>(self, attr: Attr<M, T, O, W>, by: T) -> Self {
        let action = attr.value(&by).map(|v| Action::Arithmetic(Sign::Minus, v));
        self.push_at(&attr, action)
    }

    /// `SET attribute = attribute + other`: adds the stored value of another numeric
    /// attribute of the item, or of a path inside one (ElectroDB's
    /// `add(fees, name(petFee))`). DynamoDB refuses the update when the item lacks either
    /// ([`ErrorKind::Validation`](crate::ErrorKind)), so an upsert refuses it before
    /// sending; an attribute stored through a `set` transform is refused as `other`.
    pub fn increment_by_attribute<T: Numeric, O, W: Updatable, P, V>(
        self,
        attr: Attr<M, T, O, W>,
        other: Attr<M, T, P, V>,
    ) -> Self {
        let action = relative(Sign::Plus, &other);
        self.push_at(&attr, action)
    }

    /// `SET attribute = attribute - other`: subtracts the stored value of another numeric
    /// attribute of the item, as [`increment_by_attribute`](Self::increment_by_attribute)
    /// adds it.
    pub fn decrement_by_attribute<T: Numeric, O, W: Updatable, P, V>(
        self,
        attr: Attr<M, T, O, W>,
        other: Attr<M, T, P, V>,
    ) -> Self {
        let action = relative(Sign::Minus, &other);
        self.push_at(&attr, action)
    }

    /// Appends to a list.
    pub fn append<E, O, W: Updatable>(self, attr: Attr<M, Vec<E>, O, W>, items: Vec<E>) -> Self {
        let action = attr
            .value(&items)
            .map(|v| Action::ListAppend(ListEnd::Back, v));
        self.push_at(&attr, action)
    }

    /// Prepends to a list.
    pub fn prepend<E, O, W: Updatable>(self, attr: Attr<M, Vec<E>, O, W>, items: Vec<E>) -> Self {
        let action = attr
            .value(&items)
            .map(|v| Action::ListAppend(ListEnd::Front, v));
        self.push_at(&attr, action)
    }

    /// `ADD attribute elements`: adds elements to a set. Adding no elements is refused,
    /// since DynamoDB has no empty set.
    pub fn add_to_set<T: SetLike, O, W: Updatable>(
        self,
        attr: Attr<M, T, O, W>,
        elements: T,
    ) -> Self {
        let action = set_elements(&attr, &elements, "add_to_set").map(Action::Add);
        self.push_at(&attr, action)
    }

    /// `DELETE attribute elements`: deletes elements from a set. Deleting no elements is
    /// refused, since DynamoDB has no empty set.
    pub fn delete_from_set<T: SetLike, O, W: Updatable>(
        self,
        attr: Attr<M, T, O, W>,
        elements: T,
    ) -> Self {
        let action = set_elements(&attr, &elements, "delete_from_set").map(Action::DeleteFromSet);
        self.push_at(&attr, action)
    }

    /// `SET attribute.key = value`: the entry under `key`, a key chosen at run time (a
    /// user's id), of a map field keyed by text, with its value in serde's form as the
    /// map stores it. The item must hold the map: DynamoDB refuses a path into an absent
    /// one (an upsert refuses it before sending).
    pub fn set_entry<K: TextMap, O, W: Updatable>(
        self,
        attr: Attr<M, K, O, W>,
        key: impl Into<String>,
        value: K::Value,
    ) -> Self {
        let action = attr.entry_value(&value).map(|value| match value {
            Some(value) => Action::Set(value),
            None => Action::Remove,
        });
        self.push_entry(&attr, key.into(), action)
    }

    /// `REMOVE attribute.key`: removes the entry under `key`, a key chosen at run time, of
    /// a map field keyed by text.
    pub fn remove_entry<K: TextMap, O, W: Updatable>(
        self,
        attr: Attr<M, K, O, W>,
        key: impl Into<String>,
    ) -> Self {
        self.push_entry(&attr, key.into(), Ok(Action::Remove))
    }

    /// Records an action on the entry under `key` of the map `attr` stands for.
    fn push_entry<T, O, W>(
        self,
        attr: &Attr<M, T, O, W>,
        key: String,
        action: Result<Action>,
    ) -> Self {
        let inner = Inner {
            steps: attr.steps(),
            entry: Some(key),
        };
        self.push_inside(attr.name(), inner, action)
    }

    /// The attributes the caller's actions write, or write a path inside.
    pub(crate) fn touched(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.attributes()
    }

    /// The actions dynorm adds to the caller's: rebuilt `#[combine]` attributes and template
    /// keys, the entity name, `default`s on an upsert, the `updated_at` time and the
    /// `#[version]` increment.
    fn managed_actions(&self, after: &After<'_, M>) -> Result<Vec<(&'static str, Action)>> {
        let schema = after.schema;
        let upsert = after.upsert;
        let mut out = after.rebuilt()?;
        // A built field that keys an index is refused empty, as a caller's value is.
        for (attribute, action) in &out {
            if let Some(index) = empty_index_key(schema, attribute, &Ok(action.clone())) {
                return Err(Error::validation(format!(
                    "`{attribute}` is a key of index `{index}`, and the value the update builds for it is empty"
                ))
                .with_attribute(*attribute));
            }
        }
        if let Some(entity) = schema.entity {
            out.extend(identity_actions(&entity));
            if upsert {
                // The fields a template key is rendered from are stored attributes too.
                for (name, value) in after.stored.fixed {
                    let Some(attribute) = schema.attributes.iter().find(|a| **a == name) else {
                        continue;
                    };
                    if !schema.is_table_key(attribute) && !self.touches(attribute) {
                        out.push((attribute, Action::SetIfNotExists(value.clone())));
                    }
                }
            }
        }
        if let (true, Some(shape)) = (upsert, schema.shape) {
            // An item the upsert creates is of the current shape (the condition refuses
            // an item of an earlier one).
            out.push((
                shape.attribute,
                Action::SetIfNotExists(AttributeValue::N(shape.current.to_string())),
            ));
        }
        for (attribute, value) in &after.managed.defaults {
            out.push((attribute, Action::SetIfNotExists(value.clone())));
        }
        if let Some((attribute, value)) = &after.managed.updated_at {
            out.push((attribute, Action::Set(value.clone())));
        }
        if let Some(version) = schema.version {
            out.push((
                version,
                Action::Arithmetic(Sign::Plus, AttributeValue::N("1".into())),
            ));
        }
        if schema.update_marks_counted(self.touched(), upsert) {
            out.push((
                crate::schema::count::COUNTED,
                Action::Set(crate::schema::count::marker(schema.counts)),
            ));
        }
        Ok(out)
    }

    /// Refuses values named with `composite` that say nothing of the stored item: an
    /// attribute the update writes, `updated_at` (dynorm sets it), one named twice.
    fn check_named(&self, stored: &Stored) -> Result<()> {
        for (i, (name, _)) in stored.composite.iter().enumerate() {
            let refuse = |why: String| Err(Error::validation(why).with_attribute(*name));
            if self.touches(name) {
                return refuse(format!(
                    "`{name}` is both written by the update and named with `composite`; a composite value names what the item holds, for an attribute the update leaves alone"
                ));
            }
            if M::SCHEMA.updated_at.is_some_and(|u| u.attribute == *name) {
                return refuse(format!(
                    "`{name}` is the `updated_at` attribute, which dynorm sets to now on every write; it need not be named with `composite`"
                ));
            }
            if stored.composite[..i].iter().any(|(n, _)| n == name) {
                return refuse(format!("`{name}` is named twice with `composite`"));
            }
        }
        Ok(())
    }

    /// What the update knows of the item it leaves.
    fn after<'a>(
        &'a self,
        stored: &'a Stored<'a>,
        managed: &'a Managed,
        upsert: bool,
    ) -> After<'a, M> {
        After {
            update: self,
            stored,
            managed,
            schema: &M::SCHEMA,
            upsert,
        }
    }

    /// The sources of keys the update must rebuild that it neither writes nor knows: what
    /// `read_composite` reads from the stored item. Empty when the update can be rendered
    /// as it is (or is refused for another reason, which `render` gives).
    pub(crate) fn missing_sources(
        &self,
        stored: &Stored,
        upsert: bool,
    ) -> Result<Vec<&'static str>> {
        if !self.errors.is_empty() || self.is_empty() {
            return Ok(Vec::new());
        }
        self.check_named(stored)?;
        if upsert {
            self.check_no_path()?;
        }
        let managed = Managed::new(self, &M::SCHEMA, stored, upsert)?;
        self.after(stored, &managed, upsert).missing()
    }

    /// Refuses a path in an upsert: a new item has no map or list to write into.
    fn check_no_path(&self) -> Result<()> {
        match self.nested.first() {
            Some((name, inner, _)) => Err(Error::validation(format!(
                "an upsert may create the item, and `{}` is a path inside `{name}`, which a new item does not have; set `{name}` whole",
                inner.describe(name)
            ))
            .with_attribute(*name)),
            None => Ok(()),
        }
    }

    /// Refuses an upsert whose item, were it created by this update, would not read back
    /// as the model: a required attribute it does not set, or a value the field cannot
    /// hold (a decrement of an absent unsigned number). The item it would create is the
    /// fixed key attributes with every action applied to nothing, decoded as the model.
    fn check_creatable(&self, fixed: &Item, managed: &[(&'static str, Action)]) -> Result<()> {
        let mut created = fixed.clone();
        for (name, action) in self.actions.iter().chain(managed) {
            let value = match action {
                Action::Set(v)
                | Action::SetIfNotExists(v)
                | Action::Add(v)
                | Action::ListAppend(_, v)
                | Action::Arithmetic(Sign::Plus, v) => Some(v.clone()),
                Action::Arithmetic(Sign::Minus, AttributeValue::N(n)) => {
                    let negated = match n.strip_prefix('-') {
                        Some(positive) => positive.to_owned(),
                        None => format!("-{n}"),
                    };
                    Some(AttributeValue::N(negated))
                }
                Action::Arithmetic(Sign::Minus, v) => Some(v.clone()),
                Action::Remove | Action::DeleteFromSet(_) => None,
                Action::Relative(_, other, steps) => {
                    return Err(Error::validation(format!(
                        "an upsert may create the item, and `{name}` is computed from `{}`, which a new item does not have",
                        steps.describe(other)
                    ))
                    .with_attribute(*name));
                }
            };
            match value {
                Some(value) => created.insert((*name).to_owned(), value),
                None => created.remove(*name),
            };
        }
        crate::schema::template_parse::render_own_keys(&M::SCHEMA, &mut created)?;
        match M::from_item(created) {
            Ok(_) => Ok(()),
            Err(error) => {
                let mut refusal = Error::validation(format!(
                    "an upsert creates the item when it is absent, and the item this one would \
                     create does not read as `{}`: {}; set every required attribute (or make \
                     the field an `Option` or give it a default)",
                    M::SCHEMA.model,
                    error.message()
                ));
                if let Some(attribute) = error.attribute() {
                    refusal = refusal.with_attribute(attribute.to_owned());
                }
                Err(refusal)
            }
        }
    }

    /// What the update does to the attributes other items depend on (the values of unique
    /// constraints, the fields that name a counted parent): each one it sets, with the
    /// value, or removes (`None`). Any other action on such an attribute is refused, since
    /// its new value would not be known before sending.
    pub(crate) fn companion_touches(
        &self,
        upsert: bool,
    ) -> Result<Vec<(&'static str, Option<AttributeValue>)>> {
        let unique = |name: &str| M::SCHEMA.companion_sources().any(|s| s == name);
        let mut out = Vec::new();
        if M::SCHEMA.update_marks_counted(self.touched(), upsert) {
            out.push((
                crate::schema::count::COUNTED,
                Some(crate::schema::count::marker(M::SCHEMA.counts)),
            ));
        }
        for (name, action) in &self.actions {
            if !unique(name) {
                continue;
            }
            match action {
                Action::Set(value) => out.push((*name, Some(value.clone()))),
                Action::Remove => out.push((*name, None)),
                _ => {
                    return Err(Error::validation(format!(
                        "`{name}` is part of a unique constraint or names a counted parent, so an update can only set it to a value or remove it"
                    ))
                    .with_attribute(*name))
                }
            }
        }
        Ok(out)
    }

    /// The update expression text with its placeholders, the caller's actions first, then
    /// the ones dynorm manages. Every error found while building it comes first.
    /// `stored` is what the update knows of the stored item: the attributes the table key
    /// is made of, which never change, and the values named with `composite`.
    pub(crate) fn render(
        &self,
        placeholders: &mut Placeholders,
        stored: &Stored,
        upsert: bool,
    ) -> Result<String> {
        if let Some(error) = self.errors.first() {
            return Err(error.clone());
        }
        if self.is_empty() {
            return Err(Error::validation("an update needs at least one action"));
        }
        self.check_named(stored)?;
        let generated = Managed::new(self, &M::SCHEMA, stored, upsert)?;
        let managed = self.managed_actions(&self.after(stored, &generated, upsert))?;
        if upsert {
            self.check_no_path()?;
            self.check_creatable(stored.fixed, &managed)?;
        }
        // One text per clause, in clause order; placeholders are numbered in action order.
        let mut clauses: [String; 4] = Default::default();
        let whole = self
            .actions
            .iter()
            .map(|(name, action)| (*name, None, action));
        let inside = self
            .nested
            .iter()
            .map(|(name, inner, action)| (*name, Some(inner), action));
        let managed_actions = managed.iter().map(|(name, action)| (*name, None, action));
        for (name, inner, action) in whole.chain(inside).chain(managed_actions) {
            let target = match inner {
                Some(inner) => {
                    let path = placeholders.path(name, &inner.steps);
                    match &inner.entry {
                        Some(key) => placeholders.entry(&path, key),
                        None => path,
                    }
                }
                None => format!("#n{}", placeholders.name(name)),
            };
            let clause = action.clause();
            let text = &mut clauses[clause as usize];
            if text.is_empty() {
                text.reserve(EXPRESSION_CAPACITY);
                text.push_str(CLAUSE_KEYWORDS[clause as usize]);
                text.push(' ');
            } else {
                text.push_str(", ");
            }
            action.write(&target, placeholders, text);
        }
        let mut used = clauses.into_iter().filter(|text| !text.is_empty());
        let mut expression = used.next().unwrap_or_default();
        for text in used {
            expression.push(' ');
            expression.push_str(&text);
        }
        Ok(expression)
    }
}

/// `± other` of `increment_by_attribute`: refused when `other` is stored through a `set`
/// transform, whose stored value is not the field's number.
fn relative<M: Model, T, O, W>(sign: Sign, other: &Attr<M, T, O, W>) -> Result<Action> {
    if M::SCHEMA.transformed.contains(&other.name()) {
        return Err(Error::validation(format!(
            "`{}` is stored through its #[dynorm(set)] transform, so its stored value is not the number an update adds",
            other.name()
        ))
        .with_model(M::SCHEMA.model));
    }
    Ok(Action::Relative(sign, other.name(), other.steps()))
}

/// Whether a value is a DynamoDB set: a [`StringSet`](crate::StringSet) inside an
/// attribute is one, serde's form of any other set a list.
fn is_set(value: &AttributeValue) -> bool {
    matches!(
        value,
        AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_)
    )
}

/// Whether a value is a DynamoDB set without elements.
fn is_empty_set(value: &AttributeValue) -> bool {
    match value {
        AttributeValue::Ss(elements) => elements.is_empty(),
        AttributeValue::Ns(elements) => elements.is_empty(),
        AttributeValue::Bs(elements) => elements.is_empty(),
        _ => false,
    }
}

/// The elements of a set to add or delete: DynamoDB has no empty set, so none is refused.
fn set_elements<M, T: SetLike, O, W>(
    attr: &Attr<M, T, O, W>,
    elements: &T,
    method: &str,
) -> Result<AttributeValue> {
    // A `StringSet` inside an attribute encodes an empty set as one, which DynamoDB refuses.
    attr.value_or_omitted(elements)?
        .filter(|value| !is_empty_set(value))
        .ok_or_else(|| Error::validation(format!("`{method}` needs at least one element")))
}

/// What an update sets to keep the item's identity, as the convention's own library does:
/// the entity name (and ElectroDB's version) on every update; under DynamoDB-Toolbox's
/// convention, the name and creation time only where absent, and the modification time.
fn identity_actions(entity: &Entity) -> Vec<(&'static str, Action)> {
    let name = AttributeValue::S(entity.name.to_owned());
    let mut out = Vec::with_capacity(3);
    match entity.convention {
        Convention::Toolbox { timestamps } => {
            out.push((entity.attribute, Action::SetIfNotExists(name)));
            if timestamps {
                let now = toolbox_now();
                out.push((TOOLBOX_CREATED, Action::SetIfNotExists(now.clone())));
                out.push((TOOLBOX_MODIFIED, Action::Set(now)));
            }
        }
        _ => {
            out.push((entity.attribute, Action::Set(name)));
            if let Some((attribute, version)) = entity.convention.version() {
                out.push((
                    attribute,
                    Action::Set(AttributeValue::S(version.to_owned())),
                ));
            }
        }
    }
    out
}

/// The index of which `attribute` is a key, when the action sets it to an empty string
/// or binary, which DynamoDB refuses for a key.
fn empty_index_key(
    schema: &Schema,
    attribute: &str,
    action: &Result<Action>,
) -> Option<&'static str> {
    let empty = match action {
        Ok(Action::Set(AttributeValue::S(s)) | Action::SetIfNotExists(AttributeValue::S(s))) => {
            s.is_empty()
        }
        Ok(Action::Set(AttributeValue::B(b)) | Action::SetIfNotExists(AttributeValue::B(b))) => {
            b.as_ref().is_empty()
        }
        _ => false,
    };
    if !empty {
        return None;
    }
    schema
        .indexes
        .iter()
        .find(|index| index.has_key(attribute))
        .map(|index| index.name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Model;

    #[derive(Model)]
    #[dynorm(rename_all = "camelCase")]
    struct Order {
        #[hash_key]
        id: String,
        total: f64,
        visits: u32,
        note: Option<String>,
        tags: Vec<String>,
        #[version]
        version: u64,
    }

    /// Nothing known of the stored item.
    fn nothing_stored() -> Stored<'static> {
        static EMPTY: std::sync::OnceLock<Item> = std::sync::OnceLock::new();
        Stored {
            fixed: EMPTY.get_or_init(Item::new),
            composite: &[],
            version: None,
        }
    }

    #[test]
    fn renders_every_clause_with_placeholders_and_the_version() {
        let update = Update::<Order>::new()
            .set(Order::TOTAL, 9.5)
            .increment(Order::VISITS, 2)
            .remove(Order::NOTE)
            .append(Order::TAGS, vec!["a".into()]);
        let mut placeholders = Placeholders::default();
        let text = update
            .render(&mut placeholders, &nothing_stored(), false)
            .unwrap();
        assert_eq!(
            text,
            "SET #n0 = :v0, #n1 = if_not_exists(#n1, :v1) + :v2, #n3 = list_append(if_not_exists(#n3, :v3), :v4), \
             #n4 = if_not_exists(#n4, :v5) + :v6 REMOVE #n2"
        );
        assert_eq!(placeholders.names["#n4"], "version");
    }

    #[test]
    fn refuses_keys_the_version_and_repeats_before_sending() {
        let twice = Update::<Order>::new()
            .set(Order::TOTAL, 1.0)
            .set(Order::TOTAL, 2.0);
        let error = twice
            .render(&mut Placeholders::default(), &nothing_stored(), false)
            .unwrap_err();
        assert!(error.message().contains("twice"), "{error}");
        let empty = Update::<Order>::new();
        assert!(empty
            .render(&mut Placeholders::default(), &nothing_stored(), false)
            .is_err());
        let nan = Update::<Order>::new().set(Order::TOTAL, f64::NAN);
        assert!(nan
            .render(&mut Placeholders::default(), &nothing_stored(), false)
            .is_err());
    }

    #[test]
    fn merged_updates_keep_their_checks() {
        let a = Update::<Order>::new().set(Order::TOTAL, 1.0);
        let b = Update::<Order>::new().set(Order::TOTAL, 2.0);
        assert_eq!(
            a.clone()
                .merge(b)
                .render(&mut Placeholders::default(), &nothing_stored(), false)
                .unwrap_err()
                .attribute(),
            Some("total")
        );
        assert_eq!(a.attributes().count(), 1);
    }
}

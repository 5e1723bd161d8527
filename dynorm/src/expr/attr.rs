//! Typed attribute handles: `Order::STATUS`, and the conditions they build.

use std::marker::PhantomData;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;

use crate::error::Error;
use crate::expr::condition::{AttributeType, Comparison, Condition, Expr};
use crate::expr::path::{Step, Steps, MAX_STEPS};
use crate::value::{limits, AttrError};

/// The encoder of one field's values, in the field's storage.
pub(crate) type Encoder<T> = fn(&T) -> Result<Option<AttributeValue>, AttrError>;

/// Marks an [`Attr`] of a required (non-`Option`) field.
#[derive(Clone, Copy, Debug)]
pub enum Required {}

/// Marks an [`Attr`] of an `Option` field: only these can be removed by an update.
#[derive(Clone, Copy, Debug)]
pub enum Optional {}

/// The type-level facts an [`Attr`] carries, without owning any of them.
type Markers<M, O, W> = fn() -> (M, O, W);

/// Marks an [`Attr`] that updates can write.
#[derive(Clone, Copy, Debug)]
pub enum Writable {}

/// Marks an [`Attr`] that updates cannot write: `#[dynorm(read_only)]` fields, fields
/// built from others (`#[combine]`, `watch`), the fields a single-table key is built from,
/// and the paths inside them.
#[derive(Clone, Copy, Debug)]
pub enum ReadOnly {}

/// The writability of an [`Attr`] that updates accept: only [`Writable`]. Sealed.
#[diagnostic::on_unimplemented(
    message = "this attribute is read-only: no update can write it",
    label = "a read-only attribute",
    note = "`#[dynorm(read_only)]` fields, fields built from others (`#[combine]`, `watch`), the fields a single-table key is built from, and the paths inside them (`field`, `at`) are read-only"
)]
pub trait Updatable: sealed::Sealed {}

impl sealed::Sealed for Writable {}
impl Updatable for Writable {}

/// A typed handle on one attribute of model `M`, whose present values have type `T`.
/// `O` is [`Optional`] for an `Option` field and [`Required`] otherwise; `W` is
/// [`ReadOnly`] for a field no update may write, and [`Writable`] otherwise.
///
/// The derive generates one per field, as an associated constant of the model named after
/// the field in upper case: `Order::TOTAL: Attr<Order, f64>`. For an `Option<T>` field, values are `T`.
pub struct Attr<M, T, O = Required, W = Writable> {
    name: &'static str,
    model: &'static str,
    encode: Encoder<T>,
    /// The path inside the attribute that the handle stands for (`field`, `at`).
    steps: Steps,
    marker: PhantomData<Markers<M, O, W>>,
}

/// A value that a typed attribute method takes for a field of type `T`: a `T` itself (an
/// integer literal included: `Message::SEQ.ge(90)` on a `u64` field), and for text and
/// bytes what a Rust user writes for them (`&str`, `&String`, `Cow<str>`, `&[u8]`), and
/// for an `Option` field its inner value.
///
/// Unlike `Into<T>`, it has one impl per target for numbers, so a literal takes the
/// field's type instead of defaulting to `i32`.
#[diagnostic::on_unimplemented(
    message = "this attribute holds `{T}`, and `{Self}` is not a value of it",
    label = "expected a `{T}`",
    note = "typed attribute methods take the field's type (an integer literal takes it too), `&str` for text and the inner value for an `Option` field"
)]
pub trait Operand<T> {
    /// The value, as the field's type.
    fn into_operand(self) -> T;
}

impl<T> Operand<T> for T {
    fn into_operand(self) -> T {
        self
    }
}

impl Operand<String> for &str {
    fn into_operand(self) -> String {
        self.to_owned()
    }
}

impl Operand<String> for &String {
    fn into_operand(self) -> String {
        self.clone()
    }
}

impl Operand<String> for std::borrow::Cow<'_, str> {
    fn into_operand(self) -> String {
        self.into_owned()
    }
}

impl<T> Operand<Option<T>> for T {
    fn into_operand(self) -> Option<T> {
        Some(self)
    }
}

impl Operand<Option<String>> for &str {
    fn into_operand(self) -> Option<String> {
        Some(self.to_owned())
    }
}

impl Operand<Vec<u8>> for &[u8] {
    fn into_operand(self) -> Vec<u8> {
        self.to_vec()
    }
}

impl<M, T, O, W> Clone for Attr<M, T, O, W> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<M, T, O, W> Copy for Attr<M, T, O, W> {}

impl<M, T, O, W> Attr<M, T, O, W> {
    /// A handle on attribute `name` of `model`, encoding values with `encode`.
    #[doc(hidden)]
    pub const fn new(model: &'static str, name: &'static str, encode: Encoder<T>) -> Self {
        Self {
            name,
            model,
            encode,
            steps: Steps::NONE,
            marker: PhantomData,
        }
    }

    /// The attribute's name in DynamoDB (for a path inside it, the attribute's).
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The value under map key `key` inside this attribute (a struct's field, as serde
    /// names it, or a map's key), of type `V`: `Animal::VETERINARIAN.field::<String>("name")`
    /// stands for `veterinarian.name`. Conditions and updates on it take values in serde's
    /// form, as the attribute stores what is inside it; an update can write it where it can
    /// write the attribute. At most 6 steps deep.
    pub const fn field<V: Serialize>(&self, key: &'static str) -> Attr<M, V, Optional, W> {
        self.step(Step::Key(key))
    }

    /// A handle on the path one step further, whose values are `V`s.
    const fn step<V: Serialize>(&self, step: Step) -> Attr<M, V, Optional, W> {
        Attr {
            name: self.name,
            model: self.model,
            encode: encode_nested::<V>,
            steps: self.steps.then(step),
            marker: PhantomData,
        }
    }

    /// Whether the handle stands for a path inside its attribute rather than the attribute.
    const fn is_nested(&self) -> bool {
        !self.steps.is_empty()
    }

    /// The path inside the attribute that the handle stands for (none for the attribute).
    pub(crate) const fn steps(&self) -> Steps {
        self.steps
    }

    /// The refusal of a path where only an attribute fits, or `None` for an attribute.
    pub(crate) fn refuse_nested(&self, operation: &str) -> Option<Error> {
        self.is_nested().then(|| {
            Error::validation(format!(
                "{operation} takes an attribute, not the path `{}` inside one",
                self.steps.describe(self.name)
            ))
            .with_model(self.model)
            .with_attribute(self.name)
        })
    }

    /// A condition on this attribute or the path inside it that the handle stands for.
    fn condition(&self, expr: Expr, mut errors: Vec<Error>) -> Condition<M> {
        if self.steps.is_empty() {
            return Condition::with_errors(expr, errors);
        }
        if self.steps.too_deep() {
            errors.push(
                Error::validation(format!(
                    "a path goes at most {MAX_STEPS} steps inside an attribute: `{}..` goes further",
                    self.steps.describe(self.name)
                ))
                .with_model(self.model)
                .with_attribute(self.name),
            );
        }
        Condition::with_errors(Expr::Inside(self.steps, Box::new(expr)), errors)
    }

    /// The same handle without its optionality and writability: what the derive's field
    /// table holds, by which a relation finds a related model's fields by their names.
    #[doc(hidden)]
    pub const fn __erase(&self) -> Attr<M, T> {
        Attr {
            name: self.name,
            model: self.model,
            encode: self.encode,
            steps: self.steps,
            marker: PhantomData,
        }
    }

    /// Encodes a value of the field in its storage.
    pub(crate) fn value(&self, value: &T) -> Result<AttributeValue, Error> {
        match self.value_or_omitted(value)? {
            Some(value) => Ok(value),
            None => Err(Error::validation("an empty set cannot be compared")
                .with_model(self.model)
                .with_attribute(self.name)),
        }
    }

    /// Encodes a value of the field in its storage, `None` for a value left out of an
    /// item (an empty set). Every number in it is checked against DynamoDB's limits.
    pub(crate) fn value_or_omitted(&self, value: &T) -> Result<Option<AttributeValue>, Error> {
        match (self.encode)(value) {
            Ok(Some(value)) => match limits::check_value(&value) {
                Ok(()) => Ok(Some(value)),
                Err(e) => Err(Error::validation(e.message().to_owned())
                    .with_model(self.model)
                    .with_attribute(e.render_path(self.name))),
            },
            Ok(None) => Ok(None),
            Err(e) => Err(Error::unstorable(self.model, self.name, e)),
        }
    }

    /// Encodes a value of one of the map's entries in serde's form, as the map stores it
    /// ([`Update::set_entry`](crate::Update::set_entry)).
    pub(crate) fn entry_value<V: Serialize>(
        &self,
        value: &V,
    ) -> Result<Option<AttributeValue>, Error> {
        let entry: Attr<M, V, Optional, W> = Attr {
            name: self.name,
            model: self.model,
            encode: encode_nested::<V>,
            steps: self.steps,
            marker: PhantomData,
        };
        entry.value_or_omitted(value)
    }

    fn leaf(&self, build: impl FnOnce(Vec<AttributeValue>) -> Expr, values: &[&T]) -> Condition<M> {
        let mut encoded = Vec::with_capacity(values.len());
        let mut errors = Vec::new();
        for value in values {
            match self.value(value) {
                Ok(v) => encoded.push(v),
                Err(e) => {
                    errors.push(e);
                    encoded.push(AttributeValue::Null(true));
                }
            }
        }
        self.condition(build(encoded), errors)
    }

    fn compare(&self, op: Comparison, value: impl Operand<T>) -> Condition<M> {
        let name = self.name;
        self.leaf(
            |mut v| Expr::Compare(name, op, v.remove(0)),
            &[&value.into_operand()],
        )
    }

    /// `attribute = value`
    pub fn eq(&self, value: impl Operand<T>) -> Condition<M> {
        self.compare(Comparison::Eq, value)
    }

    /// `attribute <> value`
    pub fn ne(&self, value: impl Operand<T>) -> Condition<M> {
        self.compare(Comparison::Ne, value)
    }

    /// `attribute < value`
    pub fn lt(&self, value: impl Operand<T>) -> Condition<M> {
        self.compare(Comparison::Lt, value)
    }

    /// `attribute <= value`
    pub fn le(&self, value: impl Operand<T>) -> Condition<M> {
        self.compare(Comparison::Le, value)
    }

    /// `attribute > value`
    pub fn gt(&self, value: impl Operand<T>) -> Condition<M> {
        self.compare(Comparison::Gt, value)
    }

    /// `attribute >= value`
    pub fn ge(&self, value: impl Operand<T>) -> Condition<M> {
        self.compare(Comparison::Ge, value)
    }

    /// `attribute BETWEEN low AND high`, both ends included.
    pub fn between(&self, low: impl Operand<T>, high: impl Operand<T>) -> Condition<M> {
        let name = self.name;
        self.leaf(
            |mut v| {
                let high = v.remove(1);
                Expr::Between(name, v.remove(0), high)
            },
            &[&low.into_operand(), &high.into_operand()],
        )
    }

    /// `attribute IN (values...)`: at most 100 values.
    pub fn is_in<I>(&self, values: I) -> Condition<M>
    where
        I: IntoIterator,
        I::Item: Operand<T>,
    {
        let name = self.name;
        let values: Vec<T> = values.into_iter().map(Operand::into_operand).collect();
        let refs: Vec<&T> = values.iter().collect();
        let mut condition = self.leaf(|v| Expr::In(name, v), &refs);
        if values.is_empty() || values.len() > 100 {
            condition.push_error(
                Error::validation(format!("IN takes 1 to 100 values, not {}", values.len()))
                    .with_model(self.model)
                    .with_attribute(self.name),
            );
        }
        condition
    }

    /// `attribute_exists(attribute)`
    pub fn exists(&self) -> Condition<M> {
        self.condition(Expr::Exists(self.name), Vec::new())
    }

    /// `attribute_not_exists(attribute)`
    pub fn not_exists(&self) -> Condition<M> {
        self.condition(Expr::NotExists(self.name), Vec::new())
    }

    /// `attribute_type(attribute, type)`
    pub fn is_type(&self, attribute_type: AttributeType) -> Condition<M> {
        self.condition(Expr::Type(self.name, attribute_type), Vec::new())
    }

    /// `size(attribute)`, to compare: `Order::LINES.size().gt(3)`.
    pub fn size(&self) -> Size<M> {
        Size { of: self.erased() }
    }

    /// The handle with its value type erased, for what only names it.
    const fn erased(&self) -> Attr<M, ()> {
        Attr {
            name: self.name,
            model: self.model,
            encode: encode_nothing,
            steps: self.steps,
            marker: PhantomData,
        }
    }
}

impl<M, O, W> Attr<M, String, O, W> {
    /// `begins_with(attribute, prefix)`
    pub fn begins_with(&self, prefix: impl Into<String>) -> Condition<M> {
        let prefix = AttributeValue::S(prefix.into());
        self.condition(Expr::BeginsWith(self.name, prefix), Vec::new())
    }

    /// `contains(attribute, substring)`
    pub fn contains(&self, substring: impl Into<String>) -> Condition<M> {
        let substring = AttributeValue::S(substring.into());
        self.condition(Expr::Contains(self.name, substring), Vec::new())
    }
}

impl<M, O, W> Attr<M, Vec<u8>, O, W> {
    /// `begins_with(attribute, prefix)` on binary.
    pub fn begins_with(&self, prefix: impl Into<Vec<u8>>) -> Condition<M> {
        let prefix = aws_sdk_dynamodb::primitives::Blob::new(prefix.into());
        self.condition(
            Expr::BeginsWith(self.name, AttributeValue::B(prefix)),
            Vec::new(),
        )
    }
}

/// Collections whose elements `contains` can look for. Sealed: implemented for `Vec`,
/// `HashSet` and `BTreeSet`.
pub trait Members: sealed::Sealed {
    /// The element type.
    type Element: Serialize;
}

impl<E> sealed::Sealed for Vec<E> {}
impl<E, S> sealed::Sealed for std::collections::HashSet<E, S> {}
impl<E> sealed::Sealed for std::collections::BTreeSet<E> {}

mod sealed {
    pub trait Sealed {}
}

impl<E: Serialize> Members for Vec<E> {
    type Element = E;
}

impl<E: Serialize, S> Members for std::collections::HashSet<E, S> {
    type Element = E;
}

impl<E: Serialize> Members for std::collections::BTreeSet<E> {
    type Element = E;
}

/// `has_key` on a map field keyed by text, written once for each map type.
macro_rules! map_keys {
    ($($map:ty => [$($generic:ident),*]),*) => {$(
        impl<M, V, $($generic,)* O, W> Attr<M, $map, O, W> {
            /// `attribute_exists(attribute.key)`: the map holds an entry under `key`, a
            /// key chosen at run time (a user's id), which goes through
            /// `ExpressionAttributeNames` as every name does. `!` negates it.
            pub fn has_key(&self, key: impl Into<String>) -> Condition<M> {
                let exists = Expr::Exists(self.name);
                self.condition(Expr::Entry(key.into(), Box::new(exists)), Vec::new())
            }
        }
    )*};
}

map_keys!(
    std::collections::HashMap<String, V, S> => [S],
    std::collections::BTreeMap<String, V> => []
);

impl<M, E, O, W> Attr<M, Vec<E>, O, W> {
    /// The element at `index` of this list, of type `E`:
    /// `Animal::OFFSPRING.at(0).field::<String>("name")` stands for `offspring[0].name`.
    /// As [`field`](Attr::field), conditions compare it in serde's form.
    pub const fn at(&self, index: u32) -> Attr<M, E, Optional, W>
    where
        E: Serialize,
    {
        self.step(Step::Index(index))
    }
}

/// Encodes a value inside an attribute as serde does: what is inside a struct or list
/// field is stored in serde's form.
fn encode_nested<V: Serialize>(value: &V) -> Result<Option<AttributeValue>, AttrError> {
    serde_dynamo::to_attribute_value::<_, AttributeValue>(value)
        .map(Some)
        .map_err(|e| AttrError::new(e.to_string()))
}

/// The encoder of a handle that only names its attribute.
fn encode_nothing(_: &()) -> Result<Option<AttributeValue>, AttrError> {
    Ok(None)
}

impl<M, C: Members, O, W> Attr<M, C, O, W> {
    /// `contains(attribute, element)`: the list or set holds `element`.
    pub fn has(&self, element: impl Into<C::Element>) -> Condition<M> {
        match serde_dynamo::to_attribute_value::<_, AttributeValue>(element.into()) {
            Ok(value) => self.condition(Expr::Contains(self.name, value), Vec::new()),
            Err(e) => self.condition(
                Expr::Contains(self.name, AttributeValue::Null(true)),
                vec![Error::unstorable(
                    self.model,
                    self.name,
                    AttrError::new(e.to_string()),
                )],
            ),
        }
    }
}

/// `size(attribute)`, waiting for its comparison.
pub struct Size<M> {
    of: Attr<M, ()>,
}

impl<M> Size<M> {
    fn compare(self, op: Comparison, n: u64) -> Condition<M> {
        self.of
            .condition(Expr::Size(self.of.name, op, n), Vec::new())
    }

    /// `size(attribute) = n`
    pub fn eq(self, n: u64) -> Condition<M> {
        self.compare(Comparison::Eq, n)
    }

    /// `size(attribute) <> n`
    pub fn ne(self, n: u64) -> Condition<M> {
        self.compare(Comparison::Ne, n)
    }

    /// `size(attribute) < n`
    pub fn lt(self, n: u64) -> Condition<M> {
        self.compare(Comparison::Lt, n)
    }

    /// `size(attribute) <= n`
    pub fn le(self, n: u64) -> Condition<M> {
        self.compare(Comparison::Le, n)
    }

    /// `size(attribute) > n`
    pub fn gt(self, n: u64) -> Condition<M> {
        self.compare(Comparison::Gt, n)
    }

    /// `size(attribute) >= n`
    pub fn ge(self, n: u64) -> Condition<M> {
        self.compare(Comparison::Ge, n)
    }
}

//! Conditions: the typed language shared by key conditions, filters and write conditions.
//!
//! The derive generates one [`Attr`](crate::Attr) constant per field on the model, named
//! after the field in upper case, such as `Order::STATUS`. Its methods build a
//! [`Condition`] whose values are typed by the field:
//!
//! ```
//! use dynorm::Model;
//!
//! #[derive(Model)]
//! struct Order {
//!     #[hash_key]
//!     customer_id: String,
//!     total: f64,
//!     note: Option<String>,
//! }
//!
//! let big_or_noted = Order::TOTAL.gt(100.0) | Order::NOTE.exists();
//! let unpaid = Order::CUSTOMER_ID.eq("c1") & !big_or_noted;
//! # let _ = unpaid;
//! ```

use std::marker::PhantomData;
use std::ops::{BitAnd, BitOr, Not};

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::Error;
use crate::expr::path::Steps;

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Comparison {
    /// `=`
    Eq,
    /// `<>`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Comparison {
    /// The operator as written in an expression.
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            Self::Eq => "=",
            Self::Ne => "<>",
            Self::Lt => "<",
            Self::Le => "<=",
            Self::Gt => ">",
            Self::Ge => ">=",
        }
    }
}

/// A DynamoDB attribute type, for `attribute_type(...)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AttributeType {
    /// String.
    S,
    /// Number.
    N,
    /// Binary.
    B,
    /// Boolean.
    Bool,
    /// Null.
    Null,
    /// List.
    L,
    /// Map.
    M,
    /// String set.
    Ss,
    /// Number set.
    Ns,
    /// Binary set.
    Bs,
}

impl AttributeType {
    /// The type's name in an expression.
    pub(crate) fn code(self) -> &'static str {
        match self {
            Self::S => "S",
            Self::N => "N",
            Self::B => "B",
            Self::Bool => "BOOL",
            Self::Null => "NULL",
            Self::L => "L",
            Self::M => "M",
            Self::Ss => "SS",
            Self::Ns => "NS",
            Self::Bs => "BS",
        }
    }
}

/// One node of a condition. Attribute names are kept as given; values are already encoded.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// `a <op> :v`
    Compare(&'static str, Comparison, AttributeValue),
    /// `a BETWEEN :lo AND :hi`
    Between(&'static str, AttributeValue, AttributeValue),
    /// `a IN (:v1, :v2, ...)`
    In(&'static str, Vec<AttributeValue>),
    /// `begins_with(a, :v)`
    BeginsWith(&'static str, AttributeValue),
    /// `contains(a, :v)`
    Contains(&'static str, AttributeValue),
    /// `attribute_exists(a)`
    Exists(&'static str),
    /// `attribute_not_exists(a)`
    NotExists(&'static str),
    /// `attribute_type(a, :t)`
    Type(&'static str, AttributeType),
    /// `size(a) <op> :n`
    Size(&'static str, Comparison, u64),
    /// `(x AND y AND ...)`
    And(Vec<Expr>),
    /// `(x OR y OR ...)`
    Or(Vec<Expr>),
    /// `(NOT x)`
    Not(Box<Expr>),
    /// The test `.1` (a leaf on a top-level attribute) on a path inside that attribute:
    /// `#a.#b[0] = :v` for the steps `.b[0]`.
    Inside(Steps, Box<Expr>),
    /// The test `.1` on a map's entry under a key chosen at run time: `#a.#k`
    /// (`Attr::has_key`, `Update::set_entry`).
    Entry(String, Box<Expr>),
}

impl Expr {
    /// The attribute a leaf node tests, if it is a leaf.
    pub(crate) fn attribute(&self) -> Option<&'static str> {
        match self {
            Self::Compare(a, ..)
            | Self::Between(a, ..)
            | Self::In(a, _)
            | Self::BeginsWith(a, _)
            | Self::Contains(a, _)
            | Self::Exists(a)
            | Self::NotExists(a)
            | Self::Type(a, _)
            | Self::Size(a, ..) => Some(a),
            // A path inside an attribute is never a key: it names no attribute of its own.
            Self::And(_) | Self::Or(_) | Self::Not(_) | Self::Inside(..) | Self::Entry(..) => None,
        }
    }

    /// Every attribute the tree tests, in order, with repeats.
    pub(crate) fn tested_attributes(&self) -> Vec<&'static str> {
        fn walk(expr: &Expr, out: &mut Vec<&'static str>) {
            match expr {
                Expr::And(parts) | Expr::Or(parts) => parts.iter().for_each(|p| walk(p, out)),
                Expr::Not(inner) | Expr::Inside(_, inner) | Expr::Entry(_, inner) => {
                    walk(inner, out)
                }
                leaf => out.extend(leaf.attribute()),
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out
    }

    /// Whether DynamoDB accepts this node on a range key in a key condition.
    pub(crate) fn is_range_key_condition(&self) -> bool {
        matches!(
            self,
            Self::Compare(_, op, _) if *op != Comparison::Ne
        ) || matches!(self, Self::Between(..) | Self::BeginsWith(..))
    }
}

/// How two conditions are joined.
#[derive(Clone, Copy)]
enum Connective {
    And,
    Or,
}

/// A condition on the attributes of model `M`.
///
/// Combine conditions with `&`, `|` and `!`, or [`and`](Self::and), [`or`](Self::or) and
/// [`not`](Self::not). A value that cannot be encoded (a NaN, say) is kept as an error and
/// reported before anything is sent.
pub struct Condition<M> {
    expr: Expr,
    errors: Vec<Error>,
    model: PhantomData<fn() -> M>,
}

impl<M> std::fmt::Debug for Condition<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Condition")
            .field("expr", &self.expr)
            .field("errors", &self.errors)
            .finish()
    }
}

impl<M> Condition<M> {
    /// A condition whose values raised `errors`, reported before anything is sent.
    pub(crate) fn with_errors(expr: Expr, errors: Vec<Error>) -> Self {
        Self {
            expr,
            errors,
            model: PhantomData,
        }
    }

    /// Records an error found while building the condition.
    pub(crate) fn push_error(&mut self, error: Error) {
        self.errors.push(error);
    }

    /// Joins two conditions with `connective`, flattening nested nodes of the same kind.
    fn join(self, other: Self, connective: Connective) -> Self {
        let mut errors = self.errors;
        errors.extend(other.errors);
        let mut parts = Vec::new();
        for expr in [self.expr, other.expr] {
            match (expr, connective) {
                (Expr::And(inner), Connective::And) | (Expr::Or(inner), Connective::Or) => {
                    parts.extend(inner)
                }
                (single, _) => parts.push(single),
            }
        }
        let expr = match connective {
            Connective::And => Expr::And(parts),
            Connective::Or => Expr::Or(parts),
        };
        Self {
            expr,
            errors,
            model: PhantomData,
        }
    }

    /// Both conditions hold.
    pub fn and(self, other: Self) -> Self {
        self.join(other, Connective::And)
    }

    /// Either condition holds.
    pub fn or(self, other: Self) -> Self {
        self.join(other, Connective::Or)
    }

    /// The condition does not hold.
    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Self {
        Self {
            expr: Expr::Not(Box::new(self.expr)),
            errors: self.errors,
            model: PhantomData,
        }
    }

    /// The top-level conjuncts: `a & b & c` gives `[a, b, c]`.
    pub(crate) fn into_conjuncts(self) -> (Vec<Expr>, Vec<Error>) {
        let parts = match self.expr {
            Expr::And(parts) => parts,
            other => vec![other],
        };
        (parts, self.errors)
    }
}

impl<M> BitAnd for Condition<M> {
    type Output = Self;
    fn bitand(self, other: Self) -> Self {
        self.and(other)
    }
}

impl<M> BitOr for Condition<M> {
    type Output = Self;
    fn bitor(self, other: Self) -> Self {
        self.or(other)
    }
}

impl<M> Not for Condition<M> {
    type Output = Self;
    fn not(self) -> Self {
        Condition::not(self)
    }
}

/// Conditions given one call at a time and joined with AND, with the errors their values
/// raised: what every builder that takes `.condition(..)` or `.filter(..)` holds.
#[derive(Clone, Debug, Default)]
pub(crate) struct Conjunction {
    parts: Vec<Expr>,
    errors: Vec<Error>,
}

impl Conjunction {
    /// Adds a condition's top-level conjuncts.
    pub(crate) fn push<M>(&mut self, condition: Condition<M>) {
        let (parts, errors) = condition.into_conjuncts();
        self.parts.extend(parts);
        self.errors.extend(errors);
    }

    /// Adds one node that dynorm itself places.
    pub(crate) fn push_expr(&mut self, expr: Expr) {
        self.parts.push(expr);
    }

    /// The first error a value raised, if any.
    pub(crate) fn first_error(&self) -> Option<&Error> {
        self.errors.first()
    }

    /// Adds every conjunct and error of `other`.
    pub(crate) fn extend(&mut self, other: Conjunction) {
        self.parts.extend(other.parts);
        self.errors.extend(other.errors);
    }

    /// The conjuncts, in the order given.
    pub(crate) fn parts(&self) -> &[Expr] {
        &self.parts
    }

    /// The conjuncts, or the first error a value raised.
    pub(crate) fn into_parts(self) -> Result<Vec<Expr>, Error> {
        match self.errors.into_iter().next() {
            Some(error) => Err(error),
            None => Ok(self.parts),
        }
    }
}

//! One action of an update (`SET`, `REMOVE`, `ADD` or `DELETE` on one attribute), with
//! its value already encoded, and its text in the update expression.

use std::fmt::Write as _;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::expr::path::Steps;
use crate::expr::placeholders::Placeholders;

/// Which end of a list `list_append` adds to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ListEnd {
    Front,
    Back,
}

/// `+` or `-` in `SET a = a + :v`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Sign {
    Plus,
    Minus,
}

impl Sign {
    fn operator(self) -> char {
        match self {
            Self::Plus => '+',
            Self::Minus => '-',
        }
    }
}

/// One action of an update, with its value already encoded in the field's storage.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Action {
    /// `SET a = :v`
    Set(AttributeValue),
    /// `SET a = if_not_exists(a, :v)`
    SetIfNotExists(AttributeValue),
    /// `REMOVE a`
    Remove,
    /// `ADD a :v`, for a number or a set.
    Add(AttributeValue),
    /// `SET a = if_not_exists(a, :0) ± :v`
    Arithmetic(Sign, AttributeValue),
    /// `SET a = a ± b`: another attribute of the item (or a path inside one), as stored.
    Relative(Sign, &'static str, Steps),
    /// `SET a = list_append(..)`, with the current list (or an empty one) at the other end.
    ListAppend(ListEnd, AttributeValue),
    /// `DELETE a :v`, elements from a set.
    DeleteFromSet(AttributeValue),
}

/// The keywords of the four clauses, in `Clause` order.
pub(super) const CLAUSE_KEYWORDS: [&str; 4] = ["SET", "REMOVE", "ADD", "DELETE"];

/// The update expression's four clauses.
#[derive(Clone, Copy)]
pub(super) enum Clause {
    Set,
    Remove,
    Add,
    Delete,
}

impl Action {
    pub(super) fn clause(&self) -> Clause {
        match self {
            Self::Set(_)
            | Self::SetIfNotExists(_)
            | Self::Arithmetic(..)
            | Self::Relative(..)
            | Self::ListAppend(..) => Clause::Set,
            Self::Remove => Clause::Remove,
            Self::Add(_) => Clause::Add,
            Self::DeleteFromSet(_) => Clause::Delete,
        }
    }

    /// Writes the action's text within its clause, with placeholders, into `out`: `target` is
    /// the attribute's placeholder (`#n0`), or a path inside it (`#n0.#n1[2]`).
    pub(super) fn write(&self, target: &str, placeholders: &mut Placeholders, out: &mut String) {
        match self {
            Self::Set(value) => {
                let value = placeholders.value(value.clone());
                let _ = write!(out, "{target} = :v{value}");
            }
            Self::SetIfNotExists(value) => {
                let value = placeholders.value(value.clone());
                let _ = write!(out, "{target} = if_not_exists({target}, :v{value})");
            }
            Self::Remove => out.push_str(target),
            Self::Add(value) | Self::DeleteFromSet(value) => {
                let value = placeholders.value(value.clone());
                let _ = write!(out, "{target} :v{value}");
            }
            Self::Arithmetic(sign, value) => {
                let zero = placeholders.value(AttributeValue::N("0".into()));
                let value = placeholders.value(value.clone());
                let _ = write!(
                    out,
                    "{target} = if_not_exists({target}, :v{zero}) {} :v{value}",
                    sign.operator()
                );
            }
            Self::Relative(sign, attribute, steps) => {
                let other = placeholders.path(attribute, steps);
                let _ = write!(out, "{target} = {target} {} {other}", sign.operator());
            }
            Self::ListAppend(end, value) => {
                let empty = placeholders.value(AttributeValue::L(Vec::new()));
                let value = placeholders.value(value.clone());
                let _ = match end {
                    ListEnd::Back => write!(
                        out,
                        "{target} = list_append(if_not_exists({target}, :v{empty}), :v{value})"
                    ),
                    ListEnd::Front => write!(
                        out,
                        "{target} = list_append(:v{value}, if_not_exists({target}, :v{empty}))"
                    ),
                };
            }
        }
    }
}

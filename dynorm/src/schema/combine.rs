//! Attributes built from others on every write: `#[combine]` joins its sources' text, and
//! a `#[dynorm(watch = [..], set = f)]` attribute is what `f` computes from its sources.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};
use crate::value::Item;

/// The stored value of a derived attribute, computed from an item holding its sources'
/// stored values; `None`: the item has no such attribute.
pub type Compute = fn(&Item) -> Result<Option<AttributeValue>>;

/// An attribute built from others: `#[combine(fields = [month, status], sep = "#")]`, or
/// `#[dynorm(watch = [issue], set = ticket)]`.
#[derive(Clone, Copy, Debug)]
pub struct Combine {
    /// The built attribute.
    pub attribute: &'static str,
    /// Its sources, in order.
    pub sources: &'static [&'static str],
    /// The text between sources (`#[combine]`).
    pub separator: &'static str,
    /// The function that computes it from its sources (`watch`), instead of joining them.
    pub compute: Option<Compute>,
}

impl Combine {
    /// The attribute's stored value, from an item holding its sources' stored values.
    pub fn value(&self, model: &'static str, item: &Item) -> Result<Option<AttributeValue>> {
        match self.compute {
            Some(compute) => compute(item),
            None => combined_text(model, self.attribute, self.separator, item, self.sources)
                .map(|text| Some(AttributeValue::S(text))),
        }
    }
}

/// The joined text of a `#[combine]` attribute, from its sources' stored values.
///
/// A source other than the last that contains the separator would make the value
/// ambiguous, so it is an error.
pub fn combined_text(
    model: &'static str,
    name: &'static str,
    separator: &'static str,
    item: &Item,
    sources: &[&'static str],
) -> Result<String> {
    let mut out = String::new();
    for (i, source) in sources.iter().enumerate() {
        let text = match item.get(*source) {
            Some(AttributeValue::S(s)) => s.as_str(),
            Some(AttributeValue::N(n)) => n.as_str(),
            Some(other) => {
                return Err(Error::validation(format!(
                    "`{source}` is {}, and only strings and numbers can be combined into `{name}`",
                    crate::value::describe(other)
                ))
                .with_model(model)
                .with_attribute(*source))
            }
            None => {
                return Err(Error::validation(format!(
                    "`{name}` is built from `{source}`, which has no value"
                ))
                .with_model(model)
                .with_attribute(*source))
            }
        };
        if i + 1 < sources.len() && text.contains(separator) {
            return Err(Error::validation(format!(
                "the value of `{source}` contains the separator {separator:?}, which would make `{name}` ambiguous"
            ))
            .with_model(model)
            .with_attribute(*source));
        }
        if i > 0 {
            out.push_str(separator);
        }
        out.push_str(text);
    }
    Ok(out)
}

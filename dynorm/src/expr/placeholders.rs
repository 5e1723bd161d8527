//! Renders conditions into expression strings, with every name in
//! `ExpressionAttributeNames` and every value in `ExpressionAttributeValues`.

use std::collections::HashMap;
use std::fmt::Write as _;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::expr::condition::Expr;

/// Collects the placeholders of one request's expressions.
///
/// Expressions are written into one `String` each; the only other allocations are the
/// maps' own keys and names, which the SDK takes as they are.
#[derive(Clone, Debug, Default)]
pub struct Placeholders {
    /// `#n0` to attribute name.
    pub(crate) names: HashMap<String, String>,
    /// `:v0` to value.
    pub(crate) values: HashMap<String, AttributeValue>,
}

/// The room an expression's text is given at first: most fit, so it is allocated once.
pub(crate) const EXPRESSION_CAPACITY: usize = 64;

/// Writes `#n{index}`.
pub(crate) fn write_name(out: &mut String, index: usize) {
    let _ = write!(out, "#n{index}");
}

/// Writes `:v{index}`.
pub(crate) fn write_value(out: &mut String, index: usize) {
    let _ = write!(out, ":v{index}");
}

impl Placeholders {
    /// The number of an attribute name's placeholder; the same name gets the same one.
    pub fn name(&mut self, attribute: &'static str) -> usize {
        let existing = self
            .names
            .iter()
            .find(|(_, name)| *name == attribute)
            .and_then(|(placeholder, _)| placeholder[2..].parse().ok());
        if let Some(index) = existing {
            return index;
        }
        let index = self.names.len();
        self.names
            .insert(format!("#n{index}"), attribute.to_owned());
        index
    }

    /// The number of a new value placeholder.
    pub fn value(&mut self, value: AttributeValue) -> usize {
        let index = self.values.len();
        self.values.insert(format!(":v{index}"), value);
        index
    }

    /// The expression text of a condition tree.
    #[cfg(test)]
    fn render(&mut self, expr: &Expr) -> String {
        let mut out = String::with_capacity(EXPRESSION_CAPACITY);
        self.write(expr, &mut out);
        out
    }

    /// Writes the text of a condition tree into `out`.
    fn write(&mut self, expr: &Expr, out: &mut String) {
        match expr {
            Expr::Compare(a, op, v) => {
                let (a, v) = (self.name(a), self.value(v.clone()));
                let _ = write!(out, "#n{a} {} :v{v}", op.symbol());
            }
            Expr::Between(a, lo, hi) => {
                let a = self.name(a);
                let (lo, hi) = (self.value(lo.clone()), self.value(hi.clone()));
                let _ = write!(out, "#n{a} BETWEEN :v{lo} AND :v{hi}");
            }
            Expr::In(a, values) => {
                let a = self.name(a);
                let _ = write!(out, "#n{a} IN (");
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    let v = self.value(v.clone());
                    write_value(out, v);
                }
                out.push(')');
            }
            Expr::BeginsWith(a, v) => {
                let (a, v) = (self.name(a), self.value(v.clone()));
                let _ = write!(out, "begins_with(#n{a}, :v{v})");
            }
            Expr::Contains(a, v) => {
                let (a, v) = (self.name(a), self.value(v.clone()));
                let _ = write!(out, "contains(#n{a}, :v{v})");
            }
            Expr::Exists(a) => {
                let a = self.name(a);
                let _ = write!(out, "attribute_exists(#n{a})");
            }
            Expr::NotExists(a) => {
                let a = self.name(a);
                let _ = write!(out, "attribute_not_exists(#n{a})");
            }
            Expr::Type(a, t) => {
                let a = self.name(a);
                let t = self.value(AttributeValue::S(t.code().to_owned()));
                let _ = write!(out, "attribute_type(#n{a}, :v{t})");
            }
            Expr::Size(a, op, n) => {
                let a = self.name(a);
                let n = self.value(AttributeValue::N(n.to_string()));
                let _ = write!(out, "size(#n{a}) {} :v{n}", op.symbol());
            }
            Expr::And(parts) => self.join(parts, " AND ", out),
            Expr::Or(parts) => self.join(parts, " OR ", out),
            Expr::Not(inner) => {
                out.push_str("NOT ");
                self.write_nested(inner, out);
            }
        }
    }

    /// Renders a conjunction of top-level parts, or `None` when there are none.
    pub fn render_all(&mut self, parts: &[Expr]) -> Option<String> {
        self.render_conjunction(parts)
    }

    /// Renders the parts joined with AND, or `None` when there are none; a lone part
    /// needs no parentheses.
    pub(crate) fn render_conjunction<'e>(
        &mut self,
        parts: impl IntoIterator<Item = &'e Expr>,
    ) -> Option<String> {
        let mut parts = parts.into_iter().peekable();
        let first = parts.next()?;
        let mut out = String::with_capacity(EXPRESSION_CAPACITY);
        if parts.peek().is_none() {
            self.write(first, &mut out);
            return Some(out);
        }
        self.write_nested(first, &mut out);
        for part in parts {
            out.push_str(" AND ");
            self.write_nested(part, &mut out);
        }
        Some(out)
    }

    fn join(&mut self, parts: &[Expr], separator: &str, out: &mut String) {
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                out.push_str(separator);
            }
            self.write_nested(part, out);
        }
    }

    /// Writes a sub-expression, in parentheses when it is compound.
    fn write_nested(&mut self, expr: &Expr, out: &mut String) {
        let compound = matches!(
            expr,
            Expr::And(_) | Expr::Or(_) | Expr::Not(_) | Expr::Between(..)
        );
        if compound {
            out.push('(');
        }
        self.write(expr, out);
        if compound {
            out.push(')');
        }
    }

    /// The names, or `None` when empty, as the SDK wants them.
    pub fn take_names(&mut self) -> Option<HashMap<String, String>> {
        (!self.names.is_empty()).then(|| std::mem::take(&mut self.names))
    }

    /// The values, or `None` when empty, as the SDK wants them.
    pub fn take_values(&mut self) -> Option<HashMap<String, AttributeValue>> {
        (!self.values.is_empty()).then(|| std::mem::take(&mut self.values))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::condition::{AttributeType, Comparison};

    fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.into())
    }

    #[test]
    fn every_name_and_value_is_a_placeholder() {
        let mut p = Placeholders::default();
        let expr = Expr::And(vec![
            Expr::Compare("status", Comparison::Eq, s("open")),
            Expr::Or(vec![
                Expr::Between(
                    "total",
                    AttributeValue::N("1".into()),
                    AttributeValue::N("9".into()),
                ),
                Expr::Not(Box::new(Expr::Exists("note"))),
            ]),
            Expr::Size("status", Comparison::Gt, 2),
        ]);
        assert_eq!(
            p.render(&expr),
            "#n0 = :v0 AND ((#n1 BETWEEN :v1 AND :v2) OR (NOT attribute_exists(#n2))) AND size(#n0) > :v3"
        );
        assert_eq!(p.names["#n0"], "status");
        assert_eq!(p.names.len(), 3);
        assert_eq!(p.values[":v3"], AttributeValue::N("2".into()));
    }

    #[test]
    fn reserved_words_and_odd_names_stay_out_of_the_expression() {
        let mut p = Placeholders::default();
        let expr = Expr::And(vec![
            Expr::In("size", vec![s("a); DROP"), s("b")]),
            Expr::BeginsWith("a.b#c d", s("x")),
            Expr::Type("data", AttributeType::Ss),
            Expr::Contains("tags", s("red")),
            Expr::NotExists("name"),
        ]);
        let text = p.render(&expr);
        assert_eq!(
            text,
            "#n0 IN (:v0, :v1) AND begins_with(#n1, :v2) AND attribute_type(#n2, :v3) AND contains(#n3, :v4) AND attribute_not_exists(#n4)"
        );
        assert!(!text.contains("DROP") && !text.contains("a.b"));
        assert_eq!(p.values[":v3"], s("SS"));
    }
}

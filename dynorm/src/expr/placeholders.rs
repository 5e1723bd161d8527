//! Renders conditions into expression strings, with every name in
//! `ExpressionAttributeNames` and every value in `ExpressionAttributeValues`.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::expr::condition::Expr;

/// Collects the placeholders of one request's expressions.
#[derive(Clone, Debug, Default)]
pub(crate) struct Placeholders {
    /// `#n0` to attribute name.
    pub(crate) names: HashMap<String, String>,
    /// `:v0` to value.
    pub(crate) values: HashMap<String, AttributeValue>,
    by_name: HashMap<&'static str, String>,
}

impl Placeholders {
    /// The placeholder for an attribute name; the same name gets the same placeholder.
    pub(crate) fn name(&mut self, attribute: &'static str) -> String {
        if let Some(existing) = self.by_name.get(attribute) {
            return existing.clone();
        }
        let placeholder = format!("#n{}", self.by_name.len());
        self.by_name.insert(attribute, placeholder.clone());
        self.names.insert(placeholder.clone(), attribute.to_owned());
        placeholder
    }

    /// A new placeholder for a value.
    pub(crate) fn value(&mut self, value: AttributeValue) -> String {
        let placeholder = format!(":v{}", self.values.len());
        self.values.insert(placeholder.clone(), value);
        placeholder
    }

    /// The expression text of a condition tree.
    pub(crate) fn render(&mut self, expr: &Expr) -> String {
        match expr {
            Expr::Compare(a, op, v) => {
                let (a, v) = (self.name(a), self.value(v.clone()));
                format!("{a} {} {v}", op.symbol())
            }
            Expr::Between(a, lo, hi) => {
                let a = self.name(a);
                let (lo, hi) = (self.value(lo.clone()), self.value(hi.clone()));
                format!("{a} BETWEEN {lo} AND {hi}")
            }
            Expr::In(a, values) => {
                let a = self.name(a);
                let list: Vec<String> = values.iter().map(|v| self.value(v.clone())).collect();
                format!("{a} IN ({})", list.join(", "))
            }
            Expr::BeginsWith(a, v) => {
                let (a, v) = (self.name(a), self.value(v.clone()));
                format!("begins_with({a}, {v})")
            }
            Expr::Contains(a, v) => {
                let (a, v) = (self.name(a), self.value(v.clone()));
                format!("contains({a}, {v})")
            }
            Expr::Exists(a) => format!("attribute_exists({})", self.name(a)),
            Expr::NotExists(a) => format!("attribute_not_exists({})", self.name(a)),
            Expr::Type(a, t) => {
                let a = self.name(a);
                let t = self.value(AttributeValue::S(t.code().to_owned()));
                format!("attribute_type({a}, {t})")
            }
            Expr::Size(a, op, n) => {
                let a = self.name(a);
                let n = self.value(AttributeValue::N(n.to_string()));
                format!("size({a}) {} {n}", op.symbol())
            }
            Expr::And(parts) => self.join(parts, " AND "),
            Expr::Or(parts) => self.join(parts, " OR "),
            Expr::Not(inner) => {
                let inner = self.render_nested(inner);
                format!("NOT {inner}")
            }
        }
    }

    /// Renders a conjunction of top-level parts, or `None` when there are none.
    pub(crate) fn render_all(&mut self, parts: &[Expr]) -> Option<String> {
        match parts {
            [] => None,
            [one] => Some(self.render(one)),
            many => Some(self.join(many, " AND ")),
        }
    }

    fn join(&mut self, parts: &[Expr], separator: &str) -> String {
        let rendered: Vec<String> = parts.iter().map(|p| self.render_nested(p)).collect();
        rendered.join(separator)
    }

    /// Renders a sub-expression, in parentheses when it is compound.
    fn render_nested(&mut self, expr: &Expr) -> String {
        let text = self.render(expr);
        match expr {
            Expr::And(_) | Expr::Or(_) | Expr::Not(_) | Expr::Between(..) => format!("({text})"),
            _ => text,
        }
    }

    /// The names, or `None` when empty, as the SDK wants them.
    pub(crate) fn take_names(&mut self) -> Option<HashMap<String, String>> {
        (!self.names.is_empty()).then(|| std::mem::take(&mut self.names))
    }

    /// The values, or `None` when empty, as the SDK wants them.
    pub(crate) fn take_values(&mut self) -> Option<HashMap<String, AttributeValue>> {
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

//! Renders conditions into expression strings, with every name in
//! `ExpressionAttributeNames` and every value in `ExpressionAttributeValues`.

use std::collections::HashMap;
use std::fmt::Write as _;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::expr::condition::Expr;
use crate::expr::path::{Step, Steps};

/// What names a leaf's attribute in an expression: its placeholder, or a path's text.
enum Target<'p> {
    Name(usize),
    Path(&'p str),
}

impl std::fmt::Display for Target<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Name(index) => write!(f, "#n{index}"),
            Self::Path(path) => f.write_str(path),
        }
    }
}

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
        self.name_of(attribute)
    }

    /// [`name`](Self::name) of a name known only at run time: a map key.
    pub(crate) fn name_of(&mut self, attribute: &str) -> usize {
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

    /// The text of the entry under `key` of the map at `base` (its placeholder, or its
    /// path): `#n0.#n1`.
    pub(crate) fn entry(&mut self, base: &str, key: &str) -> String {
        let key = self.name_of(key);
        format!("{base}.#n{key}")
    }

    /// The text of `steps` inside `attribute`, with placeholders: `#n0.#n1[2]`.
    pub(crate) fn path(&mut self, attribute: &'static str, steps: &Steps) -> String {
        let mut text = String::new();
        write_name(&mut text, self.name(attribute));
        for step in steps.as_slice() {
            match step {
                Step::Key(key) => {
                    text.push('.');
                    let key = self.name(key);
                    write_name(&mut text, key);
                }
                Step::Index(index) => {
                    let _ = write!(text, "[{index}]");
                }
            }
        }
        text
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
        self.write_at(expr, None, out);
    }

    /// The text that names a leaf's attribute: its placeholder, or `path`, the placeholders
    /// of a path inside it.
    fn target<'p>(&mut self, attribute: &'static str, path: Option<&'p str>) -> Target<'p> {
        match path {
            Some(path) => Target::Path(path),
            None => Target::Name(self.name(attribute)),
        }
    }

    /// Writes a condition tree, its leaves naming `path` instead of their attribute when
    /// one is given (the leaf of an [`Expr::Inside`]).
    fn write_at(&mut self, expr: &Expr, path: Option<&str>, out: &mut String) {
        match expr {
            Expr::Compare(a, op, v) => {
                let (a, v) = (self.target(a, path), self.value(v.clone()));
                let _ = write!(out, "{a} {} :v{v}", op.symbol());
            }
            Expr::Between(a, lo, hi) => {
                let a = self.target(a, path);
                let (lo, hi) = (self.value(lo.clone()), self.value(hi.clone()));
                let _ = write!(out, "{a} BETWEEN :v{lo} AND :v{hi}");
            }
            Expr::In(a, values) => {
                let a = self.target(a, path);
                let _ = write!(out, "{a} IN (");
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
                let (a, v) = (self.target(a, path), self.value(v.clone()));
                let _ = write!(out, "begins_with({a}, :v{v})");
            }
            Expr::Contains(a, v) => {
                let (a, v) = (self.target(a, path), self.value(v.clone()));
                let _ = write!(out, "contains({a}, :v{v})");
            }
            Expr::Exists(a) => {
                let a = self.target(a, path);
                let _ = write!(out, "attribute_exists({a})");
            }
            Expr::NotExists(a) => {
                let a = self.target(a, path);
                let _ = write!(out, "attribute_not_exists({a})");
            }
            Expr::Type(a, t) => {
                let a = self.target(a, path);
                let t = self.value(AttributeValue::S(t.code().to_owned()));
                let _ = write!(out, "attribute_type({a}, :v{t})");
            }
            Expr::Size(a, op, n) => {
                let a = self.target(a, path);
                let n = self.value(AttributeValue::N(n.to_string()));
                let _ = write!(out, "size({a}) {} :v{n}", op.symbol());
            }
            Expr::And(parts) => self.join(parts, " AND ", out),
            Expr::Or(parts) => self.join(parts, " OR ", out),
            Expr::Not(inner) => {
                out.push_str("NOT ");
                self.write_nested(inner, out);
            }
            Expr::Inside(steps, leaf) => {
                // A leaf, or a map's entry of one (`has_key` on a path).
                let attribute = match &**leaf {
                    Expr::Entry(_, inner) => inner.attribute(),
                    leaf => leaf.attribute(),
                };
                let Some(attribute) = attribute else {
                    // Only a leaf goes inside a path (`Attr` makes no other).
                    return self.write_at(leaf, path, out);
                };
                let text = self.path(attribute, steps);
                self.write_at(leaf, Some(&text), out);
            }
            Expr::Entry(key, leaf) => {
                let Some(attribute) = leaf.attribute() else {
                    return self.write_at(leaf, path, out);
                };
                let base = match path {
                    Some(path) => path.to_owned(),
                    None => format!("#n{}", self.name(attribute)),
                };
                let text = self.entry(&base, key);
                self.write_at(leaf, Some(&text), out);
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
        let compound = match expr {
            Expr::And(_) | Expr::Or(_) | Expr::Not(_) | Expr::Between(..) => true,
            Expr::Inside(_, leaf) | Expr::Entry(_, leaf) => matches!(**leaf, Expr::Between(..)),
            _ => false,
        };
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
    fn a_path_inside_an_attribute_names_each_key_and_writes_each_index() {
        use crate::expr::path::{Step, Steps};
        let mut p = Placeholders::default();
        let offspring = Steps::NONE.then(Step::Index(0)).then(Step::Key("name"));
        let expr = Expr::And(vec![
            Expr::Inside(
                offspring,
                Box::new(Expr::Compare("offspring", Comparison::Eq, s("Blitzen"))),
            ),
            Expr::Inside(
                Steps::NONE.then(Step::Key("name")),
                Box::new(Expr::Size("veterinarian", Comparison::Gt, 2)),
            ),
            Expr::Compare("name", Comparison::Ne, s("x")),
        ]);
        assert_eq!(
            p.render(&expr),
            "#n0[0].#n1 = :v0 AND size(#n2.#n1) > :v1 AND #n1 <> :v2"
        );
        // A `BETWEEN` inside a path keeps its parentheses among other conditions.
        let between = Expr::And(vec![
            Expr::Inside(
                Steps::NONE.then(Step::Key("size")),
                Box::new(Expr::Between(
                    "litter",
                    AttributeValue::N("1".into()),
                    AttributeValue::N("3".into()),
                )),
            ),
            Expr::Exists("name"),
        ]);
        assert_eq!(
            Placeholders::default().render(&between),
            "(#n0.#n1 BETWEEN :v0 AND :v1) AND attribute_exists(#n2)"
        );
        assert_eq!(p.names["#n1"], "name");
        assert_eq!(p.names.len(), 3);
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

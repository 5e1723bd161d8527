//! Key template text for single-table design: `"TEAM#{team_id}"` is the static text
//! `TEAM#` followed by the stored value of field `team_id`.

use syn::{Ident, LitStr};

use crate::internals::attr::{ident_from_text, FieldRef};
use crate::internals::Ctxt;

/// One piece of a template.
#[derive(Clone)]
pub enum Part {
    /// Text stored as written.
    Static(String),
    /// A field's stored value.
    Field(FieldRef),
}

/// One key attribute built from a template: `pk = "TEAM#{team_id}"`.
#[derive(Clone)]
pub struct Template {
    /// The physical attribute name, such as `pk`.
    pub attribute: Ident,
    /// The template as written, for errors.
    pub literal: LitStr,
    /// The template split into text and fields.
    pub parts: Vec<Part>,
    /// Whether it was written as a list of fields, `[team_id]`: ElectroDB's default key,
    /// whose text the resolve stage adds. `parts` then holds only the fields.
    pub composite: bool,
}

impl Template {
    /// Parses `attribute = "TEAM#{team_id}"`, reporting malformed text.
    pub fn parse(cx: &Ctxt, attribute: Ident, literal: LitStr) -> Self {
        let parts = parse_parts(cx, &literal);
        Template {
            attribute,
            literal,
            parts,
            composite: false,
        }
    }

    /// `attribute = [a, b]`: ElectroDB's default key from these fields.
    pub fn composite(attribute: Ident, span: proc_macro2::Span, fields: Vec<FieldRef>) -> Self {
        Template {
            attribute,
            literal: LitStr::new("[..]", span),
            parts: fields.into_iter().map(Part::Field).collect(),
            composite: true,
        }
    }
}

/// Splits `TEAM#{team_id}` into parts, reporting malformed braces.
fn parse_parts(cx: &Ctxt, literal: &LitStr) -> Vec<Part> {
    let text = literal.value();
    let mut parts = Vec::new();
    let mut rest = text.as_str();
    while !rest.is_empty() {
        let Some(open) = rest.find(['{', '}']) else {
            parts.push(Part::Static(rest.to_owned()));
            break;
        };
        if rest[open..].starts_with('}') {
            cx.error_spanned_by(literal, "a `}` without its `{` in the key template");
            return parts;
        }
        if open > 0 {
            parts.push(Part::Static(rest[..open].to_owned()));
        }
        let Some(length) = rest[open..].find('}') else {
            cx.error_spanned_by(literal, "a `{` without its `}` in the key template");
            return parts;
        };
        let name = rest[open + 1..open + length].trim();
        let Some(ident) = ident_from_text(name, literal.span()) else {
            cx.error_spanned_by(literal, format!("`{{{name}}}` is not a field name"));
            return parts;
        };
        parts.push(Part::Field(FieldRef { ident }));
        rest = &rest[open + length + 1..];
    }
    if parts.is_empty() {
        cx.error_spanned_by(
            literal,
            "an empty key template: give it static text, fields, or both",
        );
    }
    for pair in parts.windows(2) {
        if let [Part::Field(a), Part::Field(b)] = pair {
            cx.error_spanned_by(
                literal,
                format!(
                    "`{{{}}}` and `{{{}}}` need text between them, or the key is ambiguous",
                    a.ident, b.ident
                ),
            );
        }
    }
    parts
}

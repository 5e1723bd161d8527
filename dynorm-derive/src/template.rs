//! Key templates for single-table design: `#[key(pk = "TEAM#{team_id}", sk = "#METADATA")]`
//! on the struct for the table's keys, and `#[key(index = "GSI1", gsi1pk = "USER#{user_id}",
//! gsi1sk = "TEAM#{team_id}")]` for a global index. The first pair is the hash key, the
//! second (if any) the range key; each name is the physical attribute.

use syn::{Attribute, Ident, LitStr};

use crate::ctxt::Ctxt;
use crate::index::FieldRef;

/// `#[key]`
pub const KEY: &str = "key";

/// One piece of a template.
#[derive(Clone)]
pub enum Part {
    /// Text stored as written.
    Static(String),
    /// A field's stored value.
    Field(FieldRef),
}

/// One key attribute built from a template.
#[derive(Clone)]
pub struct Template {
    /// The physical attribute name, such as `pk`.
    pub attribute: Ident,
    pub literal: LitStr,
    pub parts: Vec<Part>,
}

impl Template {
    /// The fields the template uses, in order.
    pub fn fields(&self) -> impl Iterator<Item = &FieldRef> {
        self.parts.iter().filter_map(|p| match p {
            Part::Field(f) => Some(f),
            Part::Static(_) => None,
        })
    }

    /// The text before the first field: what every value of the template starts with.
    pub fn static_prefix(&self) -> String {
        match self.parts.first() {
            Some(Part::Static(text)) => text.clone(),
            _ => String::new(),
        }
    }
}

/// One `#[key(...)]`: the table's keys, or an index's.
pub struct KeyDecl {
    pub attr: Attribute,
    /// The index name, or `None` for the table.
    pub index: Option<LitStr>,
    pub hash: Template,
    pub range: Option<Template>,
}

/// Splits `TEAM#{team_id}` into parts, reporting malformed braces.
fn parse_template(cx: &Ctxt, literal: &LitStr) -> Vec<Part> {
    let text = literal.value();
    let mut parts = Vec::new();
    let mut rest = text.as_str();
    while !rest.is_empty() {
        match rest.find(['{', '}']) {
            Some(at) if rest.as_bytes()[at] == b'}' => {
                cx.error_spanned_by(literal, "a `}` without its `{` in the key template");
                return parts;
            }
            Some(at) => {
                if at > 0 {
                    parts.push(Part::Static(rest[..at].to_owned()));
                }
                let Some(end) = rest[at..].find('}') else {
                    cx.error_spanned_by(literal, "a `{` without its `}` in the key template");
                    return parts;
                };
                let name = rest[at + 1..at + end].trim();
                if syn::parse_str::<Ident>(name).is_err() {
                    cx.error_spanned_by(literal, format!("`{{{name}}}` is not a field name"));
                    return parts;
                }
                parts.push(Part::Field(FieldRef {
                    ident: Ident::new(name, literal.span()),
                }));
                rest = &rest[at + end + 1..];
            }
            None => {
                parts.push(Part::Static(rest.to_owned()));
                rest = "";
            }
        }
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

/// Parses every `#[key(...)]` on the struct.
pub fn parse(cx: &Ctxt, attrs: &[Attribute]) -> Vec<KeyDecl> {
    let mut out = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident(KEY)) {
        let mut index = None;
        let mut templates = Vec::new();
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("index") {
                // index = "GSI1"
                index = Some(meta.value()?.parse::<LitStr>()?);
            } else if let Some(attribute) = meta.path.get_ident() {
                // pk = "TEAM#{team_id}"
                let literal: LitStr = meta.value()?.parse()?;
                let parts = parse_template(cx, &literal);
                templates.push(Template {
                    attribute: attribute.clone(),
                    literal,
                    parts,
                });
            } else {
                cx.error_spanned_by(
                    &meta.path,
                    "expected `attribute = \"template\"` or `index = \"name\"`",
                );
            }
            Ok(())
        });
        if let Err(error) = result {
            cx.syn_error(error);
            continue;
        }
        if templates.is_empty() || templates.len() > 2 {
            cx.error_spanned_by(
                attr,
                format!(
                    "#[key] takes the hash key template and, optionally, the range key template: \
                     #[key(pk = \"TEAM#{{team_id}}\", sk = \"#METADATA\"), not {} templates",
                    templates.len()
                ),
            );
            continue;
        }
        let mut templates = templates.into_iter();
        let Some(hash) = templates.next() else {
            continue;
        };
        out.push(KeyDecl {
            attr: attr.clone(),
            index,
            hash,
            range: templates.next(),
        });
    }
    out
}

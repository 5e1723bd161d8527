//! `#[count(...)]` on the struct: each item is counted in an attribute of a parent item.
//!
//! ```text
//! #[count(parent = Team, into = member_count, fields = [team_id], references = [team_id])]
//! ```

use syn::{Attribute, Ident, Path};

use super::parse::{field_list, field_ref, set_once, unknown_key, FieldRef};
use crate::internals::symbol::*;
use crate::internals::Ctxt;

/// One `#[count]` declaration.
pub struct CountDecl {
    /// The attribute, for errors about the whole declaration.
    pub attr: Attribute,
    /// `parent = Team`: the model that holds the count.
    pub parent: Option<Path>,
    /// `into = member_count`: the parent's field that holds it.
    pub into: Option<Ident>,
    /// `fields = [team_id]`: this model's fields that name the parent.
    pub fields: Vec<FieldRef>,
    /// `references = [team_id]`: the parent's fields they hold.
    pub references: Vec<FieldRef>,
}

/// Parses every `#[count(...)]` on the struct.
pub fn count(cx: &Ctxt, attrs: &[Attribute]) -> Vec<CountDecl> {
    let mut out = Vec::new();
    for attr in attrs.iter().filter(|a| a.path() == COUNT) {
        let mut decl = CountDecl {
            attr: attr.clone(),
            parent: None,
            into: None,
            fields: Vec::new(),
            references: Vec::new(),
        };
        let result = attr.parse_nested_meta(|meta| {
            if meta.path == PARENT {
                let parent: Path = meta.value()?.parse()?;
                set_once(cx, &mut decl.parent, parent, &meta, PARENT);
            } else if meta.path == INTO {
                let into = field_ref(&meta)?.ident;
                set_once(cx, &mut decl.into, into, &meta, INTO);
            } else if meta.path == FIELDS {
                decl.fields = field_list(&meta)?;
            } else if meta.path == REFERENCES {
                decl.references = field_list(&meta)?;
            } else {
                unknown_key(cx, &meta, COUNT_KEYS, "count")?;
            }
            Ok(())
        });
        if let Err(error) = result {
            cx.syn_error(error);
            continue;
        }
        if decl.parent.is_none() || decl.into.is_none() {
            cx.error_spanned_by(
                attr,
                "a count needs its parent and the parent's field: #[count(parent = Team, into = member_count, ..)]",
            );
            continue;
        }
        if decl.fields.is_empty() || decl.fields.len() != decl.references.len() {
            cx.error_spanned_by(
                attr,
                "a count needs `fields = [..]` and `references = [..]` of the same, non-zero length: this model's fields that hold the parent's key fields",
            );
            continue;
        }
        out.push(decl);
    }
    out
}

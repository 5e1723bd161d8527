//! `#[relation(...)]` on the struct: a `one` or `many` relation to another model.

use syn::{Attribute, LitStr, Path};

use super::parse::{field_list, set_once, unknown_key, FieldRef};
use crate::internals::symbol::*;
use crate::internals::Ctxt;

/// Whether a relation has one related item per parent, or many.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum RelationKind {
    /// `one = User`
    One,
    /// `many = Comment`
    Many,
}

/// One `#[relation(name = "..", one | many = Model, fields = [..], references = [..])]`.
pub struct RelationDecl {
    /// `name = "comments"`: the relation's function name.
    pub name: Option<LitStr>,
    /// `one = User` or `many = Comment`.
    pub target: Option<(RelationKind, Path)>,
    /// `fields = [id]`: this model's fields.
    pub fields: Vec<FieldRef>,
    /// `references = [post_id]`: the related model's fields.
    pub references: Vec<FieldRef>,
    /// `allow_scan`: reach the related side with a scan when no key does.
    pub allow_scan: bool,
}

/// Parses every `#[relation(...)]` on the struct.
pub fn relation(cx: &Ctxt, attrs: &[Attribute]) -> Vec<RelationDecl> {
    let mut out = Vec::new();
    for attr in attrs.iter().filter(|a| a.path() == RELATION) {
        let mut decl = RelationDecl {
            name: None,
            target: None,
            fields: Vec::new(),
            references: Vec::new(),
            allow_scan: false,
        };
        let result = attr.parse_nested_meta(|meta| {
            if meta.path == NAME {
                let value: LitStr = meta.value()?.parse()?;
                set_once(cx, &mut decl.name, value, &meta, NAME);
            } else if meta.path == ONE || meta.path == MANY {
                let kind = if meta.path == ONE {
                    RelationKind::One
                } else {
                    RelationKind::Many
                };
                let target: Path = meta.value()?.parse()?;
                let key = if kind == RelationKind::One { ONE } else { MANY };
                set_once(cx, &mut decl.target, (kind, target), &meta, key);
            } else if meta.path == FIELDS {
                decl.fields = field_list(&meta)?;
            } else if meta.path == REFERENCES {
                decl.references = field_list(&meta)?;
            } else if meta.path == ALLOW_SCAN {
                decl.allow_scan = true;
            } else {
                unknown_key(cx, &meta, RELATION_KEYS, "relation")?;
            }
            Ok(())
        });
        if let Err(error) = result {
            cx.syn_error(error);
            continue;
        }
        if decl.name.is_none() {
            cx.error_spanned_by(attr, "a relation needs `name = \"...\"`");
        }
        if decl.target.is_none() {
            cx.error_spanned_by(attr, "a relation needs `one = Model` or `many = Model`");
        }
        if decl.fields.is_empty() || decl.fields.len() != decl.references.len() {
            cx.error_spanned_by(
                attr,
                "a relation needs `fields = [..]` and `references = [..]` of the same, non-zero length",
            );
        }
        out.push(decl);
    }
    out
}

//! `#[unique]`, on a field or on the struct.
//!
//! ```text
//! #[unique]                                        // on a field: its value is unique
//! #[unique(scope = team_id)]                       // unique within each team
//! #[unique(fields = [first, last], scope = [org])] // on the struct: unique together
//! ```

use syn::{Attribute, Ident};

use super::parse::{field_list, unknown_key, FieldRef};
use crate::internals::symbol::*;
use crate::internals::Ctxt;

/// One `#[unique]` declaration.
pub struct UniqueDecl {
    /// The attribute, for errors about the whole declaration.
    pub attr: Attribute,
    /// The fields whose values are unique together; on a field, that field.
    pub fields: Vec<FieldRef>,
    /// The fields that scope it.
    pub scope: Vec<FieldRef>,
}

/// Parses every `#[unique]` in `attrs`. `owner` is the field they sit on, or `None` on
/// the struct.
pub fn unique(cx: &Ctxt, attrs: &[Attribute], owner: Option<&Ident>) -> Vec<UniqueDecl> {
    let known = match owner {
        Some(_) => FIELD_UNIQUE_KEYS,
        None => CONTAINER_UNIQUE_KEYS,
    };
    let mut out = Vec::new();
    for attr in attrs.iter().filter(|a| a.path() == UNIQUE) {
        let mut decl = UniqueDecl {
            attr: attr.clone(),
            fields: owner
                .map(|ident| FieldRef {
                    ident: ident.clone(),
                })
                .into_iter()
                .collect(),
            scope: Vec::new(),
        };
        if matches!(attr.meta, syn::Meta::List(_)) {
            let result = attr.parse_nested_meta(|meta| {
                if meta.path == SCOPE {
                    // #[unique(scope = team_id)] / #[unique(scope = [org, team])]
                    decl.scope = field_list(&meta)?;
                } else if meta.path == FIELDS && owner.is_none() {
                    // #[unique(fields = [first, last])], on the struct
                    decl.fields = field_list(&meta)?;
                } else {
                    unknown_key(cx, &meta, known, "unique")?;
                }
                Ok(())
            });
            if let Err(error) = result {
                cx.syn_error(error);
                continue;
            }
        } else if let Err(error) = attr.meta.require_path_only() {
            cx.syn_error(error);
            continue;
        }
        if decl.fields.is_empty() {
            cx.error_spanned_by(
                attr,
                "a unique constraint on the struct needs its fields: #[unique(fields = [a, b])]",
            );
            continue;
        }
        out.push(decl);
    }
    out
}

//! `#[index(...)]`, on a field or on the struct.
//!
//! ```text
//! #[index(name = "byStatus")]                                    // on a field: a global index hashed on it
//! #[index(name = "byStatus", range_key = "placed_at")]          // with a sort key
//! #[index(name = "byPlacedAt", local)]                          // a local index: the table's hash key, this range key
//! #[index(name = "byStatus", project = ["total"])]              // INCLUDE; `project = false` is KEYS_ONLY; ALL by default
//! #[index(name = "byTeamRole", hash_key = [team, role], range_key = [month, score])]   // on the struct: multi-attribute keys
//! ```

use syn::{Attribute, Ident, LitBool, LitStr};

use super::parse::{bracketed_fields, field_list, field_ref, set_once, unknown_key, FieldRef};
use crate::internals::symbol::*;
use crate::internals::Ctxt;

/// What an index projects, before field names are resolved.
pub enum ProjectDecl {
    /// `project = true`, or no `project`: every attribute.
    All,
    /// `project = false`: the keys only.
    KeysOnly,
    /// `project = [a, b]`: the keys and these fields.
    Include(Vec<FieldRef>),
}

/// `project = [a, b]`, `project = false` or `project = true`, after the `=`.
pub(super) fn project(input: syn::parse::ParseStream) -> syn::Result<ProjectDecl> {
    Ok(if input.peek(LitBool) {
        match input.parse::<LitBool>()?.value {
            true => ProjectDecl::All,
            false => ProjectDecl::KeysOnly,
        }
    } else {
        ProjectDecl::Include(bracketed_fields(input)?)
    })
}

/// One `#[index]` declaration.
pub struct IndexDecl {
    /// The attribute, for errors about the whole declaration.
    pub attr: Attribute,
    /// The index name; `None` when it is missing (already reported).
    pub name: Option<LitStr>,
    /// `local`: a local secondary index.
    pub local: bool,
    /// The partition key fields. For a field's global index, that field; for a local
    /// index, empty (the table's hash key, found when resolving).
    pub hash: Vec<FieldRef>,
    /// The sort key fields. For a field's local index, that field.
    pub range: Vec<FieldRef>,
    /// What the index projects.
    pub project: ProjectDecl,
}

/// Parses every `#[index]` in `attrs`. `owner` is the field they sit on, or `None` on the
/// struct.
pub fn index(cx: &Ctxt, attrs: &[Attribute], owner: Option<&Ident>) -> Vec<IndexDecl> {
    let known = match owner {
        Some(_) => FIELD_INDEX_KEYS,
        None => CONTAINER_INDEX_KEYS,
    };
    let mut out = Vec::new();
    for attr in attrs.iter().filter(|a| a.path() == INDEX) {
        let mut decl = IndexDecl {
            attr: attr.clone(),
            name: None,
            local: false,
            hash: Vec::new(),
            range: Vec::new(),
            project: ProjectDecl::All,
        };
        let result = attr.parse_nested_meta(|meta| {
            if meta.path == NAME {
                // #[index(name = "byStatus")]
                let name: LitStr = meta.value()?.parse()?;
                if name.value().len() < 3 || name.value().len() > 255 {
                    cx.error_spanned_by(&name, "an index name has 3 to 255 characters");
                }
                set_once(cx, &mut decl.name, name, &meta, NAME);
            } else if meta.path == LOCAL && owner.is_some() {
                // #[index(name = "byPlacedAt", local)], on a field
                decl.local = true;
            } else if meta.path == RANGE_KEY {
                // #[index(range_key = "placed_at")], on a field
                // #[index(range_key = [month, score])], on the struct
                decl.range = match owner {
                    Some(_) => vec![field_ref(&meta)?],
                    None => field_list(&meta)?,
                };
            } else if meta.path == HASH_KEY && owner.is_none() {
                // #[index(hash_key = [team, role])], on the struct
                decl.hash = field_list(&meta)?;
            } else if meta.path == PROJECT {
                // #[index(project = ["total"])] / #[index(project = false)] / #[index(project = true)]
                decl.project = project(meta.value()?)?;
            } else {
                unknown_key(cx, &meta, known, "index")?;
            }
            Ok(())
        });
        if let Err(error) = result {
            cx.syn_error(error);
            continue;
        }
        if decl.name.is_none() {
            cx.error_spanned_by(attr, "an index needs a name: #[index(name = \"...\")]");
        }
        match owner {
            Some(owner) if decl.local => {
                if !decl.range.is_empty() {
                    cx.error_spanned_by(
                        attr,
                        "a local index's range key is the field it is on; `range_key` does not apply",
                    );
                }
                decl.range = vec![FieldRef {
                    ident: owner.clone(),
                }];
            }
            Some(owner) => {
                decl.hash = vec![FieldRef {
                    ident: owner.clone(),
                }];
            }
            None if decl.hash.is_empty() => {
                cx.error_spanned_by(attr, "an index on the struct needs `hash_key = [...]`");
            }
            None => {}
        }
        out.push(decl);
    }
    out
}

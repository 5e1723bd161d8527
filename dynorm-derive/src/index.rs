//! Parses `#[index(...)]`, on a field or on the struct, into index declarations.
//!
//! ```text
//! #[index(name = "byStatus")]                                    // on a field: a global index hashed on it
//! #[index(name = "byStatus", range_key = "placed_at")]          // with a sort key
//! #[index(name = "byPlacedAt", local)]                          // a local index: the table's hash key, this range key
//! #[index(name = "byStatus", project = ["total"])]              // INCLUDE; `project = false` is KEYS_ONLY; ALL by default
//! #[index(name = "byTeamRole", hash_key = [team, role], range_key = [month, score])]   // on the struct: multi-attribute keys
//! ```

use syn::meta::ParseNestedMeta;
use syn::{Attribute, Ident, LitStr};

use crate::ctxt::Ctxt;
use crate::symbol;

/// `#[index]`
pub const INDEX: &str = "index";
const NAME: &str = "name";
const HASH_KEY: &str = "hash_key";
const RANGE_KEY: &str = "range_key";
const LOCAL: &str = "local";
const PROJECT: &str = "project";
const FIELD_INDEX_KEYS: &[&str] = &[NAME, RANGE_KEY, LOCAL, PROJECT];
const CONTAINER_INDEX_KEYS: &[&str] = &[NAME, HASH_KEY, RANGE_KEY, PROJECT];

/// A reference to a field by its Rust name, kept for its span.
#[derive(Clone)]
pub struct FieldRef {
    pub ident: Ident,
}

/// What an index projects, before field names are resolved.
pub enum ProjectDecl {
    All,
    KeysOnly,
    Include(Vec<FieldRef>),
}

/// One `#[index]` declaration.
pub struct IndexDecl {
    /// The attribute, for errors about the whole declaration.
    pub attr: Attribute,
    pub name: Option<LitStr>,
    pub local: bool,
    /// The partition key fields. For a field's global index, that field; for a local
    /// index, empty (the table's hash key).
    pub hash: Vec<FieldRef>,
    pub range: Vec<FieldRef>,
    pub project: ProjectDecl,
}

impl IndexDecl {
    /// The index name, or an empty string when it was missing (already reported).
    pub fn name(&self) -> String {
        self.name.as_ref().map(LitStr::value).unwrap_or_default()
    }
}

/// One field name, as a string literal or a bare identifier.
fn field_ref(meta: &ParseNestedMeta) -> syn::Result<FieldRef> {
    field_ref_from(meta.value()?)
}

/// A list of field names: `[a, b]` or `["a", "b"]`, or one name.
pub fn field_list(meta: &ParseNestedMeta) -> syn::Result<Vec<FieldRef>> {
    let input = meta.value()?;
    if input.peek(syn::token::Bracket) {
        bracketed_fields(input)
    } else {
        Ok(vec![field_ref_from(input)?])
    }
}

/// `[a, b]` or `["a", "b"]`.
fn bracketed_fields(input: syn::parse::ParseStream) -> syn::Result<Vec<FieldRef>> {
    let content;
    syn::bracketed!(content in input);
    let fields = content.parse_terminated(field_ref_from, syn::Token![,])?;
    Ok(fields.into_iter().collect())
}

fn field_ref_from(input: syn::parse::ParseStream) -> syn::Result<FieldRef> {
    if input.peek(LitStr) {
        let literal: LitStr = input.parse()?;
        let ident = syn::parse_str::<Ident>(&literal.value()).map_err(|_| {
            syn::Error::new(
                literal.span(),
                format!("{:?} is not a field name", literal.value()),
            )
        })?;
        Ok(FieldRef {
            ident: Ident::new(&ident.to_string(), literal.span()),
        })
    } else {
        Ok(FieldRef {
            ident: input.parse()?,
        })
    }
}

/// Parses every `#[index]` in `attrs`. `owner` is the field they sit on, or `None` on the
/// struct.
pub fn parse(cx: &Ctxt, attrs: &[Attribute], owner: Option<&Ident>) -> Vec<IndexDecl> {
    let mut out = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident(INDEX)) {
        let mut decl = IndexDecl {
            attr: attr.clone(),
            name: None,
            local: false,
            hash: Vec::new(),
            range: Vec::new(),
            project: ProjectDecl::All,
        };
        let known = if owner.is_some() {
            FIELD_INDEX_KEYS
        } else {
            CONTAINER_INDEX_KEYS
        };
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident(NAME) {
                // name = "byStatus"
                let name: LitStr = meta.value()?.parse()?;
                if name.value().len() < 3 || name.value().len() > 255 {
                    cx.error_spanned_by(&name, "an index name has 3 to 255 characters");
                }
                decl.name = Some(name);
            } else if meta.path.is_ident(LOCAL) && owner.is_some() {
                // local
                decl.local = true;
            } else if meta.path.is_ident(RANGE_KEY) {
                // range_key = "placed_at" / range_key = [month, score]
                decl.range = if owner.is_some() {
                    vec![field_ref(&meta)?]
                } else {
                    field_list(&meta)?
                };
            } else if meta.path.is_ident(HASH_KEY) && owner.is_none() {
                // hash_key = [team, role]
                decl.hash = field_list(&meta)?;
            } else if meta.path.is_ident(PROJECT) {
                // project = ["total"] / project = false / project = true
                let input = meta.value()?;
                if input.peek(syn::LitBool) {
                    let all: syn::LitBool = input.parse()?;
                    decl.project = if all.value {
                        ProjectDecl::All
                    } else {
                        ProjectDecl::KeysOnly
                    };
                } else {
                    decl.project = ProjectDecl::Include(bracketed_fields(input)?);
                }
            } else {
                let path = &meta.path;
                let name = quote::quote!(#path).to_string().replace(' ', "");
                cx.error_spanned_by(path, symbol::unknown_key_message(&name, known, "index"));
                if meta.input.peek(syn::Token![=]) {
                    meta.value()?.parse::<syn::Expr>()?;
                }
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
        if let Some(owner) = owner {
            if decl.local {
                if !decl.range.is_empty() {
                    cx.error_spanned_by(attr, "a local index's range key is the field it is on; `range_key` does not apply");
                }
                decl.range = vec![FieldRef {
                    ident: owner.clone(),
                }];
            } else {
                decl.hash = vec![FieldRef {
                    ident: owner.clone(),
                }];
            }
        } else if decl.hash.is_empty() {
            cx.error_spanned_by(attr, "an index on the struct needs `hash_key = [...]`");
        }
        out.push(decl);
    }
    out
}

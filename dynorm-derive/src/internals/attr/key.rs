//! `#[key(...)]` on the struct: the key templates of a single-table model.
//!
//! ```text
//! #[key(pk = "TEAM#{team_id}", sk = "#METADATA")]                          // the table's keys
//! #[key(index = "GSI1", gsi1pk = "USER#{user_id}", gsi1sk = "TEAM#{team_id}")]   // a global index's keys
//! ```
//!
//! The first template is the hash key, the second (if any) the range key; each name is the
//! physical attribute. Under ElectroDB's convention, a list of fields instead of a template
//! is ElectroDB's default key built from them, and `collection` puts the entity in one:
//!
//! ```text
//! #[key(pk = [team_id], sk = [user_id], collection = "teamWithMembers")]
//! ```
//!
//! `casing = "none" | "lower" | "upper" | "default"` case-folds the rendered keys, as
//! ElectroDB's `casing` does, and `scope = "org"` adds a word to ElectroDB's default
//! partition key (`$app_org#..`), as its index `scope` does. On an index, `project = [a, b]`
//! projects these attributes (`INCLUDE`) and `project = false` the keys only, as on
//! `#[index]`.

use syn::{Attribute, LitStr};

use super::index::ProjectDecl;
use super::parse::{bracketed_fields, one_of, set_once, skip_value};
use crate::internals::symbol::*;
use crate::internals::template::Template;
use crate::internals::Ctxt;

/// One `#[key(...)]`: the table's keys, or an index's.
pub struct KeyDecl {
    /// The attribute, for errors about the whole declaration.
    pub attr: Attribute,
    /// The index name, or `None` for the table.
    pub index: Option<LitStr>,
    /// The hash key template.
    pub hash: Template,
    /// The range key template, if any.
    pub range: Option<Template>,
    /// `casing = ".."`, one of `symbol::CASINGS`.
    pub casing: Option<LitStr>,
    /// `collection = ".."`: ElectroDB's collection; a sub-collection
    /// (`collection = ["owned", "managed"]`) as its keys hold it, `owned#managed`.
    pub collection: Option<LitStr>,
    /// `scope = ".."`: ElectroDB's index scope, after the service in the partition key.
    pub scope: Option<LitStr>,
    /// `project = ..`: what the index projects; every attribute when absent.
    pub project: Option<ProjectDecl>,
}

/// `["owned", "managed"]`: ElectroDB's sub-collection, as the one text its keys hold
/// (`owned#managed`), spanned at the list.
fn sub_collection(cx: &Ctxt, input: syn::parse::ParseStream) -> syn::Result<LitStr> {
    let content;
    let brackets = syn::bracketed!(content in input);
    let names = content.parse_terminated(
        |p: syn::parse::ParseStream| p.parse::<LitStr>(),
        syn::Token![,],
    )?;
    let span = brackets.span.join();
    if names.is_empty() {
        cx.error_spanned_by(
            LitStr::new("", span),
            "a sub-collection names one collection or more: `collection = [\"owned\", \"managed\"]`",
        );
    }
    for name in &names {
        if name.value().is_empty() || name.value().contains('#') {
            cx.error_spanned_by(name, "a collection's name is not empty and holds no `#`");
        }
    }
    let text: Vec<String> = names.iter().map(LitStr::value).collect();
    Ok(LitStr::new(&text.join("#"), span))
}

/// Parses every `#[key(...)]` on the struct.
pub fn key(cx: &Ctxt, attrs: &[Attribute]) -> Vec<KeyDecl> {
    let mut out = Vec::new();
    for attr in attrs.iter().filter(|a| a.path() == KEY) {
        let mut index = None;
        let mut casing = None;
        let mut collection = None;
        let mut scope = None;
        let mut project = None;
        let mut templates = Vec::new();
        let result = attr.parse_nested_meta(|meta| {
            if meta.path == INDEX {
                // #[key(index = "GSI1", ..)]
                let value: LitStr = meta.value()?.parse()?;
                set_once(cx, &mut index, value, &meta, INDEX);
            } else if meta.path == CASING {
                // #[key(casing = "none", ..)]
                if let Some(value) = one_of(cx, &meta, CASINGS)? {
                    set_once(cx, &mut casing, value, &meta, CASING);
                }
            } else if meta.path == COLLECTION {
                // #[key(collection = "teamWithMembers", ..)], or a sub-collection:
                // #[key(collection = ["owned", "managed"], ..)]
                let input = meta.value()?;
                let value = if input.peek(syn::token::Bracket) {
                    sub_collection(cx, input)?
                } else {
                    input.parse()?
                };
                set_once(cx, &mut collection, value, &meta, COLLECTION);
            } else if meta.path == PROJECT {
                // #[key(index = "gsi1", .., project = [name, status])]
                project = Some(super::index::project(meta.value()?)?);
            } else if meta.path == SCOPE {
                // #[key(scope = "org", ..)]
                let value: LitStr = meta.value()?.parse()?;
                set_once(cx, &mut scope, value, &meta, SCOPE);
            } else if let Some(attribute) = meta.path.get_ident() {
                let input = meta.value()?;
                if input.peek(syn::token::Bracket) {
                    // #[key(pk = [team_id], ..)]: ElectroDB's default key
                    let span = input.span();
                    let fields = bracketed_fields(input)?;
                    templates.push(Template::composite(attribute.clone(), span, fields));
                } else {
                    // #[key(pk = "TEAM#{team_id}", ..)]
                    let literal: LitStr = input.parse()?;
                    templates.push(Template::parse(cx, attribute.clone(), literal));
                }
            } else {
                // #[key(a::b = ..)]: not an attribute name
                cx.error_spanned_by(
                    &meta.path,
                    "expected `attribute = \"template\"` or `index = \"name\"`",
                );
                skip_value(&meta)?;
            }
            Ok(())
        });
        if let Err(error) = result {
            cx.syn_error(error);
            continue;
        }
        if project.is_some() && index.is_none() {
            cx.error_spanned_by(
                attr,
                "`project` says what an index holds: put it on a #[key(index = \"..\", ..)]; the table holds every attribute",
            );
        }
        let count = templates.len();
        let mut templates = templates.into_iter();
        match (templates.next(), templates.next(), templates.next()) {
            (Some(hash), range, None) => out.push(KeyDecl {
                attr: attr.clone(),
                index,
                hash,
                range,
                casing,
                collection,
                scope,
                project,
            }),
            _ => cx.error_spanned_by(
                attr,
                format!(
                    "#[key] takes the hash key template and, optionally, the range key template: \
                     #[key(pk = \"TEAM#{{team_id}}\", sk = \"#METADATA\"), not {count} templates"
                ),
            ),
        }
    }
    out
}

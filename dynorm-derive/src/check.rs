//! The validate stage: rules that involve several fields or attributes.

use std::collections::HashMap;

use proc_macro2::TokenStream;
use quote::ToTokens;

use crate::ast::Container;
use crate::ctxt::Ctxt;
use crate::index::{FieldRef, ProjectDecl};
use crate::types;

/// Runs every check, recording each problem found, and returns the indexes with their
/// field names resolved.
pub fn check(cx: &Ctxt, cont: &Container) -> Vec<ResolvedIndex> {
    if cont.uses_templates() {
        check_templates(cx, cont);
    } else {
        check_hash_key(cx, cont);
        if let Some(entity) = cont
            .attrs
            .entity
            .as_ref()
            .or(cont.attrs.entity_attribute.as_ref())
        {
            cx.error_spanned_by(
                entity,
                "an entity name is for single-table models, whose keys come from #[key(...)] templates",
            );
        }
    }
    check_range_key(cx, cont);
    check_key_types(cx, cont);
    check_date_storage(cx, cont);
    check_unique_names(cx, cont);
    check_version_and_ttl(cx, cont);
    check_combines(cx, cont);
    check_behaviours(cx, cont);
    let indexes = resolve_indexes(cx, cont);
    check_index_counts(cx, cont, &indexes);
    indexes
}

/// What an index projects, with field positions.
pub enum Projected {
    All,
    KeysOnly,
    Include(Vec<usize>),
}

/// An index whose field names are resolved to field positions.
pub struct ResolvedIndex {
    pub name: String,
    pub local: bool,
    pub hash: Vec<usize>,
    pub range: Vec<usize>,
    pub projected: Projected,
}

/// Resolves a field reference, reporting an unknown name with a suggestion.
fn resolve_field(cx: &Ctxt, cont: &Container, field: &FieldRef) -> Option<usize> {
    let position = cont.field_position(&field.ident);
    if position.is_none() {
        let names: Vec<String> = cont.fields.iter().map(|f| f.ident.to_string()).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let hint = crate::symbol::did_you_mean(&field.ident.to_string(), &refs)
            .map(|s| format!("; did you mean `{s}`?"))
            .unwrap_or_default();
        cx.error_spanned_by(
            &field.ident,
            format!(
                "model `{}` has no field `{}`{hint}",
                cont.ident, field.ident
            ),
        );
    }
    position
}

/// Resolves every index and checks each one on its own.
fn resolve_indexes(cx: &Ctxt, cont: &Container) -> Vec<ResolvedIndex> {
    let mut seen_names: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for decl in &cont.indexes {
        let name = decl.name();
        if let Some(literal) = &decl.name {
            if seen_names.contains(&name) {
                cx.error_spanned_by(
                    literal,
                    format!("model `{}` declares index `{name}` twice", cont.ident),
                );
            }
            seen_names.push(name.clone());
        }
        // Every key field of the index with the tokens an error about it points at.
        let resolve = |refs: &[FieldRef]| -> Vec<(usize, TokenStream)> {
            refs.iter()
                .filter_map(|f| resolve_field(cx, cont, f).map(|p| (p, f.ident.to_token_stream())))
                .collect()
        };
        let mut hash = resolve(&decl.hash);
        let range = resolve(&decl.range);
        if decl.local {
            match (cont.fields.iter().position(|f| f.attrs.hash_key.is_some()), cont.range_key()) {
                (Some(table_hash), Some(_)) if range.iter().any(|(p, _)| *p == table_hash) => {
                    cx.error_spanned_by(
                        &decl.attr,
                        format!(
                            "local index `{name}` is on the table's hash key `{}`: a local index keeps the table's \
                             hash key and sorts by another attribute, so put it on that attribute",
                            cont.fields[table_hash].ident
                        ),
                    );
                }
                (Some(table_hash), Some(_)) => hash = vec![(table_hash, decl.attr.to_token_stream())],
                (_, None) => cx.error_spanned_by(
                    &decl.attr,
                    format!(
                        "local index `{name}` needs a table with a range key, and model `{}` has none: \
                         a local index shares the table's hash key and replaces its range key",
                        cont.ident
                    ),
                ),
                (None, _) => {}
            }
        }
        for (side, fields) in [("partition", &decl.hash), ("sort", &decl.range)] {
            if fields.len() > 4 {
                cx.error_spanned_by(
                    &fields[4].ident,
                    format!(
                        "index `{name}` has {} {side} key attributes; DynamoDB allows at most 4",
                        fields.len()
                    ),
                );
            }
        }
        let mut key_fields: Vec<usize> = Vec::new();
        for (position, tokens) in hash.iter().chain(&range) {
            let field = &cont.fields[*position];
            if key_fields.contains(position) {
                cx.error_spanned_by(
                    tokens,
                    format!(
                        "`{}` appears twice in the keys of index `{name}`",
                        field.ident
                    ),
                );
            }
            key_fields.push(*position);
            let present = types::option_inner(field.ty).unwrap_or(field.ty);
            if let Some(reason) = types::non_scalar_key_reason(present) {
                cx.error_spanned_by(
                    field.ty,
                    format!(
                        "`{}` is a key attribute of index `{name}`, so it must be one S, N or B scalar type: {reason}",
                        field.ident
                    ),
                );
            }
        }
        let hash: Vec<usize> = hash.into_iter().map(|(p, _)| p).collect();
        let range: Vec<usize> = range.into_iter().map(|(p, _)| p).collect();
        let projected = match &decl.project {
            ProjectDecl::All => Projected::All,
            ProjectDecl::KeysOnly => Projected::KeysOnly,
            ProjectDecl::Include(fields) => Projected::Include(
                fields
                    .iter()
                    .filter_map(|f| resolve_field(cx, cont, f))
                    .collect(),
            ),
        };
        out.push(ResolvedIndex {
            name,
            local: decl.local,
            hash,
            range,
            projected,
        });
    }
    out
}

/// At most 5 local and 20 global indexes.
fn check_index_counts(cx: &Ctxt, cont: &Container, indexes: &[ResolvedIndex]) {
    let mut locals = 0;
    let mut globals = 0;
    for (decl, index) in cont.indexes.iter().zip(indexes) {
        let (count, limit, kind) = if index.local {
            locals += 1;
            (locals, 5, "local")
        } else {
            globals += 1;
            (globals, 20, "global")
        };
        if count == limit + 1 {
            cx.error_spanned_by(
                &decl.attr,
                format!("model `{}` declares more than {limit} {kind} indexes; DynamoDB allows at most {limit}", cont.ident),
            );
        }
    }
}

/// Exactly one field is the hash key.
fn check_hash_key(cx: &Ctxt, cont: &Container) {
    let mut marked = cont.fields.iter().filter_map(|f| f.attrs.hash_key.as_ref());
    if marked.next().is_none() {
        cx.error_spanned_by(
            cont.ident,
            format!(
                "model `{}` has no hash key: mark one field with #[hash_key]",
                cont.ident
            ),
        );
    }
    for extra in marked {
        cx.error_spanned_by(
            extra,
            format!(
                "model `{}` has more than one #[hash_key]: a table has exactly one hash key",
                cont.ident
            ),
        );
    }
}

/// At most one field is the range key, and it is not also the hash key.
fn check_range_key(cx: &Ctxt, cont: &Container) {
    let mut marked = cont
        .fields
        .iter()
        .filter_map(|f| f.attrs.range_key.as_ref());
    marked.next();
    for extra in marked {
        cx.error_spanned_by(
            extra,
            format!(
                "model `{}` has more than one #[range_key]: a table has at most one range key",
                cont.ident
            ),
        );
    }
    for field in &cont.fields {
        if let (Some(_), Some(range)) = (&field.attrs.hash_key, &field.attrs.range_key) {
            cx.error_spanned_by(
                range,
                "a field cannot be both the hash key and the range key",
            );
        }
    }
}

/// A key field's type must be one S, N or B scalar. What syntax shows is reported here;
/// other types are checked by the `KeyScalar` bound in the generated code.
fn check_key_types(cx: &Ctxt, cont: &Container) {
    let keys = cont
        .fields
        .iter()
        .filter(|f| f.attrs.hash_key.is_some() || f.attrs.range_key.is_some());
    for field in keys {
        if let Some(reason) = types::non_scalar_key_reason(field.ty) {
            cx.error_spanned_by(
                field.ty,
                format!(
                    "key attribute `{}` of model `{}` must be one S, N or B scalar type: {reason}",
                    field.name, cont.ident
                ),
            );
        }
    }
}

/// `#[dynorm(date = ...)]` only applies to `DateTime` fields.
fn check_date_storage(cx: &Ctxt, cont: &Container) {
    for field in &cont.fields {
        if let Some((_, literal)) = &field.attrs.date {
            let ty = field.ty;
            if !types::is_date_time_or_option(ty) {
                cx.error_spanned_by(
                    literal,
                    format!(
                        "`date` storage applies to `DateTime<Utc>` or `Option<DateTime<Utc>>` fields, and field `{}` has type `{}`",
                        field.ident,
                        quote::quote!(#ty).to_string().replace(' ', "")
                    ),
                );
            }
        }
    }
}

/// No two fields map to the same attribute name.
fn check_unique_names(cx: &Ctxt, cont: &Container) {
    let mut seen: HashMap<&str, &syn::Ident> = HashMap::new();
    for field in &cont.fields {
        if let Some(first) = seen.insert(field.name.as_str(), field.ident) {
            cx.error_spanned_by(
                field.name_tokens(),
                format!(
                    "fields `{first}` and `{}` of model `{}` both map to attribute `{}`",
                    field.ident, cont.ident, field.name
                ),
            );
            seen.insert(field.name.as_str(), first);
        }
    }
}

/// Whether the type is a plain integer.
fn is_integer(ty: &syn::Type) -> bool {
    const INTEGERS: &[&str] = &[
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
    ];
    matches!(ty, syn::Type::Path(p) if p.qself.is_none()
        && p.path.segments.len() == 1
        && INTEGERS.iter().any(|i| p.path.segments[0].ident == i))
}

/// `#[version]` on one integer field, `#[ttl]` on one date field, neither on a key.
fn check_version_and_ttl(cx: &Ctxt, cont: &Container) {
    let mut version_seen = false;
    let mut ttl_seen = false;
    for field in &cont.fields {
        let is_key = field.attrs.hash_key.is_some() || field.attrs.range_key.is_some();
        if let Some(attr) = &field.attrs.version {
            if version_seen {
                cx.error_spanned_by(
                    attr,
                    format!("model `{}` has more than one #[version] field", cont.ident),
                );
            }
            version_seen = true;
            if !is_integer(field.ty) {
                cx.error_spanned_by(field.ty, "#[version] needs an integer field, such as `u64`");
            }
            if is_key {
                cx.error_spanned_by(attr, "a key attribute cannot be the #[version]");
            }
        }
        if let Some(attr) = &field.attrs.ttl {
            if ttl_seen {
                cx.error_spanned_by(
                    attr,
                    format!("model `{}` has more than one #[ttl] field", cont.ident),
                );
            }
            ttl_seen = true;
            if !types::is_date_time_or_option(field.ty) {
                cx.error_spanned_by(
                    field.ty,
                    "#[ttl] needs a `DateTime<Utc>` or `Option<DateTime<Utc>>` field",
                );
            }
            if let Some((storage, literal)) = &field.attrs.date {
                if *storage != crate::attr::DateStorage::Seconds {
                    cx.error_spanned_by(literal, "a #[ttl] date is always stored as epoch seconds");
                }
            }
            if is_key {
                cx.error_spanned_by(attr, "a key attribute cannot be the #[ttl]");
            }
        }
    }
}

/// `#[combine]` on a `String` field, from other fields that are not combined themselves.
fn check_combines(cx: &Ctxt, cont: &Container) {
    for field in &cont.fields {
        let Some(combine) = &field.attrs.combine else {
            continue;
        };
        if !types::is_string(field.ty) {
            cx.error_spanned_by(
                field.ty,
                "a #[combine] field holds the joined text, so it must be a `String`",
            );
        }
        for source in &combine.fields {
            let Some(position) = resolve_field(cx, cont, source) else {
                continue;
            };
            let source_field = &cont.fields[position];
            if source_field.ident == field.ident {
                cx.error_spanned_by(
                    &source.ident,
                    "a #[combine] field cannot be built from itself",
                );
            } else if source_field.attrs.combine.is_some() {
                cx.error_spanned_by(
                    &source.ident,
                    format!(
                        "`{}` is combined itself; combine its sources instead",
                        source.ident
                    ),
                );
            }
        }
    }
}

/// Single-table models: keys from `#[key]` templates, one of them for the table.
fn check_templates(cx: &Ctxt, cont: &Container) {
    for field in &cont.fields {
        for attr in [&field.attrs.hash_key, &field.attrs.range_key]
            .into_iter()
            .flatten()
        {
            cx.error_spanned_by(
                attr,
                "this model builds its keys from #[key(...)] templates, so no field is the hash or range key itself",
            );
        }
    }
    let primaries: Vec<_> = cont.keys.iter().filter(|k| k.index.is_none()).collect();
    if primaries.is_empty() {
        cx.error_spanned_by(
            &cont.keys[0].attr,
            "one #[key(...)] without `index` gives the table's keys, such as #[key(pk = \"TEAM#{team_id}\", sk = \"#METADATA\")]",
        );
    }
    for extra in primaries.iter().skip(1) {
        cx.error_spanned_by(
            &extra.attr,
            "the table's keys are given twice; add `index = \"...\"` for an index's keys",
        );
    }
    let mut names: Vec<String> = cont.indexes.iter().map(|i| i.name()).collect();
    for key in &cont.keys {
        let primary = key.index.is_none();
        if let Some(index) = &key.index {
            if names.contains(&index.value()) {
                cx.error_spanned_by(
                    index,
                    format!(
                        "model `{}` declares index `{}` twice",
                        cont.ident,
                        index.value()
                    ),
                );
            }
            names.push(index.value());
        }
        for template in std::iter::once(&key.hash).chain(&key.range) {
            for reference in template.fields() {
                let Some(position) = resolve_field(cx, cont, reference) else {
                    continue;
                };
                let field = &cont.fields[position];
                let optional = types::option_inner(field.ty).is_some();
                if optional && primary {
                    cx.error_spanned_by(
                        &template.literal,
                        format!(
                            "`{}` is an `Option`, and the table's keys are always present",
                            field.ident
                        ),
                    );
                    continue;
                }
                let present = types::option_inner(field.ty).unwrap_or(field.ty);
                if let Some(reason) = types::non_scalar_key_reason(present) {
                    cx.error_spanned_by(
                        &template.literal,
                        format!("`{}` cannot be part of a key: {reason}", field.ident),
                    );
                }
            }
        }
    }
}

/// Whether the type is, or wraps in an `Option`, a `String`.
fn is_string_or_option(ty: &syn::Type) -> bool {
    types::is_string(types::option_inner(ty).unwrap_or(ty))
}

/// `default`, `read_only` and `updated_at` fit their fields.
fn check_behaviours(cx: &Ctxt, cont: &Container) {
    let mut updated_at_seen = false;
    for field in &cont.fields {
        if let Some((default, literal)) = &field.attrs.default {
            let fits = match default {
                crate::attr::DefaultValue::Now => types::is_date_time_or_option(field.ty),
                crate::attr::DefaultValue::UuidV7 => is_string_or_option(field.ty),
            };
            if !fits {
                let wants = match default {
                    crate::attr::DefaultValue::Now => {
                        "a `DateTime<Utc>` or `Option<DateTime<Utc>>`"
                    }
                    crate::attr::DefaultValue::UuidV7 => "a `String` or `Option<String>`",
                };
                cx.error_spanned_by(literal, format!("this default needs {wants} field"));
            }
        }
        if let Some(path) = &field.attrs.updated_at {
            if updated_at_seen {
                cx.error_spanned_by(
                    path,
                    format!(
                        "model `{}` has more than one `updated_at` field",
                        cont.ident
                    ),
                );
            }
            updated_at_seen = true;
            if !types::is_date_time_or_option(field.ty) {
                cx.error_spanned_by(
                    field.ty,
                    "`updated_at` needs a `DateTime<Utc>` or `Option<DateTime<Utc>>` field",
                );
            }
        }
    }
}

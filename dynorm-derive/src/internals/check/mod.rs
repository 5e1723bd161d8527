//! The check stage: rules that involve several fields or attributes, validated on the
//! resolved facts. It only reports; it changes nothing.

mod convention;
mod derived;

use std::collections::HashMap;

use syn::ext::IdentExt;

use crate::internals::ast::Container;
use crate::internals::attr::{DateStorage, DefaultValue};
use crate::internals::resolve::{Field, IndexKeys, Model, Part, PrimaryKey, Template};
use crate::internals::types::{self, Shape};
use crate::internals::Ctxt;

/// Runs every check, recording each problem found.
pub fn check(cx: &Ctxt, cont: &Container, model: &Model) {
    check_key_markers(cx, cont);
    check_entity(cx, cont);
    check_key_types(cx, model);
    check_templates(cx, model);
    check_date_storage(cx, model);
    check_unique_names(cx, model);
    check_version_and_ttl(cx, model);
    check_combines(cx, model);
    derived::check_derived(cx, model);
    check_uniques(cx, model);
    check_guard_name(cx, cont, model);
    check_guard_prefix(cx, model);
    check_counts(cx, model);
    check_shape(cx, cont, model);
    check_behaviours(cx, model);
    check_generated_keys(cx, model);
    check_index_declarations(cx, cont);
    check_index_keys(cx, model);
    check_index_counts(cx, model);
    check_index_types(cx, model);
    convention::check_convention(cx, cont, model);
}

/// `#[hash_key]` and `#[range_key]`: at most one of each, never on the same field, and
/// none on a model whose keys come from templates.
fn check_key_markers(cx: &Ctxt, cont: &Container) {
    if cont.uses_templates() {
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
        return;
    }
    let hash_keys = cont.fields.iter().filter_map(|f| f.attrs.hash_key.as_ref());
    for extra in hash_keys.skip(1) {
        cx.error_spanned_by(
            extra,
            format!(
                "model `{}` has more than one #[hash_key]: a table has exactly one hash key",
                cont.ident
            ),
        );
    }
    let range_keys = cont
        .fields
        .iter()
        .filter_map(|f| f.attrs.range_key.as_ref());
    for extra in range_keys.skip(1) {
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

/// An entity name only fits a single-table model, and its table keys are given once.
fn check_entity(cx: &Ctxt, cont: &Container) {
    if !cont.uses_templates() {
        let entity = cont.attrs.entity.as_ref();
        if let Some(entity) = entity.or(cont.attrs.entity_attribute.as_ref()) {
            cx.error_spanned_by(
                entity,
                "an entity name is for single-table models, whose keys come from #[key(...)] templates",
            );
        }
        return;
    }
    let primaries = cont.keys.iter().filter(|k| k.index.is_none());
    for extra in primaries.skip(1) {
        cx.error_spanned_by(
            &extra.attr,
            "the table's keys are given twice; add `index = \"...\"` for an index's keys",
        );
    }
}

/// A key field's type must be one S, N or B scalar. What syntax shows is reported here;
/// other types are checked by the `KeyScalar` bound in the generated code.
fn check_key_types(cx: &Ctxt, model: &Model) {
    for field in model.fields.iter().filter(|f| f.ast.attrs.is_key()) {
        if let Some(reason) = types::non_scalar_key_reason(field.ty) {
            cx.error_spanned_by(
                field.ty,
                format!(
                    "key attribute `{}` of model `{}` must be one S, N or B scalar type: {reason}",
                    field.name, model.ident
                ),
            );
        }
    }
}

/// The fields of key templates: always present in the table's keys, and scalar.
fn check_templates(cx: &Ctxt, model: &Model) {
    let table = match &model.primary {
        Some(PrimaryKey::Templates { hash, range }) => std::iter::once(hash).chain(range).collect(),
        _ => Vec::new(),
    };
    let indexes = model.indexes.iter().flat_map(|index| match &index.keys {
        IndexKeys::Templates { hash, range } => std::iter::once(hash).chain(range).collect(),
        IndexKeys::Fields { .. } => Vec::new(),
    });
    let templates = table
        .into_iter()
        .map(|t| (t, true))
        .chain(indexes.map(|t| (t, false)));
    for (template, primary) in templates {
        check_template(cx, model, template, primary);
    }
}

/// The fields of one template; `primary` for the table's keys. A key written into its own
/// field's attribute (`#[key(accountId = "prefix_{account_id}_postfix", ..)]`) is read
/// back into the field: it is the table's key, of that field alone, and a `String`.
fn check_template(cx: &Ctxt, model: &Model, template: &Template, primary: bool) {
    if let Some(own) = template.own_field(&model.fields) {
        let field = &model.fields[own];
        let problem = if !primary {
            Some("an index's key written into its field's own attribute would be written twice by an update of the field; name another attribute")
        } else if template.distinct_fields().len() > 1 {
            Some("a key written into its field's own attribute is built from that field alone, so that the field reads back out of it")
        } else if !types::is_string(field.present) {
            Some("a key written into its field's own attribute holds text, so the field is a `String`")
        } else {
            None
        };
        if let Some(problem) = problem {
            cx.error_spanned_by(
                template.literal,
                format!(
                    "`{}` is `{}`'s own attribute: {problem}",
                    template.attribute, field.member
                ),
            );
        }
    }
    for position in template.fields() {
        let field = &model.fields[position];
        if field.optional && primary {
            cx.error_spanned_by(
                template.literal,
                format!(
                    "`{}` is an `Option`, and the table's keys are always present",
                    field.member
                ),
            );
            continue;
        }
        if let Some(reason) = types::non_text_part_reason(field.present) {
            cx.error_spanned_by(
                template.literal,
                format!("`{}` cannot be part of a key: {reason}", field.member),
            );
        }
    }
}

/// Whether the field holds, or holds in an `Option`, a `DateTime`.
fn is_date(field: &Field) -> bool {
    field.shape == Shape::DateTime
}

/// `#[dynorm(date = ...)]` only applies to `DateTime` fields.
fn check_date_storage(cx: &Ctxt, model: &Model) {
    for field in &model.fields {
        if let Some((_, literal)) = &field.ast.attrs.date {
            if !is_date(field) {
                let ty = field.ty;
                cx.error_spanned_by(
                    literal,
                    format!(
                        "`date` storage applies to `DateTime<Utc>` or `Option<DateTime<Utc>>` fields, and field `{}` has type `{}`",
                        field.member,
                        quote::quote!(#ty).to_string().replace(' ', "")
                    ),
                );
            }
        }
    }
}

/// No two fields map to the same attribute name.
fn check_unique_names(cx: &Ctxt, model: &Model) {
    let mut seen: HashMap<&str, &syn::Ident> = HashMap::new();
    for field in &model.fields {
        if let Some(first) = seen.insert(field.name.as_str(), field.member) {
            let written = match &field.ast.attrs.rename {
                Some(rename) => quote::ToTokens::to_token_stream(rename),
                None => quote::ToTokens::to_token_stream(field.member),
            };
            cx.error_spanned_by(
                written,
                format!(
                    "fields `{first}` and `{}` of model `{}` both map to attribute `{}`",
                    field.member, model.ident, field.name
                ),
            );
            seen.insert(field.name.as_str(), first);
        }
    }
}

/// `#[version]` on one integer field, `#[ttl]` on one date field, neither on a key.
fn check_version_and_ttl(cx: &Ctxt, model: &Model) {
    let mut version_seen = false;
    let mut ttl_seen = false;
    for field in &model.fields {
        let attrs = &field.ast.attrs;
        if let Some(attr) = &attrs.version {
            if version_seen {
                cx.error_spanned_by(
                    attr,
                    format!("model `{}` has more than one #[version] field", model.ident),
                );
            }
            version_seen = true;
            if !types::is_integer(field.ty) {
                cx.error_spanned_by(field.ty, "#[version] needs an integer field, such as `u64`");
            }
            if attrs.is_key() {
                cx.error_spanned_by(attr, "a key attribute cannot be the #[version]");
            }
        }
        if let Some(attr) = &attrs.ttl {
            if ttl_seen {
                cx.error_spanned_by(
                    attr,
                    format!("model `{}` has more than one #[ttl] field", model.ident),
                );
            }
            ttl_seen = true;
            if !is_date(field) {
                cx.error_spanned_by(
                    field.ty,
                    "#[ttl] needs a `DateTime<Utc>` or `Option<DateTime<Utc>>` field",
                );
            }
            if let Some((storage, literal)) = &attrs.date {
                if *storage != DateStorage::Seconds {
                    cx.error_spanned_by(literal, "a #[ttl] date is always stored as epoch seconds");
                }
            }
            if attrs.is_key() {
                cx.error_spanned_by(attr, "a key attribute cannot be the #[ttl]");
            }
        }
    }
}

/// `#[combine]` on a `String` field, and `watch` on any, from other fields that are not
/// built themselves.
fn check_combines(cx: &Ctxt, model: &Model) {
    for combine in &model.combines {
        let field = &model.fields[combine.field];
        if combine.compute.is_none() && (field.optional || !field.string) {
            cx.error_spanned_by(
                field.ty,
                "a #[combine] field holds the joined text, so it must be a `String`",
            );
        }
        for source in &combine.sources {
            if source.field == combine.field {
                cx.error_spanned_by(source.written, "a field cannot be built from itself");
            } else if model.combine_of(source.field).is_some() {
                cx.error_spanned_by(
                    source.written,
                    format!(
                        "`{}` is built from other fields itself (#[combine] or `watch`); name its sources instead",
                        source.written
                    ),
                );
            }
        }
    }
}

/// `#[unique]`: on attributes that with their scope are not the whole table key (which
/// is unique already; one part of a key of several is not) nor combined, each field once,
/// no constraint twice, and no `#[ttl]` on the model, whose expiry would leave the guard
/// items behind.
fn check_uniques(cx: &Ctxt, model: &Model) {
    let mut seen: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
    for unique in &model.uniques {
        let span = &unique.decl.attr;
        let covers_key = model
            .key_fields
            .iter()
            .all(|k| unique.fields.contains(k) || unique.scope.contains(k));
        if covers_key {
            let key: Vec<String> = model
                .key_fields
                .iter()
                .map(|&k| format!("`{}`", model.fields[k].ast.ident))
                .collect();
            cx.error_spanned_by(
                span,
                format!(
                    "this constraint holds the whole table key ({}), which is unique already; #[unique] is for other attributes, or one part of a key of several",
                    key.join(", ")
                ),
            );
        }
        for &position in &unique.fields {
            let name = &model.fields[position].ast.ident;
            // A `watch` field is built from others too: `check::derived` says so, once.
            let watched = model.fields[position].ast.attrs.watch.is_some();
            if model.combine_of(position).is_some() && !watched {
                cx.error_spanned_by(
                    span,
                    format!("`{name}` is a #[combine] field; make its sources unique together instead: #[unique(fields = [..])] on the struct"),
                );
            } else if model.version == Some(position) {
                cx.error_spanned_by(
                    span,
                    format!(
                        "`{name}` is the #[version], which dynorm increments; it cannot be unique"
                    ),
                );
            }
        }
        let all: Vec<usize> = unique.scope.iter().chain(&unique.fields).copied().collect();
        if let Some(twice) = all.iter().enumerate().find(|(i, p)| all[..*i].contains(p)) {
            cx.error_spanned_by(
                span,
                format!(
                    "`{}` appears twice in this unique constraint",
                    model.fields[*twice.1].ast.ident
                ),
            );
        }
        let mut key = (unique.fields.clone(), unique.scope.clone());
        key.0.sort_unstable();
        key.1.sort_unstable();
        if seen.contains(&key) {
            cx.error_spanned_by(span, "this unique constraint is declared twice");
        }
        seen.push(key);
        if let Some(ttl) = model.ttl {
            cx.error_spanned_by(
                span,
                format!(
                    "this model has a #[ttl] (`{}`): DynamoDB's TTL deletes an item without its unique guard items, which would keep its values taken",
                    model.fields[ttl].ast.ident
                ),
            );
        }
    }
}

/// A model with unique attributes names its guards with a stable name, never its type's
/// name: `#[dynorm(unique_name = "..")]`, or an entity name given with
/// `#[dynorm(entity = "..")]`.
fn check_guard_name(cx: &Ctxt, cont: &Container, model: &Model) {
    let Some(first) = cont.uniques.first() else {
        return;
    };
    if model.unique_owner.is_some() {
        return;
    }
    let entity = if cont.uses_templates() {
        " (or an entity name: `#[dynorm(entity = \"..\")]`)"
    } else {
        ""
    };
    cx.error_spanned_by(
        &first.attr,
        format!(
            "model `{ident}` has unique attributes, so it needs a stable name for the keys of their guard items: \
             add `#[dynorm(unique_name = \"{ident}\")]`{entity}; guard keys never use the Rust type's name, \
             so that renaming the struct keeps its unique values; for a table already in use, \
             the name must be the type's name when its guards were written",
            ident = model.ident
        ),
    );
}

/// The table's hash key template cannot begin as a guard item's key does: every key that
/// begins with `$unique#` is a guard's.
fn check_guard_prefix(cx: &Ctxt, model: &Model) {
    let Some(PrimaryKey::Templates { hash, .. }) = &model.primary else {
        return;
    };
    if let Some(Part::Static(text)) = hash.parts.first() {
        if text.starts_with(GUARD_PREFIX) {
            cx.error_spanned_by(
                hash.literal,
                format!(
                    "the hash key template begins with `{GUARD_PREFIX}`, which only the guard items of #[unique] attributes use; \
                     no item of a model can have such a key"
                ),
            );
        }
    }
}

/// How every guard item's hash key begins (`dynorm::schema::unique::GUARD_PREFIX`).
const GUARD_PREFIX: &str = "$unique#";

/// The shape attribute is not one of the model's own attributes.
fn check_shape(cx: &Ctxt, cont: &Container, model: &Model) {
    let Some(shape) = &model.shape else {
        return;
    };
    if let Some(field) = model.fields.iter().find(|f| f.name == shape.attribute) {
        let at: &dyn quote::ToTokens = match &cont.attrs.shape_attribute {
            Some(literal) => literal,
            None => field.ast.ident,
        };
        cx.error_spanned_by(
            at,
            format!(
                "`{}` stores the item's shape, so no field can have that attribute name; rename the field or set `shape_attribute`",
                shape.attribute
            ),
        );
    }
}

/// `#[count]`: no `#[ttl]` on the model, whose expiry would not count down.
fn check_counts(cx: &Ctxt, model: &Model) {
    let Some(ttl) = model.ttl else {
        return;
    };
    for count in &model.counts {
        cx.error_spanned_by(
            &count.decl.attr,
            format!(
                "this model has a #[ttl] (`{}`): DynamoDB's TTL deletes an item without counting it down; keep such a count from the change stream instead",
                model.fields[ttl].ast.ident
            ),
        );
    }
}

/// `default` and `updated_at` fit their fields, and `updated_at` is on one field.
fn check_behaviours(cx: &Ctxt, model: &Model) {
    let mut updated_at_seen = false;
    for field in &model.fields {
        let attrs = &field.ast.attrs;
        if let Some((default, literal)) = &attrs.default {
            let (fits, wants) = match default {
                DefaultValue::Now => (
                    is_date(field),
                    "a `DateTime<Utc>` or `Option<DateTime<Utc>>`",
                ),
                DefaultValue::UuidV7 => (
                    field.string || types::is_uuid(field.present),
                    "a `Uuid`, `String` or `Option` of one",
                ),
                // Its type is the compiler's to check, against the field's.
                DefaultValue::Fixed(_) => {
                    if attrs.version.is_some()
                        || attrs.combine.is_some()
                        || attrs.updated_at.is_some()
                    {
                        cx.error_spanned_by(
                            literal,
                            "dynorm sets this field on every write (`#[version]`, `#[combine]` or `updated_at`), so it takes no default",
                        );
                    }
                    (true, "")
                }
            };
            if !fits {
                cx.error_spanned_by(literal, format!("this default needs {wants} field"));
            }
        }
        if let Some(path) = &attrs.updated_at {
            if updated_at_seen {
                cx.error_spanned_by(
                    path,
                    format!(
                        "model `{}` has more than one `updated_at` field",
                        model.ident
                    ),
                );
            }
            updated_at_seen = true;
            if !is_date(field) {
                cx.error_spanned_by(
                    field.ty,
                    "`updated_at` needs a `DateTime<Utc>` or `Option<DateTime<Utc>>` field",
                );
            }
        }
    }
}

/// The table's key holds nothing dynorm changes on every write (`updated_at`, the
/// `#[version]`): its template, its `#[combine]` sources, its fields. An index's key may
/// (every write renders it again), but the table's key would move the item on every write.
fn check_generated_keys(cx: &Ctxt, model: &Model) {
    let changing = |position: usize| {
        if model
            .updated_at
            .as_ref()
            .is_some_and(|g| g.field == position)
        {
            Some("#[dynorm(updated_at)], which dynorm sets to now on every write")
        } else if model.version == Some(position) {
            Some("the #[version], which dynorm increments on every write")
        } else {
            None
        }
    };
    let message = |position: usize, why: &str| {
        format!(
            "`{}` is {why}, so it cannot be part of the table's key: the item would move to a new key on every write; use it in an index's key instead",
            model.fields[position].member
        )
    };
    match &model.primary {
        Some(PrimaryKey::Templates { hash, range }) => {
            for template in std::iter::once(hash).chain(range) {
                for position in template.fields() {
                    if let Some(why) = changing(position) {
                        cx.error_spanned_by(template.literal, message(position, why));
                    }
                }
            }
        }
        Some(PrimaryKey::Fields { hash, range }) => {
            for key in std::iter::once(*hash).chain(*range) {
                if let Some(why) = changing(key) {
                    // The version's own marker check reports a version key already.
                    if model.version != Some(key) {
                        cx.error_spanned_by(model.fields[key].ty, message(key, why));
                    }
                }
                for source in model.combine_of(key).map_or(&[][..], |c| &c.sources[..]) {
                    if let Some(why) = changing(source.field) {
                        cx.error_spanned_by(source.written, message(source.field, why));
                    }
                }
            }
        }
        None => {}
    }
}

/// Index names are unique, and each `#[index]` names at most 4 attributes per key and
/// none twice.
fn check_index_declarations(cx: &Ctxt, cont: &Container) {
    let declared = cont.indexes.iter().filter_map(|i| i.name.as_ref());
    let templated = cont.keys.iter().filter_map(|k| k.index.as_ref());
    let mut seen: Vec<String> = Vec::new();
    for literal in declared.chain(templated) {
        let name = literal.value();
        if seen.contains(&name) {
            cx.error_spanned_by(
                literal,
                format!("model `{}` declares index `{name}` twice", cont.ident),
            );
        }
        seen.push(name);
    }
    for decl in &cont.indexes {
        let name = decl
            .name
            .as_ref()
            .map_or_else(String::new, syn::LitStr::value);
        for (side, fields) in [("partition", &decl.hash), ("sort", &decl.range)] {
            if let Some(fifth) = fields.get(4) {
                cx.error_spanned_by(
                    &fifth.ident,
                    format!(
                        "index `{name}` has {} {side} key attributes; DynamoDB allows at most 4",
                        fields.len()
                    ),
                );
            }
        }
        let mut keys: Vec<syn::Ident> = Vec::new();
        for reference in decl.hash.iter().chain(&decl.range) {
            let key = reference.ident.unraw();
            if keys.contains(&key) {
                cx.error_spanned_by(
                    &reference.ident,
                    format!(
                        "`{}` appears twice in the keys of index `{name}`",
                        reference.ident
                    ),
                );
            }
            keys.push(key);
        }
    }
}

/// An index key field holds one S, N or B scalar (or an `Option` of one: a sparse index).
fn check_index_keys(cx: &Ctxt, model: &Model) {
    for index in &model.indexes {
        for position in index.key_fields() {
            let field = &model.fields[position];
            if let Some(reason) = types::non_scalar_key_reason(field.present) {
                cx.error_spanned_by(
                    field.ty,
                    format!(
                        "`{}` is a key attribute of index `{}`, so it must be one S, N or B scalar type: {reason}",
                        field.member, index.name
                    ),
                );
            }
        }
    }
}

/// At most 5 local and 20 global indexes.
fn check_index_counts(cx: &Ctxt, model: &Model) {
    let mut locals = 0;
    let mut globals = 0;
    for index in &model.indexes {
        let (count, limit, kind) = if index.local {
            locals += 1;
            (locals, 5, "local")
        } else {
            globals += 1;
            (globals, 20, "global")
        };
        if count == limit + 1 {
            cx.error_spanned_by(
                index.attr,
                format!(
                    "model `{}` declares more than {limit} {kind} indexes; DynamoDB allows at most {limit}",
                    model.ident
                ),
            );
        }
    }
}

/// Each index's marker type has its own name: `byStatus` and `by_status` would both be
/// `OrderByStatus`, an index named `key` would be the key struct `OrderKey`, and one named
/// `___` the model `Order`. Indexes with the same name were reported already.
fn check_index_types(cx: &Ctxt, model: &Model) {
    for (position, index) in model.indexes.iter().enumerate() {
        let taken = if index.marker == model.key_struct {
            Some("the key struct")
        } else if index.marker == model.name {
            Some("the model itself")
        } else {
            None
        };
        if let Some(taken) = taken {
            cx.error_spanned_by(
                index.attr,
                format!(
                    "index `{}` would be queried through the type `{}`, which is {taken} of model `{}`; rename the index",
                    index.name, index.marker, model.ident
                ),
            );
        }
        let earlier = model.indexes[..position]
            .iter()
            .find(|other| other.marker == index.marker && other.name != index.name);
        if let Some(other) = earlier {
            cx.error_spanned_by(
                index.attr,
                format!(
                    "indexes `{}` and `{}` of model `{}` would both be queried through the type `{}`; rename one of them",
                    other.name, index.name, model.ident, index.marker
                ),
            );
        }
    }
}

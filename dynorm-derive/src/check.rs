//! The validate stage: rules that involve several fields or attributes.

use std::collections::HashMap;

use crate::ast::Container;
use crate::ctxt::Ctxt;
use crate::types;

/// Runs every check, recording each problem found.
pub fn check(cx: &Ctxt, cont: &Container) {
    check_hash_key(cx, cont);
    check_range_key(cx, cont);
    check_key_types(cx, cont);
    check_date_storage(cx, cont);
    check_unique_names(cx, cont);
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
            if !types::is_date_time_or_option(field.ty) {
                cx.error_spanned_by(
                    literal,
                    format!(
                        "`date` storage applies to `DateTime<Utc>` or `Option<DateTime<Utc>>` fields, and `{}` is neither",
                        field.ident
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

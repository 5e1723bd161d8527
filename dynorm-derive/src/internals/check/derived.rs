//! `watch` (a field computed from others on every write) and the `set`/`get` transforms:
//! each on a field whose stored value nothing else reads or builds from.

use crate::internals::attr::DefaultValue;
use crate::internals::resolve::Model;
use crate::internals::Ctxt;

/// A `watch` field has its `set` and nothing else that sets it; a `set` or `get` transform
/// is on a field that no constraint, count or relation compares as given, and that dynorm
/// does not set itself. Keys and built fields take the stored value, as ElectroDB's do.
pub fn check_derived(cx: &Ctxt, model: &Model) {
    let bound = bound_fields(model);
    for (position, field) in model.fields.iter().enumerate() {
        let attrs = &field.ast.attrs;
        if let (Some(set), Some(_), None) = (&attrs.set, &attrs.combine, &attrs.watch) {
            cx.error_spanned_by(
                set,
                "a #[combine] field is its sources' text joined, so it takes no `set` transform; compute it with `watch` instead",
            );
        }
        // A guard, a count or a relation compares the value a caller gives; an update that
        // changes a built field's source would leave it behind.
        let compared = bound
            .iter()
            .find(|(p, why)| *p == position && !why.starts_with("the #") && !why.starts_with('`'));
        if let (Some(built), Some((_, why))) = (model.combine_of(position), compared) {
            let span = &model.fields[built.field].ty;
            cx.error_spanned_by(
                span,
                format!(
                    "`{}` is built from other fields (#[combine] or `watch`), so it cannot be {why}: name its sources instead",
                    field.member
                ),
            );
        }
        if let Some((_, span)) = &attrs.watch {
            let error = |message: &str| cx.syn_error(syn::Error::new(*span, message));
            if attrs.set.is_none() {
                error("a `watch` field is computed by its `set` function: #[dynorm(watch = [a, b], set = f)], with `fn f(a: &A, b: &B) -> T`");
            }
            if attrs.combine.is_some() {
                error("a field is either #[combine]d or computed with `watch`, not both");
            }
            let other = [
                (attrs.version.is_some(), "the #[version]"),
                (attrs.ttl.is_some(), "the #[ttl]"),
                (attrs.updated_at.is_some(), "`updated_at`"),
                (attrs.default.is_some(), "given a `default`"),
                (attrs.is_key(), "a key of the table"),
                (
                    model.key_fields.contains(&position) && !attrs.is_key(),
                    "a source of the table's key",
                ),
            ];
            for (_, what) in other.iter().filter(|(is, _)| *is) {
                error(&format!(
                    "a `watch` field is computed on every write, so it cannot be {what}{}",
                    if what.contains("table") {
                        ": the item would move to a new key; use it in an index's key"
                    } else {
                        ""
                    }
                ));
            }
            continue;
        }
        for path in attrs.set.iter().chain(&attrs.get) {
            if let Some(why) = bound.iter().find(|(p, _)| *p == position).map(|(_, w)| w) {
                cx.error_spanned_by(
                    path,
                    format!(
                        "`{}` is {why}, which is compared or set as given, so it takes no `set` or `get` transform; a newtype with its own serde does this",
                        field.member
                    ),
                );
            }
        }
        if let (Some(set), Some((DefaultValue::Now | DefaultValue::UuidV7, _))) =
            (&attrs.set, &attrs.default)
        {
            cx.error_spanned_by(
                set,
                "dynorm generates this field's value, so it takes no `set` transform",
            );
        }
    }
}

/// The fields whose value something else compares as given or dynorm sets, each with what.
fn bound_fields(model: &Model) -> Vec<(usize, &'static str)> {
    let mut out: Vec<(usize, &'static str)> = Vec::new();
    let mut add = |position: usize, why: &'static str| {
        if !out.iter().any(|(p, _)| *p == position) {
            out.push((position, why));
        }
    };
    for unique in &model.uniques {
        for &position in unique.fields.iter().chain(&unique.scope) {
            add(position, "#[unique] or its scope");
        }
    }
    for count in &model.counts {
        for &position in &count.fields {
            add(position, "a #[count]'s reference to its parent");
        }
    }
    for relation in &model.relations {
        for &position in &relation.fields {
            add(position, "a #[relation]'s field");
        }
    }
    let generated = [
        (model.version, "the #[version]"),
        (model.ttl, "the #[ttl]"),
        (model.updated_at.as_ref().map(|g| g.field), "`updated_at`"),
    ];
    for (position, why) in generated {
        if let Some(position) = position {
            add(position, why);
        }
    }
    out
}

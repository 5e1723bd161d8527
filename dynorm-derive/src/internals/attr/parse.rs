//! What every attribute parser shares: fields named in attributes, a key set once, an
//! unknown key reported with a suggestion, and the common value shapes.

use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::{Ident, LitStr};

use crate::internals::symbol::{self, Symbol};
use crate::internals::Ctxt;

/// A reference to a field by its Rust name, kept for its span.
#[derive(Clone)]
pub struct FieldRef {
    /// The name as written, with the span of where it was written.
    pub ident: Ident,
}

/// Sets an attribute once, and reports a second occurrence at its own span.
pub(super) fn set_once<T>(
    cx: &Ctxt,
    slot: &mut Option<T>,
    value: T,
    meta: &ParseNestedMeta,
    key: Symbol,
) {
    if slot.is_some() {
        cx.error_spanned_by(&meta.path, format!("duplicate dynorm attribute `{key}`"));
    } else {
        *slot = Some(value);
    }
}

/// Consumes the value of an attribute key that was not recognised, so that parsing goes on.
pub(super) fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|nested| skip_value(&nested))?;
    }
    Ok(())
}

/// Reports an unknown key of `#[{place}(...)]`, suggesting the closest known one, and
/// skips its value. Returns the suggested key, which the user probably meant to give.
pub(super) fn unknown_key(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    known: &[Symbol],
    place: &str,
) -> syn::Result<Option<Symbol>> {
    let path = &meta.path;
    let name = match path.get_ident() {
        Some(ident) => ident.to_string(),
        None => quote::quote!(#path).to_string().replace(' ', ""),
    };
    cx.error_spanned_by(path, symbol::unknown_key_message(&name, known, place));
    skip_value(meta)?;
    let suggestion = symbol::did_you_mean(&name, known.iter().map(|k| k.as_str()));
    Ok(known
        .iter()
        .copied()
        .find(|k| Some(k.as_str()) == suggestion))
}

/// A non-empty string value: `key = "text"`, reporting an empty one as `what` cannot be
/// empty.
pub(super) fn non_empty_string(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    what: &str,
) -> syn::Result<LitStr> {
    let value: LitStr = meta.value()?.parse()?;
    if value.value().is_empty() {
        cx.error_spanned_by(&value, format!("{what} cannot be empty"));
    }
    Ok(value)
}

/// A string value that must be one of `known`: reported, and `None`, when it is not.
pub(super) fn one_of(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    known: &[&str],
) -> syn::Result<Option<LitStr>> {
    let value: LitStr = meta.value()?.parse()?;
    if known.contains(&value.value().as_str()) {
        Ok(Some(value))
    } else {
        cx.error_spanned_by(&value, symbol::unknown_value_message(&value.value(), known));
        Ok(None)
    }
}

/// One field name after `=`: `"a"` or `a`.
pub(super) fn field_ref(meta: &ParseNestedMeta) -> syn::Result<FieldRef> {
    field_ref_from(meta.value()?)
}

/// A list of field names after `=`: `[a, b]`, `["a", "b"]`, or one name.
pub(super) fn field_list(meta: &ParseNestedMeta) -> syn::Result<Vec<FieldRef>> {
    let input = meta.value()?;
    if input.peek(syn::token::Bracket) {
        bracketed_fields(input)
    } else {
        Ok(vec![field_ref_from(input)?])
    }
}

/// `[a, b]` or `["a", "b"]`.
pub(super) fn bracketed_fields(input: ParseStream) -> syn::Result<Vec<FieldRef>> {
    let content;
    syn::bracketed!(content in input);
    let fields = content.parse_terminated(field_ref_from, syn::Token![,])?;
    Ok(fields.into_iter().collect())
}

/// One field name: a string literal such as `"placed_at"` or `"r#type"`, or a bare
/// identifier.
fn field_ref_from(input: ParseStream) -> syn::Result<FieldRef> {
    if !input.peek(LitStr) {
        return Ok(FieldRef {
            ident: input.parse()?,
        });
    }
    let literal: LitStr = input.parse()?;
    let ident = ident_from_text(&literal.value(), literal.span()).ok_or_else(|| {
        syn::Error::new(
            literal.span(),
            format!("{:?} is not a field name", literal.value()),
        )
    })?;
    Ok(FieldRef { ident })
}

/// `text` as one identifier at `span`, such as `placed_at` or `r#type`; `None` for a
/// keyword or anything else that is not one. Only text made of identifier characters is
/// parsed, so that no other text reaches the lexer.
pub fn ident_from_text(text: &str, span: proc_macro2::Span) -> Option<Ident> {
    let (raw, body) = match text.strip_prefix("r#") {
        Some(body) => (true, body),
        None => (false, text),
    };
    let mut chars = body.chars();
    let starts = chars
        .next()
        .is_some_and(|first| first == '_' || first.is_alphabetic());
    if !starts || !chars.all(|c| c == '_' || c.is_alphanumeric()) {
        return None;
    }
    if raw && ["_", "crate", "self", "Self", "super"].contains(&body) {
        return None;
    }
    let mut ident = syn::parse_str::<Ident>(text).ok()?;
    ident.set_span(span);
    Some(ident)
}

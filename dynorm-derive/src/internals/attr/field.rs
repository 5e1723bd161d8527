//! The attributes on one field: `#[dynorm(...)]`, `#[combine(...)]` and the markers
//! `#[hash_key]`, `#[range_key]`, `#[version]` and `#[ttl]`.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, LitStr};

use super::parse::{field_list, non_empty_string, set_once, unknown_key, FieldRef};
use crate::internals::symbol::{self, *};
use crate::internals::Ctxt;

/// How a `DateTime` is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DateStorage {
    /// Fixed-width ISO 8601 text in UTC with milliseconds: S.
    Iso,
    /// Epoch milliseconds: N.
    Milliseconds,
    /// Epoch seconds: N.
    Seconds,
}

impl DateStorage {
    /// Every accepted spelling, in the order they are listed in errors.
    const NAMES: &'static [&'static str] = &["iso", "milliseconds", "seconds"];

    /// Parses one of `NAMES`.
    fn from_name(name: &str) -> Option<Self> {
        match name {
            "iso" => Some(Self::Iso),
            "milliseconds" => Some(Self::Milliseconds),
            "seconds" => Some(Self::Seconds),
            _ => None,
        }
    }
}

/// The value of `#[dynorm(default = ...)]`.
#[derive(Clone)]
pub enum DefaultValue {
    /// `"now"`: the current time.
    Now,
    /// `"uuid_v7"`: a new UUID v7, unique, and sortable by creation time.
    UuidV7,
    /// Any other expression (`"main"`, `0`, `false`, `Status::Open`): this value, of the
    /// field's type.
    Fixed(syn::Expr),
}

impl DefaultValue {
    /// `"now"`, `"uuid_v7"`, or a value.
    fn from_expr(expr: syn::Expr) -> Self {
        if let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(text),
            ..
        }) = &expr
        {
            match text.value().as_str() {
                "now" => return Self::Now,
                "uuid_v7" => return Self::UuidV7,
                _ => {}
            }
        }
        Self::Fixed(expr)
    }
}

/// The attributes on one field.
#[derive(Default)]
pub struct FieldAttrs {
    /// The `#[hash_key]` attribute, kept for its span.
    pub hash_key: Option<Attribute>,
    /// The `#[range_key]` attribute, kept for its span.
    pub range_key: Option<Attribute>,
    /// The `#[version]` attribute: optimistic locking on this integer field.
    pub version: Option<Attribute>,
    /// The `#[ttl]` attribute: this date is the item's expiry, in epoch seconds.
    pub ttl: Option<Attribute>,
    /// `#[combine(fields = [...], sep = "#")]`: the value is built from other fields.
    pub combine: Option<CombineDecl>,
    /// `#[dynorm(rename = "customerId")]`: the attribute name.
    pub rename: Option<LitStr>,
    /// `#[dynorm(date = "milliseconds")]`: how a date is stored.
    pub date: Option<(DateStorage, LitStr)>,
    /// `#[dynorm(default = "now" | "uuid_v7" | value)]`: filled in when absent, with the
    /// expression as written (for its span).
    pub default: Option<(DefaultValue, syn::Expr)>,
    /// `#[dynorm(read_only)]`: no update may write it.
    pub read_only: Option<syn::Path>,
    /// `#[dynorm(updated_at)]`: set to now on every write.
    pub updated_at: Option<syn::Path>,
    /// `#[dynorm(set = f)]`: `fn(T) -> T`, applied to every value written; with `watch`,
    /// the function that computes the field from its sources.
    pub set: Option<syn::Path>,
    /// `#[dynorm(get = f)]`: `fn(T) -> T`, applied to every value read.
    pub get: Option<syn::Path>,
    /// `#[dynorm(watch = [a, b])]`: the fields it is computed from, with the attribute's span.
    pub watch: Option<(Vec<FieldRef>, Span)>,
}

impl FieldAttrs {
    /// Whether the field is marked as the table's hash or range key.
    pub fn is_key(&self) -> bool {
        self.hash_key.is_some() || self.range_key.is_some()
    }
}

/// `#[combine(fields = [month, status], sep = "#")]`
pub struct CombineDecl {
    /// The source fields, in order.
    pub fields: Vec<FieldRef>,
    /// The text between the sources' values.
    pub separator: LitStr,
}

/// Parses the dynorm attributes on one field.
pub fn field(cx: &Ctxt, attrs: &[Attribute]) -> FieldAttrs {
    let mut out = FieldAttrs::default();
    for attr in attrs {
        let path = attr.path();
        if path == COMBINE {
            // #[combine(fields = [month, status], sep = "#")]
            if out.combine.is_some() {
                cx.error_spanned_by(attr, "this attribute is repeated on the same field");
            }
            out.combine = combine(cx, attr);
        } else if path == HASH_KEY {
            // #[hash_key]
            marker(cx, attr, &mut out.hash_key);
        } else if path == RANGE_KEY {
            // #[range_key]
            marker(cx, attr, &mut out.range_key);
        } else if path == VERSION {
            // #[version]
            marker(cx, attr, &mut out.version);
        } else if path == TTL {
            // #[ttl]
            marker(cx, attr, &mut out.ttl);
        } else if path == DYNORM {
            // #[dynorm(...)]
            dynorm(cx, attr, &mut out);
        }
    }
    out
}

/// A marker attribute without arguments, such as `#[hash_key]`, set at most once.
fn marker(cx: &Ctxt, attr: &Attribute, slot: &mut Option<Attribute>) {
    if let Err(error) = attr.meta.require_path_only() {
        cx.syn_error(error);
    }
    if slot.is_some() {
        cx.error_spanned_by(attr, "this attribute is repeated on the same field");
    } else {
        *slot = Some(attr.clone());
    }
}

/// The keys of one `#[dynorm(...)]` on a field.
fn dynorm(cx: &Ctxt, attr: &Attribute, out: &mut FieldAttrs) {
    let result = attr.parse_nested_meta(|meta| {
        if meta.path == RENAME {
            // #[dynorm(rename = "customerId")]
            let value = non_empty_string(cx, &meta, "an attribute name")?;
            set_once(cx, &mut out.rename, value, &meta, RENAME);
        } else if meta.path == DEFAULT {
            // #[dynorm(default = "now" | "uuid_v7" | "main" | 0 | Status::Open)]
            let value: syn::Expr = meta.value()?.parse()?;
            let default = DefaultValue::from_expr(value.clone());
            set_once(cx, &mut out.default, (default, value), &meta, DEFAULT);
        } else if meta.path == READ_ONLY {
            // #[dynorm(read_only)]
            set_once(cx, &mut out.read_only, meta.path.clone(), &meta, READ_ONLY);
        } else if meta.path == UPDATED_AT {
            // #[dynorm(updated_at)]
            set_once(
                cx,
                &mut out.updated_at,
                meta.path.clone(),
                &meta,
                UPDATED_AT,
            );
        } else if meta.path == SET {
            // #[dynorm(set = normalize)]
            let value: syn::Path = meta.value()?.parse()?;
            set_once(cx, &mut out.set, value, &meta, SET);
        } else if meta.path == GET {
            // #[dynorm(get = display)]
            let value: syn::Path = meta.value()?.parse()?;
            set_once(cx, &mut out.get, value, &meta, GET);
        } else if meta.path == WATCH {
            // #[dynorm(watch = [issue_number])]
            let span = meta.path.span();
            let fields = field_list(&meta)?;
            if fields.is_empty() {
                cx.error_spanned_by(
                    &meta.path,
                    "`watch` needs the fields it is computed from: watch = [a, b]",
                );
            }
            set_once(cx, &mut out.watch, (fields, span), &meta, WATCH);
        } else if meta.path == DATE {
            // #[dynorm(date = "iso" | "milliseconds" | "seconds")]
            let value: LitStr = meta.value()?.parse()?;
            match DateStorage::from_name(&value.value()) {
                Some(storage) => set_once(cx, &mut out.date, (storage, value), &meta, DATE),
                None => cx.error_spanned_by(
                    &value,
                    symbol::unknown_value_message(&value.value(), DateStorage::NAMES),
                ),
            }
        } else {
            unknown_key(cx, &meta, FIELD_KEYS, "field")?;
        }
        Ok(())
    });
    if let Err(error) = result {
        cx.syn_error(error);
    }
}

/// Parses `#[combine(fields = [..], sep = "..")]`.
fn combine(cx: &Ctxt, attr: &Attribute) -> Option<CombineDecl> {
    let mut fields = None;
    let mut separator = None;
    let result = attr.parse_nested_meta(|meta| {
        if meta.path == FIELDS {
            // fields = [month, status]
            fields = Some(field_list(&meta)?);
        } else if meta.path == SEP {
            // sep = "#"
            let value = non_empty_string(cx, &meta, "the separator")?;
            set_once(cx, &mut separator, value, &meta, SEP);
        } else {
            unknown_key(cx, &meta, COMBINE_KEYS, "combine")?;
        }
        Ok(())
    });
    if let Err(error) = result {
        cx.syn_error(error);
        return None;
    }
    match fields {
        Some(fields) if !fields.is_empty() => Some(CombineDecl {
            fields,
            separator: separator.unwrap_or_else(|| LitStr::new("#", Span::call_site())),
        }),
        _ => {
            cx.error_spanned_by(
                attr,
                "#[combine] needs its sources: #[combine(fields = [a, b], sep = \"#\")]",
            );
            None
        }
    }
}

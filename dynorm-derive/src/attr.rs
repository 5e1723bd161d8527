//! Parses `#[dynorm(...)]`, `#[hash_key]` and `#[range_key]` into plain values.

use syn::meta::ParseNestedMeta;
use syn::{Attribute, LitStr};

use crate::case::RenameRule;
use crate::ctxt::Ctxt;
use crate::symbol::{self, did_you_mean};

/// How a `DateTime` is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DateStorage {
    /// Fixed-width ISO 8601 text in UTC with milliseconds: S.
    Iso,
    /// Epoch milliseconds: N.
    Millis,
    /// Epoch seconds: N.
    Seconds,
}

impl DateStorage {
    const NAMES: &'static [&'static str] = &["iso", "millis", "seconds"];

    fn from_name(name: &str) -> Option<Self> {
        match name {
            "iso" => Some(Self::Iso),
            "millis" => Some(Self::Millis),
            "seconds" => Some(Self::Seconds),
            _ => None,
        }
    }
}

/// The attributes on the struct itself.
#[derive(Default)]
pub struct ContainerAttrs {
    pub table: Option<LitStr>,
    /// `#[dynorm(entity = "team")]`: the entity name stored with each item.
    pub entity: Option<LitStr>,
    /// `#[dynorm(entity_attribute = "__entity")]`: where the entity name is stored.
    pub entity_attribute: Option<LitStr>,
    pub prefix: Option<LitStr>,
    pub suffix: Option<LitStr>,
    pub rename_all: Option<RenameRule>,
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
    pub rename: Option<LitStr>,
    pub date: Option<(DateStorage, LitStr)>,
    /// `#[dynorm(default = "now" | "uuid_v7")]`: filled in on create when absent.
    pub default: Option<(DefaultValue, LitStr)>,
    /// `#[dynorm(read_only)]`: no update may write it.
    pub read_only: Option<syn::Path>,
    /// `#[dynorm(updated_at)]`: set to now on every write.
    pub updated_at: Option<syn::Path>,
}

/// A value generated for `#[dynorm(default = ...)]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultValue {
    /// The current time.
    Now,
    /// A new UUID v7: unique, and sortable by creation time.
    UuidV7,
}

/// `#[combine(fields = [month, status], sep = "#")]`
pub struct CombineDecl {
    pub fields: Vec<crate::index::FieldRef>,
    pub separator: LitStr,
}

/// Parses `#[combine(fields = [..], sep = "..")]`.
fn combine(cx: &Ctxt, attr: &Attribute) -> Option<CombineDecl> {
    let mut fields = None;
    let mut separator = None;
    let result = attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("fields") {
            // fields = [month, status]
            fields = Some(crate::index::field_list(&meta)?);
        } else if meta.path.is_ident("sep") {
            // sep = "#"
            let value: LitStr = meta.value()?.parse()?;
            if value.value().is_empty() {
                cx.error_spanned_by(&value, "the separator cannot be empty");
            }
            set_once(cx, &mut separator, value, &meta, "sep");
        } else {
            unknown_key(cx, &meta, &["fields", "sep"], "combine")?;
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
            separator: separator
                .unwrap_or_else(|| LitStr::new("#", proc_macro2::Span::call_site())),
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

/// Sets an attribute once, and reports a second occurrence at its own span.
fn set_once<T>(cx: &Ctxt, slot: &mut Option<T>, value: T, meta: &ParseNestedMeta, key: &str) {
    if slot.is_some() {
        cx.error_spanned_by(&meta.path, format!("duplicate dynorm attribute `{key}`"));
    } else {
        *slot = Some(value);
    }
}

/// Consumes the value of an attribute key that was not recognised, so that parsing goes on.
fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|nested| skip_value(&nested))?;
    }
    Ok(())
}

/// Reports an unknown key, suggesting the closest known one.
fn unknown_key(cx: &Ctxt, meta: &ParseNestedMeta, known: &[&str], place: &str) -> syn::Result<()> {
    let path = &meta.path;
    let name = path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_else(|| quote::quote!(#path).to_string().replace(' ', ""));
    let message = symbol::unknown_key_message(&name, known, place);
    cx.error_spanned_by(&meta.path, message);
    skip_value(meta)
}

/// Parses every `#[dynorm(...)]` attribute on the struct.
pub fn container(cx: &Ctxt, attrs: &[Attribute]) -> ContainerAttrs {
    let mut out = ContainerAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident(symbol::DYNORM)) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident(symbol::TABLE) {
                // #[dynorm(table = "Orders")]
                let value: LitStr = meta.value()?.parse()?;
                if value.value().is_empty() {
                    cx.error_spanned_by(&value, "the table name cannot be empty");
                }
                set_once(cx, &mut out.table, value, &meta, symbol::TABLE);
            } else if meta.path.is_ident(symbol::ENTITY) {
                // #[dynorm(entity = "team")]
                let value: LitStr = meta.value()?.parse()?;
                if value.value().is_empty() {
                    cx.error_spanned_by(&value, "the entity name cannot be empty");
                }
                set_once(cx, &mut out.entity, value, &meta, symbol::ENTITY);
            } else if meta.path.is_ident(symbol::ENTITY_ATTRIBUTE) {
                // #[dynorm(entity_attribute = "__entity")]
                let value: LitStr = meta.value()?.parse()?;
                if value.value().is_empty() {
                    cx.error_spanned_by(&value, "the entity attribute name cannot be empty");
                }
                set_once(
                    cx,
                    &mut out.entity_attribute,
                    value,
                    &meta,
                    symbol::ENTITY_ATTRIBUTE,
                );
            } else if meta.path.is_ident(symbol::PREFIX) {
                // #[dynorm(prefix = "prod_")]
                let value: LitStr = meta.value()?.parse()?;
                set_once(cx, &mut out.prefix, value, &meta, symbol::PREFIX);
            } else if meta.path.is_ident(symbol::SUFFIX) {
                // #[dynorm(suffix = "_v2")]
                let value: LitStr = meta.value()?.parse()?;
                set_once(cx, &mut out.suffix, value, &meta, symbol::SUFFIX);
            } else if meta.path.is_ident(symbol::RENAME_ALL) {
                // #[dynorm(rename_all = "camelCase")]
                let value: LitStr = meta.value()?.parse()?;
                match RenameRule::from_name(&value.value()) {
                    Some(rule) => {
                        set_once(cx, &mut out.rename_all, rule, &meta, symbol::RENAME_ALL)
                    }
                    None => cx.error_spanned_by(&value, unknown_value(&value, RenameRule::NAMES)),
                }
            } else {
                unknown_key(cx, &meta, symbol::CONTAINER_KEYS, "container")?;
            }
            Ok(())
        });
        if let Err(error) = result {
            cx.syn_error(error);
        }
    }
    out
}

/// Parses the dynorm attributes on one field.
pub fn field(cx: &Ctxt, attrs: &[Attribute]) -> FieldAttrs {
    let mut out = FieldAttrs::default();
    for attr in attrs {
        if attr.path().is_ident(symbol::COMBINE) {
            // #[combine(fields = [month, status], sep = "#")]
            if out.combine.is_some() {
                cx.error_spanned_by(attr, "this attribute is repeated on the same field");
            }
            out.combine = combine(cx, attr);
            continue;
        }
        let flag = [
            symbol::HASH_KEY,
            symbol::RANGE_KEY,
            symbol::VERSION,
            symbol::TTL,
        ]
        .into_iter()
        .find(|name| attr.path().is_ident(name));
        if let Some(flag) = flag {
            // #[hash_key] / #[range_key] / #[version] / #[ttl]
            if let Err(error) = attr.meta.require_path_only() {
                cx.syn_error(error);
            }
            let slot = match flag {
                symbol::HASH_KEY => &mut out.hash_key,
                symbol::RANGE_KEY => &mut out.range_key,
                symbol::VERSION => &mut out.version,
                _ => &mut out.ttl,
            };
            if slot.is_some() {
                cx.error_spanned_by(attr, "this attribute is repeated on the same field");
            } else {
                *slot = Some(attr.clone());
            }
            continue;
        }
        if !attr.path().is_ident(symbol::DYNORM) {
            continue;
        }
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident(symbol::RENAME) {
                // #[dynorm(rename = "customerId")]
                let value: LitStr = meta.value()?.parse()?;
                if value.value().is_empty() {
                    cx.error_spanned_by(&value, "an attribute name cannot be empty");
                }
                set_once(cx, &mut out.rename, value, &meta, symbol::RENAME);
            } else if meta.path.is_ident(symbol::DEFAULT) {
                // #[dynorm(default = "now" | "uuid_v7")]
                let value: LitStr = meta.value()?.parse()?;
                let parsed = match value.value().as_str() {
                    "now" => Some(DefaultValue::Now),
                    "uuid_v7" => Some(DefaultValue::UuidV7),
                    _ => None,
                };
                match parsed {
                    Some(default) => set_once(
                        cx,
                        &mut out.default,
                        (default, value),
                        &meta,
                        symbol::DEFAULT,
                    ),
                    None => cx.error_spanned_by(&value, unknown_value(&value, &["now", "uuid_v7"])),
                }
            } else if meta.path.is_ident(symbol::READ_ONLY) {
                // #[dynorm(read_only)]
                set_once(
                    cx,
                    &mut out.read_only,
                    meta.path.clone(),
                    &meta,
                    symbol::READ_ONLY,
                );
            } else if meta.path.is_ident(symbol::UPDATED_AT) {
                // #[dynorm(updated_at)]
                set_once(
                    cx,
                    &mut out.updated_at,
                    meta.path.clone(),
                    &meta,
                    symbol::UPDATED_AT,
                );
            } else if meta.path.is_ident(symbol::DATE) {
                // #[dynorm(date = "iso" | "millis" | "seconds")]
                let value: LitStr = meta.value()?.parse()?;
                match DateStorage::from_name(&value.value()) {
                    Some(storage) => {
                        set_once(cx, &mut out.date, (storage, value), &meta, symbol::DATE)
                    }
                    None => cx.error_spanned_by(&value, unknown_value(&value, DateStorage::NAMES)),
                }
            } else {
                unknown_key(cx, &meta, symbol::FIELD_KEYS, "field")?;
            }
            Ok(())
        });
        if let Err(error) = result {
            cx.syn_error(error);
        }
    }
    out
}

/// The message for a string value outside a fixed set.
fn unknown_value(value: &LitStr, known: &[&str]) -> String {
    let given = value.value();
    let list = known
        .iter()
        .map(|k| format!("\"{k}\""))
        .collect::<Vec<_>>()
        .join(", ");
    match did_you_mean(&given, known) {
        Some(suggestion) => {
            format!("unknown value \"{given}\"; did you mean \"{suggestion}\"? (expected one of {list})")
        }
        None => format!("unknown value \"{given}\" (expected one of {list})"),
    }
}

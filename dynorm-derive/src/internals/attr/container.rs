//! `#[dynorm(...)]` on the struct.

use syn::parse::Parse;
use syn::{Attribute, LitStr};

use super::parse::{non_empty_string, one_of, set_once, unknown_key};
use crate::internals::case::RenameRule;
use crate::internals::symbol::{self, *};
use crate::internals::Ctxt;

/// The attributes on the struct itself.
#[derive(Default)]
pub struct ContainerAttrs {
    /// `#[dynorm(table = "Orders")]`: the base table name.
    pub table: Option<LitStr>,
    /// `#[dynorm(entity = "team")]`: the entity name stored with each item.
    pub entity: Option<LitStr>,
    /// `#[dynorm(entity_attribute = "__entity")]`: where the entity name is stored.
    pub entity_attribute: Option<LitStr>,
    /// `#[dynorm(prefix = "prod_")]`: the model's own table name prefix.
    pub prefix: Option<LitStr>,
    /// `#[dynorm(suffix = "_v2")]`: the model's own table name suffix.
    pub suffix: Option<LitStr>,
    /// `#[dynorm(rename_all = "camelCase")]`: the naming convention of attributes.
    pub rename_all: Option<RenameRule>,
    /// `#[dynorm(stream = "new_and_old_images")]`: the table's stream view type.
    pub stream: Option<LitStr>,
    /// `#[dynorm(convention = "electrodb")]`: how items carry their identity.
    pub convention: Option<LitStr>,
    /// `#[dynorm(service = "app")]`: ElectroDB's service name.
    pub service: Option<LitStr>,
    /// `#[dynorm(entity_version = "1")]`: ElectroDB's entity version.
    pub entity_version: Option<LitStr>,
    /// `#[dynorm(timestamps)]` or `timestamps = false`: DynamoDB-Toolbox's `_ct` and `_md`,
    /// on by default under its convention.
    pub timestamps: Option<(syn::Path, bool)>,
    /// `#[dynorm(casing = "none")]`: the casing of every key that does not give its own.
    pub casing: Option<LitStr>,
    /// `#[dynorm(shape = 3)]`: the shape of the items the model reads and writes.
    pub shape: Option<syn::LitInt>,
    /// `#[dynorm(upcasts = [UserV1, UserV2])]`: the types of the earlier shapes, in order.
    pub upcasts: Option<(syn::Path, Vec<syn::Type>)>,
    /// `#[dynorm(shape_attribute = "__shape")]`: where items store their shape.
    pub shape_attribute: Option<LitStr>,
    /// `#[dynorm(max_item_bytes = 4096)]`: the largest item the model writes, in bytes.
    pub max_item_bytes: Option<syn::LitInt>,
    /// `#[dynorm(unique_name = "User")]`: the stable name the guard items of `#[unique]`
    /// attributes are keyed by.
    pub unique_name: Option<LitStr>,
    /// The keys that unknown keys were reported as likely misspellings of: no error says
    /// such a key is missing too.
    pub misspelled: Vec<Symbol>,
}

/// Parses every `#[dynorm(...)]` attribute on the struct.
pub fn container(cx: &Ctxt, attrs: &[Attribute]) -> ContainerAttrs {
    let mut out = ContainerAttrs::default();
    for attr in attrs.iter().filter(|a| a.path() == DYNORM) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path == TABLE {
                // #[dynorm(table = "Orders")]
                let value = non_empty_string(cx, &meta, "the table name")?;
                set_once(cx, &mut out.table, value, &meta, TABLE);
            } else if meta.path == ENTITY {
                // #[dynorm(entity = "team")]
                let value = non_empty_string(cx, &meta, "the entity name")?;
                set_once(cx, &mut out.entity, value, &meta, ENTITY);
            } else if meta.path == ENTITY_ATTRIBUTE {
                // #[dynorm(entity_attribute = "__entity")]
                let value = non_empty_string(cx, &meta, "the entity attribute name")?;
                set_once(
                    cx,
                    &mut out.entity_attribute,
                    value,
                    &meta,
                    ENTITY_ATTRIBUTE,
                );
            } else if meta.path == PREFIX {
                // #[dynorm(prefix = "prod_")]
                let value: LitStr = meta.value()?.parse()?;
                set_once(cx, &mut out.prefix, value, &meta, PREFIX);
            } else if meta.path == SUFFIX {
                // #[dynorm(suffix = "_v2")]
                let value: LitStr = meta.value()?.parse()?;
                set_once(cx, &mut out.suffix, value, &meta, SUFFIX);
            } else if meta.path == RENAME_ALL {
                // #[dynorm(rename_all = "camelCase")]
                let value: LitStr = meta.value()?.parse()?;
                match RenameRule::from_name(&value.value()) {
                    Some(rule) => set_once(cx, &mut out.rename_all, rule, &meta, RENAME_ALL),
                    None => cx.error_spanned_by(
                        &value,
                        symbol::unknown_value_message(&value.value(), RenameRule::NAMES),
                    ),
                }
            } else if meta.path == STREAM {
                // #[dynorm(stream = "new_and_old_images")]
                if let Some(value) = one_of(cx, &meta, STREAM_VIEWS)? {
                    set_once(cx, &mut out.stream, value, &meta, STREAM);
                }
            } else if meta.path == CONVENTION {
                // #[dynorm(convention = "electrodb")]
                if let Some(value) = one_of(cx, &meta, CONVENTIONS)? {
                    set_once(cx, &mut out.convention, value, &meta, CONVENTION);
                }
            } else if meta.path == SERVICE {
                // #[dynorm(service = "app")]
                let value = non_empty_string(cx, &meta, "the service name")?;
                set_once(cx, &mut out.service, value, &meta, SERVICE);
            } else if meta.path == ENTITY_VERSION {
                // #[dynorm(entity_version = "1")]
                let value = non_empty_string(cx, &meta, "the entity version")?;
                set_once(cx, &mut out.entity_version, value, &meta, ENTITY_VERSION);
            } else if meta.path == CASING {
                // #[dynorm(casing = "none")]
                if let Some(value) = one_of(cx, &meta, CASINGS)? {
                    set_once(cx, &mut out.casing, value, &meta, CASING);
                }
            } else if meta.path == SHAPE {
                // #[dynorm(shape = 3)]
                let value: syn::LitInt = meta.value()?.parse()?;
                set_once(cx, &mut out.shape, value, &meta, SHAPE);
            } else if meta.path == UPCASTS {
                // #[dynorm(upcasts = [UserV1, UserV2])]
                let input = meta.value()?;
                let content;
                syn::bracketed!(content in input);
                let types = content.parse_terminated(syn::Type::parse, syn::Token![,])?;
                let value = (meta.path.clone(), types.into_iter().collect());
                set_once(cx, &mut out.upcasts, value, &meta, UPCASTS);
            } else if meta.path == SHAPE_ATTRIBUTE {
                // #[dynorm(shape_attribute = "__shape")]
                let value = non_empty_string(cx, &meta, "the shape attribute name")?;
                set_once(cx, &mut out.shape_attribute, value, &meta, SHAPE_ATTRIBUTE);
            } else if meta.path == MAX_ITEM_BYTES {
                // #[dynorm(max_item_bytes = 4096)]
                let value: syn::LitInt = meta.value()?.parse()?;
                set_once(cx, &mut out.max_item_bytes, value, &meta, MAX_ITEM_BYTES);
            } else if meta.path == UNIQUE_NAME {
                // #[dynorm(unique_name = "User")]
                let value = non_empty_string(cx, &meta, "the unique name")?;
                set_once(cx, &mut out.unique_name, value, &meta, UNIQUE_NAME);
            } else if meta.path == TIMESTAMPS {
                // #[dynorm(timestamps)] or #[dynorm(timestamps = false)]
                let on = if meta.input.peek(syn::Token![=]) {
                    meta.value()?.parse::<syn::LitBool>()?.value
                } else {
                    true
                };
                set_once(
                    cx,
                    &mut out.timestamps,
                    (meta.path.clone(), on),
                    &meta,
                    TIMESTAMPS,
                );
            } else {
                if let Some(meant) = unknown_key(cx, &meta, CONTAINER_KEYS, "container")? {
                    out.misspelled.push(meant);
                }
            }
            Ok(())
        });
        if let Err(error) = result {
            cx.syn_error(error);
        }
    }
    out
}

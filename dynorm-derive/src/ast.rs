//! The parse stage: the struct and its fields, with their attributes read.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::{Data, DeriveInput, Fields, Ident, LitStr, Type, Visibility};

use crate::attr::{self, ContainerAttrs, FieldAttrs};
use crate::ctxt::Ctxt;
use crate::index::{self, IndexDecl};

/// A struct that derives `Model`.
pub struct Container<'a> {
    pub ident: &'a Ident,
    pub vis: &'a Visibility,
    pub attrs: ContainerAttrs,
    pub fields: Vec<Field<'a>>,
    /// Every `#[index]`, on fields in field order, then on the struct.
    pub indexes: Vec<IndexDecl>,
    /// Every `#[key]` template declaration: single-table design.
    pub keys: Vec<crate::template::KeyDecl>,
}

/// One named field of the struct.
pub struct Field<'a> {
    pub ident: &'a Ident,
    pub vis: &'a Visibility,
    pub ty: &'a Type,
    pub attrs: FieldAttrs,
    /// The DynamoDB attribute name, after `rename` and `rename_all`.
    pub name: String,
}

impl Field<'_> {
    /// The tokens an error about the attribute name should point at.
    pub fn name_tokens(&self) -> TokenStream {
        match &self.attrs.rename {
            Some(rename) => rename.to_token_stream(),
            None => self.ident.to_token_stream(),
        }
    }

    /// The span of the field's type, for generated code whose errors belong there.
    pub fn ty_span(&self) -> Span {
        syn::spanned::Spanned::span(self.ty)
    }
}

impl<'a> Container<'a> {
    /// Reads the struct, or records why it cannot be a model and returns `None`.
    pub fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Option<Self> {
        let attrs = attr::container(cx, &input.attrs);
        let rename_all = attrs.rename_all;
        if !input.generics.params.is_empty() {
            cx.error_spanned_by(
                &input.generics,
                "a dynorm model cannot have generic parameters",
            );
        }
        let named = match &input.data {
            Data::Struct(data) => match &data.fields {
                Fields::Named(named) => named,
                _ => {
                    cx.error_spanned_by(input, "a dynorm model must be a struct with named fields");
                    return None;
                }
            },
            Data::Enum(data) => {
                cx.error_spanned_by(
                    data.enum_token,
                    "a dynorm model must be a struct, not an enum",
                );
                return None;
            }
            Data::Union(data) => {
                cx.error_spanned_by(
                    data.union_token,
                    "a dynorm model must be a struct, not a union",
                );
                return None;
            }
        };
        let mut indexes = Vec::new();
        let fields = named
            .named
            .iter()
            .filter_map(|field| {
                let ident = field.ident.as_ref()?;
                let attrs = attr::field(cx, &field.attrs);
                indexes.extend(index::parse(cx, &field.attrs, Some(ident)));
                let name = match &attrs.rename {
                    Some(rename) => rename.value(),
                    None => {
                        let raw = ident.to_string();
                        let plain = raw.strip_prefix("r#").unwrap_or(&raw);
                        rename_all.map_or_else(|| plain.to_owned(), |rule| rule.apply(plain))
                    }
                };
                Some(Field {
                    ident,
                    vis: &field.vis,
                    ty: &field.ty,
                    attrs,
                    name,
                })
            })
            .collect();
        indexes.extend(index::parse(cx, &input.attrs, None));
        let keys = crate::template::parse(cx, &input.attrs);
        Some(Container {
            ident: &input.ident,
            vis: &input.vis,
            attrs,
            fields,
            indexes,
            keys,
        })
    }

    /// Whether the keys come from `#[key]` templates (single-table design).
    pub fn uses_templates(&self) -> bool {
        !self.keys.is_empty()
    }

    /// The table's key templates: the `#[key]` without an index.
    pub fn primary_key(&self) -> Option<&crate::template::KeyDecl> {
        self.keys.iter().find(|k| k.index.is_none())
    }

    /// The entity name: `#[dynorm(entity)]`, or the struct's name.
    pub fn entity_name(&self) -> String {
        self.attrs
            .entity
            .as_ref()
            .map_or_else(|| self.ident.to_string(), LitStr::value)
    }

    /// The field marked `#[hash_key]`, once validation has passed.
    pub fn hash_key(&self) -> Option<&Field<'a>> {
        self.fields.iter().find(|f| f.attrs.hash_key.is_some())
    }

    /// The field marked `#[range_key]`, if any.
    pub fn range_key(&self) -> Option<&Field<'a>> {
        self.fields.iter().find(|f| f.attrs.range_key.is_some())
    }

    /// The position of the field named `ident`.
    pub fn field_position(&self, ident: &syn::Ident) -> Option<usize> {
        self.fields.iter().position(|f| f.ident == ident)
    }

    /// The base table name: `#[dynorm(table)]`, or the struct's name.
    pub fn table_name(&self) -> String {
        self.attrs
            .table
            .as_ref()
            .map_or_else(|| self.ident.to_string(), |t| t.value())
    }
}

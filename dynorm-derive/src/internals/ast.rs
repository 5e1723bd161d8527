//! The parse stage: the struct and its fields, with their attributes read.

use syn::{Data, DeriveInput, Fields, Ident, Type, Visibility};

use crate::internals::attr::{
    self, ContainerAttrs, CountDecl, FieldAttrs, IndexDecl, KeyDecl, RelationDecl, UniqueDecl,
};
use crate::internals::Ctxt;

/// A struct that derives `Model`, as written.
pub struct Container<'a> {
    /// The struct's name.
    pub ident: &'a Ident,
    /// The struct's visibility, given to the generated key struct and index types.
    pub vis: &'a Visibility,
    /// `#[dynorm(...)]` on the struct.
    pub attrs: ContainerAttrs,
    /// The named fields, in order.
    pub fields: Vec<Field<'a>>,
    /// Every `#[index]`, on fields in field order, then on the struct.
    pub indexes: Vec<IndexDecl>,
    /// Every `#[key]` template declaration: single-table design.
    pub keys: Vec<KeyDecl>,
    /// Every `#[relation]`.
    pub relations: Vec<RelationDecl>,
    /// Every `#[unique]`, on fields in field order, then on the struct.
    pub uniques: Vec<UniqueDecl>,
    /// Every `#[count]`.
    pub counts: Vec<CountDecl>,
}

/// One named field of the struct, as written.
pub struct Field<'a> {
    /// The field's name, possibly raw (`r#type`).
    pub ident: &'a Ident,
    /// The field's visibility, kept by an index's item type.
    pub vis: &'a Visibility,
    /// The field's type.
    pub ty: &'a Type,
    /// The field's dynorm attributes.
    pub attrs: FieldAttrs,
}

impl<'a> Container<'a> {
    /// Reads the struct, or records why it cannot be a model and returns `None`.
    pub fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Option<Self> {
        let attrs = attr::container(cx, &input.attrs);
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
        let mut uniques = Vec::new();
        let mut fields = Vec::new();
        for field in &named.named {
            let Some(ident) = &field.ident else {
                continue;
            };
            let attrs = attr::field(cx, &field.attrs);
            indexes.extend(attr::index(cx, &field.attrs, Some(ident)));
            uniques.extend(attr::unique(cx, &field.attrs, Some(ident)));
            fields.push(Field {
                ident,
                vis: &field.vis,
                ty: &field.ty,
                attrs,
            });
        }
        indexes.extend(attr::index(cx, &input.attrs, None));
        uniques.extend(attr::unique(cx, &input.attrs, None));
        let keys = attr::key(cx, &input.attrs);
        let relations = attr::relation(cx, &input.attrs);
        let counts = attr::count(cx, &input.attrs);
        Some(Container {
            ident: &input.ident,
            vis: &input.vis,
            attrs,
            fields,
            indexes,
            keys,
            relations,
            uniques,
            counts,
        })
    }

    /// Whether the keys come from `#[key]` templates (single-table design).
    pub fn uses_templates(&self) -> bool {
        !self.keys.is_empty()
    }
}

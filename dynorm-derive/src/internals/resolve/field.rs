//! A field with what its type and attributes mean: the type inside `Option`, the
//! attribute name, the codec and the `Attr` constant's name.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::ext::IdentExt;
use syn::{Ident, Type};

use crate::internals::ast;
use crate::internals::attr::DateStorage;
use crate::internals::case::RenameRule;
use crate::internals::types::{self, Shape};

/// One field, with what its type and attributes mean.
pub struct Field<'a> {
    /// The field as parsed, for its attributes' spans.
    pub ast: &'a ast::Field<'a>,
    /// The Rust name, possibly raw (`r#type`).
    pub member: &'a Ident,
    /// The type as written.
    pub ty: &'a Type,
    /// The type of a present value: the type inside `Option<..>`, or the type itself.
    pub present: &'a Type,
    /// Whether the type is an `Option`.
    pub optional: bool,
    /// The shape of the present type.
    pub shape: Shape,
    /// Whether the present type is `String`.
    pub string: bool,
    /// The DynamoDB attribute name, after `rename` and `rename_all`.
    pub name: String,
    /// How a present value is encoded and decoded.
    pub codec: Codec,
    /// The name of the field's `Attr` constant: `STATUS` for `status`.
    pub constant: Ident,
    /// Whether an update may write the field: not `read_only`, not built from other
    /// fields, and not a source of the table's key templates.
    pub writable: bool,
    /// `#[dynorm(set = f)]` without `watch`: every value written goes through `f`.
    pub set: Option<&'a syn::Path>,
    /// `#[dynorm(get = f)]`: every value read goes through `f`.
    pub get: Option<&'a syn::Path>,
    /// The model's function that applies `set`, `watch`'s included (`Model::__dynorm_set_x`):
    /// the only place `f` is called, so that a wrong signature is one error at `f`.
    pub set_call: TokenStream,
    /// The model's function that applies `get` (`Model::__dynorm_get_x`).
    pub get_call: TokenStream,
}

/// How a field's present value is encoded and decoded.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// A date in an explicit storage (`#[dynorm(date)]`, or epoch seconds for `#[ttl]`).
    Date(DateStorage),
    /// `Vec<u8>`, stored as binary.
    Bytes,
    /// Chosen at compile time by the runtime: native types, else serde.
    Dispatch,
}

impl Codec {
    /// The date storage, for a field that has an explicit one.
    pub fn date_storage(self) -> Option<DateStorage> {
        match self {
            Codec::Date(storage) => Some(storage),
            Codec::Bytes | Codec::Dispatch => None,
        }
    }
}

impl<'a> Field<'a> {
    /// Reads what the field's type and attributes mean.
    pub(super) fn new(
        ast: &'a ast::Field<'a>,
        rename_all: Option<RenameRule>,
        model: &Ident,
    ) -> Self {
        let optional_inner = types::option_inner(ast.ty);
        let present = optional_inner.unwrap_or(ast.ty);
        let shape = types::shape(present);
        let plain = ast.ident.unraw().to_string();
        let name = match (&ast.attrs.rename, rename_all) {
            (Some(rename), _) => rename.value(),
            (None, Some(rule)) => rule.apply(&plain),
            (None, None) => plain.clone(),
        };
        let codec = match (&ast.attrs.date, &ast.attrs.ttl) {
            (Some((storage, _)), _) => Codec::Date(*storage),
            (None, Some(_)) => Codec::Date(DateStorage::Seconds),
            (None, None) if shape == Shape::Bytes => Codec::Bytes,
            (None, None) => Codec::Dispatch,
        };
        Field {
            ast,
            member: ast.ident,
            ty: ast.ty,
            present,
            optional: optional_inner.is_some(),
            shape,
            string: types::is_string(present),
            name,
            codec,
            // An uppercased identifier is an identifier, and never a keyword.
            constant: format_ident!("{}", plain.to_ascii_uppercase()),
            writable: ast.attrs.read_only.is_none()
                && ast.attrs.combine.is_none()
                && ast.attrs.watch.is_none(),
            set: ast.attrs.set.as_ref().filter(|_| ast.attrs.watch.is_none()),
            get: ast.attrs.get.as_ref(),
            set_call: {
                let name = format_ident!("__dynorm_set_{}", plain);
                quote!(#model::#name)
            },
            get_call: {
                let name = format_ident!("__dynorm_get_{}", plain);
                quote!(#model::#name)
            },
        }
    }

    /// The storage of a generated date: the field's own, else ISO text.
    pub(super) fn date_storage(&self) -> DateStorage {
        self.codec.date_storage().unwrap_or(DateStorage::Iso)
    }
}

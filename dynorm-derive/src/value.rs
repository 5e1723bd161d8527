//! `#[derive(Value)]`: a newtype or a unit enum as a native DynamoDB value.
//!
//! A struct with one field (`struct UserId(Uuid)`, serde's `#[serde(transparent)]` shape)
//! is stored as that field, and is a key type when the field is. A unit enum is stored as
//! the text of its variant, named by `rename_all` and `rename` (from `#[dynorm(..)]`, else
//! from `#[serde(..)]`, so that the stored text is the one serde would write), and is
//! always a key type.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Attribute, Data, DeriveInput, Fields, LitStr};

use crate::internals::case::RenameRule;
use crate::internals::symbol::{self, DYNORM, RENAME, RENAME_ALL};
use crate::internals::Ctxt;

/// `serde`, whose `rename_all` and `rename` a unit enum also honours.
const SERDE: symbol::Symbol = symbol::SERDE;

/// The expansion of `#[derive(Value)]`.
pub fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::default();
    let output = match &input.data {
        Data::Struct(data) => newtype(&cx, input, &data.fields),
        Data::Enum(data) => unit_enum(&cx, input, data),
        Data::Union(_) => {
            cx.error_spanned_by(
                &input.ident,
                "`Value` is derived for a one-field struct or a unit enum",
            );
            TokenStream::new()
        }
    };
    match cx.check() {
        Ok(()) => output,
        Err(e) => e.to_compile_error(),
    }
}

/// A struct with one field, stored as that field.
fn newtype(cx: &Ctxt, input: &DeriveInput, fields: &Fields) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let mut iter = fields.iter();
    let (Some(field), None) = (iter.next(), iter.next()) else {
        cx.error_spanned_by(
            ident,
            "`Value` on a struct needs exactly one field: `struct UserId(Uuid);`",
        );
        return TokenStream::new();
    };
    let inner = &field.ty;
    let (read, build) = match &field.ident {
        Some(name) => (quote!(self.#name), quote!(#ident { #name: __inner })),
        None => (quote!(self.0), quote!(#ident(__inner))),
    };
    quote! {
        #[automatically_derived]
        impl #impl_generics ::dynorm::value::AttrValue for #ident #ty_generics #where_clause {
            #[inline]
            fn to_attr(&self) -> ::core::result::Result<::dynorm::types::AttributeValue, ::dynorm::value::AttrError> {
                ::dynorm::value::AttrValue::to_attr(&#read)
            }
            #[inline]
            fn from_attr(value: ::dynorm::types::AttributeValue) -> ::core::result::Result<Self, ::dynorm::value::AttrError> {
                let __inner = <#inner as ::dynorm::value::AttrValue>::from_attr(value)?;
                ::core::result::Result::Ok(#build)
            }
            #[inline]
            fn is_omitted(&self) -> bool {
                ::dynorm::value::AttrValue::is_omitted(&#read)
            }
            fn when_absent() -> ::core::option::Option<Self> {
                <#inner as ::dynorm::value::AttrValue>::when_absent().map(|__inner| #build)
            }
        }

        // A key type exactly when the field's type is one; the higher-ranked bound keeps
        // the impl legal (and absent) when it is not.
        #[automatically_derived]
        impl #impl_generics ::dynorm::value::KeyScalar for #ident #ty_generics
        where
            for<'__dynorm> #inner: ::dynorm::value::KeyScalar,
        {
            const SCALAR_TYPE: ::dynorm::value::ScalarType = <#inner as ::dynorm::value::KeyScalar>::SCALAR_TYPE;
        }
    }
}

/// Whether the attributes hold `#[serde(other)]`.
fn serde_other(attrs: &[Attribute]) -> bool {
    attrs
        .iter()
        .filter(|attr| attr.path() == SERDE)
        .any(|attr| {
            let mut found = false;
            let _ = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("other") {
                    found = true;
                } else if meta.input.peek(syn::Token![=]) {
                    let _: syn::Expr = meta.value()?.parse()?;
                } else if meta.input.peek(syn::token::Paren) {
                    meta.parse_nested_meta(|_| Ok(()))?;
                }
                Ok(())
            });
            found
        })
}

/// A `rename_all` or `rename` value read from `#[dynorm(..)]` or `#[serde(..)]`.
fn renames(
    cx: &Ctxt,
    attrs: &[Attribute],
    key: symbol::Symbol,
) -> (Option<LitStr>, Option<LitStr>) {
    let mut dynorm = None;
    let mut serde = None;
    for attr in attrs {
        let is_dynorm = attr.path() == DYNORM;
        if !is_dynorm && attr.path() != SERDE {
            continue;
        }
        let result = attr.parse_nested_meta(|meta| {
            if meta.path == key {
                let value: LitStr = meta.value()?.parse()?;
                if is_dynorm {
                    dynorm = Some(value);
                } else {
                    serde = Some(value);
                }
            } else if is_dynorm {
                cx.error_spanned_by(
                    &meta.path,
                    symbol::unknown_key_message(
                        &meta
                            .path
                            .get_ident()
                            .map(ToString::to_string)
                            .unwrap_or_default(),
                        &[key],
                        "value",
                    ),
                );
            } else if meta.input.peek(syn::Token![=]) {
                // Other serde keys are serde's business.
                let _: syn::Expr = meta.value()?.parse()?;
            } else if meta.input.peek(syn::token::Paren) {
                meta.parse_nested_meta(|_| Ok(()))?;
            }
            Ok(())
        });
        if let Err(error) = result {
            if is_dynorm {
                cx.syn_error(error);
            }
        }
    }
    (dynorm, serde)
}

/// A unit enum, stored as its variant's text.
fn unit_enum(cx: &Ctxt, input: &DeriveInput, data: &syn::DataEnum) -> TokenStream {
    let ident = &input.ident;
    let (dynorm_rule, serde_rule) = renames(cx, &input.attrs, RENAME_ALL);
    let rule = match dynorm_rule.or(serde_rule) {
        Some(literal) => match RenameRule::from_name(&literal.value()) {
            Some(rule) => Some(rule),
            None => {
                cx.error_spanned_by(
                    &literal,
                    symbol::unknown_value_message(&literal.value(), RenameRule::NAMES),
                );
                None
            }
        },
        None => None,
    };
    let mut names = Vec::new();
    let mut variants = Vec::new();
    // `#[serde(other)]`: the variant any text no other variant has reads as, as in serde.
    let mut other = None;
    for variant in &data.variants {
        if !matches!(variant.fields, Fields::Unit) {
            cx.error_spanned_by(
                variant,
                "`Value` on an enum needs unit variants; store data-carrying enums through serde",
            );
            continue;
        }
        let (dynorm_name, serde_name) = renames(cx, &variant.attrs, RENAME);
        let written = variant.ident.to_string();
        let name = match dynorm_name.or(serde_name) {
            Some(literal) => literal.value(),
            None => rule.map_or(written.clone(), |rule| rule.apply_to_variant(&written)),
        };
        if serde_other(&variant.attrs) && other.replace(&variant.ident).is_some() {
            cx.error_spanned_by(variant, "only one variant can be `#[serde(other)]`");
        }
        names.push(name);
        variants.push(&variant.ident);
    }
    let expected = format!(
        "expected one of {}",
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let unknown = match other {
        Some(other) => quote!(_ => ::core::result::Result::Ok(Self::#other),),
        None => quote! {
            _ => ::core::result::Result::Err(::dynorm::value::AttrError::new(
                ::std::format!("{}, found `{}`", #expected, __text),
            )),
        },
    };
    quote! {
        #[automatically_derived]
        impl ::dynorm::value::AttrValue for #ident {
            #[inline]
            fn to_attr(&self) -> ::core::result::Result<::dynorm::types::AttributeValue, ::dynorm::value::AttrError> {
                let __text: &'static str = match self {
                    #(Self::#variants => #names,)*
                };
                ::core::result::Result::Ok(::dynorm::types::AttributeValue::S(::std::string::String::from(__text)))
            }
            #[inline]
            fn from_attr(value: ::dynorm::types::AttributeValue) -> ::core::result::Result<Self, ::dynorm::value::AttrError> {
                match value {
                    ::dynorm::types::AttributeValue::S(__text) => match __text.as_str() {
                        #(#names => ::core::result::Result::Ok(Self::#variants),)*
                        #unknown
                    },
                    other => ::core::result::Result::Err(::dynorm::value::AttrError::mismatch("a string (S)", &other)),
                }
            }
        }

        #[automatically_derived]
        impl ::dynorm::value::KeyScalar for #ident {
            const SCALAR_TYPE: ::dynorm::value::ScalarType = ::dynorm::value::ScalarType::S;
        }
    }
}

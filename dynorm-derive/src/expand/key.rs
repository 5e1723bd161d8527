//! The typed key struct, such as `MessageKey { room_id, sent_at }`, and its impls.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ast::{Container, Field};
use crate::expand::codec;

/// The key fields: the hash key, then the range key if there is one.
pub fn key_fields<'c, 'a>(cont: &'c Container<'a>) -> Vec<&'c Field<'a>> {
    if let Some(primary) = cont.primary_key() {
        let templates: Vec<_> = std::iter::once(&primary.hash)
            .chain(&primary.range)
            .collect();
        return super::entity::template_fields(cont, &templates);
    }
    cont.hash_key()
        .into_iter()
        .chain(cont.range_key())
        .collect()
}

/// The name of the key struct: the model's name followed by `Key`.
pub fn key_ident(cont: &Container) -> syn::Ident {
    format_ident!("{}Key", cont.ident)
}

/// The key struct itself, with the model's visibility.
pub fn key_struct(cont: &Container) -> TokenStream {
    let vis = cont.vis;
    let ident = key_ident(cont);
    let doc = format!("The primary key of [`{}`].", cont.ident);
    let fields = key_fields(cont).into_iter().map(|field| {
        let member = field.ident;
        let ty = field.ty;
        let doc = format!("The `{}` key attribute.", field.name);
        quote!(#[doc = #doc] pub #member: #ty)
    });
    quote! {
        #[doc = #doc]
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::cmp::PartialEq)]
        #vis struct #ident {
            #(#fields,)*
        }
    }
}

/// `ModelKey` for the key struct, and `From` the bare hash value when there is no range key.
pub fn key_impls(cont: &Container) -> TokenStream {
    let model = cont.ident;
    let model_name = model.to_string();
    let ident = key_ident(cont);
    let fields = key_fields(cont);
    let count = fields.len();
    let owner = format_ident!("self");
    let inserts = fields
        .iter()
        .map(|field| codec::insert_field(&model_name, field, &owner));
    let bare = match fields.as_slice() {
        [only] => Some(bare_key_impls(&ident, only)),
        _ => None,
    };
    let finish = if cont.uses_templates() {
        quote!(::dynorm::__private::entity_key(&<#model as ::dynorm::__private::Model>::SCHEMA, &__item))
    } else {
        quote!(::core::result::Result::Ok(__item))
    };
    quote! {
        impl ::dynorm::__private::ModelKey for #ident {
            type Model = #model;

            fn to_key_item(&self) -> ::core::result::Result<::dynorm::__private::Item, ::dynorm::__private::Error> {
                let mut __item = ::dynorm::__private::Item::with_capacity(#count);
                #(#inserts)*
                #finish
            }
        }
        #bare
    }
}

/// `From<hash type>` for a hash-only key, plus `&str` and `&String` for a `String` key.
fn bare_key_impls(ident: &syn::Ident, hash: &Field) -> TokenStream {
    let member = hash.ident;
    let ty = hash.ty;
    let borrowed = crate::types::is_string(ty).then(|| {
        quote! {
            impl ::core::convert::From<&str> for #ident {
                fn from(value: &str) -> Self {
                    Self { #member: ::core::convert::From::from(value) }
                }
            }
            impl ::core::convert::From<&::std::string::String> for #ident {
                fn from(value: &::std::string::String) -> Self {
                    Self { #member: ::core::clone::Clone::clone(value) }
                }
            }
        }
    });
    quote! {
        impl ::core::convert::From<#ty> for #ident {
            fn from(value: #ty) -> Self {
                Self { #member: value }
            }
        }
        #borrowed
    }
}

//! The typed key struct, such as `MessageKey { room_id, sent_at }`, and its impls.

use proc_macro2::TokenStream;
use quote::quote;

use crate::expand::codec;
use crate::internals::resolve::{Field, Model};

/// The key struct itself, with the model's visibility.
pub fn key_struct(model: &Model) -> TokenStream {
    let vis = model.vis;
    let ident = &model.key_struct;
    let doc = format!("The primary key of [`{}`].", model.ident);
    let fields = model.key_fields.iter().map(|&position| {
        let field = &model.fields[position];
        let (member, ty) = (field.member, field.ty);
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

/// `ModelKey` for the key struct, with `to` as `to_key_item`, `from` as `from_key_item`
/// (reading `__item`) and `extra` items.
pub fn model_key_impl(
    model: &Model,
    to: TokenStream,
    from: TokenStream,
    extra: TokenStream,
) -> TokenStream {
    let ident = model.ident;
    let key = &model.key_struct;
    quote! {
        #[automatically_derived]
        impl ::dynorm::__private::Derived for #key {}

        #[automatically_derived]
        impl ::dynorm::__private::ModelKey for #key {
            type Model = #ident;

            #[inline]
            fn to_key_item(&self) -> ::dynorm::__private::Result<::dynorm::__private::Item> {
                #to
            }

            #[inline]
            fn from_key_item(
                __item: ::dynorm::__private::Item,
            ) -> ::dynorm::__private::Result<Self> {
                #from
            }

            #extra
        }
    }
}

/// The body of `from_key_item`: each key field read from the key attributes, or from the
/// values parsed out of the key templates.
fn from_key_item(model: &Model) -> TokenStream {
    let ident = model.ident;
    let fields = model.key_fields.iter().map(|&position| {
        let field = &model.fields[position];
        let member = field.member;
        let value = if model.uses_templates() {
            codec::read_template_field(&model.name, field)
        } else {
            codec::read_field(&model.name, field)
        };
        quote!(#member: #value)
    });
    let sources = model.uses_templates().then(|| {
        quote! {
            let __item = ::dynorm::__private::template_key_sources(
                &<#ident as ::dynorm::__private::Model>::SCHEMA,
                &__item,
            )?;
        }
    });
    quote! {
        #sources
        let mut __item = __item;
        ::core::result::Result::Ok(Self { #(#fields,)* })
    }
}

/// `ModelKey` for the key struct: the key fields, or the templates rendered from them.
pub fn key_impl(model: &Model) -> TokenStream {
    let ident = model.ident;
    let count = model.key_fields.len();
    let inserts = model
        .key_fields
        .iter()
        .map(|&position| codec::insert_field(&model.name, &model.fields[position]));
    let fields = quote! {
        let mut __item = ::dynorm::__private::Item::with_capacity(#count);
        #(#inserts)*
    };
    if !model.uses_templates() {
        return model_key_impl(
            model,
            quote! {
                #fields
                ::core::result::Result::Ok(__item)
            },
            from_key_item(model),
            TokenStream::new(),
        );
    }
    // A template key is rendered from its fields, which are stored attributes too.
    model_key_impl(
        model,
        quote! {
            #fields
            ::dynorm::__private::entity_key(&<#ident as ::dynorm::__private::Model>::SCHEMA, &__item)
        },
        from_key_item(model),
        quote! {
            #[inline]
            fn __stored_sources(&self) -> ::dynorm::__private::Result<::dynorm::__private::Item> {
                #fields
                ::core::result::Result::Ok(__item)
            }
        },
    )
}

/// `From` the bare hash value when the key has one field, plus `&str` and `&String` for a
/// `String` key.
pub fn from_impls(model: &Model) -> TokenStream {
    let [position] = model.key_fields[..] else {
        return TokenStream::new();
    };
    let key = &model.key_struct;
    let field: &Field = &model.fields[position];
    let (member, ty) = (field.member, field.ty);
    let borrowed = (field.string && !field.optional).then(|| {
        quote! {
            #[automatically_derived]
            impl ::core::convert::From<&::core::primitive::str> for #key {
                fn from(value: &::core::primitive::str) -> Self {
                    Self { #member: ::core::convert::From::from(value) }
                }
            }
            #[automatically_derived]
            impl ::core::convert::From<&::std::string::String> for #key {
                fn from(value: &::std::string::String) -> Self {
                    Self { #member: ::core::clone::Clone::clone(value) }
                }
            }
        }
    });
    quote! {
        #[automatically_derived]
        impl ::core::convert::From<#ty> for #key {
            fn from(value: #ty) -> Self {
                Self { #member: value }
            }
        }
        #borrowed
    }
}

//! `#[derive(Collection)]`: an enum of single-table entities that share a partition.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields, Ident, Type};

use crate::internals::Ctxt;

/// Parses, checks and expands one `#[derive(Collection)]`.
pub fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::default();
    let ident = &input.ident;
    let mut variants: Vec<(&Ident, &Type)> = Vec::new();
    match &input.data {
        Data::Enum(data) => {
            if data.variants.is_empty() {
                cx.error_spanned_by(ident, "a collection needs at least one entity variant");
            }
            for variant in &data.variants {
                match &variant.fields {
                    // Member(Membership)
                    Fields::Unnamed(fields) if fields.unnamed.len() == 1 => {
                        variants.extend(fields.unnamed.first().map(|f| (&variant.ident, &f.ty)));
                    }
                    _ => cx.error_spanned_by(
                        variant,
                        "each variant of a collection holds one entity: `Member(Membership)`",
                    ),
                }
            }
        }
        _ => cx.error_spanned_by(ident, "a collection is an enum of entities: `enum TeamWithMembers { Team(Team), Member(Membership) }`"),
    }
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "a collection cannot have generic parameters",
        );
    }
    let errors = cx.check().err();
    let Some(&(_, anchor)) = variants.first() else {
        return errors.map_or_else(TokenStream::new, |e| e.to_compile_error());
    };
    let body = match errors {
        // The errors, and a stub impl so that uses of the collection add none.
        Some(errors) if input.generics.params.is_empty() => {
            let errors = errors.to_compile_error();
            return quote! {
                #errors
                #[automatically_derived]
                impl ::dynorm::__private::Collection for #ident {
                    type Anchor = #anchor;

                    fn decode(
                        _: &::core::primitive::str,
                        _: ::dynorm::__private::Item,
                    ) -> ::core::option::Option<::dynorm::__private::Result<Self>> {
                        ::core::unreachable!()
                    }

                    fn __decode_key(
                        _: &::core::primitive::str,
                        _: ::dynorm::__private::Item,
                    ) -> ::core::option::Option<::core::result::Result<(), ::dynorm::__private::Error>> {
                        ::core::unreachable!()
                    }
                }
                #[automatically_derived]
                impl ::dynorm::__private::Keyed for #ident {
                    type Key = ();
                }
            };
        }
        Some(errors) => return errors.to_compile_error(),
        None => {
            let arms = variants.iter().map(|(variant, ty)| {
                quote! {
                    if __entity == ::dynorm::__private::entity_name(&<#ty as ::dynorm::__private::Model>::SCHEMA) {
                        return ::core::option::Option::Some(
                            <#ty as ::dynorm::__private::Model>::from_item(__item).map(Self::#variant),
                        );
                    }
                }
            });
            quote! {
                #(#arms)*
                ::core::option::Option::None
            }
        }
    };
    let entity_types = variants.iter().map(|(_, ty)| ty);
    let key_ident = quote::format_ident!("{}Key", ident);
    let vis = &input.vis;
    let key_doc = format!("The key of an item of `{ident}`: the key of one of its entities.");
    let key_variants = variants.iter().map(|(variant, ty)| {
        let doc = format!("A key of `{}`.", quote!(#ty).to_string().replace(' ', ""));
        quote!(#[doc = #doc] #variant(<#ty as ::dynorm::__private::Model>::Key))
    });
    let key_arms = variants.iter().map(|(variant, ty)| {
        quote! {
            if __entity == ::dynorm::__private::entity_name(&<#ty as ::dynorm::__private::Model>::SCHEMA) {
                return ::core::option::Option::Some(
                    <<#ty as ::dynorm::__private::Model>::Key as ::dynorm::__private::ModelKey>::from_key_item(__key)
                        .map(#key_ident::#variant),
                );
            }
        }
    });
    quote! {
        #[doc = #key_doc]
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::cmp::PartialEq)]
        #vis enum #key_ident {
            #(#key_variants,)*
        }

        #[automatically_derived]
        impl ::dynorm::__private::Keyed for #ident {
            type Key = #key_ident;
        }

        #[automatically_derived]
        impl ::dynorm::__private::Collection for #ident {
            type Anchor = #anchor;

            const __ENTITIES: &'static [&'static ::dynorm::__private::Schema] =
                &[#(&<#entity_types as ::dynorm::__private::Model>::SCHEMA),*];

            fn decode(
                __entity: &::core::primitive::str,
                __item: ::dynorm::__private::Item,
            ) -> ::core::option::Option<::dynorm::__private::Result<Self>> {
                #body
            }

            fn __decode_key(
                __entity: &::core::primitive::str,
                __key: ::dynorm::__private::Item,
            ) -> ::core::option::Option<::core::result::Result<#key_ident, ::dynorm::__private::Error>> {
                #(#key_arms)*
                ::core::option::Option::None
            }
        }
    }
}

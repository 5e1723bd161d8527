//! `#[derive(Collection)]`: an enum of single-table entities that share a partition.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields};

use crate::ctxt::Ctxt;

/// Parses, checks and expands one `#[derive(Collection)]`.
pub fn derive(input: &DeriveInput) -> Result<TokenStream, syn::Error> {
    let cx = Ctxt::default();
    let ident = &input.ident;
    let mut variants = Vec::new();
    match &input.data {
        Data::Enum(data) => {
            if data.variants.is_empty() {
                cx.error_spanned_by(ident, "a collection needs at least one entity variant");
            }
            for variant in &data.variants {
                match &variant.fields {
                    Fields::Unnamed(fields) if fields.unnamed.len() == 1 => {
                        variants.push((&variant.ident, &fields.unnamed[0].ty));
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
    cx.check()?;
    let anchor = variants[0].1;
    let arms = variants.iter().map(|(variant, ty)| {
        quote! {
            if __entity == ::dynorm::__private::entity_name(&<#ty as ::dynorm::__private::Model>::SCHEMA) {
                return ::core::option::Option::Some(
                    <#ty as ::dynorm::__private::Model>::from_item(__item).map(Self::#variant),
                );
            }
        }
    });
    Ok(quote! {
        impl ::dynorm::__private::Collection for #ident {
            type Anchor = #anchor;

            fn decode(
                __entity: &str,
                __item: ::dynorm::__private::Item,
            ) -> ::core::option::Option<::core::result::Result<Self, ::dynorm::__private::Error>> {
                #(#arms)*
                ::core::option::Option::None
            }
        }
    })
}

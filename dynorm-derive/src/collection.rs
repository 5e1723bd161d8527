//! `#[derive(Collection)]`: an enum of single-table entities that share a partition.
//!
//! It runs in the stages `Model` does: parse the enum into its variants, resolve the names
//! it generates, check the rules between variants, then expand; after an error,
//! `fallback` (below) prints the errors and stubs of the items user code names.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Data, DeriveInput, Fields, Ident, LitStr, Type, Visibility};

use crate::internals::resolve::marker;
use crate::internals::symbol::{DYNORM, INDEX};
use crate::internals::Ctxt;

/// A `#[derive(Collection)]` enum, as written and resolved.
pub struct Collection<'a> {
    /// The enum's name.
    pub ident: &'a Ident,
    /// The enum's visibility, given to the key enum.
    pub vis: &'a Visibility,
    /// Whether the enum has generic parameters (reported).
    pub generic: bool,
    /// The variants that hold one entity, in order.
    pub variants: Vec<Variant<'a>>,
    /// The name of the key enum: `TeamWithMembersKey`.
    pub key_ident: Ident,
    /// `#[dynorm(index = "GSI1")]`: the index whose partitions hold the collection, when
    /// it is not the table.
    pub index: Option<LitStr>,
}

/// One variant and the entity it holds: `Member(Membership)`.
pub struct Variant<'a> {
    /// The variant's name.
    pub ident: &'a Ident,
    /// The entity's type.
    pub ty: &'a Type,
}

impl Collection<'_> {
    /// The entity whose key gives the partition: the first variant's.
    pub fn anchor(&self) -> Option<&Type> {
        self.variants.first().map(|variant| variant.ty)
    }

    /// The index type whose hash key names a partition: the anchor itself for the table,
    /// else its marker of the collection's index (`EmployeeGSI3`).
    pub fn partition(&self) -> Option<TokenStream> {
        let anchor = self.anchor()?;
        let Some(index) = &self.index else {
            return Some(quote!(#anchor));
        };
        let Type::Path(path) = anchor else {
            return None;
        };
        let mut path = path.clone();
        let last = path.path.segments.last_mut()?;
        if path.qself.is_some() || !last.arguments.is_none() {
            return None;
        }
        last.ident = marker(&last.ident.to_string(), &index.value());
        Some(quote!(#path))
    }
}

/// Parses, resolves, checks and expands one `#[derive(Collection)]`.
pub fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::default();
    let Some(collection) = parse(&cx, input) else {
        return cx
            .check()
            .map_or_else(|e| e.to_compile_error(), |()| TokenStream::new());
    };
    check(&cx, &collection);
    match cx.check() {
        Ok(()) => expand(&collection),
        Err(errors) => fallback(&collection, errors),
    }
}

/// The parse stage: the enum's variants, each holding one entity. `None` for anything but
/// an enum (reported).
fn parse<'a>(cx: &Ctxt, input: &'a DeriveInput) -> Option<Collection<'a>> {
    let Data::Enum(data) = &input.data else {
        cx.error_spanned_by(
            &input.ident,
            "a collection is an enum of entities: `enum TeamWithMembers { Team(Team), Member(Membership) }`",
        );
        return None;
    };
    let mut variants = Vec::new();
    for variant in &data.variants {
        match &variant.fields {
            // Member(Membership)
            Fields::Unnamed(fields) if fields.unnamed.len() == 1 => {
                variants.extend(fields.unnamed.first().map(|field| Variant {
                    ident: &variant.ident,
                    ty: &field.ty,
                }));
            }
            _ => cx.error_spanned_by(
                variant,
                "each variant of a collection holds one entity: `Member(Membership)`",
            ),
        }
    }
    if data.variants.is_empty() {
        cx.error_spanned_by(
            &input.ident,
            "a collection needs at least one entity variant",
        );
    }
    let generic = !input.generics.params.is_empty();
    if generic {
        cx.error_spanned_by(
            &input.generics,
            "a collection cannot have generic parameters",
        );
    }
    let mut index = None;
    for attr in input.attrs.iter().filter(|a| a.path() == DYNORM) {
        let parsed = attr.parse_nested_meta(|meta| {
            if meta.path == INDEX {
                // #[dynorm(index = "GSI1")]
                let value: LitStr = meta.value()?.parse()?;
                if index.replace(value).is_some() {
                    return Err(meta.error("duplicate `index`"));
                }
                Ok(())
            } else {
                Err(meta.error(
                    "a collection takes `#[dynorm(index = \"..\")]`: the index whose partitions hold it",
                ))
            }
        });
        if let Err(e) = parsed {
            cx.syn_error(e);
        }
    }
    let collection = Collection {
        ident: &input.ident,
        vis: &input.vis,
        generic,
        variants,
        key_ident: format_ident!("{}Key", input.ident),
        index,
    };
    if let (Some(index), Some(anchor)) = (&collection.index, collection.anchor()) {
        if collection.partition().is_none() {
            cx.error_spanned_by(
                anchor,
                format!(
                    "the first entity of a collection on index `{}` is named by its type's path, `Membership`",
                    index.value()
                ),
            );
        }
    }
    Some(collection)
}

/// The check stage: each entity is in the collection once, since an item decodes to the
/// first variant of its entity.
fn check(cx: &Ctxt, collection: &Collection) {
    let mut seen: Vec<(String, &Ident)> = Vec::new();
    for variant in &collection.variants {
        let ty = variant.ty;
        let text = quote!(#ty).to_string();
        if let Some((_, first)) = seen.iter().find(|(seen, _)| *seen == text) {
            cx.error_spanned_by(
                ty,
                format!(
                    "`{}` is in collection `{}` twice, as `{first}` and `{}`: an item of an entity decodes to one variant",
                    text.replace(' ', ""),
                    collection.ident,
                    variant.ident
                ),
            );
        } else {
            seen.push((text, variant.ident));
        }
    }
}

/// The key enum, with one variant per entity: `TeamWithMembersKey::Member(MembershipKey)`.
fn key_enum(collection: &Collection) -> TokenStream {
    let ident = collection.ident;
    let key_ident = &collection.key_ident;
    let vis = collection.vis;
    let doc = format!("The key of an item of `{ident}`: the key of one of its entities.");
    let variants = collection.variants.iter().map(|Variant { ident, ty }| {
        let doc = format!("A key of `{}`.", quote!(#ty).to_string().replace(' ', ""));
        quote!(#[doc = #doc] #ident(<#ty as ::dynorm::__private::Model>::Key))
    });
    quote! {
        #[doc = #doc]
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::cmp::PartialEq)]
        #vis enum #key_ident {
            #(#variants,)*
        }
    }
}

/// The expand stage: the key enum and the `Keyed` and `Collection` impls.
fn expand(collection: &Collection) -> TokenStream {
    let ident = collection.ident;
    let key_ident = &collection.key_ident;
    let (Some(anchor), Some(partition)) = (collection.anchor(), collection.partition()) else {
        // No variant, or an anchor that is not a path: reported by `parse`.
        return TokenStream::new();
    };
    let key_enum = key_enum(collection);
    let entity_types = collection.variants.iter().map(|variant| variant.ty);
    let members = collection.variants.iter().map(|Variant { ty, .. }| {
        quote! {
            #[automatically_derived]
            impl ::dynorm::__private::Member<#ident> for #ty {}
        }
    });
    let arms = collection.variants.iter().map(|Variant { ident: variant, ty }| {
        quote! {
            if __entity == ::dynorm::__private::entity_name(&<#ty as ::dynorm::__private::Model>::SCHEMA) {
                return ::core::option::Option::Some(
                    <#ty as ::dynorm::__private::Model>::from_item(__item).map(Self::#variant),
                );
            }
        }
    });
    let key_arms = collection.variants.iter().map(|Variant { ident: variant, ty }| {
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
        #key_enum

        #[automatically_derived]
        impl ::dynorm::__private::Derived for #ident {}

        #[automatically_derived]
        impl ::dynorm::__private::Keyed for #ident {
            type Key = #key_ident;
        }

        #(#members)*

        #[automatically_derived]
        impl ::dynorm::__private::Collection for #ident {
            type Anchor = #anchor;
            type Partition = #partition;

            const __ENTITIES: &'static [&'static ::dynorm::__private::Schema] =
                &[#(&<#entity_types as ::dynorm::__private::Model>::SCHEMA),*];

            fn decode(
                __entity: &::core::primitive::str,
                __item: ::dynorm::__private::Item,
            ) -> ::core::option::Option<::dynorm::__private::Result<Self>> {
                #(#arms)*
                ::core::option::Option::None
            }

            fn __decode_key(
                __entity: &::core::primitive::str,
                __key: ::dynorm::__private::Item,
            ) -> ::core::option::Option<::core::result::Result<#key_ident, ::dynorm::__private::Error>> {
                #(#key_arms)*
                ::core::option::Option::None
            }
        }

        // Every entity keys the partition the collection's query reads, the same way.
        const _: () = ::dynorm::__private::check_collection(
            <#ident as ::dynorm::__private::Collection>::__ENTITIES,
            &<#partition as ::dynorm::__private::Index>::INDEX,
        );
    }
}

/// The errors and stubs for a `#[derive(Collection)]` that reported errors (as
/// `fallback.rs` makes them for a `Model`): the key enum
/// and the `Keyed` and `Collection` impls, for the variants that hold one entity. Without
/// any such variant, or with generic parameters, only the errors.
fn fallback(collection: &Collection, errors: syn::Error) -> TokenStream {
    let errors = errors.to_compile_error();
    let (Some(anchor), Some(partition), false) = (
        collection.anchor(),
        collection.partition(),
        collection.generic,
    ) else {
        return errors;
    };
    let ident = collection.ident;
    let key_ident = &collection.key_ident;
    let key_enum = key_enum(collection);
    quote! {
        #errors
        #key_enum
        #[automatically_derived]
        impl ::dynorm::__private::Derived for #ident {}
        #[automatically_derived]
        impl ::dynorm::__private::Keyed for #ident {
            type Key = #key_ident;
        }
        #[automatically_derived]
        impl ::dynorm::__private::Collection for #ident {
            type Anchor = #anchor;
            type Partition = #partition;

            fn decode(
                _: &::core::primitive::str,
                _: ::dynorm::__private::Item,
            ) -> ::core::option::Option<::dynorm::__private::Result<Self>> {
                ::core::unreachable!()
            }

            fn __decode_key(
                _: &::core::primitive::str,
                _: ::dynorm::__private::Item,
            ) -> ::core::option::Option<::core::result::Result<#key_ident, ::dynorm::__private::Error>> {
                ::core::unreachable!()
            }
        }
    }
}

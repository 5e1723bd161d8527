//! What a derive emits after an error: the `compile_error!`s, plus stubs of every item user
//! code may name (the key struct, the `Attr` constants, the index types, and the `Model`
//! and `Index` impls), so that the one real error is not followed by a cascade of "cannot
//! find type `OrderKey`" and "no associated item named `STATUS`".
//!
//! The stubs' bodies are `unreachable!()`: this code exists only in a compile that fails,
//! so it never runs.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::DeriveInput;

use crate::expand::{self, attrs, index, insert, key, relation};
use crate::internals::resolve::{IndexKeys, Model, PrimaryKey, Projection};

/// The errors and stubs for a `#[derive(Model)]` that reported errors. `errors` is `None`
/// only if a stage failed without saying why, which would be a bug in the derive.
pub fn model(input: &DeriveInput, model: &Model, errors: Option<syn::Error>) -> TokenStream {
    let errors = errors
        .unwrap_or_else(|| {
            syn::Error::new(
                Span::call_site(),
                "dynorm: internal error: the model's key was not resolved",
            )
        })
        .to_compile_error();
    if !input.generics.params.is_empty() {
        // An impl for the struct without its parameters would be one more error.
        return errors;
    }
    let ident = model.ident;
    let key_ident = &model.key_struct;
    let key_struct = key::key_struct(model);
    let insert_struct = insert::insert_struct(model);
    let insert_impl = insert::insert_impl(model, Some(quote!(::core::unreachable!())));
    let relations = relation::relations(model);
    let key_impl = key::model_key_impl(
        model,
        quote!(::core::unreachable!()),
        quote!(::core::unreachable!()),
        TokenStream::new(),
    );
    let from_impls = key::from_impls(model);
    let attr_consts = attrs::attr_consts_with(model, |_| quote!(|_| ::core::unreachable!()));
    let table_hash = match &model.primary {
        Some(PrimaryKey::Fields { hash, .. }) => vec![*hash],
        Some(PrimaryKey::Templates { hash, .. }) => hash.distinct_fields(),
        None => Vec::new(),
    };
    let table_index = index_impl(model, quote!(#ident), quote!(#ident), &table_hash);
    // Index types declared twice were reported; each is stubbed once.
    let mut markers = Vec::new();
    let mut index_types = Vec::new();
    let mut index_impls = Vec::new();
    for index in &model.indexes {
        if markers.contains(&&index.marker) {
            continue;
        }
        markers.push(&index.marker);
        index_types.push(index::index_types(model, index));
        let item = index::item_type(model, index);
        let hash = match &index.keys {
            IndexKeys::Fields { hash, .. } => hash.clone(),
            IndexKeys::Templates { hash, .. } => hash.distinct_fields(),
        };
        let marker = &index.marker;
        index_impls.push(index_impl(model, quote!(#marker), item.clone(), &hash));
        index_impls.push(quote! {
            #[automatically_derived]
            impl ::dynorm::__private::Derived for #marker {}
        });
        if !matches!(index.projection, Projection::All) {
            index_impls.push(quote! {
                #[automatically_derived]
                impl ::dynorm::__private::Derived for #item {}
                #[automatically_derived]
                impl ::dynorm::__private::FromItem for #item {
                    fn from_item(
                        _: ::dynorm::__private::Item,
                    ) -> ::dynorm::__private::Result<Self> {
                        ::core::unreachable!()
                    }
                }
            });
        }
    }
    let model_name = &model.name;
    let stubs = expand::wrap(
        quote! {
            #[allow(dead_code)]
            #key_struct
            #[allow(dead_code)]
            #insert_struct
            #(#index_types)*
        },
        quote! {
            #key_impl
            #insert_impl
            #relations
            #from_impls
            #[automatically_derived]
            impl ::dynorm::__private::Derived for #ident {}
            #[automatically_derived]
            impl ::dynorm::__private::Model for #ident {
                type Key = #key_ident;
                const SCHEMA: ::dynorm::__private::Schema = ::dynorm::__private::Schema {
                    model: #model_name,
                    table: #model_name,
                    table_prefix: ::core::option::Option::None,
                    table_suffix: ::core::option::Option::None,
                    hash_key: ::dynorm::__private::KeyAttribute {
                        name: "",
                        scalar: ::dynorm::__private::ScalarType::S,
                    },
                    range_key: ::core::option::Option::None,
                    keys: &[],
                    attributes: &[],
                    indexes: &[],
                    version: ::core::option::Option::None,
                    ttl: ::core::option::Option::None,
                    combines: &[],
                    transformed: &[],
                    entity: ::core::option::Option::None,
                    defaults: &[],
                    updated_at: ::core::option::Option::None,
                    stream: ::core::option::Option::None,
                    uniques: &[],
                    counts: &[],
                    shape: ::core::option::Option::None,
                    max_item_bytes: ::core::option::Option::None,
                };
                fn to_item(&self) -> ::dynorm::__private::Result<::dynorm::__private::Item> {
                    ::core::unreachable!()
                }
                fn from_item(
                    _: ::dynorm::__private::Item,
                ) -> ::dynorm::__private::Result<Self> {
                    ::core::unreachable!()
                }
                fn key(&self) -> #key_ident {
                    ::core::unreachable!()
                }
            }
            #table_index
            #(#index_impls)*
            #attr_consts
        },
    );
    quote! {
        #errors
        #stubs
    }
}

/// A stub `impl Index for #marker`, with the partition key of the fields at `hash`.
fn index_impl(
    model: &Model,
    marker: TokenStream,
    item: TokenStream,
    hash: &[usize],
) -> TokenStream {
    let ident = model.ident;
    let hash_items = index::hash_key_items_with(model, hash, quote!(::core::unreachable!()));
    quote! {
        #[automatically_derived]
        impl ::dynorm::__private::Index for #marker {
            type Model = #ident;
            type Item = #item;
            const INDEX: ::dynorm::__private::IndexSchema = ::dynorm::__private::IndexSchema {
                name: "",
                type_name: "",
                kind: ::dynorm::__private::IndexKind::Table,
                hash_key: &[],
                range_key: &[],
                projection: ::dynorm::__private::Projection::All,
                range_prefix: ::core::option::Option::None,
            };
            #hash_items
        }
    }
}

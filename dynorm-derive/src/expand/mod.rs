//! The expand stage: prints the `Model` impl, the key struct, the `Attr` constants and the
//! index types from the resolved facts. It runs only when no stage reported an error, and
//! decides nothing the facts do not say.
//!
//! Generated code reaches the runtime only through `::dynorm::__private` and the standard
//! library only through `::core` and `::std`, and its impls sit inside
//! `const _: () = { ... };`, so that it adds no names to the user's module other than the
//! key struct and the index types.

pub mod attrs;
pub mod codec;
pub mod index;
pub mod insert;
pub mod key;
pub mod model;
pub mod relation;
pub mod schema;

use proc_macro2::TokenStream;
use quote::quote;

use crate::internals::resolve::{Model, PrimaryKey};

/// The code generated for a model that passed every check.
pub fn derive(model: &Model, primary: &PrimaryKey) -> TokenStream {
    let key_struct = key::key_struct(model);
    let insert_struct = insert::insert_struct(model);
    let insert_impl = insert::insert_impl(model, None);
    let relations = relation::relations(model);
    let key_impl = key::key_impl(model);
    let from_impls = key::from_impls(model);
    let model_impl = model::model_impl(model, primary);
    let attr_consts = attrs::attr_consts(model);
    let table_index = index::table_index(model, primary);
    let index_types = model.indexes.iter().map(|i| index::index_types(model, i));
    let index_impls = model
        .indexes
        .iter()
        .enumerate()
        .map(|(position, i)| index::index_impls(model, position, i));
    wrap(
        quote! {
            #key_struct
            #insert_struct
            #(#index_types)*
        },
        quote! {
            #key_impl
            #insert_impl
            #relations
            #from_impls
            #model_impl
            #table_index
            #(#index_impls)*
            #attr_consts
        },
    )
}

/// The items user code names, then the impls inside an anonymous constant with the
/// runtime's encoding traits in scope.
pub fn wrap(items: TokenStream, impls: TokenStream) -> TokenStream {
    quote! {
        #items
        #[doc(hidden)]
        #[allow(non_upper_case_globals, unused_qualifications, clippy::all)]
        const _: () = {
            #[allow(unused_imports)]
            use ::dynorm::__private::{DecodeNative as _, DecodeSerde as _, EncodeNative as _, EncodeSerde as _};
            #impls
        };
    }
}

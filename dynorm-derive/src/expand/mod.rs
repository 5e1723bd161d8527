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
pub mod features;
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
    let transform_fns = attrs::transform_fns(model);
    let feature_checks = model.fields.iter().map(|field| features::checks(field.ty));
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
            #transform_fns
            #(#feature_checks)*
        },
    )
}

/// The items user code names, then the impls inside an anonymous constant with the
/// runtime's encoding traits in scope.
pub fn wrap(items: TokenStream, impls: TokenStream) -> TokenStream {
    quote! {
        #items
        #[doc(hidden)]
        #[allow(non_upper_case_globals, non_camel_case_types, unused_qualifications, clippy::all)]
        const _: () = {
            #[allow(unused_imports)]
            use ::dynorm::__private::{DecodeNative as _, DecodeSerde as _, EncodeNative as _, EncodeSerde as _};
            #impls
        };
    }
}

#[cfg(test)]
mod tests {
    use proc_macro2::{TokenStream, TokenTree};

    /// The model of the compile-time benchmark (`scripts/compile_bench.py`).
    const BENCH_MODEL: &str = r#"
        #[derive(dynorm::Model)]
        #[dynorm(rename_all = "camelCase")]
        pub struct Model00 {
            #[hash_key]
            pub tenant_id: String,
            #[range_key]
            pub item_id: String,
            #[index(name = "byStatus", range_key = "created_at")]
            pub status: String,
            pub created_at: u64,
            #[index(name = "byOwner")]
            pub owner: String,
            pub score: i64,
            pub price: f64,
            pub active: bool,
            pub note: Option<String>,
            pub tags: Vec<String>,
        }
    "#;

    fn count(tokens: TokenStream) -> usize {
        tokens
            .into_iter()
            .map(|tree| match tree {
                TokenTree::Group(group) => 1 + count(group.stream()),
                _ => 1,
            })
            .sum()
    }

    /// What the derive prints for one model of the compile-time benchmark, in tokens: the
    /// code rustc then compiles for each model.
    #[test]
    fn the_benchmark_model_expands_to_a_bounded_number_of_tokens() {
        let input: syn::DeriveInput = syn::parse_str(BENCH_MODEL).expect("a struct");
        let output = crate::model(&input);
        let tokens = count(output.clone());
        if std::env::var_os("DYNORM_PRINT_EXPANSION").is_some() {
            println!("{output}");
        }
        println!("generated tokens: {tokens}");
        // The benchmark model prints about 3,850 tokens; a change that prints much more shows here.
        assert!(tokens < 4_000, "{tokens} tokens");
    }
}

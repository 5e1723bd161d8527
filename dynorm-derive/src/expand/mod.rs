//! The expand stage: generates the `Model` impl, the key struct and the item conversion.
//!
//! Generated code reaches the runtime only through `::dynorm::__private`, and sits inside
//! `const _: () = { ... };` so that it adds no names to the user's module other than the
//! key struct.

mod attrs;
mod codec;
mod entity;
mod index;
mod key;
mod model;

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use crate::ast::Container;
use crate::check;
use crate::ctxt::Ctxt;

/// Runs the three stages on one `#[derive(Model)]` input.
pub fn derive(input: &DeriveInput) -> Result<TokenStream, syn::Error> {
    let cx = Ctxt::default();
    let container = Container::from_ast(&cx, input);
    let indexes = container
        .as_ref()
        .map(|c| check::check(&cx, c))
        .unwrap_or_default();
    cx.check()?;
    let Some(container) = container else {
        return Ok(TokenStream::new());
    };

    let key_struct = key::key_struct(&container);
    let key_impls = key::key_impls(&container);
    let model_impl = model::model_impl(&container, &indexes);
    let attr_consts = attrs::attr_consts(&container);
    let table_index = index::table_index(&container);
    let index_types = indexes.iter().map(|i| index::index_types(&container, i));
    let template_index_types = entity::index_types(&container);
    Ok(quote! {
        #key_struct
        #[doc(hidden)]
        #[allow(non_upper_case_globals, unused_qualifications, clippy::all)]
        const _: () = {
            #[allow(unused_imports)]
            use ::dynorm::__private::{DecodeNative as _, DecodeSerde as _, EncodeNative as _, EncodeSerde as _};
            #key_impls
            #model_impl
            #table_index
            #attr_consts
        };
        #(#index_types)*
        #template_index_types
    })
}

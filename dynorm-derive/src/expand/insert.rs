//! The insert type, `NewUser` for `User`: the model's fields without those dynorm generates,
//! and its `Insertable` impl.

use proc_macro2::TokenStream;
use quote::quote;

use crate::expand::codec;
use crate::internals::resolve::Model;

/// The insert type's fields: every field that dynorm does not generate.
fn given_fields<'m, 'a>(
    model: &'m Model<'a>,
) -> impl Iterator<Item = &'m crate::internals::resolve::Field<'a>> {
    model
        .fields
        .iter()
        .enumerate()
        .filter(|(position, _)| !model.is_generated(*position))
        .map(|(_, field)| field)
}

/// `pub struct NewUser { .. }`.
pub fn insert_struct(model: &Model) -> TokenStream {
    let vis = model.vis;
    let ident = &model.insert_struct;
    let model_ident = model.ident;
    let doc = format!(
        "A new [`{model_ident}`] to insert with `Client::insert`: its fields without those dynorm generates."
    );
    let fields = given_fields(model).map(|field| {
        let member = field.member;
        let ty = field.ty;
        let field_vis = field.ast.vis;
        quote!(#[allow(missing_docs)] #field_vis #member: #ty)
    });
    quote! {
        #[doc = #doc]
        #vis struct #ident {
            #(#fields,)*
        }
    }
}

/// `impl Insertable for NewUser`, with `to_item` as the model's without generated fields.
pub fn insert_impl(model: &Model, body: Option<TokenStream>) -> TokenStream {
    let ident = &model.insert_struct;
    let model_ident = model.ident;
    let model_name = &model.name;
    let body = body.unwrap_or_else(|| {
        let inserts = given_fields(model).map(|field| codec::insert_field(model_name, field));
        quote! {
            let mut __item = ::dynorm::__private::Item::new();
            #(#inserts)*
            ::core::result::Result::Ok(__item)
        }
    });
    quote! {
        #[automatically_derived]
        impl ::dynorm::__private::Insertable for #ident {
            type Model = #model_ident;
            fn to_item(&self) -> ::core::result::Result<::dynorm::__private::Item, ::dynorm::__private::Error> {
                #body
            }
        }
    }
}

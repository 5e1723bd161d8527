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

/// Whether the insert type is the model itself: no field is generated and no key comes
/// from a template, so the model's own `to_item` is the insert type's.
fn is_the_model(model: &Model) -> bool {
    !model.uses_templates() && given_fields(model).count() == model.fields.len()
}

/// `pub struct NewUser { .. }`, or `pub type NewUser = User;` when they would be the same.
pub fn insert_struct(model: &Model) -> TokenStream {
    let vis = model.vis;
    let ident = &model.insert_struct;
    let model_ident = model.ident;
    if is_the_model(model) {
        let doc = format!(
            "A new [`{model_ident}`] to insert with `Client::insert`: the model itself, as dynorm generates none of its fields."
        );
        return quote! {
            #[doc = #doc]
            #vis type #ident = #model_ident;
        };
    }
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
    if is_the_model(model) {
        let body = body.unwrap_or_else(|| quote!(::dynorm::__private::Model::to_item(self)));
        return quote! {
            #[automatically_derived]
            impl ::dynorm::__private::Insertable for #model_ident {
                type Model = #model_ident;
                #[inline]
                fn to_item(&self) -> ::dynorm::__private::Result<::dynorm::__private::Item> {
                    #body
                }
            }
        };
    }
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
        impl ::dynorm::__private::Derived for #ident {}

        #[automatically_derived]
        impl ::dynorm::__private::Insertable for #ident {
            type Model = #model_ident;
            #[inline]
            fn to_item(&self) -> ::dynorm::__private::Result<::dynorm::__private::Item> {
                #body
            }
        }
    }
}

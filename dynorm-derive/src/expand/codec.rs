//! Per-field encoding and decoding expressions.
//!
//! Native types go through `dynorm::AttrValue`; every other type falls back to serde
//! through `serde_dynamo`. The choice is made by method resolution on the concrete
//! field type (`Encode` / `Decode` in the runtime), so the derive needs no list of types.

use proc_macro2::{Ident, TokenStream};
use quote::{quote, quote_spanned};
use syn::Type;

use crate::ast::Field;
use crate::attr::DateStorage;
use crate::types::{self, Shape};

/// The runtime's name for a date storage.
fn storage_tokens(storage: DateStorage) -> TokenStream {
    match storage {
        DateStorage::Iso => quote!(::dynorm::__private::DateStorage::Iso),
        DateStorage::Millis => quote!(::dynorm::__private::DateStorage::Millis),
        DateStorage::Seconds => quote!(::dynorm::__private::DateStorage::Seconds),
    }
}

/// The date storage of a field: the explicit one, or epoch seconds for `#[ttl]`.
pub fn date_storage(field: &Field) -> Option<DateStorage> {
    match (&field.attrs.date, &field.attrs.ttl) {
        (Some((storage, _)), _) => Some(*storage),
        (None, Some(_)) => Some(DateStorage::Seconds),
        (None, None) => None,
    }
}

/// The type of a present value of the field: the inner type of an `Option` field.
fn present_type<'a>(field: &Field<'a>) -> &'a Type {
    types::option_inner(field.ty).unwrap_or(field.ty)
}

/// An expression of type `Result<Option<AttributeValue>, AttrError>` for `value`, a
/// reference to a present value of the field (the inner value, for an `Option` field).
pub fn encode_present(field: &Field, value: &TokenStream) -> TokenStream {
    encode_value(field, value)
}

/// An expression of the field's present type (the inner type of an `Option`), read out of
/// `__item` as a required attribute, with `?` on errors.
pub fn read_present(model: &str, field: &Field) -> TokenStream {
    let name = &field.name;
    let decoded = decode_value(field, present_type(field), quote!(__item.remove(#name)));
    quote!(::dynorm::__private::field(#model, #name, #decoded)?)
}

fn encode_value(field: &Field, value: &TokenStream) -> TokenStream {
    if let Some(storage) = date_storage(field) {
        let storage = storage_tokens(storage);
        return quote!(::dynorm::__private::date::encode(#value, #storage));
    }
    if types::shape(present_type(field)) == Shape::Bytes {
        return quote!(::dynorm::__private::bytes::encode(#value));
    }
    quote_spanned!(field.ty_span()=> (&::dynorm::__private::Encode(#value)).dynorm_encode())
}

/// An expression of type `Result<T, AttrError>` that decodes `value`, an
/// `Option<AttributeValue>`, as the present type `ty`.
fn decode_value(field: &Field, ty: &Type, value: TokenStream) -> TokenStream {
    if let Some(storage) = date_storage(field) {
        let storage = storage_tokens(storage);
        return quote!(::dynorm::__private::date::decode(#value, #storage));
    }
    if types::shape(ty) == Shape::Bytes {
        return quote!(::dynorm::__private::bytes::decode(#value));
    }
    quote_spanned!(field.ty_span()=>
        (&::dynorm::__private::Decode::<#ty>::NEW).dynorm_decode(#value)
    )
}

/// A statement that writes the field `self.<member>` of `owner` into `__item`.
pub fn insert_field(model: &str, field: &Field, owner: &Ident) -> TokenStream {
    let member = field.ident;
    let name = &field.name;
    if types::option_inner(field.ty).is_some() {
        let encode = encode_value(field, &quote!(__value));
        quote! {
            if let ::core::option::Option::Some(__value) = &#owner.#member {
                ::dynorm::__private::insert(&mut __item, #model, #name, #encode)?;
            }
        }
    } else {
        let encode = encode_value(field, &quote!(&#owner.#member));
        quote! {
            ::dynorm::__private::insert(&mut __item, #model, #name, #encode)?;
        }
    }
}

/// An expression of the field's type, read out of `__item`, with `?` on errors.
pub fn read_field(model: &str, field: &Field) -> TokenStream {
    let name = &field.name;
    let decoded = match types::option_inner(field.ty) {
        Some(inner) => {
            let decode = decode_value(field, inner, quote!(::core::option::Option::Some(__value)));
            quote! {
                ::dynorm::__private::optional(__item.remove(#name), |__value| #decode)
            }
        }
        None => decode_value(field, field.ty, quote!(__item.remove(#name))),
    };
    quote!(::dynorm::__private::field(#model, #name, #decoded)?)
}

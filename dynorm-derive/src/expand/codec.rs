//! Per-field encoding and decoding expressions.
//!
//! Native types go through `dynorm::AttrValue`; every other type falls back to serde
//! through `serde_dynamo`. The choice is made by method resolution on the concrete
//! field type (`Encode` / `Decode` in the runtime), so the derive needs no list of types.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Type;

use crate::internals::attr::DateStorage;
use crate::internals::resolve::{Codec, Field};

/// The runtime's name for a date storage.
pub fn storage(storage: DateStorage) -> TokenStream {
    match storage {
        DateStorage::Iso => quote!(::dynorm::__private::DateStorage::Iso),
        DateStorage::Milliseconds => quote!(::dynorm::__private::DateStorage::Milliseconds),
        DateStorage::Seconds => quote!(::dynorm::__private::DateStorage::Seconds),
    }
}

/// An expression of type `Result<Option<AttributeValue>, AttrError>` for `value`, a
/// reference to a present value of the field (the inner value, for an `Option` field).
pub fn encode_present(field: &Field, value: &TokenStream) -> TokenStream {
    match field.codec {
        Codec::Date(date) => {
            let date = storage(date);
            quote!(::dynorm::__private::date::encode(#value, #date))
        }
        Codec::Bytes => quote!(::dynorm::__private::bytes::encode(#value)),
        Codec::Dispatch => quote_spanned!(field.ty.span()=>
            (&::dynorm::__private::Encode(#value)).dynorm_encode()
        ),
    }
}

/// An expression of type `Result<T, AttrError>` that decodes `value`, an
/// `Option<AttributeValue>`, as the field's present type `T`.
fn decode_present(field: &Field, value: TokenStream) -> TokenStream {
    let ty: &Type = field.present;
    match field.codec {
        Codec::Date(date) => {
            let date = storage(date);
            quote!(::dynorm::__private::date::decode(#value, #date))
        }
        Codec::Bytes => quote!(::dynorm::__private::bytes::decode(#value)),
        Codec::Dispatch => quote_spanned!(field.ty.span()=>
            (&::dynorm::__private::Decode::<#ty>::NEW).dynorm_decode(#value)
        ),
    }
}

/// An expression of type `Result<Option<AttributeValue>, AttrError>` for `value`, an owned
/// present value of the field, stored through its `set` transform if it has one (which
/// takes the field's type: an `Option` of the value, for an `Option` field).
pub fn encode_owned(field: &Field, value: TokenStream) -> TokenStream {
    let present = field.present;
    let encode = encode_present(field, &quote!(&__owned));
    let set = &field.set_call;
    match field.set {
        None => quote!({ let __owned: #present = #value; #encode }),
        Some(_) if field.optional => quote! {
            match #set(::core::option::Option::Some(#value)) {
                ::core::option::Option::Some(__owned) => #encode,
                ::core::option::Option::None => ::core::result::Result::Ok(::core::option::Option::None),
            }
        },
        Some(_) => quote!({ let __owned: #present = #set(#value); #encode }),
    }
}

/// [`encode_present`] for a reference to a key value: through the field's `set` transform
/// if it has one, as a write stores the value the key is built from.
pub fn encode_key(field: &Field, value: &TokenStream) -> TokenStream {
    if field.set.is_some() {
        encode_owned(field, quote!(::core::clone::Clone::clone(#value)))
    } else {
        encode_present(field, value)
    }
}

/// A statement that writes `self.<member>` into `__item`.
pub fn insert_field(model: &str, field: &Field) -> TokenStream {
    let member = field.member;
    let name = &field.name;
    if field.set.is_some() {
        // The transform takes the field's value; for an `Option` field it may fill one in.
        let set = &field.set_call;
        let transformed = quote!(#set(::core::clone::Clone::clone(&self.#member)));
        let encode = encode_present(field, &quote!(&__value));
        return if field.optional {
            quote! {
                if let ::core::option::Option::Some(__value) = #transformed {
                    ::dynorm::__private::insert(&mut __item, #model, #name, #encode)?;
                }
            }
        } else {
            quote! {
                let __value = #transformed;
                ::dynorm::__private::insert(&mut __item, #model, #name, #encode)?;
            }
        };
    }
    if field.optional {
        let encode = encode_present(field, &quote!(__value));
        quote! {
            if let ::core::option::Option::Some(__value) = &self.#member {
                ::dynorm::__private::insert(&mut __item, #model, #name, #encode)?;
            }
        }
    } else {
        let encode = encode_present(field, &quote!(&self.#member));
        quote! {
            ::dynorm::__private::insert(&mut __item, #model, #name, #encode)?;
        }
    }
}

/// An expression of the field's type, read out of `__item`, with `?` on errors.
pub fn read_field(model: &str, field: &Field) -> TokenStream {
    let name = &field.name;
    let decoded = if field.optional {
        let decode = decode_present(field, quote!(::core::option::Option::Some(__value)));
        quote!(::dynorm::__private::optional(__item.remove(#name), |__value| #decode))
    } else {
        decode_present(field, quote!(__item.remove(#name)))
    };
    let read = quote!(::dynorm::__private::field(#model, #name, #decoded)?);
    let get = &field.get_call;
    match field.get {
        Some(_) => quote!(#get(#read)),
        None => read,
    }
}

/// An expression of the field's present type (the inner type of an `Option`), read out of
/// `__item` as a required attribute, with `?` on errors.
pub fn read_present(model: &str, field: &Field) -> TokenStream {
    let name = &field.name;
    let decoded = decode_present(field, quote!(__item.remove(#name)));
    if field.get.is_none() {
        return quote!(::dynorm::__private::field(#model, #name, #decoded)?);
    }
    let get = &field.get_call;
    if field.optional {
        // The transform takes the field's type; a key value read must stay present.
        quote!(::dynorm::__private::field(
            #model,
            #name,
            #decoded.and_then(|__value| #get(::core::option::Option::Some(__value))
                .ok_or_else(::dynorm::__private::AttrError::missing)),
        )?)
    } else {
        quote!(#get(::dynorm::__private::field(#model, #name, #decoded)?))
    }
}

/// An expression of the field's type, read out of `__item`, whose values were parsed out of
/// a key template as strings: a number is read again as a number. With `?` on errors.
pub fn read_template_field(model: &str, field: &Field) -> TokenStream {
    let name = &field.name;
    let decode = decode_present(field, quote!(__value));
    let read = quote!(::dynorm::__private::field(
        #model,
        #name,
        ::dynorm::__private::template_field(__item.remove(#name), |__value| #decode),
    )?);
    let get = &field.get_call;
    match field.get {
        Some(_) => quote!(#get(#read)),
        None => read,
    }
}

//! One typed attribute handle per field: `Order::STATUS: Attr<Order, Status, ..>`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::expand::codec;
use crate::internals::resolve::{Field, Model};

/// The `Attr` constants, in an inherent impl of the model, and the table of its fields by
/// their Rust names (`__FIELDS`). `encoder` gives the encoding function of a field's values.
///
/// A relation reaches the related model's fields through the table, as
/// `<User>::__FIELDS.user_id`, so that a misspelt name is reported as the name written:
/// "no field `usr_id`".
pub fn attr_consts_with(model: &Model, encoder: impl Fn(&Field) -> TokenStream) -> TokenStream {
    let ident = model.ident;
    let model_name = &model.name;
    let vis = model.vis;
    let table = quote::format_ident!("__{}Fields", model.name);
    let members = model.fields.iter().map(|field| field.member);
    let types = model.fields.iter().map(|field| field.present);
    let constants = model.fields.iter().map(|field| &field.constant);
    let consts = model.fields.iter().map(|field| {
        let constant = &field.constant;
        let name = &field.name;
        let present = field.present;
        let optionality = if field.optional {
            quote!(::dynorm::__private::Optional)
        } else {
            quote!(::dynorm::__private::Required)
        };
        let writable = if field.writable {
            quote!(::dynorm::__private::Writable)
        } else {
            quote!(::dynorm::__private::ReadOnly)
        };
        let doc = format!("The `{name}` attribute, for conditions: `{model_name}::{constant}.eq(...)`.");
        let encoder = encoder(field);
        quote! {
            #[doc = #doc]
            #vis const #constant: ::dynorm::__private::Attr<#ident, #present, #optionality, #writable> =
                ::dynorm::__private::Attr::new(#model_name, #name, #encoder);
        }
    });
    let members_again = members.clone();
    quote! {
        use ::dynorm::__private::Attr as __DynormAttr;
        pub struct #table {
            #(pub #members: __DynormAttr<#ident, #types>,)*
        }
        #[automatically_derived]
        #[allow(clippy::all)]
        impl #ident {
            #(#consts)*
            #[doc(hidden)]
            pub const __FIELDS: #table = #table {
                #(#members_again: Self::#constants.__erase(),)*
            };
        }
    }
}

/// The `Attr` constants, each encoding values in its field's storage, through its `set`
/// transform if it has one: a condition then compares what a write of the value stores.
pub fn attr_consts(model: &Model) -> TokenStream {
    let own: Vec<usize> = crate::expand::model::own_key_fields(model).collect();
    let ident = model.ident;
    attr_consts_with(model, |field| {
        let present = field.present;
        if own
            .iter()
            .any(|&position| std::ptr::eq(&model.fields[position], field))
        {
            // The attribute holds the key's text: a condition compares that.
            let name = &field.name;
            let encode = codec::encode_present(field, &quote!(__value));
            return quote!(|__value: &#present| ::dynorm::__private::own_key_value(
                &<#ident as ::dynorm::__private::Model>::SCHEMA,
                #name,
                #encode,
            ));
        }
        if field.set.is_some() {
            let encode = codec::encode_owned(field, quote!(::core::clone::Clone::clone(__value)));
            return quote!(|__value: &#present| #encode);
        }
        let encode = codec::encode_present(field, &quote!(__value));
        quote!(|__value: &#present| #encode)
    })
}

/// The model's functions that call each field's `set` and `get` (`__dynorm_set_status`),
/// with the field's types: every use calls them, so that a function of the wrong type is
/// one error, at the function named. A `watch` field's `set` takes its sources by
/// reference.
pub fn transform_fns(model: &Model) -> TokenStream {
    let ident = model.ident;
    let fns = model
        .fields
        .iter()
        .enumerate()
        .flat_map(|(position, field)| {
            let ty = field.ty;
            let set_call = field.set_call.clone();
            let get_call = field.get_call.clone();
            let name_of = |call: &TokenStream| call.clone().into_iter().last();
            let set = field.ast.attrs.set.as_ref().map(|path| {
                let name = name_of(&set_call);
                match model.combine_of(position) {
                    Some(combine) => {
                        let params = combine.sources.iter().enumerate().map(|(i, source)| {
                            let binding = quote::format_ident!("__source{}", i, span = path.span());
                            let source_ty = model.fields[source.field].ty;
                            quote!(#binding: &#source_ty)
                        });
                        let args = (0..combine.sources.len())
                            .map(|i| quote::format_ident!("__source{}", i, span = path.span()));
                        quote_spanned! {path.span()=>
                            #[doc(hidden)]
                            #[inline]
                            fn #name(#(#params),*) -> #ty {
                                #path(#(#args),*)
                            }
                        }
                    }
                    None => quote_spanned! {path.span()=>
                        #[doc(hidden)]
                        #[inline]
                        fn #name(__value: #ty) -> #ty {
                            #path(__value)
                        }
                    },
                }
            });
            let get = field.get.map(|path| {
                let name = name_of(&get_call);
                quote_spanned! {path.span()=>
                    #[doc(hidden)]
                    #[inline]
                    fn #name(__value: #ty) -> #ty {
                        #path(__value)
                    }
                }
            });
            set.into_iter().chain(get)
        });
    quote! {
        #[automatically_derived]
        impl #ident {
            #(#fns)*
        }
    }
}

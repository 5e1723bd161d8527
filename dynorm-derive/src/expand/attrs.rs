//! One typed attribute handle per field: `Order::STATUS: Attr<Order, Status>`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ast::Container;
use crate::expand::codec;
use crate::types;

/// The associated constants, in an inherent impl of the model.
pub fn attr_consts(cont: &Container) -> TokenStream {
    let model = cont.ident;
    let model_name = model.to_string();
    let vis = cont.vis;
    let consts = cont.fields.iter().map(|field| {
        let raw = field.ident.to_string();
        let constant = format_ident!("{}", raw.trim_start_matches("r#").to_ascii_uppercase());
        let name = &field.name;
        let present = types::option_inner(field.ty).unwrap_or(field.ty);
        let encode = codec::encode_present(field, &quote!(__value));
        let optionality = if types::option_inner(field.ty).is_some() {
            quote!(::dynorm::__private::Optional)
        } else {
            quote!(::dynorm::__private::Required)
        };
        let template_key = cont.primary_key().is_some_and(|key| {
            std::iter::once(&key.hash).chain(&key.range).any(|t| t.fields().any(|f| f.ident == *field.ident))
        });
        let writable = if field.attrs.read_only.is_some() || template_key {
            quote!(::dynorm::__private::ReadOnly)
        } else {
            quote!(::dynorm::__private::Writable)
        };
        let doc = format!("The `{name}` attribute, for conditions: `{model}::{constant}.eq(...)`.");
        quote! {
            #[doc = #doc]
            #vis const #constant: ::dynorm::__private::Attr<#model, #present, #optionality, #writable> =
                ::dynorm::__private::Attr::new(#model_name, #name, |__value: &#present| #encode);
        }
    });
    quote! {
        #[allow(clippy::all)]
        impl #model {
            #(#consts)*
        }
    }
}

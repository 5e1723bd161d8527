//! Single-table models: physical keys rendered from `#[key]` templates, the entity
//! discriminator, and an index marker per templated global index.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ast::{Container, Field};
use crate::expand::{codec, index::upper_camel};
use crate::template::{KeyDecl, Part, Template};
use crate::types;

/// The name stored in the entity attribute by default.
const DEFAULT_ENTITY_ATTRIBUTE: &str = "__entity";

/// The fields a template uses, as model fields, each once, in order.
pub fn template_fields<'c, 'a>(
    cont: &'c Container<'a>,
    templates: &[&Template],
) -> Vec<&'c Field<'a>> {
    let mut out: Vec<&Field> = Vec::new();
    for template in templates {
        for reference in template.fields() {
            if let Some(position) = cont.field_position(&reference.ident) {
                let field = &cont.fields[position];
                if out.iter().all(|f| f.ident != field.ident) {
                    out.push(field);
                }
            }
        }
    }
    out
}

/// The templates of a `#[key]`: hash, then range.
fn templates(key: &KeyDecl) -> Vec<&Template> {
    std::iter::once(&key.hash).chain(&key.range).collect()
}

/// A physical key attribute, always a string.
pub fn string_key(template: &Template) -> TokenStream {
    let name = template.attribute.to_string();
    quote!(::dynorm::__private::KeyAttribute { name: #name, scalar: ::dynorm::__private::ScalarType::S })
}

/// `(hash, range, keys)` for the schema of a templated model.
pub fn table_keys(cont: &Container) -> (TokenStream, TokenStream, TokenStream) {
    let Some(primary) = cont.primary_key() else {
        return (TokenStream::new(), TokenStream::new(), TokenStream::new());
    };
    let hash = string_key(&primary.hash);
    let range = match &primary.range {
        Some(range) => {
            let range = string_key(range);
            quote!(::core::option::Option::Some(#range))
        }
        None => quote!(::core::option::Option::None),
    };
    let keys = templates(primary).into_iter().map(string_key);
    (hash, range, quote!(&[#(#keys),*]))
}

/// The static prefix of an index's range template, for queries that read one entity.
pub fn range_prefix(key: &KeyDecl) -> TokenStream {
    match &key.range {
        Some(range) => {
            let prefix = range.static_prefix();
            quote!(::core::option::Option::Some(#prefix))
        }
        None => quote!(::core::option::Option::None),
    }
}

/// The `IndexSchema` of a templated global index.
pub fn index_schema(key: &KeyDecl) -> TokenStream {
    let name = key.index.as_ref().map(|i| i.value()).unwrap_or_default();
    let hash = string_key(&key.hash);
    let range = key.range.iter().map(string_key);
    let prefix = range_prefix(key);
    quote! {
        ::dynorm::__private::IndexSchema {
            name: #name,
            kind: ::dynorm::__private::IndexKind::Global,
            hash_key: &[#hash],
            range_key: &[#(#range),*],
            projection: ::dynorm::__private::Projection::All,
            range_prefix: #prefix,
        }
    }
}

/// `Some(Entity { .. })` for the schema.
pub fn entity(cont: &Container) -> TokenStream {
    if !cont.uses_templates() {
        return quote!(::core::option::Option::None);
    }
    let name = cont.entity_name();
    let attribute = cont
        .attrs
        .entity_attribute
        .as_ref()
        .map_or_else(|| DEFAULT_ENTITY_ATTRIBUTE.to_owned(), |a| a.value());
    let keys = cont.keys.iter().flat_map(|key| {
        let index = match &key.index {
            Some(index) => {
                let index = index.value();
                quote!(::core::option::Option::Some(#index))
            }
            None => quote!(::core::option::Option::None),
        };
        templates(key)
            .into_iter()
            .enumerate()
            .map(move |(i, template)| {
                let attribute = template.attribute.to_string();
                let is_hash = i == 0;
                let parts = template.parts.iter().map(|part| match part {
                    Part::Static(text) => quote!(::dynorm::__private::TemplatePart::Static(#text)),
                    Part::Field(reference) => {
                        let name = cont
                            .field_position(&reference.ident)
                            .map(|p| cont.fields[p].name.clone())
                            .unwrap_or_default();
                        quote!(::dynorm::__private::TemplatePart::Field(#name))
                    }
                });
                quote! {
                    ::dynorm::__private::KeyTemplate {
                        index: #index,
                        attribute: #attribute,
                        is_hash: #is_hash,
                        parts: &[#(#parts),*],
                    }
                }
            })
    });
    quote! {
        ::core::option::Option::Some(::dynorm::__private::Entity {
            name: #name,
            attribute: #attribute,
            keys: &[#(#keys),*],
        })
    }
}

/// `type HashKey` and `fn hash_values` for the hash template of `key`.
pub fn hash_key_items(cont: &Container, key: &KeyDecl) -> TokenStream {
    let model = cont.ident;
    let model_name = model.to_string();
    let fields = template_fields(cont, &[&key.hash]);
    let present = |f: &Field| types::option_inner(f.ty).unwrap_or(f.ty).clone();
    let bindings: Vec<_> = (0..fields.len()).map(|i| format_ident!("__k{i}")).collect();
    let inserts = fields.iter().zip(&bindings).map(|(field, binding)| {
        let name = &field.name;
        let encode = codec::encode_present(field, &quote!(#binding));
        quote!(::dynorm::__private::insert(&mut __item, #model_name, #name, #encode)?;)
    });
    let types: Vec<syn::Type> = fields.iter().map(|f| present(f)).collect();
    let (hash_type, destructure) = match types.as_slice() {
        [one] => (quote!(#one), quote!(let __k0 = __key;)),
        many => (quote!((#(#many,)*)), quote!(let (#(#bindings,)*) = __key;)),
    };
    let index = match &key.index {
        Some(index) => {
            let index = index.value();
            quote!(::core::option::Option::Some(#index))
        }
        None => quote!(::core::option::Option::None),
    };
    quote! {
        type HashKey = #hash_type;

        fn hash_values(
            __key: &Self::HashKey,
        ) -> ::core::result::Result<::std::vec::Vec<(&'static str, ::dynorm::__private::AttributeValue)>, ::dynorm::__private::Error> {
            #destructure
            let mut __item = ::dynorm::__private::Item::new();
            #(#inserts)*
            ::dynorm::__private::template_hash_values(&<#model as ::dynorm::__private::Model>::SCHEMA, #index, &__item)
        }
    }
}

/// The marker type of each templated global index, such as `MembershipGsi1`.
pub fn index_types(cont: &Container) -> TokenStream {
    let model = cont.ident;
    let vis = cont.vis;
    let markers = cont.keys.iter().filter(|k| k.index.is_some()).map(|key| {
        let name = key.index.as_ref().map(|i| i.value()).unwrap_or_default();
        let marker = format_ident!("{}{}", model, upper_camel(&name));
        let schema = index_schema(key);
        let hash_items = hash_key_items(cont, key);
        let doc = format!("The `{name}` index of [`{model}`], keyed by its templates.");
        quote! {
            #[doc = #doc]
            #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy)]
            #vis struct #marker;

            const _: () = {
                #[allow(unused_imports)]
                use ::dynorm::__private::{EncodeNative as _, EncodeSerde as _};
                impl ::dynorm::__private::Index for #marker {
                    type Model = #model;
                    type Item = #model;
                    const INDEX: ::dynorm::__private::IndexSchema = #schema;
                    #hash_items
                }
            };
        }
    });
    quote!(#(#markers)*)
}

//! The `Model` impl: the schema, item conversion in both directions, and the key.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use crate::ast::{Container, Field};
use crate::attr::DateStorage;
use crate::check::ResolvedIndex;
use crate::expand::{codec, entity, index, key};

/// An `Option<&'static str>` literal.
fn option_str(value: Option<String>) -> TokenStream {
    match value {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    }
}

/// The `KeyAttribute` for a key field: its name and scalar type. An `Option` field (the key
/// of a sparse index) has the type of its value.
pub fn key_attribute(field: &Field) -> TokenStream {
    let name = &field.name;
    let ty = crate::types::option_inner(field.ty).unwrap_or(field.ty);
    let scalar = match codec::date_storage(field) {
        Some(DateStorage::Millis | DateStorage::Seconds) => {
            quote!(::dynorm::__private::ScalarType::N)
        }
        _ => quote_spanned!(field.ty_span()=> <#ty as ::dynorm::__private::KeyScalar>::SCALAR_TYPE),
    };
    quote!(::dynorm::__private::KeyAttribute { name: #name, scalar: #scalar })
}

/// The whole `impl Model for ...`.
pub fn model_impl(cont: &Container, indexes: &[ResolvedIndex]) -> TokenStream {
    let ident = cont.ident;
    let model_name = ident.to_string();
    let table = cont.table_name();
    let prefix = option_str(cont.attrs.prefix.as_ref().map(|p| p.value()));
    let suffix = option_str(cont.attrs.suffix.as_ref().map(|s| s.value()));
    let key_ident = key::key_ident(cont);
    let (hash_key, range_key, keys) = if cont.uses_templates() {
        entity::table_keys(cont)
    } else {
        let hash_key = cont.hash_key().map(key_attribute).unwrap_or_default();
        let range_key = match cont.range_key() {
            Some(field) => {
                let attribute = key_attribute(field);
                quote!(::core::option::Option::Some(#attribute))
            }
            None => quote!(::core::option::Option::None),
        };
        let keys = key::key_fields(cont).into_iter().map(key_attribute);
        (hash_key, range_key, quote!(&[#(#keys),*]))
    };
    let entity = entity::entity(cont);
    let template_indexes = cont
        .keys
        .iter()
        .filter(|k| k.index.is_some())
        .map(entity::index_schema);
    let (write_entity, check_entity) = if cont.uses_templates() {
        (
            quote!(::dynorm::__private::write_entity_keys(&<Self as ::dynorm::__private::Model>::SCHEMA, &mut __item, false)?;),
            quote!(::dynorm::__private::check_entity(&<Self as ::dynorm::__private::Model>::SCHEMA, &__item)?;),
        )
    } else {
        (TokenStream::new(), TokenStream::new())
    };
    let names = cont.fields.iter().map(|f| &f.name);
    let globals = indexes.iter().filter(|i| !i.local);
    let locals = indexes.iter().filter(|i| i.local);
    let index_schemas = globals
        .map(|i| index::index_schema(cont, i))
        .chain(template_indexes)
        .chain(locals.map(|i| index::index_schema(cont, i)));
    let count = cont.fields.len();
    let owner = format_ident!("self");
    let inserts = cont
        .fields
        .iter()
        .map(|field| codec::insert_field(&model_name, field, &owner));
    let reads = cont.fields.iter().map(|field| {
        let member = field.ident;
        let read = codec::read_field(&model_name, field);
        quote!(#member: #read)
    });
    let combined: Vec<(&Field, Vec<&Field>)> = cont
        .fields
        .iter()
        .filter_map(|field| {
            let combine = field.attrs.combine.as_ref()?;
            let sources = combine
                .fields
                .iter()
                .filter_map(|f| cont.field_position(&f.ident).map(|p| &cont.fields[p]))
                .collect();
            Some((field, sources))
        })
        .collect();
    let combine_inserts = combined.iter().map(|(field, sources)| {
        let name = &field.name;
        let separator = field.attrs.combine.as_ref().map(|c| c.separator.value()).unwrap_or_default();
        let source_names = sources.iter().map(|s| &s.name);
        quote! {
            let __combined = ::dynorm::__private::combine(#model_name, #name, #separator, &__item, &[#(#source_names),*])?;
            __item.insert(::std::string::String::from(#name), __combined);
        }
    });
    let combines = combined.iter().map(|(field, sources)| {
        let name = &field.name;
        let separator = field.attrs.combine.as_ref().map(|c| c.separator.value()).unwrap_or_default();
        let source_names = sources.iter().map(|s| &s.name);
        quote!(::dynorm::__private::Combine { attribute: #name, sources: &[#(#source_names),*], separator: #separator })
    });
    let key_members = key::key_fields(cont).into_iter().map(|field| {
        let member = field.ident;
        match combined.iter().find(|(f, _)| f.ident == field.ident) {
            // A combined key is built from its sources, as a write would store it.
            Some((_, sources)) => {
                let name = &field.name;
                let separator = field.attrs.combine.as_ref().map(|c| c.separator.value()).unwrap_or_default();
                let source_names = sources.iter().map(|s| &s.name);
                let source_inserts = sources.iter().map(|source| codec::insert_field(&model_name, source, &owner));
                quote! {
                    #member: (|| -> ::core::result::Result<::std::string::String, ::dynorm::__private::Error> {
                        let mut __item = ::dynorm::__private::Item::new();
                        #(#source_inserts)*
                        ::dynorm::__private::combined_text(#model_name, #name, #separator, &__item, &[#(#source_names),*])
                    })()
                    .unwrap_or_else(|_| ::core::clone::Clone::clone(&self.#member))
                }
            }
            None => quote!(#member: ::core::clone::Clone::clone(&self.#member)),
        }
    });
    let generated = |field: &Field, default: Option<crate::attr::DefaultValue>| {
        let name = &field.name;
        let value = match default {
            Some(crate::attr::DefaultValue::UuidV7) => {
                quote!(::dynorm::__private::GeneratedValue::UuidV7)
            }
            _ => {
                let storage = match codec::date_storage(field).unwrap_or(DateStorage::Iso) {
                    DateStorage::Iso => quote!(Iso),
                    DateStorage::Millis => quote!(Millis),
                    DateStorage::Seconds => quote!(Seconds),
                };
                quote!(::dynorm::__private::GeneratedValue::Now(::dynorm::__private::DateStorage::#storage))
            }
        };
        quote!(::dynorm::__private::Generated { attribute: #name, value: #value })
    };
    let defaults = cont.fields.iter().filter_map(|f| {
        f.attrs
            .default
            .as_ref()
            .map(|(d, _)| generated(f, Some(*d)))
    });
    let updated_at = match cont.fields.iter().find(|f| f.attrs.updated_at.is_some()) {
        Some(field) => {
            let generated = generated(field, None);
            quote!(::core::option::Option::Some(#generated))
        }
        None => quote!(::core::option::Option::None),
    };
    let version = option_str(
        cont.fields
            .iter()
            .find(|f| f.attrs.version.is_some())
            .map(|f| f.name.clone()),
    );
    let ttl = option_str(
        cont.fields
            .iter()
            .find(|f| f.attrs.ttl.is_some())
            .map(|f| f.name.clone()),
    );

    let key_signature = key_signature(cont);

    quote! {
        impl ::dynorm::__private::Model for #ident {
            type Key = #key_ident;

            const SCHEMA: ::dynorm::__private::Schema = ::dynorm::__private::Schema {
                model: #model_name,
                table: #table,
                table_prefix: #prefix,
                table_suffix: #suffix,
                hash_key: #hash_key,
                range_key: #range_key,
                keys: #keys,
                attributes: &[#(#names),*],
                indexes: &[#(#index_schemas),*],
                version: #version,
                ttl: #ttl,
                combines: &[#(#combines),*],
                entity: #entity,
                defaults: &[#(#defaults),*],
                updated_at: #updated_at,
            };

            fn to_item(&self) -> ::core::result::Result<::dynorm::__private::Item, ::dynorm::__private::Error> {
                let mut __item = ::dynorm::__private::Item::with_capacity(#count);
                #(#inserts)*
                #(#combine_inserts)*
                #write_entity
                ::core::result::Result::Ok(__item)
            }

            fn from_item(
                mut __item: ::dynorm::__private::Item,
            ) -> ::core::result::Result<Self, ::dynorm::__private::Error> {
                #check_entity
                ::core::result::Result::Ok(Self {
                    #(#reads,)*
                })
            }

            fn key(&self) -> #key_ident {
                #key_ident { #(#key_members,)* }
            }

            #key_signature
        }
    }
}

/// `Model::__key_signature`, reading the key fields in place. Models with key templates or
/// a combined key keep the default, which goes through `key()`.
fn key_signature(cont: &Container) -> Option<TokenStream> {
    let combined_key = key::key_fields(cont)
        .iter()
        .any(|field| field.attrs.combine.is_some());
    if cont.uses_templates() || combined_key {
        // `key()` renders templates and rebuilds combined keys from their sources.
        return None;
    }
    let pushes = key::key_fields(cont).into_iter().map(|field| {
        let member = field.ident;
        if crate::types::is_string(field.ty) {
            return quote!(__signature.push_str(&self.#member)?;);
        }
        let encode = codec::encode_present(field, &quote!(&self.#member));
        quote!(__signature.push(#encode)?;)
    });
    Some(quote! {
        fn __key_signature(
            &self,
            __signature: &mut ::dynorm::__private::KeySignature<'_>,
        ) -> ::core::result::Result<(), ::dynorm::__private::Error> {
            #(#pushes)*
            ::core::result::Result::Ok(())
        }
    })
}

//! The `Index` impls: the model itself for its table, and one marker type per index with
//! the item type its projection holds.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ast::{Container, Field};
use crate::check::{Projected, ResolvedIndex};
use crate::expand::{codec, key};
use crate::types;

/// `byStatus` to `ByStatus`.
pub fn upper_camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = true;
    for ch in name.chars() {
        if ch.is_ascii_alphanumeric() {
            if upper {
                out.extend(ch.to_uppercase());
            } else {
                out.push(ch);
            }
            upper = false;
        } else {
            upper = true;
        }
    }
    out
}

/// The type of a present value of a field: the inner type of an `Option`.
fn present<'a>(field: &Field<'a>) -> &'a syn::Type {
    types::option_inner(field.ty).unwrap_or(field.ty)
}

/// `&[KeyAttribute { .. }, ..]` for the given fields.
fn key_attributes(cont: &Container, positions: &[usize]) -> TokenStream {
    let attributes = positions
        .iter()
        .map(|&p| super::model::key_attribute(&cont.fields[p]));
    quote!(&[#(#attributes),*])
}

/// The runtime `Projection` of an index.
fn projection(cont: &Container, index: &ResolvedIndex) -> TokenStream {
    match &index.projected {
        Projected::All => quote!(::dynorm::__private::Projection::All),
        Projected::KeysOnly => quote!(::dynorm::__private::Projection::KeysOnly),
        Projected::Include(fields) => {
            let keys = key_positions(cont, index);
            let names = fields
                .iter()
                .filter(|p| !keys.contains(p))
                .map(|&p| &cont.fields[p].name);
            quote!(::dynorm::__private::Projection::Include(&[#(#names),*]))
        }
    }
}

/// The table's key fields and the index's key fields.
fn key_positions(cont: &Container, index: &ResolvedIndex) -> Vec<usize> {
    let table = key::key_fields(cont)
        .into_iter()
        .filter_map(|f| cont.field_position(f.ident));
    let mut out: Vec<usize> = Vec::new();
    for position in table
        .chain(index.hash.iter().copied())
        .chain(index.range.iter().copied())
    {
        if !out.contains(&position) {
            out.push(position);
        }
    }
    out
}

/// The `IndexSchema` constant of one index.
pub fn index_schema(cont: &Container, index: &ResolvedIndex) -> TokenStream {
    let name = &index.name;
    let kind = if index.local {
        quote!(::dynorm::__private::IndexKind::Local)
    } else {
        quote!(::dynorm::__private::IndexKind::Global)
    };
    let hash = key_attributes(cont, &index.hash);
    let range = key_attributes(cont, &index.range);
    let projection = projection(cont, index);
    quote! {
        ::dynorm::__private::IndexSchema {
            name: #name,
            kind: #kind,
            hash_key: #hash,
            range_key: #range,
            projection: #projection,
            range_prefix: ::core::option::Option::None,
        }
    }
}

/// `type HashKey` and `fn hash_values` for the given hash fields.
fn hash_key_items(cont: &Container, hash: &[usize]) -> TokenStream {
    let model_name = cont.ident.to_string();
    let fields: Vec<&Field> = hash.iter().map(|&p| &cont.fields[p]).collect();
    let types = fields.iter().map(|f| present(f));
    let bindings: Vec<_> = (0..fields.len()).map(|i| format_ident!("__k{i}")).collect();
    let values = fields.iter().zip(&bindings).map(|(field, binding)| {
        let name = &field.name;
        let encode = codec::encode_present(field, &quote!(#binding));
        quote!((#name, ::dynorm::__private::key_value(#model_name, #name, #encode)?))
    });
    let (hash_type, destructure) = if fields.len() == 1 {
        let ty = present(fields[0]);
        (quote!(#ty), quote!(let __k0 = __key;))
    } else {
        (quote!((#(#types,)*)), quote!(let (#(#bindings,)*) = __key;))
    };
    quote! {
        type HashKey = #hash_type;

        fn hash_values(
            __key: &Self::HashKey,
        ) -> ::core::result::Result<::std::vec::Vec<(&'static str, ::dynorm::__private::AttributeValue)>, ::dynorm::__private::Error> {
            #destructure
            ::core::result::Result::Ok(::std::vec![#(#values),*])
        }
    }
}

/// `impl Index for Model`: the table itself.
pub fn table_index(cont: &Container) -> TokenStream {
    let model = cont.ident;
    let table = cont.table_name();
    if let Some(primary) = cont.primary_key() {
        let (hash, _, _) = super::entity::table_keys(cont);
        let range = primary.range.iter().map(super::entity::string_key);
        let range = quote!(&[#(#range),*]);
        let prefix = super::entity::range_prefix(primary);
        let hash_items = super::entity::hash_key_items(cont, primary);
        return quote! {
            impl ::dynorm::__private::Index for #model {
                type Model = #model;
                type Item = #model;
                const INDEX: ::dynorm::__private::IndexSchema = ::dynorm::__private::IndexSchema {
                    name: #table,
                    kind: ::dynorm::__private::IndexKind::Table,
                    hash_key: &[#hash],
                    range_key: #range,
                    projection: ::dynorm::__private::Projection::All,
                    range_prefix: #prefix,
                };
                #hash_items
            }
        };
    }
    let keys: Vec<usize> = key::key_fields(cont)
        .into_iter()
        .filter_map(|f| cont.field_position(f.ident))
        .collect();
    let hash = key_attributes(cont, &keys[..1.min(keys.len())]);
    let range = key_attributes(cont, &keys[1.min(keys.len())..]);
    let hash_items = hash_key_items(cont, &keys[..1.min(keys.len())]);
    quote! {
        impl ::dynorm::__private::Index for #model {
            type Model = #model;
            type Item = #model;
            const INDEX: ::dynorm::__private::IndexSchema = ::dynorm::__private::IndexSchema {
                name: #table,
                kind: ::dynorm::__private::IndexKind::Table,
                hash_key: #hash,
                range_key: #range,
                projection: ::dynorm::__private::Projection::All,
                range_prefix: ::core::option::Option::None,
            };
            #hash_items
        }
    }
}

/// The marker type, the item type and their impls for one index.
pub fn index_types(cont: &Container, index: &ResolvedIndex) -> TokenStream {
    let model = cont.ident;
    let model_name = model.to_string();
    let vis = cont.vis;
    let marker = format_ident!("{}{}", model, upper_camel(&index.name));
    let kind = if index.local { "local" } else { "global" };
    let hash_names: Vec<String> = index
        .hash
        .iter()
        .map(|&p| cont.fields[p].ident.to_string())
        .collect();
    let hash_args = if hash_names.len() == 1 {
        hash_names.join("")
    } else {
        format!("({})", hash_names.join(", "))
    };
    let marker_doc = format!(
        "The `{}` {kind} index of [`{model}`]. Query it with `db.query_by::<{marker}>({hash_args})`.",
        index.name
    );
    let schema = index_schema(cont, index);
    let hash_items = hash_key_items(cont, &index.hash);

    let (item_type, item_definition) = match &index.projected {
        Projected::All => (quote!(#model), TokenStream::new()),
        Projected::KeysOnly | Projected::Include(_) => {
            let item = format_ident!("{marker}Item");
            let keys = key_positions(cont, index);
            let mut included = keys.clone();
            if let Projected::Include(fields) = &index.projected {
                included.extend(fields.iter().filter(|p| !keys.contains(p)));
            }
            included.sort_unstable();
            included.dedup();
            let index_keys: Vec<usize> = index.hash.iter().chain(&index.range).copied().collect();
            let fields = included.iter().map(|&p| {
                let field = &cont.fields[p];
                let (member, field_vis) = (field.ident, &field.vis);
                let ty = if index_keys.contains(&p) {
                    present(field)
                } else {
                    field.ty
                };
                quote!(#field_vis #member: #ty)
            });
            let reads = included.iter().map(|&p| {
                let field = &cont.fields[p];
                let member = field.ident;
                let read = if index_keys.contains(&p) {
                    codec::read_present(&model_name, field)
                } else {
                    codec::read_field(&model_name, field)
                };
                quote!(#member: #read)
            });
            let doc = format!(
                "An item of the `{}` index of [`{model}`]: the table keys, the index keys and the projected attributes.",
                index.name
            );
            let definition = quote! {
                #[doc = #doc]
                #[derive(::core::fmt::Debug, ::core::clone::Clone)]
                #[allow(dead_code)]
                #vis struct #item {
                    #(#fields,)*
                }

                const _: () = {
                    #[allow(unused_imports)]
                    use ::dynorm::__private::{DecodeNative as _, DecodeSerde as _};
                    impl ::dynorm::__private::FromItem for #item {
                        fn from_item(
                            mut __item: ::dynorm::__private::Item,
                        ) -> ::core::result::Result<Self, ::dynorm::__private::Error> {
                            ::core::result::Result::Ok(Self { #(#reads,)* })
                        }
                    }
                };
            };
            (quote!(#item), definition)
        }
    };

    quote! {
        #[doc = #marker_doc]
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy)]
        #vis struct #marker;

        #item_definition

        const _: () = {
            #[allow(unused_imports)]
            use ::dynorm::__private::{EncodeNative as _, EncodeSerde as _};
            impl ::dynorm::__private::Index for #marker {
                type Model = #model;
                type Item = #item_type;
                const INDEX: ::dynorm::__private::IndexSchema = #schema;
                #hash_items
            }
        };
    }
}

//! The `Index` impls: the model itself for its table, and one marker type per secondary
//! index, with the item type its projection holds. Every schema comes from
//! `Model::SCHEMA`; nothing here repeats it.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::expand::{codec, schema};
use crate::internals::resolve::{Index, IndexKeys, Model, PrimaryKey, Projection, Template};

/// `type HashKey` and `fn hash_values` with `body` (which sees the key as `__key`), for a
/// partition key made of the fields at `hash`.
pub fn hash_key_items_with(model: &Model, hash: &[usize], body: TokenStream) -> TokenStream {
    let types = hash.iter().map(|&p| model.fields[p].present);
    let hash_type = match hash {
        [one] => {
            let ty = model.fields[*one].present;
            quote!(#ty)
        }
        _ => quote!((#(#types,)*)),
    };
    quote! {
        type HashKey = #hash_type;

        #[inline]
        fn hash_values(__key: &Self::HashKey) -> ::dynorm::__private::HashValues {
            #body
        }
    }
}

/// `let __k0 = __key;` or `let (__k0, __k1,) = __key;`, and the bindings.
fn destructure(count: usize) -> (TokenStream, Vec<proc_macro2::Ident>) {
    let bindings: Vec<_> = (0..count).map(|i| format_ident!("__k{}", i)).collect();
    let statement = match &bindings[..] {
        [one] => quote!(let #one = __key;),
        many => quote!(let (#(#many,)*) = __key;),
    };
    (statement, bindings)
}

/// The partition key of an index keyed by fields: each value encoded as a key.
fn field_hash_items(model: &Model, hash: &[usize]) -> TokenStream {
    let model_name = &model.name;
    if let [position] = hash {
        let field = &model.fields[*position];
        let name = &field.name;
        let encode = codec::encode_key(field, &quote!(__key));
        let body = quote!(::dynorm::__private::hash_value(#model_name, #name, #encode));
        return hash_key_items_with(model, hash, body);
    }
    let (destructure, bindings) = destructure(hash.len());
    let values = hash.iter().zip(&bindings).map(|(&p, binding)| {
        let field = &model.fields[p];
        let name = &field.name;
        let encode = codec::encode_key(field, &quote!(#binding));
        quote!((#name, ::dynorm::__private::key_value(#model_name, #name, #encode)?))
    });
    let body = quote! {
        #destructure
        ::core::result::Result::Ok(::std::vec![#(#values),*])
    };
    hash_key_items_with(model, hash, body)
}

/// The partition key of a templated index (or table): the template's fields, rendered by
/// the runtime.
fn template_hash_items(model: &Model, hash: &Template, index: Option<&str>) -> TokenStream {
    let ident = model.ident;
    let model_name = &model.name;
    let fields = hash.distinct_fields();
    let (destructure, bindings) = destructure(fields.len());
    let inserts = fields.iter().zip(&bindings).map(|(&p, binding)| {
        let field = &model.fields[p];
        let name = &field.name;
        let encode = codec::encode_key(field, &quote!(#binding));
        quote!(::dynorm::__private::insert(&mut __item, #model_name, #name, #encode)?;)
    });
    let index = match index {
        Some(index) => quote!(::core::option::Option::Some(#index)),
        None => quote!(::core::option::Option::None),
    };
    let body = quote! {
        #destructure
        let mut __item = ::dynorm::__private::Item::new();
        #(#inserts)*
        ::dynorm::__private::template_hash_values(&<#ident as ::dynorm::__private::Model>::SCHEMA, #index, &__item)
    };
    hash_key_items_with(model, &fields, body)
}

/// `impl Index for Model`: the table itself.
pub fn table_index(model: &Model, primary: &PrimaryKey) -> TokenStream {
    let ident = model.ident;
    let (hash_items, range) = match primary {
        PrimaryKey::Fields { hash, .. } => (field_hash_items(model, &[*hash]), None),
        PrimaryKey::Templates { hash, range } => {
            (template_hash_items(model, hash, None), range.as_ref())
        }
    };
    let prefix = schema::range_prefix(range);
    quote! {
        #[automatically_derived]
        impl ::dynorm::__private::Index for #ident {
            type Model = #ident;
            type Item = #ident;
            const INDEX: ::dynorm::__private::IndexSchema = ::dynorm::__private::IndexSchema {
                name: <#ident as ::dynorm::__private::Model>::SCHEMA.table,
                type_name: <#ident as ::dynorm::__private::Model>::SCHEMA.model,
                kind: ::dynorm::__private::IndexKind::Table,
                hash_key: <#ident as ::dynorm::__private::Model>::SCHEMA.keys.split_at(1).0,
                range_key: <#ident as ::dynorm::__private::Model>::SCHEMA.keys.split_at(1).1,
                projection: ::dynorm::__private::Projection::All,
                range_prefix: #prefix,
            };
            #hash_items
        }
    }
}

/// The fields of an index's item type, in field order: for an index keyed by fields, the
/// table keys, the index keys and the projected fields; for one keyed by templates, whose
/// keys are text, the projected fields. `None` for an index that projects every attribute
/// (its item is the model) or one keyed by templates that projects its keys only (its item
/// is the raw keys).
fn item_fields(model: &Model, index: &Index) -> Option<Vec<usize>> {
    let projected: &[usize] = match (&index.keys, &index.projection) {
        (_, Projection::All) | (IndexKeys::Templates { .. }, Projection::KeysOnly) => return None,
        (IndexKeys::Templates { .. }, Projection::Include(fields)) => {
            let mut fields = fields.clone();
            fields.sort_unstable();
            fields.dedup();
            return Some(fields);
        }
        (IndexKeys::Fields { .. }, Projection::KeysOnly) => &[],
        (IndexKeys::Fields { .. }, Projection::Include(fields)) => fields,
    };
    let mut fields: Vec<usize> = model
        .key_fields
        .iter()
        .chain(&index.key_fields())
        .chain(projected)
        .copied()
        .collect();
    fields.sort_unstable();
    fields.dedup();
    Some(fields)
}

/// The marker type and, for a partial projection, the item type of one index: the items
/// that user code names.
pub fn index_types(model: &Model, index: &Index) -> TokenStream {
    let ident = model.ident;
    let vis = model.vis;
    let marker = &index.marker;
    let kind = if index.local { "local" } else { "global" };
    let marker_doc = match &index.keys {
        IndexKeys::Fields { hash, .. } => {
            let names: Vec<String> = hash
                .iter()
                .map(|&p| model.fields[p].member.to_string())
                .collect();
            let args = match &names[..] {
                [one] => one.clone(),
                many => format!("({})", many.join(", ")),
            };
            format!(
                "The `{}` {kind} index of [`{ident}`]. Query it with `db.query_by::<{marker}>({args})`.",
                index.name
            )
        }
        IndexKeys::Templates { .. } => format!(
            "The `{}` index of [`{ident}`], keyed by its templates.",
            index.name
        ),
    };
    let item = item_fields(model, index).map(|fields| {
        let item = format_ident!("{}Item", marker);
        let index_keys = index.key_fields();
        let fields = fields.iter().map(|&p| {
            let field = &model.fields[p];
            let (member, field_vis) = (field.member, field.ast.vis);
            let ty = if index_keys.contains(&p) {
                field.present
            } else {
                field.ty
            };
            quote!(#field_vis #member: #ty)
        });
        let doc = match &index.keys {
            IndexKeys::Fields { .. } => format!(
                "An item of the `{}` index of [`{ident}`]: the table keys, the index keys and the projected attributes.",
                index.name
            ),
            IndexKeys::Templates { .. } => format!(
                "An item of the `{}` index of [`{ident}`]: the attributes it projects.",
                index.name
            ),
        };
        quote! {
            #[doc = #doc]
            #[derive(::core::fmt::Debug, ::core::clone::Clone)]
            #[allow(dead_code)]
            #vis struct #item {
                #(#fields,)*
            }
        }
    });
    quote! {
        #[doc = #marker_doc]
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy)]
        #vis struct #marker;

        #item
    }
}

/// The item type of an index: the model, or the generated item struct.
pub fn item_type(model: &Model, index: &Index) -> TokenStream {
    match (&index.keys, &index.projection) {
        (_, Projection::All) => {
            let ident = model.ident;
            quote!(#ident)
        }
        // Its keys are text: the raw key attributes (`hydrate` reads the whole items).
        (IndexKeys::Templates { .. }, Projection::KeysOnly) => quote!(::dynorm::__private::Item),
        (_, Projection::KeysOnly | Projection::Include(_)) => {
            let item = format_ident!("{}Item", index.marker);
            quote!(#item)
        }
    }
}

/// `impl Index` for the marker of the index at `position` in `Schema::indexes`, and
/// `FromItem` for its item type.
pub fn index_impls(model: &Model, position: usize, index: &Index) -> TokenStream {
    let ident = model.ident;
    let model_name = &model.name;
    let marker = &index.marker;
    let item = item_type(model, index);
    let hash_items = match &index.keys {
        IndexKeys::Fields { hash, .. } => field_hash_items(model, hash),
        IndexKeys::Templates { hash, .. } => template_hash_items(model, hash, Some(&index.name)),
    };
    let from_item = item_fields(model, index).map(|fields| {
        let index_keys = index.key_fields();
        let reads = fields.iter().map(|&p| {
            let field = &model.fields[p];
            let member = field.member;
            let read = if index_keys.contains(&p) {
                codec::read_present(model_name, field)
            } else {
                codec::read_field(model_name, field)
            };
            quote!(#member: #read)
        });
        quote! {
            #[automatically_derived]
            impl ::dynorm::__private::Derived for #item {}

            #[automatically_derived]
            impl ::dynorm::__private::FromItem for #item {
                #[inline]
                fn from_item(
                    mut __item: ::dynorm::__private::Item,
                ) -> ::dynorm::__private::Result<Self> {
                    ::core::result::Result::Ok(Self { #(#reads,)* })
                }
            }
        }
    });
    quote! {
        #[automatically_derived]
        impl ::dynorm::__private::Derived for #marker {}

        #[automatically_derived]
        impl ::dynorm::__private::Index for #marker {
            type Model = #ident;
            type Item = #item;
            const INDEX: ::dynorm::__private::IndexSchema =
                <#ident as ::dynorm::__private::Model>::SCHEMA.indexes[#position];
            #hash_items
        }
        #from_item
    }
}

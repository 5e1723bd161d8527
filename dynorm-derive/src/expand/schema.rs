//! `Model::SCHEMA`: the model's names, keys, indexes, templates and generated values, as
//! one constant the runtime and the index impls read.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::expand::codec;
use crate::internals::attr::DateStorage;
use crate::internals::resolve::{
    Casing, Combine, Convention, Entity, Field, Generated, GeneratedValue, Index, IndexKeys, Model,
    Part, PrimaryKey, Projection, Template,
};

/// `Some(value)` or `None`, as tokens.
fn option<T: quote::ToTokens>(value: Option<T>) -> TokenStream {
    match value {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    }
}

/// The `KeyAttribute` of a key field: its name and scalar type. An `Option` field (the key
/// of a sparse index) has the type of its value.
fn field_key(field: &Field) -> TokenStream {
    let name = &field.name;
    let present = field.present;
    let scalar = match field.codec.date_storage() {
        Some(DateStorage::Milliseconds | DateStorage::Seconds) => {
            quote!(::dynorm::__private::ScalarType::N)
        }
        _ => {
            quote_spanned!(field.ty.span()=> <#present as ::dynorm::__private::KeyScalar>::SCALAR_TYPE)
        }
    };
    quote!(::dynorm::__private::KeyAttribute { name: #name, scalar: #scalar })
}

/// The `KeyAttribute` of a templated key: always a string.
fn template_key(template: &Template) -> TokenStream {
    let name = &template.attribute;
    quote!(::dynorm::__private::KeyAttribute { name: #name, scalar: ::dynorm::__private::ScalarType::S })
}

/// `&[KeyAttribute { .. }, ..]` for the fields at `positions`.
fn field_keys(model: &Model, positions: &[usize]) -> TokenStream {
    let keys = positions.iter().map(|&p| field_key(&model.fields[p]));
    quote!(&[#(#keys),*])
}

/// The `KeyAttribute`s of the table: hash, then range.
fn table_keys(model: &Model, primary: &PrimaryKey) -> Vec<TokenStream> {
    match primary {
        PrimaryKey::Fields { hash, range } => std::iter::once(hash)
            .chain(range)
            .map(|&p| field_key(&model.fields[p]))
            .collect(),
        PrimaryKey::Templates { hash, range } => std::iter::once(hash)
            .chain(range)
            .map(template_key)
            .collect(),
    }
}

/// The static prefix of a range template, for queries that read one entity.
pub fn range_prefix(range: Option<&Template>) -> TokenStream {
    option(range.map(Template::static_prefix))
}

/// What an index projects. Under a convention that stores the entity's identity, an index
/// that projects some attributes projects the identity too, so that a query of it keeps
/// the entity's items only. An index keyed by fields (`#[index]`) also projects the table
/// key's fields when that key is built from templates: the key is stored as text, and the
/// fields as attributes of their own, which the index's item holds as written (a key's
/// text may fold their case). An index keyed by templates holds what it names.
fn projection(model: &Model, index: &Index) -> TokenStream {
    let identity: Vec<&str> = match &model.entity {
        Some(entity) => {
            let mut names = vec![entity.attribute.as_str()];
            if matches!(entity.convention, Convention::ElectroDb { .. }) {
                names.push("__edb_v__");
            }
            names
        }
        None => Vec::new(),
    };
    let (listed, sources): (&[usize], Vec<usize>) = match (&index.keys, &index.projection) {
        (_, Projection::All) => return quote!(::dynorm::__private::Projection::All),
        (IndexKeys::Templates { .. }, Projection::KeysOnly) => {
            return quote!(::dynorm::__private::Projection::KeysOnly)
        }
        (IndexKeys::Templates { .. }, Projection::Include(fields)) => (fields, Vec::new()),
        (IndexKeys::Fields { .. }, projection) => {
            let index_keys = index.key_fields();
            let sources = match model.uses_templates() {
                true => model.key_fields.clone(),
                false => Vec::new(),
            };
            let listed: &[usize] = match projection {
                Projection::Include(fields) => fields,
                _ => &[],
            };
            let sources = sources
                .into_iter()
                .filter(|p| !index_keys.contains(p) && !listed.contains(p))
                .collect();
            (listed, sources)
        }
    };
    if listed.is_empty() && sources.is_empty() && identity.is_empty() {
        return quote!(::dynorm::__private::Projection::KeysOnly);
    }
    let names = listed
        .iter()
        .chain(&sources)
        .map(|&p| model.fields[p].name.as_str())
        .chain(identity);
    quote!(::dynorm::__private::Projection::Include(&[#(#names),*]))
}

/// The `IndexSchema` of one secondary index.
fn index_schema(model: &Model, index: &Index) -> TokenStream {
    let name = &index.name;
    let kind = if index.local {
        quote!(::dynorm::__private::IndexKind::Local)
    } else {
        quote!(::dynorm::__private::IndexKind::Global)
    };
    let (hash, range, prefix) = match &index.keys {
        IndexKeys::Fields { hash, range } => (
            field_keys(model, hash),
            field_keys(model, range),
            range_prefix(None),
        ),
        IndexKeys::Templates { hash, range } => {
            let hash = template_key(hash);
            let keys = range.iter().map(template_key);
            (
                quote!(&[#hash]),
                quote!(&[#(#keys),*]),
                range_prefix(range.as_ref()),
            )
        }
    };
    let projection = projection(model, index);
    let type_name = index.marker.to_string();
    quote! {
        ::dynorm::__private::IndexSchema {
            name: #name,
            type_name: #type_name,
            kind: #kind,
            hash_key: #hash,
            range_key: #range,
            projection: #projection,
            range_prefix: #prefix,
        }
    }
}

/// `Some(Entity { .. })` for a single-table model.
fn entity(model: &Model, entity: Option<&Entity>) -> TokenStream {
    let Some(entity) = entity else {
        return option(None::<TokenStream>);
    };
    let (name, attribute) = (&entity.name, &entity.attribute);
    let keys = entity.keys.iter().flat_map(|key| {
        let index = option(key.index.as_ref());
        key.templates().enumerate().map(move |(i, template)| {
            let attribute = &template.attribute;
            let is_hash = i == 0;
            let parts = template.parts.iter().map(|part| match part {
                Part::Static(text) => quote!(::dynorm::__private::TemplatePart::Static(#text)),
                Part::Field(position) => {
                    let name = &model.fields[*position].name;
                    quote!(::dynorm::__private::TemplatePart::Field(#name))
                }
            });
            let casing = match template.casing {
                Casing::None => quote!(None),
                Casing::Lower => quote!(Lower),
                Casing::Upper => quote!(Upper),
            };
            quote! {
                ::dynorm::__private::KeyTemplate {
                    index: #index,
                    attribute: #attribute,
                    is_hash: #is_hash,
                    parts: &[#(#parts),*],
                    casing: ::dynorm::__private::KeyCasing::#casing,
                }
            }
        })
    });
    let convention = match &entity.convention {
        Convention::Dynorm => quote!(::dynorm::__private::Convention::Dynorm),
        Convention::ElectroDb { version, .. } => {
            quote!(::dynorm::__private::Convention::ElectroDb { version: #version })
        }
        Convention::Toolbox { timestamps } => {
            quote!(::dynorm::__private::Convention::Toolbox { timestamps: #timestamps })
        }
    };
    quote! {
        ::core::option::Option::Some(::dynorm::__private::Entity {
            name: #name,
            attribute: #attribute,
            convention: #convention,
            keys: &[#(#keys),*],
        })
    }
}

/// A `Generated { .. }` value.
fn generated(model: &Model, generated: &Generated) -> TokenStream {
    let name = &model.fields[generated.field].name;
    let value = match generated.value {
        GeneratedValue::Fixed(expr) => {
            let field = &model.fields[generated.field];
            let ty = field.present;
            let encode = codec::encode_owned(field, quote!(__value));
            let value = quote_spanned!(expr.span()=>
                <_ as ::dynorm::__private::DefaultOf<#ty>>::default_of(#expr)
            );
            quote!(::dynorm::__private::GeneratedValue::Fixed({
                fn __default() -> ::core::result::Result<
                    ::core::option::Option<::dynorm::__private::AttributeValue>,
                    ::dynorm::__private::AttrError,
                > {
                    let __value: #ty = #value;
                    #encode
                }
                __default
            }))
        }
        GeneratedValue::UuidV7 => quote!(::dynorm::__private::GeneratedValue::UuidV7),
        GeneratedValue::Now(date) => {
            let date = codec::storage(date);
            quote!(::dynorm::__private::GeneratedValue::Now(#date))
        }
    };
    quote!(::dynorm::__private::Generated { attribute: #name, value: #value })
}

/// The function a `watch` field is computed by: its sources read out of the item as their
/// fields' types, passed by reference to the field's `set`, and the result encoded.
fn compute(model: &Model, combine: &Combine) -> TokenStream {
    let model_name = &model.name;
    let field = &model.fields[combine.field];
    let name = &field.name;
    let source_names = combine.sources.iter().map(|s| &model.fields[s.field].name);
    let bindings: Vec<syn::Ident> = (0..combine.sources.len())
        .map(|i| quote::format_ident!("__source{}", i))
        .collect();
    let reads = combine
        .sources
        .iter()
        .zip(&bindings)
        .map(|(source, binding)| {
            let source = &model.fields[source.field];
            let ty = source.ty;
            let read = codec::read_field(model_name, source);
            quote!(let #binding: #ty = #read;)
        });
    let ty = field.ty;
    let present = field.present;
    let encode = codec::encode_present(field, &quote!(&__value));
    let encoded = if field.optional {
        quote! {
            match __computed {
                ::core::option::Option::Some(__value) => #encode,
                ::core::option::Option::None => ::core::result::Result::Ok(::core::option::Option::None),
            }
        }
    } else {
        quote!({ let __value: #present = __computed; #encode })
    };
    let set = &field.set_call;
    let call = quote!(#set(#(&#bindings),*));
    quote!({
        fn __compute(
            __sources: &::dynorm::__private::Item,
        ) -> ::dynorm::__private::Result<::core::option::Option<::dynorm::__private::AttributeValue>> {
            let mut __item = ::dynorm::__private::sources_of(__sources, &[#(#source_names),*]);
            #(#reads)*
            let __computed: #ty = #call;
            ::dynorm::__private::stored(#model_name, #name, #encoded)
        }
        __compute
    })
}

/// The value of `Model::SCHEMA`.
pub fn schema(model: &Model, primary: &PrimaryKey) -> TokenStream {
    let model_name = &model.name;
    let table = &model.table;
    let prefix = option(model.prefix.as_ref());
    let suffix = option(model.suffix.as_ref());
    let keys = table_keys(model, primary);
    let range_key = if keys.len() > 1 {
        quote!(::core::option::Option::Some(__DYNORM_KEYS[1]))
    } else {
        quote!(::core::option::Option::None)
    };
    let names = model.fields.iter().map(|f| &f.name);
    let indexes = model.indexes.iter().map(|i| index_schema(model, i));
    let name_of = |position: usize| &model.fields[position].name;
    let version = option(model.version.map(name_of));
    let ttl = option(model.ttl.map(name_of));
    let combines = model.combines.iter().map(|combine| {
        let name = name_of(combine.field);
        let separator = &combine.separator;
        let sources = combine.sources.iter().map(|s| name_of(s.field));
        let compute = option(combine.compute.map(|_| compute(model, combine)));
        quote!(::dynorm::__private::Combine { attribute: #name, sources: &[#(#sources),*], separator: #separator, compute: #compute })
    });
    let transformed = model
        .fields
        .iter()
        .filter(|f| f.set.is_some())
        .map(|f| &f.name);
    let entity = entity(model, model.entity.as_ref());
    let defaults = model.defaults.iter().map(|g| generated(model, g));
    let updated_at = option(model.updated_at.as_ref().map(|g| generated(model, g)));
    let uniques = model.uniques.iter().map(|unique| {
        let attributes: Vec<&String> = unique.fields.iter().map(|&p| name_of(p)).collect();
        let name = attributes
            .iter()
            .map(|a| a.as_str())
            .collect::<Vec<_>>()
            .join("+");
        let scope = unique.scope.iter().map(|&p| name_of(p));
        // `check` requires a stable name for a model with unique attributes.
        let owner = model.unique_owner.as_deref().unwrap_or_default();
        quote!(::dynorm::__private::Unique { owner: #owner, name: #name, attributes: &[#(#attributes),*], scope: &[#(#scope),*] })
    });
    let counts = model.counts.iter().map(|count| {
        let parent = count.decl.parent.as_ref();
        let into = count.decl.into.as_ref();
        let fields = count.fields.iter().map(|&p| name_of(p));
        let references = count.decl.references.iter().map(|r| {
            let member = &r.ident;
            quote_spanned!(member.span()=> <#parent>::__FIELDS.#member.name())
        });
        let attribute = into.map(|into| {
            quote_spanned!(into.span()=> ::dynorm::__private::count_attribute(&<#parent>::__FIELDS.#into))
        });
        quote! {
            ::dynorm::__private::Count {
                parent: &<#parent as ::dynorm::__private::Model>::SCHEMA,
                attribute: #attribute,
                fields: &[#(#fields),*],
                references: &[#(#references),*],
            }
        }
    });
    let shape = option(model.shape.as_ref().map(|shape| {
        let attribute = &shape.attribute;
        let current = shape.current;
        quote!(::dynorm::__private::Shape { attribute: #attribute, current: #current })
    }));
    let max_item_bytes = option(model.max_item_bytes);
    let stream = option(model.stream.as_deref().map(|view| {
        let variant = stream_view(view);
        quote!(::dynorm::__private::StreamView::#variant)
    }));
    quote! {
        {
            const __DYNORM_KEYS: &[::dynorm::__private::KeyAttribute] = &[#(#keys),*];
            ::dynorm::__private::Schema {
                model: #model_name,
                table: #table,
                table_prefix: #prefix,
                table_suffix: #suffix,
                hash_key: __DYNORM_KEYS[0],
                range_key: #range_key,
                keys: __DYNORM_KEYS,
                attributes: &[#(#names),*],
                indexes: &[#(#indexes),*],
                version: #version,
                ttl: #ttl,
                combines: &[#(#combines),*],
                transformed: &[#(#transformed),*],
                entity: #entity,
                defaults: &[#(#defaults),*],
                updated_at: #updated_at,
                stream: #stream,
                uniques: &[#(#uniques),*],
                counts: &[#(#counts),*],
                shape: #shape,
                max_item_bytes: #max_item_bytes,
            }
        }
    }
}

/// The `StreamView` variant (and view marker type) of a `#[dynorm(stream = "..")]` value.
pub fn stream_view(view: &str) -> proc_macro2::Ident {
    let name = match view {
        "keys_only" => "KeysOnly",
        "new_image" => "NewImage",
        "old_image" => "OldImage",
        _ => "NewAndOldImages",
    };
    proc_macro2::Ident::new(name, proc_macro2::Span::call_site())
}

//! The `Model` impl: the schema, item conversion in both directions, and the key.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use crate::expand::{codec, schema};
use crate::internals::resolve::{Model, PrimaryKey};

/// The fields whose attribute a table key is written into (ElectroDB's attributes used
/// as index keys).
pub fn own_key_fields<'m>(model: &'m Model) -> impl Iterator<Item = usize> + 'm {
    let templates = match &model.primary {
        Some(PrimaryKey::Templates { hash, range }) => std::iter::once(hash).chain(range).collect(),
        _ => Vec::new(),
    };
    templates
        .into_iter()
        .filter_map(|template| template.own_field(&model.fields))
}

/// The whole `impl Model for ...`.
pub fn model_impl(model: &Model, primary: &PrimaryKey) -> TokenStream {
    let ident = model.ident;
    let model_name = &model.name;
    let key_ident = &model.key_struct;
    let schema = schema::schema(model, primary);
    let (write_entity, check_entity) = match model.entity {
        Some(_) => (
            quote!(::dynorm::__private::write_entity_keys(&<Self as ::dynorm::__private::Model>::SCHEMA, &mut __item, ::dynorm::__private::MissingTableKey::LeaveOut)?;),
            quote!(::dynorm::__private::check_entity(&<Self as ::dynorm::__private::Model>::SCHEMA, &__item)?;),
        ),
        None => (TokenStream::new(), TokenStream::new()),
    };
    // A table key written into its own field's attribute: the field reads back out of it.
    let read_own_keys = own_key_fields(model).next().map(|_| {
        quote!(::dynorm::__private::read_own_keys(&<Self as ::dynorm::__private::Model>::SCHEMA, &mut __item)?;)
    });
    let upcast = upcast(model);
    let shape_fields = shape_fields(model);
    let count = model.fields.len();
    let inserts = model
        .fields
        .iter()
        .map(|field| codec::insert_field(model_name, field));
    let combine_inserts = model.combines.iter().enumerate().map(|(i, combine)| {
        let name = &model.fields[combine.field].name;
        // A source dynorm generates may have no value yet: the item keeps the field's own
        // value, and a write sets the source, then builds the field.
        let generated: Vec<&String> = combine
            .sources
            .iter()
            .filter(|s| {
                model.defaults.iter().any(|g| g.field == s.field)
                    || model
                        .updated_at
                        .as_ref()
                        .is_some_and(|g| g.field == s.field)
            })
            .map(|s| &model.fields[s.field].name)
            .collect();
        quote! {
            match ::dynorm::__private::combine(
                #model_name,
                &<Self as ::dynorm::__private::Model>::SCHEMA.combines[#i],
                &__item,
                &[#(#generated),*],
            )? {
                ::core::option::Option::Some(::core::option::Option::Some(__built)) => {
                    __item.insert(::std::string::String::from(#name), __built);
                }
                ::core::option::Option::Some(::core::option::Option::None) => {
                    __item.remove(#name);
                }
                ::core::option::Option::None => {}
            }
        }
    });
    let reads = model.fields.iter().map(|field| {
        let member = field.member;
        let read = codec::read_field(model_name, field);
        quote!(#member: #read)
    });
    let key_members = model.key_fields.iter().map(|&position| {
        let field = &model.fields[position];
        let member = field.member;
        let Some(combine) = model.combine_of(position) else {
            return quote!(#member: ::core::clone::Clone::clone(&self.#member));
        };
        // A combined key is built from its sources, as a write would store it.
        let name = &field.name;
        let separator = &combine.separator;
        let sources = combine.sources.iter().map(|s| &model.fields[s.field]);
        let source_names = sources.clone().map(|s| &s.name);
        let source_inserts = sources.map(|source| codec::insert_field(model_name, source));
        quote! {
            #member: (|| -> ::dynorm::__private::Result<::std::string::String> {
                let mut __item = ::dynorm::__private::Item::new();
                #(#source_inserts)*
                ::dynorm::__private::combined_text(#model_name, #name, #separator, &__item, &[#(#source_names),*])
            })()
            .unwrap_or_else(|_| ::core::clone::Clone::clone(&self.#member))
        }
    });
    let key_signature = key_signature(model, primary);
    let version_max = model.version.map(|position| {
        let ty = model.fields[position].present;
        quote! {
            const __VERSION_MAX: ::core::primitive::u64 = {
                let max = <#ty>::MAX;
                if max as ::core::primitive::u128 > ::core::primitive::u64::MAX as ::core::primitive::u128 {
                    ::core::primitive::u64::MAX
                } else {
                    max as ::core::primitive::u64
                }
            };
        }
    });

    let streamed = model.stream.as_deref().map(|view| {
        let view = crate::expand::schema::stream_view(view);
        quote! {
            #[automatically_derived]
            impl ::dynorm::__private::Streamed for #ident {
                type View = ::dynorm::__private::#view;
            }
        }
    });

    // A model with unique attributes is checked for guards at compile time; it and a
    // counted model have no batch writes; every other model has them.
    let uniques = if model.uniques.is_empty() && model.counts.is_empty() {
        quote! {
            #[automatically_derived]
            impl ::dynorm::__private::BatchWritable for #ident {}
        }
    } else if model.uniques.is_empty() {
        TokenStream::new()
    } else {
        quote! {
            const _: () = ::dynorm::__private::check_guards(
                &<#ident as ::dynorm::__private::Model>::SCHEMA,
            );
        }
    };

    quote! {
        #streamed
        #uniques

        #[automatically_derived]
        impl ::dynorm::__private::Derived for #ident {}

        #[automatically_derived]
        impl ::dynorm::__private::Model for #ident {
            type Key = #key_ident;

            const SCHEMA: ::dynorm::__private::Schema = #schema;
            #version_max

            #[inline]
            fn to_item(&self) -> ::dynorm::__private::Result<::dynorm::__private::Item> {
                let mut __item = ::dynorm::__private::Item::with_capacity(#count);
                #(#inserts)*
                #(#combine_inserts)*
                #write_entity
                ::core::result::Result::Ok(__item)
            }

            #[inline]
            fn from_item(
                mut __item: ::dynorm::__private::Item,
            ) -> ::dynorm::__private::Result<Self> {
                #check_entity
                #read_own_keys
                #upcast
                ::core::result::Result::Ok(Self {
                    #(#reads,)*
                })
            }

            #[inline]
            fn key(&self) -> #key_ident {
                #key_ident { #(#key_members,)* }
            }

            #key_signature

            #shape_fields
        }
    }
}

/// For a model with a shape: an item of an earlier shape is decoded as that shape's type
/// and converted, shape after shape, into the model; one of a newer shape is an error.
fn upcast(model: &Model) -> TokenStream {
    let Some(shape) = &model.shape else {
        return TokenStream::new();
    };
    let model_name = &model.name;
    let arms = shape.upcasts.iter().enumerate().map(|(index, ty)| {
        let number = index as u32 + 1;
        // Each conversion is spanned at the type it converts from, so that a missing
        // `From` points at it in `upcasts = [..]`.
        let steps = shape.upcasts[index..].windows(2).map(|pair| {
            let (from, to) = (pair[0], pair[1]);
            quote_spanned!(syn::spanned::Spanned::span(from)=>
                let __shaped: #to = <#to as ::core::convert::From<#from>>::from(__shaped);
            )
        });
        let last = shape.upcasts[shape.upcasts.len() - 1];
        let into_model = quote_spanned!(syn::spanned::Spanned::span(last)=>
            <Self as ::core::convert::From<#last>>::from(__shaped)
        );
        quote! {
            #number => {
                let __shaped: #ty = ::dynorm::__private::decode_shape(__item, #model_name, #number)?;
                #(#steps)*
                return ::core::result::Result::Ok(#into_model);
            }
        }
    });
    quote! {
        match <Self as ::dynorm::__private::Model>::SCHEMA.shape {
            ::core::option::Option::Some(__shape) => match __shape.of(#model_name, &__item)? {
                #(#arms)*
                _ => {}
            },
            ::core::option::Option::None => {}
        }
    }
}

/// `Model::__shape_fields`: the attributes of each earlier shape, from its upcast type.
fn shape_fields(model: &Model) -> TokenStream {
    let Some(shape) = &model.shape else {
        return TokenStream::new();
    };
    let arms = shape.upcasts.iter().enumerate().map(|(index, ty)| {
        let number = index as u32 + 1;
        quote!(#number => ::dynorm::__private::shape_fields::<#ty>(),)
    });
    quote! {
        fn __shape_fields(
            __shape: ::core::primitive::u32,
        ) -> ::core::option::Option<&'static [&'static ::core::primitive::str]> {
            match __shape {
                #(#arms)*
                _ => ::core::option::Option::None,
            }
        }
    }
}

/// `Model::__key_signature`, reading the key fields in place. Models with key templates or
/// a combined key keep the default, which goes through `key()`.
fn key_signature(model: &Model, primary: &PrimaryKey) -> Option<TokenStream> {
    let PrimaryKey::Fields { .. } = primary else {
        // `key()` renders the templates.
        return None;
    };
    if model
        .key_fields
        .iter()
        .any(|&p| model.combine_of(p).is_some() || model.fields[p].set.is_some())
    {
        // `key()` rebuilds a combined key from its sources, and transforms a key value.
        return None;
    }
    let pushes = model.key_fields.iter().map(|&position| {
        let field = &model.fields[position];
        let member = field.member;
        if field.string && !field.optional {
            return quote!(__signature.push_str(&self.#member)?;);
        }
        let encode = codec::encode_present(field, &quote!(&self.#member));
        quote!(__signature.push(#encode)?;)
    });
    Some(quote! {
        #[inline]
        fn __key_signature(
            &self,
            __signature: &mut ::dynorm::__private::KeySignature<'_>,
        ) -> ::dynorm::__private::Result<()> {
            #(#pushes)*
            ::core::result::Result::Ok(())
        }
    })
}

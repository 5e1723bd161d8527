//! One function per `#[relation]` (`Post::comments()`), and the compile-time checks that
//! the related side's fields exist, have the same types, and are reachable by a key.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use crate::internals::attr::RelationKind;
use crate::internals::resolve::{Model, Relation};

/// The `impl` with every relation function, and the checks.
pub fn relations(model: &Model) -> TokenStream {
    if model.relations.is_empty() {
        return TokenStream::new();
    }
    let ident = model.ident;
    let functions = model.relations.iter().map(|r| function(model, r));
    quote! {
        impl #ident {
            #(#functions)*
        }
    }
}

fn function(model: &Model, relation: &Relation) -> TokenStream {
    let ident = model.ident;
    let vis = model.vis;
    let name = &relation.name;
    let target = relation.target;
    let name_text = syn::ext::IdentExt::unraw(name).to_string();
    let fields = relation.fields.iter().map(|&p| &model.fields[p].name);
    let reference_attrs: Vec<TokenStream> = relation
        .decl
        .references
        .iter()
        .map(|r| {
            let member = &r.ident;
            quote_spanned!(member.span()=> <#target>::__FIELDS.#member)
        })
        .collect();
    let relation_marker = name;
    let type_checks = relation
        .fields
        .iter()
        .zip(&reference_attrs)
        .zip(&relation.decl.references)
        .map(|((&p, reference), written)| {
            let field = &model.fields[p];
            let constant = &field.constant;
            let span = written.ident.span();
            let mut field_marker = field.member.clone();
            field_marker.set_span(span);
            let reference_marker = &written.ident;
            // Marker types named after the relation and both fields, declared in nested
            // blocks so that equal names shadow each other instead of colliding: the
            // `SameType` diagnostic prints their names.
            quote_spanned!(span=> {
                #[allow(non_camel_case_types, dead_code)]
                enum #reference_marker {}
                {
                    #[allow(non_camel_case_types, dead_code)]
                    enum #field_marker {}
                    ::dynorm::__private::field_pair(&<#ident>::#constant, &#reference)
                        .same_type::<#relation_marker, #field_marker, #target, #reference_marker>();
                }
            })
        });
    let allow_scan = relation.decl.allow_scan;
    let (kind, doc) = match relation.kind {
        RelationKind::One => (
            quote!(::dynorm::__private::One<#ident, #target>),
            format!(
                "The `one` relation `{name_text}`: the related item, or `None` when it is missing."
            ),
        ),
        RelationKind::Many => (
            quote!(::dynorm::__private::Many<#ident, #target>),
            format!("The `many` relation `{name_text}`: every related item."),
        ),
    };
    let constructor = match relation.kind {
        RelationKind::One => quote!(::dynorm::__private::One::new(__RELATION)),
        RelationKind::Many => quote!(::dynorm::__private::Many::new(__RELATION)),
    };
    let target_span = relation.target;
    let model_name = &model.name;
    let reachable = quote_spanned!(syn::spanned::Spanned::span(target_span)=>
        const _: () = ::dynorm::__private::check_reachable(
            &<#target as ::dynorm::__private::Model>::SCHEMA,
            &__RELATION,
            #model_name,
        );
    );
    quote! {
        #[doc = #doc]
        #vis fn #name() -> #kind {
            const __REFERENCES: &[&str] = &[#(#reference_attrs.name()),*];
            const _: () = {
                #[allow(non_camel_case_types, dead_code)]
                enum #relation_marker {}
                #(#type_checks)*
            };
            #reachable
            const __RELATION: ::dynorm::__private::RelationSchema = ::dynorm::__private::RelationSchema {
                name: #name_text,
                fields: &[#(#fields),*],
                references: __REFERENCES,
                allow_scan: #allow_scan,
            };
            #constructor
        }
    }
}

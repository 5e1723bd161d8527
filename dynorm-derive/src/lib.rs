//! The derive macros behind [`dynorm`](https://docs.rs/dynorm): `#[derive(Model)]` and
//! `#[derive(Collection)]`.
//!
//! Use them through the `dynorm` crate, which re-exports them: `use dynorm::Model;`.
//!
//! `#[derive(Model)]` runs in stages, as serde_derive does: parse the struct and its
//! attributes (`internals::ast`, `internals::attr`), resolve every name they mention into
//! facts once (`internals::resolve`), validate the rules that span fields
//! (`internals::check`), and print the code (`expand`). Errors are collected with exact
//! spans, so one compile shows every problem; after an error, `fallback` prints stubs of
//! the generated items so that code using the model reports nothing more.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod collection;
mod expand;
mod fallback;
mod internals;
mod value;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

use internals::ast::Container;
use internals::{check, resolve, Ctxt};

/// Derives `dynorm::Model` for a struct with named fields.
///
/// See the `dynorm` crate for the attributes it accepts.
#[proc_macro_derive(
    Model,
    attributes(
        hash_key, range_key, dynorm, index, version, ttl, combine, key, relation, unique, count
    )
)]
pub fn derive_model(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    model(&input).into()
}

/// Derives `dynorm::Collection` for an enum of single-table entities that share a
/// partition, one entity per variant: `enum TeamWithMembers { Team(Team), Member(Membership) }`.
#[proc_macro_derive(Collection, attributes(dynorm))]
pub fn derive_collection(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    collection::derive(&input).into()
}

/// Derives `dynorm::value::AttrValue` (and `KeyScalar`) for a one-field struct, stored as
/// its field, or a unit enum, stored as its variant's name after `rename_all` / `rename`
/// (read from `#[dynorm(..)]`, else `#[serde(..)]`). Such a type is a native value and can
/// be a key.
#[proc_macro_derive(Value, attributes(dynorm))]
pub fn derive_value(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    value::derive(&input).into()
}

/// Parses, resolves, checks and expands one `#[derive(Model)]`.
fn model(input: &DeriveInput) -> proc_macro2::TokenStream {
    let cx = Ctxt::default();
    let Some(container) = Container::from_ast(&cx, input) else {
        // Not a struct with named fields: nothing to stub.
        return cx.check().map_or_else(
            |e| e.to_compile_error(),
            |()| proc_macro2::TokenStream::new(),
        );
    };
    let model = resolve::resolve(&cx, &container);
    check::check(&cx, &container, &model);
    match (cx.check(), &model.primary) {
        (Ok(()), Some(primary)) => expand::derive(&model, primary),
        (result, _) => fallback::model(input, &model, result.err()),
    }
}

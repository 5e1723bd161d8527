//! The derive macro behind [`dynorm`](https://docs.rs/dynorm): `#[derive(Model)]`.
//!
//! Use it through the `dynorm` crate, which re-exports it: `use dynorm::Model;`.
//! The macro runs in three stages: parse the struct and its attributes ([`ast`], [`attr`]),
//! validate the rules that span fields ([`check`]), and expand ([`expand`]). Errors are
//! collected with exact spans, so one compile shows every problem.

mod ast;
mod attr;
mod case;
mod check;
mod collection;
mod ctxt;
mod expand;
mod index;
mod symbol;
mod template;
mod types;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

/// Derives `dynorm::Model` for a struct with named fields.
///
/// See the `dynorm` crate for the attributes it accepts.
#[proc_macro_derive(
    Model,
    attributes(hash_key, range_key, dynorm, index, version, ttl, combine, key)
)]
pub fn derive_model(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input)
        .unwrap_or_else(ctxt::to_compile_errors)
        .into()
}

/// Derives `dynorm::Collection` for an enum of single-table entities that share a
/// partition, one entity per variant: `enum TeamWithMembers { Team(Team), Member(Membership) }`.
#[proc_macro_derive(Collection)]
pub fn derive_collection(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    collection::derive(&input)
        .unwrap_or_else(ctxt::to_compile_errors)
        .into()
}

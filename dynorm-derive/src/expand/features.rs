//! The compile-time check that a field whose type dynorm stores natively only with a cargo
//! feature (`DateTime<Utc>`, `NaiveDate`, `Uuid`, `Decimal`) has that feature on: without
//! it the field would fall back to serde's form, and turning the feature on later (any
//! crate in the build can) would change how it is stored. Features only add.

use proc_macro2::TokenStream;
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::{GenericArgument, PathArguments, Type};

/// The containers dynorm stores natively, whose element types are stored as dynorm stores
/// them; any other generic type goes through serde whole, whatever its parameters are.
const NATIVE_CONTAINERS: &[&str] = &[
    "Option", "Vec", "HashSet", "BTreeSet", "HashMap", "BTreeMap",
];

/// One `const` per feature-gated type in `ty`, naming it where the user wrote it.
pub fn checks(ty: &Type) -> TokenStream {
    let mut found = Vec::new();
    gated(ty, &mut found);
    found
        .into_iter()
        .map(|ty| {
            quote_spanned! {ty.span()=>
                const _: () = ::dynorm::__private::feature_native::<#ty>();
            }
        })
        .collect()
}

/// Collects the feature-gated types in `ty`, looking through native containers.
fn gated<'a>(ty: &'a Type, found: &mut Vec<&'a Type>) {
    let Type::Path(path) = ty else {
        return;
    };
    let Some(last) = path.path.segments.last() else {
        return;
    };
    let name = last.ident.to_string();
    let args: Vec<&Type> = match &last.arguments {
        PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|a| match a {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let is_utc = |t: &Type| matches!(t, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Utc"));
    match name.as_str() {
        "DateTime" if args.first().is_some_and(|t| is_utc(t)) => found.push(ty),
        "NaiveDate" | "Uuid" | "Decimal" if args.is_empty() => found.push(ty),
        container if NATIVE_CONTAINERS.contains(&container) => {
            for arg in args {
                gated(arg, found);
            }
        }
        _ => {}
    }
}

//! Reads the shape of a field's type from its syntax.
//!
//! The derive cannot ask the compiler about types, so it recognises the common
//! standard shapes by name. Anything else is left to the trait system: a key field
//! of an unknown type must implement `dynorm::KeyScalar`.

use syn::{GenericArgument, PathArguments, Type};

/// What a field's type looks like, as far as the derive needs to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `Option<T>`.
    Option,
    /// `Vec<u8>`: stored as binary.
    Bytes,
    /// `Vec<T>`, `VecDeque<T>`, arrays and slices.
    List,
    /// `HashMap`, `BTreeMap`.
    Map,
    /// `HashSet`, `BTreeSet`.
    Set,
    /// A tuple, including `()`.
    Tuple,
    /// `bool`.
    Bool,
    /// `chrono::DateTime<...>`.
    DateTime,
    /// Any other type.
    Other,
}

/// The last path segment of a type, if it is a plain path.
fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(path) if path.qself.is_none() => path.path.segments.last(),
        Type::Group(group) => last_segment(&group.elem),
        Type::Paren(paren) => last_segment(&paren.elem),
        _ => None,
    }
}

/// The first generic type argument of a path type, such as `T` in `Option<T>`.
pub fn first_type_argument(ty: &Type) -> Option<&Type> {
    let segment = last_segment(ty)?;
    let PathArguments::AngleBracketed(args) = &segment.arguments else {
        return None;
    };
    args.args.iter().find_map(|arg| match arg {
        GenericArgument::Type(ty) => Some(ty),
        _ => None,
    })
}

/// Classifies a type by its syntax.
pub fn shape(ty: &Type) -> Shape {
    match ty {
        Type::Tuple(_) => return Shape::Tuple,
        Type::Array(_) | Type::Slice(_) => return Shape::List,
        Type::Reference(reference) => return shape(&reference.elem),
        _ => {}
    }
    let Some(segment) = last_segment(ty) else {
        return Shape::Other;
    };
    match segment.ident.to_string().as_str() {
        "Option" => Shape::Option,
        "Vec" if first_type_argument(ty).is_some_and(is_u8) => Shape::Bytes,
        "Vec" | "VecDeque" | "LinkedList" => Shape::List,
        "HashMap" | "BTreeMap" | "IndexMap" => Shape::Map,
        "HashSet" | "BTreeSet" | "IndexSet" => Shape::Set,
        "bool" => Shape::Bool,
        "DateTime" => Shape::DateTime,
        _ => Shape::Other,
    }
}

/// Whether the type is `String` (by its last path segment, without arguments).
pub fn is_string(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| s.ident == "String" && s.arguments.is_empty()))
}

/// Whether the type is `Uuid` (by its last path segment).
pub fn is_uuid(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|segment| segment.ident == "Uuid" && segment.arguments.is_empty())
}

/// Whether the type is `u8`.
fn is_u8(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|segment| segment.ident == "u8")
}

/// The type inside `Option<...>`, when `ty` is an option.
pub fn option_inner(ty: &Type) -> Option<&Type> {
    if shape(ty) == Shape::Option {
        first_type_argument(ty)
    } else {
        None
    }
}

/// Whether the type is a plain integer, such as `u64`.
pub fn is_integer(ty: &Type) -> bool {
    const INTEGERS: &[&str] = &[
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
    ];
    match ty {
        Type::Path(p) if p.qself.is_none() => p
            .path
            .get_ident()
            .is_some_and(|ident| INTEGERS.iter().any(|i| ident == i)),
        _ => false,
    }
}

/// Why a type cannot be a key, when its syntax alone shows that.
pub fn non_scalar_key_reason(ty: &Type) -> Option<&'static str> {
    Some(match shape(ty) {
        Shape::Option => "a key attribute is always present, so it cannot be an `Option`",
        Shape::List => "a list cannot be a key",
        Shape::Map => "a map cannot be a key",
        Shape::Set => "a set cannot be a key",
        Shape::Tuple => "a tuple cannot be a key",
        Shape::Bool => "a bool cannot be a key",
        Shape::Bytes | Shape::DateTime | Shape::Other => return None,
    })
}

/// Why a type cannot be one part of a key built from several (a template or a list key),
/// when its syntax alone shows that: as [`non_scalar_key_reason`], but a `bool` is written
/// in the key's text, `true` or `false`, as ElectroDB writes it.
pub fn non_text_part_reason(ty: &Type) -> Option<&'static str> {
    match shape(ty) {
        Shape::Bool => None,
        _ => non_scalar_key_reason(ty),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(source: &str) -> Type {
        syn::parse_str(source).expect("test type parses")
    }

    #[test]
    fn recognises_standard_shapes() {
        assert_eq!(shape(&ty("Option<String>")), Shape::Option);
        assert_eq!(shape(&ty("std::option::Option<u8>")), Shape::Option);
        assert_eq!(shape(&ty("Vec<u8>")), Shape::Bytes);
        assert_eq!(shape(&ty("Vec<String>")), Shape::List);
        assert_eq!(shape(&ty("HashMap<String, i32>")), Shape::Map);
        assert_eq!(shape(&ty("BTreeSet<String>")), Shape::Set);
        assert_eq!(shape(&ty("(u8, u8)")), Shape::Tuple);
        assert_eq!(shape(&ty("chrono::DateTime<Utc>")), Shape::DateTime);
        assert_eq!(shape(&ty("String")), Shape::Other);
    }

    #[test]
    fn finds_option_inner_types() {
        let option = ty("Option<DateTime<Utc>>");
        assert!(option_inner(&option).is_some_and(|inner| shape(inner) == Shape::DateTime));
        assert!(option_inner(&ty("String")).is_none());
    }

    #[test]
    fn recognises_integers() {
        assert!(is_integer(&ty("u64")));
        assert!(!is_integer(&ty("std::primitive::u64")));
        assert!(!is_integer(&ty("String")));
    }

    #[test]
    fn explains_non_scalar_keys() {
        assert!(non_scalar_key_reason(&ty("Option<String>")).is_some());
        assert!(non_scalar_key_reason(&ty("Vec<String>")).is_some());
        assert!(non_scalar_key_reason(&ty("Vec<u8>")).is_none());
        assert!(non_scalar_key_reason(&ty("Address")).is_none());
    }
}

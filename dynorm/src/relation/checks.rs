//! The compile-time checks of a relation, run by the derive's generated constants: the
//! types of its fields and references match, and its references reach the related model.
//! They are `const fn`s whose panics are compile errors.

use super::RelationSchema;

/// Two field types that are the same: a relation's field and the field it references. The
/// other parameters are marker types the derive names after the relation, the field, and
/// the referenced field, so that a mismatch names them all.
#[diagnostic::on_unimplemented(
    message = "relation `{Relation}`: the field `{Field}` is `{Self}`, but the field it references, `{Target}.{Reference}`, is `{T}`",
    label = "`{Field}` is `{Self}`, `{Target}.{Reference}` is `{T}`",
    note = "a relation's `fields` and `references` must have the same types, in order"
)]
#[doc(hidden)]
pub trait SameType<T, Relation, Field, Target, Reference> {}
impl<T, R, F, M, N> SameType<T, R, F, M, N> for T {}

/// The value types of a relation's field and of the field it references, both known before
/// [`FieldPair::same_type`] is checked, so that a mismatch is reported by `SameType`.
#[doc(hidden)]
pub struct FieldPair<T, U>(std::marker::PhantomData<fn() -> (T, U)>);

/// The pair of value types of two attributes.
#[doc(hidden)]
pub const fn field_pair<A, B, T, U, O1, W1, O2, W2>(
    _field: &crate::expr::Attr<A, T, O1, W1>,
    _reference: &crate::expr::Attr<B, U, O2, W2>,
) -> FieldPair<T, U> {
    FieldPair(std::marker::PhantomData)
}

impl<T, U> FieldPair<T, U> {
    /// Compiles only when both attributes hold values of the same type.
    #[doc(hidden)]
    pub const fn same_type<Relation, Field, Target, Reference>(&self)
    where
        T: SameType<U, Relation, Field, Target, Reference>,
    {
    }
}

/// Whether `name` is one of `names`, in a constant.
const fn contains(names: &[&str], name: &str) -> bool {
    let mut i = 0;
    while i < names.len() {
        if crate::schema::const_str_eq(names[i], name) {
            return true;
        }
        i += 1;
    }
    false
}

/// Whether every name of `keys` is one of `references`, in a constant.
const fn all_keys_in(keys: &[crate::schema::KeyAttribute], references: &[&str]) -> bool {
    let mut i = 0;
    while i < keys.len() {
        if !contains(references, keys[i].name) {
            return false;
        }
        i += 1;
    }
    !keys.is_empty()
}

/// Whether the references of `relation`, of model `model`, build a hash key of `schema`:
/// of the table or an index, from key fields or from templates. A compile error naming the
/// relation, both models and the references otherwise, unless `allow_scan`.
#[doc(hidden)]
pub const fn check_reachable(
    schema: &crate::schema::Schema,
    relation: &RelationSchema,
    model: &str,
) {
    let references = relation.references;
    // A reference compares this model's values with the related model's as given, so
    // none may be stored through a `set` transform.
    let mut r = 0;
    while r < references.len() {
        if contains(schema.transformed, references[r]) {
            crate::schema::const_text::ConstText::new()
                .push("relation `")
                .push(relation.name)
                .push("` of `")
                .push(model)
                .push("`: `")
                .push(references[r])
                .push("` of `")
                .push(schema.model)
                .push("` is stored through its #[dynorm(set)] transform, so the values that reference it would not match")
                .fail();
        }
        r += 1;
    }
    if relation.allow_scan {
        return;
    }
    if let Some(entity) = schema.entity {
        let mut i = 0;
        while i < entity.keys.len() {
            let template = &entity.keys[i];
            if template.is_hash {
                let (mut j, mut fields, mut covered) = (0, 0, true);
                while j < template.parts.len() {
                    if let crate::schema::TemplatePart::Field(name) = template.parts[j] {
                        fields += 1;
                        covered = covered && contains(references, name);
                    }
                    j += 1;
                }
                if covered && fields > 0 {
                    return;
                }
            }
            i += 1;
        }
    }
    if contains(references, schema.hash_key.name) {
        return;
    }
    let mut i = 0;
    while i < schema.indexes.len() {
        if all_keys_in(schema.indexes[i].hash_key, references) {
            return;
        }
        i += 1;
    }
    crate::schema::const_text::ConstText::new()
        .push("relation `")
        .push(relation.name)
        .push("` of `")
        .push(model)
        .push("`: no table or index hash key of `")
        .push(schema.model)
        .push("` is built from its references, ")
        .push_list(references)
        .push("; add an index whose hash key they build, or `allow_scan`")
        .fail();
}

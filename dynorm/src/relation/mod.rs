//! Relations between models, loaded as typed trees in the fewest round trips.
//!
//! A model declares its relations with `#[relation(..)]`, and the derive generates one
//! function per relation: `Post::comments()` is a [`Many<Post, Comment>`], `Post::author()`
//! a [`One<Post, User>`]. [`Client::find_first`](crate::Client::find_first) and [`Client::find_many`](crate::Client::find_many) read the roots
//! and [`with`](FindMany::with) loads relations, nested with [`One::with`] and
//! [`Many::with`], several at one level as a tuple:
//!
//! ```no_run
//! # use dynorm::Model;
//! # #[derive(Model, Clone)] #[dynorm(table = "Blog", entity = "User")] #[key(pk = "USER#{id}", sk = "PROFILE")]
//! # #[relation(name = "posts", many = Post, fields = [id], references = [author_id])]
//! # struct User { id: String }
//! # #[derive(Model, Clone)] #[dynorm(table = "Blog", entity = "Post")] #[key(pk = "USER#{author_id}", sk = "POST#{id}")]
//! # #[relation(name = "author", one = User, fields = [author_id], references = [id])]
//! # struct Post { id: String, author_id: String }
//! # async fn demo(db: dynorm::Client) -> Result<(), dynorm::Error> {
//! // A user and their posts, each post with its author: typed, never a map.
//! let found: Option<(User, Vec<(Post, Option<User>)>)> = db
//!     .find_first::<User>()
//!     .matching(User::ID.eq("u1"))
//!     .with(User::posts().with(Post::author()))
//!     .send()
//!     .await?;
//! # Ok(()) }
//! ```
//!
//! The load plan: the roots are wave 0; each level of the tree is one more wave, whatever
//! the number of parents. A `one` relation of many parents is one `BatchGetItem` per 100
//! distinct keys (through the batch reader's retries); a `many` relation, or a `one`
//! relation reached through an index, is one `Query` per distinct parent, planned once and
//! sent with each parent's values, at most [`CONCURRENCY`] in flight; relations of one level run
//! concurrently. Related items in the partition their parents are read from (on the table
//! or an index) come in the same `Query`: the roots with those of their relations that
//! share the roots' partition, and a relation's items, one `Query` per partition, with
//! those of their own relations that share it. A relation with a per-parent limit, order or
//! filter is read on its own. [`FindMany::plan`] shows the waves before anything is sent,
//! and `send` refuses what `plan` refuses before sending anything.

mod access;
mod find;
mod grouping;
mod load;
mod many;
mod one;
mod related;
mod shared;

pub use access::Access;
pub use find::{FindFirst, FindMany, LoadPlan};
pub use load::Load;
pub use many::Many;
pub use one::One;
#[doc(hidden)]
pub use shared::{Prefetched, Shared};

/// How many `Query` requests of one `many` relation are in flight at once.
pub const CONCURRENCY: usize = 8;

/// What the derive records about one relation.
#[derive(Clone, Copy, Debug)]
pub struct RelationSchema {
    /// The relation's name: `comments`.
    pub name: &'static str,
    /// The attributes of the parent model that hold the values.
    pub fields: &'static [&'static str],
    /// The attributes of the related model that must equal them.
    pub references: &'static [&'static str],
    /// Whether the related side may be read with a scan when no key reaches it.
    pub allow_scan: bool,
}

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

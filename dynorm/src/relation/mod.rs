//! Relations between models, loaded as typed trees in the fewest round trips.
//!
//! A model declares its relations with `#[relation(..)]`, and the derive generates one
//! function per relation: `Post::comments()` is a [`Many<Post, Comment>`], `Post::author()`
//! a [`One<Post, User>`]. [`Client::find`](crate::Client::find) reads the roots, with
//! [`first`](Find::first) or [`all`](Find::all), and [`with`](Find::with) loads relations, nested with [`One::with`] and
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
//!     .find::<User>()
//!     .matching(User::ID.eq("u1"))
//!     .with(User::posts().with(Post::author()))
//!     .first()
//!     .await?;
//! # Ok(()) }
//! ```
//!
//! The load plan: the roots are wave 0; each level of the tree is one more wave, whatever
//! the number of parents. A `one` relation of many parents is one `BatchGetItem` per 100
//! distinct keys (through the batch reader's retries); a `many` relation, or a `one`
//! relation reached through an index, is one `Query` per distinct parent, planned once and
//! sent with each parent's values; relations of one level run concurrently.
//!
//! Rounds: each relation sends its requests in rounds of at most
//! [`concurrency`](Find::concurrency) (100 unless set), all of a round at once, a round
//! starting when the one before it has ended. A wave of `n` distinct parents is
//! `ceil(n / concurrency)` rounds of per-parent Queries, or `ceil(ceil(n / 100) /
//! concurrency)` rounds of `BatchGetItem`s; [`LoadPlan`] says which, per request
//! ([`Rounds`]). Related items in the partition their parents are read from (on the table
//! or an index) come in the same `Query`: the roots with those of their relations that
//! share the roots' partition, and a relation's items, one `Query` per partition, with
//! those of their own relations that share it. A relation with a per-parent limit, order or
//! filter is read on its own. [`Find::plan`] shows the waves before anything is sent,
//! and `all` and `first` refuse what `plan` refuses before sending anything.

mod access;
pub(crate) mod checks;
mod find;
mod grouping;
mod load;
mod many;
mod one;
mod plan;
mod related;
mod relation_schema;
mod rounds;
mod sending;
mod shared;

pub use find::Find;
pub use load::Load;
pub use many::Many;
pub use one::One;
pub use plan::LoadPlan;
pub use relation_schema::RelationSchema;
pub use rounds::Rounds;

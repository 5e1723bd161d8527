//! The `Load` trait of every relation loader, and the loaders of no relation and of
//! several relations at one level.

use futures_util::future::BoxFuture;

use super::plan::Waves;
use super::shared::{Prefetched, Shared};
use crate::error::Result;
use crate::schema::Model;

/// Loads what a tree of relations adds to each parent of type `P`.
///
/// Implemented by [`One`](super::One), [`Many`](super::Many), `()` (nothing) and tuples of up to four loaders (several
/// relations of one level, loaded concurrently). Models in a loaded tree are `Clone`, since
/// a related item shared by several parents is given to each. It is sealed: only dynorm's
/// loaders implement it, so it can grow without breaking anyone.
pub trait Load<P: Model>: sealed::Loader<P> {}

impl<P: Model, L: sealed::Loader<P>> Load<P> for L {}

pub(crate) mod sealed {
    use super::*;

    pub use crate::relation::sending::Sending;

    /// What a loader is given: how to send, the parents, and the items of its relations
    /// that came with the parents (one entry per candidate).
    pub struct LoadInput<'a, P> {
        pub(crate) sending: Sending<'a>,
        pub(crate) parents: &'a [P],
        pub(crate) prefetched: Prefetched,
    }

    /// A loader's answer: one output per parent, in the parents' order.
    pub type Loading<'a, O> = BoxFuture<'a, Result<Vec<O>>>;

    /// What a loader does; a public trait in a private module, so that no one outside
    /// dynorm can name or implement it.
    pub trait Loader<P: Model>: Send + Sync {
        /// What the loader adds to one parent: `Option<User>`, `Vec<Comment>`, a tuple of them.
        type Output: Clone + Send + 'static;
        /// A parent with what was loaded for it: `P` itself when nothing is, else
        /// `(P, Self::Output)`.
        type Joined: Clone + Send + 'static;

        /// Puts a parent and its output together.
        fn join(parent: P, output: Self::Output) -> Self::Joined;

        /// One entry per relation of this loader (a tuple has several, `()` none): the
        /// relation, when its items could come in the same Query as the parents.
        fn candidates(&self) -> Vec<Option<Shared>>;

        /// Loads the output of every parent, with the items of the relations that came with
        /// the parents already read (`prefetched`, one entry per candidate), each relation
        /// sending its requests in rounds of at most `concurrency`.
        fn load_with<'a>(&'a self, input: LoadInput<'a, P>) -> Loading<'a, Self::Output>;

        /// Describes the requests this loader sends, in wave `wave` and after. A relation
        /// whose items come with the parents (`prefetched`, one entry per candidate) sends
        /// nothing itself, and its own relations start in wave `wave`.
        fn plan(&self, wave: usize, waves: &mut Waves, prefetched: &[bool]) -> Result<()>;
    }
}

use sealed::{LoadInput, Loading};

impl<P: Model + Clone> sealed::Loader<P> for () {
    type Output = ();
    type Joined = P;

    fn join(parent: P, (): ()) -> P {
        parent
    }

    fn candidates(&self) -> Vec<Option<Shared>> {
        Vec::new()
    }

    fn load_with<'a>(&'a self, input: LoadInput<'a, P>) -> Loading<'a, ()> {
        let count = input.parents.len();
        Box::pin(async move { Ok(vec![(); count]) })
    }

    fn plan(&self, _: usize, _: &mut Waves, _: &[bool]) -> Result<()> {
        Ok(())
    }
}

macro_rules! tuples {
    ($(($($name:ident $index:tt),+))*) => {$(
        impl<P: Model + Clone, $($name: Load<P>),+> sealed::Loader<P> for ($($name,)+) {
            type Output = ($($name::Output,)+);
            type Joined = (P, Self::Output);

            fn join(parent: P, output: Self::Output) -> Self::Joined {
                (parent, output)
            }

            fn candidates(&self) -> Vec<Option<Shared>> {
                let mut out = Vec::new();
                $(out.extend(self.$index.candidates());)+
                out
            }

            fn load_with<'a>(&'a self, input: LoadInput<'a, P>) -> Loading<'a, Self::Output> {
                let LoadInput { mut sending, parents, prefetched } = input;
                sending.siblings *= [$($index),+].len();
                Box::pin(async move {
                    let mut rest = prefetched.into_iter();
                    let parts = ($(
                        rest.by_ref()
                            .take(self.$index.candidates().len())
                            .collect::<Prefetched>(),
                    )+);
                    // Independent branches of the tree, concurrently, each to its end, so
                    // that an error in one drops no request of another in flight.
                    let outputs = futures_util::join!($(self.$index.load_with(LoadInput {
                        sending,
                        parents,
                        prefetched: parts.$index,
                    })),+);
                    let outputs = ($(outputs.$index?,)+);
                    let mut iters = ($(outputs.$index.into_iter(),)+);
                    Ok((0..parents.len())
                        .filter_map(|_| Some(($(iters.$index.next()?,)+)))
                        .collect())
                })
            }

            fn plan(
                &self,
                wave: usize,
                waves: &mut Waves,
                prefetched: &[bool],
            ) -> Result<()> {
                let mut rest = prefetched.iter().copied();
                $(
                    let part: Vec<bool> = rest
                        .by_ref()
                        .take(self.$index.candidates().len())
                        .collect();
                    self.$index.plan(wave, waves, &part)?;
                )+
                Ok(())
            }
        }
    )*};
}

tuples! {
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
}

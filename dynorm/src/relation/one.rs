//! `one` relations: at most one related item per parent.

use std::marker::PhantomData;

use std::num::NonZeroUsize;

use futures_util::future::BoxFuture;

use super::grouping::{distinct, spread};
use super::plan::Waves;
use super::related::{fail, Declared};
use super::shared::{Prefetched, Shared};
use super::{Load, RelationSchema};
use crate::client::Client;
use crate::error::Result;
use crate::schema::{Index, Model};

/// A `one` relation from `P` to `C`, with the relations `N` loaded for the related item.
/// A parent whose related item is missing gets `None`.
#[must_use = "a relation does nothing until it is loaded with `with`"]
pub struct One<P, C, N = ()> {
    relation: RelationSchema,
    nested: N,
    types: PhantomData<fn() -> (P, C)>,
}

impl<P: Model, C: Model> One<P, C> {
    /// The relation the derive declared.
    #[doc(hidden)]
    pub const fn new(relation: RelationSchema) -> Self {
        Self {
            relation,
            nested: (),
            types: PhantomData,
        }
    }
}

impl<P: Model, C: Model, N> One<P, C, N> {
    /// Loads `nested` for the related item too: `Post::author().with(User::posts())`.
    pub fn with<M: Load<C>>(self, nested: M) -> One<P, C, M> {
        One {
            relation: self.relation,
            nested,
            types: PhantomData,
        }
    }

    /// The relation's declaration.
    #[doc(hidden)]
    pub fn schema(&self) -> &RelationSchema {
        &self.relation
    }
}

impl<P: Model + Clone, C: Model + Clone + Index<Model = C, Item = C>, N: Load<C>>
    super::load::sealed::Loader<P> for One<P, C, N>
{
    type Output = Option<N::Joined>;
    type Joined = (P, Self::Output);

    fn join(parent: P, output: Self::Output) -> Self::Joined {
        (parent, output)
    }

    fn candidates(&self) -> Vec<Option<Shared>> {
        vec![Some(Shared {
            schema: &C::SCHEMA,
            relation: self.relation,
        })]
    }

    fn load_with<'a>(
        &'a self,
        db: &'a Client,
        parents: &'a [P],
        prefetched: Prefetched,
        concurrency: NonZeroUsize,
    ) -> BoxFuture<'a, Result<Vec<Self::Output>>> {
        Box::pin(async move {
            let fail = fail::<P>(&self.relation);
            let (values, positions) = distinct(parents, &self.relation).map_err(&fail)?;
            let declared = self.declared();
            let items = prefetched.into_iter().next().flatten();
            let joined = declared
                .load::<C, N>(db, &self.nested, &values, items, concurrency)
                .await
                .map_err(&fail)?;
            let firsts: Vec<Option<N::Joined>> =
                joined.into_iter().map(|g| g.into_iter().next()).collect();
            Ok(spread(firsts, positions, || None))
        })
    }

    fn plan(&self, wave: usize, waves: &mut Waves, prefetched: &[bool]) -> Result<()> {
        self.declared()
            .plan::<P, C, N>(&self.nested, wave, waves, prefetched)
    }
}

impl<P, C, N> One<P, C, N> {
    fn declared(&self) -> Declared<'_> {
        Declared {
            relation: &self.relation,
            one: true,
            options: None,
        }
    }
}

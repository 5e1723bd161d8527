//! `one` relations: at most one related item per parent.

use std::marker::PhantomData;

use super::load::sealed::{LoadInput, Loading};
use super::plan::Waves;
use super::related::Declared;
use super::shared::Shared;
use super::{Load, RelationSchema};
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

    fn load_with<'a>(&'a self, input: LoadInput<'a, P>) -> Loading<'a, Self::Output> {
        Box::pin(async move {
            let groups = self
                .declared()
                .for_parents::<P, C, N>(&self.nested, input)
                .await?;
            Ok(groups.into_iter().map(|g| g.into_iter().next()).collect())
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

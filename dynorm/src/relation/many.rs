//! `many` relations: every related item of each parent, with a per-parent limit, order
//! and filter.

use std::marker::PhantomData;

use super::load::sealed::{LoadInput, Loading};
use super::plan::Waves;
use super::related::{fail, Declared, Options};
use super::shared::Shared;
use super::{Load, RelationSchema};
use crate::error::Result;
use crate::expr::Condition;
use crate::schema::{Index, Model};

/// A `many` relation from `P` to `C`, with the relations `N` loaded for each related item.
/// Each parent can take a limit, an order and a filter.
#[must_use = "a relation does nothing until it is loaded with `with`"]
pub struct Many<P, C, N = ()> {
    relation: RelationSchema,
    nested: N,
    options: Options,
    types: PhantomData<fn() -> (P, C)>,
}

impl<P: Model, C: Model> Many<P, C> {
    /// The relation the derive declared.
    #[doc(hidden)]
    pub fn new(relation: RelationSchema) -> Self {
        Self {
            relation,
            nested: (),
            options: Options::default(),
            types: PhantomData,
        }
    }
}

impl<P: Model, C: Model, N> Many<P, C, N> {
    /// Loads `nested` for each related item too: `Post::comments().with(Comment::author())`.
    pub fn with<M: Load<C>>(self, nested: M) -> Many<P, C, M> {
        Many {
            relation: self.relation,
            nested,
            options: self.options,
            types: PhantomData,
        }
    }

    /// At most `limit` related items per parent (at least 1: 0 is refused before anything
    /// is sent).
    pub fn limit(mut self, limit: u32) -> Self {
        self.options.limit = Some(usize::try_from(limit).unwrap_or(usize::MAX));
        self
    }

    /// Related items in descending range key order (ascending by default).
    pub fn descending(mut self) -> Self {
        self.options.descending = true;
        self
    }

    /// Only the related items that meet `condition`, per parent.
    pub fn filter(mut self, condition: Condition<C>) -> Self {
        self.options.filter.push(condition);
        self
    }
}

impl<P: Model + Clone, C: Model + Clone + Index<Model = C, Item = C>, N: Load<C>>
    super::load::sealed::Loader<P> for Many<P, C, N>
{
    type Output = Vec<N::Joined>;
    type Joined = (P, Self::Output);

    fn join(parent: P, output: Self::Output) -> Self::Joined {
        (parent, output)
    }

    fn candidates(&self) -> Vec<Option<Shared>> {
        vec![self.options.is_plain().then_some(Shared {
            schema: &C::SCHEMA,
            relation: self.relation,
        })]
    }

    fn load_with<'a>(&'a self, input: LoadInput<'a, P>) -> Loading<'a, Self::Output> {
        Box::pin(async move {
            if let Some(error) = self.options.filter.first_error() {
                return Err(fail::<P>(&self.relation)(error.clone()));
            }
            self.declared()
                .for_parents::<P, C, N>(&self.nested, input)
                .await
        })
    }

    fn plan(&self, wave: usize, waves: &mut Waves, prefetched: &[bool]) -> Result<()> {
        self.declared()
            .plan::<P, C, N>(&self.nested, wave, waves, prefetched)
    }
}

impl<P, C, N> Many<P, C, N> {
    fn declared(&self) -> Declared<'_> {
        Declared {
            relation: &self.relation,
            one: false,
            options: Some(&self.options),
        }
    }
}

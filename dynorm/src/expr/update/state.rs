//! What an [`Update`] holds: its actions in order, and the errors of values that could not
//! be encoded. The builder methods and the rendering are in `update.rs`.

use std::marker::PhantomData;

use super::action::Action;
use crate::error::Error;

/// A typed update expression on model `M`: `SET`, `REMOVE`, `ADD` and `DELETE` actions,
/// each on a field's [`Attr`](crate::Attr) with a value of the field's type.
///
/// It refuses, before anything is sent: a table key, the `#[version]` (dynorm increments
/// it), a `#[combine]` attribute (update its sources), a read-only field (at compile time),
/// and an attribute written twice. Values that cannot be encoded are kept as errors and
/// reported when the update is sent.
#[must_use = "an update does nothing until it is part of a request"]
pub struct Update<M> {
    pub(super) actions: Vec<(&'static str, Action)>,
    pub(super) errors: Vec<Error>,
    pub(super) model: PhantomData<fn() -> M>,
}

impl<M> Clone for Update<M> {
    fn clone(&self) -> Self {
        Self {
            actions: self.actions.clone(),
            errors: self.errors.clone(),
            model: PhantomData,
        }
    }
}

impl<M> std::fmt::Debug for Update<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Update")
            .field("actions", &self.actions)
            .field("errors", &self.errors)
            .finish()
    }
}

impl<M> Update<M> {
    /// Whether the update writes `attribute` at all.
    pub(super) fn touches(&self, attribute: &str) -> bool {
        self.actions.iter().any(|(name, _)| *name == attribute)
    }
}

//! What an [`Update`] holds: its actions in order, and the errors of values that could not
//! be encoded. The builder methods and the rendering are in `update.rs`.

use std::marker::PhantomData;

use super::action::Action;
use crate::error::Error;
use crate::expr::path::Inner;

/// A typed update expression on model `M`: `SET`, `REMOVE`, `ADD` and `DELETE` actions,
/// each on a field's [`Attr`](crate::Attr) with a value of the field's type.
///
/// It refuses, before anything is sent: a table key, the `#[version]` (dynorm increments
/// it), a `#[combine]` or `watch` attribute (update its sources), a read-only field (at
/// compile time), an attribute written twice, paths inside an attribute that overlap, and
/// anything but a `set` of a transformed field. Values that cannot be encoded are kept as
/// errors and reported when the update is sent.
#[must_use = "an update does nothing until it is part of a request"]
pub struct Update<M> {
    pub(super) actions: Vec<(&'static str, Action)>,
    /// Actions on paths inside an attribute (`field`, `at`, `set_entry`).
    pub(super) nested: Vec<(&'static str, Inner, Action)>,
    pub(super) errors: Vec<Error>,
    pub(super) model: PhantomData<fn() -> M>,
}

impl<M> Clone for Update<M> {
    fn clone(&self) -> Self {
        Self {
            actions: self.actions.clone(),
            nested: self.nested.clone(),
            errors: self.errors.clone(),
            model: PhantomData,
        }
    }
}

impl<M> std::fmt::Debug for Update<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Update")
            .field("actions", &self.actions)
            .field("nested", &self.nested)
            .field("errors", &self.errors)
            .finish()
    }
}

impl<M> Update<M> {
    /// Whether the update writes `attribute` at all, or a path inside it.
    pub(super) fn touches(&self, attribute: &str) -> bool {
        self.actions.iter().any(|(name, _)| *name == attribute) || self.touches_inside(attribute)
    }

    /// Whether the update writes a path inside `attribute`, leaving the rest of it.
    pub(super) fn touches_inside(&self, attribute: &str) -> bool {
        self.nested.iter().any(|(name, _, _)| *name == attribute)
    }
}

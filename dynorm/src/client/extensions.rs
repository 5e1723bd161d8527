//! State that satellite crates keep per client: one value of each type, made when first
//! asked for and shared by the client's clones.

use std::any::{Any, TypeId};
use std::sync::{Arc, Mutex, PoisonError};

/// One value of each type, made by `Default` when first asked for.
#[derive(Default)]
pub(crate) struct Extensions {
    slots: Mutex<Vec<(TypeId, Arc<dyn Any + Send + Sync>)>>,
}

impl Extensions {
    /// The value of type `T`, made now when there is none.
    pub(crate) fn get_or_default<T: Any + Send + Sync + Default>(&self) -> Arc<T> {
        // A panic while the list was held leaves it as it was: a list of values.
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        let id = TypeId::of::<T>();
        let slot = match slots.iter().find(|(t, _)| *t == id) {
            Some((_, slot)) => slot.clone(),
            None => {
                let slot: Arc<dyn Any + Send + Sync> = Arc::new(T::default());
                slots.push((id, slot.clone()));
                slot
            }
        };
        // The slot of `TypeId::of::<T>()` holds a `T`.
        slot.downcast::<T>()
            .unwrap_or_else(|_| Arc::new(T::default()))
    }
}

impl std::fmt::Debug for Extensions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Extensions").finish_non_exhaustive()
    }
}

//! `Unique`: one unique constraint as a model declares it (`#[unique]`), and the stored
//! values it is made of. Its guard items are `unique.rs`'s.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::value::Item;

/// One unique constraint: these attributes' values, together, belong to at most one item
/// (within each combination of the scope's values).
#[derive(Clone, Copy, Debug)]
pub struct Unique {
    /// The model's stable name, which its guards' keys begin with: `#[dynorm(unique_name)]`
    /// or the entity name.
    pub owner: &'static str,
    /// The constraint's name: its attributes joined by `+`.
    pub name: &'static str,
    /// The attributes whose values are unique together.
    pub attributes: &'static [&'static str],
    /// The attributes that scope it (unique per team: `team_id`).
    pub scope: &'static [&'static str],
}

impl Unique {
    /// Every attribute the guard's key is made of: the scope, then the values.
    pub fn sources(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.scope.iter().chain(self.attributes).copied()
    }

    /// The stored values of the sources, in [`sources`](Self::sources) order; `None` when
    /// one is absent or NULL, for which no guard is kept (as SQL's `UNIQUE` allows many
    /// NULLs).
    pub fn values<'a>(&self, item: &'a Item) -> Option<Vec<&'a AttributeValue>> {
        self.sources()
            .map(|name| {
                item.get(name)
                    .filter(|v| !matches!(v, AttributeValue::Null(_)))
            })
            .collect()
    }

    /// The values as the error of a conflict shows them: `email = "a@b.c"`.
    pub fn describe(&self, values: &[&AttributeValue]) -> String {
        self.sources()
            .zip(values)
            .map(|(name, value)| format!("{name} = {}", crate::value::show(value)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

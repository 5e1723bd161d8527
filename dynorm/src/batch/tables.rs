//! The full table names of a batch, each kept once, with their item bounds and models.

use std::any::TypeId;

use crate::client::Client;
use crate::observe::span;
use crate::schema::Model;

/// The full table names of a batch, each kept once; writes and keys refer to them by
/// position, so a batch formats each model's table name once, not once per item.
#[derive(Default)]
pub(super) struct Tables {
    pub(super) names: Vec<String>,
    /// The largest item of each table, as its models bound them (`max_item_bytes`, or
    /// DynamoDB's 400 KB): the largest over the models added for it.
    pub(super) bounds: Vec<usize>,
    /// Each model, its name and the position of its table, in the order models were added.
    pub(super) models: Vec<(TypeId, &'static str, usize)>,
}

impl Tables {
    /// The position of `M`'s table.
    pub(super) fn of<M: Model>(&mut self, client: &Client) -> usize {
        let model = TypeId::of::<M>();
        if let Some(&(_, _, index)) = self.models.iter().find(|(m, ..)| *m == model) {
            return index;
        }
        let name = client.table_name::<M>();
        let bound = M::SCHEMA.item_bound();
        let index = match self.names.iter().position(|n| *n == name) {
            Some(index) => {
                self.bounds[index] = self.bounds[index].max(bound);
                index
            }
            None => {
                self.names.push(name);
                self.bounds.push(bound);
                self.names.len() - 1
            }
        };
        self.models.push((model, M::SCHEMA.model, index));
        index
    }

    /// The models whose tables are among `tables`, each once, joined with `,`: the
    /// `dynorm.model` of a request's span.
    pub(super) fn models_in<'a>(&self, tables: impl IntoIterator<Item = &'a str>) -> String {
        let present: Vec<usize> = tables
            .into_iter()
            .filter_map(|table| self.names.iter().position(|name| name == table))
            .collect();
        span::joined(
            self.models
                .iter()
                .filter(|(_, _, table)| present.contains(table))
                .map(|(_, model, _)| *model),
        )
    }
}

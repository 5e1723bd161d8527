//! The registered models, each behind a trait object that keeps its type for what needs
//! it (its backfill), and their tables: models with the same full table name share one.

use std::marker::PhantomData;
use std::sync::Arc;

use aws_sdk_dynamodb::operation::create_table::CreateTableInput;
use futures_util::future::BoxFuture;

use crate::backfill::{BackfillReport, Progress};
use dynorm::__ext::client::Client;
use dynorm::__ext::error::Result;
use dynorm::__ext::schema::{table_definition, Model, Schema};

/// What is told of a backfill's progress.
pub(crate) type OnProgress = Arc<dyn Fn(&Progress) + Send + Sync>;

/// A backfill to run, for any model.
pub(crate) struct BackfillRun {
    pub run: String,
    pub progress_table: String,
    pub segments: u32,
    pub dry_run: bool,
    pub expand: bool,
    pub set_aside_undecodable: bool,
    pub on_progress: Option<OnProgress>,
}

/// A model of the application, its type erased.
pub(crate) trait Registered: Send + Sync {
    /// The model's schema.
    fn schema(&self) -> &'static Schema;

    /// Runs a backfill of the model's items.
    fn backfill<'a>(
        &'a self,
        client: &'a Client,
        run: BackfillRun,
    ) -> BoxFuture<'a, Result<BackfillReport>>;
}

/// Model `M`, registered.
pub(crate) struct Entry<M>(PhantomData<fn() -> M>);

impl<M> Entry<M> {
    pub(crate) fn new() -> Self {
        Self(PhantomData)
    }
}

impl<M: Model> Registered for Entry<M> {
    fn schema(&self) -> &'static Schema {
        &M::SCHEMA
    }

    fn backfill<'a>(
        &'a self,
        client: &'a Client,
        run: BackfillRun,
    ) -> BoxFuture<'a, Result<BackfillReport>> {
        let mut backfill = crate::backfill::<M>(client, run.run, run.progress_table)
            .segments(run.segments)
            .dry_run(run.dry_run)
            .expand(run.expand)
            .set_aside_undecodable(run.set_aside_undecodable);
        if let Some(report) = run.on_progress {
            backfill = backfill.on_progress(move |p| report(p));
        }
        Box::pin(backfill.send())
    }
}

/// One table and the models it holds.
pub(crate) struct Table<'a> {
    /// The full table name.
    pub name: String,
    /// Its models, in the order they were registered.
    pub models: Vec<&'a dyn Registered>,
}

impl Table<'_> {
    /// The models' schemas.
    pub(crate) fn schemas(&self) -> Vec<&'static Schema> {
        self.models.iter().map(|m| m.schema()).collect()
    }

    /// The first model's schema: the one its errors name.
    pub(crate) fn first(&self) -> Option<&'static Schema> {
        self.models.first().map(|m| m.schema())
    }

    /// The `CreateTable` input, as `create_table_input` makes it: the union of the
    /// models' keys and indexes.
    pub(crate) fn input(&self) -> CreateTableInput {
        table_definition::shared_create_table_input(&self.schemas(), Some(self.name.clone()))
    }

    /// The attribute time to live reads, when a model has a `#[ttl]`.
    pub(crate) fn ttl(&self) -> Option<&'static str> {
        self.models.iter().find_map(|m| m.schema().ttl)
    }
}

/// The tables of the registered models, in the order they were first named.
pub(crate) struct Tables<'a>(pub Vec<Table<'a>>);

impl<'a> Tables<'a> {
    pub(crate) fn of(models: &'a [Box<dyn Registered>], client: &Client) -> Self {
        let mut tables: Vec<Table<'a>> = Vec::new();
        for model in models {
            let name = dynorm::__ext::client::table_name_of(client, model.schema());
            match tables.iter_mut().find(|t| t.name == name) {
                Some(table) => table.models.push(model.as_ref()),
                None => tables.push(Table {
                    name,
                    models: vec![model.as_ref()],
                }),
            }
        }
        Self(tables)
    }
}

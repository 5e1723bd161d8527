//! Index lifecycle: adding a global index to a live table (`UpdateTable`, then waiting
//! until it is active, then backfilling the keys of items written before it), deleting
//! one, and the indexes this client is creating, which queries and scans refuse to read.

use std::time::Duration;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, GlobalSecondaryIndexUpdate, IndexStatus, TableDescription,
};
use tracing::Instrument as _;

use super::creating::IndexCreation;
use crate::client::Client;
use crate::error::{sdk_error, Error, ErrorKind, Result};
use crate::observe::span::request_span;
use crate::schema::{table_definition, IndexKind, IndexSchema, Model, Schema};

/// How long [`Tables::create_index`](super::Tables::create_index) and [`Tables::delete_index`](super::Tables::delete_index) wait for the table and
/// the index by default.
const WAIT: Duration = Duration::from_secs(15 * 60);

impl Client {
    /// Whether this client (or a clone) is creating `M`'s index `index`.
    pub(crate) fn is_creating_index<M: Model>(&self, index: &str) -> bool {
        self.creating.contains(&self.table_name::<M>(), index)
    }

    /// Refuses, before sending, a read through `index` of `schema`'s table while this
    /// client creates it.
    pub(crate) fn check_index_readable(
        &self,
        schema: &Schema,
        index: Option<&str>,
        operation: &'static str,
    ) -> Result<()> {
        let Some(index) = index else {
            return Ok(());
        };
        let table = self.table_name_of(schema);
        if !self.creating.contains(&table, index) {
            return Ok(());
        }
        Err(Error::new(
            ErrorKind::IndexNotActive,
            format!(
                "index `{index}` is being created and its keys backfilled; it is read once that is done"
            ),
        )
        .with_model(schema.model)
        .with_operation(operation)
        .with_table(table)
        .with_index(index))
    }

    /// Adds `M`'s global index `index` to its live table with `UpdateTable` (DynamoDB adds
    /// one index at a time), and waits until the table and the index are `ACTIVE` (at most
    /// 15 minutes). Until the returned [`IndexCreation`] is dropped, queries and scans
    /// through the index are refused before sending: run a backfill of every model that
    /// uses the index first, so that items written before it have its keys
    /// ([`add_index`](Self::add_index) does both).
    pub(crate) async fn create_index<M: Model>(&self, index: &str) -> Result<IndexCreation> {
        self.create_index_of(&M::SCHEMA, index, WAIT).await
    }

    /// Creates global index `index` of `schema` on its table, waiting at most `wait`.
    pub(crate) async fn create_index_of(
        &self,
        schema: &Schema,
        index: &str,
        wait: Duration,
    ) -> Result<IndexCreation> {
        let declared = global_index(schema, index)
            .map_err(|e| IndexUpdate::new(self, schema, index, "create_index").fail(e))?;
        let update = IndexUpdate::new(self, schema, declared.name, "create_index");
        let (definitions, sdk_update) = table_definition::create_global_index(declared)
            .map_err(|e| update.fail(Error::config(e.to_string())))?;
        // Marked before the request, so that no read slips in between.
        self.creating.mark(&update.table, declared.name);
        let creation = IndexCreation {
            creating: self.creating.clone(),
            table: update.table.clone(),
            index: declared.name,
        };
        update.send(Some(definitions), sdk_update, wait).await?;
        Ok(creation)
    }

    /// Deletes `M`'s global index `index` from its live table with `UpdateTable`, and
    /// waits until the table is `ACTIVE` and the index gone (at most 15 minutes).
    /// Destructive: dynorm never calls it unless asked to by the index's name.
    pub(crate) async fn delete_index<M: Model>(&self, index: &str) -> Result<()> {
        self.delete_index_of(&M::SCHEMA, index, WAIT).await
    }

    /// Deletes global index `index` from `schema`'s table, waiting at most `wait`.
    pub(crate) async fn delete_index_of(
        &self,
        schema: &Schema,
        index: &str,
        wait: Duration,
    ) -> Result<()> {
        let update = IndexUpdate::new(self, schema, index, "delete_index");
        let sdk_update = table_definition::delete_global_index(index)
            .map_err(|e| update.fail(Error::config(e.to_string())))?;
        update.send(None, sdk_update, wait).await
    }
}

/// One `UpdateTable` that creates or deletes a global index, and the names its errors
/// carry.
struct IndexUpdate<'a> {
    client: &'a Client,
    schema: &'a Schema,
    table: String,
    index: &'a str,
    operation: &'static str,
}

impl<'a> IndexUpdate<'a> {
    fn new(
        client: &'a Client,
        schema: &'a Schema,
        index: &'a str,
        operation: &'static str,
    ) -> Self {
        let table = client.table_name_of(schema);
        Self {
            client,
            schema,
            table,
            index,
            operation,
        }
    }

    fn fail(&self, error: Error) -> Error {
        error
            .with_model(self.schema.model)
            .with_operation(self.operation)
            .with_table(self.table.clone())
            .with_index(self.index)
    }

    /// Sends the update (with the definitions of a new index's keys), then waits: for a
    /// new index, until it is `ACTIVE` and not backfilling; for a deleted one, until no
    /// index is being deleted.
    async fn send(
        &self,
        definitions: Option<Vec<AttributeDefinition>>,
        update: GlobalSecondaryIndexUpdate,
        wait: Duration,
    ) -> Result<()> {
        let creating = definitions.is_some();
        self.client
            .sdk
            .update_table()
            .table_name(&self.table)
            .set_attribute_definitions(definitions)
            .global_secondary_index_updates(update)
            .send()
            .instrument(request_span!(
                "UpdateTable",
                self.schema.model,
                self.table.as_str(),
                "aws.dynamodb.index_name" = self.index
            ))
            .await
            .map_err(|e| self.fail(sdk_error(e, self.schema.model, self.operation, &self.table)))?;
        let index = self.index;
        let ready = |table: &TableDescription| {
            let mut indexes = table.global_secondary_indexes().iter();
            if creating {
                indexes.any(|g| {
                    g.index_name() == Some(index)
                        && g.index_status() == Some(&IndexStatus::Active)
                        && g.backfilling() != Some(true)
                })
            } else {
                indexes.all(|g| g.index_status() != Some(&IndexStatus::Deleting))
            }
        };
        let state = if creating {
            "ACTIVE with its new index"
        } else {
            "ACTIVE without the index"
        };
        self.client
            .wait_for(&self.table, wait, state, ready)
            .await
            .map_err(|e| self.fail(e))
    }
}

/// The global index `name` of `schema`, or why it cannot be added to a live table.
fn global_index<'a>(schema: &'a Schema, name: &str) -> Result<&'a IndexSchema> {
    match schema.indexes.iter().find(|i| i.name == name) {
        Some(index) if index.kind == IndexKind::Global => Ok(index),
        Some(_) => Err(Error::config(format!(
            "index `{name}` is local: DynamoDB adds local indexes only when it creates the table"
        ))),
        None => Err(Error::config(format!(
            "the model declares no index `{name}`"
        ))),
    }
}

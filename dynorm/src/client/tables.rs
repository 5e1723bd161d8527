//! `db.tables()`: table and index administration, one builder per operation.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use aws_sdk_dynamodb::operation::create_table::CreateTableInput;

use crate::client::{Client, IndexCreation};
use crate::error::Result;
use crate::schema::{table_definition, Difference, Model, SharedTable, StreamView};

/// Table and index administration for a [`Client`]'s models, with the client's table
/// naming: `db.tables().create::<User>().send().await?`.
///
/// ```no_run
/// # use dynorm::Model;
/// # #[derive(Model, Clone)] struct User { #[hash_key] id: String }
/// # async fn demo(db: dynorm::Client) -> Result<(), dynorm::Error> {
/// let tables = db.tables();
/// let input = tables.create::<User>().preview(); // the `CreateTable` input
/// tables.ensure::<User>().send().await?; // created unless it exists, then active
/// assert!(tables.differences::<User>().send().await?.is_empty());
/// # let _ = input; Ok(()) }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Tables<'a> {
    client: &'a Client,
}

impl Client {
    /// Table and index administration: create, ensure, verify, delete, time to live,
    /// streams and global indexes, each a builder ended by `send()`.
    pub fn tables(&self) -> Tables<'_> {
        Tables { client: self }
    }
}

impl<'a> Tables<'a> {
    /// The full table name of `M`: `{prefix}{name}{suffix}`, where a model's own
    /// `#[dynorm(prefix, suffix)]` overrides the client's.
    pub fn name<M: Model>(&self) -> String {
        self.client.table_name::<M>()
    }

    /// The full name of a table of the application's own (checkpoints, progress, ...):
    /// `{prefix}{table}{suffix}` with the client's prefix and suffix.
    pub fn full_name(&self, table: &str) -> String {
        self.client.full_name(table, None, None)
    }

    /// Creates `M`'s table (`CreateTable`); [`preview`](CreateTable::preview) gives the
    /// input without sending it.
    pub fn create<M: Model>(&self) -> CreateTable<'a> {
        CreateTable {
            client: self.client,
            input: self.client.create_table_input::<M>(),
            model: Some(M::SCHEMA.model),
            wait: false,
        }
    }

    /// Creates a table shared by several entities, with every entity's indexes, and
    /// waits until it is active.
    pub fn create_shared<T: SharedTable>(&self) -> CreateTable<'a> {
        CreateTable {
            client: self.client,
            input: self.client.shared_table_input::<T>(),
            model: None,
            wait: true,
        }
    }

    /// Creates `M`'s table unless it exists, then waits until it is active, and turns on
    /// time to live for a model with a `#[ttl]`. A table that exists must match the model:
    /// when it differs, the error is [`verify`](Self::verify)'s, listing every difference.
    pub fn ensure<M: Model>(&self) -> TableRequest<'a, ()> {
        TableRequest::new(self.client.ensure_table::<M>())
    }

    /// Polls `DescribeTable` until `M`'s table is `ACTIVE`, for at most `timeout`.
    pub fn wait_until_active<M: Model>(&self, timeout: Duration) -> TableRequest<'a, ()> {
        TableRequest::new(self.client.wait_until_active::<M>(timeout))
    }

    /// Compares the live table with the model: its key schema, the key attributes' types,
    /// every index the model declares (kind, key schema, projection), the stream, time to
    /// live and billing. Any difference is an [`ErrorKind::Config`](crate::ErrorKind)
    /// error that lists them all and names the first one's attribute.
    pub fn verify<M: Model>(&self) -> TableRequest<'a, ()> {
        TableRequest::new(self.client.verify_table::<M>())
    }

    /// Every difference between `M` and its live table, as data (see
    /// [`verify`](Self::verify)). Indexes the model does not declare are not differences:
    /// a shared table has the indexes of every entity
    /// ([`shared_differences`](Self::shared_differences) lists them).
    pub fn differences<M: Model>(&self) -> TableRequest<'a, Vec<Difference>> {
        TableRequest::new(self.client.table_differences::<M>())
    }

    /// Every difference between the entities of shared table `T` and the live table, as
    /// [`differences`](Self::differences) lists them for each, and the global indexes on
    /// the table that no entity declares.
    pub fn shared_differences<T: SharedTable>(&self) -> TableRequest<'a, Vec<Difference>> {
        let client = self.client;
        let entities = T::ENTITIES;
        TableRequest::new(async move { client.shared_differences_of(entities).await })
    }

    /// Turns on DynamoDB's time to live for `M`'s table, on its `#[ttl]` attribute; where
    /// it is already on, nothing changes.
    pub fn enable_ttl<M: Model>(&self) -> TableRequest<'a, ()> {
        TableRequest::new(self.client.enable_ttl::<M>())
    }

    /// Turns on the stream of `M`'s existing table with view type `view`, and waits until
    /// the table is active again. Nothing is sent when the stream is already on with that
    /// view; a stream with another view is an [`ErrorKind::Config`](crate::ErrorKind)
    /// error, since DynamoDB changes a view only by starting a new stream.
    pub fn enable_stream<M: Model>(&self, view: StreamView) -> TableRequest<'a, ()> {
        TableRequest::new(self.client.enable_stream::<M>(view))
    }

    /// Deletes `M`'s table.
    pub fn delete<M: Model>(&self) -> TableRequest<'a, ()> {
        TableRequest::new(self.client.delete_table::<M>())
    }

    /// Adds `M`'s global index `index` to its live table with `UpdateTable` (DynamoDB adds
    /// one index at a time), and waits until the table and the index are `ACTIVE` (at most
    /// 15 minutes). Until the returned [`IndexCreation`] is dropped, queries and scans
    /// through the index are refused before sending: backfill every model that uses the
    /// index first (`dynorm-migrate` does both), so that items written before it have its
    /// keys.
    pub fn create_index<M: Model>(&self, index: &'a str) -> TableRequest<'a, IndexCreation> {
        TableRequest::new(self.client.create_index::<M>(index))
    }

    /// Deletes `M`'s global index `index` from its live table with `UpdateTable`, and
    /// waits until the table is `ACTIVE` and the index gone (at most 15 minutes).
    /// Destructive: dynorm never calls it unless asked to by the index's name.
    pub fn delete_index<M: Model>(&self, index: &'a str) -> TableRequest<'a, ()> {
        TableRequest::new(self.client.delete_index::<M>(index))
    }

    /// Whether this client (or a clone) is creating `M`'s index `index`.
    pub fn is_creating_index<M: Model>(&self, index: &str) -> bool {
        self.client.is_creating_index::<M>(index)
    }
}

/// A `CreateTable` request, from [`Tables::create`] or [`Tables::create_shared`].
#[must_use = "a builder does nothing until `send` is called"]
#[derive(Debug)]
pub struct CreateTable<'a> {
    client: &'a Client,
    input: CreateTableInput,
    model: Option<&'static str>,
    wait: bool,
}

impl CreateTable<'_> {
    /// The `CreateTable` input, with the client's full table name, without sending it.
    pub fn preview(&self) -> CreateTableInput {
        self.input.clone()
    }

    /// The input as the JSON that `aws dynamodb create-table --cli-input-json` accepts.
    pub fn preview_json(&self) -> String {
        table_definition::to_cli_json(&self.input)
    }

    /// Sends `CreateTable`; for a shared table, then waits until it is active.
    pub async fn send(self) -> Result<()> {
        let name = self.input.table_name.clone().unwrap_or_default();
        let sent = self.client.send_create_table(self.input).await;
        let sent = match self.model {
            Some(model) => sent.map_err(|e| e.with_model(model)),
            None => sent,
        };
        sent?;
        if self.wait {
            self.client
                .wait_for_table(&name, Duration::from_secs(60))
                .await?;
        }
        Ok(())
    }
}

/// One table or index operation of [`Tables`]: nothing is sent until
/// [`send`](Self::send).
#[must_use = "a builder does nothing until `send` is called"]
pub struct TableRequest<'a, T> {
    future: Pin<Box<dyn Future<Output = Result<T>> + Send + 'a>>,
}

impl<'a, T> TableRequest<'a, T> {
    fn new(future: impl Future<Output = Result<T>> + Send + 'a) -> Self {
        Self {
            future: Box::pin(future),
        }
    }

    /// Sends the operation's requests and waits for what it waits for.
    pub async fn send(self) -> Result<T> {
        self.future.await
    }
}

impl<T> std::fmt::Debug for TableRequest<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableRequest").finish_non_exhaustive()
    }
}

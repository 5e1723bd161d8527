//! Table administration: create, wait, ensure, verify, delete, and time to live.

use std::time::Duration;

use aws_sdk_dynamodb::operation::create_table::CreateTableInput;
use aws_sdk_dynamodb::types::{TableDescription, TableStatus};

use crate::client::Client;
use crate::error::{from_sdk, sdk_error, Error, Result};
use crate::observe::span::request_span;
use crate::schema::table_drift::{self, LiveTable};
use crate::schema::{table_definition, Difference, Model, Schema, SharedTable, StreamView};
use tracing::Instrument;

impl Client {
    /// The `CreateTable` input for `M`, with this client's full table name.
    pub(crate) fn create_table_input<M: Model>(&self) -> CreateTableInput {
        table_definition::create_table_input(&M::SCHEMA, self.table_name::<M>())
    }

    /// Creates `M`'s table from [`create_table_input`](Self::create_table_input).
    pub(crate) async fn create_table<M: Model>(&self) -> Result<()> {
        self.send_create_table(self.create_table_input::<M>())
            .await
            .map_err(|e| e.with_model(M::SCHEMA.model))
    }

    /// Sends a `CreateTable` input.
    pub(crate) async fn send_create_table(&self, input: CreateTableInput) -> Result<()> {
        let name = input.table_name.clone();
        self.sdk
            .create_table()
            .set_table_name(input.table_name)
            .set_attribute_definitions(input.attribute_definitions)
            .set_key_schema(input.key_schema)
            .set_billing_mode(input.billing_mode)
            .set_global_secondary_indexes(input.global_secondary_indexes)
            .set_local_secondary_indexes(input.local_secondary_indexes)
            .set_stream_specification(input.stream_specification)
            .send()
            .instrument(request_span!(
                "CreateTable",
                tracing::field::Empty,
                name.as_deref().unwrap_or_default()
            ))
            .await
            .map_err(|e| {
                let error = from_sdk(e).with_operation("create_table");
                match &name {
                    Some(name) => error.with_table(name),
                    None => error,
                }
            })?;
        Ok(())
    }

    /// The `CreateTable` input of a table shared by several entities, with this client's
    /// full table name.
    pub(crate) fn shared_table_input<T: SharedTable>(&self) -> CreateTableInput {
        let name = T::ENTITIES.first().map(|schema| self.table_name_of(schema));
        table_definition::shared_create_table_input(T::ENTITIES, name)
    }

    /// Creates `M`'s table unless it exists, then waits until it is active, and turns on
    /// time to live for a model with a `#[ttl]`. A table that exists must match the model:
    /// when it differs, the error is [`verify_table`](Self::verify_table)'s, listing every
    /// difference.
    pub(crate) async fn ensure_table<M: Model>(&self) -> Result<()> {
        let existed = match self.create_table::<M>().await {
            Ok(()) => false,
            Err(e) if is_resource_in_use(&e) => true,
            Err(e) => return Err(e),
        };
        self.wait_until_active::<M>(Duration::from_secs(60)).await?;
        if existed {
            self.compare_table::<M>("ensure_table").await?;
        } else if M::SCHEMA.ttl.is_some() {
            self.enable_ttl::<M>().await?;
        }
        Ok(())
    }

    /// Creates table `table` with string keys `hash` and `range` unless it exists
    /// (on-demand billing), and waits until it is active: the satellites' own tables
    /// (checkpoints, dead letters, backfill progress).
    pub(crate) async fn ensure_keyed_table(
        &self,
        table: &str,
        hash: &str,
        range: &str,
    ) -> Result<()> {
        use aws_sdk_dynamodb::types::{BillingMode, KeyType, ScalarAttributeType};
        use table_definition::{attribute_definition, key_schema_element};
        let attribute = |name: &str| attribute_definition(name, ScalarAttributeType::S);
        let created = self
            .sdk
            .create_table()
            .table_name(table)
            .attribute_definitions(attribute(hash))
            .attribute_definitions(attribute(range))
            .key_schema(key_schema_element(hash, KeyType::Hash))
            .key_schema(key_schema_element(range, KeyType::Range))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .instrument(request_span!("CreateTable", tracing::field::Empty, table))
            .await;
        if let Err(e) = created {
            let error = from_sdk(e);
            if error.code() != Some("ResourceInUseException") {
                return Err(error.with_table(table));
            }
        }
        self.wait_for_table(table, Duration::from_secs(60)).await
    }

    /// Polls `DescribeTable` until `M`'s table is `ACTIVE`, for at most `timeout`.
    pub(crate) async fn wait_until_active<M: Model>(&self, timeout: Duration) -> Result<()> {
        self.wait_for_table(&self.table_name::<M>(), timeout)
            .await
            .map_err(|e| e.with_model(M::SCHEMA.model))
    }

    /// Polls `DescribeTable` until table `name` is `ACTIVE`, for at most `timeout`.
    pub(crate) async fn wait_for_table(&self, name: &str, timeout: Duration) -> Result<()> {
        self.wait_for(name, timeout, "ACTIVE", |_| true).await
    }

    /// Polls `DescribeTable` until table `name` is `ACTIVE` and `ready` holds of it, for
    /// at most `timeout`; `state` says what was waited for, in the error after `timeout`.
    pub(crate) async fn wait_for(
        &self,
        name: &str,
        timeout: Duration,
        state: &str,
        ready: impl Fn(&TableDescription) -> bool,
    ) -> Result<()> {
        let deadline = tokio::time::Instant::now() + timeout;
        let mut delay = Duration::from_millis(20);
        loop {
            let output = self
                .sdk
                .describe_table()
                .table_name(name)
                .send()
                .instrument(request_span!("DescribeTable", tracing::field::Empty, name))
                .await
                .map_err(|e| {
                    from_sdk(e)
                        .with_operation("wait_until_active")
                        .with_table(name)
                })?;
            if output
                .table()
                .filter(|t| t.table_status() == Some(&TableStatus::Active))
                .is_some_and(&ready)
            {
                return Ok(());
            }
            if tokio::time::Instant::now() + delay > deadline {
                return Err(Error::config(format!(
                    "table `{name}` was not {state} after {timeout:?}"
                ))
                .with_operation("wait_until_active"));
            }
            tokio::time::sleep(delay).await;
            delay = (delay * 2).min(Duration::from_secs(2));
        }
    }

    /// Compares the live table with the model: its key schema, the key attributes' types,
    /// every index the model declares (kind, key schema, projection), the stream, time to
    /// live and billing ([`table_differences`](Self::table_differences) lists them). Any
    /// difference is an [`ErrorKind::Config`](crate::ErrorKind) error that lists them all
    /// and names the first one's attribute, so drift between the model and the
    /// infrastructure shows up early.
    pub(crate) async fn verify_table<M: Model>(&self) -> Result<()> {
        self.compare_table::<M>("verify_table").await
    }

    /// Every difference between `M` and its live table, as data: the key schema, the key
    /// attributes' types, every index the model declares (present, kind, key schema,
    /// projection), the stream, time to live (for a model with `#[ttl]`) and billing.
    /// Indexes the model does not declare are not differences: a shared table has the
    /// indexes of every entity ([`shared_table_differences`](Self::shared_table_differences)
    /// lists them).
    pub(crate) async fn table_differences<M: Model>(&self) -> Result<Vec<Difference>> {
        let name = self.table_name::<M>();
        self.differences_of(&[&M::SCHEMA], &name, false, "table_differences")
            .await
    }

    /// Every difference between the entities of shared table `T` and the live table, as
    /// [`table_differences`](Self::table_differences) lists them for each, and the global
    /// indexes on the table that no entity declares.
    pub(crate) async fn shared_differences_of(
        &self,
        entities: &[&Schema],
    ) -> Result<Vec<Difference>> {
        let Some(first) = entities.first() else {
            return Ok(Vec::new());
        };
        let name = self.table_name_of(first);
        self.differences_of(entities, &name, true, "shared_table_differences")
            .await
    }

    /// Reads table `name` (and its time to live, when a model has a `#[ttl]`) and lists
    /// how it differs from `schemas`, for `operation`.
    pub(crate) async fn differences_of(
        &self,
        schemas: &[&Schema],
        name: &str,
        extra_indexes: bool,
        operation: &'static str,
    ) -> Result<Vec<Difference>> {
        let model = schemas.first().map_or("", |s| s.model);
        let output = self
            .sdk
            .describe_table()
            .table_name(name)
            .send()
            .instrument(request_span!("DescribeTable", model, name))
            .await
            .map_err(|e| sdk_error(e, model, operation, name))?;
        let table = output.table().ok_or_else(|| {
            Error::config(format!("DescribeTable returned no description of `{name}`"))
                .with_model(model)
                .with_operation(operation)
        })?;
        let ttl = if schemas.iter().any(|s| s.ttl.is_some()) {
            let output = self
                .sdk
                .describe_time_to_live()
                .table_name(name)
                .send()
                .instrument(request_span!("DescribeTimeToLive", model, name))
                .await
                .map_err(|e| sdk_error(e, model, operation, name))?;
            output.time_to_live_description
        } else {
            None
        };
        let live = LiveTable {
            description: table,
            ttl: ttl.as_ref(),
        };
        Ok(table_drift::differences(
            schemas,
            name,
            &live,
            extra_indexes,
        ))
    }

    /// Compares the live table with `M`, for `operation`: an error listing every
    /// difference.
    async fn compare_table<M: Model>(&self, operation: &'static str) -> Result<()> {
        let name = self.table_name::<M>();
        let found = self
            .differences_of(&[&M::SCHEMA], &name, false, operation)
            .await?;
        table_drift::into_result(&name, found)
            .map_err(|e| e.with_model(M::SCHEMA.model).with_operation(operation))
    }

    /// Turns on DynamoDB's time to live for `M`'s table, on its `#[ttl]` attribute; where it
    /// is already on, nothing changes.
    pub(crate) async fn enable_ttl<M: Model>(&self) -> Result<()> {
        self.enable_ttl_of(&M::SCHEMA).await
    }

    /// Turns on time to live for `schema`'s table, on its `#[ttl]` attribute.
    pub(crate) async fn enable_ttl_of(&self, schema: &Schema) -> Result<()> {
        let Some(attribute) = schema.ttl else {
            return Err(Error::config("the model has no #[ttl] attribute")
                .with_model(schema.model)
                .with_operation("enable_ttl"));
        };
        let specification = aws_sdk_dynamodb::types::TimeToLiveSpecification::builder()
            .enabled(true)
            .attribute_name(attribute)
            .build()
            .map_err(|e| Error::config(e.to_string()).with_model(schema.model))?;
        let table = self.table_name_of(schema);
        let sent = self
            .sdk
            .update_time_to_live()
            .table_name(&table)
            .time_to_live_specification(specification)
            .send()
            .instrument(request_span!(
                "UpdateTimeToLive",
                schema.model,
                table.as_str()
            ))
            .await
            .map_err(|e| sdk_error(e, schema.model, "enable_ttl", &table));
        match sent {
            // Already on (`ensure_table` turns it on for a table it creates): done.
            Err(error) if error.is_validation() && error.message().contains("already enabled") => {
                Ok(())
            }
            Err(error) => Err(error),
            Ok(_) => Ok(()),
        }
    }

    /// Turns on the stream of `M`'s existing table with view type `view`, and waits until
    /// the table is active again. Nothing is sent when the stream is already on with that
    /// view; a stream with another view is an [`ErrorKind::Config`](crate::ErrorKind) error,
    /// since DynamoDB changes a view only by turning the stream off and on again, which
    /// starts a new stream.
    pub(crate) async fn enable_stream<M: Model>(&self, view: StreamView) -> Result<()> {
        self.enable_stream_of(&M::SCHEMA, view).await
    }

    /// Turns on the stream of `schema`'s table, as [`enable_stream`](Self::enable_stream).
    pub(crate) async fn enable_stream_of(&self, schema: &Schema, view: StreamView) -> Result<()> {
        let table = self.table_name_of(schema);
        let fail = |e: Error| e.with_model(schema.model).with_operation("enable_stream");
        let output = self
            .sdk
            .describe_table()
            .table_name(&table)
            .send()
            .instrument(request_span!("DescribeTable", schema.model, table.as_str()))
            .await
            .map_err(|e| sdk_error(e, schema.model, "enable_stream", &table))?;
        let live = output
            .table()
            .and_then(|t| t.stream_specification())
            .filter(|s| s.stream_enabled())
            .map(|s| s.stream_view_type().map(|v| v.as_str().to_owned()));
        match live {
            Some(Some(live)) if live == view.as_str() => return Ok(()),
            Some(live) => {
                return Err(fail(Error::config(format!(
                    "table `{table}` already has a {} stream; turn it off before enabling a {view} stream",
                    live.unwrap_or_default()
                ))
                .with_table(&table)))
            }
            None => {}
        }
        self.sdk
            .update_table()
            .table_name(&table)
            .stream_specification(table_definition::stream_specification(Some(view)))
            .send()
            .instrument(request_span!("UpdateTable", schema.model, table.as_str()))
            .await
            .map_err(|e| sdk_error(e, schema.model, "enable_stream", &table))?;
        self.wait_for_table(&table, Duration::from_secs(60))
            .await
            .map_err(fail)
    }

    /// Deletes `M`'s table.
    pub(crate) async fn delete_table<M: Model>(&self) -> Result<()> {
        let table = self.table_name::<M>();
        self.sdk
            .delete_table()
            .table_name(&table)
            .send()
            .instrument(request_span!(
                "DeleteTable",
                M::SCHEMA.model,
                table.as_str()
            ))
            .await
            .map_err(|e| sdk_error(e, M::SCHEMA.model, "delete_table", &table))?;
        Ok(())
    }
}

/// Whether a `create_table` error says the table already exists.
fn is_resource_in_use(error: &Error) -> bool {
    error.code() == Some("ResourceInUseException")
}

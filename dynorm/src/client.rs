//! The client: an `aws_sdk_dynamodb::Client` plus the table naming rules.

use std::sync::{Arc, RwLock};
use std::time::Duration;

use aws_sdk_dynamodb::operation::create_table::CreateTableInput;
use aws_sdk_dynamodb::types::TableStatus;

use crate::batch::{BatchGet, BatchWrite};
use crate::condition::Condition;
use crate::error::{Error, Result};
use crate::index::Index;
use crate::model::Model;
use crate::ops::{CreateItem, DeleteItem, GetItem, PutItem, UpdateItem};
use crate::query::Query;
use crate::scan::Scan;
use crate::transaction::{ConditionCheckItem, GetTransaction, WriteTransaction};

/// The client-wide table name prefix and suffix.
#[derive(Clone, Debug, Default)]
struct Naming {
    prefix: String,
    suffix: String,
}

/// The entry point: wraps an SDK client and applies table naming.
///
/// The full table name of a model is `{prefix}{name}{suffix}`. The prefix and suffix are
/// read on every call, so [`set_table_prefix`](Self::set_table_prefix) applies to every
/// later call, and a model's own `#[dynorm(prefix, suffix)]` overrides them.
///
/// Clones share the SDK client and the naming.
#[derive(Clone, Debug)]
pub struct Client {
    sdk: aws_sdk_dynamodb::Client,
    naming: Arc<RwLock<Naming>>,
}

impl Client {
    /// Wraps an SDK client you configured yourself.
    pub fn new(sdk: aws_sdk_dynamodb::Client) -> Self {
        Self {
            sdk,
            naming: Arc::default(),
        }
    }

    /// Builds the SDK client from the environment, the standard aws-config way
    /// (`AWS_REGION`, `AWS_PROFILE`, `AWS_ENDPOINT_URL_DYNAMODB`, ...).
    pub async fn from_env() -> Self {
        let config = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
        Self::new(aws_sdk_dynamodb::Client::new(&config))
    }

    /// The SDK client, for anything dynorm does not cover.
    pub fn sdk(&self) -> &aws_sdk_dynamodb::Client {
        &self.sdk
    }

    /// Sets the table name prefix for every later call on this client and its clones.
    pub fn set_table_prefix(&self, prefix: impl Into<String>) {
        self.naming
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .prefix = prefix.into();
    }

    /// Sets the table name suffix for every later call on this client and its clones.
    pub fn set_table_suffix(&self, suffix: impl Into<String>) {
        self.naming
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .suffix = suffix.into();
    }

    /// A client with another SDK client (other settings, interceptors, ...) that shares
    /// this client's table naming.
    pub fn with_sdk(&self, sdk: aws_sdk_dynamodb::Client) -> Self {
        Self {
            sdk,
            naming: self.naming.clone(),
        }
    }

    /// A client sharing the SDK client, with its own naming that starts as `prefix`.
    pub fn with_table_prefix(&self, prefix: impl Into<String>) -> Self {
        let naming = Naming {
            prefix: prefix.into(),
            suffix: self
                .naming
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .suffix
                .clone(),
        };
        Self {
            sdk: self.sdk.clone(),
            naming: Arc::new(RwLock::new(naming)),
        }
    }

    /// The full table name of `M`: `{prefix}{name}{suffix}`.
    pub fn table_name<M: Model>(&self) -> String {
        self.table_name_of(&M::SCHEMA)
    }

    /// The full table name of a schema.
    fn table_name_of(&self, schema: &crate::Schema) -> String {
        let naming = self.naming.read().unwrap_or_else(|e| e.into_inner());
        format!(
            "{}{}{}",
            schema.table_prefix.unwrap_or(&naming.prefix),
            schema.table,
            schema.table_suffix.unwrap_or(&naming.suffix)
        )
    }

    /// Reads one item by its typed key. A model with only a hash key also takes the bare
    /// value: `db.get::<User>("u1")`.
    pub fn get<M: Model>(&self, key: impl Into<M::Key>) -> GetItem<M> {
        GetItem::new(self, key.into())
    }

    /// Reads one item by raw key attributes, skipping the fields' storage. The key must
    /// still have every key attribute; a missing one is an error before sending.
    pub fn get_raw<M: Model>(&self, key: crate::Item) -> GetItem<M> {
        GetItem::new_raw(self, key)
    }

    /// Writes a new item, failing with [`ErrorKind::AlreadyExists`](crate::ErrorKind)
    /// when one with the same key exists. `.overwrite(true)` writes unconditionally.
    pub fn create<'a, M: Model>(&self, item: &'a M) -> CreateItem<'a, M> {
        CreateItem::new(self, item)
    }

    /// Writes an item, replacing any item with the same key.
    pub fn put<'a, M: Model>(&self, item: &'a M) -> PutItem<'a, M> {
        PutItem::new(self, item)
    }

    /// Updates one item by its typed key, with typed actions. The item must exist unless
    /// the update is an [`upsert`](UpdateItem::upsert).
    pub fn update<M: Model>(&self, key: impl Into<M::Key>) -> UpdateItem<M> {
        UpdateItem::new(self, key.into())
    }

    /// A write transaction: up to 100 `create`, `put`, `update`, `delete` and
    /// `condition_check` operations across models, all or nothing.
    pub fn transaction(&self) -> WriteTransaction {
        WriteTransaction::new(self)
    }

    /// A condition on an item, for a transaction: the transaction is cancelled unless it holds.
    pub fn condition_check<M: Model>(
        &self,
        key: impl Into<M::Key>,
        condition: Condition<M>,
    ) -> ConditionCheckItem<M> {
        ConditionCheckItem::new(self, key.into(), condition)
    }

    /// A read transaction: a consistent snapshot of up to 100 items across models.
    pub fn transact_get(&self) -> GetTransaction {
        GetTransaction::new(self)
    }

    /// A batch of puts and deletes across models, chunked, retried and complete. It
    /// borrows the items it puts until it is sent.
    pub fn batch_write<'a>(&self) -> BatchWrite<'a> {
        BatchWrite::new(self)
    }

    /// A batch of reads across models, chunked, retried and complete.
    pub fn batch_get(&self) -> BatchGet {
        BatchGet::new(self)
    }

    /// Reads the items of `M` with these keys, in batches; missing items are left out.
    pub async fn get_many<M: Model, K: Into<M::Key>>(
        &self,
        keys: impl IntoIterator<Item = K>,
    ) -> Result<Vec<M>> {
        self.batch_get()
            .get_all::<M, K>(keys)
            .send()
            .await?
            .items::<M>()
    }

    /// Deletes one item by its typed key.
    pub fn delete<M: Model>(&self, key: impl Into<M::Key>) -> DeleteItem<M> {
        DeleteItem::new(self, key.into())
    }

    /// Deletes one item by raw key attributes, skipping the fields' storage.
    pub fn delete_raw<M: Model>(&self, key: crate::Item) -> DeleteItem<M> {
        DeleteItem::new_raw(self, key)
    }

    /// A query on `M`, with the index chosen from the conditions given to
    /// [`matching`](crate::Query::matching), by dynotable-orm's four rules.
    ///
    /// It returns whole `M` items, so it fails before sending when the chosen index does
    /// not project every attribute; name the index with [`query_by`](Self::query_by) then.
    pub fn query<M: Model>(&self) -> Query<M, M> {
        Query::auto(self)
    }

    /// A query through index `I` (or the table, with `I` the model itself), with its hash
    /// key value up front. It returns `I::Item`: the index's projected item type.
    ///
    /// For a multi-attribute hash key, the value is a tuple of every hash attribute.
    pub fn query_by<I: Index>(&self, hash: impl Into<I::HashKey>) -> Query<I::Model, I::Item> {
        Query::by::<I>(self, hash.into())
    }

    /// A scan of index `I` (or the table, with `I` the model itself).
    pub fn scan<I: Index>(&self) -> Scan<I> {
        Scan::new(self)
    }

    /// The `CreateTable` input for `M`, with this client's full table name.
    pub fn create_table_input<M: Model>(&self) -> CreateTableInput {
        crate::table::create_table_input(&M::SCHEMA, self.table_name::<M>())
    }

    /// [`create_table_input`](Self::create_table_input) as the JSON that
    /// `aws dynamodb create-table --cli-input-json` accepts.
    pub fn create_table_json<M: Model>(&self) -> String {
        crate::table::to_cli_json(&self.create_table_input::<M>())
    }

    /// Creates `M`'s table from [`create_table_input`](Self::create_table_input).
    pub async fn create_table<M: Model>(&self) -> Result<()> {
        self.send_create_table(self.create_table_input::<M>())
            .await
            .map_err(|e| e.with_model(M::SCHEMA.model))
    }

    /// Sends a `CreateTable` input.
    async fn send_create_table(&self, input: CreateTableInput) -> Result<()> {
        self.sdk
            .create_table()
            .set_table_name(input.table_name)
            .set_attribute_definitions(input.attribute_definitions)
            .set_key_schema(input.key_schema)
            .set_billing_mode(input.billing_mode)
            .set_global_secondary_indexes(input.global_secondary_indexes)
            .set_local_secondary_indexes(input.local_secondary_indexes)
            .send()
            .await
            .map_err(|e| Error::service(e).with_operation("create_table"))?;
        Ok(())
    }

    /// The `CreateTable` input of a table shared by several entities, with this client's
    /// full table name.
    pub fn shared_table_input<T: crate::SharedTable>(&self) -> CreateTableInput {
        let name = T::ENTITIES.first().map(|schema| self.table_name_of(schema));
        crate::table::shared_create_table_input(T::ENTITIES, name)
    }

    /// Creates a table shared by several entities, and waits until it is active.
    pub async fn create_shared_table<T: crate::SharedTable>(&self) -> Result<()> {
        let input = self.shared_table_input::<T>();
        let name = input.table_name.clone().unwrap_or_default();
        self.send_create_table(input).await?;
        self.wait_for_table(&name, Duration::from_secs(60)).await
    }

    /// Creates `M`'s table unless it exists, then waits until it is active.
    pub async fn ensure_table<M: Model>(&self) -> Result<()> {
        match self.create_table::<M>().await {
            Ok(()) => {}
            Err(e) if is_resource_in_use(&e) => {}
            Err(e) => return Err(e),
        }
        self.wait_until_active::<M>(Duration::from_secs(60)).await
    }

    /// Polls `DescribeTable` until `M`'s table is `ACTIVE`, for at most `timeout`.
    pub async fn wait_until_active<M: Model>(&self, timeout: Duration) -> Result<()> {
        self.wait_for_table(&self.table_name::<M>(), timeout)
            .await
            .map_err(|e| e.with_model(M::SCHEMA.model))
    }

    /// Polls `DescribeTable` until table `name` is `ACTIVE`, for at most `timeout`.
    async fn wait_for_table(&self, name: &str, timeout: Duration) -> Result<()> {
        let deadline = tokio::time::Instant::now() + timeout;
        let mut delay = Duration::from_millis(20);
        loop {
            let output = self
                .sdk
                .describe_table()
                .table_name(name)
                .send()
                .await
                .map_err(|e| Error::service(e).with_operation("wait_until_active"))?;
            if output.table().and_then(|t| t.table_status()) == Some(&TableStatus::Active) {
                return Ok(());
            }
            if tokio::time::Instant::now() + delay > deadline {
                return Err(Error::config(format!(
                    "table `{name}` was not ACTIVE after {timeout:?}"
                ))
                .with_operation("wait_until_active"));
            }
            tokio::time::sleep(delay).await;
            delay = (delay * 2).min(Duration::from_secs(2));
        }
    }

    /// Compares the live table with the model: the key schema and the key attributes'
    /// types. A difference is an [`ErrorKind::Config`](crate::ErrorKind) error naming the
    /// attribute, so drift between the model and the infrastructure shows up early.
    pub async fn verify_table<M: Model>(&self) -> Result<()> {
        let name = self.table_name::<M>();
        let output = self
            .sdk
            .describe_table()
            .table_name(&name)
            .send()
            .await
            .map_err(|e| {
                Error::service(e)
                    .with_model(M::SCHEMA.model)
                    .with_operation("verify_table")
            })?;
        let table = output.table().ok_or_else(|| {
            Error::config(format!("DescribeTable returned no description of `{name}`"))
        })?;
        crate::table::compare(&M::SCHEMA, &name, table)
            .map_err(|e| e.with_model(M::SCHEMA.model).with_operation("verify_table"))
    }

    /// Turns on DynamoDB's time to live for `M`'s table, on its `#[ttl]` attribute.
    pub async fn enable_ttl<M: Model>(&self) -> Result<()> {
        let Some(attribute) = M::SCHEMA.ttl else {
            return Err(Error::config("the model has no #[ttl] attribute")
                .with_model(M::SCHEMA.model)
                .with_operation("enable_ttl"));
        };
        let specification = aws_sdk_dynamodb::types::TimeToLiveSpecification::builder()
            .enabled(true)
            .attribute_name(attribute)
            .build()
            .map_err(|e| Error::config(e.to_string()).with_model(M::SCHEMA.model))?;
        self.sdk
            .update_time_to_live()
            .table_name(self.table_name::<M>())
            .time_to_live_specification(specification)
            .send()
            .await
            .map_err(|e| {
                Error::service(e)
                    .with_model(M::SCHEMA.model)
                    .with_operation("enable_ttl")
            })?;
        Ok(())
    }

    /// Deletes `M`'s table.
    pub async fn delete_table<M: Model>(&self) -> Result<()> {
        self.sdk
            .delete_table()
            .table_name(self.table_name::<M>())
            .send()
            .await
            .map_err(|e| {
                Error::service(e)
                    .with_model(M::SCHEMA.model)
                    .with_operation("delete_table")
            })?;
        Ok(())
    }
}

/// Whether a `create_table` error says the table already exists.
fn is_resource_in_use(error: &Error) -> bool {
    use aws_sdk_dynamodb::error::SdkError;
    use aws_sdk_dynamodb::operation::create_table::CreateTableError;
    std::error::Error::source(error)
        .and_then(|source| {
            source.downcast_ref::<SdkError<CreateTableError, aws_sdk_dynamodb::config::http::HttpResponse>>()
        })
        .and_then(|e| e.as_service_error())
        .is_some_and(CreateTableError::is_resource_in_use_exception)
}

//! The door the satellite crates (`dynorm-streams`, `dynorm-migrate`, `dynorm-test`) use
//! into the core, beside its public API: the internals they share with it, so that every
//! write they make keeps the core's invariants (guards, counts, shapes) and every request
//! is traced and retried as the core's are.
//!
//! **Unstable.** Hidden from the documentation and left out of the public API list: any
//! item here may change in any release of `dynorm`. Applications use the satellites'
//! public APIs instead.

/// Errors: the conversion of SDK errors into dynorm's.
pub mod error {
    pub use crate::error::service::{from_sdk, sdk_error};
    pub use crate::error::StreamRecordRef;
    pub use crate::{Error, ErrorKind, Result};

    /// A record of a shard of a change stream.
    pub fn stream_record(
        stream_arn: &str,
        shard_id: Option<&str>,
        sequence_number: &str,
        event_id: &str,
    ) -> StreamRecordRef {
        StreamRecordRef::record(stream_arn, shard_id, sequence_number, event_id)
    }

    /// A shard of a change stream, where no record is concerned.
    pub fn stream_shard(stream_arn: &str, shard_id: &str) -> StreamRecordRef {
        StreamRecordRef::shard(stream_arn, shard_id)
    }

    /// The context an error carries, as the core's own operations set it (the core's
    /// setters are not public: applications make errors with `Error::new`).
    pub trait Context {
        /// Sets the model the error concerns.
        fn at_model(self, model: &'static str) -> Self;
        /// Sets the operation, unless one is already known.
        fn at_operation(self, operation: &'static str) -> Self;
        /// Sets the full name of the table the error concerns.
        fn at_table(self, table: impl Into<String>) -> Self;
        /// Attaches the item DynamoDB returned with the failure.
        fn at_item(self, item: Option<crate::Item>) -> Self;
        /// Adds to the message what happened around the failure.
        fn in_context(self, context: &str) -> Self;
    }

    impl Context for Error {
        fn at_model(self, model: &'static str) -> Self {
            self.with_model(model)
        }
        fn at_operation(self, operation: &'static str) -> Self {
            self.with_operation(operation)
        }
        fn at_table(self, table: impl Into<String>) -> Self {
            self.with_table(table)
        }
        fn at_item(self, item: Option<crate::Item>) -> Self {
            self.with_item(item)
        }
        fn in_context(self, context: &str) -> Self {
            self.with_context(context)
        }
    }

    /// Where in a change stream an error happened.
    pub trait WithStreamRecord {
        /// Sets where in a change stream the error happened, unless that is already known.
        fn with_stream_record(self, at: StreamRecordRef) -> Self;
    }

    impl WithStreamRecord for Error {
        fn with_stream_record(self, at: StreamRecordRef) -> Self {
            self.set_stream_record(at)
        }
    }
}

/// Values: the item type and how a key is shown in errors.
pub mod value {
    pub use crate::value::attr_error::show;
    pub use crate::value::ScalarType;
    pub use crate::Item;

    /// Time as text.
    pub mod clock {
        pub use crate::value::clock::iso_millis;
    }
}

/// Schemas: what the derive generates, and the internals of guards, counts and entities.
pub mod schema {
    pub use crate::schema::collection::entity_name;
    pub use crate::schema::entity::TemplatePart;
    pub use crate::schema::index_schema::{IndexKind, IndexSchema, Projection};
    pub use crate::schema::key_attribute::KeyAttribute;
    pub use crate::schema::table_drift::missing_table;
    pub use crate::schema::table_schema::Schema;
    pub use crate::schema::*;
    pub use crate::{Collection, Model};

    /// `CreateTable` inputs.
    pub mod table_definition {
        pub use crate::schema::table_definition::{
            attribute_definition, cli_json, key_schema_element, projection_json,
            shared_create_table_input,
        };
    }

    /// Unique attributes' guard items.
    pub mod unique {
        pub use crate::schema::unique::*;
        pub use crate::schema::unique::{
            guard_owner, is_guard, is_guard_key, GUARD_OWNER_HASH, GUARD_OWNER_RANGE,
        };
        pub use crate::schema::unique_constraint::Unique;
    }

    /// Maintained counts and the counted marker.
    pub mod count {
        pub use crate::schema::count::{marker, COUNTED};
        pub use crate::schema::table_schema::Count;
    }

    /// Entity names and key templates.
    pub mod entity {
        pub use crate::schema::entity::KeyCasing;
        pub use crate::schema::entity_keys::{write_entity_keys, MissingTableKey};
    }

    /// Collections.
    pub mod collection {
        pub use crate::schema::collection::owner;
    }

    /// Stream view types.
    pub mod stream_view {
        pub use crate::schema::stream_view::*;
        pub use crate::schema::Streamed;
    }

    /// Key templates parsed back.
    pub mod template_parse {
        pub use crate::schema::template_parse::key_fits;
    }
}

/// Expressions.
pub mod expr {
    pub use crate::expr::condition::{Comparison, Expr};
    pub use crate::expr::placeholders::Placeholders;
    pub use crate::expr::*;

    /// Filters.
    pub mod filters {
        pub use crate::expr::filters::entity;
    }

    /// Query plans.
    pub mod plan {
        pub use crate::expr::plan::{plan_query, Conditions};
    }
}

/// Spans, capacity and rate limits.
pub mod observe {
    pub use crate::observe::capacity::Reporting;
    pub use crate::observe::limiter::units;
    pub use crate::observe::*;

    /// What a backfill worker does with a [`RateLimiter`].
    pub trait Limiting {
        /// Waits until the units spent so far are paid for.
        fn wait_turn(&self) -> impl std::future::Future<Output = ()> + Send;
        /// Adds the units a request consumed.
        fn spend_units(&self, units: f64);
    }

    impl Limiting for RateLimiter {
        fn wait_turn(&self) -> impl std::future::Future<Output = ()> + Send {
            self.wait()
        }
        fn spend_units(&self, units: f64) {
            self.spend(units);
        }
    }

    /// What a change consumer adds to a [`Tally`].
    pub trait TallyStreams {
        /// Adds requests that report no capacity: those of a change stream.
        fn add_stream_requests(&self, requests: usize);
        /// Adds change records handed to a dead-letter sink.
        fn add_dead_letters(&self, records: usize);
        /// Adds records that were read but skipped, as items of entities a collection
        /// does not list.
        fn add_skipped_records(&self, records: usize);
    }

    impl TallyStreams for Tally {
        fn add_stream_requests(&self, requests: usize) {
            self.add_requests(requests);
        }
        fn add_dead_letters(&self, records: usize) {
            Tally::add_dead_lettered(self, records);
        }
        fn add_skipped_records(&self, records: usize) {
            self.add_skipped(records);
        }
    }

    /// What a satellite that sends its own requests adds to a [`Tally`].
    pub trait TallyRequests {
        /// Adds one request that DynamoDB answered with `capacity` (empty when it was
        /// not asked for).
        fn add_request(&self, capacity: &[aws_sdk_dynamodb::types::ConsumedCapacity]);
    }

    impl TallyRequests for Tally {
        fn add_request(&self, capacity: &[aws_sdk_dynamodb::types::ConsumedCapacity]) {
            self.add(&crate::observe::capacity::Metadata::single(capacity));
        }
    }

    /// Request spans.
    pub mod span {
        pub use crate::observe::span::record_error;
        pub use crate::request_span;
    }
}

/// Writes that keep guards and counts.
pub mod item {
    /// Guarded writes: every write that touches guards or counts goes through here.
    pub mod guarded {
        pub use crate::item::guarded::send;
    }

    /// The request a write sends.
    pub mod write_request {
        pub use crate::item::write_request::{Checks, Guarded, Update, WriteSpec};
    }
}

/// The client's internals.
pub mod client {
    use std::any::Any;
    use std::sync::Arc;
    use std::time::Duration;

    use aws_sdk_dynamodb::operation::create_table::CreateTableInput;

    pub use crate::client::RetryPolicy;
    use crate::error::Result;
    use crate::schema::{Schema, StreamView};
    pub use crate::Client;

    /// The value of type `T` this client and its clones keep, made by `Default` when first
    /// asked for.
    pub fn extension<T: Any + Send + Sync + Default>(client: &Client) -> Arc<T> {
        client.extensions().get_or_default::<T>()
    }

    /// The retry policy of the requests dynorm retries itself.
    pub fn retry_policy(client: &Client) -> RetryPolicy {
        client.retry_policy()
    }

    /// The wait before attempt `attempt` (counted from 1 for the first retry) under
    /// `policy`: exponential backoff with full jitter.
    pub fn retry_delay(policy: &RetryPolicy, attempt: u32) -> Duration {
        policy.waits().delay(attempt)
    }

    /// The full table name of a schema.
    pub fn table_name_of(client: &Client, schema: &Schema) -> String {
        client.table_name_of(schema)
    }

    /// Polls `DescribeTable` until table `name` is `ACTIVE`, for at most `timeout`.
    pub async fn wait_for_table(client: &Client, name: &str, timeout: Duration) -> Result<()> {
        client.wait_for_table(name, timeout).await
    }

    /// Sends a `CreateTable` input.
    pub async fn send_create_table(client: &Client, input: CreateTableInput) -> Result<()> {
        client.send_create_table(input).await
    }

    /// Creates table `table` with string keys `hash` and `range` unless it exists, and
    /// waits until it is active.
    pub async fn ensure_keyed_table(
        client: &Client,
        table: &str,
        hash: &str,
        range: &str,
    ) -> Result<()> {
        client.ensure_keyed_table(table, hash, range).await
    }

    /// Creates global index `index` of `schema`, waiting at most `wait`.
    pub async fn create_index_of(
        client: &Client,
        schema: &Schema,
        index: &str,
        wait: Duration,
    ) -> Result<crate::client::IndexCreation> {
        client.create_index_of(schema, index, wait).await
    }

    /// Deletes global index `index` of `schema`, waiting at most `wait`.
    pub async fn delete_index_of(
        client: &Client,
        schema: &Schema,
        index: &str,
        wait: Duration,
    ) -> Result<()> {
        client.delete_index_of(schema, index, wait).await
    }

    /// Turns on time to live for `schema`'s table.
    pub async fn enable_ttl_of(client: &Client, schema: &Schema) -> Result<()> {
        client.enable_ttl_of(schema).await
    }

    /// Turns on the stream of `schema`'s table.
    pub async fn enable_stream_of(
        client: &Client,
        schema: &Schema,
        view: StreamView,
    ) -> Result<()> {
        client.enable_stream_of(schema, view).await
    }

    /// Every difference between `schemas` and live table `name`.
    pub async fn differences_of(
        client: &Client,
        schemas: &[&Schema],
        name: &str,
        extra_indexes: bool,
        operation: &'static str,
    ) -> Result<Vec<crate::schema::Difference>> {
        client
            .differences_of(schemas, name, extra_indexes, operation)
            .await
    }
}

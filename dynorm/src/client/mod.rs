//! The client: an `aws_sdk_dynamodb::Client` plus the table naming rules. Configuration
//! only: every operation adds its own `impl Client` block in its own module.

mod admin;

use std::sync::Arc;

use crate::schema::{Model, Schema};

/// The entry point: wraps an SDK client and applies table naming.
///
/// The full table name of a model is `{prefix}{name}{suffix}`, computed on every call; a
/// model's own `#[dynorm(prefix, suffix)]` overrides the client's. A client is immutable
/// and cheap to clone: [`with_table_prefix`](Self::with_table_prefix) and its kin give a
/// new client that shares the SDK client.
///
/// ```no_run
/// # async fn demo() {
/// let db = dynorm::Client::from_env().await;
/// let dev = db.with_table_prefix("dev_"); // dev_User, dev_Order, ...
/// # let _ = dev; }
/// ```
#[derive(Clone, Debug)]
pub struct Client {
    sdk: aws_sdk_dynamodb::Client,
    naming: Arc<Naming>,
    /// The DynamoDB Streams client, configured like `sdk`; `None` derives one from `sdk`'s
    /// configuration when a stream is read.
    streams: Option<aws_sdk_dynamodbstreams::Client>,
}

/// The client-wide table name prefix and suffix.
#[derive(Clone, Debug, Default)]
struct Naming {
    prefix: String,
    suffix: String,
}

/// Builds a [`Client`]: `Client::builder(sdk).table_prefix("dev_").build()`.
#[derive(Clone, Debug)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct ClientBuilder {
    sdk: aws_sdk_dynamodb::Client,
    naming: Naming,
    streams: Option<aws_sdk_dynamodbstreams::Client>,
}

impl ClientBuilder {
    /// The text put before every table name.
    pub fn table_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.naming.prefix = prefix.into();
        self
    }

    /// The text put after every table name.
    pub fn table_suffix(mut self, suffix: impl Into<String>) -> Self {
        self.naming.suffix = suffix.into();
        self
    }

    /// The DynamoDB Streams client that reads change streams (`Client::changes`). Without
    /// one, it is made from the DynamoDB client's region, credentials and HTTP client, for
    /// AWS's own streams endpoint; give one for any other endpoint.
    pub fn streams_client(mut self, streams: aws_sdk_dynamodbstreams::Client) -> Self {
        self.streams = Some(streams);
        self
    }

    /// The client.
    pub fn build(self) -> Client {
        Client {
            sdk: self.sdk,
            naming: Arc::new(self.naming),
            streams: self.streams,
        }
    }
}

impl Client {
    /// Wraps an SDK client you configured yourself, with no table prefix or suffix.
    pub fn new(sdk: aws_sdk_dynamodb::Client) -> Self {
        Self::builder(sdk).build()
    }

    /// A builder, for a client with a table prefix or suffix.
    pub fn builder(sdk: aws_sdk_dynamodb::Client) -> ClientBuilder {
        ClientBuilder {
            sdk,
            naming: Naming::default(),
            streams: None,
        }
    }

    /// Builds the SDK client from the environment, the standard aws-config way
    /// (`AWS_REGION`, `AWS_PROFILE`, `AWS_ENDPOINT_URL_DYNAMODB`, ...).
    pub async fn from_env() -> Self {
        let config = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
        Self::builder(aws_sdk_dynamodb::Client::new(&config))
            .streams_client(aws_sdk_dynamodbstreams::Client::new(&config))
            .build()
    }

    /// The SDK client, for anything dynorm does not cover.
    pub fn sdk(&self) -> &aws_sdk_dynamodb::Client {
        &self.sdk
    }

    /// The DynamoDB Streams client given to the builder, if any.
    pub fn streams_sdk(&self) -> Option<&aws_sdk_dynamodbstreams::Client> {
        self.streams.as_ref()
    }

    /// The DynamoDB Streams client: the one given to the builder, or one made from the
    /// environment (as [`from_env`](Self::from_env) does) with the DynamoDB client's region
    /// and HTTP client, for AWS's own streams endpoint.
    pub(crate) async fn streams_client(&self) -> aws_sdk_dynamodbstreams::Client {
        if let Some(streams) = &self.streams {
            return streams.clone();
        }
        let shared = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
        let config = self.sdk.config();
        let mut builder = aws_sdk_dynamodbstreams::config::Builder::from(&shared);
        if let Some(region) = config.region() {
            builder.set_region(Some(region.clone()));
        }
        if let Some(http) = config.http_client() {
            builder.set_http_client(Some(http));
        }
        aws_sdk_dynamodbstreams::Client::from_conf(builder.build())
    }

    /// The table name prefix.
    pub fn table_prefix(&self) -> &str {
        &self.naming.prefix
    }

    /// The table name suffix.
    pub fn table_suffix(&self) -> &str {
        &self.naming.suffix
    }

    /// A client with another SDK client (other settings, interceptors, ...) and this
    /// client's table naming.
    pub fn with_sdk(&self, sdk: aws_sdk_dynamodb::Client) -> Self {
        Self {
            sdk,
            naming: self.naming.clone(),
            streams: self.streams.clone(),
        }
    }

    /// A client sharing the SDK client and the suffix, with table prefix `prefix`.
    pub fn with_table_prefix(&self, prefix: impl Into<String>) -> Self {
        let naming = Naming {
            prefix: prefix.into(),
            suffix: self.naming.suffix.clone(),
        };
        Self {
            sdk: self.sdk.clone(),
            naming: Arc::new(naming),
            streams: self.streams.clone(),
        }
    }

    /// A client sharing the SDK client and the prefix, with table suffix `suffix`.
    pub fn with_table_suffix(&self, suffix: impl Into<String>) -> Self {
        let naming = Naming {
            prefix: self.naming.prefix.clone(),
            suffix: suffix.into(),
        };
        Self {
            sdk: self.sdk.clone(),
            naming: Arc::new(naming),
            streams: self.streams.clone(),
        }
    }

    /// The full table name of `M`: `{prefix}{name}{suffix}`.
    pub fn table_name<M: Model>(&self) -> String {
        self.table_name_of(&M::SCHEMA)
    }

    /// The full table name of a schema.
    pub(crate) fn table_name_of(&self, schema: &Schema) -> String {
        let prefix = schema.table_prefix.unwrap_or(&self.naming.prefix);
        let suffix = schema.table_suffix.unwrap_or(&self.naming.suffix);
        let mut name = String::with_capacity(prefix.len() + schema.table.len() + suffix.len());
        name.push_str(prefix);
        name.push_str(schema.table);
        name.push_str(suffix);
        name
    }
}

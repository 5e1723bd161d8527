//! The client: an `aws_sdk_dynamodb::Client` plus the table naming rules. Configuration
//! only: every operation adds its own `impl Client` block in its own module.

mod admin;
mod lifecycle;
#[cfg(feature = "streams")]
mod streams;

use std::sync::{Arc, OnceLock};

use crate::schema::{Model, Schema};

use self::lifecycle::Creating;
pub use self::lifecycle::IndexCreation;

#[cfg(feature = "streams")]
use self::streams::{Streams, StreamsProbe};
pub use crate::batch::retry::RetryPolicy;
use crate::query::CursorKey;

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
    /// `sdk` with the SDK's retries off, made when first needed: for the requests dynorm
    /// retries itself under its [`RetryPolicy`].
    once: Arc<OnceLock<aws_sdk_dynamodb::Client>>,
    naming: Arc<Naming>,
    /// The indexes this client and its clones are creating, which reads refuse.
    creating: Arc<Creating>,
    /// The DynamoDB Streams client: given to the builder, or made once from `sdk`'s
    /// configuration by the first stream read.
    #[cfg(feature = "streams")]
    streams: Streams,
}

/// The client-wide table name prefix and suffix, the key that seals page cursors, and the
/// retry policy when one was set.
#[derive(Clone, Debug, Default)]
struct Naming {
    prefix: String,
    suffix: String,
    cursor_key: Option<CursorKey>,
    retry: Option<RetryPolicy>,
}

/// Builds a [`Client`]: `Client::builder(sdk).table_prefix("dev_").build()`.
#[derive(Clone, Debug)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct ClientBuilder {
    sdk: aws_sdk_dynamodb::Client,
    naming: Naming,
    #[cfg(feature = "streams")]
    streams: Streams,
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

    /// A secret of the application's that seals page cursors, for cursors that leave the
    /// service: their key values are encrypted and authenticated (XChaCha20-Poly1305, with
    /// a key derived from this secret by HKDF-SHA256), so whoever holds a cursor cannot
    /// read them, and a cursor changed by its holder, made without the key or with
    /// another, is refused before anything is sent. Every instance that reads a cursor
    /// needs the key that made it.
    ///
    /// The key must be a random secret of at least 32 bytes (`openssl rand 32`, say):
    /// anyone holding a cursor can test guesses of the key against it offline, so a short
    /// or guessable one is refused here, with a `Config` error.
    ///
    /// Without a key, a cursor carries a checksum that catches accidents, not forgeries,
    /// and its key values (an email in a key, say) are readable by whoever holds it.
    /// With or without a key, a cursor is bound to the table, index, model and partition
    /// (or scan segment) it pages, and refused anywhere else.
    pub fn cursor_key(mut self, key: impl AsRef<[u8]>) -> crate::Result<Self> {
        self.naming.cursor_key = Some(CursorKey::new(key.as_ref())?);
        Ok(self)
    }

    /// How dynorm retries the requests it sends again itself: a batch chunk makes at most
    /// `max_attempts` HTTP attempts in all, and so does each request of the change
    /// consumer (see [`RetryPolicy`]). Without it, the policy is the SDK client's own
    /// `RetryConfig` (3 attempts by default), so that retries are configured in one place.
    pub fn retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.naming.retry = Some(policy);
        self
    }

    /// The DynamoDB Streams client that reads change streams (`Client::changes`), used as
    /// is.
    ///
    /// Without one, the client makes its own once, when it first reads a stream, from the
    /// DynamoDB client's configuration and never from the process environment: the same
    /// credentials (the DynamoDB client's credentials provider, resolved through its
    /// identity cache), identity cache, region, HTTP client, sleep implementation, time
    /// source, retry, timeout and stalled-stream settings, FIPS and dual-stack settings,
    /// auth scheme preference, app name, clock skew setting, interceptors and retry
    /// classifiers. Settings the DynamoDB client takes from the SDK's defaults for its
    /// behavior version are copied as they are in effect. The endpoint URL is copied too,
    /// unless it is one of AWS's own DynamoDB endpoints (`*.amazonaws.com`, `*.api.aws`,
    /// ...), which do not serve DynamoDB Streams: then AWS's streams endpoint for the
    /// region is used. A custom endpoint (DynamoDB Local, an emulator) serves both.
    #[cfg(feature = "streams")]
    #[cfg_attr(docsrs, doc(cfg(feature = "streams")))]
    pub fn streams_client(mut self, streams: aws_sdk_dynamodbstreams::Client) -> Self {
        self.streams = Streams::Given(streams);
        self
    }

    /// The client.
    pub fn build(self) -> Client {
        Client {
            sdk: self.sdk,
            once: Arc::default(),
            naming: Arc::new(self.naming),
            creating: Arc::default(),
            #[cfg(feature = "streams")]
            streams: self.streams,
        }
    }
}

impl Client {
    /// Wraps an SDK client you configured yourself, with no table prefix or suffix.
    pub fn new(sdk: aws_sdk_dynamodb::Client) -> Self {
        Self::builder(sdk).build()
    }

    /// A client that is never sent anything: for unit tests of what builders plan.
    #[cfg(test)]
    pub(crate) fn offline() -> Self {
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
            .region(aws_sdk_dynamodb::config::Region::new("us-east-1"))
            .build();
        Self::new(aws_sdk_dynamodb::Client::from_conf(config))
    }

    /// A builder, for a client with a table prefix or suffix.
    pub fn builder(sdk: aws_sdk_dynamodb::Client) -> ClientBuilder {
        ClientBuilder {
            sdk,
            naming: Naming::default(),
            #[cfg(feature = "streams")]
            streams: Streams::derived(),
        }
    }

    /// Builds the SDK client from the environment, the standard aws-config way
    /// (`AWS_REGION`, `AWS_PROFILE`, `AWS_ENDPOINT_URL_DYNAMODB`, ...), and, with the
    /// `streams` feature, the DynamoDB Streams client from the same loaded configuration
    /// (so that `AWS_ENDPOINT_URL_DYNAMODBSTREAMS` applies to it). The only place dynorm
    /// reads the environment.
    #[cfg(feature = "aws-config")]
    #[cfg_attr(docsrs, doc(cfg(feature = "aws-config")))]
    pub async fn from_env() -> Self {
        let config = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
        let builder = Self::builder(aws_sdk_dynamodb::Client::new(&config));
        #[cfg(feature = "streams")]
        let builder = builder.streams_client(aws_sdk_dynamodbstreams::Client::new(&config));
        builder.build()
    }

    /// The SDK client, for anything dynorm does not cover.
    pub fn sdk(&self) -> &aws_sdk_dynamodb::Client {
        &self.sdk
    }

    /// The DynamoDB Streams client that reads change streams: the one given to
    /// [`ClientBuilder::streams_client`], or the one this client made from the DynamoDB
    /// client's configuration (credentials, identity cache, region, endpoint URL unless it
    /// is AWS's, HTTP client, retry and timeout settings, interceptors, ...; the builder
    /// method lists them) when it first read a stream. `None` before that first read when
    /// none was given: the credentials provider is reachable only from a request the
    /// DynamoDB client sends, and the client makes it from the `DescribeTable` request a
    /// stream read starts with.
    #[cfg(feature = "streams")]
    #[cfg_attr(docsrs, doc(cfg(feature = "streams")))]
    pub fn streams_sdk(&self) -> Option<&aws_sdk_dynamodbstreams::Client> {
        self.streams.get()
    }

    /// While no streams client is made, the interceptor that makes it from the DynamoDB
    /// client's configuration: put it on a request of that client (stream reads put it on
    /// their `DescribeTable`).
    #[cfg(feature = "streams")]
    pub(crate) fn streams_probe(&self) -> Option<StreamsProbe> {
        self.streams.probe(&self.sdk)
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
    /// client's table naming. With the `streams` feature, a streams client given to the
    /// builder is kept; otherwise the new client makes its own from `sdk`'s configuration.
    pub fn with_sdk(&self, sdk: aws_sdk_dynamodb::Client) -> Self {
        Self {
            sdk,
            once: Arc::default(),
            naming: self.naming.clone(),
            creating: self.creating.clone(),
            #[cfg(feature = "streams")]
            streams: self.streams.for_other_sdk(),
        }
    }

    /// A client sharing the SDK client and the suffix, with table prefix `prefix`.
    pub fn with_table_prefix(&self, prefix: impl Into<String>) -> Self {
        let naming = Naming {
            prefix: prefix.into(),
            ..(*self.naming).clone()
        };
        Self {
            naming: Arc::new(naming),
            ..self.clone()
        }
    }

    /// A client sharing the SDK client and the prefix, with table suffix `suffix`.
    pub fn with_table_suffix(&self, suffix: impl Into<String>) -> Self {
        let naming = Naming {
            suffix: suffix.into(),
            ..(*self.naming).clone()
        };
        Self {
            naming: Arc::new(naming),
            ..self.clone()
        }
    }

    /// A client sharing the SDK client and the table naming, whose page cursors are sealed
    /// with `key`, as [`ClientBuilder::cursor_key`] sets it (and refuses a key shorter
    /// than 32 bytes).
    pub fn with_cursor_key(&self, key: impl AsRef<[u8]>) -> crate::Result<Self> {
        let naming = Naming {
            cursor_key: Some(CursorKey::new(key.as_ref())?),
            ..(*self.naming).clone()
        };
        Ok(Self {
            naming: Arc::new(naming),
            ..self.clone()
        })
    }

    /// A client sharing the SDK client and the table naming, whose requests that dynorm
    /// retries itself follow `policy`, as [`ClientBuilder::retry_policy`] sets it.
    pub fn with_retry_policy(&self, policy: RetryPolicy) -> Self {
        let naming = Naming {
            retry: Some(policy),
            ..(*self.naming).clone()
        };
        Self {
            naming: Arc::new(naming),
            ..self.clone()
        }
    }

    /// The retry policy of the requests dynorm retries itself: the one set on the client,
    /// or else the SDK client's `RetryConfig` (the SDK's standard one when it has none).
    pub fn retry_policy(&self) -> RetryPolicy {
        match (self.naming.retry, self.sdk.config().retry_config()) {
            (Some(policy), _) => policy,
            (None, Some(config)) => RetryPolicy::from_sdk(config),
            (None, None) => RetryPolicy::default(),
        }
    }

    /// The SDK client with its own retries off, for a request that dynorm retries itself,
    /// so that its attempts are the [`RetryPolicy`]'s alone.
    pub(crate) fn sdk_once(&self) -> &aws_sdk_dynamodb::Client {
        self.once.get_or_init(|| {
            let config = self
                .sdk
                .config()
                .to_builder()
                .retry_config(aws_sdk_dynamodb::config::retry::RetryConfig::disabled())
                .build();
            aws_sdk_dynamodb::Client::from_conf(config)
        })
    }

    /// The key that seals page cursors, if one was given.
    pub(crate) fn cursor_key(&self) -> Option<&CursorKey> {
        self.naming.cursor_key.as_ref()
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

//! [`Client`], the entry point: an SDK client plus the table naming rules, the cursor key
//! and the retry policy, and [`ClientBuilder`], which makes one.

use std::sync::{Arc, OnceLock};

use super::creating::Creating;
use super::extensions::Extensions;
use crate::batch::retry::RetryPolicy;
use crate::query::CursorKey;
use crate::schema::{Model, Schema};

/// The entry point: wraps an SDK client and applies table naming.
///
/// The full table name of a model is `{prefix}{name}{suffix}`, computed on every call; a
/// model's own `#[dynorm(prefix, suffix)]` overrides the client's. A client is immutable
/// and cheap to clone: [`to_builder`](Self::to_builder) makes another that shares the SDK
/// client. Every method makes a builder of one operation, ended by a verb (`send`, `all`,
/// `page`, `stream`, ...); [`tables`](Self::tables) administers tables and indexes.
#[derive(Clone, Debug)]
pub struct Client {
    pub(super) sdk: aws_sdk_dynamodb::Client,
    /// `sdk` with the SDK's retries off, made when first needed: for the requests dynorm
    /// retries itself under its [`RetryPolicy`].
    once: Arc<OnceLock<aws_sdk_dynamodb::Client>>,
    naming: Arc<Naming>,
    /// The indexes this client and its clones are creating, which reads refuse.
    pub(super) creating: Arc<Creating>,
    /// What satellite crates keep for this client and its clones (the DynamoDB Streams
    /// client `dynorm-streams` makes, say); fresh for another SDK client.
    extensions: Arc<Extensions>,
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
    /// Set by [`Client::to_builder`]: the list of indexes being created, shared.
    creating: Option<Arc<Creating>>,
    /// Set by [`Client::to_builder`] until another SDK client is given.
    extensions: Option<Arc<Extensions>>,
}

impl ClientBuilder {
    /// Another SDK client (other settings, interceptors, ...).
    pub fn sdk(mut self, sdk: aws_sdk_dynamodb::Client) -> Self {
        self.sdk = sdk;
        self.extensions = None;
        self
    }

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

    /// The client.
    pub fn build(self) -> Client {
        Client {
            sdk: self.sdk,
            once: Arc::default(),
            naming: Arc::new(self.naming),
            creating: self.creating.unwrap_or_default(),
            extensions: self.extensions.unwrap_or_default(),
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
            creating: None,
            extensions: None,
        }
    }

    /// Builds the SDK client from the environment, the standard aws-config way
    /// (`AWS_REGION`, `AWS_PROFILE`, `AWS_ENDPOINT_URL_DYNAMODB`, ...). The only place
    /// dynorm reads the environment.
    #[cfg(feature = "aws-config")]
    #[cfg_attr(docsrs, doc(cfg(feature = "aws-config")))]
    pub async fn from_env() -> Self {
        let config = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
        Self::new(aws_sdk_dynamodb::Client::new(&config))
    }

    /// The SDK client, for anything dynorm does not cover.
    pub fn sdk(&self) -> &aws_sdk_dynamodb::Client {
        &self.sdk
    }

    /// What satellite crates keep for this client and its clones.
    pub(crate) fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    /// A builder that starts from this client's settings: the SDK client, table naming,
    /// cursor key and retry policy. The client it builds shares this one's list of the
    /// indexes being created.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let db = dynorm::Client::from_env().await;
    /// let dev = db.to_builder().table_prefix("dev_").build(); // dev_User, dev_Order, ...
    /// # let _ = dev; }
    /// ```
    pub fn to_builder(&self) -> ClientBuilder {
        ClientBuilder {
            sdk: self.sdk.clone(),
            naming: (*self.naming).clone(),
            creating: Some(self.creating.clone()),
            extensions: Some(self.extensions.clone()),
        }
    }

    /// The retry policy of the requests dynorm retries itself: the one set on the client,
    /// or else the SDK client's `RetryConfig` (the SDK's standard one when it has none).
    pub(crate) fn retry_policy(&self) -> RetryPolicy {
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
    pub(crate) fn table_name<M: Model>(&self) -> String {
        self.table_name_of(&M::SCHEMA)
    }

    /// The full table name of a schema.
    pub(crate) fn table_name_of(&self, schema: &Schema) -> String {
        self.full_name(schema.table, schema.table_prefix, schema.table_suffix)
    }

    /// `table` with a prefix and suffix: the given ones, or else the client's.
    pub(crate) fn full_name(
        &self,
        table: &str,
        prefix: Option<&str>,
        suffix: Option<&str>,
    ) -> String {
        let prefix = prefix.unwrap_or(&self.naming.prefix);
        let suffix = suffix.unwrap_or(&self.naming.suffix);
        let mut name = String::with_capacity(prefix.len() + table.len() + suffix.len());
        name.push_str(prefix);
        name.push_str(table);
        name.push_str(suffix);
        name
    }
}

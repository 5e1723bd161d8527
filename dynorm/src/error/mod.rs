//! dynorm's one public error type, and the plain data some errors carry.
//!
//! This is a leaf of the crate: it knows values, and nothing above them. Helpers that
//! decode an error's item as a model live with the model traits, in `schema`.

mod cancellation;
mod service;
mod unprocessed;

pub use cancellation::CancellationReason;
pub(crate) use service::sdk_error;
pub use unprocessed::Unprocessed;

use std::error::Error as StdError;
use std::fmt;

use crate::value::{AttrError, Item};

/// What kind of failure an [`Error`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The item does not exist, where the operation required it.
    NotFound,
    /// `create` found an item with the same key.
    AlreadyExists,
    /// A condition expression failed.
    ConditionFailed,
    /// A `#[version]` check failed: another writer changed the item since it was read.
    VersionConflict,
    /// A transaction was cancelled; [`Error::cancellation_reasons`] says why, per operation.
    TransactionCanceled,
    /// A batch ran out of attempts; [`Error::unprocessed`] holds what was not done.
    BatchIncomplete,
    /// The request is invalid; found before sending, or reported by DynamoDB.
    Validation,
    /// An item could not be converted to or from the model.
    Conversion,
    /// The model, the client or the table is set up wrongly.
    Config,
    /// DynamoDB or the transport failed; [`source()`](StdError::source) is the SDK error.
    Service,
}

impl ErrorKind {
    fn label(self) -> &'static str {
        match self {
            Self::NotFound => "not found",
            Self::AlreadyExists => "already exists",
            Self::ConditionFailed => "condition failed",
            Self::VersionConflict => "version conflict",
            Self::TransactionCanceled => "transaction canceled",
            Self::BatchIncomplete => "batch incomplete",
            Self::Validation => "validation error",
            Self::Conversion => "conversion error",
            Self::Config => "configuration error",
            Self::Service => "service error",
        }
    }
}

/// An error from dynorm. Its message names the model, the operation and the attribute
/// where they are known.
///
/// ```
/// # async fn demo(db: &dynorm::Client, user: &impl dynorm::Model) -> Result<(), dynorm::Error> {
/// match db.create(user).send().await {
///     Ok(()) => {}
///     Err(e) if e.is_already_exists() => println!("taken: {e}"),
///     Err(e) => return Err(e),
/// }
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Error {
    inner: Box<Inner>,
}

#[derive(Clone)]
struct Inner {
    kind: ErrorKind,
    model: Option<&'static str>,
    operation: Option<&'static str>,
    attribute: Option<String>,
    message: String,
    item: Option<Item>,
    reasons: Vec<CancellationReason>,
    unprocessed: Option<Box<Unprocessed>>,
    source: Option<std::sync::Arc<dyn StdError + Send + Sync + 'static>>,
}

impl Error {
    /// A new error of `kind` with a message.
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            inner: Box::new(Inner {
                kind,
                model: None,
                operation: None,
                attribute: None,
                message: message.into(),
                item: None,
                reasons: Vec::new(),
                unprocessed: None,
                source: None,
            }),
        }
    }

    /// A validation error, found before sending.
    pub(crate) fn validation(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Validation, message)
    }

    /// A configuration error.
    pub(crate) fn config(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Config, message)
    }

    /// A conversion error for one attribute of a model.
    pub(crate) fn conversion(model: &'static str, attribute: &str, error: AttrError) -> Self {
        Self::new(ErrorKind::Conversion, error.message())
            .with_model(model)
            .with_attribute(error.render_path(attribute))
    }

    /// A service error, keeping the SDK error as its source.
    pub fn service<E: StdError + Send + Sync + 'static>(source: E) -> Self {
        let message = aws_sdk_dynamodb::error::DisplayErrorContext(&source).to_string();
        let mut error = Self::new(ErrorKind::Service, message);
        error.inner.source = Some(std::sync::Arc::new(source));
        error
    }

    /// Sets the model the error concerns.
    pub(crate) fn with_model(mut self, model: &'static str) -> Self {
        self.inner.model = Some(model);
        self
    }

    /// Sets the operation, unless one is already known.
    pub(crate) fn with_operation(mut self, operation: &'static str) -> Self {
        self.inner.operation.get_or_insert(operation);
        self
    }

    /// Sets the attribute the error concerns.
    pub(crate) fn with_attribute(mut self, attribute: impl Into<String>) -> Self {
        self.inner.attribute = Some(attribute.into());
        self
    }

    /// Attaches the item DynamoDB returned with the failure.
    pub(crate) fn with_item(mut self, item: Option<Item>) -> Self {
        self.inner.item = item;
        self
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.inner.kind
    }

    /// The model's Rust name, when the error concerns one.
    pub fn model(&self) -> Option<&'static str> {
        self.inner.model
    }

    /// The operation that failed, such as `get` or `create`.
    pub fn operation(&self) -> Option<&'static str> {
        self.inner.operation
    }

    /// The attribute, or the path inside one (`tags[2]`, `address.city`).
    pub fn attribute(&self) -> Option<&str> {
        self.inner.attribute.as_deref()
    }

    /// The bare message, without the model, operation and attribute.
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// The item DynamoDB returned with a failed condition, as raw attributes.
    pub fn item(&self) -> Option<&Item> {
        self.inner.item.as_ref()
    }

    /// Whether the item did not exist.
    pub fn is_not_found(&self) -> bool {
        self.kind() == ErrorKind::NotFound
    }

    /// Whether `create` found an existing item.
    pub fn is_already_exists(&self) -> bool {
        self.kind() == ErrorKind::AlreadyExists
    }

    /// Whether a `#[version]` check failed.
    pub fn is_version_conflict(&self) -> bool {
        self.kind() == ErrorKind::VersionConflict
    }

    /// Whether a transaction was cancelled.
    pub fn is_transaction_canceled(&self) -> bool {
        self.kind() == ErrorKind::TransactionCanceled
    }

    /// Why each operation of a cancelled transaction failed, in request order.
    pub fn cancellation_reasons(&self) -> &[CancellationReason] {
        &self.inner.reasons
    }

    /// What a batch could not do before its attempts ran out.
    pub fn unprocessed(&self) -> Option<&Unprocessed> {
        self.inner.unprocessed.as_deref()
    }

    pub(crate) fn with_reasons(mut self, reasons: Vec<CancellationReason>) -> Self {
        self.inner.reasons = reasons;
        self
    }

    /// Adds to the message what happened around the failure.
    pub(crate) fn with_context(mut self, context: &str) -> Self {
        self.inner.message.push_str("; ");
        self.inner.message.push_str(context);
        self
    }

    pub(crate) fn with_unprocessed(mut self, unprocessed: Unprocessed) -> Self {
        self.inner.unprocessed = Some(Box::new(unprocessed));
        self
    }

    pub(crate) fn with_source<E: StdError + Send + Sync + 'static>(mut self, source: E) -> Self {
        self.inner.source = Some(std::sync::Arc::new(source));
        self
    }

    /// Whether a condition failed.
    pub fn is_condition_failed(&self) -> bool {
        self.kind() == ErrorKind::ConditionFailed
    }

    /// Whether the request was invalid.
    pub fn is_validation(&self) -> bool {
        self.kind() == ErrorKind::Validation
    }

    /// Whether an item could not be converted.
    pub fn is_conversion(&self) -> bool {
        self.kind() == ErrorKind::Conversion
    }

    /// Whether something is set up wrongly.
    pub fn is_config(&self) -> bool {
        self.kind() == ErrorKind::Config
    }

    /// Whether DynamoDB or the transport failed.
    pub fn is_service(&self) -> bool {
        self.kind() == ErrorKind::Service
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &self.inner;
        f.write_str(inner.kind.label())?;
        if let Some(operation) = inner.operation {
            write!(f, " in `{operation}`")?;
        }
        if let Some(model) = inner.model {
            write!(f, " on model `{model}`")?;
        }
        if let Some(attribute) = &inner.attribute {
            write!(f, ", attribute `{attribute}`")?;
        }
        write!(f, ": {}", inner.message)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &self.inner;
        f.debug_struct("Error")
            .field("kind", &inner.kind)
            .field("model", &inner.model)
            .field("operation", &inner.operation)
            .field("attribute", &inner.attribute)
            .field("message", &inner.message)
            .field("has_item", &inner.item.is_some())
            .field("source", &inner.source)
            .finish()
    }
}

impl StdError for Error {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.inner
            .source
            .as_ref()
            .map(|source| &**source as &(dyn StdError + 'static))
    }
}

/// dynorm's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

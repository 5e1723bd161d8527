//! [`Error`], dynorm's one public error type: its kind, the context it names, its message
//! and its source; and [`Result`].

use std::error::Error as StdError;
use std::fmt;

use super::cancellation::CancellationReason;
use super::kind::ErrorKind;
use super::stream_record::StreamRecordRef;
use super::throttling::ThrottlingReason;
use super::unprocessed::Unprocessed;
use crate::value::{AttrError, Item};

/// An error from dynorm. Its message is one line, and names the model, the operation, the
/// table and the attribute where they are known; for an error DynamoDB returned, also
/// DynamoDB's error code and message. Such an error's [`kind`](Error::kind) comes from
/// DynamoDB's error code, and [`is_retryable`](Error::is_retryable) says whether sending
/// the request again could help.
///
/// ```
/// # async fn demo(db: &dynorm::Client, user: &impl dynorm::Model) -> Result<(), dynorm::Error> {
/// match db.create(user).send().await {
///     Ok(()) => {}
///     Err(e) if e.kind() == dynorm::ErrorKind::AlreadyExists => println!("taken: {e}"),
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
    table: Option<String>,
    attribute: Option<String>,
    index: Option<String>,
    code: Option<String>,
    message: String,
    item: Option<Item>,
    reasons: Vec<CancellationReason>,
    throttling: Vec<ThrottlingReason>,
    /// For a `Service` error: whether the failure may pass (a server fault, a timeout).
    transient: bool,
    unprocessed: Option<Box<Unprocessed>>,
    stream_record: Option<Box<StreamRecordRef>>,
    source: Option<std::sync::Arc<dyn StdError + Send + Sync + 'static>>,
}

impl Error {
    /// A new error of `kind` with a message.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            inner: Box::new(Inner {
                kind,
                model: None,
                operation: None,
                table: None,
                attribute: None,
                index: None,
                code: None,
                message: message.into(),
                item: None,
                reasons: Vec::new(),
                throttling: Vec::new(),
                transient: false,
                unprocessed: None,
                stream_record: None,
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

    /// A value of one attribute of a model that DynamoDB cannot store (a number out of
    /// its range, a set with the same element twice, a value serde cannot write): a
    /// [`ErrorKind::Validation`] error, found before sending, as every other refusal of
    /// what a write or an expression would send.
    pub(crate) fn unstorable(model: &'static str, attribute: &str, error: AttrError) -> Self {
        Self::new(ErrorKind::Validation, error.message())
            .with_model(model)
            .with_attribute(error.render_path(attribute))
    }

    /// An attribute read from DynamoDB that does not convert to the model's field.
    pub(crate) fn conversion(model: &'static str, attribute: &str, error: AttrError) -> Self {
        Self::new(ErrorKind::Conversion, error.message())
            .with_model(model)
            .with_attribute(error.render_path(attribute))
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

    /// Sets the full name of the table the error concerns.
    pub(crate) fn with_table(mut self, table: impl Into<String>) -> Self {
        self.inner.table = Some(table.into());
        self
    }

    /// Sets DynamoDB's error code.
    pub(crate) fn with_code(mut self, code: Option<String>) -> Self {
        self.inner.code = code;
        self
    }

    /// Sets whether a `Service` failure may pass.
    pub(crate) fn with_transient(mut self, transient: bool) -> Self {
        self.inner.transient = transient;
        self
    }

    pub(crate) fn with_throttling_reasons(mut self, reasons: Vec<ThrottlingReason>) -> Self {
        self.inner.throttling = reasons;
        self
    }

    /// Sets the attribute the error concerns.
    pub(crate) fn with_attribute(mut self, attribute: impl Into<String>) -> Self {
        self.inner.attribute = Some(attribute.into());
        self
    }

    /// Sets the secondary index the error concerns, unless one is already known.
    pub(crate) fn with_index(mut self, index: impl Into<String>) -> Self {
        self.inner.index.get_or_insert_with(|| index.into());
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

    /// The full name of the table, when the error concerns one.
    pub fn table(&self) -> Option<&str> {
        self.inner.table.as_deref()
    }

    /// DynamoDB's error code, such as `ProvisionedThroughputExceededException`, for an
    /// error DynamoDB returned.
    pub fn code(&self) -> Option<&str> {
        self.inner.code.as_deref()
    }

    /// The attribute, or the path inside one (`tags[2]`, `address.city`).
    pub fn attribute(&self) -> Option<&str> {
        self.inner.attribute.as_deref()
    }

    /// The secondary index, when the error concerns one (an
    /// [`IndexNotActive`](ErrorKind::IndexNotActive) error names it).
    pub fn index(&self) -> Option<&str> {
        self.inner.index.as_deref()
    }

    /// The bare message, without the model, operation, table, attribute and code.
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// The item DynamoDB returned with a failed condition, as raw attributes; for a
    /// [`UniqueConflict`](ErrorKind::UniqueConflict), the key of the item that holds the
    /// value.
    pub fn item(&self) -> Option<&Item> {
        self.inner.item.as_ref()
    }

    /// Why each operation of a cancelled transaction failed, in request order.
    pub fn cancellation_reasons(&self) -> &[CancellationReason] {
        &self.inner.reasons
    }

    /// Why DynamoDB throttled the request, for a [`Throttled`](ErrorKind::Throttled) error
    /// whose response said.
    pub fn throttling_reasons(&self) -> &[ThrottlingReason] {
        &self.inner.throttling
    }

    /// What a batch could not do before its attempts ran out.
    pub fn unprocessed(&self) -> Option<&Unprocessed> {
        self.inner.unprocessed.as_deref()
    }

    /// Where in a change stream the error happened: the shard, and the record (sequence
    /// number and event id) when there is one. Every error of a change consumer and of
    /// the Lambda handler that concerns a shard or a record has it; the message names
    /// them too.
    pub fn stream_record(&self) -> Option<&StreamRecordRef> {
        self.inner.stream_record.as_deref()
    }

    /// Sets where in a change stream the error happened, unless that is already known
    /// (for `dynorm-streams`, through `__ext`).
    pub(crate) fn set_stream_record(mut self, at: StreamRecordRef) -> Self {
        self.inner.stream_record.get_or_insert_with(|| Box::new(at));
        self
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

    /// Sets the error this one was caused by, which [`source`](StdError::source) returns.
    pub fn with_source<E: StdError + Send + Sync + 'static>(mut self, source: E) -> Self {
        self.inner.source = Some(std::sync::Arc::new(source));
        self
    }

    /// Whether the request was invalid.
    pub(crate) fn is_validation(&self) -> bool {
        self.kind() == ErrorKind::Validation
    }

    /// Whether DynamoDB throttled the request.
    pub(crate) fn is_throttled(&self) -> bool {
        self.kind() == ErrorKind::Throttled
    }

    /// Whether sending the same request again, later, could succeed: yes for throttling, a
    /// transaction conflict, a server fault (HTTP 5xx), a timeout or a failed connection, a
    /// transaction cancelled only by conflicts or throttling, and a batch left incomplete
    /// by such failures; no for a validation error, a missing table, a failed condition or
    /// a version conflict, which fail again until something else changes.
    pub fn is_retryable(&self) -> bool {
        match self.kind() {
            ErrorKind::Throttled | ErrorKind::TransactionConflict | ErrorKind::IndexNotActive => {
                true
            }
            ErrorKind::Service => self.inner.transient,
            ErrorKind::TransactionCanceled => {
                let mut failures = self.inner.reasons.iter().filter(|r| r.is_failure());
                let mut any = false;
                let passing = failures.all(|r| {
                    any = true;
                    matches!(
                        r.code.as_str(),
                        "TransactionConflict" | "ThrottlingError" | "ProvisionedThroughputExceeded"
                    )
                });
                any && passing
            }
            // What a batch hands back was left by throttling, unless its last failure
            // says otherwise.
            ErrorKind::BatchIncomplete => self
                .inner
                .source
                .as_deref()
                .and_then(|s| (s as &(dyn StdError + 'static)).downcast_ref::<Error>())
                .is_none_or(Error::is_retryable),
            _ => false,
        }
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
        if let Some(table) = &inner.table {
            write!(f, ", table `{table}`")?;
        }
        if let Some(at) = &inner.stream_record {
            write!(f, ", {at}")?;
        }
        if let Some(index) = &inner.index {
            write!(f, ", index `{index}`")?;
        }
        if let Some(attribute) = &inner.attribute {
            write!(f, ", attribute `{attribute}`")?;
        }
        f.write_str(": ")?;
        if let Some(code) = &inner.code {
            write!(f, "{code}: ")?;
        }
        f.write_str(&inner.message)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &self.inner;
        let mut debug = f.debug_struct("Error");
        debug
            .field("kind", &inner.kind)
            .field("model", &inner.model)
            .field("operation", &inner.operation)
            .field("table", &inner.table)
            .field("attribute", &inner.attribute)
            .field("index", &inner.index)
            .field("code", &inner.code)
            .field("message", &inner.message)
            .field("retryable", &self.is_retryable())
            .field("has_item", &inner.item.is_some());
        if let Some(at) = &inner.stream_record {
            debug.field("stream_record", at);
        }
        if !inner.reasons.is_empty() {
            debug.field("cancellation_reasons", &inner.reasons);
        }
        if !inner.throttling.is_empty() {
            debug.field("throttling_reasons", &inner.throttling);
        }
        if let Some(unprocessed) = &inner.unprocessed {
            debug.field("unprocessed", &unprocessed.len());
        }
        // The source's Display, not its Debug: an SDK error's Debug is the whole HTTP
        // exchange.
        debug
            .field("source", &inner.source.as_ref().map(|s| Shown(&**s)))
            .finish()
    }
}

/// A source error, shown by the Display of it and of its own sources, as in
/// `"service error: ResourceNotFoundException: Requested resource not found"`.
struct Shown<'a>(&'a (dyn StdError + Send + Sync + 'static));

impl fmt::Debug for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut shown = self.0.to_string();
        let mut last = shown.clone();
        let mut cause = self.0.source();
        while let Some(error) = cause {
            let text = error.to_string();
            // Wrappers often repeat their cause's words; say each once.
            if !last.contains(&text) {
                shown.push_str(": ");
                shown.push_str(&text);
            }
            last = text;
            cause = error.source();
        }
        fmt::Debug::fmt(&shown, f)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(index: usize, code: &str) -> CancellationReason {
        CancellationReason {
            index,
            operation: "update",
            model: "Account",
            code: code.to_owned(),
            message: None,
            kind: None,
            item: None,
        }
    }

    fn canceled(codes: &[&str]) -> Error {
        Error::new(ErrorKind::TransactionCanceled, "cancelled").with_reasons(
            codes
                .iter()
                .enumerate()
                .map(|(i, code)| reason(i, code))
                .collect(),
        )
    }

    #[test]
    fn failures_that_fail_again_are_not_retryable() {
        for kind in [
            ErrorKind::NotFound,
            ErrorKind::AlreadyExists,
            ErrorKind::ConditionFailed,
            ErrorKind::VersionConflict,
            ErrorKind::Validation,
            ErrorKind::TableNotFound,
            ErrorKind::Conversion,
            ErrorKind::Config,
            ErrorKind::ItemCollectionTooLarge,
            ErrorKind::IdempotencyMismatch,
            ErrorKind::Service,
        ] {
            assert!(!Error::new(kind, "x").is_retryable(), "{kind:?}");
        }
        assert!(Error::new(ErrorKind::Service, "x")
            .with_transient(true)
            .is_retryable());
        assert!(Error::new(ErrorKind::Throttled, "x").is_retryable());
        assert!(Error::new(ErrorKind::TransactionConflict, "x").is_retryable());
    }

    #[test]
    fn a_cancelled_transaction_is_retryable_only_when_every_failure_may_pass() {
        assert!(canceled(&["None", "TransactionConflict"]).is_retryable());
        assert!(canceled(&["ThrottlingError", "ProvisionedThroughputExceeded"]).is_retryable());
        assert!(!canceled(&["ConditionalCheckFailed", "TransactionConflict"]).is_retryable());
        assert!(!canceled(&["None", "ValidationError"]).is_retryable());
        assert!(!canceled(&[]).is_retryable());
    }

    #[test]
    fn an_incomplete_batch_is_as_retryable_as_its_last_failure() {
        let incomplete = || Error::new(ErrorKind::BatchIncomplete, "3 keys were not read");
        assert!(incomplete().is_retryable(), "only unprocessed items");
        assert!(incomplete()
            .with_source(Error::new(ErrorKind::Throttled, "slow down"))
            .is_retryable());
        assert!(!incomplete()
            .with_source(Error::validation("bad request"))
            .is_retryable());
    }

    #[test]
    fn a_stream_error_names_its_shard_and_record_in_the_message_and_as_data() {
        let at = StreamRecordRef::record("arn:stream", Some("shardId-1"), "42", "e1");
        let error = Error::new(ErrorKind::Conversion, "missing field `balance`")
            .with_model("Account")
            .with_operation("changes")
            .with_table("dev_Account")
            .set_stream_record(at.clone())
            .set_stream_record(StreamRecordRef::shard("arn:stream", "shardId-2"));
        assert_eq!(
            error.to_string(),
            "conversion error in `changes` on model `Account`, table `dev_Account`, \
             shard `shardId-1`, sequence number `42`, event `e1`: missing field `balance`"
        );
        assert_eq!(
            error.stream_record(),
            Some(&at),
            "the first place set stays"
        );
        let shard = Error::new(ErrorKind::Service, "x")
            .set_stream_record(StreamRecordRef::shard("arn:stream", "shardId-2"));
        assert_eq!(shard.to_string(), "service error, shard `shardId-2`: x");
        let lambda = Error::new(ErrorKind::Conversion, "x")
            .set_stream_record(StreamRecordRef::record("arn", None, "7", "e"));
        assert_eq!(
            lambda.to_string(),
            "conversion error, sequence number `7`, event `e`: x"
        );
        assert_eq!(lambda.stream_record().unwrap().shard_id(), None);
    }

    #[test]
    fn display_is_one_line_with_table_and_code_and_debug_shows_the_fields() {
        let error = Error::new(ErrorKind::Throttled, "The level was exceeded")
            .with_model("User")
            .with_operation("query")
            .with_table("dev_User")
            .with_code(Some("ProvisionedThroughputExceededException".into()))
            .with_throttling_reasons(vec![ThrottlingReason {
                reason: "TableReadProvisionedThroughputExceeded".into(),
                resource: None,
            }]);
        assert_eq!(
            error.to_string(),
            "throttled in `query` on model `User`, table `dev_User`: \
             ProvisionedThroughputExceededException: The level was exceeded"
        );
        let debug = format!("{error:?}");
        for part in [
            "Throttled",
            "dev_User",
            "ProvisionedThroughputExceededException",
            "retryable: true",
            "TableReadProvisionedThroughputExceeded",
        ] {
            assert!(debug.contains(part), "{part} in {debug}");
        }
    }
}

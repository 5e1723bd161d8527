//! Errors the SDK returns, turned into dynorm errors.
//!
//! This is the one place that reads DynamoDB's error codes: [`from_sdk`] gives every SDK
//! error a kind, a one-line message and whether retrying could help, and every request
//! dynorm sends goes through it.

use std::error::Error as StdError;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::types::error::{
    ProvisionedThroughputExceededException, RequestLimitExceeded, ThrottlingException,
};

use crate::error::{Error, ErrorKind, ThrottlingReason};

/// The longest message taken from the service or the transport; longer ones are cut.
const MAX_MESSAGE: usize = 300;

impl Error {
    /// An error from an SDK error, for requests sent with [`Client::sdk`](crate::Client::sdk):
    /// its kind from DynamoDB's error code, as for dynorm's own requests, and the SDK error
    /// as its source.
    pub fn service<E>(error: SdkError<E, HttpResponse>) -> Self
    where
        E: ProvideErrorMetadata + StdError + Send + Sync + 'static,
    {
        from_sdk(error)
    }
}

/// Turns an SDK error into a dynorm error naming the model, the operation and the table.
pub fn sdk_error<E>(
    error: SdkError<E, HttpResponse>,
    model: &'static str,
    operation: &'static str,
    table: &str,
) -> Error
where
    E: ProvideErrorMetadata + StdError + Send + Sync + 'static,
{
    from_sdk(error)
        .with_model(model)
        .with_operation(operation)
        .with_table(table)
}

/// Turns an SDK error into a dynorm error: a kind from DynamoDB's error code, a one-line
/// message (never the raw HTTP exchange), whether retrying could help, and the SDK error
/// as the source.
pub fn from_sdk<E>(error: SdkError<E, HttpResponse>) -> Error
where
    E: ProvideErrorMetadata + StdError + Send + Sync + 'static,
{
    let (kind, code, message, transient, throttling) = match &error {
        SdkError::ServiceError(service) => {
            let err = service.err();
            let status = service.raw().status().as_u16();
            let code = err.code().map(str::to_owned);
            let (kind, transient) = classify(code.as_deref(), status);
            let message = service_message(err, code.as_deref())
                .unwrap_or_else(|| default_message(kind, status));
            let kind = match backfilling_index(kind, &message) {
                Some(_) => ErrorKind::IndexNotActive,
                None => kind,
            };
            let throttling = if kind == ErrorKind::Throttled {
                throttling_reasons(err)
            } else {
                Vec::new()
            };
            (kind, code, message, transient, throttling)
        }
        SdkError::TimeoutError(_) => (
            ErrorKind::Service,
            None,
            described("the request timed out", &error),
            true,
            Vec::new(),
        ),
        SdkError::DispatchFailure(failure) => {
            let (what, transient) = if failure.is_timeout() {
                ("the request timed out", true)
            } else if failure.is_user() {
                ("the request could not be sent", false)
            } else {
                ("the request could not be sent", true)
            };
            (
                ErrorKind::Service,
                None,
                described(what, &error),
                transient,
                Vec::new(),
            )
        }
        SdkError::ResponseError(_) => (
            ErrorKind::Service,
            None,
            described("the response could not be read", &error),
            true,
            Vec::new(),
        ),
        _ => (
            ErrorKind::Service,
            None,
            described("the request could not be built", &error),
            false,
            Vec::new(),
        ),
    };
    let index = backfilling_index(kind, &message).flatten();
    let error = Error::new(kind, message)
        .with_code(code)
        .with_transient(transient)
        .with_throttling_reasons(throttling)
        .with_source(error);
    match index {
        Some(index) => error.with_index(index),
        None => error,
    }
}

/// The kind of a service error with this code and HTTP status, and whether the failure
/// may pass (so that retrying could help).
fn classify(code: Option<&str>, status: u16) -> (ErrorKind, bool) {
    match code.unwrap_or_default() {
        "ValidationException" => (ErrorKind::Validation, false),
        "ResourceNotFoundException" => (ErrorKind::TableNotFound, false),
        "ThrottlingException"
        | "ProvisionedThroughputExceededException"
        | "RequestLimitExceeded"
        // DynamoDB Streams' throttling of GetRecords and DescribeStream.
        | "LimitExceededException" => (ErrorKind::Throttled, true),
        "TransactionConflictException" => (ErrorKind::TransactionConflict, true),
        "TransactionCanceledException" => (ErrorKind::TransactionCanceled, false),
        "ConditionalCheckFailedException" => (ErrorKind::ConditionFailed, false),
        "ItemCollectionSizeLimitExceededException" => (ErrorKind::ItemCollectionTooLarge, false),
        "IdempotentParameterMismatchException" => (ErrorKind::IdempotencyMismatch, false),
        // Another request with the same client token is running; once it ends, the same
        // request gets its result.
        "TransactionInProgressException" => (ErrorKind::Service, true),
        "InternalServerError" | "ServiceUnavailable" => (ErrorKind::Service, true),
        "TrimmedDataAccessException" => (ErrorKind::StreamTrimmed, false),
        _ => (ErrorKind::Service, status >= 500),
    }
}

/// What DynamoDB says when a query or scan reads a global index it is still backfilling.
const BACKFILLING: &str = "Cannot read from backfilling global secondary index";

/// For DynamoDB's refusal to read an index it is still backfilling: `Some`, with the
/// index's name when the message gives it.
fn backfilling_index(kind: ErrorKind, message: &str) -> Option<Option<String>> {
    if !matches!(kind, ErrorKind::Validation | ErrorKind::IndexNotActive) {
        return None;
    }
    let rest = &message[message.find(BACKFILLING)? + BACKFILLING.len()..];
    let name = rest
        .trim_start_matches([':', ' '])
        .split_whitespace()
        .next();
    Some(name.map(|n| n.trim_end_matches(['.', ',']).to_owned()))
}

/// The message of a service error: from its metadata, or else from the modelled
/// exception, whose Display is `Code: message`.
fn service_message<E>(error: &E, code: Option<&str>) -> Option<String>
where
    E: ProvideErrorMetadata + StdError,
{
    let message = match error.message() {
        Some(message) => one_line(message),
        None => {
            let shown = error.to_string();
            let code = code?;
            one_line(shown.strip_prefix(code)?.strip_prefix(':')?)
        }
    };
    (!message.is_empty()).then_some(message)
}

/// The message of a service error that came without one.
fn default_message(kind: ErrorKind, status: u16) -> String {
    match kind {
        ErrorKind::Throttled => "the request was throttled".to_owned(),
        ErrorKind::TableNotFound => "the table does not exist".to_owned(),
        _ => format!("HTTP status {status}"),
    }
}

/// DynamoDB's `ThrottlingReasons`, from whichever throttling exception `error` is or holds.
fn throttling_reasons<E: StdError + 'static>(error: &E) -> Vec<ThrottlingReason> {
    let exceptions = [Some(error as &(dyn StdError + 'static)), error.source()];
    let reasons = exceptions.into_iter().flatten().find_map(|e| {
        if let Some(e) = e.downcast_ref::<ProvisionedThroughputExceededException>() {
            Some(e.throttling_reasons())
        } else if let Some(e) = e.downcast_ref::<ThrottlingException>() {
            Some(e.throttling_reasons())
        } else {
            e.downcast_ref::<RequestLimitExceeded>()
                .map(RequestLimitExceeded::throttling_reasons)
        }
    });
    reasons
        .unwrap_or_default()
        .iter()
        .map(|r| ThrottlingReason {
            reason: r.reason().unwrap_or_default().to_owned(),
            resource: r.resource().map(str::to_owned),
        })
        .collect()
}

/// `what`, then the causes below the SDK error, on one line: `the request timed out:
/// operation attempt timeout occurred after 1s`.
fn described(what: &str, error: &(dyn StdError + 'static)) -> String {
    let mut message = what.to_owned();
    let mut cause = error.source();
    let mut last = String::new();
    while let Some(e) = cause {
        let text = one_line(&e.to_string());
        // Wrappers often repeat their cause's words; say each once.
        if !text.is_empty() && !last.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        last = text;
        cause = e.source();
        if message.len() > MAX_MESSAGE {
            break;
        }
    }
    one_line(&message)
}

/// `text` on one line, without control characters, cut to [`MAX_MESSAGE`] bytes.
fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(MAX_MESSAGE));
    for word in text.split(|c: char| c.is_whitespace() || c.is_control()) {
        if word.is_empty() {
            continue;
        }
        if out.len() + word.len() + 1 > MAX_MESSAGE {
            out.push_str(" …");
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    use aws_sdk_dynamodb::error::ConnectorError;
    use aws_sdk_dynamodb::error::ErrorMetadata;
    use aws_sdk_dynamodb::operation::get_item::GetItemError;
    use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
    use aws_sdk_dynamodb::types::error::{
        InternalServerError, ResourceNotFoundException, TransactionConflictException,
    };
    use aws_smithy_types::body::SdkBody;

    fn response(status: u16) -> HttpResponse {
        let mut response = HttpResponse::new(status.try_into().unwrap(), SdkBody::from("{}"));
        response
            .headers_mut()
            .insert("x-amzn-requestid", "REQUEST-ID-THAT-MUST-NOT-SHOW");
        response
    }

    fn get_error(error: GetItemError, status: u16) -> Error {
        sdk_error(
            SdkError::service_error(error, response(status)),
            "User",
            "get",
            "dev_User",
        )
    }

    fn unhandled(code: &str, message: &str) -> GetItemError {
        GetItemError::generic(ErrorMetadata::builder().code(code).message(message).build())
    }

    const THROTTLED: &str = "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.";

    #[test]
    fn throttling_is_its_own_kind_with_a_one_line_message_and_its_reasons() {
        let reason = aws_sdk_dynamodb::types::ThrottlingReason::builder()
            .reason("TableReadProvisionedThroughputExceeded")
            .resource("arn:aws:dynamodb:us-east-1:123456789012:table/dev_User")
            .build();
        let exception = ProvisionedThroughputExceededException::builder()
            .message(THROTTLED)
            .throttling_reasons(reason)
            .meta(
                ErrorMetadata::builder()
                    .code("ProvisionedThroughputExceededException")
                    .message(THROTTLED)
                    .build(),
            )
            .build();
        let error = get_error(
            GetItemError::ProvisionedThroughputExceededException(exception),
            400,
        );
        assert_eq!(error.kind(), ErrorKind::Throttled);
        assert!(error.is_throttled() && error.is_retryable());
        assert_eq!(error.table(), Some("dev_User"));
        assert_eq!(error.code(), Some("ProvisionedThroughputExceededException"));
        assert_eq!(error.message(), THROTTLED);
        assert_eq!(
            error.to_string(),
            format!(
                "throttled in `get` on model `User`, table `dev_User`: \
                 ProvisionedThroughputExceededException: {THROTTLED}"
            )
        );
        assert_eq!(
            error.throttling_reasons(),
            [ThrottlingReason {
                reason: "TableReadProvisionedThroughputExceeded".into(),
                resource: Some("arn:aws:dynamodb:us-east-1:123456789012:table/dev_User".into()),
            }]
        );
        assert!(error.source().is_some(), "the SDK error stays the source");
    }

    #[test]
    fn throttling_codes_the_operation_does_not_model_are_throttling_too() {
        for code in [
            "ThrottlingException",
            "RequestLimitExceeded",
            "ProvisionedThroughputExceededException",
        ] {
            let error = get_error(unhandled(code, "slow down"), 400);
            assert_eq!(error.kind(), ErrorKind::Throttled, "{code}");
            assert!(error.is_retryable(), "{code}");
            assert!(error.throttling_reasons().is_empty());
        }
    }

    #[test]
    fn a_missing_table_is_named() {
        let exception = ResourceNotFoundException::builder()
            .message("Requested resource not found")
            .meta(
                ErrorMetadata::builder()
                    .code("ResourceNotFoundException")
                    .message("Requested resource not found")
                    .build(),
            )
            .build();
        let error = get_error(GetItemError::ResourceNotFoundException(exception), 400);
        assert_eq!(error.kind(), ErrorKind::TableNotFound);
        assert!(error.kind().eq(&ErrorKind::TableNotFound) && !error.is_retryable());
        assert_eq!(
            error.to_string(),
            "table not found in `get` on model `User`, table `dev_User`: \
             ResourceNotFoundException: Requested resource not found"
        );
    }

    #[test]
    fn each_code_has_its_kind_and_retryability() {
        let cases = [
            ("ValidationException", 400, ErrorKind::Validation, false),
            (
                "TransactionConflictException",
                400,
                ErrorKind::TransactionConflict,
                true,
            ),
            (
                "ItemCollectionSizeLimitExceededException",
                400,
                ErrorKind::ItemCollectionTooLarge,
                false,
            ),
            (
                "IdempotentParameterMismatchException",
                400,
                ErrorKind::IdempotencyMismatch,
                false,
            ),
            (
                "ConditionalCheckFailedException",
                400,
                ErrorKind::ConditionFailed,
                false,
            ),
            (
                "TransactionInProgressException",
                400,
                ErrorKind::Service,
                true,
            ),
            ("InternalServerError", 500, ErrorKind::Service, true),
            ("ServiceUnavailable", 503, ErrorKind::Service, true),
            ("SomethingNew", 502, ErrorKind::Service, true),
            ("AccessDeniedException", 400, ErrorKind::Service, false),
            (
                "TrimmedDataAccessException",
                400,
                ErrorKind::StreamTrimmed,
                false,
            ),
            ("ExpiredIteratorException", 400, ErrorKind::Service, false),
            (
                "UnrecognizedClientException",
                400,
                ErrorKind::Service,
                false,
            ),
        ];
        for (code, status, kind, retryable) in cases {
            let error = get_error(unhandled(code, "what happened"), status);
            assert_eq!(
                (error.kind(), error.is_retryable()),
                (kind, retryable),
                "{code}"
            );
            assert_eq!(error.code(), Some(code));
            assert!(
                error
                    .to_string()
                    .ends_with(&format!("{code}: what happened")),
                "{error}"
            );
        }
    }

    #[test]
    fn modelled_exceptions_map_like_their_codes() {
        let conflict = TransactionConflictException::builder()
            .message("conflict")
            .meta(
                ErrorMetadata::builder()
                    .code("TransactionConflictException")
                    .build(),
            )
            .build();
        let error = from_sdk(SdkError::service_error(
            UpdateItemError::TransactionConflictException(conflict),
            response(400),
        ));
        assert!(error.kind().eq(&ErrorKind::TransactionConflict) && error.is_retryable());

        let internal = InternalServerError::builder()
            .message("Internal server error")
            .meta(ErrorMetadata::builder().code("InternalServerError").build())
            .build();
        let error = get_error(GetItemError::InternalServerError(internal), 500);
        assert_eq!(error.kind(), ErrorKind::Service);
        assert!(error.is_retryable());
        assert_eq!(
            error.to_string(),
            "service error in `get` on model `User`, table `dev_User`: \
             InternalServerError: Internal server error"
        );
    }

    #[test]
    fn a_5xx_without_a_code_says_its_status_and_nothing_of_the_body() {
        let error = get_error(GetItemError::generic(ErrorMetadata::builder().build()), 503);
        assert_eq!(error.kind(), ErrorKind::Service);
        assert!(error.is_retryable());
        assert_eq!(error.code(), None);
        assert_eq!(
            error.to_string(),
            "service error in `get` on model `User`, table `dev_User`: HTTP status 503"
        );
    }

    #[test]
    fn transport_failures_are_short_service_errors() {
        let timeout: SdkError<GetItemError, HttpResponse> =
            SdkError::timeout_error("operation attempt timeout occurred after 10ms");
        let error = from_sdk(timeout).with_operation("get");
        assert_eq!(error.kind(), ErrorKind::Service);
        assert!(error.is_retryable());
        assert_eq!(
            error.to_string(),
            "service error in `get`: the request timed out: operation attempt timeout occurred after 10ms"
        );

        let refused: SdkError<GetItemError, HttpResponse> = SdkError::dispatch_failure(
            ConnectorError::io("Connection refused (os error 111)".into()),
        );
        let error = from_sdk(refused);
        assert!(error.is_retryable());
        assert!(
            error
                .message()
                .starts_with("the request could not be sent: "),
            "{error}"
        );

        let user: SdkError<GetItemError, HttpResponse> =
            SdkError::dispatch_failure(ConnectorError::user("no endpoint".into()));
        assert!(!from_sdk(user).is_retryable());

        let unbuilt: SdkError<GetItemError, HttpResponse> =
            SdkError::construction_failure("missing table name");
        let error = from_sdk(unbuilt);
        assert!(!error.is_retryable());
        assert_eq!(
            error.message(),
            "the request could not be built: missing table name"
        );
    }

    #[test]
    fn reading_a_backfilling_index_is_index_not_active_and_names_it() {
        let error = get_error(
            unhandled(
                "ValidationException",
                "Cannot read from backfilling global secondary index: byOwner",
            ),
            400,
        );
        assert_eq!(error.kind(), ErrorKind::IndexNotActive);
        assert_eq!(error.index(), Some("byOwner"));
        assert!(error.is_retryable());
        assert!(error.to_string().contains("index `byOwner`"), "{error}");
        let other = get_error(unhandled("ValidationException", "something else"), 400);
        assert_eq!((other.kind(), other.index()), (ErrorKind::Validation, None));
    }

    #[test]
    fn messages_are_one_line_and_bounded() {
        let long = format!("line one\nline two\r\n\t{}", "x ".repeat(500));
        let error = get_error(unhandled("ValidationException", &long), 400);
        let shown = error.to_string();
        assert!(!shown.contains('\n') && !shown.contains('\r') && !shown.contains('\t'));
        assert!(error.message().starts_with("line one line two x x"));
        assert!(error.message().len() <= MAX_MESSAGE + " …".len());
        assert!(!shown.contains("REQUEST-ID-THAT-MUST-NOT-SHOW"));
        assert!(!format!("{error:?}").contains("REQUEST-ID-THAT-MUST-NOT-SHOW"));
    }
}

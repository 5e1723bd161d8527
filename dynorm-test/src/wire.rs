//! What the interceptors of the test kit share: reading a request's operation and tables,
//! turning a request into a harmless one, and replacing a response with an error of
//! DynamoDB's shape.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use aws_sdk_dynamodb::config::interceptors::BeforeDeserializationInterceptorContextMut;
use aws_sdk_dynamodb::config::ConfigBag;
use aws_sdk_dynamodb::error::BoxError;
use aws_smithy_runtime_api::http::{Request, Response};
use aws_smithy_types::body::SdkBody;
use aws_smithy_types::config_bag::{Storable, StoreReplace};
use serde_json::{json, Value};

/// The account id in the ARNs of injected errors.
const ACCOUNT: &str = "000000000000";

/// DynamoDB's message for `ProvisionedThroughputExceededException`.
const THROTTLED: &str = "The level of configured provisioned throughput for the table was \
exceeded. Consider increasing your provisioning level with the UpdateTable API.";

/// The request's `X-Amz-Target`: `DynamoDB_20120810.GetItem`,
/// `DynamoDBStreams_20120810.GetRecords`, ...
pub(super) fn target(request: &Request) -> Option<&str> {
    request.headers().get("x-amz-target")
}

/// The operation of an `X-Amz-Target`: `GetItem`, `Query`, ...
pub(super) fn operation(target: &str) -> &str {
    target.rsplit('.').next().unwrap_or_default()
}

/// The request's JSON body, or `Null` when it has none or it is not JSON.
pub(super) fn body(request: &Request) -> Value {
    request
        .body()
        .bytes()
        .and_then(|bytes| serde_json::from_slice(bytes).ok())
        .unwrap_or_default()
}

/// Replaces the request's body, and its length.
pub(super) fn set_body(request: &mut Request, body: &Value) -> Result<(), BoxError> {
    let bytes = serde_json::to_vec(body)?;
    request
        .headers_mut()
        .insert("content-length", bytes.len().to_string());
    *request.body_mut() = SdkBody::from(bytes);
    Ok(())
}

/// Turns the request into one that changes nothing and whose answer is replaced: a
/// `ListTables` (`ListStreams` for DynamoDB Streams), so that the server applies nothing.
pub(super) fn neutralize(request: &mut Request) -> Result<(), BoxError> {
    let harmless = match target(request) {
        Some(t) if t.starts_with("DynamoDBStreams_") => "DynamoDBStreams_20120810.ListStreams",
        _ => "DynamoDB_20120810.ListTables",
    };
    request.headers_mut().insert("x-amz-target", harmless);
    set_body(request, &json!({}))
}

/// An error response to put in place of the server's.
#[derive(Debug, Clone)]
pub(super) struct Answer {
    status: u16,
    body: Value,
}

impl Answer {
    /// A 400 `ProvisionedThroughputExceededException` with one of DynamoDB's
    /// `ThrottlingReasons`: `reason` when given, otherwise the read or write
    /// `ProvisionedThroughputExceeded` of the table or index `request` names, whose ARN is the
    /// reason's resource.
    pub(super) fn throttled(
        operation: &str,
        request: &Value,
        region: &str,
        reason: Option<&str>,
    ) -> Self {
        let (table, index) = resource(request);
        let reason = reason.map(str::to_owned).unwrap_or_else(|| {
            let resource = if index.is_some() { "Index" } else { "Table" };
            let access = if is_write(operation) { "Write" } else { "Read" };
            format!("{resource}{access}ProvisionedThroughputExceeded")
        });
        let mut throttling = json!({ "reason": reason });
        if let Some(table) = table {
            let mut arn = format!("arn:aws:dynamodb:{region}:{ACCOUNT}:table/{table}");
            if let Some(index) = index {
                arn.push_str("/index/");
                arn.push_str(index);
            }
            throttling["resource"] = Value::String(arn);
        }
        Self {
            status: 400,
            body: json!({
                "__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
                "message": THROTTLED,
                "ThrottlingReasons": [throttling],
            }),
        }
    }

    /// A 500 `InternalServerError`.
    pub(super) fn server_error() -> Self {
        Self {
            status: 500,
            body: json!({
                "__type": "com.amazon.coral.availability#InternalServerError",
                "message": "Internal server error",
            }),
        }
    }

    /// A 400 with this error code and the message `injected`.
    pub(super) fn coded(code: &str) -> Self {
        Self {
            status: 400,
            body: json!({
                "__type": format!("com.amazonaws.dynamodb.v20120810#{code}"),
                "message": "injected",
            }),
        }
    }

    /// Puts this answer in place of the server's response.
    fn replace(&self, response: &mut Response) -> Result<(), BoxError> {
        replace_response(response, self.status, &self.body)
    }
}

/// The answers that replace the server's for the current attempt, by interceptor, so that
/// several interceptors of the kit can be stacked on one client.
#[derive(Debug, Clone, Default)]
struct Answers(HashMap<usize, Answer>);

impl Storable for Answers {
    type Storer = StoreReplace<Self>;
}

/// A number no other interceptor of the kit has, to find what it stored by.
pub(super) fn next_owner() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Records the answer `owner` puts in place of the server's for the current attempt
/// (none, for `None`).
pub(super) fn answer_with(cfg: &mut ConfigBag, owner: usize, answer: Option<Answer>) {
    let mut answers = cfg.load::<Answers>().cloned().unwrap_or_default();
    match answer {
        Some(answer) => answers.0.insert(owner, answer),
        None => answers.0.remove(&owner),
    };
    cfg.interceptor_state().store_put(answers);
}

/// The `Intercept` methods of every interceptor of the kit: before signing, its own
/// `answer_attempt` decides the attempt's answer (or none); before deserialization, the
/// answer it recorded (its field `owner`) replaces the server's ([`replace_answer`]).
macro_rules! answer_hooks {
    () => {
        // Once per attempt.
        fn modify_before_signing(
            &self,
            context: &mut aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextMut<'_>,
            _components: &aws_sdk_dynamodb::config::RuntimeComponents,
            cfg: &mut aws_sdk_dynamodb::config::ConfigBag,
        ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
            self.answer_attempt(context.request_mut(), cfg)
        }

        fn modify_before_deserialization(
            &self,
            context: &mut aws_sdk_dynamodb::config::interceptors::BeforeDeserializationInterceptorContextMut<'_>,
            _components: &aws_sdk_dynamodb::config::RuntimeComponents,
            cfg: &mut aws_sdk_dynamodb::config::ConfigBag,
        ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
            crate::wire::replace_answer(cfg, self.owner, context)
        }
    };
}

pub(super) use answer_hooks;

/// Puts the answer `owner` recorded for the current attempt in place of the server's.
pub(super) fn replace_answer(
    cfg: &ConfigBag,
    owner: usize,
    context: &mut BeforeDeserializationInterceptorContextMut<'_>,
) -> Result<(), BoxError> {
    match cfg.load::<Answers>().and_then(|a| a.0.get(&owner)) {
        Some(answer) => answer.replace(context.response_mut()),
        None => Ok(()),
    }
}

/// Replaces a response's status and body, and drops its checksum.
fn replace_response(response: &mut Response, status: u16, body: &Value) -> Result<(), BoxError> {
    let bytes = serde_json::to_vec(body)?;
    *response.status_mut() = status.try_into()?;
    response.headers_mut().remove("x-amz-crc32");
    response
        .headers_mut()
        .insert("content-length", bytes.len().to_string());
    *response.body_mut() = SdkBody::from(bytes);
    Ok(())
}
/// Whether DynamoDB counts the operation against write capacity.
fn is_write(operation: &str) -> bool {
    matches!(
        operation,
        "PutItem" | "UpdateItem" | "DeleteItem" | "BatchWriteItem" | "TransactWriteItems"
    )
}

/// The table and index a request names: its `TableName` and `IndexName`, or the first
/// table of a batch or a transaction.
fn resource(request: &Value) -> (Option<&str>, Option<&str>) {
    if let Some(table) = request["TableName"].as_str() {
        return (Some(table), request["IndexName"].as_str());
    }
    if let Some(table) = request["RequestItems"]
        .as_object()
        .and_then(|tables| tables.keys().next())
    {
        return (Some(table), None);
    }
    let first = request["TransactItems"][0]
        .as_object()
        .and_then(|item| item.values().next())
        .and_then(|action| action["TableName"].as_str());
    (first, None)
}

//! Fault injection between the SDK client and the server, as SDK interceptors.
//!
//! [`Faults`] injects at random rates into `BatchWriteItem`: it takes writes out of
//! requests and hands them back as `UnprocessedItems`, and turns responses into throttling
//! errors. [`Script`] injects deterministically into any one operation: throttling, server
//! errors (before or after the server applied the request) and timeouts, on chosen attempts,
//! and counts every attempt, on the DynamoDB client or on the DynamoDB Streams client.

use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use aws_sdk_dynamodb::config::interceptors::{
    BeforeDeserializationInterceptorContextMut, BeforeTransmitInterceptorContextMut,
};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_smithy_types::body::SdkBody;
use aws_smithy_types::config_bag::{Storable, StoreReplace};
use serde_json::{json, Value};

/// The writes taken out of the current attempt's request.
#[derive(Debug, Clone)]
struct Dropped(Value);

impl Storable for Dropped {
    type Storer = StoreReplace<Self>;
}

/// How often to inject each fault, and how many were injected.
#[derive(Debug)]
pub struct Faults {
    /// The share of each request's writes handed back as unprocessed.
    pub drop_rate: f64,
    /// The share of responses replaced by a throttling error.
    pub throttle_rate: f64,
    state: AtomicU64,
    /// Writes handed back as unprocessed.
    pub dropped: AtomicUsize,
    /// Responses turned into throttling errors.
    pub throttled: AtomicUsize,
}

impl Faults {
    pub fn new(drop_rate: f64, throttle_rate: f64) -> Arc<Self> {
        Arc::new(Self {
            drop_rate,
            throttle_rate,
            state: AtomicU64::new(0x2545_F491_4F6C_DD1D),
            dropped: AtomicUsize::new(0),
            throttled: AtomicUsize::new(0),
        })
    }

    /// A number in [0, 1).
    fn roll(&self) -> f64 {
        let mut x = self
            .state
            .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed);
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        (x >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A client on the same server and tables as `db`, with these faults in its path.
    pub fn client(self: &Arc<Self>, db: &dynorm::Client) -> dynorm::Client {
        let config = db
            .sdk()
            .config()
            .to_builder()
            .interceptor(Shared(self.clone()))
            .build();
        db.with_sdk(aws_sdk_dynamodb::Client::from_conf(config))
    }
}

#[derive(Debug)]
struct Shared(Arc<Faults>);

fn is_batch_write(target: Option<&str>) -> bool {
    target == Some("DynamoDB_20120810.BatchWriteItem")
}

impl Intercept for Shared {
    fn name(&self) -> &'static str {
        "dynorm-test-faults"
    }

    fn modify_before_signing(
        &self,
        context: &mut BeforeTransmitInterceptorContextMut<'_>,
        _components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let request = context.request_mut();
        if !is_batch_write(request.headers().get("x-amz-target")) {
            return Ok(());
        }
        let Some(bytes) = request.body().bytes() else {
            return Ok(());
        };
        let mut body: Value = serde_json::from_slice(bytes)?;
        let mut dropped = serde_json::Map::new();
        let mut kept_total = 0;
        if let Some(tables) = body["RequestItems"].as_object_mut() {
            for (table, writes) in tables.iter_mut() {
                let Some(list) = writes.as_array_mut() else {
                    continue;
                };
                let mut kept = Vec::new();
                let mut out = Vec::new();
                for write in list.drain(..) {
                    if self.0.roll() < self.0.drop_rate {
                        out.push(write);
                    } else {
                        kept.push(write);
                    }
                }
                // A request needs at least one write: keep one back.
                if kept.is_empty() && kept_total == 0 {
                    if let Some(first) = out.pop() {
                        kept.push(first);
                    }
                }
                kept_total += kept.len();
                if !out.is_empty() {
                    self.0.dropped.fetch_add(out.len(), Ordering::Relaxed);
                    dropped.insert(table.clone(), Value::Array(out));
                }
                *list = kept;
            }
            tables.retain(|_, writes| writes.as_array().is_some_and(|l| !l.is_empty()));
        }
        let bytes = serde_json::to_vec(&body)?;
        request
            .headers_mut()
            .insert("content-length", bytes.len().to_string());
        *request.body_mut() = SdkBody::from(bytes);
        cfg.interceptor_state()
            .store_put(Dropped(Value::Object(dropped)));
        Ok(())
    }

    fn modify_before_deserialization(
        &self,
        context: &mut BeforeDeserializationInterceptorContextMut<'_>,
        _components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Some(Dropped(dropped)) = cfg.load::<Dropped>().cloned() else {
            return Ok(());
        };
        let response = context.response_mut();
        if response.status().as_u16() != 200 {
            return Ok(());
        }
        let (status, body) = if self.0.roll() < self.0.throttle_rate {
            self.0.throttled.fetch_add(1, Ordering::Relaxed);
            (
                400,
                json!({
                    "__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
                    "message": "injected throttling"
                }),
            )
        } else {
            (200, json!({ "UnprocessedItems": dropped }))
        };
        let bytes = serde_json::to_vec(&body)?;
        *response.status_mut() = status.try_into()?;
        response.headers_mut().remove("x-amz-crc32");
        response
            .headers_mut()
            .insert("content-length", bytes.len().to_string());
        *response.body_mut() = SdkBody::from(bytes);
        Ok(())
    }
}

/// A fault that one attempt of a request gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// A 400 `ProvisionedThroughputExceededException`. The request does not reach the
    /// server (it is turned into a `ListTables`), as DynamoDB applies nothing it throttles.
    Throttle,
    /// A 500 `InternalServerError`; the request does not reach the server.
    ServerError,
    /// A 500 `InternalServerError` after the server has applied the request: the response
    /// is lost on the way back, so the client cannot know the write was made.
    ServerErrorAfterApplying,
    /// No answer: the request goes to a listener that accepts connections and never
    /// responds, so the client's `operation_attempt_timeout` ([`ATTEMPT_TIMEOUT`]) fires.
    Timeout,
    /// A 400 with this error code, such as DynamoDB Streams' `LimitExceededException`,
    /// `ExpiredIteratorException` or `TrimmedDataAccessException`; the request does not
    /// reach the server.
    Coded(&'static str),
}

/// The attempt timeout of a [`Script`] client.
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(1);

/// Fails every attempt, however many there are.
pub const ALWAYS: usize = usize::MAX;

/// Deterministic faults on one operation: its first `skip` attempts pass, the next `fail`
/// get the fault, and the rest pass. Attempts of other operations are left alone.
#[derive(Debug)]
pub struct Script {
    target: String,
    fault: Fault,
    skip: usize,
    fail: usize,
    attempts: AtomicUsize,
    injected: AtomicUsize,
}

/// Whether the current attempt gets a fault, and which.
#[derive(Debug, Clone)]
struct Injected(Option<Fault>);

impl Storable for Injected {
    type Storer = StoreReplace<Self>;
}

impl Script {
    /// Faults for `operation` (`GetItem`, `Query`, `TransactWriteItems`, ...).
    pub fn new(operation: &str, fault: Fault, skip: usize, fail: usize) -> Arc<Self> {
        Self::on_target(format!("DynamoDB_20120810.{operation}"), fault, skip, fail)
    }

    /// Faults for DynamoDB Streams' `operation` (`GetRecords`, `GetShardIterator`,
    /// `DescribeStream`); put them in the path with [`streams_client`](Self::streams_client).
    pub fn streams(operation: &str, fault: Fault, skip: usize, fail: usize) -> Arc<Self> {
        Self::on_target(
            format!("DynamoDBStreams_20120810.{operation}"),
            fault,
            skip,
            fail,
        )
    }

    fn on_target(target: String, fault: Fault, skip: usize, fail: usize) -> Arc<Self> {
        Arc::new(Self {
            target,
            fault,
            skip,
            fail,
            attempts: AtomicUsize::new(0),
            injected: AtomicUsize::new(0),
        })
    }

    /// Attempts of the operation so far, faulted or not.
    pub fn attempts(&self) -> usize {
        self.attempts.load(Ordering::SeqCst)
    }

    /// Attempts that got the fault.
    pub fn injected(&self) -> usize {
        self.injected.load(Ordering::SeqCst)
    }

    /// A client on the same server and tables as `db`, with these faults in its path and
    /// the SDK's standard retries set explicitly: `max_attempts` attempts per request, the
    /// first included, with millisecond backoff, a retry quota of its own that never runs
    /// out (so that other tests' retries cannot change the count), and an attempt timeout
    /// of [`ATTEMPT_TIMEOUT`].
    pub fn client(self: &Arc<Self>, db: &dynorm::Client, max_attempts: u32) -> dynorm::Client {
        use aws_sdk_dynamodb::config::retry::{RetryConfig, RetryPartition, TokenBucket};
        use aws_sdk_dynamodb::config::timeout::TimeoutConfig;
        let config = db
            .sdk()
            .config()
            .to_builder()
            .retry_config(
                RetryConfig::standard()
                    .with_max_attempts(max_attempts)
                    .with_initial_backoff(Duration::from_millis(1))
                    .with_max_backoff(Duration::from_millis(5)),
            )
            .retry_partition(
                RetryPartition::custom("dynorm-test-faults")
                    .token_bucket(TokenBucket::unlimited())
                    .build(),
            )
            .timeout_config(
                TimeoutConfig::builder()
                    .operation_attempt_timeout(ATTEMPT_TIMEOUT)
                    .build(),
            )
            .interceptor(Scripted(self.clone()))
            .build();
        db.with_sdk(aws_sdk_dynamodb::Client::from_conf(config))
    }

    /// A client on the same server and tables as `db` whose DynamoDB Streams client has
    /// these faults in its path, and no retries of the SDK's own (`max_attempts` 1), so
    /// that every attempt counted is one the change consumer made. The streams client is
    /// made from the DynamoDB client's configuration, which carries both settings over;
    /// the faults match streams operations only.
    pub fn streams_client(self: &Arc<Self>, db: &dynorm::Client) -> dynorm::Client {
        use aws_sdk_dynamodb::config::retry::RetryConfig;
        let config = db
            .sdk()
            .config()
            .to_builder()
            .retry_config(RetryConfig::standard().with_max_attempts(1))
            .interceptor(Scripted(self.clone()))
            .build();
        db.with_sdk(aws_sdk_dynamodb::Client::from_conf(config))
    }

    /// Counts an attempt of the operation, and says whether it gets the fault.
    fn next(&self) -> Option<Fault> {
        let attempt = self.attempts.fetch_add(1, Ordering::SeqCst);
        let faulted = attempt >= self.skip && attempt - self.skip < self.fail;
        faulted.then(|| {
            self.injected.fetch_add(1, Ordering::SeqCst);
            self.fault
        })
    }
}

/// The address of a listener that accepts connections, holds them open and never
/// answers: a server too slow for any timeout.
fn black_hole() -> SocketAddr {
    static ADDRESS: OnceLock<SocketAddr> = OnceLock::new();
    *ADDRESS.get_or_init(|| {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let address = listener.local_addr().expect("its address");
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for stream in listener.incoming().flatten() {
                held.push(stream);
            }
        });
        address
    })
}

#[derive(Debug)]
struct Scripted(Arc<Script>);

impl Intercept for Scripted {
    fn name(&self) -> &'static str {
        "dynorm-test-scripted-faults"
    }

    fn modify_before_signing(
        &self,
        context: &mut BeforeTransmitInterceptorContextMut<'_>,
        _components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let request = context.request_mut();
        let fault = if request.headers().get("x-amz-target") == Some(self.0.target.as_str()) {
            self.0.next()
        } else {
            None
        };
        match fault {
            Some(Fault::Throttle | Fault::ServerError | Fault::Coded(_)) => {
                // Something harmless instead, whose answer is replaced.
                request
                    .headers_mut()
                    .insert("x-amz-target", "DynamoDB_20120810.ListTables");
                request.headers_mut().insert("content-length", "2");
                *request.body_mut() = SdkBody::from("{}");
            }
            Some(Fault::Timeout) => {
                request.set_uri(format!("http://{}/", black_hole()))?;
            }
            Some(Fault::ServerErrorAfterApplying) | None => {}
        }
        cfg.interceptor_state().store_put(Injected(fault));
        Ok(())
    }

    fn modify_before_deserialization(
        &self,
        context: &mut BeforeDeserializationInterceptorContextMut<'_>,
        _components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let (status, body) = match cfg.load::<Injected>().and_then(|i| i.0) {
            Some(Fault::Throttle) => (
                400,
                json!({
                    "__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
                    "message": "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.",
                    "ThrottlingReasons": [{
                        "reason": "TableReadProvisionedThroughputExceeded",
                        "resource": "arn:aws:dynamodb:us-east-1:000000000000:table/injected"
                    }]
                }),
            ),
            Some(Fault::Coded(code)) => (
                400,
                json!({
                    "__type": format!("com.amazonaws.dynamodb.v20120810#{code}"),
                    "message": "injected"
                }),
            ),
            Some(Fault::ServerError | Fault::ServerErrorAfterApplying) => (
                500,
                json!({
                    "__type": "com.amazon.coral.availability#InternalServerError",
                    "message": "Internal server error"
                }),
            ),
            Some(Fault::Timeout) | None => return Ok(()),
        };
        let bytes = serde_json::to_vec(&body)?;
        let response = context.response_mut();
        *response.status_mut() = status.try_into()?;
        response.headers_mut().remove("x-amz-crc32");
        response
            .headers_mut()
            .insert("content-length", bytes.len().to_string());
        *response.body_mut() = SdkBody::from(bytes);
        Ok(())
    }
}

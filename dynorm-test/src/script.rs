//! Deterministic faults on one operation: which attempts get a fault, and which fault.

use aws_sdk_dynamodb::config::timeout::TimeoutConfig;
use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use aws_sdk_dynamodb::config::{ConfigBag, Intercept};
use aws_sdk_dynamodb::error::BoxError;

use super::wire::{self, Answer};
use dynorm::__ext::client::Client;
use dynorm::__ext::error::Result;

/// A fault that one attempt of a request gets from a [`Script`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fault {
    /// A 400 `ProvisionedThroughputExceededException` with one of DynamoDB's
    /// `ThrottlingReasons`: `TableReadProvisionedThroughputExceeded` or
    /// `TableWriteProvisionedThroughputExceeded` (`Index...` for a query or scan of an index),
    /// as the operation reads or writes, with the ARN of the table the request names as its
    /// resource. The request does not reach the server, as DynamoDB applies nothing it
    /// throttles. The error is `ErrorKind::Throttled`, and `Error::throttling_reasons` has the
    /// reason.
    Throttle,
    /// Like [`Throttle`](Self::Throttle), with this reason:
    /// `TableWriteKeyRangeThroughputExceeded`, `IndexReadAccountLimitExceeded`, ...
    ThrottleWithReason(&'static str),
    /// A 500 `InternalServerError`; the request does not reach the server.
    ServerError,
    /// A 500 `InternalServerError` after the server has applied the request: the response
    /// is lost on the way back, so the client cannot know that the write was made.
    ServerErrorAfterApplying,
    /// No answer: the request goes to a listener that accepts connections and never
    /// responds, so the client's attempt timeout ([`ATTEMPT_TIMEOUT`]) fires.
    Timeout,
    /// A 400 with this error code, such as `TransactionConflictException` or DynamoDB
    /// Streams' `LimitExceededException`, `ExpiredIteratorException` or
    /// `TrimmedDataAccessException`, and the message `injected`; the request does not reach
    /// the server.
    Coded(&'static str),
}

/// The attempt timeout of a [`Script::client`]: how long a [`Fault::Timeout`] takes.
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(1);

/// Deterministic faults on one operation: its first [`skip`](Self::skip) attempts pass,
/// the next [`times`](Self::times) get the fault (every one after them, unless `times` is
/// given), and the rest pass. Attempts of other operations pass untouched. A script counts
/// every attempt of its operation, retries included; its clones share the counts.
///
/// ```no_run
/// use dynorm_test::{Fault, Script};
/// # use dynorm::Model;
/// # #[derive(Model)] struct User { #[hash_key] id: String }
/// # async fn demo(db: dynorm::Client) -> Result<(), dynorm::Error> {
/// // The first attempt of each PutItem is lost after it was applied; the SDK retries it.
/// let script = Script::new("PutItem", Fault::ServerErrorAfterApplying).times(1);
/// let faulty = script.client(&db, 3);
/// let error = faulty.create(&User { id: "u1".into() }).send().await.unwrap_err();
/// assert!(error.kind() == dynorm::ErrorKind::AlreadyExists); // the retry found the item its first attempt wrote
/// assert_eq!((script.attempts(), script.injected()), (2, 1));
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Script {
    target: String,
    fault: Fault,
    skip: usize,
    times: usize,
    counts: Arc<Counts>,
}

#[derive(Debug, Default)]
struct Counts {
    attempts: AtomicUsize,
    injected: AtomicUsize,
}

impl Script {
    /// Faults every attempt of the DynamoDB operation `operation` (`GetItem`, `Query`,
    /// `TransactWriteItems`, ...: the names of DynamoDB's API).
    pub fn new(operation: &str, fault: Fault) -> Self {
        Self::on_target(format!("DynamoDB_20120810.{operation}"), fault)
    }

    /// Faults every attempt of the DynamoDB Streams operation `operation` (`GetRecords`,
    /// `GetShardIterator`, `DescribeStream`); put them in the path with
    /// [`streams_client`](Self::streams_client).
    pub fn streams(operation: &str, fault: Fault) -> Self {
        Self::on_target(format!("DynamoDBStreams_20120810.{operation}"), fault)
    }

    fn on_target(target: String, fault: Fault) -> Self {
        Self {
            target,
            fault,
            skip: 0,
            times: usize::MAX,
            counts: Arc::default(),
        }
    }

    /// Lets the first `attempts` attempts pass before the faults start, as a query's first
    /// page before its second.
    pub fn skip(mut self, attempts: usize) -> Self {
        self.skip = attempts;
        self
    }

    /// Faults `attempts` attempts only, then lets every later one pass.
    pub fn times(mut self, attempts: usize) -> Self {
        self.times = attempts;
        self
    }

    /// Attempts of the operation so far, faulted or not.
    pub fn attempts(&self) -> usize {
        self.counts.attempts.load(Ordering::SeqCst)
    }

    /// Attempts that got the fault.
    pub fn injected(&self) -> usize {
        self.counts.injected.load(Ordering::SeqCst)
    }

    /// A client on the same server and tables as `db`, with these faults in its path and
    /// the SDK's standard retries set explicitly, so that a test knows how many attempts
    /// are made: `max_attempts` attempts per request, the first included, with millisecond
    /// backoff, a retry quota of its own that never runs out (so that other tests' retries
    /// cannot change the count), and an attempt timeout of [`ATTEMPT_TIMEOUT`].
    pub fn client(&self, db: &Client, max_attempts: u32) -> Client {
        use aws_sdk_dynamodb::config::retry::{RetryConfig, RetryPartition, TokenBucket};
        self.faulted(db, |config| {
            config
                .retry_config(
                    RetryConfig::standard()
                        .with_max_attempts(max_attempts)
                        .with_initial_backoff(Duration::from_millis(1))
                        .with_max_backoff(Duration::from_millis(5)),
                )
                .retry_partition(
                    RetryPartition::custom("dynorm-testing-script")
                        .token_bucket(TokenBucket::unlimited())
                        .build(),
                )
        })
    }

    /// A client on the same server and tables as `db` whose DynamoDB Streams client has
    /// these faults in its path, and an attempt timeout of [`ATTEMPT_TIMEOUT`]. The change
    /// consumer of `dynorm-streams` makes its streams client from the DynamoDB client's
    /// configuration, interceptors and timeouts included, so the faults go on a copy of
    /// that configuration, and only the streams operations this script names get them.
    /// It sends its requests with the SDK's retries off and makes every attempt itself,
    /// under the client's retry policy, so every attempt counted is one it made.
    pub fn streams_client(&self, db: &Client) -> Client {
        self.faulted(db, |config| config)
    }

    /// A client on the same server and tables as `db`, whose SDK configuration is a copy
    /// of `db`'s with `configure` applied, an attempt timeout of [`ATTEMPT_TIMEOUT`] and
    /// these faults in its path.
    fn faulted(
        &self,
        db: &Client,
        configure: impl FnOnce(aws_sdk_dynamodb::config::Builder) -> aws_sdk_dynamodb::config::Builder,
    ) -> Client {
        let sdk = db.sdk().config();
        let config = configure(sdk.to_builder())
            .timeout_config(
                TimeoutConfig::builder()
                    .operation_attempt_timeout(ATTEMPT_TIMEOUT)
                    .build(),
            )
            .interceptor(Scripted::new(self, sdk.region().map(|r| r.as_ref())))
            .build();
        db.to_builder()
            .sdk(aws_sdk_dynamodb::Client::from_conf(config))
            .build()
    }

    /// Counts an attempt of the operation, and says whether it gets the fault.
    fn next(&self) -> Option<Fault> {
        let attempt = self.counts.attempts.fetch_add(1, Ordering::SeqCst);
        let faulted = attempt >= self.skip && attempt - self.skip < self.times;
        faulted.then(|| {
            self.counts.injected.fetch_add(1, Ordering::SeqCst);
            self.fault
        })
    }
}

/// The address of a listener that accepts connections, holds them open and never
/// answers: a server too slow for any timeout. `None` when no loopback port is free.
fn black_hole() -> Option<SocketAddr> {
    static ADDRESS: OnceLock<Option<SocketAddr>> = OnceLock::new();
    *ADDRESS.get_or_init(|| {
        let listener = TcpListener::bind("127.0.0.1:0").ok()?;
        let address = listener.local_addr().ok()?;
        std::thread::Builder::new()
            .name("dynorm-testing-black-hole".into())
            .spawn(move || {
                let mut held = Vec::new();
                for stream in listener.incoming().flatten() {
                    held.push(stream);
                }
            })
            .ok()?;
        Some(address)
    })
}

#[derive(Debug)]
struct Scripted {
    script: Script,
    region: String,
    owner: usize,
}

impl Scripted {
    /// The answer of one attempt of the scripted operation, before signing.
    fn answer_attempt(
        &self,
        request: &mut aws_smithy_runtime_api::http::Request,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Some(target) = wire::target(request).filter(|t| *t == self.script.target) else {
            wire::answer_with(cfg, self.owner, None);
            return Ok(());
        };
        let operation = wire::operation(target).to_owned();
        let answer = match self.script.next() {
            None => None,
            Some(Fault::Throttle) => Some(Answer::throttled(
                &operation,
                &wire::body(request),
                &self.region,
                None,
            )),
            Some(Fault::ThrottleWithReason(reason)) => Some(Answer::throttled(
                &operation,
                &wire::body(request),
                &self.region,
                Some(reason),
            )),
            Some(Fault::ServerError) => Some(Answer::server_error()),
            Some(Fault::Coded(code)) => Some(Answer::coded(code)),
            Some(Fault::ServerErrorAfterApplying) => {
                // Sent as it is; only the answer is lost.
                wire::answer_with(cfg, self.owner, Some(Answer::server_error()));
                return Ok(());
            }
            Some(Fault::Timeout) => {
                let address = black_hole().ok_or("no loopback port for a timeout")?;
                request.set_uri(format!("http://{address}/"))?;
                wire::answer_with(cfg, self.owner, None);
                return Ok(());
            }
        };
        if answer.is_some() {
            wire::neutralize(request)?;
        }
        wire::answer_with(cfg, self.owner, answer);
        Ok(())
    }

    fn new(script: &Script, region: Option<&str>) -> Self {
        Self {
            script: script.clone(),
            region: region.unwrap_or("us-east-1").to_owned(),
            owner: wire::next_owner(),
        }
    }
}

impl Intercept for Scripted {
    fn name(&self) -> &'static str {
        "dynorm-testing-script"
    }

    wire::answer_hooks!();
}

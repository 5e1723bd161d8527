//! Counting the requests a client sends, by operation.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use serde_json::Value;

use super::wire;
use dynorm::__ext::client::Client;

/// The requests a client sent, by DynamoDB operation (`GetItem`, `Query`,
/// `TransactWriteItems`, ...), with their JSON bodies, in the order they were sent.
///
/// Every attempt is a request: a retry counts again. Requests are recorded from the moment
/// they are sent until they are taken ([`take`](Self::take), [`take_all`](Self::take_all),
/// [`assert_counts`](Self::assert_counts)) or cleared. The clones of a `Requests` share what
/// it recorded.
///
/// ```no_run
/// use dynorm_test::Requests;
/// # use dynorm::Model;
/// # #[derive(Model)] struct User { #[hash_key] id: String }
/// # async fn demo(db: dynorm::Client) -> Result<(), dynorm::Error> {
/// let requests = Requests::new();
/// let db = requests.client(&db);
/// db.get::<User>("u1").send().await?;
/// db.get::<User>("u2").send().await?;
/// assert_eq!(requests.sent("GetItem"), 2);
/// requests.assert_counts([("GetItem", 2)]); // exactly these, and forgets them
/// assert_eq!(requests.total(), 0);
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, Default)]
pub struct Requests {
    sent: Arc<Mutex<Vec<Sent>>>,
}

/// One request: its operation and its JSON body.
#[derive(Debug)]
struct Sent {
    operation: String,
    body: Value,
}

impl Requests {
    /// Records nothing until a client is made with [`client`](Self::client).
    pub fn new() -> Self {
        Self::default()
    }

    /// A client on the same server and tables as `db` whose requests are recorded here.
    /// `db` itself is unchanged.
    pub fn client(&self, db: &Client) -> Client {
        let config = db
            .sdk()
            .config()
            .to_builder()
            .interceptor(Recording(self.clone()))
            .build();
        db.to_builder()
            .sdk(aws_sdk_dynamodb::Client::from_conf(config))
            .build()
    }

    fn records(&self) -> MutexGuard<'_, Vec<Sent>> {
        self.sent.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many `operation` requests were sent (recorded).
    pub fn sent(&self, operation: &str) -> usize {
        self.records()
            .iter()
            .filter(|s| s.operation == operation)
            .count()
    }

    /// How many requests were recorded, of every operation.
    pub fn total(&self) -> usize {
        self.records().len()
    }

    /// How many requests were recorded, by operation.
    pub fn counts(&self) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for sent in self.records().iter() {
            *counts.entry(sent.operation.clone()).or_default() += 1;
        }
        counts
    }

    /// How many `operation` requests were recorded; forgets them, and keeps the others.
    pub fn take(&self, operation: &str) -> usize {
        let mut sent = self.records();
        let before = sent.len();
        sent.retain(|s| s.operation != operation);
        before - sent.len()
    }

    /// How many requests were recorded, of every operation; forgets them all.
    pub fn take_all(&self) -> usize {
        std::mem::take(&mut *self.records()).len()
    }

    /// Forgets every request recorded.
    pub fn clear(&self) {
        self.records().clear();
    }

    /// The JSON bodies of the `operation` requests recorded, in the order they were sent:
    /// what DynamoDB received (`KeyConditionExpression`, `ExpressionAttributeValues`, ...).
    pub fn bodies(&self, operation: &str) -> Vec<Value> {
        self.records()
            .iter()
            .filter(|s| s.operation == operation)
            .map(|s| s.body.clone())
            .collect()
    }

    /// Asserts that the requests recorded are exactly `expected`, by operation (an
    /// operation not listed must have none, and a count of 0 is the same as leaving it out),
    /// then forgets them all, so that the next assertion is about what is sent next.
    ///
    /// # Panics
    ///
    /// When the counts differ, with both sets of counts in the message.
    ///
    /// ```no_run
    /// # fn demo(requests: dynorm_test::Requests) {
    /// requests.assert_counts([("Query", 1), ("BatchGetItem", 1)]); // no N+1
    /// # }
    /// ```
    #[track_caller]
    pub fn assert_counts<'a>(&self, expected: impl IntoIterator<Item = (&'a str, usize)>) {
        let mut wanted = BTreeMap::new();
        for (operation, count) in expected {
            *wanted.entry(operation.to_owned()).or_default() += count;
        }
        wanted.retain(|_, count| *count > 0);
        let counts = self.counts();
        self.clear();
        assert!(
            counts == wanted,
            "requests by operation: expected {wanted:?}, sent {counts:?}"
        );
    }
}

#[derive(Debug)]
struct Recording(Requests);

impl Intercept for Recording {
    fn name(&self) -> &'static str {
        "dynorm-testing-requests"
    }

    // Before any interceptor changes the attempt's request (a `Script` may make it a
    // harmless one), so that faulted attempts count as what they were.
    fn read_before_attempt(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let request = context.request();
        let operation = wire::operation(wire::target(request).unwrap_or_default()).to_owned();
        let body = wire::body(request);
        self.0.records().push(Sent { operation, body });
        Ok(())
    }
}

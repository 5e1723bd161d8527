//! Counts the requests a client sends, by operation, through an SDK interceptor, and keeps
//! their bodies.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;

/// Requests sent, by operation name (`Query`, `GetItem`, ...), and their bodies.
#[derive(Debug, Default)]
pub struct Requests {
    counts: Mutex<HashMap<String, usize>>,
    bodies: Mutex<Vec<(String, serde_json::Value)>>,
}

impl Requests {
    /// A client on the same server and tables as `db` whose requests are counted here.
    pub fn client(db: &dynorm::Client) -> (dynorm::Client, Arc<Requests>) {
        let requests = Arc::new(Requests::default());
        let config = db
            .sdk()
            .config()
            .to_builder()
            .interceptor(Counting(requests.clone()))
            .build();
        (
            db.with_sdk(aws_sdk_dynamodb::Client::from_conf(config)),
            requests,
        )
    }

    /// How many `operation` requests were sent, and forgets them.
    pub fn take(&self, operation: &str) -> usize {
        self.counts.lock().unwrap().remove(operation).unwrap_or(0)
    }

    /// Every request sent so far, and forgets them.
    pub fn take_all(&self) -> usize {
        self.bodies.lock().unwrap().clear();
        self.counts.lock().unwrap().drain().map(|(_, n)| n).sum()
    }

    /// The JSON bodies of the `operation` requests sent since the last `take_all`, in the
    /// order they were sent.
    #[allow(dead_code)]
    pub fn bodies(&self, operation: &str) -> Vec<serde_json::Value> {
        self.bodies
            .lock()
            .unwrap()
            .iter()
            .filter(|(sent, _)| sent == operation)
            .map(|(_, body)| body.clone())
            .collect()
    }
}

#[derive(Debug)]
struct Counting(Arc<Requests>);

impl Intercept for Counting {
    fn name(&self) -> &'static str {
        "dynorm-test-counter"
    }

    fn read_before_transmit(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let target = context
            .request()
            .headers()
            .get("x-amz-target")
            .unwrap_or_default();
        let operation = target.rsplit('.').next().unwrap_or_default().to_owned();
        let body = context
            .request()
            .body()
            .bytes()
            .and_then(|bytes| serde_json::from_slice(bytes).ok())
            .unwrap_or_default();
        self.0
            .bodies
            .lock()
            .unwrap()
            .push((operation.clone(), body));
        *self.0.counts.lock().unwrap().entry(operation).or_default() += 1;
        Ok(())
    }
}

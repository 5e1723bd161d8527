//! Fault injection between the SDK client and the server, as an SDK interceptor: it
//! takes writes out of `BatchWriteItem` requests and hands them back as
//! `UnprocessedItems`, and turns responses into throttling errors.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

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

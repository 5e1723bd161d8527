//! Random faults in batch requests: items handed back as unprocessed, and throttling.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use aws_sdk_dynamodb::config::interceptors::{
    BeforeSerializationInterceptorContextMut, FinalizerInterceptorContextMut,
};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::operation::batch_get_item::{BatchGetItemInput, BatchGetItemOutput};
use aws_sdk_dynamodb::operation::batch_write_item::{BatchWriteItemInput, BatchWriteItemOutput};
use aws_sdk_dynamodb::types::{KeysAndAttributes, WriteRequest};
use aws_smithy_types::config_bag::{Storable, StoreReplace};

use super::wire::{self, Answer};
use dynorm::__ext::client::Client;

/// Random faults in `BatchWriteItem` and `BatchGetItem` requests, as DynamoDB makes them
/// under load: a share of each request's writes or keys is taken out before it reaches the
/// server and handed back in the answer's `UnprocessedItems` or `UnprocessedKeys`, and a
/// share of requests is throttled (not sent, answered with
/// [`Fault::Throttle`](super::Fault::Throttle)'s error). Other operations pass untouched.
///
/// The client keeps `db`'s retry configuration: the SDK retries a throttled request
/// (after its own backoff) before dynorm's batch retries see it. The draws are
/// pseudo-random from a fixed seed. The counts are shared by the faults' clones.
///
/// ```no_run
/// use dynorm_test::Faults;
/// # use dynorm::Model;
/// # #[derive(Model)] struct Event { #[hash_key] id: String }
/// # async fn demo(db: dynorm::Client, events: Vec<Event>) -> Result<(), dynorm::Error> {
/// let faults = Faults::new().unprocessed(0.5).throttle(0.2);
/// let faulty = faults.client(&db);
/// let written = faulty.batch_write().put_many(&events).send().await?; // retried until done
/// assert_eq!(written as usize, events.len());
/// println!("{} handed back, {} throttled", faults.handed_back(), faults.throttled());
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Faults {
    unprocessed: f64,
    throttle: f64,
    state: Arc<State>,
}

#[derive(Debug)]
struct State {
    draws: AtomicU64,
    handed_back: AtomicUsize,
    throttled: AtomicUsize,
}

impl Default for Faults {
    fn default() -> Self {
        Self::new()
    }
}

impl Faults {
    /// No faults yet: set their shares with [`unprocessed`](Self::unprocessed) and
    /// [`throttle`](Self::throttle).
    pub fn new() -> Self {
        Self {
            unprocessed: 0.0,
            throttle: 0.0,
            state: Arc::new(State {
                draws: AtomicU64::new(0x2545_F491_4F6C_DD1D),
                handed_back: AtomicUsize::new(0),
                throttled: AtomicUsize::new(0),
            }),
        }
    }

    /// The share (0 to 1) of each batch request's writes or keys handed back as
    /// unprocessed. A request keeps at least one, as DynamoDB processes at least one.
    pub fn unprocessed(mut self, share: f64) -> Self {
        self.unprocessed = share;
        self
    }

    /// The share (0 to 1) of batch requests throttled.
    pub fn throttle(mut self, share: f64) -> Self {
        self.throttle = share;
        self
    }

    /// Writes and keys handed back as unprocessed so far.
    pub fn handed_back(&self) -> usize {
        self.state.handed_back.load(Ordering::Relaxed)
    }

    /// Requests throttled so far.
    pub fn throttled(&self) -> usize {
        self.state.throttled.load(Ordering::Relaxed)
    }

    /// A client on the same server and tables as `db`, with these faults in its path.
    pub fn client(&self, db: &Client) -> Client {
        let sdk = db.sdk().config();
        let config = sdk
            .to_builder()
            .interceptor(Injecting {
                faults: self.clone(),
                region: sdk.region().map_or("us-east-1", |r| r.as_ref()).to_owned(),
                owner: wire::next_owner(),
            })
            .build();
        db.to_builder()
            .sdk(aws_sdk_dynamodb::Client::from_conf(config))
            .build()
    }

    /// A number in [0, 1).
    fn roll(&self) -> f64 {
        let mut x = self
            .state
            .draws
            .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed);
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        (x >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Takes a share of the entries of each table out of a batch's `tables`, in the order
    /// of the tables' names, keeping at least one in all; returns them by table.
    fn take_out<T>(&self, tables: &mut HashMap<String, Vec<T>>) -> HashMap<String, Vec<T>> {
        let mut names: Vec<String> = tables.keys().cloned().collect();
        names.sort();
        let mut taken = HashMap::new();
        let mut kept_total = 0;
        for name in names {
            let Some(list) = tables.get_mut(&name) else {
                continue;
            };
            let (mut kept, mut out) = (Vec::new(), Vec::new());
            for one in list.drain(..) {
                if self.roll() < self.unprocessed {
                    out.push(one);
                } else {
                    kept.push(one);
                }
            }
            // A request processes at least one: keep one back.
            if kept.is_empty() && kept_total == 0 {
                kept.extend(out.pop());
            }
            kept_total += kept.len();
            *list = kept;
            if !out.is_empty() {
                self.state
                    .handed_back
                    .fetch_add(out.len(), Ordering::Relaxed);
                taken.insert(name, out);
            }
        }
        tables.retain(|_, list| !list.is_empty());
        taken
    }
}

/// What a batch request had taken out before it was sent, to add to its answer.
#[derive(Debug, Clone)]
enum HandBack {
    /// `BatchWriteItem`: writes, for `UnprocessedItems`.
    Writes(HashMap<String, Vec<WriteRequest>>),
    /// `BatchGetItem`: each table's keys and read options, for `UnprocessedKeys`.
    Keys(HashMap<String, KeysAndAttributes>),
}

/// What each interceptor of the kit took out of the current request.
#[derive(Debug, Clone, Default)]
struct HandBacks(HashMap<usize, HandBack>);

impl Storable for HandBacks {
    type Storer = StoreReplace<Self>;
}

#[derive(Debug)]
struct Injecting {
    faults: Faults,
    region: String,
    owner: usize,
}

impl Injecting {
    /// The answer of one attempt, before signing: throttled attempts are not sent.
    fn answer_attempt(
        &self,
        request: &mut aws_smithy_runtime_api::http::Request,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let operation = match wire::target(request) {
            Some("DynamoDB_20120810.BatchWriteItem") => "BatchWriteItem",
            Some("DynamoDB_20120810.BatchGetItem") => "BatchGetItem",
            _ => return Ok(()),
        };
        if self.faults.roll() >= self.faults.throttle {
            wire::answer_with(cfg, self.owner, None);
            return Ok(());
        }
        self.faults.state.throttled.fetch_add(1, Ordering::Relaxed);
        let answer = Answer::throttled(operation, &wire::body(request), &self.region, None);
        wire::neutralize(request)?;
        wire::answer_with(cfg, self.owner, Some(answer));
        Ok(())
    }

    fn hand_back_later(&self, cfg: &mut ConfigBag, hand_back: HandBack) {
        let mut all = cfg.load::<HandBacks>().cloned().unwrap_or_default();
        all.0.insert(self.owner, hand_back);
        cfg.interceptor_state().store_put(all);
    }
}

impl Intercept for Injecting {
    fn name(&self) -> &'static str {
        "dynorm-testing-faults"
    }

    // Once per request, before its attempts: the items taken out are never sent.
    fn modify_before_serialization(
        &self,
        context: &mut BeforeSerializationInterceptorContextMut<'_>,
        _components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let input = context.input_mut();
        if let Some(write) = input.downcast_mut::<BatchWriteItemInput>() {
            if let Some(tables) = write.request_items.as_mut() {
                let taken = self.faults.take_out(tables);
                self.hand_back_later(cfg, HandBack::Writes(taken));
            }
        } else if let Some(get) = input.downcast_mut::<BatchGetItemInput>() {
            if let Some(tables) = get.request_items.as_mut() {
                let mut keys: HashMap<String, Vec<_>> = tables
                    .iter_mut()
                    .map(|(name, read)| (name.clone(), std::mem::take(&mut read.keys)))
                    .collect();
                let taken = self.faults.take_out(&mut keys);
                let mut handed_back = HashMap::new();
                for (name, out) in taken {
                    if let Some(read) = tables.get(&name) {
                        let mut read = read.clone();
                        read.keys = out;
                        handed_back.insert(name, read);
                    }
                }
                for (name, read) in tables.iter_mut() {
                    read.keys = keys.remove(name).unwrap_or_default();
                }
                tables.retain(|_, read| !read.keys.is_empty());
                self.hand_back_later(cfg, HandBack::Keys(handed_back));
            }
        }
        Ok(())
    }

    wire::answer_hooks!();

    // The attempt that succeeds hands back what was taken out, beside what the server
    // itself left unprocessed.
    fn modify_before_attempt_completion(
        &self,
        context: &mut FinalizerInterceptorContextMut<'_>,
        _components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Some(hand_back) = cfg.load::<HandBacks>().and_then(|h| h.0.get(&self.owner)) else {
            return Ok(());
        };
        let Some(Ok(output)) = context.output_or_error_mut() else {
            return Ok(());
        };
        match hand_back {
            HandBack::Writes(taken) => {
                if let Some(output) = output.downcast_mut::<BatchWriteItemOutput>() {
                    let unprocessed = output.unprocessed_items.get_or_insert_with(HashMap::new);
                    for (name, writes) in taken {
                        unprocessed
                            .entry(name.clone())
                            .or_default()
                            .extend(writes.iter().cloned());
                    }
                }
            }
            HandBack::Keys(taken) => {
                if let Some(output) = output.downcast_mut::<BatchGetItemOutput>() {
                    let unprocessed = output.unprocessed_keys.get_or_insert_with(HashMap::new);
                    for (name, read) in taken {
                        match unprocessed.get_mut(name) {
                            Some(left) => left.keys.extend(read.keys.iter().cloned()),
                            None => {
                                unprocessed.insert(name.clone(), read.clone());
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

//! `db.changes::<M>()`: a consumer that follows every shard of a table's stream and yields
//! typed changes, checkpointing as it goes.

use std::collections::VecDeque;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use aws_sdk_dynamodbstreams::types::ShardIteratorType;
use futures::Stream;
use tokio::time::Instant;

use crate::client::Client;
use crate::error::{from_sdk, Error, Result};
use crate::schema::{Collection, Streamed, View};
use crate::stream::change::{Change, Decoded, Decoder};
use crate::stream::checkpoint::{Checkpoint, CheckpointStore, MemoryCheckpoints};
use crate::stream::record::Record;

/// Where a consumer with no checkpoint in a shard starts reading it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartAt {
    /// The oldest record the stream still holds (24 hours back at most). The default.
    TrimHorizon,
    /// Only records written after the consumer starts.
    Latest,
}

/// Builds a change consumer: `db.changes::<Membership>().consumer("counts").stream()`.
#[must_use = "a builder does nothing until `stream` is called"]
pub struct ChangesBuilder<T, V> {
    client: Client,
    decoder: Decoder<T>,
    consumer: String,
    checkpoints: Arc<dyn CheckpointStore>,
    start_at: StartAt,
    poll_interval: Duration,
    stop_when_idle: Option<Duration>,
    max_retries: u32,
    limit: i32,
    view: PhantomData<fn() -> V>,
}

impl Client {
    /// The changes of `M`'s table, decoded as `M` under the table's view type. On a shared
    /// table, changes to items of other entities are skipped and counted
    /// ([`Changes::skipped`]).
    ///
    /// ```no_run
    /// # use dynorm::Model;
    /// # use dynorm::stream::ChangeKind;
    /// # use futures::StreamExt;
    /// # #[derive(Model, Debug)] #[dynorm(stream = "new_and_old_images")] struct User { #[hash_key] id: String, name: String }
    /// # async fn demo(db: dynorm::Client) -> Result<(), dynorm::Error> {
    /// let mut changes = db.changes::<User>().consumer("audit").stream();
    /// while let Some(change) = changes.next().await {
    ///     match change?.kind {
    ///         ChangeKind::Insert { new } => println!("new user {}", new.name),
    ///         ChangeKind::Modify { old, new } => println!("{} is now {}", old.name, new.name),
    ///         ChangeKind::Remove { old } => println!("{} deleted", old.id),
    ///         ChangeKind::Expire { old } => println!("{} expired", old.id),
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    pub fn changes<M: Streamed>(&self) -> ChangesBuilder<M, M::View> {
        ChangesBuilder::new(self.clone(), Decoder::model())
    }

    /// The changes of a shared table, decoded as the collection enum `C` by each item's
    /// entity name, under the view type of `C`'s first entity. Items of entities `C` does
    /// not list are skipped and counted ([`Changes::skipped`]), never failed.
    pub fn collection_changes<C>(&self) -> ChangesBuilder<C, <C::Anchor as Streamed>::View>
    where
        C: Collection,
        C::Anchor: Streamed,
    {
        ChangesBuilder::new(self.clone(), Decoder::collection())
    }

    /// The ARN of the latest stream of table `table`, or `None` when it has had none.
    pub(crate) async fn latest_stream_arn(&self, table: &str) -> Result<Option<String>> {
        let output = self
            .sdk()
            .describe_table()
            .table_name(table)
            .send()
            .await
            .map_err(|e| from_sdk(e).with_operation("changes").with_table(table))?;
        Ok(output
            .table()
            .and_then(|t| t.latest_stream_arn())
            .map(str::to_owned))
    }
}

impl<T: Send + 'static, V: View> ChangesBuilder<T, V> {
    fn new(client: Client, decoder: Decoder<T>) -> Self {
        Self {
            client,
            decoder,
            consumer: "default".to_owned(),
            checkpoints: Arc::new(MemoryCheckpoints::new()),
            start_at: StartAt::TrimHorizon,
            poll_interval: Duration::from_secs(1),
            stop_when_idle: None,
            max_retries: 8,
            limit: 1000,
            view: PhantomData,
        }
    }

    /// The consumer's name: checkpoints are kept per consumer. Default: `"default"`.
    pub fn consumer(mut self, name: impl Into<String>) -> Self {
        self.consumer = name.into();
        self
    }

    /// Where checkpoints are kept. Default: a new [`MemoryCheckpoints`], so a consumer
    /// made again starts from [`StartAt`] unless it shares a store.
    pub fn checkpoints(mut self, store: impl CheckpointStore) -> Self {
        self.checkpoints = Arc::new(store);
        self
    }

    /// Where to start in a shard the consumer has no checkpoint for.
    pub fn start_at(mut self, start: StartAt) -> Self {
        self.start_at = start;
        self
    }

    /// The longest wait between two polls of a stream with nothing new; waits start at
    /// a twentieth of it and double while the stream stays quiet. Default: one second.
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval.max(Duration::from_millis(1));
        self
    }

    /// Ends the stream once no record has arrived for `idle`. Without it the consumer
    /// follows the stream for as long as it is polled.
    pub fn stop_when_idle(mut self, idle: Duration) -> Self {
        self.stop_when_idle = Some(idle);
        self
    }

    /// How many times in a row a throttled or failed request is retried, with backoff,
    /// before the stream yields the error and ends. Default: 8.
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.max_retries = retries;
        self
    }

    /// The most records one `GetRecords` returns (1 to 1000). Default: 1000.
    pub fn limit(mut self, limit: i32) -> Self {
        self.limit = limit.clamp(1, 1000);
        self
    }

    /// Starts reading: the changes as a [`Stream`].
    pub fn stream(self) -> Changes<T, V> {
        let skipped = Arc::new(AtomicU64::new(0));
        let table = self.client.table_name_of(self.decoder.schema);
        let reader = Reader {
            streams: None,
            table,
            stream_arn: None,
            shards: Vec::new(),
            buffer: VecDeque::new(),
            pending: None,
            skipped: skipped.clone(),
            last_record: Instant::now(),
            last_refresh: None,
            idle_rounds: 0,
            finished: false,
            builder: self,
        };
        let inner = futures::stream::unfold(reader, |mut reader| async move {
            let item = reader.next().await?;
            Some((item, reader))
        });
        Changes {
            inner: Box::pin(inner),
            skipped,
        }
    }
}

/// The changes of a table, as a [`Stream`] of typed [`Change`]s.
///
/// **Delivery.** At least once, and in order per key: the records of a shard come in
/// order, and a shard's children only after the shard is done. A change counts as handled
/// once the next one is asked for: its checkpoint is saved then, so a consumer that stops
/// (or fails) in between gets it again on restart. Make handling idempotent, for example
/// with a condition on the item's `#[version]`, or by recording the change's
/// `event_id`/`sequence_number` in the same conditional write as its effect.
pub struct Changes<T: Send + 'static, V: View> {
    inner: BoxedChanges<T, V>,
    skipped: Arc<AtomicU64>,
}

impl<T: Send + 'static, V: View> Changes<T, V> {
    /// How many records were skipped so far because they belong to an entity the target
    /// type does not cover.
    pub fn skipped(&self) -> u64 {
        self.skipped.load(Ordering::Relaxed)
    }
}

impl<T: Send + 'static, V: View> Stream for Changes<T, V> {
    type Item = Result<Change<T, V>>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

/// The stream inside [`Changes`].
type BoxedChanges<T, V> = Pin<Box<dyn Stream<Item = Result<Change<T, V>>> + Send>>;

/// One shard of the stream, as the consumer follows it.
struct Shard {
    id: String,
    parent: Option<String>,
    iterator: Option<String>,
    /// Every record of the closed shard was handled.
    done: bool,
    /// `GetRecords` returned no next iterator: the shard is closed and read to its end.
    exhausted: bool,
}

/// What the buffer holds: a record read from a shard, or the end of a closed shard.
enum Entry {
    Record(usize, Box<Record>),
    End(usize),
}

struct Reader<T, V> {
    builder: ChangesBuilder<T, V>,
    /// Made on the first request.
    streams: Option<aws_sdk_dynamodbstreams::Client>,
    table: String,
    stream_arn: Option<String>,
    shards: Vec<Shard>,
    buffer: VecDeque<Entry>,
    /// The last record yielded or skipped, whose checkpoint is saved on the next call.
    pending: Option<(usize, String)>,
    skipped: Arc<AtomicU64>,
    last_record: Instant,
    last_refresh: Option<Instant>,
    idle_rounds: u32,
    finished: bool,
}

/// How often the shard list is read again while records flow.
const REFRESH: Duration = Duration::from_secs(10);

impl<T: Send + 'static, V: View> Reader<T, V> {
    async fn next(&mut self) -> Option<Result<Change<T, V>>> {
        if self.finished {
            return None;
        }
        match self.next_inner().await {
            Ok(Some(change)) => Some(Ok(change)),
            Ok(None) => {
                self.finished = true;
                None
            }
            Err(e) => {
                self.finished = true;
                Some(Err(e.with_model(self.builder.decoder.schema.model)))
            }
        }
    }

    fn arn(&self) -> &str {
        self.stream_arn.as_deref().unwrap_or_default()
    }

    async fn save(&self, shard: usize, checkpoint: Checkpoint) -> Result<()> {
        let b = &self.builder;
        b.checkpoints
            .save(&b.consumer, self.arn(), &self.shards[shard].id, checkpoint)
            .await
    }

    async fn next_inner(&mut self) -> Result<Option<Change<T, V>>> {
        loop {
            if let Some((shard, sequence)) = self.pending.take() {
                self.save(shard, Checkpoint::After(sequence)).await?;
            }
            match self.buffer.pop_front() {
                Some(Entry::Record(shard, record)) => {
                    self.pending = Some((shard, record.sequence_number.clone()));
                    match self.builder.decoder.decode::<V>(*record) {
                        Decoded::Skipped => {
                            self.skipped.fetch_add(1, Ordering::Relaxed);
                        }
                        Decoded::Change(change) => return change.map(Some),
                    }
                    continue;
                }
                Some(Entry::End(shard)) => {
                    self.save(shard, Checkpoint::ShardEnd).await?;
                    self.shards[shard].done = true;
                    continue;
                }
                None => {}
            }
            let read = self.poll_round().await?;
            if read {
                self.idle_rounds = 0;
                self.last_record = Instant::now();
                continue;
            }
            if self.shards.iter().all(|s| s.done) && !self.shards.is_empty() {
                // Every shard is closed and handled: the stream was turned off.
                self.refresh_shards().await?;
                if self.shards.iter().all(|s| s.done) {
                    return Ok(None);
                }
            }
            if let Some(idle) = self.builder.stop_when_idle {
                if self.last_record.elapsed() >= idle {
                    return Ok(None);
                }
            }
            let ceiling = self.builder.poll_interval;
            let wait = (ceiling / 20)
                .saturating_mul(1 << self.idle_rounds.min(5))
                .min(ceiling);
            self.idle_rounds += 1;
            tokio::time::sleep(wait).await;
        }
    }

    /// Reads the stream's shards again: new ones are added, known ones kept as they are.
    async fn refresh_shards(&mut self) -> Result<()> {
        if self.stream_arn.is_none() {
            let arn = self.builder.client.latest_stream_arn(&self.table).await?;
            let Some(arn) = arn else {
                return Err(Error::config(format!(
                    "table `{}` has no stream: declare `#[dynorm(stream = \"..\")]` and create the table, or call `enable_stream`",
                    self.table
                ))
                .with_operation("changes")
                .with_table(&self.table));
            };
            self.stream_arn = Some(arn);
        }
        let mut start: Option<String> = None;
        loop {
            let arn = self.arn().to_owned();
            let output = self
                .retrying(|streams| {
                    streams
                        .describe_stream()
                        .stream_arn(arn.clone())
                        .set_exclusive_start_shard_id(start.clone())
                        .send()
                })
                .await?;
            let Some(description) = output.stream_description else {
                break;
            };
            for shard in description.shards.unwrap_or_default() {
                let Some(id) = shard.shard_id else { continue };
                if self.shards.iter().all(|s| s.id != id) {
                    self.shards.push(Shard {
                        id,
                        parent: shard.parent_shard_id,
                        iterator: None,
                        done: false,
                        exhausted: false,
                    });
                }
            }
            start = description.last_evaluated_shard_id;
            if start.is_none() {
                break;
            }
        }
        self.last_refresh = Some(Instant::now());
        Ok(())
    }

    /// Whether a shard may be read: its parent is done, or no longer in the stream.
    fn ready(&self, shard: usize) -> bool {
        let s = &self.shards[shard];
        if s.done || s.exhausted {
            return false;
        }
        match &s.parent {
            None => true,
            Some(parent) => self
                .shards
                .iter()
                .find(|p| &p.id == parent)
                .is_none_or(|p| p.done),
        }
    }

    /// One `GetRecords` on every shard that may be read; whether anything was buffered.
    async fn poll_round(&mut self) -> Result<bool> {
        let stale = self.last_refresh.is_none_or(|at| at.elapsed() >= REFRESH);
        if stale || !(0..self.shards.len()).any(|i| self.ready(i)) {
            self.refresh_shards().await?;
        }
        let mut read = false;
        for shard in 0..self.shards.len() {
            if !self.ready(shard) {
                continue;
            }
            if self.shards[shard].iterator.is_none() && !self.open_iterator(shard).await? {
                continue;
            }
            read |= self.get_records(shard).await?;
        }
        Ok(read)
    }

    /// Gets a shard iterator from the checkpoint; false when the shard is already done.
    async fn open_iterator(&mut self, shard: usize) -> Result<bool> {
        let b = &self.builder;
        let id = self.shards[shard].id.clone();
        let checkpoint = b.checkpoints.load(&b.consumer, self.arn(), &id).await?;
        let (kind, sequence) = match checkpoint {
            Some(Checkpoint::ShardEnd) => {
                self.shards[shard].done = true;
                return Ok(false);
            }
            Some(Checkpoint::After(sequence)) => {
                (ShardIteratorType::AfterSequenceNumber, Some(sequence))
            }
            None if b.start_at == StartAt::Latest && self.shards[shard].parent.is_none() => {
                (ShardIteratorType::Latest, None)
            }
            None => (ShardIteratorType::TrimHorizon, None),
        };
        let arn = self.arn().to_owned();
        let output = self
            .retrying(|streams| {
                streams
                    .get_shard_iterator()
                    .stream_arn(arn.clone())
                    .shard_id(id.clone())
                    .shard_iterator_type(kind.clone())
                    .set_sequence_number(sequence.clone())
                    .send()
            })
            .await?;
        let opened = output.shard_iterator.is_some();
        match output.shard_iterator {
            Some(iterator) => self.shards[shard].iterator = Some(iterator),
            None => {
                // Closed and read to its end already.
                self.shards[shard].exhausted = true;
                self.buffer.push_back(Entry::End(shard));
            }
        }
        Ok(opened)
    }

    /// One `GetRecords` on a shard; whether anything was buffered.
    async fn get_records(&mut self, shard: usize) -> Result<bool> {
        let Some(iterator) = self.shards[shard].iterator.clone() else {
            return Ok(false);
        };
        let limit = self.builder.limit;
        let result = self
            .retrying(|streams| {
                streams
                    .get_records()
                    .shard_iterator(iterator.clone())
                    .limit(limit)
                    .send()
            })
            .await;
        let output = match result {
            Ok(output) => output,
            Err(e) if e.code() == Some("ExpiredIteratorException") => {
                // Open a new one from the checkpoint, which is up to date: the buffer is
                // empty whenever a shard is read.
                self.shards[shard].iterator = None;
                return Ok(false);
            }
            Err(e) => return Err(e),
        };
        let mut read = false;
        for record in output.records.unwrap_or_default() {
            if let Some(record) = Record::from_streams(record) {
                self.buffer
                    .push_back(Entry::Record(shard, Box::new(record)));
                read = true;
            }
        }
        self.shards[shard].iterator = output.next_shard_iterator;
        if self.shards[shard].iterator.is_none() {
            self.shards[shard].exhausted = true;
            self.buffer.push_back(Entry::End(shard));
            read = true;
        }
        Ok(read)
    }

    /// Sends a streams request, retrying what throttling or a passing fault explains,
    /// at most `max_retries` times, with exponential backoff and full jitter.
    async fn retrying<O, E, F, Fut>(&mut self, send: F) -> Result<O>
    where
        F: Fn(&aws_sdk_dynamodbstreams::Client) -> Fut,
        Fut: std::future::Future<
            Output = std::result::Result<
                O,
                aws_sdk_dynamodbstreams::error::SdkError<
                    E,
                    aws_sdk_dynamodbstreams::config::http::HttpResponse,
                >,
            >,
        >,
        E: aws_sdk_dynamodbstreams::error::ProvideErrorMetadata
            + std::error::Error
            + Send
            + Sync
            + 'static,
    {
        let streams = match &self.streams {
            Some(streams) => streams.clone(),
            None => {
                let streams = self.builder.client.streams_client().await;
                self.streams = Some(streams.clone());
                streams
            }
        };
        let mut attempt = 0;
        loop {
            match send(&streams).await {
                Ok(output) => return Ok(output),
                Err(e) => {
                    let error = from_sdk(e)
                        .with_operation("changes")
                        .with_table(&self.table);
                    if !error.is_retryable() || attempt >= self.builder.max_retries {
                        return Err(error);
                    }
                    attempt += 1;
                    tokio::time::sleep(backoff(attempt)).await;
                }
            }
        }
    }
}

/// A random delay in `[0, min(5 s, 50 ms * 2^attempt)]`.
fn backoff(attempt: u32) -> Duration {
    static STATE: AtomicU64 = AtomicU64::new(0);
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1);
    let mut x = STATE.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed) ^ seed;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    let ceiling = Duration::from_millis(50)
        .saturating_mul(1u32 << attempt.min(16))
        .min(Duration::from_secs(5));
    let nanos = u64::try_from(ceiling.as_nanos()).unwrap_or(u64::MAX).max(1);
    Duration::from_nanos(x % nanos)
}

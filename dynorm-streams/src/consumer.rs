//! `dynorm_streams::changes::<M>(&db)`: a consumer that follows every shard of a table's stream and yields
//! typed changes, checkpointing as it goes.

use dynorm::__ext::error::Context as _;
use std::collections::VecDeque;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use aws_sdk_dynamodbstreams::types::ShardIteratorType;
use futures_util::Stream;
use tokio::time::Instant;
use tracing::{Instrument, Span};

use crate::change::{Change, Decoded, Decoder};
use crate::checkpoint::{Checkpoint, CheckpointKey, CheckpointStore, MemoryCheckpoints};
use crate::dead_letter::{DeadLetter, DeadLetters};
use crate::lineage::{Lineage, ListedShard, Progress};
use crate::record::Record;
use dynorm::__ext::client::Client;
use dynorm::__ext::error::WithStreamRecord as _;
use dynorm::__ext::error::{from_sdk, Error, Result, StreamRecordRef};
use dynorm::__ext::observe::span::{self, request_span};
use dynorm::__ext::observe::Tally;
use dynorm::__ext::observe::TallyStreams as _;
use dynorm::__ext::schema::{Collection, Keyed, Streamed, View};

/// Where a consumer with no checkpoint in a shard starts reading it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartAt {
    /// The oldest record the stream still holds (24 hours back at most). The default.
    TrimHorizon,
    /// Only records written after the consumer starts.
    Latest,
}

/// Builds a change consumer: `dynorm_streams::changes::<Membership>(&db).consumer("counts").stream()`.
#[must_use = "a builder does nothing until `stream` is called"]
pub struct ChangesBuilder<T: Keyed, V> {
    client: Client,
    decoder: Decoder<T>,
    consumer: String,
    checkpoints: Arc<dyn CheckpointStore>,
    start_at: StartAt,
    /// `(shard id, sequence number)`: positions to start after, whatever the checkpoints.
    start_after: Vec<(String, String)>,
    /// Where records that do not decode go; without it they stop the consumer.
    dead_letters: Option<Arc<dyn DeadLetters>>,
    poll_interval: Duration,
    stop_when_idle: Option<Duration>,
    limit: i32,
    /// The DynamoDB Streams client given to the builder; without one, the one the client
    /// makes from its DynamoDB client's configuration.
    streams: Option<aws_sdk_dynamodbstreams::Client>,
    /// A setting refused before anything is sent; the stream yields it first.
    invalid: Option<Error>,
    /// Where the requests sent, the records skipped and those dead-lettered are counted.
    tally: Tally,
    view: PhantomData<fn() -> V>,
}

/// The changes of `M`'s table, decoded as `M` under the table's view type. On a shared
/// table, changes to items of other entities are skipped and counted
/// ([`Tally::skipped`], with [`ChangesBuilder::tally`]).
///
/// ```no_run
/// # use dynorm::Model;
/// # use dynorm_streams::ChangeKind;
/// # use futures::StreamExt;
/// # #[derive(Model, Debug)] #[dynorm(stream = "new_and_old_images")] struct User { #[hash_key] id: String, name: String }
/// # async fn demo(db: dynorm::Client) -> Result<(), dynorm::Error> {
/// let mut changes = dynorm_streams::changes::<User>(&db).consumer("audit").stream();
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
pub fn changes<M: Streamed>(db: &Client) -> ChangesBuilder<M, M::View> {
    ChangesBuilder::new(db.clone(), Decoder::model())
}

/// The changes of a shared table, decoded as the collection enum `C` by each item's
/// entity name, under the view type of `C`'s first entity. Items of entities `C` does
/// not list are skipped and counted ([`Tally::skipped`], with [`ChangesBuilder::tally`]), never failed.
pub fn collection_changes<C>(db: &Client) -> ChangesBuilder<C, <C::Anchor as Streamed>::View>
where
    C: Collection,
    C::Anchor: Streamed,
{
    ChangesBuilder::new(db.clone(), Decoder::collection())
}

/// The ARN of the latest stream of table `table`, or `None` when it has had none. When
/// the client has no DynamoDB Streams client yet, this request makes it (see
/// [`made_streams_client`](crate::made_streams_client)).
async fn latest_stream_arn(client: &Client, table: &str, probe: bool) -> Result<Option<String>> {
    let request = client.sdk().describe_table().table_name(table);
    let probe = if probe {
        crate::client::probe(client)
    } else {
        None
    };
    let sent = match probe {
        Some(probe) => {
            let span = request_span!("DescribeTable", tracing::field::Empty, table);
            request
                .customize()
                .interceptor(probe)
                .send()
                .instrument(span)
                .await
        }
        None => {
            let span = request_span!("DescribeTable", tracing::field::Empty, table);
            request.send().instrument(span).await
        }
    };
    let output = sent.map_err(|e| from_sdk(e).at_operation("changes").at_table(table))?;
    Ok(output
        .table()
        .and_then(|t| t.latest_stream_arn())
        .map(str::to_owned))
}

impl<T: Keyed, V: View> ChangesBuilder<T, V> {
    /// The DynamoDB Streams client to read the stream with, used as is. Without one, the
    /// consumer uses the one the client makes once, when it first reads a stream, from the
    /// DynamoDB client's configuration and never from the process environment: the same
    /// credentials (through its identity cache), region, HTTP client, sleep
    /// implementation, time source, retry, timeout and stalled-stream settings, FIPS and
    /// dual-stack settings, auth scheme preference, app name, clock skew setting,
    /// interceptors and retry classifiers. The endpoint URL is copied too, unless it is
    /// one of AWS's own DynamoDB endpoints (`*.amazonaws.com`, `*.api.aws`, ...), which do
    /// not serve DynamoDB Streams: then AWS's streams endpoint for the region is used. A
    /// custom endpoint (DynamoDB Local, an emulator) serves both.
    pub fn streams_client(mut self, streams: aws_sdk_dynamodbstreams::Client) -> Self {
        self.streams = Some(streams);
        self
    }

    fn new(client: Client, decoder: Decoder<T>) -> Self {
        Self {
            client,
            decoder,
            consumer: "default".to_owned(),
            checkpoints: Arc::new(MemoryCheckpoints::new()),
            start_at: StartAt::TrimHorizon,
            start_after: Vec::new(),
            dead_letters: None,
            poll_interval: Duration::from_secs(1),
            stop_when_idle: None,
            limit: 1000,
            streams: None,
            invalid: None,
            tally: Tally::default(),
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

    /// Starts shard `shard_id` after the record with sequence number `sequence_number`:
    /// that record and the ones before it in the shard are passed, as if handled. The
    /// shard's checkpoint is moved there when it is behind (never back), so a consumer
    /// made again without this call resumes there too. Call it once per shard; other
    /// shards follow their checkpoints and [`StartAt`].
    ///
    /// To get past a record that does not decode, give the shard and sequence number its
    /// error names ([`Error::stream_record`]). A sequence number that is not a decimal
    /// number of 1 to 40 digits is an error that the stream yields before sending
    /// anything, and so is a shard the stream does not list.
    pub fn start_after(
        mut self,
        shard_id: impl Into<String>,
        sequence_number: impl Into<String>,
    ) -> Self {
        let (shard_id, sequence_number) = (shard_id.into(), sequence_number.into());
        let digits = (1..=40).contains(&sequence_number.len())
            && sequence_number.bytes().all(|b| b.is_ascii_digit());
        if !digits || shard_id.is_empty() {
            self.invalid = Some(
                Error::new(dynorm::ErrorKind::Validation, format!(
                    "`start_after` takes a shard id and a sequence number of 1 to 40 digits, not `{shard_id}` and `{sequence_number}`"
                ))
                .at_operation("changes"),
            );
        }
        self.start_after.push((shard_id, sequence_number));
        self
    }

    /// Counts into `tally` (shared by its clones): the DynamoDB Streams requests sent
    /// ([`Tally::requests`], an attempt each), the records of other entities skipped
    /// ([`Tally::skipped`]) and the records sent to the dead-letter sink
    /// ([`Tally::dead_lettered`]).
    pub fn tally(mut self, tally: &Tally) -> Self {
        self.tally = tally.clone();
        self
    }

    /// Sends each record that does not decode as the consumer's type (written by another
    /// service, or before a field became required) to `sink` with its error, counts it
    /// ([`Tally::dead_lettered`]) and moves past it, instead of stopping there. The
    /// checkpoint moves past such a record only once `sink` has accepted it; a sink that
    /// fails ends the stream with its error, naming the record, and a restart reads the
    /// record again. Without it (the default), such a record ends the stream with its
    /// error, and a restart stops at it again.
    ///
    /// With a sink, the consumer keeps a copy of each record until it is decoded.
    pub fn dead_letters(mut self, sink: impl DeadLetters) -> Self {
        self.dead_letters = Some(Arc::new(sink));
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

    /// The most records one `GetRecords` returns (its `Limit`), 1 to 1000; any other value
    /// is an error that the stream yields before sending anything. Default: 1000.
    pub fn page_size(mut self, limit: u32) -> Self {
        match i32::try_from(limit) {
            Ok(limit) if (1..=1000).contains(&limit) => self.limit = limit,
            _ => {
                self.invalid = Some(
                    Error::new(
                        dynorm::ErrorKind::Validation,
                        format!(
                            "a stream's limit is 1 to 1000 records per GetRecords, not {limit}"
                        ),
                    )
                    .at_operation("changes"),
                )
            }
        }
        self
    }

    /// Starts reading: the changes as a [`Stream`].
    pub fn stream(self) -> Changes<T, V> {
        let table = dynorm::__ext::client::table_name_of(&self.client, self.decoder.schema);
        let committer = Committer {
            store: self.checkpoints.clone(),
            consumer: self.consumer.clone().into(),
            pending: Arc::default(),
        };
        let reader = Reader {
            streams: None,
            table,
            stream_arn: None,
            lineage: Lineage::default(),
            buffer: VecDeque::new(),
            committer: committer.clone(),
            positioned: false,
            last_record: Instant::now(),
            last_refresh: None,
            idle_rounds: 0,
            finished: false,
            builder: self,
        };
        let inner = futures_util::stream::unfold(reader, |mut reader| async move {
            let item = reader.next().await?;
            Some((item, reader))
        });
        Changes {
            inner: Box::pin(inner),
            committer,
        }
    }
}

/// The changes of a table, as a [`Stream`] of typed [`Change`]s.
///
/// **Delivery.** At least once, and in order per key: the records of a shard come in
/// order, and a shard's children only after the shard is done. A change counts as handled
/// once [`commit`](Self::commit) is called or the next change is asked for: its checkpoint
/// is saved then. Call `commit` after handling a change when the consumer may stop before
/// asking for the next one, so that a restart begins after it; a consumer that stops (or
/// fails) before either gets the change again. Make handling idempotent all the same, for
/// example with a condition on the item's `#[version]`, or by recording the change's
/// `event_id`/`sequence_number` in the same conditional write as its effect.
pub struct Changes<T: Keyed, V: View> {
    inner: BoxedChanges<T, V>,
    committer: Committer,
}

impl<T: Keyed, V: View> Changes<T, V> {
    /// Saves the checkpoint of the last change yielded, now: the handler is done with it,
    /// and a consumer made again with the same store and name starts after it. Asking for
    /// the next change does the same; call this when the consumer may stop first.
    ///
    /// ```no_run
    /// # use dynorm::Model;
    /// # use futures::StreamExt;
    /// # #[derive(Model, Debug)] #[dynorm(stream = "new_image")] struct User { #[hash_key] id: String }
    /// # async fn demo(db: dynorm::Client, store: dynorm_streams::MemoryCheckpoints) -> Result<(), dynorm::Error> {
    /// let mut changes = dynorm_streams::changes::<User>(&db).consumer("mailer").checkpoints(store).stream();
    /// while let Some(change) = changes.next().await {
    ///     let change = change?;
    ///     println!("{:?} changed", change.key);
    ///     changes.commit().await?; // a restart begins after this change
    /// #   break;
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn commit(&mut self) -> Result<()> {
        self.committer.commit().await
    }
}

impl<T: Keyed, V: View> Stream for Changes<T, V> {
    type Item = Result<Change<T, V>>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

/// The stream inside [`Changes`].
type BoxedChanges<T, V> = Pin<Box<dyn Stream<Item = Result<Change<T, V>>> + Send>>;

/// The last record yielded or skipped, whose checkpoint is not saved yet.
struct Pending {
    stream: String,
    shard: String,
    sequence: String,
    event_id: String,
}

/// Saves the pending checkpoint: shared by [`Changes::commit`] and the reader, which
/// saves it when the next change is asked for.
#[derive(Clone)]
struct Committer {
    store: Arc<dyn CheckpointStore>,
    consumer: Arc<str>,
    pending: Arc<Mutex<Option<Pending>>>,
}

impl Committer {
    fn set(&self, pending: Pending) {
        *self.pending.lock().unwrap_or_else(|e| e.into_inner()) = Some(pending);
    }

    async fn commit(&self) -> Result<()> {
        let taken = self
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        let Some(pending) = taken else {
            return Ok(());
        };
        let checkpoint = Checkpoint::After(pending.sequence.clone());
        let saved = self
            .store
            .save(
                CheckpointKey::new(&self.consumer, &pending.stream, &pending.shard),
                checkpoint,
            )
            .await
            .map_err(|e| {
                e.at_operation("changes")
                    .with_stream_record(dynorm::__ext::error::stream_record(
                        &pending.stream,
                        Some(&pending.shard),
                        &pending.sequence,
                        &pending.event_id,
                    ))
            });
        if saved.is_err() {
            // Not saved: the next call tries again.
            let mut slot = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            if slot.is_none() {
                *slot = Some(pending);
            }
        }
        saved
    }
}

/// What the buffer holds: a record read from a shard, or the end of a closed shard.
enum Entry {
    Record(usize, Box<Record>),
    End(usize),
}

struct Reader<T: Keyed, V> {
    builder: ChangesBuilder<T, V>,
    /// The client's DynamoDB Streams client, there once the stream's ARN is known.
    streams: Option<aws_sdk_dynamodbstreams::Client>,
    table: String,
    stream_arn: Option<String>,
    /// The shards, and how far each is read.
    lineage: Lineage,
    buffer: VecDeque<Entry>,
    committer: Committer,
    /// Whether the `start_after` shards were found in the stream's shard list.
    positioned: bool,
    last_record: Instant,
    last_refresh: Option<Instant>,
    idle_rounds: u32,
    finished: bool,
}

/// How often the shard list is read again while records flow.
const REFRESH: Duration = Duration::from_secs(10);

impl<T: Keyed, V: View> Reader<T, V> {
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
                let e = match e.table() {
                    None if e.stream_record().is_some() => e.at_table(&self.table),
                    _ => e,
                };
                Some(Err(e.at_model(self.builder.decoder.schema.model)))
            }
        }
    }

    fn arn(&self) -> &str {
        self.stream_arn.as_deref().unwrap_or_default()
    }

    fn shard_id(&self, shard: usize) -> &str {
        &self.lineage.shard(shard).listed.id
    }

    /// Where an error on shard `shard`, not on one of its records, happened.
    fn at_shard(&self, shard: usize) -> StreamRecordRef {
        dynorm::__ext::error::stream_shard(self.arn(), self.shard_id(shard))
    }

    async fn next_inner(&mut self) -> Result<Option<Change<T, V>>> {
        if let Some(invalid) = self.builder.invalid.take() {
            return Err(invalid);
        }
        loop {
            // The change yielded last is handled: the next one is asked for.
            self.committer.commit().await?;
            match self.buffer.pop_front() {
                Some(Entry::Record(shard, record)) => {
                    let pending = Pending {
                        stream: self.arn().to_owned(),
                        shard: self.shard_id(shard).to_owned(),
                        sequence: record.sequence_number.clone(),
                        event_id: record.event_id.clone(),
                    };
                    // Kept for the sink, which gets the record as it came.
                    let copy = self
                        .builder
                        .dead_letters
                        .is_some()
                        .then(|| (*record).clone());
                    match self.builder.decoder.decode::<V>(*record) {
                        Decoded::Skipped => {
                            self.builder.tally.add_skipped_records(1);
                            self.committer.set(pending);
                        }
                        Decoded::Change(Ok(change)) => {
                            self.committer.set(pending);
                            return Ok(Some(change));
                        }
                        Decoded::Change(Err(e)) => {
                            let at = dynorm::__ext::error::stream_record(
                                &pending.stream,
                                Some(&pending.shard),
                                &pending.sequence,
                                &pending.event_id,
                            );
                            let e = e
                                .at_operation("changes")
                                .at_model(self.builder.decoder.schema.model)
                                .at_table(&self.table)
                                .with_stream_record(at.clone());
                            let (Some(sink), Some(copy)) = (&self.builder.dead_letters, copy)
                            else {
                                // Never checkpointed: a restart reads it again.
                                return Err(e);
                            };
                            let mut letter = DeadLetter::of(
                                copy,
                                &self.builder.consumer,
                                &self.table,
                                self.arn(),
                            );
                            letter.shard_id = Some(pending.shard.clone());
                            letter.error = e.to_string();
                            sink.save(letter).await.map_err(|failed| {
                                failed
                                    .at_operation("changes")
                                    .with_stream_record(at)
                                    .in_context(&format!(
                                        "the dead-letter sink did not take a record that does not decode ({e})"
                                    ))
                            })?;
                            // Passed only now that the sink holds it.
                            self.builder.tally.add_dead_letters(1);
                            self.committer.set(pending);
                        }
                    }
                    continue;
                }
                Some(Entry::End(shard)) => {
                    let b = &self.builder;
                    b.checkpoints
                        .save(
                            CheckpointKey::new(&b.consumer, self.arn(), self.shard_id(shard)),
                            Checkpoint::ShardEnd,
                        )
                        .await
                        .map_err(|e| e.with_stream_record(self.at_shard(shard)))?;
                    self.lineage.shard_mut(shard).progress = Progress::Done;
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
            if self.lineage.all_done() {
                // Every shard is closed and handled: the stream was turned off.
                self.refresh_shards().await?;
                if self.lineage.all_done() {
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

    /// Reads every page of the stream's shard list: new shards are added, known ones
    /// keep their progress.
    async fn refresh_shards(&mut self) -> Result<()> {
        if self.stream_arn.is_none() {
            let given = self.builder.streams.is_some();
            let arn = latest_stream_arn(&self.builder.client, &self.table, !given).await?;
            let Some(arn) = arn else {
                return Err(Error::new(dynorm::ErrorKind::Config, format!(
                    "table `{}` has no stream: declare `#[dynorm(stream = \"..\")]` and create the table, or call `enable_stream`",
                    self.table
                ))
                .at_operation("changes")
                .at_table(&self.table));
            };
            self.stream_arn = Some(arn);
            // Sent with the SDK's retries off: `retrying` makes every attempt, under the
            // client's one retry policy.
            let streams = self.builder.streams.clone();
            self.streams = streams
                .or_else(|| crate::made_streams_client(&self.builder.client))
                .map(|streams| {
                    let config = streams
                        .config()
                        .to_builder()
                        .retry_config(
                            aws_sdk_dynamodbstreams::config::retry::RetryConfig::disabled(),
                        )
                        .build();
                    aws_sdk_dynamodbstreams::Client::from_conf(config)
                });
        }
        let mut start: Option<String> = None;
        loop {
            let arn = self.arn().to_owned();
            let output = self
                .retrying(
                    |model, table| {
                        request_span!(
                            "DescribeStream",
                            model,
                            table,
                            "dynorm.attempt" = tracing::field::Empty
                        )
                    },
                    |streams| {
                        streams
                            .describe_stream()
                            .stream_arn(arn.clone())
                            .set_exclusive_start_shard_id(start.clone())
                            .send()
                    },
                )
                .await?;
            let Some(description) = output.stream_description else {
                break;
            };
            let page = description.shards.unwrap_or_default().into_iter();
            self.lineage.merge(page.filter_map(|shard| {
                Some(ListedShard {
                    id: shard.shard_id?,
                    parent: shard.parent_shard_id,
                    ending_sequence: shard
                        .sequence_number_range
                        .and_then(|range| range.ending_sequence_number),
                })
            }));
            // The next page starts after the last shard of this one.
            start = description.last_evaluated_shard_id;
            if start.is_none() {
                break;
            }
        }
        self.last_refresh = Some(Instant::now());
        Ok(())
    }

    /// One `GetRecords` on every shard the lineage says may be read; whether anything was
    /// buffered.
    async fn poll_round(&mut self) -> Result<bool> {
        let stale = self.last_refresh.is_none_or(|at| at.elapsed() >= REFRESH);
        if stale || self.lineage.readable().is_empty() {
            self.refresh_shards().await?;
        }
        if !self.positioned {
            // A position to start after, in a shard the stream does not have, is refused
            // rather than passed over.
            let listed = |id: &str| self.lineage.contains(id);
            if let Some((shard, _)) = self.builder.start_after.iter().find(|(s, _)| !listed(s)) {
                return Err(Error::new(dynorm::ErrorKind::Validation, format!(
                    "`start_after` names shard `{shard}`, which the stream does not list (closed shards are trimmed after 24 hours)"
                ))
                .at_operation("changes")
                .at_table(&self.table));
            }
            self.positioned = true;
        }
        let mut read = false;
        // A shard done during this round (its checkpoint says so) lets its children be
        // read in the same round.
        let mut seen = Vec::new();
        while let Some(shard) = self
            .lineage
            .readable()
            .into_iter()
            .find(|s| !seen.contains(s))
        {
            seen.push(shard);
            let at = |reader: &Self, e: Error| e.with_stream_record(reader.at_shard(shard));
            if self.lineage.shard(shard).progress == Progress::Unopened {
                let opened = self.open_iterator(shard).await;
                if !opened.map_err(|e| at(self, e))? {
                    continue;
                }
            }
            let got = self.get_records(shard).await;
            read |= got.map_err(|e| at(self, e))?;
        }
        Ok(read)
    }

    /// Gets a shard iterator from the checkpoint; false when the shard needs no reading.
    async fn open_iterator(&mut self, shard: usize) -> Result<bool> {
        let b = &self.builder;
        let id = self.shard_id(shard).to_owned();
        let mut checkpoint = b
            .checkpoints
            .load(CheckpointKey::new(&b.consumer, self.arn(), &id))
            .await?;
        if let Some((_, sequence)) = b.start_after.iter().find(|(shard, _)| *shard == id) {
            let after = Checkpoint::After(sequence.clone());
            if checkpoint
                .as_ref()
                .is_none_or(|c| !c.is_at_or_after(&after))
            {
                b.checkpoints
                    .save(
                        CheckpointKey::new(&b.consumer, self.arn(), &id),
                        after.clone(),
                    )
                    .await?;
                checkpoint = Some(after);
            }
        }
        if let Some(checkpoint) = &checkpoint {
            if self.lineage.checkpoint_finishes(shard, checkpoint) {
                self.lineage.shard_mut(shard).progress = Progress::Done;
                return Ok(false);
            }
        }
        let has_parent = self.lineage.shard(shard).listed.parent.is_some();
        let (kind, sequence) = match checkpoint {
            Some(Checkpoint::After(sequence)) => {
                (ShardIteratorType::AfterSequenceNumber, Some(sequence))
            }
            None if b.start_at == StartAt::Latest && !has_parent => {
                (ShardIteratorType::Latest, None)
            }
            Some(Checkpoint::ShardEnd) | None => (ShardIteratorType::TrimHorizon, None),
        };
        let arn = self.arn().to_owned();
        let output = self
            .retrying(
                |model, table| {
                    request_span!(
                        "GetShardIterator",
                        model,
                        table,
                        "dynorm.attempt" = tracing::field::Empty
                    )
                },
                |streams| {
                    streams
                        .get_shard_iterator()
                        .stream_arn(arn.clone())
                        .shard_id(id.clone())
                        .shard_iterator_type(kind.clone())
                        .set_sequence_number(sequence.clone())
                        .send()
                },
            )
            .await
            .map_err(|e| trimmed_context(e, &id, sequence.as_deref()))?;
        let tracked = self.lineage.shard_mut(shard);
        match output.shard_iterator {
            Some(iterator) => {
                tracked.iterator = Some(iterator);
                tracked.progress = Progress::Reading;
                Ok(true)
            }
            None => {
                // Closed and read to its end already.
                tracked.progress = Progress::ReadToEnd;
                self.buffer.push_back(Entry::End(shard));
                Ok(false)
            }
        }
    }

    /// One `GetRecords` on a shard; whether anything was buffered.
    async fn get_records(&mut self, shard: usize) -> Result<bool> {
        let Some(iterator) = self.lineage.shard(shard).iterator.clone() else {
            return Ok(false);
        };
        let limit = self.builder.limit;
        let result = self
            .retrying(
                |model, table| {
                    request_span!(
                        "GetRecords",
                        model,
                        table,
                        "dynorm.attempt" = tracing::field::Empty
                    )
                },
                |streams| {
                    streams
                        .get_records()
                        .shard_iterator(iterator.clone())
                        .limit(limit)
                        .send()
                },
            )
            .await;
        let output = match result {
            Ok(output) => {
                self.lineage.shard_mut(shard).expired_in_a_row = 0;
                output
            }
            Err(e) if e.code() == Some("ExpiredIteratorException") => {
                // Open a new one after the checkpoint, which is up to date: the buffer is
                // empty whenever a shard is read, and the last change was committed.
                let tracked = self.lineage.shard_mut(shard);
                tracked.iterator = None;
                tracked.progress = Progress::Unopened;
                tracked.expired_in_a_row += 1;
                if tracked.expired_in_a_row
                    >= dynorm::__ext::client::retry_policy(&self.builder.client).max_attempts
                {
                    return Err(e.in_context(&format!(
                        "the iterator of shard `{}` expired {} times in a row",
                        tracked.listed.id, tracked.expired_in_a_row
                    )));
                }
                return Ok(false);
            }
            Err(e) => {
                let id = self.shard_id(shard).to_owned();
                return Err(trimmed_context(e, &id, None));
            }
        };
        let mut read = false;
        for record in output.records.unwrap_or_default() {
            if let Some(record) = Record::from_streams(record) {
                self.buffer
                    .push_back(Entry::Record(shard, Box::new(record)));
                read = true;
            }
        }
        let tracked = self.lineage.shard_mut(shard);
        tracked.iterator = output.next_shard_iterator;
        if tracked.iterator.is_none() {
            tracked.progress = Progress::ReadToEnd;
            self.buffer.push_back(Entry::End(shard));
            read = true;
        }
        Ok(read)
    }
    /// Sends a streams request, retrying what throttling or a passing fault explains, in at
    /// most the client's `RetryPolicy::max_attempts` HTTP attempts (the streams client's own
    /// retries are off), with its exponential backoff and full jitter.
    async fn retrying<O, E, F, Fut>(&mut self, span: fn(&str, &str) -> Span, send: F) -> Result<O>
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
        let Some(streams) = self.streams.clone() else {
            return Err(Error::new(dynorm::ErrorKind::Config,
                "no DynamoDB Streams client: the table was not described before its stream was read",
            )
            .at_operation("changes")
            .at_table(&self.table));
        };
        let policy = dynorm::__ext::client::retry_policy(&self.builder.client);
        let mut attempt = 0;
        loop {
            // Every request is a span, as every other request dynorm sends.
            let span = span(self.builder.decoder.schema.model, &self.table);
            span.record("dynorm.attempt", attempt + 1);
            self.builder.tally.add_stream_requests(1);
            match send(&streams).instrument(span.clone()).await {
                Ok(output) => return Ok(output),
                Err(e) => {
                    let error = from_sdk(e).at_operation("changes").at_table(&self.table);
                    span::record_error(&span, &error);
                    if !error.is_retryable() || attempt + 1 >= policy.max_attempts {
                        return Err(error);
                    }
                    attempt += 1;
                    tokio::time::sleep(dynorm::__ext::client::retry_delay(&policy, attempt)).await;
                }
            }
        }
    }
}

/// Says which records a trimmed stream lost, on a `TrimmedDataAccessException`.
fn trimmed_context(error: Error, shard: &str, after: Option<&str>) -> Error {
    if error.kind() != dynorm::ErrorKind::StreamTrimmed {
        return error;
    }
    let after = after.map_or_else(
        || "at its iterator".to_owned(),
        |sequence| format!("after checkpoint {sequence}"),
    );
    error.in_context(&format!(
        "records of shard `{shard}` {after} are gone from the stream; read it again from `StartAt::TrimHorizon` with a new consumer name, after recovering what was lost"
    ))
}

//! Change streams: a table's DynamoDB stream, decoded as the application's own types.
//!
//! - A model declares its table's stream with `#[dynorm(stream = "new_and_old_images")]`
//!   (or `keys_only`, `new_image`, `old_image`); `create_table` turns it on, `verify_table`
//!   reports a difference, and [`Client::enable_stream`](crate::Client::enable_stream)
//!   turns it on for a table that exists.
//! - A [`Change`] is a record decoded as the model: [`ChangeKind::Insert`], `Modify`,
//!   `Remove`, or `Expire` for a deletion by time to live, with the images the view type
//!   carries and [`NoImage`] where it carries none.
//! - With the `streams` feature, [`Client::changes`](crate::Client::changes) follows every
//!   shard of the stream as a [`Stream`](futures_util::Stream), checkpointing through a
//!   [`CheckpointStore`];
//!   [`Client::collection_changes`](crate::Client::collection_changes) decodes a shared
//!   table into a `#[derive(Collection)]` enum. The feature adds the DynamoDB Streams SDK
//!   (`aws-sdk-dynamodbstreams`); decoding a record as a [`Change`], the checkpoint and
//!   dead-letter stores, and the `lambda` module do not need it.
//! - A record that does not decode stops the consumer with an error naming its shard,
//!   sequence number and event id ([`Error::stream_record`](crate::Error::stream_record)),
//!   or, with a [`DeadLetters`] sink, is sent there and passed.
//! - With the `lambda` feature, the `lambda` module decodes the events a Lambda function receives.

mod change;
pub(crate) mod checkpoint;
#[cfg(feature = "streams")]
mod consumer;
mod dead_letter;
#[cfg(feature = "lambda")]
#[cfg_attr(docsrs, doc(cfg(feature = "lambda")))]
pub mod lambda;
#[cfg(feature = "streams")]
mod lineage;
mod record;

pub use crate::schema::stream_view::{
    KeysOnly, NewAndOldImages, NewImage, NoImage, OldImage, StreamView, Streamed, View,
};
pub use change::{Change, ChangeKind, Decoder};
pub use checkpoint::{
    Checkpoint, CheckpointKey, CheckpointStore, MemoryCheckpoints, TableCheckpoints,
};
#[cfg(feature = "streams")]
#[cfg_attr(docsrs, doc(cfg(feature = "streams")))]
pub use consumer::{Changes, ChangesBuilder, StartAt};
pub use dead_letter::{DeadLetter, DeadLetters, MemoryDeadLetters, TableDeadLetters};
pub use record::TTL_PRINCIPAL;

/// The change type of a model under its table's view type.
// `Streamed` is named through `crate::schema`, whose crate-wide import of it has no other
// user without the `streams` and `lambda` features.
pub type ModelChange<M> = Change<M, <M as crate::schema::Streamed>::View>;

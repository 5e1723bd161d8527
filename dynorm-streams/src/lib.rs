//! # dynorm-streams
//!
//! Change streams for [dynorm](https://docs.rs/dynorm) models: a table's DynamoDB stream,
//! decoded as the application's own types.
//!
//! - A model declares its table's stream with `#[dynorm(stream = "new_and_old_images")]`
//!   (or `keys_only`, `new_image`, `old_image`); `db.tables().create::<M>()` turns it on,
//!   `verify` reports a difference, and `enable_stream` turns it on for a table that
//!   exists.
//! - A [`Change`] is a record decoded as the model: [`ChangeKind::Insert`], `Modify`,
//!   `Remove`, or `Expire` for a deletion by time to live, with the images the view type
//!   carries and [`NoImage`] where it carries none.
//! - With the `consumer` feature (on by default), [`changes`] follows every shard of the
//!   stream as a [`Stream`](futures_util::Stream), checkpointing through a
//!   [`CheckpointStore`]; [`collection_changes`] decodes a shared table into a
//!   `#[derive(Collection)]` enum. The feature adds the DynamoDB Streams SDK
//!   (`aws-sdk-dynamodbstreams`); decoding a record as a [`Change`], the checkpoint and
//!   dead-letter stores, and the `lambda` module do not need it.
//! - A record that does not decode stops the consumer with an error naming its shard,
//!   sequence number and event id ([`Error::stream_record`](dynorm::Error::stream_record)),
//!   or, with a [`DeadLetters`] sink, is sent there and passed.
//! - With the `lambda` feature, the [`lambda`] module decodes the events a Lambda function
//!   receives.
//!
//! ```no_run
//! use dynorm::Model;
//! use dynorm_streams::ChangeKind;
//! use futures::StreamExt;
//!
//! #[derive(Model, Debug)]
//! #[dynorm(stream = "new_and_old_images")]
//! struct User {
//!     #[hash_key]
//!     id: String,
//!     name: String,
//! }
//!
//! # async fn demo(db: dynorm::Client) -> Result<(), dynorm::Error> {
//! let mut changes = dynorm_streams::changes::<User>(&db).consumer("audit").stream();
//! while let Some(change) = changes.next().await {
//!     if let ChangeKind::Insert { new } = change?.kind {
//!         println!("new user {}", new.name);
//!     }
//! }
//! # Ok(()) }
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod change;
mod checkpoint;
#[cfg(feature = "consumer")]
mod client;
#[cfg(feature = "consumer")]
mod consumer;
mod dead_letter;
#[cfg(feature = "lambda")]
#[cfg_attr(docsrs, doc(cfg(feature = "lambda")))]
pub mod lambda;
#[cfg(feature = "consumer")]
mod lineage;
mod record;

pub use change::{Change, ChangeKind, Decoder};
pub use checkpoint::{
    Checkpoint, CheckpointKey, CheckpointStore, MemoryCheckpoints, TableCheckpoints,
};
#[cfg(feature = "consumer")]
#[cfg_attr(docsrs, doc(cfg(feature = "consumer")))]
pub use client::made_streams_client;
#[cfg(feature = "consumer")]
#[cfg_attr(docsrs, doc(cfg(feature = "consumer")))]
pub use consumer::{changes, collection_changes, Changes, ChangesBuilder, StartAt};
pub use dead_letter::{DeadLetter, DeadLetters, MemoryDeadLetters, TableDeadLetters};
pub use dynorm::schema::{
    KeysOnly, NewAndOldImages, NewImage, NoImage, OldImage, StreamView, Streamed, View,
};
pub use record::TTL_PRINCIPAL;

/// The change type of a model under its table's view type.
pub type ModelChange<M> = Change<M, <M as Streamed>::View>;

/// The crate's README (what crates.io shows), compiled as a doctest so that it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

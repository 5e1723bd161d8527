//! # dynorm
//!
//! A typed ORM for Amazon DynamoDB. Put `#[derive(Model)]` on a struct and get a typed
//! key checked at compile time, fast conversion to and from DynamoDB items, the
//! `CreateTable` input for the table, and typed operations.
//!
//! ```
//! use chrono::{DateTime, Utc};
//! use dynorm::Model;
//!
//! #[derive(Model, Debug, Clone, PartialEq)]
//! #[dynorm(rename_all = "camelCase")]
//! struct Message {
//!     #[hash_key]
//!     room_id: String,
//!     #[range_key]
//!     sent_at: DateTime<Utc>,
//!     author: String,
//!     text: String,
//! }
//!
//! assert_eq!(Message::HASH_KEY, "roomId");
//! assert_eq!(Message::RANGE_KEY, Some("sentAt"));
//! assert_eq!(Message::TABLE_NAME, "Message");
//!
//! // The key is a type: both attributes are required, each with its field's type.
//! let key = MessageKey { room_id: "general".into(), sent_at: Utc::now() };
//! # let _ = key;
//! ```
//!
//! ## Attributes
//!
//! | attribute | where | meaning |
//! |---|---|---|
//! | `#[hash_key]` | field | the partition key; exactly one |
//! | `#[range_key]` | field | the sort key; at most one |
//! | `#[dynorm(table = "...")]` | struct | the base table name; default: the struct's name |
//! | `#[dynorm(prefix = "...", suffix = "...")]` | struct | override the client's table name prefix and suffix |
//! | `#[dynorm(rename_all = "camelCase")]` | struct | attribute naming, as in serde |
//! | `#[dynorm(rename = "...")]` | field | this attribute's name |
//! | `#[dynorm(date = "iso" \| "milliseconds" \| "seconds")]` | `DateTime<Utc>` field | date storage; default `iso` |
//! | `#[index(name = "...", range_key = "...", local, project = [...] \| false)]` | field | a secondary index |
//! | `#[index(name = "...", hash_key = [a, b], range_key = [c, d])]` | struct | multi-attribute index keys |
//! | `#[version]` | integer field | optimistic locking |
//! | `#[ttl]` | `DateTime<Utc>` field | expiry, in epoch seconds |
//! | `#[combine(fields = [a, b], sep = "#")]` | `String` field | built from other fields on every write |
//! | `#[dynorm(watch = [a, b], set = f)]` | field | computed by `f(&a, &b)` on every write; read-only |
//! | `#[dynorm(set = f)]`, `#[dynorm(get = g)]` | field | `fn(T) -> T` on every value written (conditions too), and read |
//! | `#[key(pk = "TEAM#{id}", sk = "#METADATA")]` | struct | single-table keys from templates; `index = "..."` for an index |
//! | `#[dynorm(entity = "...", entity_attribute = "...")]` | struct | the entity name stored with each item |
//! | `#[dynorm(default = "now" \| "uuid_v7" \| value)]`, `#[dynorm(read_only)]`, `#[dynorm(updated_at)]` | field | generated and protected attributes (generated ones are left out of the insert type `NewModel`); a value default is of the field's type |
//! | `#[relation(name = "...", one \| many = Model, fields = [..], references = [..], allow_scan)]` | struct | a relation, checked at compile time; see [`relation`] |
//! | `#[derive(dynorm::Value)]`, `#[dynorm(rename_all = "...")]`, `#[dynorm(rename = "...")]` | newtype, unit enum | a native value, usable as a key |
//!
//! ## Storage
//!
//! Strings are S; every integer and float width is N, exactly; `bool` is BOOL; `Vec<u8>`
//! and `Blob` are B; `Vec<T>` is L; maps with string keys are M; `HashSet`/`BTreeSet` of
//! strings, numbers or bytes are SS, NS and BS; `Option::None` is left out of the item.
//! `uuid::Uuid` is lowercase hyphenated text, `chrono::NaiveDate` ISO text, and
//! `rust_decimal::Decimal` (feature `decimal`) an exact N. `DateTime<Utc>` is fixed-width ISO text (`2026-11-06T09:30:00.000Z`) by default. Any
//! other type that implements serde's `Serialize` and `Deserialize` is stored through
//! `serde_dynamo`, with no annotation.
//!
//! ## Vocabulary
//!
//! Every builder ends in a verb that means one thing everywhere (the guide's
//! [vocabulary](https://github.com/dynorm/dynorm/blob/main/guide/13-vocabulary.md) says why
//! each word was chosen):
//!
//! | verb | returns | builders |
//! |---|---|---|
//! | `send()` | writes: `()`; `get`: `Option<M>`; `get_many`: `Vec<M>`; batch and transaction reads: their results | every builder of a fixed set of requests |
//! | `send_returning_new()` / `send_returning_old()` | the item after / before the write | `create`, `update`, `insert` / `put`, `update`, `delete` |
//! | `all()`, `first()`, `page(cursor)`, `stream()`, `count()` | `Vec<T>`, `Option<T>`, [`Page`](query::Page), a `Stream`, `u32` | reads of pages: `query`, `query_by`, `scan`, `scan_by`, `collection` (`all`, `page`), `find` (`all`, `first`) |
//! | `preview()`, `plan()` | what would be sent, without sending | every builder; queries and finds |
//! | `predict()` | the capacity units `send` would consume, by table and index, without sending: [`Predicted`](observe::Predicted) | every builder that sends (one page of a query or scan) |
//! | `tally(&t)` | the builder; requests, counts and capacity go to [`Tally`](observe::Tally) | every builder |
//! | `budget(units)` | the builder; `page` reads as many DynamoDB pages as fit, never passing it | `query`, `query_by`, `scan`, `scan_by`, `collection` |
//! | `rate_limiter(&l)` | the builder; requests wait for and spend from a shared [`RateLimiter`](observe::RateLimiter) | `query`, `query_by`, `scan`, `scan_by`, `batch_write` (and `dynorm-migrate`'s backfills) |
//!
//! `_many` is many items of one model that the caller names (`get_many`, `insert_many`,
//! `put_many`, `delete_many`), `raw` makes a builder from a raw key
//! ([`GetItem::raw`](item::GetItem::raw), `UpdateItem::raw`, `DeleteItem::raw`), `_by::<I>` names an index (`query_by`, `scan_by`), and transactions are
//! `transact_write` and `transact_get`.
//!
//! ## Operations
//!
//! ```no_run
//! # use dynorm::Model;
//! # #[derive(Model, Clone)] struct User { #[hash_key] id: String, name: String }
//! # async fn demo() -> Result<(), dynorm::Error> {
//! let db = dynorm::Client::from_env().await;
//! let user = User { id: "u1".into(), name: "Ada".into() };
//! db.tables().create::<User>().send().await?;
//! db.create(&user).send().await?; // fails with AlreadyExists if u1 exists
//! let found: Option<User> = db.get::<User>("u1").consistent_read(true).send().await?;
//! db.put(&user).send().await?;
//! db.delete::<User>("u1").send().await?;
//! # Ok(()) }
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]
// On docs.rs (`--cfg docsrs`, all features): each item says which feature enables it.
#![cfg_attr(docsrs, feature(doc_cfg))]

// Layers, from the bottom up; an arrow may only point down (see ARCHITECTURE.md):
// value -> error -> schema -> expr -> operations (item, query, batch, transaction,
// relation) -> client. The satellite crates (dynorm-streams, dynorm-migrate, dynorm-test)
// stand on the client, through the public API and `__ext`.
pub mod value;

pub mod error;

pub mod schema;

pub mod expr;

// Spans and consumed capacity, used by every operation (see the guide: guide/14-observability.md
// and guide/07-costs-and-budgets.md).
pub mod observe;

pub mod batch;
pub mod item;
pub mod query;
pub mod relation;
pub mod transaction;

pub mod client;

mod codegen;

// The satellite crates' door into the core: unstable, hidden (see ext.rs).
#[doc(hidden)]
#[path = "ext.rs"]
pub mod __ext;

pub use client::entry_point::Client;
pub use dynorm_derive::{Collection, Model, Value};
pub use error::error_type::{Error, Result};
pub use error::kind::ErrorKind;
pub use expr::attr::Attr;
pub use expr::condition::Condition;
pub use expr::update::Update;
pub use observe::request::Request;
pub use schema::collection::{Collection, Member};
pub use schema::model::Model;
pub use value::item::Item;
pub use value::StringSet;

// Lets the derive's `::dynorm` paths resolve in this crate's own unit tests.
#[cfg(test)]
extern crate self as dynorm;

/// The SDK types that appear in dynorm's API.
pub mod types {
    pub use aws_sdk_dynamodb::operation::create_table::CreateTableInput;
    pub use aws_sdk_dynamodb::primitives::Blob;
    pub use aws_sdk_dynamodb::types::{
        AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType,
        ScalarAttributeType, WriteRequest,
    };
}

/// What the derive's generated code uses. Not a public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::codegen::*;
}

/// The crate's own README (what crates.io shows), compiled as a doctest so that it stays
/// true.
#[cfg(all(doctest, feature = "aws-config"))]
#[doc = include_str!("../README.md")]
struct CrateReadmeDoctests;

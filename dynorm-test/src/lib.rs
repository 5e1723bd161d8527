//! Testing a service that uses dynorm, the way dynorm tests itself: against a real
//! DynamoDB-compatible server, with tables of its own per test, requests counted by
//! operation, and faults injected between the client and the server.
//!
//! Add it to your dev-dependencies:
//!
//! ```toml
//! [dev-dependencies]
//! dynorm-test = "0.1"
//! ```
//!
//! - [`isolated_client`] and [`client_with`]: a client on the embedded server (or at
//!   `DYNAMODB_ENDPOINT`) whose table prefix no other test in the process gets, so tests run
//!   in parallel.
//! - [`Requests`]: counts the requests a client sends, by operation (`GetItem`, `Query`,
//!   ...), and asserts them.
//! - [`Script`] and [`Fault`]: deterministic faults on one operation: throttling with
//!   DynamoDB's `ThrottlingReasons`, server errors, timeouts, and a response lost after the
//!   write was applied.
//! - [`Faults`]: random faults in batch requests: a share of their items handed back as
//!   unprocessed, and a share of them throttled.
//! - [`FixedClock`]: the times dynorm writes, fixed, so stored items compare byte for byte.
//!
//! Each of these puts an SDK interceptor on a copy of a client's SDK configuration
//! ([`Client::to_builder`]): the client you pass is not changed, and the database is never
//! mocked. They can be stacked: `requests.client(&script.client(&db, 3))` counts the
//! attempts the script faults.
//!
//! ```no_run
//! use dynorm_test::{self as testing, Fault, Requests, Script};
//! use dynorm::{ErrorKind, Model};
//!
//! #[derive(Model, Debug)]
//! struct User {
//!     #[hash_key]
//!     id: String,
//! }
//!
//! # async fn demo() -> Result<(), dynorm::Error> {
//! let db = testing::client_with::<User>("users_get").await?;
//! let requests = Requests::new();
//! let counted = requests.client(&db);
//! counted.get::<User>("u1").send().await?;
//! requests.assert_counts([("GetItem", 1)]);
//!
//! let throttled = Script::new("GetItem", Fault::Throttle).client(&db, 2);
//! let error = throttled.get::<User>("u1").send().await.unwrap_err();
//! assert_eq!(error.kind(), ErrorKind::Throttled);
//! # Ok(()) }
//! ```
//!
//! Assertions ([`Requests::assert_counts`]) panic when they fail, as assertions do; nothing
//! else here panics.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod clock;
mod faults;
pub mod local;
mod requests;
mod script;
mod wire;

use std::sync::atomic::{AtomicU64, Ordering};

use dynorm::{Client, Model, Result};

pub use clock::FixedClock;
pub use faults::Faults;
pub use requests::Requests;
pub use script::{Fault, Script, ATTEMPT_TIMEOUT};

/// A client for `DYNAMODB_ENDPOINT` when it is set, otherwise for the embedded server
/// (started on first use), with a table prefix that no other call in this process gets:
/// `{label}_{process}_{time}_{n}_`. Tests that each take their own client never share a
/// table, so they can run in parallel.
///
/// Tables are not deleted: on the embedded server they go away with the process.
///
/// ```no_run
/// # async fn demo() -> Result<(), dynorm::Error> {
/// let db = dynorm_test::isolated_client("orders_paging").await?;
/// # Ok(()) }
/// ```
pub async fn isolated_client(label: &str) -> Result<Client> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let run = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() % 1_000_000_000)
        .unwrap_or(0);
    let prefix = format!(
        "{label}_{}_{run}_{}_",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    Ok(crate::local::client()
        .await?
        .to_builder()
        .table_prefix(prefix)
        .build())
}

/// An [`isolated_client`] with `M`'s table created and active
/// ([`Client::ensure_table`]). Create a test's other tables on the client it returns.
///
/// ```no_run
/// # use dynorm::Model;
/// # #[derive(Model)] struct User { #[hash_key] id: String }
/// # async fn demo() -> Result<(), dynorm::Error> {
/// let db = dynorm_test::client_with::<User>("users_create").await?;
/// # Ok(()) }
/// ```
pub async fn client_with<M: Model>(label: &str) -> Result<Client> {
    let db = isolated_client(label).await?;
    db.tables().ensure::<M>().send().await?;
    Ok(db)
}

/// The embedded server's endpoint (`http://127.0.0.1:<port>`), starting it on the first
/// call. The server lives as long as the process, on a thread and a Tokio runtime of its
/// own.
///
/// For what must reach the same server without a dynorm client: a script in another
/// language that reads what a test wrote, or a process that serves the embedded server to
/// others (a benchmark runs its client and its server in separate processes). A dynorm
/// client needs none of this: [`isolated_client`] connects itself. This ignores
/// `DYNAMODB_ENDPOINT`.
pub fn embedded_endpoint() -> Result<&'static str> {
    crate::local::embedded_endpoint()
}

/// The crate's README (what crates.io shows), compiled as a doctest so that it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

//! Shared set-up for the integration tests: a client with a table prefix of its own, on
//! the embedded server or at `DYNAMODB_ENDPOINT`.

#![allow(dead_code)]

pub mod counter;
pub mod faults;
pub mod observe;

use dynorm::{Client, Model};

/// A client whose tables no other test shares.
pub async fn db(label: &str) -> Client {
    dynorm::local::isolated_client(label)
        .await
        .expect("the test server is reachable")
}

/// A client with `M`'s table created and active.
pub async fn db_with<M: Model>(label: &str) -> Client {
    let db = db(label).await;
    db.ensure_table::<M>().await.expect("the table is created");
    db
}

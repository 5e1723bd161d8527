//! Shared set-up for the integration tests: the test kit (`dynorm_test`), and a client
//! with a table prefix of its own, on the embedded server or at `DYNAMODB_ENDPOINT`.

#![allow(dead_code, unused_imports)]

pub mod guards;
pub mod in_flight;
pub mod observe;
pub mod random;
pub mod sequences;
pub mod tasks;

pub use dynorm_test::*;

use dynorm::{Client, Model};

/// A client whose tables no other test shares.
pub async fn db(label: &str) -> Client {
    dynorm_test::isolated_client(label)
        .await
        .expect("the test server is reachable")
}

/// A client with `M`'s table created and active.
pub async fn db_with<M: Model>(label: &str) -> Client {
    dynorm_test::client_with::<M>(label)
        .await
        .expect("the table is created")
}

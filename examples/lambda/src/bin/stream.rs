//! A DynamoDB stream handler on dynorm, as an AWS Lambda function: the stream of the
//! `Orders` table, each record decoded as a typed change of an `Order`, and every change
//! recorded as an `OrderActivity` item of its customer.
//!
//! Turn on `ReportBatchItemFailures` on the event source mapping: a change that fails is
//! reported back, and Lambda delivers it (and the changes after it) again. Writing the
//! activity under the record's sequence number makes that retry harmless.
//!
//! Build it with `cargo build --release --manifest-path examples/lambda/Cargo.toml`
//! (or `cargo lambda build --release` to deploy it with cargo-lambda).

use aws_lambda_events::event::dynamodb::Event;
use aws_lambda_events::event::streams::DynamoDbEventResponse;
use dynorm::Model;
use dynorm_streams::{lambda, ChangeKind, ModelChange};
use lambda_runtime::{service_fn, Error, LambdaEvent};

#[derive(Model, Debug, Clone)]
#[dynorm(table = "Orders", stream = "new_and_old_images")]
struct Order {
    #[hash_key]
    customer: String,
    #[range_key]
    id: String,
    total: f64,
}

/// What happened to one order, kept per customer in stream order.
#[derive(Model, Debug)]
#[dynorm(table = "OrderActivity")]
struct Activity {
    #[hash_key]
    customer: String,
    #[range_key]
    sequence_number: String,
    order: String,
    change: String,
    total: Option<f64>,
}

async fn record(db: &dynorm::Client, change: ModelChange<Order>) -> Result<(), dynorm::Error> {
    let total = match &change.kind {
        ChangeKind::Insert { new } | ChangeKind::Modify { new, .. } => Some(new.total),
        ChangeKind::Remove { .. } | ChangeKind::Expire { .. } => None,
    };
    let activity = Activity {
        customer: change.key.customer.clone(),
        sequence_number: change.sequence_number.clone(),
        order: change.key.id.clone(),
        change: change.kind_name().to_owned(),
        total,
    };
    db.put(&activity).send().await
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    let db = dynorm::Client::from_env().await;
    let db = &db;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<Event>| async move {
        let response: DynamoDbEventResponse =
            lambda::handle::<Order, _, _>(event.payload, |change| record(db, change)).await;
        Ok::<_, Error>(response)
    }))
    .await
}

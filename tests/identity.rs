//! The identity a change stream is read as: the DynamoDB client's own, never the process
//! environment's. An interceptor on the DynamoDB client reads the access key in every
//! signed request; it sees the DynamoDB Streams requests only because the streams client
//! is made from the DynamoDB client's configuration, interceptors included.

mod common;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Credentials, Intercept, RuntimeComponents};
use aws_smithy_runtime_api::box_error::BoxError;
use dynorm::Model;
use dynorm_streams::ChangeKind;
use futures::StreamExt;

/// The access key the DynamoDB client signs with, and no environment holds.
const ACCESS_KEY: &str = "AKIDDYNORMIDENTITY";

const IDLE: Duration = Duration::from_millis(700);

#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(stream = "new_image")]
struct Badge {
    #[hash_key]
    id: String,
    holder: String,
}

fn badge(i: usize) -> Badge {
    Badge {
        id: format!("b{i}"),
        holder: format!("holder {i}"),
    }
}

/// One signed request: its `x-amz-target` and the access key of its `authorization`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Signed {
    target: String,
    access_key: Option<String>,
}

/// Records every request it sees, just before it is sent.
#[derive(Debug, Clone, Default)]
struct Recorder(Arc<Mutex<Vec<Signed>>>);

impl Recorder {
    fn requests(&self) -> Vec<Signed> {
        self.0.lock().unwrap().clone()
    }

    fn targets(&self) -> BTreeSet<String> {
        self.requests().into_iter().map(|s| s.target).collect()
    }
}

impl Intercept for Recorder {
    fn name(&self) -> &'static str {
        "IdentityRecorder"
    }

    fn read_before_transmit(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let headers = context.request().headers();
        // `AWS4-HMAC-SHA256 Credential=AKID/20240101/us-east-1/dynamodb/aws4_request, ...`
        let access_key = headers
            .get("authorization")
            .and_then(|auth| auth.split("Credential=").nth(1))
            .and_then(|credential| credential.split('/').next())
            .map(str::to_owned);
        self.0.lock().unwrap().push(Signed {
            target: headers.get("x-amz-target").unwrap_or_default().to_owned(),
            access_key,
        });
        Ok(())
    }
}

/// A client on the test server with a table prefix of its own, whose DynamoDB client signs
/// with [`ACCESS_KEY`] and has `recorder` in its path: the test client's configuration
/// with other credentials.
async fn client_signing_as_identity(label: &str, recorder: &Recorder) -> dynorm::Client {
    let base = common::db(label).await;
    let config = base
        .sdk()
        .config()
        .to_builder()
        .credentials_provider(Credentials::new(
            ACCESS_KEY,
            "dynorm-identity-secret",
            None,
            None,
            "dynorm-identity-test",
        ))
        .interceptor(recorder.clone())
        .build();
    base.to_builder()
        .sdk(aws_sdk_dynamodb::Client::from_conf(config))
        .build()
}

async fn write_and_read_three(db: &dynorm::Client) {
    write_and_read_three_with(db, None).await;
}

/// [`write_and_read_three`], reading with `streams` when given.
async fn write_and_read_three_with(
    db: &dynorm::Client,
    streams: Option<aws_sdk_dynamodbstreams::Client>,
) {
    db.tables().ensure::<Badge>().send().await.unwrap();
    for i in 0..3 {
        db.put(&badge(i)).send().await.unwrap();
    }
    let mut consumer = dynorm_streams::changes::<Badge>(db);
    if let Some(streams) = streams {
        consumer = consumer.streams_client(streams);
    }
    let changes: Vec<_> = consumer
        .poll_interval(Duration::from_millis(50))
        .stop_when_idle(IDLE)
        .stream()
        .collect()
        .await;
    let news: Vec<Badge> = changes
        .into_iter()
        .map(|change| match change.unwrap().kind {
            ChangeKind::Insert { new } => new,
            other => panic!("expected an insert, got {other:?}"),
        })
        .collect();
    assert_eq!(news, [badge(0), badge(1), badge(2)]);
}

#[tokio::test]
async fn streams_are_read_with_the_dynamodb_clients_credentials_and_interceptors() {
    let recorder = Recorder::default();
    let db = client_signing_as_identity("identity_streams", &recorder).await;
    assert!(
        dynorm_streams::made_streams_client(&db).is_none(),
        "the streams client is made by the first stream read, not before"
    );

    write_and_read_three(&db).await;
    assert!(dynorm_streams::made_streams_client(&db).is_some());

    let requests = recorder.requests();
    for request in &requests {
        assert_eq!(
            request.access_key.as_deref(),
            Some(ACCESS_KEY),
            "{request:?} was signed as another identity"
        );
    }
    let targets = recorder.targets();
    for expected in [
        "DynamoDB_20120810.PutItem",
        "DynamoDB_20120810.DescribeTable",
        "DynamoDBStreams_20120810.DescribeStream",
        "DynamoDBStreams_20120810.GetShardIterator",
        "DynamoDBStreams_20120810.GetRecords",
    ] {
        assert!(
            targets.contains(expected),
            "no {expected} request seen: {targets:?}"
        );
    }
}

#[tokio::test]
async fn the_streams_client_is_made_once_and_shared_by_clones() {
    let recorder = Recorder::default();
    let db = client_signing_as_identity("identity_once", &recorder).await;
    let clone = db.to_builder().build();
    write_and_read_three(&db).await;
    // Made by `db`'s read, seen by a client built from it before that read.
    assert!(dynorm_streams::made_streams_client(&clone).is_some());

    // A second read, with the clone, goes through the same streams client: still signed
    // as the DynamoDB client, still through its interceptors.
    let streams_requests = |recorder: &Recorder| {
        recorder
            .requests()
            .into_iter()
            .filter(|s| s.target.starts_with("DynamoDBStreams_20120810."))
            .count()
    };
    let before = streams_requests(&recorder);
    let again: Vec<_> = dynorm_streams::changes::<Badge>(&clone)
        .poll_interval(Duration::from_millis(50))
        .stop_when_idle(IDLE)
        .stream()
        .collect()
        .await;
    assert_eq!(again.len(), 3);
    assert!(streams_requests(&recorder) > before);
    for request in recorder.requests() {
        assert_eq!(
            request.access_key.as_deref(),
            Some(ACCESS_KEY),
            "{request:?}"
        );
    }
}

#[tokio::test]
async fn a_streams_client_given_to_the_consumer_wins() {
    let dynamodb_side = Recorder::default();
    let db = client_signing_as_identity("identity_given", &dynamodb_side).await;
    // The given client: same server and identity, another interceptor.
    let streams_side = Recorder::default();
    let streams = aws_sdk_dynamodbstreams::Config::builder()
        .behavior_version(aws_sdk_dynamodbstreams::config::BehaviorVersion::latest())
        .region(db.sdk().config().region().cloned())
        .credentials_provider(Credentials::new(
            ACCESS_KEY,
            "dynorm-identity-secret",
            None,
            None,
            "dynorm-identity-test",
        ))
        .endpoint_url(endpoint())
        .interceptor(streams_side.clone())
        .build();
    let given = aws_sdk_dynamodbstreams::Client::from_conf(streams);
    write_and_read_three_with(&db, Some(given)).await;
    assert!(dynorm_streams::made_streams_client(&db).is_none());
    assert!(
        dynamodb_side
            .targets()
            .iter()
            .all(|t| t.starts_with("DynamoDB_20120810.")),
        "{:?}",
        dynamodb_side.targets()
    );
    let streams_targets = streams_side.targets();
    assert!(
        streams_targets.contains("DynamoDBStreams_20120810.GetRecords"),
        "{streams_targets:?}"
    );
}

/// The test server's endpoint, as `dynorm::local` chooses it.
fn endpoint() -> String {
    match std::env::var(dynorm_test::local::ENDPOINT_VAR) {
        Ok(endpoint) if !endpoint.trim().is_empty() => endpoint.trim().to_owned(),
        _ => dynorm_test::embedded_endpoint()
            .expect("the embedded server starts")
            .to_owned(),
    }
}

//! A ready client for examples: an embedded DynamoDB-compatible server, or the endpoint in
//! `DYNAMODB_ENDPOINT`. Tests take a client of their own from `dynorm_test` (feature
//! `testing`).
//!
//! Enabled by the `local` feature. The embedded server is [dynoxide], started once per
//! process on a loopback ephemeral port, from a dedicated thread with its own Tokio
//! runtime, so it outlives any one `#[tokio::test]` runtime.
//!
//! [dynoxide]: https://crates.io/crates/dynoxide-rs

use std::sync::OnceLock;

use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};

use dynorm::__ext::client::Client;
use dynorm::__ext::error::{Error, Result};

/// The environment variable that points examples and tests at another endpoint, such as
/// DynamoDB Local (`http://127.0.0.1:8000`).
pub const ENDPOINT_VAR: &str = "DYNAMODB_ENDPOINT";

/// A client for `DYNAMODB_ENDPOINT` when it is set, otherwise for the embedded server,
/// which is started on first use.
///
/// ```no_run
/// # async fn demo() -> Result<(), dynorm::Error> {
/// let db = dynorm_test::local::client().await?;
/// # Ok(()) }
/// ```
pub async fn client() -> Result<Client> {
    match std::env::var(ENDPOINT_VAR) {
        Ok(endpoint) if !endpoint.trim().is_empty() => Ok(connect(endpoint.trim()).await),
        _ => Ok(connect(embedded_endpoint()?).await),
    }
}

/// A client for a DynamoDB-compatible endpoint. It uses the environment's credentials
/// and region (through [`Client::from_env`]) when `AWS_ACCESS_KEY_ID` is set, and fixed
/// local ones otherwise. Its DynamoDB Streams client is made from the DynamoDB client's
/// configuration, so it reads streams at the same endpoint as the same identity.
pub async fn connect(endpoint: &str) -> Client {
    let config = if std::env::var_os("AWS_ACCESS_KEY_ID").is_some() {
        Client::from_env()
            .await
            .sdk()
            .config()
            .to_builder()
            .endpoint_url(endpoint)
            .build()
    } else {
        aws_sdk_dynamodb::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .credentials_provider(Credentials::new(
                "dynorm",
                "local",
                None,
                None,
                "dynorm-local",
            ))
            .endpoint_url(endpoint)
            .build()
    };
    Client::new(aws_sdk_dynamodb::Client::from_conf(config))
}

/// The embedded server's endpoint, starting it on first call (public, for other
/// processes, as `testing::embedded_endpoint`).
pub(crate) fn embedded_endpoint() -> Result<&'static str> {
    static ENDPOINT: OnceLock<Result<String, String>> = OnceLock::new();
    ENDPOINT
        .get_or_init(start_embedded)
        .as_deref()
        .map_err(|e| {
            Error::new(
                dynorm::ErrorKind::Config,
                format!("the embedded DynamoDB server did not start: {e}"),
            )
        })
}

/// Starts dynoxide on its own thread and runtime, and returns its endpoint.
fn start_embedded() -> Result<String, String> {
    let (ready, endpoint) = std::sync::mpsc::channel::<Result<String, String>>();
    std::thread::Builder::new()
        .name("dynorm-embedded-dynamodb".into())
        .spawn(move || {
            let runtime = match tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("dynorm-embedded-dynamodb")
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime,
                Err(e) => {
                    let _ = ready.send(Err(e.to_string()));
                    return;
                }
            };
            runtime.block_on(async move {
                let setup = async {
                    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                        .await
                        .map_err(|e| e.to_string())?;
                    let address = listener.local_addr().map_err(|e| e.to_string())?;
                    let database = dynoxide::Database::memory().map_err(|e| e.to_string())?;
                    Ok::<_, String>((listener, address, database))
                };
                match setup.await {
                    Ok((listener, address, database)) => {
                        let _ = ready.send(Ok(format!("http://{address}")));
                        dynoxide::server::serve_on(listener, database).await;
                    }
                    Err(e) => {
                        let _ = ready.send(Err(e));
                    }
                }
            });
        })
        .map_err(|e| e.to_string())?;
    endpoint
        .recv()
        .map_err(|_| "the server thread stopped before it was ready".to_owned())?
}

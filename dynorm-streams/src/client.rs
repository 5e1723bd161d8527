//! The DynamoDB Streams client of a [`Client`]: the one given to the consumer, or one made
//! once from the DynamoDB client's own configuration, never from the process environment.
//!
//! The SDK does not expose a client's credentials provider (`Config::credentials_provider`
//! always returns `None`), nor its endpoint URL. Both live in the runtime components and
//! the configuration bag of a request, so the streams client is made by an interceptor,
//! [`StreamsProbe`], put on the `DescribeTable` request that every stream read starts
//! with. That request is sent as usual; the probe only reads.

use std::sync::{Arc, OnceLock};

use dynorm::__ext::client::extension;
use dynorm::Client;

use aws_credential_types::provider::error::CredentialsError;
use aws_credential_types::provider::{future, ProvideCredentials};
use aws_credential_types::Credentials;
use aws_sdk_dynamodb::config::interceptors::BeforeSerializationInterceptorContextRef;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::config::timeout::TimeoutConfig;
use aws_sdk_dynamodb::config::{
    ConfigBag, Intercept, RuntimeComponents, SharedCredentialsProvider,
    StalledStreamProtectionConfig,
};
use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::auth::AuthSchemeId;
use aws_smithy_runtime_api::client::identity::{ResolveCachedIdentity, SharedIdentityResolver};
use aws_smithy_runtime_api::client::runtime_components::GetIdentityResolver;
use aws_types::endpoint_config::{EndpointUrl, UseDualStack, UseFips};

/// SigV4, the scheme both DynamoDB and DynamoDB Streams sign with (signing name `dynamodb`).
const SIGV4: AuthSchemeId = AuthSchemeId::new("sigv4");

/// The DynamoDB Streams client a [`Client`] made from its DynamoDB client's
/// configuration: made by the first stream read, and shared by every clone of the client
/// (kept in the client's extensions; another SDK client starts with none).
#[derive(Debug, Default)]
struct Made(Arc<OnceLock<aws_sdk_dynamodbstreams::Client>>);

/// The DynamoDB Streams client that `db` made from its DynamoDB client's configuration
/// (credentials, identity cache, region, endpoint URL unless it is AWS's, HTTP client,
/// retry and timeout settings, interceptors, ...) when it first read a stream; `None`
/// before that first read: the credentials provider is reachable only from a request the
/// DynamoDB client sends, and the client is made from the `DescribeTable` request a
/// stream read starts with. A consumer given its own
/// ([`ChangesBuilder::streams_client`](crate::ChangesBuilder::streams_client)) uses that
/// one instead.
pub fn made_streams_client(db: &Client) -> Option<aws_sdk_dynamodbstreams::Client> {
    extension::<Made>(db).0.get().cloned()
}

/// While `db` has made no streams client, the interceptor that makes it from the DynamoDB
/// client's configuration: put it on a request of that client (stream reads put it on
/// their `DescribeTable`).
pub(crate) fn probe(db: &Client) -> Option<StreamsProbe> {
    let made = extension::<Made>(db);
    if made.0.get().is_some() {
        return None;
    }
    Some(StreamsProbe {
        sdk: db.sdk().clone(),
        made: made.0.clone(),
    })
}

/// Put on one request of the DynamoDB client, makes the DynamoDB Streams client from what
/// that request runs with. It reads and never changes the request.
#[derive(Debug)]
pub(crate) struct StreamsProbe {
    sdk: aws_sdk_dynamodb::Client,
    made: Arc<OnceLock<aws_sdk_dynamodbstreams::Client>>,
}

impl Intercept for StreamsProbe {
    fn name(&self) -> &'static str {
        "dynorm.StreamsProbe"
    }

    fn read_before_serialization(
        &self,
        _context: &BeforeSerializationInterceptorContextRef<'_>,
        components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        self.made
            .get_or_init(|| streams_client(self.sdk.config(), components, cfg));
        Ok(())
    }
}

/// A DynamoDB Streams client with the DynamoDB client's identity and settings.
///
/// From the DynamoDB client's configuration: region, auth scheme preference, app name,
/// clock skew setting, and the interceptors and retry classifiers registered on it. From
/// the components and configuration its requests run with (its own settings, or the SDK's
/// defaults for its behavior version): the credentials (its identity resolver, through its
/// identity cache), the identity cache, HTTP client, sleep implementation, time source,
/// retry, timeout and stalled-stream settings, FIPS and dual-stack, and the endpoint URL
/// unless it is one of AWS's own (then DynamoDB Streams' endpoint for the region is used).
fn streams_client(
    config: &aws_sdk_dynamodb::Config,
    components: &RuntimeComponents,
    cfg: &ConfigBag,
) -> aws_sdk_dynamodbstreams::Client {
    let mut builder = aws_sdk_dynamodbstreams::Config::builder();
    // The settings a behavior version governs are copied below as the DynamoDB client
    // runs with them.
    builder.set_behavior_version(Some(
        aws_sdk_dynamodbstreams::config::BehaviorVersion::latest(),
    ));
    builder.set_region(config.region().cloned());
    if let Some(EndpointUrl(url)) = cfg.load::<EndpointUrl>() {
        if !is_aws_endpoint(url) {
            builder.set_endpoint_url(Some(url.clone()));
        }
    }
    builder.set_use_fips(cfg.load::<UseFips>().map(|fips| fips.0));
    builder.set_use_dual_stack(cfg.load::<UseDualStack>().map(|dual| dual.0));
    if let Some(resolver) = components.identity_resolver(SIGV4) {
        builder.set_credentials_provider(Some(SharedCredentialsProvider::new(DynamoDbIdentity {
            resolver,
            components: components.clone(),
        })));
    }
    builder.set_identity_cache(components.identity_cache());
    builder.set_http_client(components.http_client());
    builder.set_sleep_impl(components.sleep_impl());
    builder.set_time_source(components.time_source());
    builder.set_retry_config(cfg.load::<RetryConfig>().cloned());
    builder.set_timeout_config(cfg.load::<TimeoutConfig>().cloned());
    builder.set_stalled_stream_protection(cfg.load::<StalledStreamProtectionConfig>().cloned());
    builder.set_auth_scheme_preference(config.auth_scheme_preference().cloned());
    builder.set_app_name(config.app_name().cloned());
    builder.set_disable_clock_skew_correction(config.disable_clock_skew_correction());
    for interceptor in config.interceptors() {
        builder.push_interceptor(interceptor);
    }
    for classifier in config.retry_classifiers() {
        builder.push_retry_classifier(classifier);
    }
    aws_sdk_dynamodbstreams::Client::from_conf(builder.build())
}

/// Whether `url` is one of AWS's own DynamoDB endpoints, which do not serve DynamoDB
/// Streams (AWS serves it at `streams.dynamodb.{region}.amazonaws.com`). Any other
/// endpoint (DynamoDB Local, an emulator, a proxy) serves both at the same URL.
fn is_aws_endpoint(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    [
        ".amazonaws.com",
        ".amazonaws.com.cn",
        ".api.aws",
        ".c2s.ic.gov",
        ".sc2s.sgov.gov",
    ]
    .iter()
    .any(|suffix| host.ends_with(suffix))
}

/// The DynamoDB client's credentials, resolved through its identity resolver and identity
/// cache, so that both clients sign as the same identity and share one resolution.
#[derive(Debug)]
struct DynamoDbIdentity {
    resolver: SharedIdentityResolver,
    components: RuntimeComponents,
}

impl ProvideCredentials for DynamoDbIdentity {
    fn provide_credentials<'a>(&'a self) -> future::ProvideCredentials<'a>
    where
        Self: 'a,
    {
        future::ProvideCredentials::new(async move {
            let cfg = ConfigBag::base();
            let identity = self
                .components
                .identity_cache()
                .resolve_cached_identity(self.resolver.clone(), &self.components, &cfg)
                .await
                .map_err(CredentialsError::provider_error)?;
            identity.data::<Credentials>().cloned().ok_or_else(|| {
                CredentialsError::not_loaded(
                    "the DynamoDB client's identity is not AWS credentials",
                )
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::is_aws_endpoint;

    #[test]
    fn aws_endpoints_are_told_from_others() {
        for aws in [
            "https://dynamodb.us-east-1.amazonaws.com",
            "https://dynamodb-fips.us-gov-west-1.amazonaws.com/",
            "https://dynamodb.cn-north-1.amazonaws.com.cn",
            "https://dynamodb.us-east-1.api.aws",
            "https://123456789012.ddb.us-east-1.amazonaws.com:443",
            "HTTPS://DYNAMODB.EU-WEST-1.AMAZONAWS.COM.",
        ] {
            assert!(is_aws_endpoint(aws), "{aws}");
        }
        for other in [
            "http://127.0.0.1:8000",
            "http://localhost:4566",
            "https://dynamodb.example.com",
            "https://amazonaws.com.example.org",
        ] {
            assert!(!is_aws_endpoint(other), "{other}");
        }
    }
}

//! An HTTP API on dynorm, as an AWS Lambda function behind API Gateway (HTTP API, payload
//! format 2.0): `GET /users/{id}` reads a user, `PUT /users/{id}` writes one from the JSON
//! body. The client is built once per execution environment, before the first request,
//! from the environment the Lambda runtime sets (region, credentials).
//!
//! Build it with `cargo build --release --manifest-path examples/lambda/Cargo.toml`
//! (or `cargo lambda build --release` to deploy it with cargo-lambda).

use aws_lambda_events::apigw::{ApiGatewayV2httpRequest, ApiGatewayV2httpResponse};
use aws_lambda_events::encodings::Body;
use aws_lambda_events::http::{HeaderValue, Method};
use dynorm::{ErrorKind, Model};
use lambda_runtime::{service_fn, Error, LambdaEvent};
use serde::{Deserialize, Serialize};

#[derive(Model, Serialize, Deserialize, Debug)]
#[dynorm(table = "Users")]
struct User {
    #[hash_key]
    #[serde(default)]
    id: String,
    name: String,
    email: String,
}

async fn handle(
    db: &dynorm::Client,
    request: ApiGatewayV2httpRequest,
) -> Result<ApiGatewayV2httpResponse, Error> {
    let Some(id) = request.path_parameters.get("id").cloned() else {
        return Ok(text(400, "the path has no user id"));
    };
    match request.request_context.http.method {
        Method::GET => match db.get::<User>(id.as_str()).send().await {
            Ok(Some(user)) => json(200, &user),
            Ok(None) => Ok(text(404, "no such user")),
            Err(e) if e.kind() == ErrorKind::Validation => Ok(text(400, &e.to_string())),
            Err(e) => Err(e.into()),
        },
        Method::PUT => {
            let body = request.body.as_deref().unwrap_or_default();
            let Ok(mut user) = serde_json::from_str::<User>(body) else {
                return Ok(text(400, "the body is not a user"));
            };
            user.id = id;
            match db.put(&user).send().await {
                Ok(()) => json(200, &user),
                Err(e) if e.kind() == ErrorKind::Validation => Ok(text(400, &e.to_string())),
                Err(e) => Err(e.into()),
            }
        }
        _ => Ok(text(405, "GET or PUT")),
    }
}

fn text(status: i64, message: &str) -> ApiGatewayV2httpResponse {
    let mut response = ApiGatewayV2httpResponse::default();
    response.status_code = status;
    response.body = Some(Body::Text(message.to_owned()));
    response
}

fn json(status: i64, value: &impl Serialize) -> Result<ApiGatewayV2httpResponse, Error> {
    let mut response = text(status, &serde_json::to_string(value)?);
    response
        .headers
        .insert("content-type", HeaderValue::from_static("application/json"));
    Ok(response)
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    let db = dynorm::Client::from_env().await;
    let db = &db;
    lambda_runtime::run(service_fn(
        move |event: LambdaEvent<ApiGatewayV2httpRequest>| async move {
            handle(db, event.payload).await
        },
    ))
    .await
}

//! Errors the SDK returns, turned into dynorm errors.

use aws_sdk_dynamodb::error::SdkError;

use crate::error::Error;

/// Turns an SDK error into a service error naming the model and operation.
pub(crate) fn sdk_error<E, R>(
    error: SdkError<E, R>,
    model: &'static str,
    operation: &'static str,
) -> Error
where
    E: std::error::Error + Send + Sync + 'static,
    R: std::fmt::Debug + Send + Sync + 'static,
{
    Error::service(error)
        .with_model(model)
        .with_operation(operation)
}

//! An SDK input that did not build, as a validation error naming the model and the
//! operation.

use crate::error::Error;

/// The error of an SDK input that could not be built.
pub(crate) fn built(
    error: aws_sdk_dynamodb::error::BuildError,
    model: &'static str,
    operation: &'static str,
) -> Error {
    Error::validation(error.to_string())
        .with_model(model)
        .with_operation(operation)
}

//! The client: an `aws_sdk_dynamodb::Client` plus the table naming rules. Configuration
//! only: every operation adds its own `impl Client` block in its own module.

mod admin;
mod creating;
pub(crate) mod entry_point;
mod extensions;
mod lifecycle;
mod tables;

pub use crate::batch::retry::RetryPolicy;
pub use creating::IndexCreation;
pub(crate) use entry_point::Client;
pub use entry_point::ClientBuilder;
pub use tables::{CreateTable, TableRequest, Tables};

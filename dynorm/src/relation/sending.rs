//! How a load sends its requests, which the loaders, the shared-partition reads and
//! `Find` all hold.

use std::num::NonZeroUsize;

use crate::client::Client;
use crate::observe::Reporting;
use crate::query::budget::Meter;

/// How a load sends its requests: the client, the requests of one relation in flight
/// at once, what every request asks DynamoDB to report and where it is added, and the
/// meter of a budgeted load.
#[derive(Clone, Copy)]
pub struct Sending<'a> {
    pub(crate) db: &'a Client,
    pub(crate) concurrency: NonZeroUsize,
    pub(crate) report: &'a Reporting,
    pub(crate) meter: Option<&'a Meter>,
    /// The relations that run side by side with this one (tuples multiply it), which
    /// share what is left of a budget with it.
    pub(crate) siblings: usize,
}

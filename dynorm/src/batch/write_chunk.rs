//! One chunk of a batch write, sent and retried until DynamoDB has taken every write or
//! the attempts run out.

use std::collections::HashMap;

use aws_sdk_dynamodb::operation::batch_write_item::builders::BatchWriteItemInputBuilder;
use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemInput;
use aws_sdk_dynamodb::types::{ReturnConsumedCapacity, WriteRequest};
use tracing::Instrument;

use super::chunks::Made;
use super::retry::{AfterFailure, Retry};
use super::write_source::{Source, OPERATION};
use super::Tables;
use crate::client::Client;
use crate::error::Error;
use crate::observe::span::{self, request_span};
use crate::observe::{Metadata, RateLimiter};

/// The writes of one request, by table name.
pub(super) type Requests = HashMap<String, Vec<WriteRequest>>;

/// What one chunk achieved.
pub(super) struct ChunkOutcome {
    pub written: usize,
    /// The writes not applied, with their table names.
    pub left: Vec<(String, WriteRequest)>,
    pub error: Option<Error>,
    /// The requests sent, retries included, and the capacity they consumed.
    pub metadata: Metadata,
}

/// The request of one chunk attempt: what is sent, and what a preview shows.
pub(super) fn chunk_input(
    requests: Requests,
    capacity: Option<ReturnConsumedCapacity>,
) -> BatchWriteItemInputBuilder {
    BatchWriteItemInput::builder()
        .set_request_items(Some(requests))
        .set_return_consumed_capacity(capacity)
}

fn count(requests: &Requests) -> usize {
    requests.values().map(Vec::len).sum()
}

/// The writes of a request, each with its table name.
pub(super) fn flatten(requests: Requests) -> Vec<(String, WriteRequest)> {
    requests
        .into_iter()
        .flat_map(|(table, writes)| writes.into_iter().map(move |write| (table.clone(), write)))
        .collect()
}

/// Groups writes by table name, moving them.
pub(super) fn group(
    tables: &[String],
    writes: impl IntoIterator<Item = (usize, WriteRequest)>,
) -> Requests {
    let writes = writes.into_iter();
    // A chunk's writes are usually for one table: its list is made large enough at once.
    let expected = writes.size_hint().0.max(1);
    let mut requests = Requests::new();
    for (table, request) in writes {
        let name = &tables[table];
        match requests.get_mut(name.as_str()) {
            Some(list) => list.push(request),
            None => {
                let mut list = Vec::with_capacity(expected);
                list.push(request);
                requests.insert(name.clone(), list);
            }
        }
    }
    requests
}

/// Writes one chunk, retrying what DynamoDB leaves unprocessed or throttles, in at most
/// the client's `RetryPolicy::max_attempts` HTTP attempts: each request is sent with the
/// SDK's retries off.
///
/// While no request has returned, the chunk's writes can be made again from their
/// sources, so the request moves them and keeps no copy. Once DynamoDB has taken part of
/// the chunk, what is left is what it handed back; that is copied before each send, as
/// retries are rare and small.
pub(super) async fn send_chunk(
    client: &Client,
    batch_tables: &Tables,
    chunk: Vec<Made<'_>>,
    capacity: Option<ReturnConsumedCapacity>,
    limiter: Option<&RateLimiter>,
) -> ChunkOutcome {
    let tables = batch_tables.names.as_slice();
    let mut sources = Vec::with_capacity(chunk.len());
    let mut requests = group(
        tables,
        chunk.into_iter().map(|made| {
            sources.push((made.table, made.source));
            (made.table, made.request)
        }),
    );
    let mut whole_chunk = true;
    let mut written = 0;
    let mut retry = Retry::new(client.retry_policy());
    let mut metadata = Metadata::default();
    while retry.next_attempt().await {
        let sent = count(&requests);
        let span = request_span!(
            "BatchWriteItem",
            tracing::field::Empty,
            tracing::field::Empty,
            "dynorm.attempt" = retry.attempt(),
            "dynorm.batch.requests" = sent,
            "dynorm.batch.unprocessed" = tracing::field::Empty,
        );
        span::record_names(
            &span,
            || batch_tables.models_in(requests.keys().map(String::as_str)),
            || span::joined(requests.keys().map(String::as_str)),
        );
        let copy = (!whole_chunk).then(|| requests.clone());
        if let Some(limiter) = limiter {
            limiter.wait().await;
        }
        match chunk_input(requests, capacity.clone())
            .send_with(client.sdk_once())
            .instrument(span.clone())
            .await
        {
            Ok(output) => {
                super::record_consumed(&span, &mut metadata, output.consumed_capacity.as_deref());
                let mut left = output.unprocessed_items.unwrap_or_default();
                left.retain(|_, writes| !writes.is_empty());
                if let Some(limiter) = limiter {
                    limiter.spend(crate::observe::units(
                        output.consumed_capacity.as_deref().unwrap_or_default(),
                    ));
                    if !left.is_empty() {
                        // Writes handed back: the table is over its throughput.
                        limiter.throttled(&[]);
                    }
                }
                span.record("dynorm.batch.unprocessed", count(&left));
                written += sent.saturating_sub(count(&left));
                requests = left;
                whole_chunk = false;
                if requests.is_empty() {
                    return ChunkOutcome {
                        written,
                        left: Vec::new(),
                        error: None,
                        metadata,
                    };
                }
            }
            Err(e) => {
                metadata.requests += 1;
                let after = retry.failed(e, OPERATION, tables, &span);
                if let (Some(limiter), Some(error)) = (limiter, retry.last_error()) {
                    if error.is_throttled() {
                        limiter.throttled(error.throttling_reasons());
                    }
                }
                requests = match copy {
                    Some(copy) => copy,
                    None => match remake(tables, &sources) {
                        Ok(requests) => requests,
                        Err((requests, failure)) => {
                            return ChunkOutcome {
                                written,
                                left: flatten(requests),
                                error: Some(failure),
                                metadata,
                            }
                        }
                    },
                };
                if let AfterFailure::GiveUp(error) = after {
                    return ChunkOutcome {
                        written,
                        left: flatten(requests),
                        error: Some(error),
                        metadata,
                    };
                }
            }
        }
    }
    ChunkOutcome {
        written,
        left: flatten(requests),
        error: retry.into_last_error(),
        metadata,
    }
}

/// The chunk's writes, made again from their sources; on a failure, the ones that could
/// be made and the first error.
fn remake(
    tables: &[String],
    sources: &[(usize, Source<'_>)],
) -> Result<Requests, (Requests, Error)> {
    let mut failure = None;
    let mut writes = Vec::with_capacity(sources.len());
    for (table, source) in sources {
        match source.build() {
            Ok((request, _)) => writes.push((*table, request)),
            Err(e) => {
                failure.get_or_insert(e);
            }
        }
    }
    let requests = group(tables, writes);
    match failure {
        None => Ok(requests),
        Some(e) => Err((requests, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_are_grouped_by_table_without_loss() {
        let tables = ["a".to_owned(), "b".to_owned()];
        let writes = (0..7).map(|i| (i % 2, WriteRequest::builder().build()));
        let requests = group(&tables, writes);
        assert_eq!(requests["a"].len(), 4);
        assert_eq!(requests["b"].len(), 3);
        assert_eq!(count(&requests), 7);
        assert_eq!(flatten(requests).len(), 7);
    }
}

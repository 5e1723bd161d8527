//! What a chunk's request consumed, recorded on its span and in the batch's metadata.

use crate::observe::span;

/// Records what a chunk's request consumed on its span and in the batch's metadata.
pub(super) fn record_consumed(
    span: &tracing::Span,
    metadata: &mut crate::observe::Metadata,
    consumed: Option<&[aws_sdk_dynamodb::types::ConsumedCapacity]>,
) {
    let consumed = consumed.unwrap_or_default();
    span::record_capacity(span, consumed);
    metadata.merge(&crate::observe::Metadata::single(consumed));
}

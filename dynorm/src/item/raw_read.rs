//! One `GetItem` of raw attributes in its own span ([`RawRead`]), and [`read`], the
//! strongly consistent read of the item a write touches.

use aws_sdk_dynamodb::operation::get_item::GetItemInput;
use tracing::Instrument as _;

use crate::client::Client;
use crate::error::{sdk_error, Result};
use crate::item::write_request::WriteSpec;
use crate::observe::span::{self, request_span};
use crate::observe::{Metadata, Reporting};
use crate::schema::Schema;
use crate::value::Item;

/// Reads the stored item the write touches, strongly consistent.
pub(crate) async fn read(client: &Client, spec: &WriteSpec) -> Result<Option<Item>> {
    let read = RawRead {
        schema: spec.schema,
        operation: spec.operation,
        table: &spec.table,
        consistent: true,
        report: &spec.report,
    };
    read.send(client, spec.key()).await
}

/// One `GetItem` of raw attributes, in its own span.
pub(crate) struct RawRead<'a> {
    pub schema: &'static Schema,
    pub operation: &'static str,
    pub table: &'a str,
    pub consistent: bool,
    pub report: &'a Reporting,
}

impl RawRead<'_> {
    /// Reads the item with this key.
    pub(crate) async fn send(&self, client: &Client, key: Item) -> Result<Option<Item>> {
        let span = request_span!(
            "GetItem",
            self.schema.model,
            self.table,
            "aws.dynamodb.consistent_read" = self.consistent,
        );
        let result = GetItemInput::builder()
            .table_name(self.table)
            .set_key(Some(key))
            .consistent_read(self.consistent)
            .set_return_consumed_capacity(self.report.capacity())
            .send_with(client.sdk())
            .instrument(span.clone())
            .await;
        match result {
            Ok(output) => {
                span::record_capacity(&span, output.consumed_capacity.as_slice());
                self.report
                    .record(&Metadata::single(output.consumed_capacity.as_slice()));
                Ok(output.item)
            }
            Err(e) => {
                let error = sdk_error(e, self.schema.model, self.operation, self.table);
                span::record_error(&span, &error);
                Err(error)
            }
        }
    }
}

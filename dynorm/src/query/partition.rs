//! Reading one whole partition, whatever entities it holds: the request that
//! shared-partition relation loads send.

use aws_sdk_dynamodb::types::AttributeValue;
use tracing::Instrument;

use super::page::fetched;
use crate::client::Client;
use crate::error::{sdk_error, Result};
use crate::expr::{Comparison, Expr, Placeholders};
use crate::observe::span::{self, request_span};
use crate::observe::Reporting;
use crate::value::Item;

/// Where a partition is and who reads it, for the request and its errors.
pub(crate) struct Partition<'a> {
    /// The model named in spans and errors.
    pub model: &'static str,
    /// The operation named in errors.
    pub operation: &'static str,
    /// The full table name.
    pub table: &'a str,
    /// The index, or `None` for the table.
    pub index: Option<&'static str>,
    /// The hash key values of the partition.
    pub hash: &'a [(&'static str, AttributeValue)],
}

impl Partition<'_> {
    /// Queries the whole partition, page after page, with no filter, and gives each item
    /// to `each` in range key order; each page asks for and adds to the tally what
    /// `report` says.
    pub(crate) async fn read(
        &self,
        client: &Client,
        report: &Reporting,
        mut each: impl FnMut(Item) -> Result<()>,
    ) -> Result<()> {
        let mut placeholders = Placeholders::default();
        let conditions: Vec<Expr> = self
            .hash
            .iter()
            .map(|(name, value)| Expr::Compare(name, Comparison::Eq, value.clone()))
            .collect();
        let key_condition = placeholders.render_all(&conditions).unwrap_or_default();
        let (names, values) = (placeholders.take_names(), placeholders.take_values());
        let mut start: Option<Item> = None;
        loop {
            let span = request_span!(
                "Query",
                self.model,
                self.table,
                "aws.dynamodb.index_name" = self.index,
                "aws.dynamodb.count" = tracing::field::Empty,
                "aws.dynamodb.scanned_count" = tracing::field::Empty,
                "dynorm.key_condition" = key_condition.as_str(),
                "dynorm.continued" = start.is_some(),
            );
            let output = client
                .sdk()
                .query()
                .table_name(self.table)
                .set_index_name(self.index.map(str::to_owned))
                .key_condition_expression(&key_condition)
                .set_expression_attribute_names(names.clone())
                .set_expression_attribute_values(values.clone())
                .set_exclusive_start_key(start.take())
                .set_return_consumed_capacity(report.capacity())
                .send()
                .instrument(span.clone())
                .await
                .map_err(|e| sdk_error(e, self.model, self.operation, self.table))
                .inspect_err(|error| span::record_error(&span, error))?;
            let fetched = fetched(
                &span,
                report.tally.as_ref(),
                output.count,
                output.scanned_count,
                output.consumed_capacity.as_slice(),
                output.items,
                output.last_evaluated_key,
            );
            for item in fetched.items {
                each(item)?;
            }
            match fetched.last_key.filter(|k| !k.is_empty()) {
                Some(key) => start = Some(key),
                None => return Ok(()),
            }
        }
    }
}

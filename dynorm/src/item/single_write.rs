//! The macros that build, preview and send one single-item write from its `WriteSpec`:
//! the SDK's input builders share their setters but no trait.

/// The SDK input of a single write built from `$parts` (a [`RequestParts`](crate::item::write_request::RequestParts)) with
/// `$builder` (an SDK input builder that already holds the item or key): what
/// [`send_write!`] sends and what the builders' `preview` methods show. The SDK's builders
/// share these setters but no trait, hence a macro.
macro_rules! write_input {
    ($parts:expr, $builder:expr, $return_values:expr) => {{
        let parts: $crate::item::write_request::RequestParts = $parts;
        $builder
            .table_name(parts.table)
            .set_condition_expression(parts.condition)
            .set_expression_attribute_names(parts.names)
            .set_expression_attribute_values(parts.values)
            .return_values($return_values)
            .return_values_on_condition_check_failure(
                ::aws_sdk_dynamodb::types::ReturnValuesOnConditionCheckFailure::AllOld,
            )
            .set_return_consumed_capacity(parts.return_capacity)
    }};
}

/// Sends a single write built from `$spec` (moving its request parts out) with
/// `$builder`, in a span named after `$operation`, and turns a failed condition into the
/// error the spec's checks explain. Gives the returned attributes and the request's
/// metadata.
macro_rules! send_write {
    ($client:expr, $operation:literal, $spec:expr, $builder:expr, $return_values:expr, $error:ident) => {{
        use ::tracing::Instrument as _;
        let spec: &mut $crate::item::write_request::WriteSpec<_> = $spec;
        let span = $crate::observe::span::request_span!(
            $operation,
            spec.schema.model,
            spec.table.as_str(),
            "dynorm.operation" = spec.operation,
        );
        let result =
            $crate::item::single_write::write_input!(spec.take_parts(), $builder, $return_values)
                .send_with($client.sdk())
                .instrument(span.clone())
                .await;
        match result {
            Ok(output) => {
                $crate::observe::span::record_capacity(&span, output.consumed_capacity.as_slice());
                let metadata =
                    $crate::observe::Metadata::single(output.consumed_capacity.as_slice());
                spec.report.record(&metadata);
                Ok(output.attributes)
            }
            Err(e) => {
                // The table name went into the request; an error names it again.
                let table = $client.table_name_of(spec.schema);
                let error = match e.as_service_error() {
                    Some($error::ConditionalCheckFailedException(failed)) => {
                        spec.condition_failed(failed.item.clone())
                    }
                    _ => $crate::error::sdk_error(e, spec.schema.model, spec.operation, &table),
                };
                $crate::observe::span::record_error(&span, &error);
                Err(error)
            }
        }
    }};
}

/// The SDK input of `$spec`, or the error building it gave.
macro_rules! preview_write {
    ($spec:expr, $builder:expr, $return_values:expr) => {{
        let spec: &$crate::item::write_request::WriteSpec<_> = $spec;
        $crate::item::single_write::write_input!(spec.parts(), $builder, $return_values)
            .build()
            .map_err(|e| $crate::item::built(e, spec.schema.model, spec.operation))
    }};
}

pub(crate) use preview_write;

pub(crate) use send_write;
pub(crate) use write_input;

//! One stream record, whatever its source: read with `aws-sdk-dynamodbstreams` (feature
//! `consumer`) or received in a Lambda event (feature `lambda`).

// Records come from the consumer (feature `consumer`) or from Lambda events (feature
// `lambda`); with neither, nothing here is called, and it stays compiled as it is.
#![cfg_attr(not(any(feature = "consumer", feature = "lambda")), allow(dead_code))]

#[cfg(feature = "consumer")]
use aws_sdk_dynamodb::primitives::Blob;
#[cfg(feature = "consumer")]
use aws_sdk_dynamodb::types::AttributeValue;
#[cfg(feature = "consumer")]
use aws_sdk_dynamodbstreams::types as streams;
use std::time::SystemTime;

use dynorm::__ext::value::Item;

/// The service principal DynamoDB names in `userIdentity` when time to live deletes an item.
pub const TTL_PRINCIPAL: &str = "dynamodb.amazonaws.com";

/// What happened to the item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EventName {
    Insert,
    Modify,
    Remove,
}

impl EventName {
    /// The name as the stream writes it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Insert => "INSERT",
            Self::Modify => "MODIFY",
            Self::Remove => "REMOVE",
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "INSERT" => Self::Insert,
            "MODIFY" => Self::Modify,
            "REMOVE" => Self::Remove,
            _ => return None,
        })
    }
}

/// A stream record in dynorm's terms, before it is decoded as a model.
#[derive(Clone, Debug)]
pub(crate) struct Record {
    pub(crate) event_name: EventName,
    pub(crate) keys: Item,
    pub(crate) new_image: Option<Item>,
    pub(crate) old_image: Option<Item>,
    pub(crate) sequence_number: String,
    pub(crate) approximate_creation_time: Option<SystemTime>,
    pub(crate) event_id: String,
    /// Whether DynamoDB's time to live removed the item.
    pub(crate) by_ttl: bool,
}

/// Whether a `userIdentity` names DynamoDB's time to live.
pub(crate) fn is_ttl_identity(kind: Option<&str>, principal: Option<&str>) -> bool {
    principal == Some(TTL_PRINCIPAL) && kind.is_none_or(|k| k == "Service")
}

#[cfg(feature = "consumer")]
impl Record {
    /// A record read with `aws-sdk-dynamodbstreams`, or `None` for one with no change
    /// (an event name this version of dynorm does not know).
    pub(crate) fn from_streams(record: streams::Record) -> Option<Self> {
        let event_name = EventName::from_name(record.event_name.as_ref()?.as_str())?;
        let by_ttl = record.user_identity.as_ref().is_some_and(|identity| {
            is_ttl_identity(identity.r#type.as_deref(), identity.principal_id.as_deref())
        });
        let change = record.dynamodb?;
        let approximate_creation_time = change
            .approximate_creation_date_time
            .and_then(|t| SystemTime::try_from(t).ok());
        Some(Self {
            event_name,
            keys: change.keys.map(convert_item).unwrap_or_default(),
            new_image: change.new_image.map(convert_item),
            old_image: change.old_image.map(convert_item),
            sequence_number: change.sequence_number.unwrap_or_default(),
            approximate_creation_time,
            event_id: record.event_id.unwrap_or_default(),
            by_ttl,
        })
    }
}

/// An item of the streams SDK as an item of the DynamoDB SDK.
#[cfg(feature = "consumer")]
pub(crate) fn convert_item(
    item: std::collections::HashMap<String, streams::AttributeValue>,
) -> Item {
    item.into_iter().map(|(k, v)| (k, convert(v))).collect()
}

/// A value of the streams SDK as a value of the DynamoDB SDK: the same data, another crate.
#[cfg(feature = "consumer")]
fn convert(value: streams::AttributeValue) -> AttributeValue {
    use streams::AttributeValue as S;
    match value {
        S::S(s) => AttributeValue::S(s),
        S::N(n) => AttributeValue::N(n),
        S::B(b) => AttributeValue::B(Blob::new(b.into_inner())),
        S::Bool(b) => AttributeValue::Bool(b),
        S::Null(n) => AttributeValue::Null(n),
        S::Ss(v) => AttributeValue::Ss(v),
        S::Ns(v) => AttributeValue::Ns(v),
        S::Bs(v) => AttributeValue::Bs(v.into_iter().map(|b| Blob::new(b.into_inner())).collect()),
        S::L(v) => AttributeValue::L(v.into_iter().map(convert).collect()),
        S::M(m) => AttributeValue::M(convert_item(m)),
        // A type added to the service after this SDK: kept as NULL rather than failing the
        // whole record.
        _ => AttributeValue::Null(true),
    }
}

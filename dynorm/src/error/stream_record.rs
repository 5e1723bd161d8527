//! Where in a change stream an error happened: the shard, and the record when there is one.

use std::fmt;

/// Where in a change stream an error happened: the stream, the shard, and the record when
/// the error concerns one ([`Error::stream_record`](crate::Error::stream_record)).
///
/// A record that does not decode, a handler or a dead-letter sink that fails on it, or a
/// checkpoint of it that is not saved names the record: its shard, sequence number and
/// event id. A request that fails on a shard (`GetShardIterator`, `GetRecords`) names the
/// shard only. A Lambda event does not say which shard its records come from, so its
/// errors name the record without the shard.
///
/// `shard_id` and `sequence_number` are what
/// `dynorm_streams::ChangesBuilder::start_after` takes, to
/// start a consumer past the record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamRecordRef {
    stream_arn: Option<String>,
    shard_id: Option<String>,
    sequence_number: Option<String>,
    event_id: Option<String>,
}

impl StreamRecordRef {
    /// A record of a shard. Only the stream's readers make one (features `streams` and
    /// `lambda`).
    pub(crate) fn record(
        stream_arn: &str,
        shard_id: Option<&str>,
        sequence_number: &str,
        event_id: &str,
    ) -> Self {
        let known = |text: &str| (!text.is_empty()).then(|| text.to_owned());
        Self {
            stream_arn: known(stream_arn),
            shard_id: shard_id.and_then(known),
            sequence_number: known(sequence_number),
            event_id: known(event_id),
        }
    }

    /// A shard, where no record is concerned. Only the consumer makes one (feature
    /// `streams`).
    pub(crate) fn shard(stream_arn: &str, shard_id: &str) -> Self {
        Self::record(stream_arn, Some(shard_id), "", "")
    }

    /// The ARN of the stream, when it is known.
    pub fn stream_arn(&self) -> Option<&str> {
        self.stream_arn.as_deref()
    }

    /// The id of the shard; `None` in a Lambda event, which does not name it.
    pub fn shard_id(&self) -> Option<&str> {
        self.shard_id.as_deref()
    }

    /// The record's sequence number; `None` when the error concerns a shard, not a record.
    pub fn sequence_number(&self) -> Option<&str> {
        self.sequence_number.as_deref()
    }

    /// The record's event id; `None` when the error concerns a shard, not a record.
    pub fn event_id(&self) -> Option<&str> {
        self.event_id.as_deref()
    }
}

/// `shard `shardId-1`, sequence number `42`, event `e1``, each part when known.
impl fmt::Display for StreamRecordRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts = [
            ("shard", &self.shard_id),
            ("sequence number", &self.sequence_number),
            ("event", &self.event_id),
        ];
        let mut first = true;
        for (label, value) in parts {
            if let Some(value) = value {
                if !first {
                    f.write_str(", ")?;
                }
                write!(f, "{label} `{value}`")?;
                first = false;
            }
        }
        Ok(())
    }
}

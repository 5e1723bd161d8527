//! The lazy side of the batch writer: writes are made chunk by chunk, as requests leave.
//! Each item is converted while the requests before it are in flight, and is still in the
//! CPU's caches when the SDK serializes it; the batch never holds every converted item.

use aws_sdk_dynamodb::types::WriteRequest;

use super::write_source::Source;
use super::MAX_BATCH_WRITES;
use crate::error::Error;

/// DynamoDB's limit on the size of one request, with room for the request's own framing.
pub(super) const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024 - 64 * 1024;

/// A write the batch has checked but not made yet.
#[derive(Clone)]
pub(super) struct Planned<'a> {
    /// The position of its table in the batch's table names.
    pub table: usize,
    pub source: Source<'a>,
}

/// A write made and ready to send.
pub(super) struct Made<'a> {
    pub table: usize,
    pub request: WriteRequest,
    pub source: Source<'a>,
    pub size: usize,
}

/// Makes chunks of at most 25 writes and under 16 MB, in order, one per `next`. The first
/// write that cannot be made ends the chunks: the writes before it are still returned,
/// and [`finish`](Self::finish) tells which write failed and returns the ones after it.
pub(super) struct Chunks<'a> {
    planned: std::vec::IntoIter<Planned<'a>>,
    /// The position of the next planned write in the batch.
    position: usize,
    /// A write that did not fit in the previous chunk.
    carry: Option<Made<'a>>,
    failure: Option<(usize, Error)>,
}

/// What [`Chunks`] did not send.
pub(super) struct Leftover {
    /// The first write that could not be made, by its position in the batch.
    pub failure: Option<(usize, Error)>,
    /// The writes after it that can be made, with the positions of their tables.
    pub unsent: Vec<(usize, WriteRequest)>,
}

impl<'a> Chunks<'a> {
    pub(super) fn new(planned: Vec<Planned<'a>>) -> Self {
        Self {
            planned: planned.into_iter(),
            position: 0,
            carry: None,
            failure: None,
        }
    }

    /// Once the chunks have run out: the write that stopped them, if any, and the writes
    /// after it, made now if they can be.
    pub(super) fn finish(self) -> Leftover {
        let mut unsent: Vec<(usize, WriteRequest)> = self
            .carry
            .into_iter()
            .map(|made| (made.table, made.request))
            .collect();
        for planned in self.planned {
            if let Ok((request, _)) = planned.source.build() {
                unsent.push((planned.table, request));
            }
        }
        Leftover {
            failure: self.failure,
            unsent,
        }
    }
}

impl<'a> Iterator for Chunks<'a> {
    type Item = Vec<Made<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failure.is_some() {
            return None;
        }
        let mut chunk = Vec::with_capacity(MAX_BATCH_WRITES);
        let mut bytes = 0;
        if let Some(made) = self.carry.take() {
            bytes = made.size;
            chunk.push(made);
        }
        while chunk.len() < MAX_BATCH_WRITES {
            let Some(planned) = self.planned.next() else {
                break;
            };
            let position = self.position;
            self.position += 1;
            match planned.source.build() {
                Ok((request, size)) => {
                    let made = Made {
                        table: planned.table,
                        request,
                        source: planned.source,
                        size,
                    };
                    if !chunk.is_empty() && bytes + size > MAX_REQUEST_BYTES {
                        self.carry = Some(made);
                        break;
                    }
                    bytes += size;
                    chunk.push(made);
                }
                Err(error) => {
                    self.failure = Some((position, error));
                    break;
                }
            }
        }
        (!chunk.is_empty()).then_some(chunk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Item;
    use aws_sdk_dynamodb::types::AttributeValue;

    const K: crate::schema::KeyAttribute = crate::schema::KeyAttribute {
        name: "k",
        scalar: crate::value::ScalarType::S,
    };

    static SCHEMA: crate::schema::Schema = crate::schema::Schema {
        keys: &[K],
        attributes: &["k"],
        ..crate::schema::Schema::blank("T", K)
    };

    /// A delete whose key is about `size` bytes.
    fn delete(size: usize) -> Planned<'static> {
        let key = Item::from([("k".to_owned(), AttributeValue::S("x".repeat(size - 1)))]);
        Planned {
            table: 0,
            source: Source::Delete(key, &SCHEMA),
        }
    }

    #[test]
    fn chunks_hold_at_most_25_writes_and_16_mb() {
        let sizes = |chunks: &[Vec<Made>]| chunks.iter().map(Vec::len).collect::<Vec<_>>();
        let chunks: Vec<_> = Chunks::new((0..60).map(|_| delete(10)).collect()).collect();
        assert_eq!(sizes(&chunks), [25, 25, 10]);
        let big = 1024 * 1024;
        let chunks: Vec<_> = Chunks::new((0..50).map(|_| delete(big)).collect()).collect();
        assert!(chunks
            .iter()
            .all(|c| c.iter().map(|w| w.size).sum::<usize>() <= MAX_REQUEST_BYTES));
        assert_eq!(sizes(&chunks), [15, 15, 15, 5]);
    }

    /// A model that cannot be converted.
    struct Broken;

    impl super::super::write_source::PutSource for Broken {
        fn put_item(&self) -> crate::error::Result<Item> {
            Err(Error::validation("broken"))
        }
        fn schema(&self) -> &'static crate::schema::Schema {
            static BROKEN: crate::schema::Schema = crate::schema::Schema {
                keys: &[K],
                ..crate::schema::Schema::blank("Broken", K)
            };
            &BROKEN
        }
        fn key_bytes(&self) -> crate::error::Result<Vec<u8>> {
            Ok(Vec::new())
        }
    }

    #[test]
    fn the_first_write_that_cannot_be_made_stops_the_chunks() {
        let mut planned: Vec<Planned> = (0..30).map(|_| delete(10)).collect();
        planned[27] = Planned {
            table: 0,
            source: Source::Put(&Broken),
        };
        planned[29] = Planned {
            table: 0,
            source: Source::Put(&Broken),
        };
        let mut chunks = Chunks::new(planned);
        let sent: Vec<usize> = chunks.by_ref().map(|c| c.len()).collect();
        assert_eq!(sent, [25, 2], "the writes before it are sent");
        let left = chunks.finish();
        let (position, error) = left.failure.expect("the failure");
        assert_eq!(position, 27);
        assert_eq!(error.model(), Some("Broken"));
        assert_eq!(
            left.unsent.len(),
            1,
            "write 28; write 29 cannot be made either"
        );
    }

    #[test]
    fn nothing_is_left_when_every_write_is_made() {
        let mut chunks = Chunks::new((0..30).map(|_| delete(10)).collect());
        assert_eq!(chunks.by_ref().count(), 2);
        let left = chunks.finish();
        assert!(left.failure.is_none() && left.unsent.is_empty());
    }
}

//! Which shards of a stream to read next. A stream's shards form a tree: a shard that
//! splits is closed, and its children carry on from it. A shard is read only once its
//! parent is done, so the changes to one key, which move from parent to child, come in
//! order. Pure logic: no request is sent here.

use crate::checkpoint::{compare_sequence_numbers, Checkpoint};

/// A shard as one page of `DescribeStream` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ListedShard {
    pub(crate) id: String,
    pub(crate) parent: Option<String>,
    /// The sequence number of the shard's last record, once the shard is closed.
    pub(crate) ending_sequence: Option<String>,
}

/// How far the consumer got in one shard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Progress {
    /// No iterator yet: the checkpoint has not been read.
    Unopened,
    /// An iterator is held; records are being read.
    Reading,
    /// Closed and read to its end; its last records may still wait to be handled.
    ReadToEnd,
    /// Every record was handled (or the checkpoint says so).
    Done,
}

/// A shard the consumer follows.
#[derive(Debug)]
pub(crate) struct TrackedShard {
    pub(crate) listed: ListedShard,
    pub(crate) progress: Progress,
    /// The iterator of the next `GetRecords`, while `Reading`.
    pub(crate) iterator: Option<String>,
    /// How many times in a row the shard's iterator expired before a `GetRecords` passed.
    pub(crate) expired_in_a_row: u32,
}

/// Every shard of the stream the consumer knows of, in the order it learnt of them.
#[derive(Debug, Default)]
pub(crate) struct Lineage {
    shards: Vec<TrackedShard>,
}

impl Lineage {
    /// The shard at `index`.
    pub(crate) fn shard(&self, index: usize) -> &TrackedShard {
        &self.shards[index]
    }

    /// The shard at `index`, to change.
    pub(crate) fn shard_mut(&mut self, index: usize) -> &mut TrackedShard {
        &mut self.shards[index]
    }

    /// Whether the stream lists shard `id`.
    pub(crate) fn contains(&self, id: &str) -> bool {
        self.shards.iter().any(|s| s.listed.id == id)
    }

    /// Adds the shards of one `DescribeStream` page. A known shard keeps its progress,
    /// and learns its ending sequence number once it is closed.
    pub(crate) fn merge(&mut self, page: impl IntoIterator<Item = ListedShard>) {
        for listed in page {
            match self.shards.iter_mut().find(|s| s.listed.id == listed.id) {
                Some(known) => {
                    if known.listed.ending_sequence.is_none() {
                        known.listed.ending_sequence = listed.ending_sequence;
                    }
                }
                None => self.shards.push(TrackedShard {
                    listed,
                    progress: Progress::Unopened,
                    iterator: None,
                    expired_in_a_row: 0,
                }),
            }
        }
    }

    /// The shards to read now, in the order they were listed: those not read to their end
    /// whose parent is done, or is not listed (trimmed from the stream, or never seen).
    pub(crate) fn readable(&self) -> Vec<usize> {
        (0..self.shards.len())
            .filter(|&index| self.is_readable(index))
            .collect()
    }

    fn is_readable(&self, index: usize) -> bool {
        let shard = &self.shards[index];
        if !matches!(shard.progress, Progress::Unopened | Progress::Reading) {
            return false;
        }
        match &shard.listed.parent {
            None => true,
            Some(parent) => self
                .shards
                .iter()
                .find(|p| &p.listed.id == parent)
                .is_none_or(|p| p.progress == Progress::Done),
        }
    }

    /// Whether every known shard is done: the stream was turned off and fully handled.
    pub(crate) fn all_done(&self) -> bool {
        !self.shards.is_empty() && self.shards.iter().all(|s| s.progress == Progress::Done)
    }

    /// Whether a checkpoint says a shard needs no more reading: it is at the shard's end,
    /// or at the last record of a closed shard.
    pub(crate) fn checkpoint_finishes(&self, index: usize, checkpoint: &Checkpoint) -> bool {
        match checkpoint {
            Checkpoint::ShardEnd => true,
            Checkpoint::After(sequence) => self.shards[index]
                .listed
                .ending_sequence
                .as_deref()
                .is_some_and(|end| compare_sequence_numbers(sequence, end).is_ge()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(id: &str, parent: Option<&str>, ending: Option<&str>) -> ListedShard {
        ListedShard {
            id: id.to_owned(),
            parent: parent.map(str::to_owned),
            ending_sequence: ending.map(str::to_owned),
        }
    }

    fn ids(lineage: &Lineage) -> Vec<&str> {
        lineage
            .readable()
            .into_iter()
            .map(|i| lineage.shard(i).listed.id.as_str())
            .collect()
    }

    fn finish(lineage: &mut Lineage, id: &str) {
        let index = (0..lineage.shards.len())
            .find(|&i| lineage.shard(i).listed.id == id)
            .unwrap();
        lineage.shard_mut(index).progress = Progress::Done;
    }

    #[test]
    fn a_split_is_read_parent_first_then_both_children() {
        let mut lineage = Lineage::default();
        lineage.merge([
            listed("parent", None, Some("300")),
            listed("left", Some("parent"), None),
            listed("right", Some("parent"), None),
        ]);
        assert_eq!(ids(&lineage), ["parent"]);
        // Read to its end, its last records not handled yet: the children still wait.
        lineage.shard_mut(0).progress = Progress::ReadToEnd;
        assert!(ids(&lineage).is_empty());
        finish(&mut lineage, "parent");
        assert_eq!(ids(&lineage), ["left", "right"]);
    }

    #[test]
    fn a_child_listed_on_an_earlier_page_than_its_parent_waits_for_it() {
        let mut lineage = Lineage::default();
        lineage.merge([listed("child", Some("parent"), None)]);
        // Alone, its parent unknown, the child could be read; a later page names the parent.
        lineage.merge([listed("parent", Some("grandparent"), Some("90"))]);
        assert_eq!(ids(&lineage), ["parent"], "the grandparent was trimmed");
        finish(&mut lineage, "parent");
        assert_eq!(ids(&lineage), ["child"]);
    }

    #[test]
    fn generations_are_read_one_after_another() {
        let mut lineage = Lineage::default();
        lineage.merge([
            listed("a", None, Some("10")),
            listed("b", Some("a"), Some("20")),
            listed("c", Some("b"), None),
            listed("other", None, None),
        ]);
        assert_eq!(ids(&lineage), ["a", "other"]);
        finish(&mut lineage, "a");
        assert_eq!(ids(&lineage), ["b", "other"]);
        finish(&mut lineage, "b");
        assert_eq!(ids(&lineage), ["c", "other"]);
        assert!(!lineage.all_done());
        finish(&mut lineage, "c");
        finish(&mut lineage, "other");
        assert!(lineage.all_done());
        assert!(ids(&lineage).is_empty());
    }

    #[test]
    fn a_known_shard_keeps_its_progress_and_learns_that_it_closed() {
        let mut lineage = Lineage::default();
        lineage.merge([listed("s", None, None)]);
        lineage.shard_mut(0).progress = Progress::Reading;
        lineage.shard_mut(0).iterator = Some("it".into());
        lineage.merge([listed("s", None, Some("500")), listed("t", Some("s"), None)]);
        assert_eq!(lineage.shard(0).progress, Progress::Reading);
        assert_eq!(lineage.shard(0).iterator.as_deref(), Some("it"));
        assert_eq!(
            lineage.shard(0).listed.ending_sequence.as_deref(),
            Some("500")
        );
        assert_eq!(ids(&lineage), ["s"]);
    }

    #[test]
    fn checkpoints_finish_a_shard_at_its_end_or_at_the_last_record_of_a_closed_one() {
        let mut lineage = Lineage::default();
        lineage.merge([
            listed("closed", None, Some("1000000000000000000500")),
            listed("open", None, None),
        ]);
        let after = |s: &str| Checkpoint::After(s.to_owned());
        assert!(lineage.checkpoint_finishes(0, &Checkpoint::ShardEnd));
        assert!(lineage.checkpoint_finishes(0, &after("1000000000000000000500")));
        assert!(!lineage.checkpoint_finishes(0, &after("999000000000000000000")));
        assert!(!lineage.checkpoint_finishes(1, &after("1000000000000000000500")));
        assert!(lineage.checkpoint_finishes(1, &Checkpoint::ShardEnd));
    }

    #[test]
    fn nothing_is_done_until_a_shard_is_known() {
        let lineage = Lineage::default();
        assert!(!lineage.all_done());
        assert!(ids(&lineage).is_empty());
    }
}

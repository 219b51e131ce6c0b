//! The visited table's growth into a larger table, in parts that the
//! workers share: first mapping the larger table's pages (the kernel
//! zeroes each as it is first written), then moving the entries, each
//! part a range of slots. The store grows its table this way between
//! batches, or while a batch expands (the expansion does not read the
//! table), where the growth's page faults fill time between chunks rather
//! than a phase of their own.

use std::ops::Range;

use super::table::Table;

/// Parts per worker: enough that a worker held up by page faults does not
/// hold up the rest.
const PARTS_PER_WORKER: usize = 8;

/// A larger table being filled from the current one.
pub(crate) struct Growth {
    bigger: Table,
    /// Slot ranges of the larger table to map, the first `maps` parts.
    maps: Vec<Range<usize>>,
    /// Slot ranges of the current table to move, after them.
    moves: Vec<Range<usize>>,
}

impl Growth {
    /// The growth `table` needs for `additional` more entries (`None` if it
    /// has room), in parts for `workers` workers. Nothing is mapped yet.
    pub(crate) fn of(table: &Table, additional: usize, workers: usize) -> Option<Growth> {
        let bigger = table.larger_for(additional)?;
        let parts = workers * PARTS_PER_WORKER;
        let split = |n: usize| -> Vec<_> {
            (0..parts)
                .map(|k| k * n / parts..(k + 1) * n / parts)
                .collect()
        };
        Some(Growth {
            maps: split(bigger.slot_count()),
            moves: split(table.slot_count()),
            bigger,
        })
    }

    /// How many parts map the larger table's pages (they come first).
    pub(crate) fn maps(&self) -> usize {
        self.maps.len()
    }

    /// How many parts there are.
    pub(crate) fn parts(&self) -> usize {
        self.maps.len() + self.moves.len()
    }

    /// Does part `k` of the growth of `table` (which nothing writes until
    /// the growth is [`done`](Self::done)).
    pub(crate) fn run(&self, table: &Table, k: usize) {
        match k.checked_sub(self.maps.len()) {
            None => self.bigger.touch(self.maps[k].clone()),
            Some(m) => table.move_into(&self.bigger, self.moves[m].clone()),
        }
    }

    /// The larger table, once every part has run.
    pub(crate) fn done(self) -> Table {
        self.bigger
    }
}

#[cfg(test)]
mod tests {
    use super::Growth;
    use crate::explore::table::Table;

    /// The workers take a growth's parts in any order (`Workers::each_after`
    /// hands out the page touches and the moves together): a page touched
    /// after a move placed entries in it keeps them.
    #[test]
    fn touching_a_page_after_a_move_keeps_its_entries() {
        let n = 20_000u32;
        let hash = |i: u32| u64::from(i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut table = Table::with_capacity(n as usize);
        for i in 0..n {
            table.insert_new(hash(i), i);
        }
        let growth = Growth::of(&table, 5 * n as usize, 4).expect("the table must grow");
        for k in (growth.maps()..growth.parts()).chain(0..growth.maps()) {
            growth.run(&table, k);
        }
        let bigger = growth.done();
        for i in 0..n {
            assert_eq!(
                bigger.find(hash(i), |id| id == i),
                Some(i),
                "entry {i} lost"
            );
        }
    }
}

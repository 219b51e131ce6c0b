//! One worker's part of the visited set: the states it owns (by hash),
//! with their BFS level, rank within the level, depth, parent (held by
//! whichever worker owns it) and the action from it, whether final,
//! whether expanded by an ample subset (for the proviso), and, for the
//! deadlock analysis and the proviso, the predecessors of each.

use std::hash::{BuildHasher, Hasher};

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use super::rounds::{Key, Ptr};
use crate::explore::BitSet;

/// Parent of the initial state.
pub(super) const ROOT: Ptr = (u32::MAX, u32::MAX);

/// The hash of a state's words (the same on every process).
pub(super) fn hash(words: &[u32]) -> u64 {
    let mut h = FxBuildHasher.build_hasher();
    for &w in words {
        h.write_u32(w);
    }
    h.finish()
}

/// The worker that owns a state: its hash, mixed again (the table uses the
/// same hash), reduced to `peers`.
pub(super) fn owner(words: &[u32], peers: usize) -> u32 {
    let h = hash(words);
    let x = (h ^ (h >> 31)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (((x >> 32) * peers as u64) >> 32) as u32
}

/// The states one worker owns.
pub(super) struct Partition {
    words: usize,
    arena: Vec<u32>,
    table: HashTable<u32>,
    /// Level of each state: the range of sequential ids it is in (a BFS
    /// level, or the states a proviso pass found).
    pub level: Vec<u32>,
    /// Length of each state's path in the BFS tree (its level, until the
    /// proviso expands a state fully).
    pub depth: Vec<u32>,
    /// Rank of each state among all workers' states of its level: its id
    /// in a sequential search is the states of earlier levels plus it.
    pub rank: Vec<u64>,
    /// First position (smallest key) each state was reached at in its level.
    pub key: Vec<Key>,
    /// First local index of the level being expanded.
    pub newest: usize,
    pub parent: Vec<Ptr>,
    pub via: Vec<u32>,
    pub finals: BitSet,
    /// Every edge into an owned state: (its index, the source).
    pub preds: Vec<(u32, Ptr)>,
    /// States expanded by an ample subset of their steps (set when
    /// expanded), less those the proviso expanded fully since (`full`).
    reduced: BitSet,
    full: std::collections::HashSet<u32>,
    /// Sources of edges into this worker's states older than the proviso's
    /// current range (`proviso`): those sources can leave their component.
    pub leaving: Vec<Ptr>,
}

impl Partition {
    pub(super) fn new(words: usize) -> Self {
        Partition {
            words,
            arena: Vec::new(),
            table: HashTable::new(),
            level: Vec::new(),
            depth: Vec::new(),
            rank: Vec::new(),
            key: Vec::new(),
            newest: 0,
            parent: Vec::new(),
            via: Vec::new(),
            finals: BitSet::default(),
            preds: Vec::new(),
            reduced: BitSet::default(),
            full: Default::default(),
            leaving: Vec::new(),
        }
    }

    /// Words of a state.
    pub(super) fn words(&self) -> usize {
        self.words
    }

    pub(super) fn len(&self) -> usize {
        self.level.len()
    }

    /// The words of state `local`.
    pub(super) fn state(&self, local: u32) -> &[u32] {
        let at = local as usize * self.words;
        &self.arena[at..at + self.words]
    }

    /// The index of a held state.
    pub(super) fn find(&self, words: &[u32]) -> Option<u32> {
        let arena = &self.arena;
        let w = self.words;
        let at = |i: u32| &arena[i as usize * w..(i as usize + 1) * w];
        self.table.find(hash(words), |&i| at(i) == words).copied()
    }

    /// Adds a state (not held yet) at `level`, reached first at `key`.
    pub(super) fn insert(
        &mut self,
        words: &[u32],
        level: u32,
        key: Key,
        parent: Ptr,
        via: u32,
    ) -> u32 {
        let local = self.len() as u32;
        self.arena.extend_from_slice(words);
        let (arena, w) = (&self.arena, self.words);
        let rehash = |&i: &u32| hash(&arena[i as usize * w..(i as usize + 1) * w]);
        self.table.insert_unique(hash(words), local, rehash);
        self.level.push(level);
        self.depth.push(level);
        self.rank.push(u64::MAX);
        self.key.push(key);
        self.parent.push(parent);
        self.via.push(via);
        local
    }

    /// Records that state `local` was expanded by an ample subset.
    pub(super) fn set_reduced(&mut self, local: u32) {
        while self.reduced.len() <= local as usize {
            self.reduced.push(false);
        }
        self.reduced.insert(local);
    }

    /// Records that the proviso expanded state `local` fully.
    pub(super) fn set_full(&mut self, local: u32) {
        self.full.insert(local);
    }

    /// Whether state `local` took only an ample subset of its steps.
    pub(super) fn is_reduced(&self, local: u32) -> bool {
        (local as usize) < self.reduced.len()
            && self.reduced.get(local)
            && !self.full.contains(&local)
    }

    /// How many states took only an ample subset of their steps.
    pub(super) fn reduced_count(&self) -> usize {
        self.reduced.count_ones() - self.full.len()
    }

    /// The states of the newest ranked level and after: local indices.
    pub(super) fn newest_range(&self) -> std::ops::Range<u32> {
        self.newest as u32..self.len() as u32
    }

    /// The states from local index `first` on.
    pub(super) fn newest_range_from(&self, first: u32) -> std::ops::Range<u32> {
        first..self.len() as u32
    }
}

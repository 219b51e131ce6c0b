//! One worker's part of the visited set: the states it owns (by hash),
//! with their BFS level (ranges of indices: levels only grow along a
//! worker's states), rank within the level, depth (the level, until the
//! proviso's first pass), parent (held by
//! whichever worker owns it) and the action from it, whether final,
//! whether expanded by an ample subset (for the proviso), and, for the
//! deadlock analysis and the proviso, the predecessors of each (under a
//! progress model, with the labels of their edges). The
//! states themselves are kept as the single-process explorer keeps them
//! (`StateStore`: compact codes, with the system's parts interned in
//! tables of this worker's own).
//!
//! A state held anywhere is one word here (`Packing`): ranks, parents and
//! the sources of edges take 4 bytes each, where a (worker, index) pair
//! and a 64-bit rank took 8 (#43: 20 bytes a state and 12 an edge before,
//! 12 and 8 now; the single explorer keeps 8 and 8).

use std::hash::{BuildHasher, Hasher};

use rustc_hash::FxBuildHasher;

use super::interned::Labels;
use super::memory::held;
use super::quarter;
use super::rounds::{Key, Ptr};
use crate::check::Label;
use crate::explore::{BitSet, Slot, StateStore};

/// An edge into an owned state, for the labelled graph: its index, the
/// source (packed), the step's place among the source's steps (in action
/// order), and its label's number (`Partition::labels`).
pub(super) type LabelledPred = (u32, u32, u32, u32);

/// The largest segment of a worker's codes: the last one is filled in
/// part but counted whole (by the heap, `--stats` and `--max-memory`),
/// one a worker (#43: at 16 MiB, 10 of a worker's 27 MiB of codes at
/// 8 × 2, 6 blocks). Four MiB hold a whole huge page wherever they lie.
const SEGMENT_BYTES: usize = 4 << 20;

/// Parent of the initial state.
pub(super) const ROOT: Ptr = (u32::MAX, u32::MAX);

/// The most copies of a worker's states that the liveness analyses
/// colour at once (the deadlock check's two fixpoints; two edge sets).
pub(super) const COPIES_AT_ONCE: u32 = 2;

/// A state of any worker as one word, `index × peers + worker`: every
/// worker holds fewer than [`cap`](Self::cap) states, so a run holds fewer
/// than 2^32 in all, as the single explorer does (its ids are `u32`), and
/// a level's ranks fit a word too.
#[derive(Clone, Copy, Debug)]
pub(super) struct Packing {
    peers: u32,
}

impl Packing {
    pub(super) fn new(peers: usize) -> Self {
        let peers = u32::try_from(peers).expect("fewer than 2^32 workers");
        Packing { peers }
    }

    /// The most states one worker holds: `u32::MAX` stays free for
    /// [`ROOT`], and a worker's states times the copies its analyses
    /// colour at once ([`COPIES_AT_ONCE`]) fit the four-byte slots of
    /// `colour::slot` (one worker alone holds half of 2^32 states).
    pub(super) fn cap(self) -> u32 {
        u32::MAX / self.peers.max(COPIES_AT_ONCE)
    }

    pub(super) fn pack(self, (worker, local): Ptr) -> u32 {
        match (worker, local) == ROOT {
            true => u32::MAX,
            false => local * self.peers + worker,
        }
    }

    pub(super) fn unpack(self, packed: u32) -> Ptr {
        match packed {
            u32::MAX => ROOT,
            p => (p % self.peers, p / self.peers),
        }
    }
}

/// The hash of a state's words (the same on every process).
pub(super) fn hash(words: &[u32]) -> u64 {
    let mut h = FxBuildHasher.build_hasher();
    // Two words a step: the owner of every successor is hashed.
    let mut pairs = words.chunks_exact(2);
    for p in &mut pairs {
        h.write_u64(u64::from(p[0]) | u64::from(p[1]) << 32);
    }
    for &w in pairs.remainder() {
        h.write_u32(w);
    }
    h.finish()
}

/// The worker that owns a state: its hash, mixed again, reduced to `peers`.
pub(super) fn owner(words: &[u32], peers: usize) -> u32 {
    let h = hash(words);
    let x = (h ^ (h >> 31)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (((x >> 32) * peers as u64) >> 32) as u32
}

/// The states one worker owns.
pub(super) struct Partition {
    /// The states, by local index.
    store: StateStore,
    /// The first index of each level (a range of sequential ids: a BFS
    /// level, or the states a proviso pass found); a state's level is the
    /// last that starts at or before it.
    level_firsts: Vec<u32>,
    /// Length of the path in the BFS tree of each state from index
    /// `depths_from` on: before the proviso first expands a state fully,
    /// every state's depth is its level, and none is stored.
    depths: Vec<u32>,
    depths_from: u32,
    /// Rank of each state among all workers' states of its level: its id
    /// in a sequential search is the states of earlier levels plus it.
    rank: Vec<u32>,
    /// First position (smallest key) each state of the level being
    /// found (from local index `keyed_from` on) was reached at: only the
    /// search of that level needs it.
    keys: Vec<Key>,
    keyed_from: u32,
    /// First local index of the level being expanded.
    pub newest: usize,
    /// The parent of each state (`packing`) and the action from it.
    parent: Vec<u32>,
    via: Vec<u32>,
    pub finals: BitSet,
    /// Every edge into an owned state: (its index, the source, packed).
    pub preds: Vec<(u32, u32)>,
    /// Under a progress model, every edge into an owned state with its
    /// label instead (`search::Edges::Labelled`), and the labels.
    pub labelled: Vec<LabelledPred>,
    pub labels: Labels,
    /// With labelled edges, the steps each state took (by local index):
    /// where each state's edges out begin, so that the labelling places
    /// each edge out as it arrives (#43: it sorted them, held twice).
    pub steps: Vec<u32>,
    /// States expanded by an ample subset of their steps (set when
    /// expanded), less those the proviso expanded fully since (`full`).
    reduced: BitSet,
    full: std::collections::HashSet<u32>,
    /// Sources of edges into this worker's states older than the proviso's
    /// current range (`proviso`): those sources can leave their component.
    pub leaving: Vec<Ptr>,
    packing: Packing,
    /// The most states this partition holds (`Packing::cap`).
    cap: u32,
}

impl Partition {
    /// An empty partition of one of `peers` workers for states of `words`
    /// words, whose word ranges `parts` are interned
    /// (`TransitionSystem::state_parts`; none: every state kept whole, as
    /// a compact code).
    pub(super) fn new(words: usize, parts: Vec<std::ops::Range<usize>>, peers: usize) -> Self {
        let packing = Packing::new(peers);
        Partition {
            store: StateStore::new(words)
                .with_parts(parts)
                .with_segments_of(SEGMENT_BYTES),
            level_firsts: Vec::new(),
            depths: Vec::new(),
            depths_from: u32::MAX,
            rank: Vec::new(),
            keys: Vec::new(),
            keyed_from: 0,
            newest: 0,
            parent: Vec::new(),
            via: Vec::new(),
            finals: BitSet::default(),
            preds: Vec::new(),
            labelled: Vec::new(),
            labels: Labels::default(),
            steps: Vec::new(),
            reduced: BitSet::default(),
            full: Default::default(),
            leaving: Vec::new(),
            packing,
            cap: packing.cap(),
        }
    }

    /// At most `cap` states (below `Packing::cap`), for tests of a full
    /// partition.
    #[cfg(test)]
    fn with_cap(self, cap: u32) -> Self {
        Partition {
            cap: cap.min(self.cap),
            ..self
        }
    }

    /// How states of any worker are packed in a word here.
    pub(super) fn packing(&self) -> Packing {
        self.packing
    }

    /// The most states this partition holds.
    pub(super) fn capacity(&self) -> u64 {
        u64::from(self.cap)
    }

    /// The rank of state `local` in its level (set once the level is
    /// complete).
    pub(super) fn rank(&self, local: u32) -> u64 {
        u64::from(self.rank[local as usize])
    }

    /// Sets the rank of state `local` in its level: below the states of
    /// the run, which are fewer than 2^32 (`Packing`).
    pub(super) fn set_rank(&mut self, local: u32, rank: u64) {
        self.rank[local as usize] = u32::try_from(rank).expect("fewer than 2^32 states a run");
    }

    /// The parent of state `local` and the action from it.
    pub(super) fn parent(&self, local: u32) -> (Ptr, u32) {
        let i = local as usize;
        (self.packing.unpack(self.parent[i]), self.via[i])
    }

    /// A first position of state `local` from `parent` by `via`.
    pub(super) fn set_parent(&mut self, local: u32, parent: Ptr, via: u32) {
        let i = local as usize;
        self.parent[i] = self.packing.pack(parent);
        self.via[i] = via;
    }

    /// Keeps the edge into state `local` from `source`.
    pub(super) fn add_pred(&mut self, local: u32, source: Ptr) {
        quarter::push(&mut self.preds, (local, self.packing.pack(source)));
    }

    /// Keeps the edge into state `local` from `source`, the step at
    /// `place` among the source's, with its label.
    pub(super) fn add_labelled(&mut self, local: u32, source: Ptr, place: u32, label: Label) {
        let number = self.labels.intern(label);
        (self.labelled).push((local, self.packing.pack(source), place, number));
    }

    /// Records that state `local` took `steps` steps (with labelled edges).
    pub(super) fn set_steps(&mut self, local: u32, steps: u64) {
        let i = local as usize;
        if self.steps.len() <= i {
            self.steps.resize(i + 1, 0);
        }
        self.steps[i] = u32::try_from(steps).expect("fewer than 2^32 steps a state");
    }

    /// Words of a state.
    pub(super) fn words(&self) -> usize {
        self.store.words()
    }

    /// Bytes held: the states (codes, their index and interned parts),
    /// what is kept per state, and the edges kept.
    pub(super) fn bytes(&self) -> usize {
        self.held().iter().map(|(_, b)| b).sum()
    }

    /// Bytes held, by structure (`GSYNC_DIST_MEMORY`): the store's, what
    /// is kept per state, the keys of the level being found, and the
    /// edges.
    pub(super) fn held(&self) -> Vec<(&'static str, usize)> {
        let per_state = held(&self.level_firsts)
            + held(&self.depths)
            + held(&self.rank)
            + held(&self.parent)
            + held(&self.via)
            + held(&self.steps)
            + (self.finals.len() + self.reduced.len()) / 8;
        let mut all = self.store.held().to_vec();
        all.extend([
            ("per state", per_state),
            ("keys", held(&self.keys)),
            ("preds", held(&self.preds) + held(&self.leaving)),
            ("labelled edges", held(&self.labelled)),
        ]);
        all
    }

    pub(super) fn len(&self) -> usize {
        self.via.len()
    }

    /// The level of state `local`.
    pub(super) fn level(&self, local: u32) -> u32 {
        self.level_firsts.partition_point(|&f| f <= local) as u32 - 1
    }

    /// The number of states of each level, up to the last one held.
    pub(super) fn level_sizes(&self) -> Vec<u64> {
        let ends = self
            .level_firsts
            .iter()
            .skip(1)
            .copied()
            .chain([self.len() as u32]);
        (self.level_firsts.iter().zip(ends))
            .map(|(&first, end)| u64::from(end - first))
            .collect()
    }

    /// The first index of level `level` or a later one.
    pub(super) fn level_first(&self, level: u32) -> u32 {
        (self.level_firsts.get(level as usize)).map_or(self.len() as u32, |&f| f)
    }

    /// Whether state `local` was found since the last [`new_level`](Self::new_level).
    pub(super) fn is_newest(&self, local: u32) -> bool {
        local >= self.keyed_from
    }

    /// The length of state `local`'s path in the BFS tree.
    pub(super) fn depth(&self, local: u32) -> u32 {
        match local.checked_sub(self.depths_from) {
            Some(i) => self.depths[i as usize],
            None => self.level(local),
        }
    }

    /// Sets the length of state `local`'s path in the BFS tree.
    pub(super) fn set_depth(&mut self, local: u32, depth: u32) {
        match local.checked_sub(self.depths_from) {
            Some(i) => self.depths[i as usize] = depth,
            None => debug_assert_eq!(depth, self.level(local)),
        }
    }

    /// From now on a new state's depth may differ from its level (the
    /// proviso expands states fully): it is stored.
    pub(super) fn store_depths(&mut self) {
        self.depths_from = self.depths_from.min(self.len() as u32);
    }

    /// Writes the words of state `local` into `out`.
    pub(super) fn read(&self, local: u32, out: &mut [u32]) {
        self.store.read(local, out);
    }

    /// The words of state `local`.
    pub(super) fn state(&self, local: u32) -> Vec<u32> {
        self.store.get(local)
    }

    /// The index of a held state.
    pub(super) fn find(&self, words: &[u32]) -> Option<u32> {
        self.store.find(words)
    }

    /// The index of a state, and whether it is new: a new one is held from
    /// now on, at `level`, reached first at `key`; `None` where it is new
    /// and the partition holds its most states already.
    pub(super) fn insert(
        &mut self,
        words: &[u32],
        level: u32,
        key: Key,
        parent: Ptr,
        via: u32,
    ) -> Option<(u32, bool)> {
        let slot = self.store.insert_bounded(words, self.cap as usize);
        self.place(slot, level, key, parent, via)
    }

    /// [`insert`](Self::insert) of the state of wire form `wire`
    /// (`StateStore::encode_wire` of a partition of the same run).
    pub(super) fn insert_wire(
        &mut self,
        wire: &[u8],
        level: u32,
        key: Key,
        parent: Ptr,
        via: u32,
    ) -> Option<(u32, bool)> {
        let slot = self.store.insert_wire_bounded(wire, self.cap as usize);
        self.place(slot, level, key, parent, via)
    }

    /// Appends the wire form of `words` to `out`, for a partition of the
    /// same run.
    pub(super) fn encode_wire(&self, words: &[u32], out: &mut Vec<u8>) {
        self.store.encode_wire(words, out);
    }

    /// What [`insert`](Self::insert) returns, for the store's `slot`; a
    /// new state's figures are kept.
    fn place(
        &mut self,
        slot: Slot,
        level: u32,
        key: Key,
        parent: Ptr,
        via: u32,
    ) -> Option<(u32, bool)> {
        let local = match slot {
            Slot::Old(local) => return Some((local, false)),
            Slot::New(local) => local,
            Slot::Full => return None,
        };
        debug_assert_eq!(local as usize, self.len());
        debug_assert!(
            level as usize + 1 >= self.level_firsts.len(),
            "levels only grow"
        );
        while self.level_firsts.len() <= level as usize {
            self.level_firsts.push(local);
        }
        if local >= self.depths_from {
            self.depths.push(level);
        }
        quarter::push(&mut self.rank, u32::MAX);
        self.keys.push(key);
        quarter::push(&mut self.parent, self.packing.pack(parent));
        quarter::push(&mut self.via, via);
        Some((local, true))
    }

    /// The states found from now on are a new level: the positions of
    /// the earlier ones are forgotten.
    pub(super) fn new_level(&mut self) {
        self.keys.clear();
        self.keyed_from = self.len() as u32;
    }

    /// The first position state `local` of the newest level was reached at.
    pub(super) fn key(&self, local: u32) -> Key {
        self.keys[(local - self.keyed_from) as usize]
    }

    /// A smaller first position of state `local` of the newest level.
    pub(super) fn set_key(&mut self, local: u32, key: Key) {
        self.keys[(local - self.keyed_from) as usize] = key;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips_every_worker_up_to_the_cap() {
        for peers in [1, 2, 3, 16, 1000] {
            let p = Packing::new(peers);
            let last = p.cap() - 1;
            for ptr in [
                (0, 0),
                (peers as u32 - 1, 0),
                (0, last),
                (peers as u32 - 1, last),
            ] {
                assert_ne!(p.pack(ptr), u32::MAX, "{peers} peers, {ptr:?}");
                assert_eq!(p.unpack(p.pack(ptr)), ptr, "{peers} peers");
            }
            assert_eq!(p.unpack(p.pack(ROOT)), ROOT);
            // A full worker's slots, every copy coloured at once, fit the
            // four-byte slots (`colour::slot`), one worker alone included.
            let slots = u64::from(p.cap()) * u64::from(COPIES_AT_ONCE);
            assert!(slots <= u64::from(u32::MAX) + 1, "{peers} peers");
        }
    }

    #[test]
    fn a_full_partition_refuses_new_states_and_finds_old_ones() {
        let mut part = Partition::new(2, Vec::new(), 4).with_cap(2);
        let at = |part: &mut Partition, w: [u32; 2]| part.insert(&w, 0, (0, 0), ROOT, 0);
        assert_eq!(at(&mut part, [1, 1]), Some((0, true)));
        assert_eq!(at(&mut part, [2, 2]), Some((1, true)));
        assert_eq!(at(&mut part, [3, 3]), None);
        assert_eq!(at(&mut part, [2, 2]), Some((1, false)));
        assert_eq!(part.len(), 2);
    }
}

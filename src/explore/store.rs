//! The visited set: an arena of fixed-stride states (`arena`) plus a hash
//! table of state ids keyed by the state words.

use super::arena::Arena;
use super::table::{Claim, Table};

/// Index of a state in discovery order (the initial state is 0).
pub type StateId = u32;

/// The largest number of states a store can hold (ids are `u32`; the
/// all-ones id is kept free as a "no state" marker).
pub const MAX_STATES: usize = u32::MAX as usize;

/// Hashes the words of a state to 64 bits.
///
/// States are a few hundred bytes, so the hash is limited by its dependency
/// chain, not by loads: four independent lanes each fold 16 bytes per
/// multiply (a 64x64→128-bit product folded to 64 bits, the long-input loop
/// of foldhash and wyhash), so each lane's chain is one multiply per 64
/// bytes of state instead of one per 8 bytes for a single mixed
/// accumulator (about 4x faster on 700-byte states). The tail and the
/// lanes are finalized with MurmurHash3's `fmix64`, so that every input
/// bit reaches every output bit: the hash doubles as the fingerprint of
/// hash compaction. Written over `u32` words (no byte view, no `unsafe`)
/// and with fixed constants, so fingerprints do not depend on a crate
/// version or the process.
#[inline]
pub fn hash_state(state: &[u32]) -> u64 {
    const K: [u64; 5] = [
        0x243F_6A88_85A3_08D3,
        0x1319_8A2E_0370_7344,
        0xA409_3822_299F_31D0,
        0x082E_FA98_EC4E_6C89,
        0x4528_21E6_38D0_1377,
    ];
    let pair = |w: &[u32], i: usize| u64::from(w[i]) | (u64::from(w[i + 1]) << 32);
    let mut lanes = [K[0], K[1], K[2], K[3]];
    let mut blocks = state.chunks_exact(16);
    for b in &mut blocks {
        for (l, lane) in lanes.iter_mut().enumerate() {
            *lane = folded_multiply(pair(b, 2 * l) ^ *lane, pair(b, 2 * l + 8) ^ K[4]);
        }
    }
    let mut h = (state.len() as u64).wrapping_mul(K[4]);
    for lane in lanes {
        h = folded_multiply(h ^ lane, K[4]);
    }
    let rest = blocks.remainder();
    let mut pairs = rest.chunks_exact(2);
    for p in &mut pairs {
        h = folded_multiply(h ^ pair(p, 0), K[1]);
    }
    if let [last] = pairs.remainder() {
        h = folded_multiply(h ^ u64::from(*last), K[2]);
    }
    fmix64(h)
}

/// The 128-bit product of `a` and `b`, folded to 64 bits by xoring its halves.
#[inline]
fn folded_multiply(a: u64, b: u64) -> u64 {
    let full = u128::from(a) * u128::from(b);
    (full as u64) ^ ((full >> 64) as u64)
}

#[inline]
fn fmix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    h ^ (h >> 33)
}

/// Bits of a hash-compaction fingerprint: the table slot's 31-bit tag
/// plus a 32-bit check word kept per state.
pub const FINGERPRINT_BITS: i32 = 63;

/// Probability bound that hash compaction merged two distinct states among
/// `n` stored ones: at most `n (n - 1) / 2` pairs, each colliding with
/// probability 2^-63 for uniformly distributed fingerprints.
pub fn collision_probability(n: u64) -> f64 {
    let n = n as f64;
    (n * (n - 1.0) / 2.0 / 2f64.powi(FINGERPRINT_BITS)).min(1.0)
}

/// Result of [`StateStore::insert_bounded`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// The state was already stored under this id.
    Old(StateId),
    /// The state is new and was stored under this id.
    New(StateId),
    /// The state is new but the store is at its bound: nothing was stored.
    Full,
}

/// A set of fixed-length `u32` states stored contiguously; ids are assigned
/// in insertion order. The index is a lock-free [`Table`], so that worker
/// threads can look states up and claim new ones concurrently (see
/// [`claim`](Self::claim)); insertion is otherwise single-threaded.
///
/// With hash compaction the set keeps only a 63-bit fingerprint per state
/// and the words of the states from [`base`](Self::base) on (the explorer's
/// queue, see [`forget_before`](Self::forget_before)); two states with the
/// same fingerprint count as one ([`collision_probability`]).
pub struct StateStore {
    words: usize,
    len: usize,
    /// Words of states `arena.first_held()..len`.
    arena: Arena,
    compact: bool,
    /// With hash compaction, the low 32 bits of every state's hash, by id:
    /// with the table's tag (bits 33..64) its 63-bit fingerprint.
    fingerprints: Vec<u32>,
    table: Table,
}

impl StateStore {
    /// An empty store for states of `words` words each.
    pub fn new(words: usize) -> Self {
        Self {
            words,
            len: 0,
            arena: Arena::new(words),
            compact: false,
            fingerprints: Vec::new(),
            table: Table::with_capacity(0),
        }
    }

    /// An empty store with hash compaction.
    pub fn compact(words: usize) -> Self {
        Self {
            compact: true,
            arena: Arena::queue(words),
            ..Self::new(words)
        }
    }

    /// Whether states are known by fingerprint only.
    pub fn is_compact(&self) -> bool {
        self.compact
    }

    /// The first state whose words are still held (0 without compaction).
    pub fn base(&self) -> StateId {
        self.arena.first_held() as StateId
    }

    /// With hash compaction, lets the store drop the words of states before
    /// `id` (already expanded), a whole arena segment at a time; without
    /// it, does nothing.
    pub fn forget_before(&mut self, id: StateId) {
        if self.compact {
            self.arena.drop_before(id as usize);
        }
    }

    /// Words per state.
    pub fn words(&self) -> usize {
        self.words
    }

    /// Number of stored states.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no state is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The words of state `id`. Panics if `id` is out of range or, with
    /// hash compaction, was forgotten.
    #[inline]
    pub fn get(&self, id: StateId) -> &[u32] {
        let i = id as usize;
        assert!(i < self.len, "state id {id} out of range");
        assert!(
            self.has_words(id),
            "state {id} was dropped by hash compaction"
        );
        self.arena.get(i)
    }

    /// Whether the words of `id` are held.
    pub fn has_words(&self, id: StateId) -> bool {
        (self.arena.first_held()..self.len).contains(&(id as usize))
    }

    /// The id of `state`, if stored.
    pub fn find(&self, state: &[u32]) -> Option<StateId> {
        self.find_hashed(state, hash_state(state))
    }

    /// Like [`find`](Self::find), with `hash == hash_state(state)`.
    #[inline]
    pub fn find_hashed(&self, state: &[u32], hash: u64) -> Option<StateId> {
        debug_assert_eq!(state.len(), self.words);
        self.table.find(hash, |id| self.is(id, state, hash))
    }

    /// Whether stored state `id` is `state` (of hash `hash`): the same
    /// words, or with hash compaction the same fingerprint.
    #[inline]
    fn is(&self, id: StateId, state: &[u32], hash: u64) -> bool {
        if self.compact {
            return self.fingerprints[id as usize] == hash as u32;
        }
        self.arena.get(id as usize) == state
    }

    /// Inserts `state` unless present; returns its id and whether it is new.
    /// Panics if the store already holds [`MAX_STATES`] states.
    pub fn insert(&mut self, state: &[u32]) -> (StateId, bool) {
        match self.insert_bounded(state, MAX_STATES) {
            Slot::Old(id) => (id, false),
            Slot::New(id) => (id, true),
            Slot::Full => panic!("state store full ({MAX_STATES} states)"),
        }
    }

    /// Like [`insert`](Self::insert), but a new state is only stored while
    /// the store holds fewer than `max_len` states (and [`MAX_STATES`]).
    #[inline]
    pub fn insert_bounded(&mut self, state: &[u32], max_len: usize) -> Slot {
        self.insert_hashed(state, hash_state(state), max_len)
    }

    /// Like [`insert_bounded`](Self::insert_bounded), with `hash ==
    /// hash_state(state)` already computed.
    pub fn insert_hashed(&mut self, state: &[u32], hash: u64, max_len: usize) -> Slot {
        debug_assert_eq!(state.len(), self.words);
        debug_assert_eq!(hash, hash_state(state));
        if let Some(id) = self.find_hashed(state, hash) {
            return Slot::Old(id);
        }
        if self.len >= max_len.min(MAX_STATES) {
            return Slot::Full;
        }
        self.table.reserve(1);
        let id = self.len as StateId;
        self.table.insert_new(hash, id);
        self.arena.push(state);
        if self.compact {
            self.fingerprints.push(hash as u32);
        }
        self.len += 1;
        Slot::New(id)
    }

    /// Looks up successor `index` of the current batch (`state`, of hash
    /// `hash`) and claims it if new; `batch_state(i)` gives the words and
    /// hash of successor `i` of the batch. Safe from many threads at once
    /// (see [`Table::claim`]).
    #[inline]
    pub(crate) fn claim<'b>(
        &self,
        state: &[u32],
        hash: u64,
        index: u32,
        batch_state: impl Fn(u32) -> (&'b [u32], u64),
    ) -> Claim {
        let compact = self.compact;
        self.table.claim(
            hash,
            index,
            |id| self.is(id, state, hash),
            |i| {
                let (words, h) = batch_state(i);
                // The tag is already equal: compact stores compare the rest.
                h == hash && (compact || words == state)
            },
        )
    }

    /// The table, for a batch's commits ([`Table::winner`], [`Table::commit`]).
    pub(crate) fn table(&self) -> &Table {
        &self.table
    }

    /// Appends room for the `n` states a batch claimed new, in id order
    /// (reserved before): returns the table (to commit their slots), their
    /// words to fill, as runs `(states, words)` in order, and, with hash
    /// compaction, their fingerprints (`n`).
    #[allow(clippy::type_complexity)]
    pub(crate) fn append(&mut self, n: usize) -> (&Table, Vec<(usize, &mut [u32])>, &mut [u32]) {
        let f = self.fingerprints.len();
        if self.compact {
            self.fingerprints.resize(f + n, 0);
        }
        self.len += n;
        self.table.add_committed(n);
        (
            &self.table,
            self.arena.append(n),
            &mut self.fingerprints[f..],
        )
    }

    /// Makes room for `additional` more states, so that the next
    /// `additional` insertions do not reallocate.
    pub fn reserve(&mut self, additional: usize) {
        self.arena.reserve(additional);
        if self.compact {
            self.fingerprints.reserve(additional);
        }
        self.table.reserve(additional);
    }

    /// Bytes currently allocated by the arena and the hash table.
    pub fn bytes(&self) -> usize {
        self.arena.bytes() + self.fingerprints.capacity() * 4 + self.table.bytes()
    }

    /// Memory the store would need after [`reserve`](Self::reserve)`(additional)`:
    /// `(steady, transient)`, where `steady` is the allocated size afterwards
    /// and `transient` the extra size held while the largest single buffer is
    /// moved (old and new buffers coexist during a reallocation).
    pub fn bytes_after_reserve(&self, additional: usize) -> (usize, usize) {
        let arena_after = self.arena.bytes_after_reserve(additional);
        let (prints_after, prints_old) = match self.compact {
            true => super::limits::vec_after_reserve(&self.fingerprints, additional),
            false => (0, 0),
        };
        let (table_after, table_old) = self.table.bytes_after_reserve(additional);
        (
            arena_after + prints_after + table_after,
            prints_old.max(table_old),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_find_get() {
        let mut s = StateStore::new(3);
        assert!(s.is_empty());
        assert_eq!(s.insert(&[1, 2, 3]), (0, true));
        assert_eq!(s.insert(&[3, 2, 1]), (1, true));
        assert_eq!(s.insert(&[1, 2, 3]), (0, false));
        assert_eq!(s.len(), 2);
        assert_eq!(s.get(1), &[3, 2, 1]);
        assert_eq!(s.find(&[3, 2, 1]), Some(1));
        assert_eq!(s.find(&[0, 0, 0]), None);
        assert!(s.bytes() > 0);
    }

    #[test]
    fn many_states_and_bound() {
        let mut s = StateStore::new(2);
        for i in 0..10_000u32 {
            assert_eq!(s.insert(&[i, i ^ 7]), (i, true));
        }
        for i in 0..10_000u32 {
            assert_eq!(s.find(&[i, i ^ 7]), Some(i));
        }
        assert_eq!(s.insert_bounded(&[5, 5 ^ 7], 10), Slot::Old(5));
        assert_eq!(s.insert_bounded(&[u32::MAX, 0], 10_000), Slot::Full);
        assert_eq!(s.insert_bounded(&[u32::MAX, 0], 10_001), Slot::New(10_000));
    }

    /// A compact store whose arena segments hold 16 to 64 states.
    fn small_compact(words: usize) -> StateStore {
        StateStore {
            arena: Arena::with_segments(words, 16, 64),
            ..StateStore::compact(words)
        }
    }

    #[test]
    fn compact_store_keeps_fingerprints_and_a_queue() {
        let mut s = small_compact(2);
        for i in 0..1000u32 {
            assert_eq!(s.insert(&[i, 7]), (i, true));
        }
        assert_eq!(s.insert(&[5, 7]), (5, false));
        let bytes = s.bytes();
        s.forget_before(600);
        // Whole segments before state 600 are dropped.
        let base = s.base();
        assert!(base > 500 && base <= 600, "base {base}");
        assert!(s.bytes() < bytes);
        assert!(!s.has_words(base - 1) && s.has_words(600));
        assert_eq!(s.get(999), &[999, 7]);
        // Forgotten states are still known (by fingerprint).
        assert_eq!(s.find(&[3, 7]), Some(3));
        assert_eq!(s.insert(&[3, 7]), (3, false));
        assert_eq!(s.insert(&[1000, 7]), (1000, true));
        assert!(collision_probability(1 << 20) < 1e-7);
    }

    #[test]
    #[should_panic(expected = "dropped by hash compaction")]
    fn forgotten_words_are_not_returned() {
        let mut s = small_compact(1);
        for i in 0..100u32 {
            s.insert(&[i]);
        }
        s.forget_before(80);
        s.get(2);
    }

    #[test]
    fn zero_word_states() {
        let mut s = StateStore::new(0);
        assert_eq!(s.insert(&[]), (0, true));
        assert_eq!(s.insert(&[]), (0, false));
        assert_eq!(s.get(0), &[] as &[u32]);
    }

    #[test]
    fn reserve_projection_matches() {
        let mut s = StateStore::new(5);
        for n in [1usize, 3, 20, 100, 1000] {
            let (after, _) = s.bytes_after_reserve(n);
            s.reserve(n);
            let real = s.bytes();
            // The table estimate may differ from hashbrown's exact layout for
            // tiny tables only.
            assert!(after.abs_diff(real) <= 64, "projected {after}, real {real}");
            for _ in 0..n {
                let i = s.len() as u32;
                s.insert(&[i, 0, 0, 0, i]);
            }
        }
    }
}

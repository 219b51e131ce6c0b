//! The visited set: a flat arena of fixed-stride states plus a hash table of
//! state ids keyed by the state words.

use hashbrown::HashTable;

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

/// Probability bound that hash compaction merged two distinct states among
/// `n` stored ones: at most `n (n - 1) / 2` pairs, each colliding with
/// probability 2^-64 for uniformly distributed fingerprints.
pub fn collision_probability(n: u64) -> f64 {
    let n = n as f64;
    (n * (n - 1.0) / 2.0 / 2f64.powi(64)).min(1.0)
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

/// A table entry: the state's id and 32 bits of its hash. Keeping the hash
/// makes growing the table cheap (no state is rehashed from the arena) and
/// rules out most unequal states before their words are compared.
#[derive(Clone, Copy)]
struct Entry {
    id: StateId,
    hash: u32,
    /// The other 32 bits of the 64-bit hash: with hash compaction the two
    /// halves are the state's fingerprint, compared instead of its words.
    high: u32,
}

/// The table's 64-bit hash of an entry, derived from its stored 32 bits so
/// that insertion and rehashing agree.
#[inline]
fn spread(hash: u32) -> u64 {
    u64::from(hash).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

#[inline]
fn fold32(h: u64) -> u32 {
    (h ^ (h >> 32)) as u32
}

/// A set of fixed-length `u32` states stored contiguously; ids are assigned
/// in insertion order.
///
/// With hash compaction the set keeps only a 64-bit fingerprint per state
/// and the words of the states from [`base`](Self::base) on (the explorer's
/// queue, see [`forget_before`](Self::forget_before)); two states with the
/// same fingerprint count as one ([`collision_probability`]).
pub struct StateStore {
    words: usize,
    len: usize,
    /// Words of states `base..len`.
    arena: Vec<u32>,
    base: usize,
    compact: bool,
    table: HashTable<Entry>,
}

impl StateStore {
    /// An empty store for states of `words` words each.
    pub fn new(words: usize) -> Self {
        Self {
            words,
            len: 0,
            arena: Vec::new(),
            base: 0,
            compact: false,
            table: HashTable::new(),
        }
    }

    /// An empty store with hash compaction.
    pub fn compact(words: usize) -> Self {
        Self {
            compact: true,
            ..Self::new(words)
        }
    }

    /// Whether states are known by fingerprint only.
    pub fn is_compact(&self) -> bool {
        self.compact
    }

    /// The first state whose words are still held (0 without compaction).
    pub fn base(&self) -> StateId {
        self.base as StateId
    }

    /// With hash compaction, lets the store drop the words of states before
    /// `id` (already expanded); without it, does nothing.
    pub fn forget_before(&mut self, id: StateId) {
        let drop = (id as usize).saturating_sub(self.base);
        // Move the queue down only when that frees at least half of it.
        if self.compact && drop > 0 && drop * 2 >= self.len - self.base {
            self.arena.drain(..drop * self.words);
            self.base += drop;
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
        assert!(i >= self.base, "state {id} was dropped by hash compaction");
        let i = i - self.base;
        &self.arena[i * self.words..(i + 1) * self.words]
    }

    /// Whether the words of `id` are held.
    pub fn has_words(&self, id: StateId) -> bool {
        (self.base..self.len).contains(&(id as usize))
    }

    /// The id of `state`, if stored.
    pub fn find(&self, state: &[u32]) -> Option<StateId> {
        self.find_hashed(state, hash_state(state))
    }

    /// Like [`find`](Self::find), with `hash == hash_state(state)`.
    #[inline]
    pub fn find_hashed(&self, state: &[u32], hash: u64) -> Option<StateId> {
        debug_assert_eq!(state.len(), self.words);
        let h = fold32(hash);
        self.table
            .find(spread(h), |e| self.same(e, h, hash, state))
            .map(|e| e.id)
    }

    /// Whether `e` is the entry of `state` (of hash `hash`, folded `h`).
    #[inline]
    fn same(&self, e: &Entry, h: u32, hash: u64, state: &[u32]) -> bool {
        if e.hash != h {
            return false;
        }
        if self.compact {
            return e.high == (hash >> 32) as u32;
        }
        let (i, w) = (e.id as usize, self.words);
        &self.arena[i * w..(i + 1) * w] == state
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
    /// hash_state(state)` already computed (by a worker thread).
    #[inline]
    pub fn insert_hashed(&mut self, state: &[u32], hash: u64, max_len: usize) -> Slot {
        debug_assert_eq!(state.len(), self.words);
        debug_assert_eq!(hash, hash_state(state));
        let h = fold32(hash);
        let (arena, w, compact) = (&self.arena, self.words, self.compact);
        let high = (hash >> 32) as u32;
        let entry = self.table.entry(
            spread(h),
            |e| {
                e.hash == h
                    && match compact {
                        true => e.high == high,
                        false => &arena[e.id as usize * w..(e.id as usize + 1) * w] == state,
                    }
            },
            |e| spread(e.hash),
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(e) => Slot::Old(e.get().id),
            hashbrown::hash_table::Entry::Vacant(e) => {
                if self.len >= max_len.min(MAX_STATES) {
                    return Slot::Full;
                }
                let id = self.len as StateId;
                e.insert(Entry { id, hash: h, high });
                self.arena.extend_from_slice(state);
                self.len += 1;
                Slot::New(id)
            }
        }
    }

    /// Makes room for `additional` more states, so that the next
    /// `additional` insertions do not reallocate.
    pub fn reserve(&mut self, additional: usize) {
        self.arena.reserve(additional * self.words);
        self.table.reserve(additional, |e| spread(e.hash));
    }

    /// Bytes currently allocated by the arena and the hash table.
    pub fn bytes(&self) -> usize {
        self.arena.capacity() * 4 + self.table.allocation_size()
    }

    /// Memory the store would need after [`reserve`](Self::reserve)`(additional)`:
    /// `(steady, transient)`, where `steady` is the allocated size afterwards
    /// and `transient` the extra size held while the largest single buffer is
    /// moved (old and new buffers coexist during a reallocation).
    pub fn bytes_after_reserve(&self, additional: usize) -> (usize, usize) {
        let (arena_after, arena_old) =
            super::limits::vec_after_reserve(&self.arena, additional * self.words);
        let table_now = self.table.allocation_size();
        let (table_after, table_old) = if self.table.capacity() - self.table.len() >= additional {
            (table_now, 0)
        } else {
            let want = (self.table.len() + additional).max(self.table.capacity() + 1);
            (table_bytes_for_capacity(want), table_now)
        };
        (arena_after + table_after, arena_old.max(table_old))
    }
}

/// Approximate allocation of the table able to hold `cap` entries
/// (hashbrown: power-of-two buckets at 7/8 load, 8-byte slots, one control
/// byte per bucket plus a 16-byte group tail).
fn table_bytes_for_capacity(cap: usize) -> usize {
    if cap == 0 {
        return 0;
    }
    let buckets = if cap < 8 {
        (cap + 1).next_power_of_two().max(4)
    } else {
        (cap.saturating_mul(8) / 7).next_power_of_two()
    };
    buckets * (std::mem::size_of::<Entry>() + 1) + 16
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

    #[test]
    fn compact_store_keeps_fingerprints_and_a_queue() {
        let mut s = StateStore::compact(2);
        for i in 0..1000u32 {
            assert_eq!(s.insert(&[i, 7]), (i, true));
        }
        assert_eq!(s.insert(&[5, 7]), (5, false));
        s.forget_before(600);
        assert_eq!(s.base(), 600);
        assert!(!s.has_words(599) && s.has_words(600));
        assert_eq!(s.get(999), &[999, 7]);
        // Forgotten states are still known (by fingerprint).
        assert_eq!(s.find(&[3, 7]), Some(3));
        assert_eq!(s.insert(&[3, 7]), (3, false));
        assert_eq!(s.insert(&[1000, 7]), (1000, true));
        // A small step back is not worth moving the queue.
        s.forget_before(601);
        assert_eq!(s.base(), 600);
        assert!(collision_probability(1 << 20) < 1e-7);
    }

    #[test]
    #[should_panic(expected = "dropped by hash compaction")]
    fn forgotten_words_are_not_returned() {
        let mut s = StateStore::compact(1);
        for i in 0..10u32 {
            s.insert(&[i]);
        }
        s.forget_before(8);
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

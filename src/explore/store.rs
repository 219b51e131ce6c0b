//! The visited set: a flat arena of fixed-stride states plus a hash table of
//! state ids keyed by the state words.

use std::hash::Hasher;

use hashbrown::HashTable;
use rustc_hash::FxHasher;

/// Index of a state in discovery order (the initial state is 0).
pub type StateId = u32;

/// The largest number of states a store can hold (ids are `u32`; the
/// all-ones id is kept free as a "no state" marker).
pub const MAX_STATES: usize = u32::MAX as usize;

/// Hashes the words of a state with FxHash, two words at a time.
#[inline]
pub fn hash_state(state: &[u32]) -> u64 {
    let mut h = FxHasher::default();
    let mut pairs = state.chunks_exact(2);
    for p in &mut pairs {
        h.write_u64(u64::from(p[0]) | (u64::from(p[1]) << 32));
    }
    if let [last] = pairs.remainder() {
        h.write_u32(*last);
    }
    h.finish()
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

#[inline]
fn hash32(state: &[u32]) -> u32 {
    fold32(hash_state(state))
}

/// A set of fixed-length `u32` states stored contiguously; ids are assigned
/// in insertion order.
pub struct StateStore {
    words: usize,
    len: usize,
    arena: Vec<u32>,
    table: HashTable<Entry>,
}

impl StateStore {
    /// An empty store for states of `words` words each.
    pub fn new(words: usize) -> Self {
        Self {
            words,
            len: 0,
            arena: Vec::new(),
            table: HashTable::new(),
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

    /// The words of state `id`. Panics if `id` is out of range.
    #[inline]
    pub fn get(&self, id: StateId) -> &[u32] {
        let i = id as usize;
        assert!(i < self.len, "state id {id} out of range");
        &self.arena[i * self.words..(i + 1) * self.words]
    }

    /// The id of `state`, if stored.
    pub fn find(&self, state: &[u32]) -> Option<StateId> {
        debug_assert_eq!(state.len(), self.words);
        let (arena, w) = (&self.arena, self.words);
        let h = hash32(state);
        self.table
            .find(spread(h), |e| {
                e.hash == h && &arena[e.id as usize * w..(e.id as usize + 1) * w] == state
            })
            .map(|e| e.id)
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
        let w = self.words;
        let h = fold32(hash);
        let arena = &self.arena;
        let entry = self.table.entry(
            spread(h),
            |e| e.hash == h && &arena[e.id as usize * w..(e.id as usize + 1) * w] == state,
            |e| spread(e.hash),
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(e) => Slot::Old(e.get().id),
            hashbrown::hash_table::Entry::Vacant(e) => {
                if self.len >= max_len.min(MAX_STATES) {
                    return Slot::Full;
                }
                let id = self.len as StateId;
                e.insert(Entry { id, hash: h });
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

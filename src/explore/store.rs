//! The visited set: the states' compact codes (`codec`) in an arena
//! (`arena`) plus a hash table of state ids keyed by the codes' hashes.

use super::arena::{Arena, Run};
use super::codec::{self, hash_code};
use super::growth::Growth;
use super::parts::{Parts, Recent};
use super::table::{Claim, Table};
use super::wire;
use super::workers::Workers;

thread_local! {
    /// A packed state (`parts`), reused from state to state, and the parts
    /// of the state this thread unpacked last.
    static PACKED: std::cell::RefCell<(Vec<u32>, Recent)> = std::cell::RefCell::default();
    /// Room for a wire form's part ids (`wire::to_code`) and for the code
    /// made of it.
    static WIRE: std::cell::RefCell<(Vec<u32>, Vec<u8>)> = std::cell::RefCell::default();
}

/// Index of a state in discovery order (the initial state is 0).
pub type StateId = u32;

/// The largest number of states a store can hold (ids are `u32`; the
/// all-ones id is kept free as a "no state" marker).
pub const MAX_STATES: usize = u32::MAX as usize;

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

/// A set of fixed-length `u32` states, stored as their codes (see `codec`);
/// ids are assigned in insertion order. The index is a lock-free [`Table`],
/// so that worker threads can look states up and claim new ones
/// concurrently (see [`claim`](Self::claim)); insertion is otherwise
/// single-threaded.
///
/// With hash compaction the set keeps only a 63-bit fingerprint per state
/// and the codes of the states from [`base`](Self::base) on (the explorer's
/// queue, see [`forget_before`](Self::forget_before)); two states with the
/// same fingerprint count as one ([`collision_probability`]).
pub struct StateStore {
    words: usize,
    /// Interned parts: codes are of packed states (`parts`).
    parts: Option<Parts>,
    len: usize,
    /// Codes of states `arena.first_held()..len`.
    arena: Arena,
    compact: bool,
    /// With hash compaction, the low 32 bits of every state's hash, by id:
    /// with the table's tag (bits 33..64) its 63-bit fingerprint.
    fingerprints: Vec<u32>,
    table: Table,
    /// A larger table being filled ([`start_growth`](Self::start_growth)).
    growing: Option<Growth>,
}

impl StateStore {
    /// An empty store for states of `words` words each.
    pub fn new(words: usize) -> Self {
        Self {
            words,
            parts: None,
            len: 0,
            arena: Arena::new(codec::max_len(words)),
            compact: false,
            fingerprints: Vec::new(),
            table: Table::with_capacity(0),
            growing: None,
        }
    }

    /// An empty store with hash compaction.
    pub fn compact(words: usize) -> Self {
        Self {
            compact: true,
            arena: Arena::queue(codec::max_len(words)),
            ..Self::new(words)
        }
    }

    /// The same store, keeping the word ranges `ranges` of its states as
    /// interned parts (`parts`): ignored with hash compaction, which keeps
    /// no states, or where there are none.
    pub fn with_parts(mut self, ranges: Vec<std::ops::Range<usize>>) -> Self {
        debug_assert!(self.is_empty());
        if !self.compact {
            self.parts = Parts::new(self.words, ranges);
            let packed = self.parts.as_ref().map_or(self.words, Parts::packed_words);
            self.arena = Arena::new(codec::max_len(packed));
        }
        self
    }

    /// The same store, whose codes fill segments of at most `bytes` bytes
    /// (16 MiB otherwise). The last segment is mostly empty, and counted
    /// whole (by the heap and `--max-memory`): a store that holds tens of
    /// MiB, one of many a distributed run's process holds, takes smaller
    /// ones (#43).
    pub fn with_segments_of(mut self, bytes: usize) -> Self {
        debug_assert!(self.is_empty());
        if !self.compact {
            self.arena = self.arena.capped(bytes);
        }
        self
    }

    /// Appends the code of `state` to `out` (interning its parts).
    #[inline]
    pub fn encode(&self, state: &[u32], out: &mut Vec<u8>) {
        let start = out.len();
        let len = self.encode_at(state, out, start);
        out.truncate(start + len);
    }

    /// Writes the code of `state` into `out` from byte `at` on (see
    /// [`codec::encode_at`]) and returns its length.
    #[inline]
    pub(crate) fn encode_at(&self, state: &[u32], out: &mut Vec<u8>, at: usize) -> usize {
        match &self.parts {
            None => codec::encode_at(state, out, at),
            Some(parts) => PACKED.with_borrow_mut(|(packed, recent)| {
                packed.clear();
                parts.pack(state, packed, recent);
                codec::encode_at(packed, out, at)
            }),
        }
    }

    /// Writes the state of code `code` into `out`.
    #[inline]
    pub fn decode(&self, code: &[u8], out: &mut [u32]) {
        match &self.parts {
            None => {
                codec::decode(code, out);
            }
            Some(parts) => PACKED.with_borrow_mut(|(packed, recent)| {
                packed.resize(parts.packed_words(), 0);
                codec::decode(code, packed);
                parts.unpack(packed, out, recent);
            }),
        }
    }

    /// Whether states are known by fingerprint only.
    pub fn is_compact(&self) -> bool {
        self.compact
    }

    /// The first state whose code is still held (0 without compaction).
    pub fn base(&self) -> StateId {
        self.arena.first_held() as StateId
    }

    /// With hash compaction, lets the store drop the codes of states before
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

    /// The longest code of a state.
    pub fn max_code(&self) -> usize {
        codec::max_len(self.parts.as_ref().map_or(self.words, Parts::packed_words))
    }

    /// Number of stored states.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no state is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Writes the words of state `id` into `out` (`words()` long). Panics
    /// if `id` is out of range or, with hash compaction, was forgotten.
    #[inline]
    pub fn read(&self, id: StateId, out: &mut [u32]) {
        debug_assert_eq!(out.len(), self.words);
        self.decode(self.code(id), out);
    }

    /// The words of state `id` (see [`read`](Self::read)).
    pub fn get(&self, id: StateId) -> Vec<u32> {
        let mut out = vec![0; self.words];
        self.read(id, &mut out);
        out
    }

    /// The code of state `id`, followed by the codes stored after it.
    #[inline]
    fn code(&self, id: StateId) -> &[u8] {
        let i = id as usize;
        assert!(i < self.len, "state id {id} out of range");
        assert!(
            self.has_words(id),
            "state {id} was dropped by hash compaction"
        );
        self.arena.get(i)
    }

    /// Whether the code of `id` is held.
    pub fn has_words(&self, id: StateId) -> bool {
        (self.arena.first_held()..self.len).contains(&(id as usize))
    }

    /// The id of `state`, if stored.
    pub fn find(&self, state: &[u32]) -> Option<StateId> {
        let code = match &self.parts {
            None => encode(state),
            Some(parts) => {
                let mut packed = Vec::new();
                if !parts.pack_known(state, &mut packed) {
                    return None;
                }
                encode(&packed)
            }
        };
        self.find_code(&code, hash_code(&code))
    }

    /// The id of the state of code `code` and `hash == hash_code(code)`,
    /// if stored.
    #[inline]
    pub(crate) fn find_code(&self, code: &[u8], hash: u64) -> Option<StateId> {
        self.table.find(hash, |id| self.is(id, code, hash))
    }

    /// Whether stored state `id` is the state of code `code` (of hash
    /// `hash`): the same code, or with hash compaction the same fingerprint.
    #[inline]
    fn is(&self, id: StateId, code: &[u8], hash: u64) -> bool {
        if self.compact {
            return self.fingerprints[id as usize] == hash as u32;
        }
        // No code is a prefix of another: the stored code is `code` iff
        // its bytes start with it.
        self.arena.get(id as usize).starts_with(code)
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
    pub fn insert_bounded(&mut self, state: &[u32], max_len: usize) -> Slot {
        debug_assert_eq!(state.len(), self.words);
        let mut code = Vec::new();
        self.encode(state, &mut code);
        self.insert_code_bounded(&code, max_len)
    }

    /// Appends the form in which `state` travels to another store of the
    /// same parts (`wire`), which [`insert_wire_bounded`](Self::insert_wire_bounded)
    /// takes: the parts' contents, not this store's ids for them.
    pub fn encode_wire(&self, state: &[u32], out: &mut Vec<u8>) {
        let Some(parts) = &self.parts else {
            return codec::encode(state, out);
        };
        PACKED.with_borrow_mut(|(packed, _)| wire::encode(state, parts.ranges(), packed, out));
    }

    /// Like [`insert_bounded`](Self::insert_bounded), for the state of
    /// wire form `wire` (all of it; made by a store of the same parts),
    /// without its words: the code stored is made of the wire form.
    pub fn insert_wire_bounded(&mut self, wire: &[u8], max_len: usize) -> Slot {
        let Some(parts) = &self.parts else {
            return self.insert_code_bounded(wire, max_len);
        };
        let words = self.words;
        let code = WIRE.with_borrow_mut(|(ids, code)| {
            let id = |k: usize, part: &[u8]| parts.id_of_code(k, part);
            wire::to_code(wire, (words, parts.ranges()), ids, code, id);
            std::mem::take(code)
        });
        let slot = self.insert_code_bounded(&code, max_len);
        // The room goes back for the next state.
        WIRE.with_borrow_mut(|room| room.1 = code);
        slot
    }

    /// [`insert_bounded`](Self::insert_bounded) of the state of code `code`.
    fn insert_code_bounded(&mut self, code: &[u8], max_len: usize) -> Slot {
        let hash = hash_code(code);
        if let Some(id) = self.find_code(code, hash) {
            return Slot::Old(id);
        }
        if self.len >= max_len.min(MAX_STATES) {
            return Slot::Full;
        }
        self.table.reserve(1);
        let id = self.len as StateId;
        self.table.insert_new(hash, id);
        self.arena.push(code);
        if self.compact {
            self.fingerprints.push(hash as u32);
        }
        self.len += 1;
        Slot::New(id)
    }

    /// Asks the CPU to fetch where the code of the stored state that a
    /// claim of hash `hash` will compare with lies (see
    /// [`Table::first_match`]; with hash compaction, its fingerprint), and
    /// returns that state for [`prefetch_code`](Self::prefetch_code) some
    /// successors later: each stage's miss would otherwise wait for memory
    /// in the claim. The table's slot must have been fetched before
    /// ([`Table::prefetch`]). A hint only.
    #[inline]
    pub(crate) fn prefetch_match_location(&self, hash: u64) -> Option<StateId> {
        let id = self.table.first_match(hash)?;
        match self.compact {
            true => {
                if let Some(print) = self.fingerprints.get(id as usize) {
                    super::table::prefetch(print);
                }
            }
            false => self.arena.prefetch_location(id as usize),
        }
        Some(id)
    }

    /// Asks the CPU to fetch the first `len` bytes of stored state `id`'s
    /// code (a successor's code of `len` bytes is compared with no more);
    /// nothing with hash compaction, which compares fingerprints. A hint
    /// only.
    #[inline]
    pub(crate) fn prefetch_code(&self, id: StateId, len: usize) {
        if !self.compact {
            self.arena.prefetch_code(id as usize, len);
        }
    }

    /// Looks up successor `index` of the current batch (code `code`, of
    /// hash `hash`) and claims it if new; `batch_code(i)` gives the code
    /// and hash of successor `i` of the batch. Safe from many threads at
    /// once (see [`Table::claim`]).
    #[inline]
    pub(crate) fn claim<'b>(
        &self,
        code: &[u8],
        hash: u64,
        index: u32,
        batch_code: impl Fn(u32) -> (&'b [u8], u64),
    ) -> Claim {
        let compact = self.compact;
        self.table.claim(
            hash,
            index,
            |id| self.is(id, code, hash),
            |i| {
                let (other, h) = batch_code(i);
                // The tag is already equal: compact stores compare the rest.
                h == hash && (compact || other == code)
            },
        )
    }

    /// The table, for a batch's commits ([`Table::winner`], [`Table::commit`]).
    pub(crate) fn table(&self) -> &Table {
        &self.table
    }

    /// Appends room for the states a batch claimed new, in id order, in
    /// groups (see [`Arena::append_groups`]; room reserved before):
    /// returns the table (to commit their slots), the runs to fill with
    /// their codes, in order, and, with hash compaction, their fingerprints.
    #[allow(clippy::type_complexity)]
    pub(crate) fn append(
        &mut self,
        groups: &[(usize, usize)],
        len_of: impl Fn(usize, usize) -> usize,
    ) -> (&Table, Vec<Run<'_>>, &mut [u32]) {
        let n: usize = groups.iter().map(|g| g.0).sum();
        let f = self.fingerprints.len();
        if self.compact {
            self.fingerprints.resize(f + n, 0);
        }
        self.len += n;
        self.table.add_committed(n);
        (
            &self.table,
            self.arena.append_groups(groups, len_of),
            &mut self.fingerprints[f..],
        )
    }

    /// Counts the locations of the states of the last
    /// [`append`](Self::append) (see [`Arena::appended`]).
    ///
    /// # Safety
    ///
    /// Every run that `append` returned was filled.
    pub(crate) unsafe fn appended(&mut self) {
        // SAFETY: the caller's promise.
        unsafe { self.arena.appended() };
    }

    /// Makes room for `additional` more states of `bytes` bytes of codes in
    /// all, so that the next `additional` insertions do not reallocate.
    pub fn reserve(&mut self, additional: usize, bytes: usize) {
        self.reserve_on(additional, bytes, &Workers::caller());
    }

    /// [`reserve`](Self::reserve), growing the table on `workers`.
    pub(crate) fn reserve_on(&mut self, additional: usize, bytes: usize, workers: &Workers) {
        self.arena.reserve(additional, bytes);
        if self.compact {
            self.fingerprints.reserve(additional);
        }
        // Moving a large table is a random write per entry: on one thread
        // it was a third of the search's serial time at 16 threads. So is
        // mapping the new table's pages: the workers share both, mapping
        // first.
        self.finish_growth();
        if let Some(g) = Growth::of(&self.table, additional, workers.count()) {
            let table = &self.table;
            workers.each(&mut vec![(); g.maps()], |k, _| g.run(table, k));
            let moves = g.parts() - g.maps();
            workers.each(&mut vec![(); moves], |k, _| g.run(table, g.maps() + k));
            self.table.replace(g.done());
        }
    }

    /// Prepares the growth of the table for `additional` more entries, if
    /// it needs one, for [`grow_part`](Self::grow_part) to do on `workers`
    /// workers while nothing writes the table
    /// ([`growth_parts`](Self::growth_parts) of them).
    pub(crate) fn start_growth(&mut self, additional: usize, workers: usize) {
        self.finish_growth();
        self.growing = Growth::of(&self.table, additional, workers);
    }

    /// The parts of the growth that [`start_growth`](Self::start_growth)
    /// prepared (0 if none).
    pub(crate) fn growth_parts(&self) -> usize {
        self.growing.as_ref().map_or(0, Growth::parts)
    }

    /// Does part `k` of the prepared growth (each part once, all before
    /// [`finish_growth`](Self::finish_growth)).
    pub(crate) fn grow_part(&self, k: usize) {
        if let Some(g) = &self.growing {
            g.run(&self.table, k);
        }
    }

    /// Takes the larger table of the prepared growth, whose parts have all
    /// run.
    pub(crate) fn finish_growth(&mut self) {
        if let Some(g) = self.growing.take() {
            self.table.replace(g.done());
        }
    }

    /// Bytes currently allocated by the arena and the hash table.
    pub fn bytes(&self) -> usize {
        self.held().iter().map(|(_, b)| b).sum()
    }

    /// Bytes held, by structure: the codes with their locations, the
    /// index (table and fingerprints), and the interned parts.
    pub fn held(&self) -> [(&'static str, usize); 3] {
        [
            ("codes", self.arena.bytes()),
            (
                "table",
                self.fingerprints.capacity() * 4 + self.table.bytes(),
            ),
            ("parts", self.parts.as_ref().map_or(0, Parts::bytes)),
        ]
    }

    /// Memory the store would need after
    /// [`reserve`](Self::reserve)`(additional, bytes)`: `(steady,
    /// transient)`, where `steady` is the allocated size afterwards and
    /// `transient` the extra size held while the largest single buffer is
    /// moved (old and new buffers coexist during a reallocation).
    pub fn bytes_after_reserve(&self, additional: usize, bytes: usize) -> (usize, usize) {
        // Parts grow by few small steps (their shards): counted as they are.
        let parts = self.parts.as_ref().map_or(0, Parts::bytes);
        let (arena_after, locs_old) = self.arena.bytes_after_reserve(additional, bytes);
        let (prints_after, prints_old) = match self.compact {
            true => super::limits::vec_after_reserve(&self.fingerprints, additional),
            false => (0, 0),
        };
        let (table_after, table_old) = self.table.bytes_after_reserve(additional);
        (
            arena_after + prints_after + table_after + parts,
            locs_old.max(prints_old).max(table_old),
        )
    }
}

/// The code of `state`.
fn encode(state: &[u32]) -> Vec<u8> {
    let mut code = Vec::new();
    codec::encode(state, &mut code);
    code
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
        assert_eq!(s.get(1), [3, 2, 1]);
        assert_eq!(s.find(&[3, 2, 1]), Some(1));
        assert_eq!(s.find(&[0, 0, 0]), None);
        assert!(s.bytes() > 0);
    }

    /// The claims' prefetch finds, from a stored state's hash, that state
    /// (with hash compaction too), and none for a state not stored; a
    /// fetch of the code of an id not stored does nothing.
    #[test]
    fn the_claims_prefetch_finds_the_stored_state() {
        for mut s in [StateStore::new(3), StateStore::compact(3)] {
            let state = |i: u32| [i, i / 3, 7];
            for i in 0..1000 {
                s.insert(&state(i));
            }
            let hash = |s: &StateStore, state: &[u32]| {
                let mut code = Vec::new();
                s.encode(state, &mut code);
                (hash_code(&code), code.len())
            };
            for i in 0..1000 {
                let (h, len) = hash(&s, &state(i));
                assert_eq!(s.prefetch_match_location(h), Some(i));
                s.prefetch_code(i, len);
            }
            assert_eq!(s.prefetch_match_location(hash(&s, &[1, 1, 1]).0), None);
            s.prefetch_code(5000, 10);
        }
    }

    /// A state inserted by its wire form is the state inserted by its
    /// words, with parts and without, whichever store interned a part first.
    #[test]
    fn wire_forms_insert_the_states() {
        let states: Vec<Vec<u32>> = (0..200u32)
            .map(|i| vec![i % 7, 0, i % 3, i % 5, u32::MAX, 0, i / 50, i % 2, 9])
            .collect();
        let one = |r: std::ops::Range<usize>| std::iter::once(r).collect();
        for ranges in [vec![], one(2..4), vec![1..3, 5..8], one(0..9)] {
            let sender = StateStore::new(9).with_parts(ranges.clone());
            let mut by_words = StateStore::new(9).with_parts(ranges.clone());
            let mut by_wire = StateStore::new(9).with_parts(ranges.clone());
            // The receiver has met other parts first: its ids differ.
            by_wire.insert(&[1, 2, 3, 4, 5, 6, 7, 8, 9]);
            by_words.insert(&[1, 2, 3, 4, 5, 6, 7, 8, 9]);
            for (i, s) in states.iter().enumerate() {
                let mut wire = Vec::new();
                sender.encode_wire(s, &mut wire);
                let got = by_wire.insert_wire_bounded(&wire, if i < 150 { 1000 } else { 40 });
                let want = by_words.insert_bounded(s, if i < 150 { 1000 } else { 40 });
                assert_eq!(got, want, "{ranges:?}: state {i}");
            }
            for id in 0..by_wire.len() as StateId {
                assert_eq!(by_wire.get(id), by_words.get(id), "{ranges:?}: id {id}");
            }
        }
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

    /// A compact store whose arena segments hold a few dozen states.
    fn small_compact(words: usize) -> StateStore {
        StateStore {
            arena: Arena::with_segments(codec::max_len(words), 64, 256),
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
        assert_eq!(s.get(999), [999, 7]);
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
        assert_eq!(s.get(0), [] as [u32; 0]);
    }

    #[test]
    fn reserve_projection_matches() {
        let mut s = StateStore::new(5);
        for n in [1usize, 3, 20, 100, 1000] {
            let bytes = n * s.max_code();
            let (after, _) = s.bytes_after_reserve(n, bytes);
            s.reserve(n, bytes);
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

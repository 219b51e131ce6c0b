//! Interned state parts: one level of tree compression (Laarman, van de
//! Pol and Weber, "Parallel Recursive State Compression for Free", SPIN
//! 2011; LTSmin's tree database).
//!
//! A system may name word ranges of its states that take few distinct
//! values across the search while the rest changes at every step
//! ([`TransitionSystem::state_parts`](super::TransitionSystem::state_parts)):
//! under `ptx` the write histories, which the threads' program counters,
//! locals and views multiply. Each range is stored once per distinct
//! content, as its compact code (`codec`: mostly zero words), in a table
//! of its own, and a state keeps the content's id instead (after its
//! words outside the parts): the store holds these *packed* states,
//! through the same codes.
//!
//! Packing is injective (equal contents get equal ids), so two states are
//! equal exactly when their packed forms are: the store's lookups are
//! unchanged. Which id a content gets depends on which worker interned it
//! first; ids never leave the store, whose state ids are assigned in batch
//! order as before, so the search is the same.
//!
//! An all-zero part is id 0 and is not stored. Tables are sharded by
//! hash, each shard behind its own lock: workers intern the parts of the
//! successors they generate, and read parts back to expand states,
//! concurrently. Most steps keep most parts of the state they start from,
//! so the parts of the state a thread unpacked last ([`Recent`]) are
//! reused without a lookup, and a part a recent state had is found in the
//! thread's own small cache of what it packed lately, without a lock.

use super::codec::{self, hash_code};
use hashbrown::HashTable;
use std::ops::Range;
use std::sync::Mutex;

/// Shards per part table (a power of two).
const SHARDS: usize = 64;

/// The interned parts of the states of one system.
pub(super) struct Parts {
    /// Tells this set's ids from another's in a thread's [`Recent`].
    serial: u64,
    /// The parts, in order, non-overlapping, each at least 2 words.
    ranges: Vec<Range<usize>>,
    tables: Vec<PartTable>,
    words: usize,
}

/// The parts of the last state a thread unpacked, with their ids, and
/// the parts it packed lately.
#[derive(Default)]
pub(super) struct Recent {
    /// The [`Parts`] whose ids these are (0: none yet).
    serial: u64,
    ids: Vec<u32>,
    /// The state's words (only its parts are kept up to date).
    words: Vec<u32>,
    memo: Memo,
}

/// Per part, a direct-mapped cache of the contents this thread packed or
/// unpacked lately, with their ids: a step that writes a history which
/// the parent did not have but some recent state did takes its id without
/// encoding, hashing and locking a shard, and unpacking reads a recent
/// part without locking and decoding it (a part takes few distinct
/// contents, so most lookups that miss the parent hit here). Ids never
/// change, so an entry stays right for as long as its [`Parts`] lives.
#[derive(Default)]
struct Memo {
    /// The [`Parts`] whose ids these are (0: none yet).
    serial: u64,
    parts: Vec<PartMemo>,
}

struct PartMemo {
    /// Words of the part.
    len: usize,
    /// Slots (a power of two) as a shift of a 64-bit hash.
    shift: u32,
    /// Id per slot ([`EMPTY`]: none) ...
    ids: Vec<u32>,
    /// ... and its content, `len` words per slot.
    words: Vec<u32>,
    /// Per id modulo the slots, the slot that may hold it: unpacking reads
    /// a part by id.
    by_id: Vec<u32>,
}

/// A memo slot that holds nothing (a part id of all ones, the 2^32-th
/// content, is never taken from the memo).
const EMPTY: u32 = u32::MAX;

/// Words a thread's memos hold in all (slots times part lengths), unless
/// the parts are so many and long that 16 slots each take more: small
/// enough to stay in a core's own caches, and next to nothing against the
/// store.
const MEMO_WORDS: usize = 1 << 16;

impl PartMemo {
    /// The memo of one of `parts` parts of `len` words.
    fn new(len: usize, parts: usize) -> PartMemo {
        // The largest power of two within the share, 16 to 1 024.
        let share = (MEMO_WORDS / (len * parts)).max(1);
        let slots = (1usize << share.ilog2()).clamp(16, 1024);
        PartMemo {
            len,
            shift: 64 - slots.trailing_zeros(),
            ids: vec![EMPTY; slots],
            words: vec![0; slots * len],
            by_id: vec![0; slots],
        }
    }

    fn slot(&self, words: &[u32]) -> usize {
        // FxHash's step: the contents are small words, a multiply mixes them.
        let h = words.iter().fold(0u64, |h, &w| {
            (h.rotate_left(5) ^ u64::from(w)).wrapping_mul(0x517C_C1B7_2722_0A95)
        });
        (h >> self.shift) as usize
    }

    fn held(&self, i: usize) -> &[u32] {
        &self.words[i * self.len..(i + 1) * self.len]
    }

    /// Remembers content `words` as id `id`.
    fn keep(&mut self, i: usize, words: &[u32], id: u32) {
        self.words[i * self.len..(i + 1) * self.len].copy_from_slice(words);
        self.ids[i] = id;
        let n = self.by_id.len();
        self.by_id[id as usize & (n - 1)] = i as u32;
    }

    /// The id of content `words`, interning it in `table` unless this
    /// thread met it lately.
    fn id(&mut self, table: &PartTable, words: &[u32]) -> u32 {
        let i = self.slot(words);
        if self.ids[i] != EMPTY && self.held(i) == words {
            return self.ids[i];
        }
        let id = table.intern(words);
        self.keep(i, words, id);
        id
    }

    /// Writes the content of part `id` into `out`, read from `table`
    /// unless this thread met it lately.
    fn read(&mut self, table: &PartTable, id: u32, out: &mut [u32]) {
        let i = self.by_id[id as usize & (self.by_id.len() - 1)] as usize;
        if id != EMPTY && self.ids[i] == id {
            out.copy_from_slice(self.held(i));
            return;
        }
        table.read(id, out);
        self.keep(self.slot(out), out, id);
    }
}

struct PartTable {
    shards: Box<[Mutex<Shard>]>,
}

#[derive(Default)]
struct Shard {
    /// Local indexes, by the hash of their content's code.
    index: HashTable<u32>,
    /// Contents as compact codes (`codec`: a history is mostly zero or
    /// small words), one after the other ...
    codes: Vec<u8>,
    /// ... ending here, by local index.
    ends: Vec<u32>,
}

impl Shard {
    fn code(&self, i: u32) -> &[u8] {
        code_at(&self.codes, &self.ends, i)
    }
}

/// Content `i` of a shard's `codes` and `ends` (apart, for when the
/// shard's index is borrowed mutably).
fn code_at<'a>(codes: &'a [u8], ends: &[u32], i: u32) -> &'a [u8] {
    let i = i as usize;
    let start = i.checked_sub(1).map_or(0, |p| ends[p] as usize);
    &codes[start..ends[i] as usize]
}

thread_local! {
    /// The code of the part being looked up, reused.
    static CODE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Parts {
    /// Parts of `words`-word states at `ranges` (`None` where there are
    /// none to share). Panics on overlapping or unordered ranges.
    pub(super) fn new(words: usize, ranges: Vec<Range<usize>>) -> Option<Parts> {
        let ranges: Vec<_> = ranges.into_iter().filter(|r| r.len() >= 2).collect();
        assert!(
            ranges.windows(2).all(|w| w[0].end <= w[1].start)
                && ranges.last().is_none_or(|r| r.end <= words),
            "state parts must be ordered, apart and inside the state"
        );
        if ranges.is_empty() {
            return None;
        }
        let tables = ranges
            .iter()
            .map(|_| PartTable {
                shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            })
            .collect();
        static SERIAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Some(Parts {
            serial: SERIAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            ranges,
            tables,
            words,
        })
    }

    /// Words of a packed state.
    pub(super) fn packed_words(&self) -> usize {
        self.words - self.ranges.iter().map(|r| r.len() - 1).sum::<usize>()
    }

    /// Appends the packed form of `state` to `out`, interning its parts.
    /// A part equal to that of `recent`, the last state this thread
    /// unpacked (a successor's parent, most of whose parts most steps
    /// keep), takes its id without a lookup; another that this thread met
    /// lately, from its memo.
    pub(super) fn pack(&self, state: &[u32], out: &mut Vec<u32>, recent: &mut Recent) {
        self.outside(state, out);
        for (k, r) in self.ranges.iter().enumerate() {
            out.push(self.id(k, &state[r.clone()], recent));
        }
    }

    /// Appends the words of `state` outside its parts: a packed state is
    /// these, then the parts' ids (last, so that a wire form's code takes
    /// them without a walk over the code: `wire`).
    #[inline(always)]
    fn outside(&self, state: &[u32], out: &mut Vec<u32>) {
        debug_assert_eq!(state.len(), self.words);
        let mut at = 0;
        for r in &self.ranges {
            out.extend_from_slice(&state[at..r.start]);
            at = r.end;
        }
        out.extend_from_slice(&state[at..]);
    }

    /// The id of content `words` of part `k`, interned: as in
    /// [`pack`](Self::pack), `recent`'s own without a lookup.
    pub(super) fn id(&self, k: usize, words: &[u32], recent: &mut Recent) -> u32 {
        self.own_memo(recent);
        let r = self.ranges[k].clone();
        if recent.serial == self.serial && recent.words[r] == *words {
            return recent.ids[k];
        }
        recent.memo.parts[k].id(&self.tables[k], words)
    }

    /// The id of part `k`'s content of code `code` (`codec`), interned:
    /// a part that came as a code needs neither decoding nor coding again.
    pub(super) fn id_of_code(&self, k: usize, code: &[u8]) -> u32 {
        self.tables[k].look_up_code(code, true).expect("interned")
    }

    /// The word ranges of the parts, in order.
    pub(super) fn ranges(&self) -> &[Range<usize>] {
        &self.ranges
    }

    /// Appends the packed form of `state` to `out` if every part of it is
    /// interned (`false`: no stored state has them all).
    pub(super) fn pack_known(&self, state: &[u32], out: &mut Vec<u32>) -> bool {
        self.outside(state, out);
        for (r, table) in self.ranges.iter().zip(&self.tables) {
            let Some(id) = table.find(&state[r.clone()]) else {
                return false;
            };
            out.push(id);
        }
        true
    }

    /// Writes the state of packed form `packed` into `out`, and remembers
    /// its parts in `recent`. A part equal to `recent`'s is not read again.
    pub(super) fn unpack(&self, packed: &[u32], out: &mut [u32], recent: &mut Recent) {
        debug_assert_eq!(out.len(), self.words);
        if recent.serial != self.serial {
            recent.serial = self.serial;
            recent.ids = vec![u32::MAX; self.ranges.len()];
            recent.words = vec![0; self.words];
        }
        self.own_memo(recent);
        let (inline, ids) = packed.split_at(packed.len() - self.ranges.len());
        let (mut at, mut from) = (0, 0);
        for (k, (r, table)) in self.ranges.iter().zip(&self.tables).enumerate() {
            let n = r.start - at;
            out[at..r.start].copy_from_slice(&inline[from..from + n]);
            let id = ids[k];
            if recent.ids[k] != id {
                recent.memo.parts[k].read(table, id, &mut recent.words[r.clone()]);
                recent.ids[k] = id;
            }
            out[r.clone()].copy_from_slice(&recent.words[r.clone()]);
            from += n;
            at = r.end;
        }
        out[at..].copy_from_slice(&inline[from..]);
    }

    /// Makes `recent`'s memo this set's (empty if it was another's).
    fn own_memo(&self, recent: &mut Recent) {
        if recent.memo.serial != self.serial {
            recent.memo = Memo {
                serial: self.serial,
                parts: (self.ranges.iter())
                    .map(|r| PartMemo::new(r.len(), self.ranges.len()))
                    .collect(),
            };
        }
    }

    /// Bytes held by the part tables.
    pub(super) fn bytes(&self) -> usize {
        self.tables.iter().map(PartTable::bytes).sum()
    }

    /// Distinct contents stored, per part.
    #[cfg(test)]
    pub(crate) fn counts(&self) -> Vec<usize> {
        self.tables.iter().map(PartTable::count).collect()
    }
}

impl PartTable {
    /// Shard `s`, locked. Poisoning is ignored: a worker's panic ends the
    /// search anyway, and only the figures (`bytes`) may still read it.
    fn lock(&self, s: usize) -> std::sync::MutexGuard<'_, Shard> {
        self.shards[s].lock().unwrap_or_else(|e| e.into_inner())
    }

    fn shard(&self, hash: u64) -> usize {
        // Bits the shard's own table uses least (it takes the lowest for
        // the slot and the top 7 as tags).
        (hash >> 40) as usize % SHARDS
    }

    fn intern(&self, words: &[u32]) -> u32 {
        self.look_up(words, true).expect("interned")
    }

    fn find(&self, words: &[u32]) -> Option<u32> {
        self.look_up(words, false)
    }

    /// The id of content `words`, interned first if `add`.
    fn look_up(&self, words: &[u32], add: bool) -> Option<u32> {
        if words.iter().all(|w| *w == 0) {
            return Some(0);
        }
        CODE.with_borrow_mut(|code| {
            code.clear();
            codec::encode(words, code);
            self.look_up_code(code, add)
        })
    }

    /// [`look_up`](Self::look_up) of the content of code `code`.
    fn look_up_code(&self, code: &[u8], add: bool) -> Option<u32> {
        // An all-zero content's code is its bitmap, all zero.
        if code.iter().all(|&b| b == 0) {
            return Some(0);
        }
        let hash = hash_code(code);
        let s = self.shard(hash);
        let mut guard = self.lock(s);
        if let Some(&i) = guard.index.find(hash, |&i| guard.code(i) == code) {
            return Some(Self::id(s, i));
        }
        if !add {
            return None;
        }
        let shard = &mut *guard;
        let i = u32::try_from(shard.ends.len()).expect("fewer than 2^32 parts");
        shard.codes.extend_from_slice(code);
        let end = u32::try_from(shard.codes.len()).expect("a shard under 4 GiB");
        shard.ends.push(end);
        let Shard { index, codes, ends } = shard;
        index.insert_unique(hash, i, |&i| hash_code(code_at(codes, ends, i)));
        Some(Self::id(s, i))
    }

    /// Id 0 is the all-zero part; shard `s`'s content `i` is the rest.
    fn id(s: usize, i: u32) -> u32 {
        let id = u64::from(i) * SHARDS as u64 + s as u64 + 1;
        u32::try_from(id).expect("fewer than 2^32 parts")
    }

    fn read(&self, id: u32, out: &mut [u32]) {
        if id == 0 {
            out.fill(0);
            return;
        }
        let (s, i) = ((id - 1) as usize % SHARDS, (id - 1) / SHARDS as u32);
        let guard = self.lock(s);
        codec::decode(guard.code(i), out);
    }

    fn bytes(&self) -> usize {
        (0..SHARDS)
            .map(|s| {
                let s = self.lock(s);
                s.codes.capacity() + s.ends.capacity() * 4 + s.index.capacity() * (4 + 1)
            })
            .sum()
    }

    #[cfg(test)]
    fn count(&self) -> usize {
        (0..SHARDS).map(|s| self.lock(s).ends.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips_and_shares_equal_parts() {
        let parts = Parts::new(8, vec![1..4, 5..7]).expect("two parts");
        assert_eq!(parts.packed_words(), 5);
        let a = [9, 1, 2, 3, 8, 4, 5, 7];
        let b = [6, 1, 2, 3, 0, 0, 0, 7];
        let (mut pa, mut pb) = (vec![], vec![]);
        let mut recent = Recent::default();
        parts.pack(&a, &mut pa, &mut recent);
        parts.pack(&b, &mut pb, &mut recent);
        // The words outside the parts, then the parts' ids.
        assert_eq!(pa.len(), 5);
        assert_eq!(pa[..3], [9, 8, 7]);
        // The same first part, the same id; the zero part is id 0.
        assert_eq!(pa[3], pb[3]);
        assert_eq!(pb[4], 0);
        let mut out = [0; 8];
        parts.unpack(&pa, &mut out, &mut recent);
        assert_eq!(out, a);
        // Packing again next to the state just unpacked gives the same.
        let mut again = vec![];
        parts.pack(&a, &mut again, &mut recent);
        assert_eq!(again, pa);
        parts.unpack(&pb, &mut out, &mut recent);
        assert_eq!(out, b);
        again.clear();
        parts.pack(&a, &mut again, &mut recent);
        assert_eq!(again, pa);
        assert_eq!(parts.counts(), [1, 1]);
        let mut pc = vec![];
        assert!(parts.pack_known(&a, &mut pc));
        assert_eq!(pc, pa);
        pc.clear();
        assert!(!parts.pack_known(&[0, 1, 2, 4, 0, 0, 0, 0], &mut pc));
    }

    #[test]
    fn distinct_contents_get_distinct_ids() {
        let parts = Parts::new(3, std::iter::once(0..3).collect()).expect("one part");
        let mut ids = std::collections::HashSet::new();
        let mut recent = Recent::default();
        for i in 0..5000u32 {
            let mut p = vec![];
            parts.pack(&[i, i / 7, 1], &mut p, &mut recent);
            assert!(ids.insert(p[0]));
            let mut out = [0; 3];
            parts.unpack(&p, &mut out, &mut recent);
            assert_eq!(out, [i, i / 7, 1]);
        }
        assert_eq!(parts.counts(), [5000]);
        assert!(parts.bytes() >= 5000 * 3);
    }

    #[test]
    fn memo_and_table_give_the_same_ids() {
        // More contents than a memo has slots: some evict others.
        let parts = Parts::new(4, std::iter::once(0..4).collect()).expect("one part");
        let content = |i: u32| [i % 3000, i % 3000 % 7, 0, 1];
        let mut recent = Recent::default();
        let first: Vec<u32> = (0..6000)
            .map(|i| {
                let mut p = vec![];
                parts.pack(&content(i), &mut p, &mut recent);
                p[0]
            })
            .collect();
        // Another thread's memo, empty: every id from the table.
        let mut fresh = Recent::default();
        for (i, id) in first.iter().enumerate() {
            let mut p = vec![];
            parts.pack(&content(i as u32), &mut p, &mut fresh);
            assert_eq!(p[0], *id, "content {i}");
        }
        assert_eq!(parts.counts(), [3000]);
        // Unpacking through either memo gives the contents back.
        for (i, id) in first.iter().enumerate().rev() {
            for recent in [&mut recent, &mut fresh] {
                let mut out = [9; 4];
                parts.unpack(&[*id], &mut out, recent);
                assert_eq!(out, content(i as u32), "content {i}");
            }
        }
    }

    #[test]
    fn no_parts_no_table() {
        assert!(Parts::new(4, vec![]).is_none());
        assert!(Parts::new(4, std::iter::once(2..3).collect()).is_none());
    }
}

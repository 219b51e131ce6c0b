//! The visited set's index: a lock-free open-addressing hash table of
//! 64-bit slots, shared by the explorer's worker threads.
//!
//! A slot is empty (0) or names a state by a small integer:
//!
//! ```text
//! [ tag: hash bits 33..64 | pending bit ][ id + 1  or  index + 1 ]
//! ```
//!
//! - *committed*: a stored state's id;
//! - *pending*: during one batch of the breadth-first search, the smallest
//!   index (in generation order) of the successors that are this new state.
//!
//! Workers [`claim`](Table::claim) successors concurrently: a successor
//! equal to a committed state gets its id; otherwise it races for an empty
//! slot with a compare-and-swap, and an equal successor that finds the slot
//! taken lowers the index with `fetch_min`. Every index written to a slot
//! was first compared equal to the slot's occupant, so a slot only ever
//! holds indices of one state, and once all claims are done it holds the
//! *smallest* of them whatever the interleaving: the discovery that a
//! sequential search would have made first. The explorer then gives ids to
//! the new states in index order and [`commit`](Table::commit)s them. Slots
//! are never removed, so a probe meets a state's slot before any empty
//! slot, and a state is never both committed and pending.
//!
//! The table only grows between batches ([`reserve`](Table::reserve), with
//! `&mut`): during a batch it stays at most half full, so probes end.
//!
//! Self-contained (it only uses `super::sync`) so that the loom model test
//! (`tests/loom_table.rs`) compiles this file against loom's atomics.

use super::sync::{AtomicU64, Ordering};

const PENDING: u64 = 1 << 32;
const TAG_MASK: u64 = !0xFFFF_FFFF & !PENDING;
/// Bytes of a base page (the unit the kernel maps and advises).
const PAGE_BYTES: usize = 4096;
/// Slots in a page.
const PAGE_SLOTS: usize = PAGE_BYTES / std::mem::size_of::<u64>();
/// Fibonacci hashing of the tag to a bucket (the tag's top bits decide).
const SPREAD: u64 = 0x9E37_79B9_7F4A_7C15;

/// What a claim found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Claim {
    /// The state was stored before this batch, under this id.
    Old(u32),
    /// The state is new; this slot collects its smallest index.
    New(usize),
}

/// Lock-free index of states by hash (see the module comment).
pub(crate) struct Table {
    slots: Box<[AtomicU64]>,
    /// log2 of the number of slots.
    bits: u32,
    /// Committed entries.
    len: usize,
}

/// A hint to fetch the cache line of `x`; no effect on the program's
/// meaning, a no-op where there is no such instruction.
#[inline(always)]
pub(crate) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch only hints the cache; SSE is part of x86-64.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast::<i8>()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// Asks the kernel to back `xs` with huge pages (2 MiB on x86-64) where it
/// can, before its pages are first touched: claims and lookups go to
/// random slots, and with 4 KiB pages nearly each is a TLB miss too (a
/// page walk, nested under a hypervisor) on top of the cache miss. Only
/// advice: no effect on the program's meaning.
pub(crate) fn advise_huge_pages<T>(xs: &[T]) {
    #[cfg(target_os = "linux")]
    {
        let start = (xs.as_ptr() as usize).next_multiple_of(PAGE_BYTES);
        let end = (xs.as_ptr() as usize + std::mem::size_of_val(xs)) / PAGE_BYTES * PAGE_BYTES;
        if end >= start + (2 << 20) {
            // SAFETY: `start..end` lies in pages of `xs`, which are mapped;
            // MADV_HUGEPAGE changes no contents. Failure only loses speed.
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = xs;
}

#[inline]
fn tag_of(hash: u64) -> u64 {
    hash & TAG_MASK
}

impl Table {
    /// An empty table with room for `n` entries.
    pub(crate) fn with_capacity(n: usize) -> Table {
        let table = Self::untouched(n);
        table.touch(0..table.slots.len());
        table
    }

    /// An empty table with room for `n` entries whose pages are not yet
    /// mapped: [`touch`](Self::touch) them (on several threads if the
    /// caller likes) before the first claim or move. Zeroed by the
    /// allocator (fresh pages of a large table are the kernel's zeroes:
    /// no pass over them on this thread), and advised to huge pages
    /// before any of them is touched, when the advice can still apply.
    fn untouched(n: usize) -> Table {
        let bits = Self::bits_for(n);
        let slots = super::sync::zeroed_atomics(1usize << bits);
        advise_huge_pages(&slots);
        Table {
            slots,
            bits,
            len: 0,
        }
    }

    /// Maps the pages of the slots `range` (a range of whole pages but
    /// for the ends), by writing one slot per page. A zeroed allocation's
    /// fresh pages are mapped to the shared zero page by a first *read*;
    /// the first write then copies the page and flushes it from the TLB
    /// of every core running the search (an interrupt per page, while the
    /// workers wait). Writing first maps each page once, writable. The
    /// write is a compare-and-swap of 0 with 0, never a store: a growth
    /// that runs during a batch's expansion (`growth`) hands out its touch
    /// and move parts together, so a move may already have placed an entry
    /// in the slot, and a store of 0 would erase it (the state then stored
    /// twice: seen at 16 threads as one or two extra states in 4.5 M). On
    /// x86-64 a `lock cmpxchg` writes the line even when it fails.
    pub(crate) fn touch(&self, range: std::ops::Range<usize>) {
        let start = range.start.next_multiple_of(PAGE_SLOTS);
        for slot in self.slots[start.min(range.end)..range.end]
            .iter()
            .step_by(PAGE_SLOTS)
        {
            let _ = slot.compare_exchange(0, 0, Ordering::Relaxed, Ordering::Relaxed);
        }
    }

    /// Bits of a table that holds `n` entries at most half full.
    fn bits_for(n: usize) -> u32 {
        (n.max(4) * 2).next_power_of_two().trailing_zeros()
    }

    /// Entries the table holds at most half full.
    pub(crate) fn capacity(&self) -> usize {
        self.slots.len() / 2
    }

    /// Bytes of the slot array.
    pub(crate) fn bytes(&self) -> usize {
        Self::bytes_for_slots(self.slots.len())
    }

    fn bytes_for_slots(slots: usize) -> usize {
        slots * std::mem::size_of::<u64>()
    }

    /// Bytes after [`reserve`](Self::reserve)`(additional)`, and the size of
    /// the old slot array if the table grows then (both exist meanwhile).
    pub(crate) fn bytes_after_reserve(&self, additional: usize) -> (usize, usize) {
        let want = self.len + additional;
        if want <= self.capacity() {
            return (self.bytes(), 0);
        }
        let slots = 1usize << Self::bits_for(want);
        (Self::bytes_for_slots(slots), self.bytes())
    }

    #[inline]
    fn home(&self, tag: u64) -> usize {
        (tag.wrapping_mul(SPREAD) >> (64 - self.bits)) as usize
    }

    #[inline]
    fn next(&self, pos: usize) -> usize {
        (pos + 1) & (self.slots.len() - 1)
    }

    /// Asks the CPU to fetch the home slot of `hash` into its caches, so
    /// that a [`claim`](Self::claim) of it soon after does not wait for
    /// memory (the table is far larger than the caches).
    #[inline]
    pub(crate) fn prefetch(&self, hash: u64) {
        prefetch(&self.slots[self.home(tag_of(hash))]);
    }

    /// Asks the CPU to fetch slot `pos` (see [`prefetch`](Self::prefetch)).
    #[inline]
    pub(crate) fn prefetch_slot(&self, pos: usize) {
        prefetch(&self.slots[pos]);
    }

    /// The id of the first committed state on the probe of `hash` whose tag
    /// is `hash`'s: the stored state that a claim of `hash` compares with
    /// first, and nearly always the only one (a hint for fetching what
    /// that compare reads; the claim decides).
    #[inline]
    pub(crate) fn first_match(&self, hash: u64) -> Option<u32> {
        self.find(hash, |_| true)
    }

    /// The id of the committed state of hash `hash` for which `same(id)`
    /// holds; pending entries are skipped.
    #[inline]
    pub(crate) fn find(&self, hash: u64, same: impl Fn(u32) -> bool) -> Option<u32> {
        let tag = tag_of(hash);
        let mut pos = self.home(tag);
        loop {
            let v = self.slots[pos].load(Ordering::Acquire);
            if v == 0 {
                return None;
            }
            if v & !0xFFFF_FFFF == tag && same(v as u32 - 1) {
                return Some(v as u32 - 1);
            }
            pos = self.next(pos);
        }
    }

    /// Claims successor `index` (of hash `hash`) of the current batch; safe
    /// to call from many threads at once. `same_old(id)`: the successor
    /// equals committed state `id`; `same_new(i)`: it equals successor `i`
    /// of the batch (whose words must not change during the batch).
    #[inline]
    pub(crate) fn claim(
        &self,
        hash: u64,
        index: u32,
        same_old: impl Fn(u32) -> bool,
        same_new: impl Fn(u32) -> bool,
    ) -> Claim {
        assert!(index < u32::MAX, "batch index out of range");
        let tag = tag_of(hash);
        let mine = tag | PENDING | (u64::from(index) + 1);
        let mut pos = self.home(tag);
        loop {
            let slot = &self.slots[pos];
            let mut v = slot.load(Ordering::Acquire);
            if v == 0 {
                match slot.compare_exchange(0, mine, Ordering::AcqRel, Ordering::Acquire) {
                    Ok(_) => return Claim::New(pos),
                    Err(now) => v = now,
                }
            }
            if v & !0xFFFF_FFFF == tag && same_old(v as u32 - 1) {
                return Claim::Old(v as u32 - 1);
            }
            if v & !0xFFFF_FFFF == tag | PENDING && same_new(v as u32 - 1) {
                // Same tag and pending bit: the minimum is over the index.
                slot.fetch_min(mine, Ordering::AcqRel);
                return Claim::New(pos);
            }
            pos = self.next(pos);
        }
    }

    /// The smallest index claimed at `pos` (after the batch's claims).
    #[inline]
    pub(crate) fn winner(&self, pos: usize) -> u32 {
        let v = self.slots[pos].load(Ordering::Acquire);
        debug_assert!(v & PENDING != 0, "slot {pos} is not pending");
        v as u32 - 1
    }

    /// Turns the pending slot `pos` into the committed entry of `id` (once
    /// per new state; threads commit distinct slots).
    #[inline]
    pub(crate) fn commit(&self, pos: usize, id: u32) {
        let v = self.slots[pos].load(Ordering::Acquire);
        debug_assert!(v & PENDING != 0, "slot {pos} is not pending");
        self.slots[pos].store((v & TAG_MASK) | (u64::from(id) + 1), Ordering::Release);
    }

    /// The committed id at `pos`, if the slot was committed.
    #[inline]
    pub(crate) fn committed(&self, pos: usize) -> Option<u32> {
        let v = self.slots[pos].load(Ordering::Acquire);
        (v != 0 && v & PENDING == 0).then(|| v as u32 - 1)
    }

    /// Counts `n` commits of the last batch.
    pub(crate) fn add_committed(&mut self, n: usize) {
        self.len += n;
    }

    /// Inserts the entry of a state known to be absent (single-threaded).
    pub(crate) fn insert_new(&mut self, hash: u64, id: u32) {
        let tag = tag_of(hash);
        self.place(tag | (u64::from(id) + 1));
        self.len += 1;
    }

    /// Puts an entry in the first free slot from its home. Safe to call
    /// from several threads at once (a slot is taken by compare-exchange,
    /// and entries are never removed), which a parallel move needs.
    fn place(&self, entry: u64) {
        let mut pos = self.home(entry & TAG_MASK);
        loop {
            let free = self.slots[pos].load(Ordering::Relaxed) == 0;
            if free
                && self.slots[pos]
                    .compare_exchange(0, entry, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok()
            {
                return;
            }
            pos = self.next(pos);
        }
    }

    /// Makes room for `additional` more entries at most half full, moving
    /// the committed entries into a larger array if needed. Pending entries
    /// (left by a batch that was cut short) are dropped.
    pub(crate) fn reserve(&mut self, additional: usize) {
        if let Some(bigger) = self.larger_for(additional) {
            bigger.touch(0..bigger.slot_count());
            self.move_into(&bigger, 0..self.slots.len());
            self.replace(bigger);
        }
    }

    /// An empty table with room for `additional` more entries, if this one
    /// lacks it, its pages not yet mapped. The caller
    /// [`touch`](Self::touch)es every slot of it, then moves the entries
    /// ([`move_into`](Self::move_into)), each on several threads if it
    /// likes (where an entry lands does not change what the table finds),
    /// and then [`replace`](Self::replace)s this one.
    pub(crate) fn larger_for(&self, additional: usize) -> Option<Table> {
        let want = self.len + additional;
        (want > self.capacity()).then(|| Table::untouched(want))
    }

    /// How many slots the table has (the range [`move_into`](Self::move_into) splits).
    pub(crate) fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// Places the committed entries of `slots` in `bigger`; pending ones are
    /// dropped.
    pub(crate) fn move_into(&self, bigger: &Table, slots: std::ops::Range<usize>) {
        for slot in &self.slots[slots] {
            let v = slot.load(Ordering::Relaxed);
            if v != 0 && v & PENDING == 0 {
                bigger.place(v);
            }
        }
    }

    /// Takes `bigger`'s array, into which every entry was moved.
    pub(crate) fn replace(&mut self, bigger: Table) {
        self.slots = bigger.slots;
        self.bits = bigger.bits;
    }
}

//! A per-worker memo of lassos (`spin`): running a thread alone until it
//! settles costs several steps, and the same thread is in the same state,
//! reading the same values, in many states of the search.
//!
//! A lasso depends only on the thread (its index names its block's words)
//! and its own words, and on the values of the words it reads: every step
//! is decided by those, except that the other threads decide whether a
//! phase or capacity check passes and whether an exit finds the thread
//! alone in its block (`spin::Reliance`). A lasso that left a phase is
//! used only where every thread has entered that phase, one that entered
//! a critical section only where the others hold the weights they held
//! (kept with the entry), and one that exits only where the thread is
//! alone in its block (`Independence::still_holds`). A lasso that a failed
//! check ended was decided by the other threads (`Settles::NotHere`) and
//! is not remembered.

use super::spin::Settles;
use std::sync::atomic::{AtomicU64, Ordering};

/// Entries per worker (direct-mapped).
const SLOTS: usize = 1 << 13;

/// Gives each `Independence` its own id, so that a worker reusing its memo
/// for another model (tests run many) starts afresh.
static NEXT_OWNER: AtomicU64 = AtomicU64::new(1);

pub(super) fn new_owner() -> u64 {
    NEXT_OWNER.fetch_add(1, Ordering::Relaxed)
}

/// A remembered lasso (or its absence: `Settles::Never`).
pub(super) struct Entry<'a> {
    pub reads: &'a [u64],
    pub writes: &'a [u64],
    /// The values of `spin::critical_words` in the state it was found in.
    pub critical: &'a [u32],
    pub settles: Settles,
}

#[derive(Default)]
pub(super) struct LassoMemo {
    owner: u64,
    /// Own words per key (a key is the thread + 1, then its own words).
    own: usize,
    mem: usize,
    /// `u64` words per set of memory words.
    mw: usize,
    /// Words of `Entry::critical`.
    critical_len: usize,
    critical: Vec<u32>,
    keys: Vec<u32>,
    /// Memory at the time, read back where the lasso reads.
    values: Vec<u32>,
    /// Reads, then writes, `mw` words each.
    bits: Vec<u64>,
    settles: Vec<Settles>,
}

impl LassoMemo {
    /// Empties the memo unless it already belongs to `owner`.
    pub(super) fn claim(
        &mut self,
        owner: u64,
        (own, mem, mw): (usize, usize, usize),
        critical: usize,
    ) {
        if self.owner == owner {
            return;
        }
        *self = LassoMemo {
            owner,
            own,
            mem,
            mw,
            critical_len: critical,
            critical: vec![0; SLOTS * critical],
            keys: vec![0; SLOTS * (own + 1)],
            values: vec![0; SLOTS * mem],
            bits: vec![0; SLOTS * 2 * mw],
            settles: vec![Settles::Never; SLOTS],
        };
    }

    fn slot(&self, t: usize, own: &[u32]) -> usize {
        let mut h = rustc_hash::FxHasher::default();
        std::hash::Hasher::write_usize(&mut h, t);
        for w in own {
            std::hash::Hasher::write_u32(&mut h, *w);
        }
        std::hash::Hasher::finish(&h) as usize % SLOTS
    }

    /// The lasso of thread `t` with own words `own` where memory is `mem`,
    /// if remembered.
    pub(super) fn get(&self, t: usize, own: &[u32], mem: &[u32]) -> Option<Entry<'_>> {
        let slot = self.slot(t, own);
        let key = &self.keys[slot * (self.own + 1)..(slot + 1) * (self.own + 1)];
        if key[0] != t as u32 + 1 || key[1..] != *own {
            return None;
        }
        let bits = &self.bits[slot * 2 * self.mw..(slot + 1) * 2 * self.mw];
        let (reads, writes) = bits.split_at(self.mw);
        let values = &self.values[slot * self.mem..(slot + 1) * self.mem];
        for (i, word) in reads.iter().enumerate() {
            let mut b = *word;
            while b != 0 {
                let w = i * 64 + b.trailing_zeros() as usize;
                if values[w] != mem[w] {
                    return None;
                }
                b &= b - 1;
            }
        }
        Some(Entry {
            reads,
            writes,
            critical: &self.critical[slot * self.critical_len..(slot + 1) * self.critical_len],
            settles: self.settles[slot],
        })
    }

    /// Remembers the lasso of thread `t`.
    pub(super) fn put(&mut self, t: usize, own: &[u32], mem: &[u32], lasso: Entry) {
        let slot = self.slot(t, own);
        let key = &mut self.keys[slot * (self.own + 1)..(slot + 1) * (self.own + 1)];
        key[0] = t as u32 + 1;
        key[1..].copy_from_slice(own);
        self.values[slot * self.mem..(slot + 1) * self.mem].copy_from_slice(mem);
        let bits = &mut self.bits[slot * 2 * self.mw..(slot + 1) * 2 * self.mw];
        bits[..self.mw].copy_from_slice(lasso.reads);
        bits[self.mw..].copy_from_slice(lasso.writes);
        self.critical[slot * self.critical_len..(slot + 1) * self.critical_len]
            .copy_from_slice(lasso.critical);
        self.settles[slot] = lasso.settles;
    }
}

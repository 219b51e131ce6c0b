//! Lassos under `ptx` (`spin` has the argument): a thread run alone no
//! longer has one next step, since a load may read any write from its view
//! on and a store may land at several places. So the *solo graph* stands
//! for the lasso: every state the thread reaches from `s` moving alone,
//! with every alternative of every step, within [`MAX_SOLO_STATES`]. The
//! thread settles when the graph closes within the bound with no step
//! that fails, waits, performs a store early (two locations), or touches
//! another thread; `R_b` and `W_b` are what any of its steps read and
//! write (an atomic writes only where it appends a write: a failed
//! `atomicCAS` reads; an SC fence reads and writes the SC-fence views it
//! orders with).
//!
//! Why that is the lasso's argument again: outside the stubborn set, no
//! thread writes a location of `R_b` (`spin::keep_consistent`), so the
//! histories `b` reads change only by its own steps, and the views it
//! reads them through move only by its own steps (program order, its
//! acquires of writes in those histories, its fences). A write of `b` to a
//! location it never reads may land elsewhere when others wrote there
//! too, which changes only its view of that location, which none of its
//! reads uses. So every step `b` takes outside the set is a step of its
//! solo graph, on the same word, and it accesses only `R_b` and `W_b`.
//!
//! The graph is explored without the canonical form (the model's own
//! semantics, which the canonical form only quotients): the form reads
//! every thread, costs most of a step, and merges next to nothing in a
//! graph of one thread. So a graph depends only on the thread's own words
//! and views and on the histories (and SC-fence views) it touches, which
//! is what the per-worker memo keys and checks.

use super::spin::{self, Accesses, Reliance, Settles};
use super::Independence;
use crate::ir::{MemOrder, Op, Order};
use crate::model::exec::StepCtx;
use crate::model::facts::{clear, get, set};
use crate::model::memory::PtxMemory;
use crate::model::state::FINISHED;
use crate::model::Model;
use std::hash::Hasher;

/// Most states of one solo graph: a spinner's is a few states (each stale
/// write it may still read, then the self-loop at the latest one).
const MAX_SOLO_STATES: usize = 64;

/// Bytes of the memo per worker, and the fewest and most entries
/// (direct-mapped) it has. An entry holds a whole state, so the entries
/// are as many as fit the bytes: `dissemination_barrier --blocks 4` has
/// states of 612 words, and 4 096 entries of them were 10 MiB per worker
/// (160 MiB at sixteen threads, more than the rest of the search); with
/// 1 024 the memo kept 95% of its hits and took no longer (16-core host,
/// 16 threads, medians of five: 0.62 s against 0.63 s). Those states get
/// 1 625 entries.
const MEMO_BYTES: usize = 4 << 20;
const MIN_SLOTS: usize = 256;
const MAX_SLOTS: usize = 4096;

/// Buffers of [`Independence::solo_graph`], reused from thread to thread.
#[derive(Default)]
pub(super) struct SoloScratch {
    /// The graph's states in the order found: the first `found` are this
    /// graph's, the rest buffers of earlier graphs (a graph copies whole
    /// states, for most states the search expands, and a fresh allocation
    /// for each took the allocator's locks, which sixteen workers contended
    /// for).
    states: Vec<Vec<u32>>,
    found: usize,
    /// Indices into `states` of the states still to expand.
    stack: Vec<usize>,
    /// A successor being built.
    next: Vec<u32>,
    actions: Vec<u32>,
    key: Vec<u32>,
    memo: SoloMemo,
}

/// The words where the states of `t`'s solo graph mostly differ: its own
/// words, and its views and flags.
fn hot_words(model: &Model, ptx: &PtxMemory, t: usize) -> [std::ops::Range<usize>; 2] {
    let layout = &model.threads.layout;
    [
        layout.thread(t, 0)..layout.thread(t, layout.thread_words),
        ptx.thread_section(t),
    ]
}

impl SoloScratch {
    /// Whether `x` is one of this graph's states. A graph holds a few
    /// states (a spinner's: each stale write it may still read), so a scan
    /// beats hashing states of hundreds of words; `hot` (the thread's own
    /// words and views, where the states of one graph mostly differ) is
    /// compared first. The state being expanded is out of `states` (an
    /// empty buffer in its place).
    fn seen(&self, x: &[u32], hot: &[std::ops::Range<usize>; 2]) -> bool {
        let same = |v: &Vec<u32>| {
            v.len() == x.len() && hot.iter().all(|r| v[r.clone()] == x[r.clone()]) && v[..] == *x
        };
        self.states[..self.found].iter().any(same)
    }

    /// Adds `next` to the graph (its buffer swapped for a spare one) and
    /// returns its index.
    fn add_next(&mut self) -> usize {
        let i = self.found;
        if i == self.states.len() {
            self.states.push(std::mem::take(&mut self.next));
        } else {
            std::mem::swap(&mut self.states[i], &mut self.next);
        }
        self.found += 1;
        i
    }
}

/// Remembered solo graphs: per slot the thread and its own words and
/// views (the key), the whole state at the time (to check the histories
/// the graph touched), and its outcome.
#[derive(Default)]
struct SoloMemo {
    owner: u64,
    key_len: usize,
    state_len: usize,
    /// `u64` words per set of words (`Independence::width`).
    mw: usize,
    slots: usize,
    keys: Vec<u32>,
    states: Vec<u32>,
    /// Reads, then writes.
    bits: Vec<u64>,
    settles: Vec<Settles>,
}

impl SoloMemo {
    fn claim(&mut self, owner: u64, key_len: usize, state_len: usize, mw: usize) {
        if self.owner == owner {
            return;
        }
        let entry = 4 * (key_len + 1 + state_len) + 16 * mw + std::mem::size_of::<Settles>();
        let slots = (MEMO_BYTES / entry).clamp(MIN_SLOTS, MAX_SLOTS);
        *self = SoloMemo {
            owner,
            key_len,
            state_len,
            mw,
            slots,
            keys: vec![0; slots * (key_len + 1)],
            states: vec![0; slots * state_len],
            bits: vec![0; slots * 2 * mw],
            settles: vec![Settles::Never; slots],
        };
    }

    fn slot(&self, t: usize, key: &[u32]) -> usize {
        let mut h = rustc_hash::FxHasher::default();
        h.write_usize(t);
        key.iter().for_each(|w| h.write_u32(*w));
        h.finish() as usize % self.slots
    }
}

impl Independence {
    /// Whether enabled thread `t` settles in `s` under `ptx`, with the
    /// words its solo graph reads and writes in `out`: remembered, or
    /// explored and remembered (where the other threads did not decide it).
    pub(super) fn solo_lasso(
        &self,
        model: &Model,
        s: &[u32],
        t: usize,
        scratch: &mut SoloScratch,
        out: Accesses,
    ) -> Settles {
        let ptx = model.memory.ptx().expect("solo graphs are for ptx");
        let layout = &model.threads.layout;
        let own = layout.thread(t, 0)..layout.thread(t, layout.thread_words);
        scratch.key.clear();
        scratch.key.extend_from_slice(&s[own]);
        scratch.key.extend_from_slice(&s[ptx.thread_section(t)]);
        let memo = &mut scratch.memo;
        memo.claim(self.memo_owner, scratch.key.len(), s.len(), self.width);
        let slot = memo.slot(t, &scratch.key);
        let (kl, sl, mw) = (memo.key_len + 1, memo.state_len, memo.mw);
        let key = &memo.keys[slot * kl..(slot + 1) * kl];
        let bits = &memo.bits[slot * 2 * mw..(slot + 1) * 2 * mw];
        let then = &memo.states[slot * sl..(slot + 1) * sl];
        let settles = memo.settles[slot];
        let hit = key[0] == t as u32 + 1
            && key[1..] == scratch.key[..]
            && self.same_touched(model, ptx, (then, s), bits)
            && self.still_holds(
                model,
                s,
                t,
                settles,
                spin::critical_words(model, t).map(|w| then[w]),
            );
        if hit {
            out.reads.copy_from_slice(&bits[..mw]);
            out.writes.copy_from_slice(&bits[mw..]);
            return settles;
        }
        clear(out.reads);
        clear(out.writes);
        let settles = self.solo_graph(model, s, t, scratch, out.reads, out.writes);
        if settles != Settles::NotHere {
            let memo = &mut scratch.memo;
            let key = &mut memo.keys[slot * kl..(slot + 1) * kl];
            key[0] = t as u32 + 1;
            key[1..].copy_from_slice(&scratch.key);
            memo.states[slot * sl..(slot + 1) * sl].copy_from_slice(s);
            let bits = &mut memo.bits[slot * 2 * mw..(slot + 1) * 2 * mw];
            bits[..mw].copy_from_slice(out.reads);
            bits[mw..].copy_from_slice(out.writes);
            memo.settles[slot] = settles;
        }
        settles
    }

    /// Whether every location and SC-fence view a remembered graph read or
    /// wrote (`bits`: reads, then writes) is the same in `then` and `now`.
    fn same_touched(
        &self,
        model: &Model,
        ptx: &PtxMemory,
        (then, now): (&[u32], &[u32]),
        bits: &[u64],
    ) -> bool {
        let mem_words = model.threads.layout.mem_words;
        let device = self.sc_words.map_or(usize::MAX, |sc| sc.device);
        let same = |r: std::ops::Range<usize>| then[r.clone()] == now[r];
        (0..self.width * 64).all(|w| {
            if !get(&bits[..self.width], w) && !get(&bits[self.width..], w) {
                return true;
            }
            if w < mem_words {
                then[w] == now[w] && same(ptx.location_section(w))
            } else if w >= device {
                let block = (w > device).then(|| w - device - 1);
                same(ptx.sc_section(block))
            } else {
                true
            }
        })
    }

    /// Explores the solo graph of enabled thread `t` from `s` (see the
    /// module docs), marking the words its steps read and write.
    fn solo_graph(
        &self,
        model: &Model,
        s: &[u32],
        t: usize,
        scratch: &mut SoloScratch,
        reads: &mut [u64],
        writes: &mut [u64],
    ) -> Settles {
        scratch.found = 0;
        scratch.stack.clear();
        scratch.next.clear();
        scratch.next.extend_from_slice(s);
        let first = scratch.add_next();
        scratch.stack.push(first);
        let mut reliance = Reliance::default();
        while let Some(i) = scratch.stack.pop() {
            // Taken out while its successors are added (and put back
            // after), so that it is read in place rather than copied; a
            // graph ended early leaves an empty buffer behind, refilled
            // when next used.
            let x = std::mem::take(&mut scratch.states[i]);
            let settles =
                self.solo_successors(model, t, &x, scratch, &mut reliance, (reads, writes));
            scratch.states[i] = x;
            if let Some(settles) = settles {
                return settles;
            }
        }
        Settles::Yes(reliance)
    }

    /// Adds the successors of `x`, a state of `t`'s solo graph, to the
    /// graph; `Some` where that decides the graph.
    fn solo_successors(
        &self,
        model: &Model,
        t: usize,
        x: &[u32],
        scratch: &mut SoloScratch,
        reliance: &mut Reliance,
        (reads, writes): (&mut [u64], &mut [u64]),
    ) -> Option<Settles> {
        let ptx = model.memory.ptx().expect("solo graphs are for ptx");
        let th = &model.threads;
        let pc = th.pc(x, t);
        if pc == FINISHED {
            return None;
        }
        let op = &model.prog.code[pc as usize].op;
        if th.is_blocked(x, t) || !self.settles_from[pc as usize] || ptx.may_perform_early(th, x, t)
        {
            return Some(Settles::Never);
        }
        if matches!(op, Op::Exit | Op::SyncThreads) && !self.alone_in_block(model, x, t) {
            return Some(Settles::NotHere);
        }
        reliance.note(model, x, t, op);
        if let Some(access) = op.access() {
            if th.address(x, t, &access.loc).is_err() {
                return Some(Settles::Never);
            }
        }
        if let (
            Op::Fence(MemOrder {
                order: Order::Sc,
                scope,
            }),
            Some(sc),
        ) = (op, self.sc_words)
        {
            for &w in sc.of_fence(model, t, *scope).words() {
                set(reads, w);
                set(writes, w);
            }
        }
        let mut actions = std::mem::take(&mut scratch.actions);
        actions.clear();
        ptx.alternatives(th, x, t, &mut actions);
        let hot = hot_words(model, ptx, t);
        let mut decided = None;
        for &a in actions.iter() {
            if let Some(effect) = ptx.effect(th, x, a) {
                let w = effect.location as usize;
                if effect.read.is_some() {
                    set(reads, w);
                }
                if effect.write.is_some() {
                    set(writes, w);
                }
            }
            scratch.next.clear();
            scratch.next.extend_from_slice(x);
            let mut ctx = StepCtx {
                unnormalized: true,
                ..StepCtx::default()
            };
            if model.run_action(&mut scratch.next, a, &mut ctx).is_err() {
                decided = Some(spin::failed(op));
                break;
            }
            // `x` itself is out of `states` while its successors are added.
            if scratch.next[..] == *x || scratch.seen(&scratch.next, &hot) {
                continue;
            }
            if scratch.found == MAX_SOLO_STATES {
                decided = Some(Settles::Never);
                break;
            }
            let i = scratch.add_next();
            scratch.stack.push(i);
        }
        scratch.actions = actions;
        decided
    }
}

//! Named barriers: `bar.sync(id, count)` and `bar.arrive(id, count)`, as
//! warp-specialized kernels use them to synchronize part of a block.
//!
//! Each thread counts its arrivals at each barrier id the program names
//! (a word per thread and id after the threads). A thread's `k`-th arrival
//! belongs to *instance* `k` of the barrier; the instance completes once
//! `count` threads of the block have arrived at it (`None`: every thread
//! of the block still running, or that arrived there before finishing),
//! and then releases every thread waiting at it. So a thread that arrives
//! at an instance already complete passes at once: the quorum semantics
//! of Dat3M's PTX model, which the litmus expectations follow; on
//! hardware the extra arrival would start the next round. `bar.arrive`
//! counts as an arrival and does not wait.
//!
//! Under `ptx` an arrival keeps the thread's view (`memory::layout`,
//! `ARRIVED`), and the threads an instance releases join the views kept by
//! every thread whose latest arrival is at that instance: what a `bar.arrive`
//! publishes reaches the `bar.sync` waiters, as PTX's barrier ordering
//! says. A thread that has arrived again since is left out (its kept view
//! is a later one), so waiters may read older values than on hardware,
//! never newer ones.
//!
//! Counts are kept relative: once every running thread of the block has
//! arrived at least twice, all counts of the block drop by the same amount
//! (comparisons between them are all the semantics reads), so a barrier in
//! a loop run by every thread has finitely many states. A barrier used in
//! an endless loop by some threads while others of the block never use it
//! grows without bound; the search then ends at its limits.

use super::memory::Memory;
use super::state::{Layout, FLAGS, WAITING_BARRIER};
use super::threads::{runtime_error, Threads};
use super::Violation;
use crate::ir::{Op, Program};

pub(crate) struct NamedBarriers {
    /// The barrier ids the program names, ascending.
    ids: Vec<u32>,
    /// First word of thread 0's counts.
    base: usize,
}

impl NamedBarriers {
    /// The counts of `prog`'s named barriers, reserved in `layout`.
    pub(crate) fn new(prog: &Program, layout: &mut Layout) -> NamedBarriers {
        let ids = prog.barrier_ids();
        let base = if ids.is_empty() {
            0
        } else {
            layout.reserve(layout.threads * ids.len())
        };
        NamedBarriers { ids, base }
    }

    /// Whether the program has named barriers (the reductions do not
    /// describe their words).
    pub(crate) fn has_state(&self) -> bool {
        !self.ids.is_empty()
    }

    fn slot(&self, id: u32) -> usize {
        self.ids.binary_search(&id).expect("a named id")
    }

    fn word(&self, t: usize, id: u32) -> usize {
        self.base + t * self.ids.len() + self.slot(id)
    }

    /// Thread `t` arrives at barrier `id` (and waits, unless `arrive`).
    pub(crate) fn arrive(
        &self,
        (th, memory): (&Threads, &Memory),
        s: &mut [u32],
        t: usize,
        (id, arrive): (u32, bool),
    ) {
        s[self.word(t, id)] += 1;
        if let Some(w) = memory.ptx() {
            w.arrive_at_barrier(s, t, self.slot(id));
        }
        if !arrive {
            s[th.layout.thread(t, FLAGS)] |= WAITING_BARRIER;
        }
    }

    /// Releases the threads of `t`'s block waiting at a named barrier whose
    /// instance is complete; returns how many, after relativizing counts.
    pub(crate) fn release(
        &self,
        (th, memory): (&Threads, &Memory),
        s: &mut [u32],
        t: usize,
    ) -> Result<usize, Violation> {
        let block = th.layout.block_threads(t);
        let mut released = 0;
        for &id in &self.ids {
            // (instance, thread) for each waiter whose instance is complete.
            let mut passing = Vec::new();
            for u in block.clone() {
                if !self.waits_at(th, s, u, id) {
                    continue;
                }
                let k = s[self.word(u, id)];
                let arrived = block.clone().filter(|&v| s[self.word(v, id)] >= k).count();
                if arrived >= self.quorum(th, s, u, id, k)? {
                    passing.push((k, u));
                }
            }
            if passing.is_empty() {
                continue;
            }
            if let Some(w) = memory.ptx() {
                let mut instances: Vec<u32> = passing.iter().map(|(k, _)| *k).collect();
                instances.sort_unstable();
                instances.dedup();
                for k in instances {
                    let waiters: Vec<usize> = passing
                        .iter()
                        .filter(|(i, _)| *i == k)
                        .map(|(_, u)| *u)
                        .collect();
                    let arrivers: Vec<usize> = block
                        .clone()
                        .filter(|&v| s[self.word(v, id)] == k)
                        .collect();
                    w.release_barrier(s, &waiters, &arrivers, self.slot(id));
                }
            }
            for &(_, u) in &passing {
                s[th.layout.thread(u, FLAGS)] &= !WAITING_BARRIER;
                let pc = th.pc(s, u);
                th.set_pc(s, u, pc + 1);
            }
            released += passing.len();
            self.relativize(th, s, block.clone(), id);
        }
        Ok(released)
    }

    fn waits_at(&self, th: &Threads, s: &[u32], u: usize, id: u32) -> bool {
        !th.is_finished(s, u)
            && th.is_waiting_at_barrier(s, u)
            && matches!(th.prog.code[th.pc(s, u) as usize].op,
                Op::NamedBarrier { id: i, arrive: false, .. } if i == id)
    }

    /// How many arrivals complete the instance `k` that `u` waits at.
    fn quorum(
        &self,
        th: &Threads,
        s: &[u32],
        u: usize,
        id: u32,
        k: u32,
    ) -> Result<usize, Violation> {
        let Op::NamedBarrier { count, .. } = &th.prog.code[th.pc(s, u) as usize].op else {
            unreachable!("waits at a named barrier")
        };
        match count {
            Some(c) => {
                let n = th.eval(c, s, u)?;
                if n < 1 {
                    return Err(runtime_error(&format!(
                        "barrier {id} is given a thread count of {n}: at least 1 thread must take part"
                    )));
                }
                Ok(n as usize)
            }
            None => Ok(th
                .layout
                .block_threads(u)
                .filter(|&v| {
                    th.takes_part(v) && (!th.is_finished(s, v) || s[self.word(v, id)] >= k)
                })
                .count()),
        }
    }

    /// Drops the counts of barrier `id` in `block` by the same amount once
    /// every running thread has arrived twice (see the module comment).
    fn relativize(&self, th: &Threads, s: &mut [u32], block: std::ops::Range<usize>, id: u32) {
        let min = block
            .clone()
            .filter(|&v| !th.is_finished(s, v))
            .map(|v| s[self.word(v, id)])
            .min();
        let Some(m) = min.filter(|&m| m >= 2) else {
            return;
        };
        for v in block {
            let w = self.word(v, id);
            // A finished thread behind every running one never counts again.
            s[w] = if th.is_finished(s, v) && s[w] < m {
                0
            } else {
                s[w] - (m - 1)
            };
        }
    }
}

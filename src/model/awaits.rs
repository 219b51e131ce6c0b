//! The spin-loop (await) reduction under `ptx`: a failed iteration of a
//! polling loop that read a stale write is left out.
//!
//! A thread spinning on a flag (`while (ld(flag) == 0);`) takes one step
//! per iteration: a load, then thread-local code back to the same load.
//! Under sequential consistency a failed iteration changes nothing, so it
//! is a self-loop. Under `ptx` the load may read any write from the
//! thread's view on, and reading an older one than the latest still moves
//! the view up to it: each such failed iteration is a new state that
//! differs from the old one only in how far the spinner's view has come.
//! (Measured, such states are few: the canonical form keeps histories
//! short, and a poll that does not move the view is a self-loop already;
//! the book's checker-performance chapter has where the ptx states are.)
//!
//! A step is left out when it is a **stale stutter**: a plain load (not
//! one performed early, not an atomic) that reads a write older than the
//! latest of its location, and after which, with the thread-local code
//! fused after it, nothing but the memory model's views and histories has
//! changed: the thread is back at the same instruction with the same
//! locals. The iteration that reads the latest write is kept, and so is
//! every iteration that leaves the loop.
//!
//! Why verdicts are kept (the deadlock-only check; the analyses that read
//! every thread's steps, liveness and progress labels, search without it):
//!
//! - **Safety.** Views only grow, and a thread whose views are smaller can
//!   take every step the same thread with larger ones can (it may read
//!   every write the other may, and release and acquire smaller views,
//!   which in turn constrain the others less). So the state before a
//!   stale stutter simulates the state after it, and every run through a
//!   stutter is matched by the run without it, which reaches the same
//!   instructions with the same values read, and at least the same races
//!   (fewer happens-before edges).
//! - **Deadlock.** Leaving a stutter out leaves the spinner more able to
//!   leave its loop, so a deadlock must still be reached another way. It
//!   is: a trapped spinner is one for which no write from its view on,
//!   the latest included, lets it out, and the iteration reading the
//!   latest write is kept. Any run in which the spinner misses a pulse by
//!   reading stale values has a counterpart in which it reads the latest
//!   value at the same moments, which traps it at least as surely (its
//!   view is at the top).
//! - **Every thread keeps a step.** The latest write is always readable,
//!   so a spinner is never left without a step it had.
//!
//! This is VSync's await model checking and GenMC's spin-assume, restated
//! for views: they drop failed iterations of side-effect-free await loops
//! and report a thread blocked in one as a deadlock; here the failed
//! iteration on the latest write stays (a self-loop once the view is at
//! the top), so the explorer's own deadlock analysis, backward
//! reachability from the final states, needs no change. The switch is
//! `--no-await`; tests/reductions.rs and tests/generated.rs compare the
//! verdicts with and without it.

use super::memory::PtxMemory;
use super::Model;
use std::cell::RefCell;

/// The await reduction for one model (only under `ptx`: under sequential
/// consistency a failed iteration is a self-loop already).
pub struct Awaits<'m> {
    memory: &'m PtxMemory,
}

thread_local! {
    /// The state a candidate stutter leads to (per explorer thread).
    static SCRATCH: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

impl<'m> Awaits<'m> {
    /// The reduction for `model`, or why it is off there.
    pub fn new(model: &'m Model) -> Result<Awaits<'m>, String> {
        let Some(memory) = model.memory.ptx() else {
            return Err("under sc a failed poll is a self-loop already".into());
        };
        if model.warps.is_lockstep() {
            return Err("a lockstep warp's step is not one thread's poll".into());
        }
        Ok(Awaits { memory })
    }

    /// Removes from `out[start..]` the actions of `s` that are stale
    /// stutters.
    pub fn retain(&self, model: &Model, s: &[u32], out: &mut Vec<u32>, start: usize) {
        let th = &model.threads;
        let candidate = |a: u32| self.memory.reads_stale(th, s, a);
        if !out[start..].iter().any(|&a| candidate(a)) {
            return;
        }
        SCRATCH.with_borrow_mut(|next| {
            next.resize(s.len(), 0);
            let mut keep = start;
            for i in start..out.len() {
                let a = out[i];
                if !(candidate(a) && self.stutters(model, s, a, next)) {
                    out[keep] = a;
                    keep += 1;
                }
            }
            out.truncate(keep);
        });
    }

    /// Whether action `a` from `s` (a stale read) leaves everything but the
    /// memory model's words as it was: the thread is where it was, with
    /// the same locals and flags. (Its memory words are not compared, so
    /// they are not put in canonical form, which changes no other word:
    /// it clears only finished threads' flags, and `s`'s already are.)
    fn stutters(&self, model: &Model, s: &[u32], a: u32, next: &mut [u32]) -> bool {
        if model.step_unnormalized(s, a, next).is_err() {
            // The violation is the model's to report.
            return false;
        }
        let t = super::thread_of(a);
        let base = model.threads.layout.model_base();
        let end = base + model.threads.layout.model_words;
        s[..base] == next[..base] && s[end..] == next[end..] && self.memory.same_flags(s, next, t)
    }
}

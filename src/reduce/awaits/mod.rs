//! The spin-loop (await) reduction under `ptx`: a failed iteration of a
//! polling loop that read a stale write is left out, and so is a read by
//! a load whose value decides nothing (a *blind* load) that would only
//! move the thread's view up.
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
//! A second rule covers polls of several loads (`while (ring[head] !=
//! me)`: `head`, then the slot it names), where a failed iteration is not
//! one step. A load is **blind** in a state when every write it may read,
//! and a write of every value any thread may still give the location, leads
//! to the same successor up to the memory model's words (its views): the
//! value read decides nothing. The values still to come are those of the
//! stores the other threads have anywhere in their code, and the thread's
//! own that its control flow (refined by its locals never computed from
//! memory, so a counted loop ends) still reaches; a read-modify-write or a
//! value computed from locals makes no load blind. Of a blind load only
//! the read of the write at the thread's view stays; the reads of newer
//! writes, which would only move the view up, are left out. The waiting
//! blocks of a queue lock read the slots of the blocks ahead of them this
//! way, since no other block ever writes their id there.
//!
//! Why verdicts are kept: the read at the view leads to the same state as
//! a newer one but with smaller views, which (as above) can take every
//! step the other can, so safety is kept. For deadlock, the reads left out
//! can never let the thread out of its loop, whatever is written later, so
//! a spinner needs them for no trap: it is trapped exactly when the other
//! loads of its loop trap it, and those keep their reads of the latest
//! write. Views the thread did not raise and later publishes are smaller
//! for the threads that acquire them; each of those raises its own view
//! with its own reads of the latest write, which it keeps. Like the rule
//! above this is AMC's removal of failed iterations (Oberhauser et al.,
//! ASPLOS 2021), whose reads constrain nothing once removed.
//!
//! This is VSync's await model checking and GenMC's spin-assume, restated
//! for views: they drop failed iterations of side-effect-free await loops
//! and report a thread blocked in one as a deadlock; here the failed
//! iteration on the latest write stays (a self-loop once the view is at
//! the top), so the explorer's own deadlock analysis, backward
//! reachability from the final states, needs no change. The switch is
//! `--no-await`; tests/reductions.rs and tests/generated.rs compare the
//! verdicts with and without it.

mod writes;

use super::Inapplicable;
use crate::ir::{to_raw, Op};
use crate::model::memory::PtxMemory;
use crate::model::Model;
use std::cell::RefCell;
use writes::FutureWrites;

/// The await reduction for one model (only under `ptx`: under sequential
/// consistency a failed iteration is a self-loop already).
pub(crate) struct Awaits<'m> {
    memory: &'m PtxMemory,
    writes: FutureWrites,
    /// Per pc: a load that may be blind (a one-word location whose every
    /// writer's value is known), so that the test costs nothing elsewhere.
    may_be_blind: Vec<bool>,
    /// Per pc: a step from there may end back at it (`may_return`); where
    /// not, no step from there is a stutter, and the test is skipped.
    may_stutter: Vec<bool>,
}

thread_local! {
    /// The state a candidate stutter leads to (per explorer thread).
    static SCRATCH: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
    /// Buffers of the blind-load test (per explorer thread).
    static BLIND: RefCell<BlindScratch> = RefCell::new(BlindScratch::default());
}

/// The state after reading at the view, after another read, a trial
/// state, and the values still to come.
#[derive(Default)]
struct BlindScratch {
    at_view: Vec<u32>,
    other: Vec<u32>,
    trial: Vec<u32>,
    values: Vec<i64>,
}

impl<'m> Awaits<'m> {
    /// The reduction for `model`, or why it is off there.
    pub(crate) fn new(model: &'m Model) -> Result<Awaits<'m>, Inapplicable> {
        let Some(memory) = model.memory.ptx() else {
            return Err(Inapplicable::UnderSc);
        };
        if model.warps.is_lockstep() {
            return Err(Inapplicable::LockstepPoll);
        }
        let writes = FutureWrites::of(model);
        let prog = model.prog;
        let may_be_blind = prog
            .code
            .iter()
            .map(|instr| match &instr.op {
                Op::Load { access, .. } => {
                    let var = access.loc.var as usize;
                    prog.vars[var].ty.words() == 1 && writes.all_known(var)
                }
                _ => false,
            })
            .collect();
        let may_stutter = (0..prog.code.len())
            .map(|pc| may_return(model, pc as crate::ir::Pc))
            .collect();
        Ok(Awaits {
            memory,
            writes,
            may_be_blind,
            may_stutter,
        })
    }

    /// Removes from `out[start..]` the actions of `s` that are blind reads
    /// or stale stutters.
    pub(crate) fn retain(&self, model: &Model, s: &[u32], out: &mut Vec<u32>, start: usize) {
        self.drop_blind_reads(model, s, out, start);
        let th = &model.threads;
        let candidate = |a: u32| {
            self.may_stutter[th.pc(s, crate::model::thread_of(a)) as usize]
                && self.memory.reads_stale(th, s, a)
        };
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

    /// Removes the reads of a newer write than the thread's view by loads
    /// that are blind in `s` (`blind`): the read at the view stays.
    fn drop_blind_reads(&self, model: &Model, s: &[u32], out: &mut Vec<u32>, start: usize) {
        let th = &model.threads;
        let newer = |a: u32| {
            PtxMemory::reads_past_view(a)
                && self.may_be_blind[th.pc(s, crate::model::thread_of(a)) as usize]
        };
        let mut blind = 0u64;
        let mut tried = 0u64;
        for i in start..out.len() {
            let t = crate::model::thread_of(out[i]);
            if t >= 64 || tried & 1 << t != 0 || !newer(out[i]) {
                continue;
            }
            tried |= 1 << t;
            let choices = out[start..]
                .iter()
                .copied()
                .filter(|&a| crate::model::thread_of(a) == t && !PtxMemory::is_early(a));
            if self.blind(model, s, t, choices) {
                blind |= 1 << t;
            }
        }
        if blind != 0 {
            out.retain(|&a| {
                let t = crate::model::thread_of(a);
                t >= 64 || blind & 1 << t == 0 || !newer(a)
            });
        }
    }

    /// Whether thread `t`'s load is *blind* in `s`: every write it may read
    /// (`choices`, its actions), and a write of every value any thread may
    /// still give the location, leads where reading the write at its view
    /// leads, up to the memory model's words (its views).
    fn blind(
        &self,
        model: &Model,
        s: &[u32],
        t: usize,
        choices: impl Iterator<Item = u32>,
    ) -> bool {
        let th = &model.threads;
        let pc = th.pc(s, t);
        let Some(x) = self.memory.load_location(th, s, t) else {
            return false;
        };
        let var = th.prog.code[pc as usize]
            .op
            .access()
            .expect("a load")
            .loc
            .var as usize;
        // A one-word type (`may_be_blind`).
        let ty = th.prog.vars[var].ty;
        BLIND.with_borrow_mut(|scratch| {
            let BlindScratch {
                at_view,
                other,
                trial,
                values,
            } = scratch;
            // The values still to come first: no stepping where one is
            // unknown (a location an atomic writes).
            values.clear();
            if !self.writes.values(th, s, t, var, values) {
                return false;
            }
            at_view.resize(s.len(), 0);
            other.resize(s.len(), 0);
            let same = |next: &[u32], at_view: &[u32]| self.same_outcome(model, t, next, at_view);
            if model.step_unnormalized(s, t as u32, at_view).is_err() {
                return false;
            }
            for a in choices.filter(|&a| a != t as u32) {
                if model.step_unnormalized(s, a, other).is_err() || !same(other, at_view) {
                    return false;
                }
            }
            values.sort_unstable();
            values.dedup();
            values.iter().all(|&v| {
                trial.clear();
                trial.extend_from_slice(s);
                self.memory
                    .set_value_at_view(trial, t, x, to_raw(ty, v) as u32);
                model.step_unnormalized(trial, t as u32, other).is_ok() && same(other, at_view)
            })
        })
    }

    /// Whether two successors of thread `t`'s step differ in the memory
    /// model's words only (not in its flags).
    fn same_outcome(&self, model: &Model, t: usize, a: &[u32], b: &[u32]) -> bool {
        let base = model.threads.layout.model_base();
        let end = base + model.threads.layout.model_words;
        a[..base] == b[..base] && a[end..] == b[end..] && self.memory.same_flags(a, b, t)
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
        self.same_outcome(model, crate::model::thread_of(a), s, next)
    }
}

/// Whether a step of a thread at `pc` may end with the thread at `pc`
/// again: the step runs the instruction at `pc`, then (when fusing) the
/// thread-local ones after it, and stops at the first that is not fused
/// (or earlier, blocked or at the fusing bound), so it ends at a pc
/// reachable from a successor of `pc` through fused instructions only. A
/// step that ends elsewhere changed the thread's pc: no stutter.
fn may_return(model: &Model, pc: crate::ir::Pc) -> bool {
    let code = &model.prog.code;
    let fusing = model.options().fuse_local_steps;
    let mut seen = vec![false; code.len()];
    let mut todo = crate::ir::cfg::successors(code, pc);
    while let Some(p) = todo.pop() {
        if p == pc {
            return true;
        }
        let Some(done) = seen.get_mut(p as usize) else {
            continue;
        };
        if !*done && fusing && model.is_fused(p) {
            *done = true;
            todo.extend(crate::ir::cfg::successors(code, p));
        }
    }
    false
}

#[cfg(test)]
mod tests;

//! Threads that settle on their own: which threads of a state, run alone,
//! end up spinning in place (or finish), and which of them are *asleep*
//! with respect to a candidate stubborn set.
//!
//! Run thread `b` alone from state `s` (sequential consistency: one step is
//! determined by the thread's own state and the values of the memory words
//! it accesses; under `ptx` see `solo`, which keeps every alternative of
//! every step). Its *lasso* is that run up to the first repeated solo
//! state (memory and `b`'s own words; from there the run goes round the
//! same cycle forever: `b` spins) or up to `b` finishing, within
//! [`MAX_LASSO_STEPS`] steps, with no step that fails, waits at a barrier,
//! runs a warp collective or touches another thread (`may_settle_from`).
//! `R_b` are the words its lasso reads, `W_b` those it writes (a store
//! always counts, an atomic only where it changed the value: a failed
//! `atomicCAS` only reads). A spinning thread that only reads is the common
//! case, `W_b` empty; a thread that leaves a barrier, increments the next
//! episode's arrival counter and spins there has `W_b` = that counter.
//!
//! Given a set `T` of threads, a set `A` of threads outside `T` that have
//! lassos is *asleep* when, for each `b` in `A`, every other thread that may
//! still write a word of `R_b` (its static future writes) is in `T` or in
//! `A`, and no other `c` in `A` writes a word of `R_b` in its lasso
//! (`W_c` and `R_b` disjoint). Then along any sequence of steps of threads
//! outside `T` from `s`, every thread of `A` follows its lasso, step by
//! step: if not, take the first step of the sequence at which some `b` in
//! `A` does something its lasso does not. Up to there `b` matched its lasso,
//! so its own state is the lasso's and the word the step accesses (the
//! same word: addresses depend on the thread's own state) is in `R_b` and
//! holds another value than in the lasso, so an earlier step of another
//! thread `w` wrote it. `w` is not in `T`. If `w` is in `A`, that step was
//! a step of `w`'s lasso (all earlier steps are), which writes no word of
//! `R_b`. If `w` is in neither, it may not write `R_b` at all. (A step that
//! reads other threads' positions, the barrier-phase and capacity checks,
//! can only fail where the lasso passed: the run ends there.)
//!
//! So outside `T` an asleep thread only accesses its lasso's words, and a
//! member's step depends on it only if one of them writes a word the other
//! accesses: that is what `Independence::stubborn` charges it with,
//! instead of everything it may ever access.

use super::Independence;
use crate::ir::{MemAccess, Op};
use crate::model::exec::StepCtx;
use crate::model::facts::{set, Bits};
use crate::model::state::{CRITICAL, FINISHED, PHASES};
use crate::model::Model;

/// Longest solo run looked at, in steps of the thread (each fused with the
/// thread-local instructions after its memory access).
const MAX_LASSO_STEPS: usize = 32;

/// Whether a step that starts at `pc` may belong to a lasso: it accesses
/// at most one memory word (which the caller tracks), and changes nothing
/// of the other threads (every instruction fused after it is thread-local,
/// a fence, or a barrier the thread passes alone; an exit only where
/// `Independence::lasso` checks that the thread is alone in its block).
pub(super) fn may_settle_from(model: &Model, pc: usize, kernel_boundary: bool) -> bool {
    match model.prog.code[pc].op {
        Op::Load { .. } | Op::Store { .. } | Op::Atomic { .. } => true,
        // Their checks read the other threads' positions, but only decide
        // whether the step fails; what it does otherwise is the thread's own.
        Op::PhaseEnter | Op::PhaseExit | Op::CriticalEnter { .. } | Op::CriticalExit => true,
        Op::Exit => !kernel_boundary,
        // Under `ptx` these are steps of their own: a fence moves the
        // thread's views (an SC fence also the SC-fence views, which the
        // caller tracks), a block barrier is the thread's own where it is
        // alone in its block (`Independence::solo_graph` checks).
        Op::Fence(_) | Op::SyncThreads if model.memory.ptx().is_some() => true,
        _ => model.is_fused(pc as u32),
    }
}

/// What a lasso found in one state relies on besides the thread's own
/// words and the memory it touched: where the other threads are. A memo
/// that hands the lasso to another state checks these again
/// (`Independence::still_holds`).
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Reliance {
    /// A step needs the thread alone in its block (it finishes, or under
    /// `ptx` passes a block barrier).
    pub alone: bool,
    /// The largest phase it left: leaving its `k`-th phase passes where
    /// every thread has entered `k` phases (`properties::leave_phase`).
    pub phase: Option<u32>,
    /// It entered a critical section, which passes by the weights the
    /// others hold (`critical_words`).
    pub critical: bool,
}

impl Reliance {
    /// Notes what the step of thread `t` at `op` from `s` relies on.
    pub(super) fn note(&mut self, model: &Model, s: &[u32], t: usize, op: &Op) {
        match op {
            Op::Exit | Op::SyncThreads => self.alone = true,
            Op::PhaseExit => {
                let k = s[model.threads.layout.thread(t, PHASES)];
                self.phase = Some(self.phase.map_or(k, |p| p.max(k)));
            }
            Op::CriticalEnter { .. } => self.critical = true,
            _ => {}
        }
    }
}

/// Whether a thread settles (`Independence::lasso`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Settles {
    /// It has a lasso, which relies on the other threads as said.
    Yes(Reliance),
    /// It has none, as decided by its own words and the words it read.
    Never,
    /// It has none here, because of where the other threads are.
    NotHere,
}

/// Where a lasso's reads and writes go.
pub(super) struct Accesses<'a> {
    pub reads: &'a mut Bits,
    pub writes: &'a mut Bits,
}

impl Independence {
    /// Whether enabled thread `t` has a lasso in `s` (see the module docs),
    /// with the words it reads and writes (up to where it failed, if not)
    /// marked in `out`. `buf` and `anchor` are scratch space.
    pub(super) fn lasso(
        &self,
        model: &Model,
        s: &[u32],
        t: usize,
        (buf, anchor): (&mut Vec<u32>, &mut Vec<u32>),
        out: Accesses,
    ) -> Settles {
        buf.clear();
        buf.extend_from_slice(s);
        let own = model.threads.layout.thread(t, 0)
            ..model
                .threads
                .layout
                .thread(t, model.threads.layout.thread_words);
        // Brent's cycle detection over solo states: the anchor is the own
        // state at the last write, then at steps 1, 2, 4, ... after it
        // (memory is unchanged since the anchor, so equal own words mean
        // an equal solo state).
        anchor.clear();
        anchor.extend_from_slice(&s[own.clone()]);
        let (mut power, mut since) = (1, 0);
        let mut reliance = Reliance::default();
        for _ in 0..MAX_LASSO_STEPS {
            let pc = model.threads.pc(buf, t);
            if pc == FINISHED {
                return Settles::Yes(reliance);
            }
            let op = &model.prog.code[pc as usize].op;
            reliance.note(model, buf, t, op);
            if model.threads.is_blocked(buf, t) || !self.settles_from[pc as usize] {
                return Settles::Never;
            }
            if matches!(op, Op::Exit) && !self.alone_in_block(model, buf, t) {
                return Settles::NotHere;
            }
            let access = match op.access() {
                Some(MemAccess { loc, .. }) => match model.threads.address(buf, t, loc) {
                    Ok((w, _)) => Some((w, buf[w], matches!(op, Op::Store { .. }))),
                    Err(_) => return Settles::Never,
                },
                _ => None,
            };
            if let Some((w, _, false)) = access {
                set(out.reads, w);
            }
            if model
                .run_action(buf, t as u32, &mut StepCtx::default())
                .is_err()
            {
                return failed(op);
            }
            let mut wrote = false;
            if let Some((w, old, store)) = access {
                wrote = buf[w] != old;
                if store || wrote {
                    set(out.writes, w);
                }
            }
            if wrote {
                anchor.clear();
                anchor.extend_from_slice(&buf[own.clone()]);
                (power, since) = (1, 0);
                continue;
            }
            if buf[own.clone()] == anchor[..] {
                return Settles::Yes(reliance);
            }
            since += 1;
            if since == power {
                anchor.clear();
                anchor.extend_from_slice(&buf[own.clone()]);
                (power, since) = (power * 2, 0);
            }
        }
        Settles::Never
    }

    /// Whether a lasso of `t` found in another state holds in `s` as far
    /// as the other threads go (`Reliance`); `critical_then`: the values
    /// the words of `critical_words` had there.
    pub(super) fn still_holds(
        &self,
        model: &Model,
        s: &[u32],
        t: usize,
        settles: Settles,
        critical_then: impl Iterator<Item = u32>,
    ) -> bool {
        let Settles::Yes(reliance) = settles else {
            return true;
        };
        let th = &model.threads;
        let entered = |k: u32| {
            (0..th.count())
                .filter(|&u| th.takes_part(u))
                .all(|u| s[th.layout.thread(u, PHASES)] >= k)
        };
        (!reliance.alone || self.alone_in_block(model, s, t))
            && reliance.phase.is_none_or(entered)
            && (!reliance.critical || critical_words(model, t).map(|w| s[w]).eq(critical_then))
    }

    /// Whether unfinished thread `u` may still write a word of `words`.
    pub(super) fn may_write_any(&self, model: &Model, s: &[u32], u: usize, words: &Bits) -> bool {
        let pc = model.threads.pc(s, u);
        if pc == FINISHED {
            return false;
        }
        let (_, writes) = self.future.sets(u, pc);
        writes.iter().zip(words).any(|(a, b)| a & b != 0)
    }
}

/// Whether a step at `op` passes or fails by the other threads' words:
/// leaving a phase (their counts of entered phases), entering a critical
/// section (who is inside).
pub(super) fn reads_others(op: &Op) -> bool {
    matches!(op, Op::PhaseExit | Op::CriticalEnter { .. })
}

/// How a lasso ends at a step that failed: where the failure came from the
/// other threads' words, it is not the thread's own (and not remembered).
pub(super) fn failed(op: &Op) -> Settles {
    if reads_others(op) {
        Settles::NotHere
    } else {
        Settles::Never
    }
}

/// The words of the threads other than `t` that the capacity check of a
/// critical section reads (the weights they hold).
pub(super) fn critical_words<'m>(model: &'m Model, t: usize) -> impl Iterator<Item = usize> + 'm {
    let layout = &model.threads.layout;
    (0..layout.threads)
        .filter(move |&u| u != t)
        .map(move |u| layout.thread(u, CRITICAL))
}

/// Removes from `asleep` every thread with a writer (`writers`, one row of
/// `width` words per thread) that is neither in `member` nor asleep, or
/// asleep with a lasso that writes what it reads (`clashers`), until none
/// is left: an asleep set within the given one.
pub(super) fn keep_consistent(
    asleep: &mut Bits,
    member: &Bits,
    (writers, clashers): (&[u64], &[u64]),
    width: usize,
) {
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..width {
            let mut bits = asleep[i];
            while bits != 0 {
                let b = i * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let (w, c) = (&writers[b * width..], &clashers[b * width..]);
                if (0..width).any(|k| w[k] & !member[k] & !asleep[k] != 0 || c[k] & asleep[k] != 0)
                {
                    asleep[i] &= !(1 << (b % 64));
                    changed = true;
                }
            }
        }
    }
}

//! One instruction of one thread: its effect on the threads' part of the
//! state, and on memory under sequential consistency (the `ptx` model
//! executes memory instructions itself, `memory`); barriers, warp
//! collectives and the lock unit through their parts.

use super::memory::Memory;
use super::properties;
use super::state::{self, CRITICAL, FINISHED, FLAGS, PHASES, WAITING_BARRIER};
use super::threads::Threads;
use super::{Event, Model, Violation, ViolationKind};
use crate::ir::{atomic_result, MemAccess, Op, Pc};

/// What a step reports besides its successor state.
#[derive(Default)]
pub(crate) struct StepCtx<'a> {
    /// When set, every executed instruction is recorded (counterexamples).
    pub events: Option<&'a mut Vec<Event>>,
    /// Set when the moving thread passed a progress point: `progress;`,
    /// entering a critical section, leaving a phase (passing the barrier
    /// under test), or finishing the harness. `__syncthreads()` is not one:
    /// the seeds' spin loops pass it on every failed attempt.
    pub progressed: bool,
    /// Under `ptx`: which alternative the step's memory instruction takes.
    pub choice: u32,
    /// Leave the `ptx` words as the instructions left them, not in
    /// canonical form (`Model::step_unnormalized`).
    pub unnormalized: bool,
}

impl StepCtx<'_> {
    /// Records `event`, if this step records.
    pub(crate) fn push(&mut self, event: Option<Event>) {
        if let (Some(e), Some(events)) = (event, self.events.as_mut()) {
            events.push(e);
        }
    }
}

impl Model<'_> {
    /// Executes the single instruction at `pc` of thread `t`.
    pub(super) fn exec(
        &self,
        s: &mut [u32],
        t: usize,
        pc: Pc,
        ctx: &mut StepCtx,
    ) -> Result<(), Violation> {
        let th = &self.threads;
        let op = &self.prog.code[pc as usize].op;
        let mut event = ctx.events.as_ref().map(|_| Event {
            thread: t as u32,
            pc,
            ..Event::default()
        });
        if let Some(w) = self.memory.ptx() {
            if let Some(next) = w.exec(th, s, t, pc, ctx.choice, event.as_mut())? {
                th.set_pc(s, t, next);
                ctx.push(event);
                return Ok(());
            }
        }
        let mut next = pc + 1;
        match op {
            Op::Assign { dst, value } => {
                // An assignment nobody reads again is skipped: its operands
                // may already be cleared as dead (see `Liveness`).
                if th.is_live(pc + 1, *dst) {
                    let v = th.eval(value, s, t)?;
                    th.write_local(s, t, *dst, v);
                }
            }
            Op::Load { .. } | Op::Store { .. } | Op::Atomic { .. } => {
                sc_access(th, s, t, op, event.as_mut())?
            }
            Op::Fence(_) | Op::Backoff => {}
            Op::Progress => ctx.progressed = true,
            Op::SyncThreads | Op::KernelBoundary | Op::Exit => {
                return self.exec_sync(s, (t, pc), event, ctx);
            }
            Op::NamedBarrier { id, arrive, .. } => {
                self.bars.arrive((th, &self.memory), s, t, (*id, *arrive));
                if *arrive {
                    th.set_pc(s, t, next);
                }
                let released = self.bars.release((th, &self.memory), s, t)?;
                if let Some(e) = event.as_mut().filter(|_| released > 1) {
                    e.note = Some(format!("{released} threads pass barrier {id} together"));
                }
                ctx.push(event);
                return Ok(());
            }
            Op::Assert { cond, message } => {
                if th.eval(cond, s, t)? == 0 {
                    return Err(Violation {
                        kind: ViolationKind::Assertion,
                        property: "assert",
                        message: message.clone(),
                        pc: Some(pc),
                    });
                }
            }
            Op::CriticalEnter { weight } => {
                ctx.progressed = true;
                if let Some(cap) = self.prog.checks.capacity {
                    let w = th.eval(weight, s, t)?.max(0);
                    properties::enter_critical(th, s, t, (w, cap))?;
                }
            }
            Op::CriticalExit => {
                if self.prog.checks.capacity.is_some() {
                    s[th.layout.thread(t, CRITICAL)] = 0;
                }
            }
            Op::PhaseEnter => {
                if self.prog.checks.barrier {
                    s[th.layout.thread(t, PHASES)] += 1;
                }
            }
            Op::PhaseExit => {
                ctx.progressed = true;
                if self.prog.checks.barrier {
                    properties::leave_phase(th, s, t)?;
                }
            }
            Op::Branch {
                cond,
                then_pc,
                else_pc,
            } => {
                next = if th.eval(cond, s, t)? != 0 {
                    *then_pc
                } else {
                    *else_pc
                };
            }
            Op::Jump { target } => next = *target,
            Op::SyncWarp { .. } | Op::Vote { .. } | Op::ActiveMask { .. } | Op::Shuffle { .. } => {
                return self
                    .warps
                    .its_collective((th, &self.memory), s, (t, pc), event, ctx);
            }
            Op::LockBitTry { pred, value, loc } => {
                self.lock_bits
                    .try_take(th, s, t, (*pred, *value, loc), event.as_mut())?
            }
            Op::LockBitRelease { loc, value } => {
                self.lock_bits
                    .release(th, s, t, loc, value, event.as_mut())?
            }
        }
        th.set_pc(s, t, next);
        ctx.push(event);
        Ok(())
    }

    /// `__syncthreads()`, the kernel boundary, or the end of the harness:
    /// the thread waits (or finishes), and the barriers its arrival
    /// completes release their groups.
    fn exec_sync(
        &self,
        s: &mut [u32],
        (t, pc): (usize, Pc),
        mut event: Option<Event>,
        ctx: &mut StepCtx,
    ) -> Result<(), Violation> {
        let th = &self.threads;
        match self.prog.code[pc as usize].op {
            Op::Exit => {
                self.warps.check_exit(th, s, t)?;
                ctx.progressed = true;
                th.set_pc(s, t, FINISHED);
            }
            ref op => {
                if matches!(op, Op::SyncThreads) {
                    self.warps.check_barrier_arrival(th, s, t)?;
                }
                // The thread stays at the barrier until its group is released.
                s[th.layout.thread(t, FLAGS)] |= WAITING_BARRIER;
            }
        }
        if let Some(released) = release_barriers((th, &self.memory), s, t) {
            if let Some(e) = &mut event {
                e.note = released;
            }
        }
        // An exit lowers the quorum of a named barrier over the block.
        self.bars.release((th, &self.memory), s, t)?;
        ctx.push(event);
        Ok(())
    }
}

/// A load, store or atomic under sequential consistency: it acts on the
/// memory words of the state.
fn sc_access(
    th: &Threads,
    s: &mut [u32],
    t: usize,
    op: &Op,
    mut event: Option<&mut Event>,
) -> Result<(), Violation> {
    let access = op.access().expect("a memory access");
    let MemAccess { loc, .. } = access;
    let ty = th.prog.vars[loc.var as usize].ty;
    // Operands are evaluated before the address, as the step always did.
    let mut args = [0i64; 2];
    match op {
        Op::Store { value, .. } => args[0] = th.eval(value, s, t)?,
        Op::Atomic { operands, .. } => {
            for (a, e) in args.iter_mut().zip(operands) {
                *a = th.eval(e, s, t)?;
            }
        }
        _ => {}
    }
    let (w, index) = th.address(s, t, loc)?;
    let name = |th: &Threads| th.location_name(t, loc, index);
    let old = state::load(s, w, ty);
    match op {
        Op::Load { dst, .. } => {
            th.write_local(s, t, *dst, old);
            if let Some(e) = event.as_mut() {
                e.reads.push((name(th), old));
            }
        }
        Op::Store { .. } => {
            state::store(s, w, ty, args[0]);
            if let Some(e) = event.as_mut() {
                e.writes.push((name(th), state::load(s, w, ty)));
            }
        }
        Op::Atomic { dst, op, .. } => {
            let new = atomic_result(*op, ty, old, args);
            if let Some(n) = new {
                state::store(s, w, ty, n);
            }
            if let Some(d) = dst {
                th.write_local(s, t, *d, old);
            }
            if let Some(e) = event.as_mut() {
                e.reads.push((name(th), old));
                if new.is_some() {
                    e.writes.push((name(th), state::load(s, w, ty)));
                }
            }
        }
        _ => unreachable!("a memory access"),
    }
    Ok(())
}

/// Releases the barriers that `t`'s arrival (or exit) completes: its
/// block's `__syncthreads()` when every unfinished thread of the block
/// waits there, the kernel boundary when every unfinished thread of the
/// grid waits at one. Returns `Some` when it released anyone, with a
/// note for the trace when more than one thread was waiting.
fn release_barriers(parts: (&Threads, &Memory), s: &mut [u32], t: usize) -> Option<Option<String>> {
    let th = parts.0;
    let block = th.layout.block_threads(t);
    if let Some(n) = release_group(parts, s, block, |op| matches!(op, Op::SyncThreads)) {
        return Some((n > 1).then(|| {
            format!(
                "the {n} live threads of {} pass __syncthreads() together",
                crate::ir::block_label(&th.prog.launches, th.layout.block_of(t) as u32)
            )
        }));
    }
    let grid = 0..th.count();
    let n = release_group(parts, s, grid, |op| matches!(op, Op::KernelBoundary))?;
    Some((n > 1).then(|| format!("the kernel ends: all {n} live threads start the next kernel")))
}

/// If every unfinished thread of `group` waits at an instruction that
/// `is_barrier` accepts, moves them all past it; returns how many.
fn release_group(
    (th, memory): (&Threads, &Memory),
    s: &mut [u32],
    group: std::ops::Range<usize>,
    is_barrier: impl Fn(&Op) -> bool,
) -> Option<usize> {
    let mut waiting = 0;
    for u in group.clone() {
        if th.is_finished(s, u) {
            continue;
        }
        let at = &th.prog.code[th.pc(s, u) as usize].op;
        if !th.is_waiting_at_barrier(s, u) || !is_barrier(at) {
            return None;
        }
        waiting += 1;
    }
    if waiting == 0 {
        return None;
    }
    if let Some(w) = memory.ptx() {
        w.synchronize(th, s, group.clone());
    }
    for u in group {
        if !th.is_finished(s, u) {
            s[th.layout.thread(u, FLAGS)] &= !WAITING_BARRIER;
            let pc = th.pc(s, u);
            th.set_pc(s, u, pc + 1);
        }
    }
    Some(waiting)
}

//! One step of one thread under sequential consistency: the visible
//! instruction at its pc, then (when fusing) the thread-local instructions
//! after it.

use super::eval::runtime_error;
use super::state::{CRITICAL, FINISHED, FLAGS, PC, PHASES, WAITING_BARRIER};
use super::{Event, Model, Violation, ViolationKind};
use crate::ir::{from_raw, to_raw, AtomicOp, Loc, MemAccess, Op, Pc};

/// What a step reports besides its successor state.
#[derive(Default)]
pub struct StepCtx<'a> {
    /// When set, every executed instruction is recorded (counterexamples).
    pub events: Option<&'a mut Vec<Event>>,
    /// Set when the moving thread passed a progress point: `progress;`,
    /// entering a critical section, leaving a phase (passing the barrier
    /// under test), or finishing the harness. `__syncthreads()` is not one:
    /// the seeds' spin loops pass it on every failed attempt.
    pub progressed: bool,
    /// Under `ptx`: which alternative the step's memory instruction takes.
    pub choice: u32,
}

impl Model<'_> {
    /// Runs thread `t` for one step in place.
    pub(super) fn run_thread(
        &self,
        s: &mut [u32],
        t: usize,
        ctx: &mut StepCtx,
    ) -> Result<(), Violation> {
        if self.warps.is_lockstep() {
            return self.run_warp(s, t, ctx);
        }
        let first_event = ctx.events.as_ref().map_or(0, |e| e.len());
        let result = self.run_thread_its(s, t, ctx);
        if let (Some(events), Some(lane)) = (ctx.events.as_mut(), self.own_lane_mask(t)) {
            for e in &mut events[first_event..] {
                e.active.get_or_insert(lane);
            }
        }
        result
    }

    /// One step of thread `t` on its own (independent thread scheduling).
    fn run_thread_its(&self, s: &mut [u32], t: usize, ctx: &mut StepCtx) -> Result<(), Violation> {
        let mut executed = 0;
        loop {
            let pc = self.pc(s, t);
            self.exec(s, t, pc, ctx).map_err(|mut v| {
                v.pc.get_or_insert(pc);
                v
            })?;
            executed += 1;
            ctx.choice = 0;
            let next = self.pc(s, t);
            let stop = !self.options.fuse_local_steps
                || next == FINISHED
                || self.is_blocked(s, t)
                || !self.invisible[next as usize]
                || executed >= super::MAX_FUSED;
            if stop {
                break;
            }
        }
        self.clear_dead_locals(s, t);
        if let Some(w) = &self.ptx_memory {
            w.normalize(self, s);
        }
        Ok(())
    }

    /// Executes the single instruction at `pc` of thread `t`, unrecorded.
    pub(super) fn exec_one(&self, s: &mut [u32], t: usize, pc: Pc) -> Result<(), Violation> {
        self.exec(s, t, pc, &mut StepCtx::default())
    }

    pub(super) fn set_pc(&self, s: &mut [u32], t: usize, pc: Pc) {
        s[self.layout.thread(t, PC)] = pc;
    }

    pub(super) fn write_local(&self, s: &mut [u32], t: usize, l: u32, value: i64) {
        let ty = self.prog.locals[l as usize].ty;
        s[self.layout.local(t, l)] = to_raw(ty, value);
    }

    /// Resolves a location to its word in the state.
    pub(super) fn address(
        &self,
        s: &[u32],
        t: usize,
        loc: &Loc,
    ) -> Result<(usize, u32), Violation> {
        let index = match &loc.index {
            Some(i) => self.index(loc.var, self.eval(i, s, t)?)?,
            None => 0,
        };
        Ok((
            self.layout
                .mem(self.prog, loc.var, index, self.layout.block_of(t)),
            index,
        ))
    }

    pub(super) fn location_name(&self, t: usize, loc: &Loc, index: u32) -> String {
        self.prog
            .location_name(loc.var, index, self.layout.block_of(t) as u32)
    }

    pub(super) fn exec(
        &self,
        s: &mut [u32],
        t: usize,
        pc: Pc,
        ctx: &mut StepCtx,
    ) -> Result<(), Violation> {
        let instr = &self.prog.code[pc as usize];
        let mut event = ctx.events.as_ref().map(|_| Event {
            thread: t as u32,
            pc,
            ..Event::default()
        });
        if let Some(w) = &self.ptx_memory {
            if let Some(next) = w.exec(self, s, t, pc, ctx.choice, event.as_mut())? {
                self.set_pc(s, t, next);
                if let Some(e) = event {
                    ctx.events.as_mut().expect("event implies recorder").push(e);
                }
                return Ok(());
            }
        }
        let mut next = pc + 1;
        match &instr.op {
            Op::Assign { dst, value } => {
                // An assignment nobody reads again is skipped: its operands
                // may already be cleared as dead (see `Liveness`).
                if self.is_live(pc + 1, *dst) {
                    let v = self.eval(value, s, t)?;
                    self.write_local(s, t, *dst, v);
                }
            }
            Op::Load {
                dst,
                access: MemAccess { loc, .. },
            } => {
                let (w, index) = self.address(s, t, loc)?;
                let v = from_raw(self.prog.vars[loc.var as usize].ty, s[w]);
                self.write_local(s, t, *dst, v);
                if let Some(e) = &mut event {
                    e.reads.push((self.location_name(t, loc, index), v));
                }
            }
            Op::Store {
                access: MemAccess { loc, .. },
                value,
            } => {
                let v = self.eval(value, s, t)?;
                let (w, index) = self.address(s, t, loc)?;
                let ty = self.prog.vars[loc.var as usize].ty;
                s[w] = to_raw(ty, v);
                if let Some(e) = &mut event {
                    e.writes
                        .push((self.location_name(t, loc, index), from_raw(ty, s[w])));
                }
            }
            Op::Atomic {
                dst,
                op,
                access: MemAccess { loc, .. },
                operands,
            } => {
                let mut args = [0i64; 2];
                for (a, e) in args.iter_mut().zip(operands) {
                    *a = self.eval(e, s, t)?;
                }
                let (w, index) = self.address(s, t, loc)?;
                let ty = self.prog.vars[loc.var as usize].ty;
                let old = from_raw(ty, s[w]);
                let new = atomic_result(*op, ty.bits(), old, args);
                if let Some(n) = new {
                    s[w] = to_raw(ty, n);
                }
                if let Some(d) = dst {
                    self.write_local(s, t, *d, old);
                }
                if let Some(e) = &mut event {
                    let name = self.location_name(t, loc, index);
                    e.reads.push((name.clone(), old));
                    if new.is_some() {
                        e.writes.push((name, from_raw(ty, s[w])));
                    }
                }
            }
            Op::Fence(_) | Op::Backoff => {}
            Op::Progress => ctx.progressed = true,
            Op::SyncThreads | Op::KernelBoundary => {
                if matches!(instr.op, Op::SyncThreads) {
                    self.check_barrier_arrival(s, t)?;
                }
                s[self.layout.thread(t, FLAGS)] |= WAITING_BARRIER;
                // The thread stays at the barrier until its group is released.
                if let Some(released) = self.release_barriers(s, t) {
                    if let Some(e) = &mut event {
                        e.note = released;
                    }
                }
                if let Some(e) = event {
                    ctx.events.as_mut().expect("event implies recorder").push(e);
                }
                return Ok(());
            }
            Op::Assert { cond, message } => {
                if self.eval(cond, s, t)? == 0 {
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
                    let w = self.eval(weight, s, t)?.max(0);
                    self.enter_critical(s, t, w, cap)?;
                }
            }
            Op::CriticalExit => {
                if self.prog.checks.capacity.is_some() {
                    s[self.layout.thread(t, CRITICAL)] = 0;
                }
            }
            Op::PhaseEnter => {
                if self.prog.checks.barrier {
                    s[self.layout.thread(t, PHASES)] += 1;
                }
            }
            Op::PhaseExit => {
                ctx.progressed = true;
                if self.prog.checks.barrier {
                    self.leave_phase(s, t)?;
                }
            }
            Op::Branch {
                cond,
                then_pc,
                else_pc,
            } => {
                next = if self.eval(cond, s, t)? != 0 {
                    *then_pc
                } else {
                    *else_pc
                };
            }
            Op::Jump { target } => next = *target,
            Op::Exit => {
                self.check_exit(s, t)?;
                ctx.progressed = true;
                next = FINISHED;
                self.set_pc(s, t, FINISHED);
                if let Some(released) = self.release_barriers(s, t) {
                    if let Some(e) = &mut event {
                        e.note = released;
                    }
                }
            }
            Op::SyncWarp { .. } | Op::Vote { .. } | Op::ActiveMask { .. } => {
                return self.its_collective(s, t, pc, event, ctx);
            }
            Op::LockBitTry { pred, value, loc } => {
                self.lock_bit_try(s, t, (*pred, *value, loc), event.as_mut())?
            }
            Op::LockBitRelease { loc, value } => {
                self.lock_bit_release(s, t, loc, value, event.as_mut())?
            }
        }
        self.set_pc(s, t, next);
        if let Some(e) = event {
            ctx.events.as_mut().expect("event implies recorder").push(e);
        }
        Ok(())
    }

    /// Releases the barriers that `t`'s arrival (or exit) completes: its
    /// block's `__syncthreads()` when every unfinished thread of the block
    /// waits there, the kernel boundary when every unfinished thread of the
    /// grid waits at one. Returns `Some` when it released anyone, with a
    /// note for the trace when more than one thread was waiting.
    fn release_barriers(&self, s: &mut [u32], t: usize) -> Option<Option<String>> {
        let block = self.layout.block_threads(t);
        if let Some(n) = self.release_group(s, block, |op| matches!(op, Op::SyncThreads)) {
            return Some((n > 1).then(|| {
                format!(
                    "the {n} live threads of block {} pass __syncthreads() together",
                    self.layout.block_of(t)
                )
            }));
        }
        let grid = 0..self.layout.threads;
        let n = self.release_group(s, grid, |op| matches!(op, Op::KernelBoundary))?;
        Some(
            (n > 1).then(|| format!("the kernel ends: all {n} live threads start the next kernel")),
        )
    }

    /// If every unfinished thread of `group` waits at an instruction that
    /// `is_barrier` accepts, moves them all past it; returns how many.
    fn release_group(
        &self,
        s: &mut [u32],
        group: std::ops::Range<usize>,
        is_barrier: impl Fn(&Op) -> bool,
    ) -> Option<usize> {
        let mut waiting = 0;
        for u in group.clone() {
            if self.is_finished(s, u) {
                continue;
            }
            let at = &self.prog.code[self.pc(s, u) as usize].op;
            if !self.is_waiting_at_barrier(s, u) || !is_barrier(at) {
                return None;
            }
            waiting += 1;
        }
        if waiting == 0 {
            return None;
        }
        if let Some(w) = &self.ptx_memory {
            w.synchronize(self, s, group.clone());
        }
        for u in group {
            if !self.is_finished(s, u) {
                s[self.layout.thread(u, FLAGS)] &= !WAITING_BARRIER;
                let pc = self.pc(s, u);
                self.set_pc(s, u, pc + 1);
            }
        }
        Some(waiting)
    }

    fn enter_critical(
        &self,
        s: &mut [u32],
        t: usize,
        weight: i64,
        cap: i64,
    ) -> Result<(), Violation> {
        let mut inside = vec![];
        let mut total = weight;
        for u in 0..self.layout.threads {
            let w = s[self.layout.thread(u, CRITICAL)];
            if u != t && w > 0 {
                total = total.saturating_add(i64::from(w - 1));
                inside.push(u);
            }
        }
        // The state keeps `weight + 1` in a word: a larger weight that the
        // capacity admits cannot be counted.
        let stored = weight.min(i64::from(u32::MAX - 1)) as u32;
        s[self.layout.thread(t, CRITICAL)] = stored + 1;
        if total <= cap {
            if i64::from(stored) != weight {
                return Err(runtime_error(&format!(
                    "critical section weight {weight} is larger than {} (a count of slots held)",
                    u32::MAX - 1
                )));
            }
            return Ok(());
        }
        let others: Vec<String> = inside.iter().map(|u| self.thread_name(*u)).collect();
        let message = if self.prog.checks.mutual_exclusion && cap == 1 {
            format!(
                "{} entered the critical section while {} {} inside",
                self.thread_name(t),
                others.join(", "),
                if others.len() == 1 { "is" } else { "are" }
            )
        } else {
            format!(
                "{} entered the critical section with weight {weight}: total weight {total} exceeds capacity {cap} (inside: {})",
                self.thread_name(t),
                others.join(", ")
            )
        };
        Err(Violation {
            kind: ViolationKind::MutualExclusion,
            property: "capacity",
            message,
            pc: None,
        })
    }

    /// Barrier safety: nobody leaves its k-th phase before everyone entered theirs.
    fn leave_phase(&self, s: &[u32], t: usize) -> Result<(), Violation> {
        let k = s[self.layout.thread(t, PHASES)];
        for u in 0..self.layout.threads {
            if !self.takes_part(u) {
                continue;
            }
            let entered = s[self.layout.thread(u, PHASES)];
            if entered < k {
                return Err(Violation {
                    kind: ViolationKind::Assertion,
                    property: "barrier",
                    message: format!(
                        "barrier safety: {} left barrier phase {k} before {} arrived at it (it has entered {entered} phase{})",
                        self.thread_name(t),
                        self.thread_name(u),
                        if entered == 1 { "" } else { "s" }
                    ),
                    pc: None,
                });
            }
        }
        Ok(())
    }

    pub(super) fn check_invariants(&self, s: &[u32]) -> Result<(), Violation> {
        for (inv, span) in &self.prog.checks.invariants {
            if self.eval(inv, s, 0)? == 0 {
                return Err(Violation {
                    kind: ViolationKind::Assertion,
                    property: "invariant",
                    message: format!(
                        "invariant `{}` does not hold",
                        self.prog.source.snippet(*span)
                    ),
                    pc: None,
                });
            }
        }
        Ok(())
    }

    /// Whether thread `t` runs the harness body.
    pub fn takes_part(&self, t: usize) -> bool {
        self.prog.participants == crate::spec::ast::Participants::All
            || t.is_multiple_of(self.layout.threads_per_block)
    }

    /// `block 1` when one thread per block takes part, else `block 1 thread 3`.
    pub fn thread_name(&self, t: usize) -> String {
        let tpb = self.layout.threads_per_block;
        if self.prog.participants == crate::spec::ast::Participants::Master || tpb == 1 {
            format!("block {}", t / tpb)
        } else {
            format!("block {} thread {}", t / tpb, t % tpb)
        }
    }
}

/// The value an atomic leaves in memory (`None`: unchanged), following CUDA.
pub(super) fn atomic_result(op: AtomicOp, bits: u32, old: i64, args: [i64; 2]) -> Option<i64> {
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let unsigned = |v: i64| (v as u64) & mask;
    let [a, b] = args;
    Some(match op {
        AtomicOp::Cas => {
            if old == a || unsigned(old) == unsigned(a) {
                b
            } else {
                return None;
            }
        }
        AtomicOp::Exch => a,
        AtomicOp::Add => old.wrapping_add(a),
        AtomicOp::Sub => old.wrapping_sub(a),
        AtomicOp::Or => old | a,
        AtomicOp::And => old & a,
        AtomicOp::Xor => old ^ a,
        AtomicOp::Max => old.max(a),
        AtomicOp::Min => old.min(a),
        // CUDA: ((old >= limit) ? 0 : (old + 1)), unsigned comparison.
        AtomicOp::Inc => {
            if unsigned(old) >= unsigned(a) {
                0
            } else {
                old + 1
            }
        }
        // CUDA: (((old == 0) || (old > limit)) ? limit : (old - 1)).
        AtomicOp::Dec => {
            if unsigned(old) == 0 || unsigned(old) > unsigned(a) {
                a
            } else {
                old - 1
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_inc_and_dec_follow_cuda() {
        assert_eq!(atomic_result(AtomicOp::Inc, 32, 3, [3, 0]), Some(0));
        assert_eq!(atomic_result(AtomicOp::Inc, 32, 2, [3, 0]), Some(3));
        assert_eq!(atomic_result(AtomicOp::Dec, 32, 0, [5, 0]), Some(5));
        assert_eq!(atomic_result(AtomicOp::Dec, 32, 9, [5, 0]), Some(5));
        assert_eq!(atomic_result(AtomicOp::Dec, 32, 4, [5, 0]), Some(3));
    }

    #[test]
    fn cas_compares_at_the_variable_width() {
        // An i32 holding -1 equals the u32 pattern 0xFFFFFFFF.
        assert_eq!(
            atomic_result(AtomicOp::Cas, 32, -1, [0xFFFF_FFFF, 7]),
            Some(7)
        );
        assert_eq!(atomic_result(AtomicOp::Cas, 32, 1, [0, 7]), None);
    }
}

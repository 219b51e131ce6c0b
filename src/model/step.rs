//! One step of the transition system: the unit an action names (a thread,
//! or under lockstep its warp) runs its visible instruction and, when
//! fusing, the thread-local instructions after it; then the state is
//! tidied (dead locals cleared, the memory model's canonical form).

use super::exec::StepCtx;
use super::memory::MemoryEffect;
use super::simt::lanes;
use super::simt::Warps;
use super::{thread_of, Event, Model, Violation, MAX_FUSED};
use crate::ir::Op;

/// What moves in a step: a thread, or under lockstep a warp.
#[derive(Clone, Copy)]
enum Unit {
    Thread(usize),
    Warp(usize),
}

/// A step's outcome with its [`StepLabels`].
pub type Labeled = (Result<(), Violation>, StepLabels);

/// What the liveness checks need to know of a step besides its successor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepLabels {
    /// The moving thread passed a progress point.
    pub progressed: bool,
    /// Under `ptx`: the access the step made, and whether it read or wrote
    /// the newest write of its location (memory fairness).
    pub memory: Option<MemoryEffect>,
}

impl Model<'_> {
    /// Takes action `a` from `s`, recording what happened into `events`.
    pub fn step_recorded(
        &self,
        s: &[u32],
        a: u32,
        out: &mut [u32],
        events: &mut Vec<Event>,
    ) -> Result<(), Violation> {
        out.copy_from_slice(s);
        let mut ctx = StepCtx {
            events: Some(events),
            ..StepCtx::default()
        };
        self.run_action(out, a, &mut ctx)
    }

    /// Takes action `a` from `s`, leaving the `ptx` model's views and
    /// histories out of canonical form: for a caller that compares only
    /// the other words (the await reduction's stutters), which the
    /// canonical form does not change.
    pub fn step_unnormalized(&self, s: &[u32], a: u32, out: &mut [u32]) -> Result<(), Violation> {
        out.copy_from_slice(s);
        let mut ctx = StepCtx {
            unnormalized: true,
            ..StepCtx::default()
        };
        self.run_action(out, a, &mut ctx)
    }

    /// Runs `schedule` from the initial state: the state it ends in, or the
    /// fault it raises (the run stops there, in the state before).
    pub fn run_schedule(&self, schedule: &[u32]) -> (Vec<u32>, Option<Violation>) {
        use crate::explore::TransitionSystem;
        let mut state = vec![0u32; self.state_words()];
        self.initial_state(&mut state);
        let mut next = state.clone();
        for &a in schedule {
            match self.step(&state, a, &mut next) {
                Ok(()) => std::mem::swap(&mut state, &mut next),
                Err(v) => return (state, Some(v)),
            }
        }
        (state, None)
    }

    /// Takes action `a` from `s`; also says whether it passed a progress
    /// point and what it did to memory (for the liveness checks).
    pub fn step_labels(&self, s: &[u32], a: u32, out: &mut [u32]) -> Labeled {
        let memory = self
            .memory
            .ptx()
            .and_then(|w| w.effect(&self.threads, s, a));
        out.copy_from_slice(s);
        let mut ctx = StepCtx::default();
        let result = self.run_action(out, a, &mut ctx);
        let labels = StepLabels {
            progressed: ctx.progressed,
            memory,
        };
        (result, labels)
    }

    /// Runs action `a` in place: its unit's step, with the choice (under
    /// `ptx`) the action carries.
    pub(crate) fn run_action(
        &self,
        s: &mut [u32],
        a: u32,
        ctx: &mut StepCtx,
    ) -> Result<(), Violation> {
        let t = thread_of(a);
        ctx.choice = a >> 16;
        if self.warps.is_lockstep() {
            let w = self.warps.warp_of(t);
            if self.options.track_started {
                for u in self.warps.threads(w) {
                    if !self.threads.is_finished(s, u) {
                        self.threads.mark_run(s, u);
                    }
                }
            }
            return self.fused_step(s, Unit::Warp(w), ctx);
        }
        if self.options.track_started {
            self.threads.mark_run(s, t);
        }
        let first_event = ctx.events.as_ref().map_or(0, |e| e.len());
        let result = self.fused_step(s, Unit::Thread(t), ctx);
        if let (Some(events), Some(lane)) = (ctx.events.as_mut(), self.warps.own_lane_mask(t)) {
            for e in &mut events[first_event..] {
                e.active.get_or_insert(lane);
            }
        }
        result
    }

    /// One step of `unit`: its instruction, then (when fusing) the
    /// thread-local ones after it.
    fn fused_step(&self, s: &mut [u32], unit: Unit, ctx: &mut StepCtx) -> Result<(), Violation> {
        let th = &self.threads;
        let mut executed = 0;
        loop {
            self.instruction(s, unit, ctx)?;
            executed += 1;
            ctx.choice = 0;
            let Some(lead) = self.lead(s, unit) else {
                break;
            };
            let stop = !self.options.fuse_local_steps
                || th.is_blocked(s, lead)
                || !self.is_fused(th.pc(s, lead))
                || executed >= MAX_FUSED;
            if stop {
                break;
            }
        }
        self.clear_dead_locals(s, unit);
        if let Some(w) = self.memory.ptx().filter(|_| !ctx.unnormalized) {
            w.normalize(th, s, &self.facts);
        }
        Ok(())
    }

    /// The initial state's units run their leading thread-local
    /// instructions, so every step begins at a visible instruction (under
    /// lockstep, once the warps' stacks are set up).
    pub(super) fn settle_all(&self, s: &mut [u32]) {
        let th = &self.threads;
        let units: Vec<Unit> = if self.warps.is_lockstep() {
            self.warps.init_stacks(th, s);
            (0..self.warps.count(th.count())).map(Unit::Warp).collect()
        } else {
            (0..th.count()).map(Unit::Thread).collect()
        };
        if self.options.fuse_local_steps {
            for unit in units {
                self.settle(s, unit);
            }
        }
    }

    /// Runs the thread-local instructions at the start of `unit`'s program.
    /// Stops before one that would fail: the failure is then reported by
    /// the step that runs it.
    fn settle(&self, s: &mut [u32], unit: Unit) {
        let mut scratch = s.to_vec();
        for _ in 0..MAX_FUSED {
            let Some(lead) = self.lead(s, unit) else {
                break;
            };
            if !self.is_fused(self.threads.pc(s, lead)) {
                break;
            }
            scratch.copy_from_slice(s);
            if self
                .instruction(&mut scratch, unit, &mut StepCtx::default())
                .is_err()
            {
                break;
            }
            s.copy_from_slice(&scratch);
        }
        self.clear_dead_locals(s, unit);
    }

    /// The thread whose pc says what `unit` runs next (`None`: finished).
    fn lead(&self, s: &[u32], unit: Unit) -> Option<usize> {
        match unit {
            Unit::Thread(t) => (!self.threads.is_finished(s, t)).then_some(t),
            Unit::Warp(w) => self.warps.leader(s, w),
        }
    }

    /// One instruction of `unit`.
    fn instruction(&self, s: &mut [u32], unit: Unit, ctx: &mut StepCtx) -> Result<(), Violation> {
        match unit {
            Unit::Thread(t) => {
                let pc = self.threads.pc(s, t);
                self.exec(s, t, pc, ctx).map_err(|mut v| {
                    v.pc.get_or_insert(pc);
                    v
                })
            }
            Unit::Warp(w) => self.warp_instruction(s, w, ctx),
        }
    }

    /// Zeroes the dead locals of `unit`'s threads.
    fn clear_dead_locals(&self, s: &mut [u32], unit: Unit) {
        let threads = match unit {
            Unit::Thread(t) => t..t + 1,
            Unit::Warp(w) => self.warps.threads(w),
        };
        for t in threads {
            self.threads.clear_dead_locals(s, t);
        }
    }

    /// Under lockstep, one action per warp whose active lanes can run:
    /// its lowest active lane, with as choice each order in which its lanes
    /// may reach memory (`simt::lanes`).
    pub(super) fn warp_actions(&self, s: &[u32], out: &mut Vec<u32>) {
        let th = &self.threads;
        for w in 0..self.warps.count(th.count()) {
            if let Some(lead) = self.warps.leader(s, w) {
                if self.occupancy.is_resident(th, s, lead) && !th.is_blocked(s, lead) {
                    let orders = self.lane_orders(s, w);
                    // Past the limit, one action: its step reports the error.
                    let orders = if orders > lanes::MAX_ORDERS {
                        1
                    } else {
                        orders
                    };
                    out.extend((0..orders as u32).map(|k| lead as u32 | k << 16));
                }
            }
        }
    }

    /// How many orders of its lanes warp `w`'s next instruction has.
    fn lane_orders(&self, s: &[u32], w: usize) -> usize {
        let (th, warps) = (&self.threads, &self.warps);
        let Some(lead) = warps.leader(s, w) else {
            return 1;
        };
        let pc = th.pc(s, lead);
        if !matches!(
            self.prog.code[pc as usize].op,
            Op::Store { .. } | Op::Atomic { .. }
        ) {
            return 1;
        }
        // The lanes as the step will see them (after a barrier another
        // warp released moved some on).
        let mut settled = s.to_vec();
        warps.reconverge(th, &mut settled, w);
        let Some((mask, _)) = warps.top_entry(&settled, w) else {
            return 1;
        };
        let lanes: Vec<usize> = warps.lanes_of(w, mask).collect();
        let pc = th.pc(&settled, lanes[0]);
        lanes::count(&lanes::groups(th, &settled, &lanes, pc))
    }

    /// Under lockstep: the instruction at the active lanes' pc, for all of
    /// them; then the stack diverges or reconverges.
    fn warp_instruction(
        &self,
        s: &mut [u32],
        w: usize,
        ctx: &mut StepCtx,
    ) -> Result<(), Violation> {
        let (th, warps) = (&self.threads, &self.warps);
        // A barrier released by another warp moved these lanes on.
        warps.reconverge(th, s, w);
        let (mask, _) = warps
            .top_entry(s, w)
            .expect("a moving warp has active lanes");
        let lanes: Vec<usize> = warps.lanes_of(w, mask).collect();
        let pc = th.pc(s, lanes[0]);
        let first_event = ctx.events.as_ref().map_or(0, |e| e.len());
        let result = match &self.prog.code[pc as usize].op {
            op if op.is_warp_collective() => {
                warps.lockstep_collective(th, s, (w, mask), (&lanes, pc), ctx)
            }
            _ => {
                let groups = lanes::groups(th, s, &lanes, pc);
                match lanes::order(&lanes, &groups, ctx.choice) {
                    Ok(order) => {
                        let note = (order != lanes).then(|| lane_order_note(warps, &order));
                        let result = order.iter().try_for_each(|&u| self.exec(s, u, pc, ctx));
                        if let (Some(events), Some(note)) = (ctx.events.as_mut(), note) {
                            if let Some(e) = events.get_mut(first_event) {
                                e.note = Some(match e.note.take() {
                                    Some(n) => format!("{note}; {n}"),
                                    None => note,
                                });
                            }
                        }
                        result
                    }
                    Err(e) => Err(e),
                }
            }
        };
        if let Some(events) = ctx.events.as_mut() {
            for e in &mut events[first_event..] {
                e.active = Some(mask);
            }
        }
        result.map_err(|mut v| {
            v.pc.get_or_insert(pc);
            v
        })?;
        warps.after_instruction(th, s, w, (mask, pc))
    }
}

/// The trace note of a warp step whose lanes reached memory out of lane
/// order.
fn lane_order_note(warps: &Warps, order: &[usize]) -> String {
    let lanes: Vec<String> = order
        .iter()
        .map(|&u| warps.lane_of(u).to_string())
        .collect();
    format!("the lanes reach memory in the order {}", lanes.join(", "))
}

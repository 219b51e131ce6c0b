//! SIMT warps (`--simt`).
//!
//! **`its`** (Volta and later, independent thread scheduling; the default):
//! every thread has its own pc and the threads of a warp interleave as
//! freely as threads of different warps. A warp-collective instruction
//! (`__syncwarp(mask)`, `__any_sync`, `__all_sync`, `__ballot_sync`) makes
//! its thread wait (flag `WAITING_WARP`) until every live lane the mask
//! names has arrived at one; the last to arrive releases them all and the
//! vote is taken over them. `__activemask()` answers the lanes of the warp
//! at the same instruction (hardware may answer any set containing the
//! caller; this is the converged answer).
//!
//! **`lockstep`** (before Volta): a warp executes one instruction at a time
//! for all its active lanes (memory accesses in ascending lane order, so
//! lanes contending in one atomic are served in lane order). A branch the
//! active lanes disagree on splits them on the warp's reconvergence stack,
//! one side runs while the other is masked off, and they meet again at the
//! branch's immediate post-dominator (`ir::cfg`); loops diverge and
//! reconverge the same way. Per warp the state holds
//!
//! ```text
//! [ depth | mask 0 | rpc 0 | mask 1 | rpc 1 | ... ]   (entry 0 at the bottom)
//! ```
//!
//! The top entry's lanes run, all at the same pc; an entry is popped when
//! its lanes reach its reconvergence pc `rpc`. When the top entry `(M, R)`
//! diverges at a branch with post-dominator `r`, it stays as the entry that
//! resumes at `r` (dropped when `r == R`: the entry below already waits
//! there, which keeps loops from growing the stack), then the side that
//! runs second and the side that runs first are pushed with rpc `r`; a side
//! already at `r` is not pushed, it waits there.
//!
//! **Branch order.** Which side runs first is fixed by the compiler on real
//! hardware. The rule here: `then-first` (default) runs the lanes for which
//! the condition holds first (for a loop: the lanes that stay in it);
//! `else-first` the others. `--branch-order` picks one, and reports and
//! counterexamples name the order they used.

use super::eval::runtime_error;
use super::exec::StepCtx;
use super::named::named_choices;
use super::state::{Layout, FLAGS, WAITING_BARRIER, WAITING_WARP};
use super::{Event, Model, ModelOptions, Violation, ViolationKind};
use crate::ir::{Op, Pc, Program, VoteKind};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SimtMode {
    /// Independent thread scheduling (Volta and later).
    #[default]
    Its,
    /// One instruction per warp, reconvergence stack (before Volta).
    Lockstep,
}

named_choices!(SimtMode, "SIMT mode", {
    Its => "its",
    Lockstep => "lockstep",
});

/// Which side of a divergent branch a lockstep warp runs first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BranchOrder {
    #[default]
    ThenFirst,
    ElseFirst,
}

named_choices!(BranchOrder, "branch order", {
    ThenFirst => "then-first",
    ElseFirst => "else-first",
});

/// `rpc` of the bottom entry: the warp never reconverges below it.
const NO_RPC: u32 = u32::MAX;
/// Most entries a reconvergence stack may hold.
const MAX_DEPTH_CAP: usize = 32;

/// The warps of a launch and, under lockstep, where their stacks live.
pub struct Warps {
    pub mode: SimtMode,
    pub order: BranchOrder,
    size: usize,
    per_block: usize,
    tpb: usize,
    ipdom: Vec<Option<Pc>>,
    base: usize,
    depth: usize,
}

impl Warps {
    pub fn new(prog: &Program, layout: &mut Layout, options: &ModelOptions) -> Warps {
        let size = prog.launch.warp_size as usize;
        let tpb = prog.launch.threads_per_block as usize;
        let per_block = tpb.div_ceil(size);
        let lockstep = options.simt == SimtMode::Lockstep;
        let branches = prog
            .code
            .iter()
            .filter(|i| matches!(i.op, Op::Branch { .. }))
            .count();
        let depth = (1 + 2 * branches).min(MAX_DEPTH_CAP);
        let warps = per_block * prog.launch.blocks as usize;
        let base = if lockstep {
            layout.reserve(warps * (1 + 2 * depth))
        } else {
            0
        };
        Warps {
            mode: options.simt,
            order: options.branch_order,
            size,
            per_block,
            tpb,
            ipdom: if lockstep {
                crate::ir::cfg::immediate_post_dominators(&prog.code)
            } else {
                Vec::new()
            },
            base,
            depth,
        }
    }

    pub fn is_lockstep(&self) -> bool {
        self.mode == SimtMode::Lockstep
    }

    pub fn count(&self, threads: usize) -> usize {
        threads / self.tpb * self.per_block
    }

    pub fn warp_of(&self, t: usize) -> usize {
        t / self.tpb * self.per_block + (t % self.tpb) / self.size
    }

    pub fn lane_of(&self, t: usize) -> usize {
        (t % self.tpb) % self.size
    }

    /// The threads of warp `w`, lane 0 first.
    pub fn threads(&self, w: usize) -> std::ops::Range<usize> {
        let block = w / self.per_block;
        let first = block * self.tpb + (w % self.per_block) * self.size;
        let end = (first + self.size).min((block + 1) * self.tpb);
        first..end
    }

    /// Whether warp `w` has more than one lane.
    pub fn is_shared(&self, w: usize) -> bool {
        self.threads(w).len() > 1
    }

    fn all_lanes(&self, w: usize) -> u64 {
        let n = self.threads(w).len();
        if n >= 64 {
            u64::MAX
        } else {
            (1 << n) - 1
        }
    }

    fn stack_word(&self, w: usize) -> usize {
        self.base + w * (1 + 2 * self.depth)
    }

    /// `warp 1 of block 0` style name.
    pub fn name(&self, w: usize) -> String {
        format!(
            "warp {} of block {}",
            w % self.per_block,
            w / self.per_block
        )
    }
}

/// `0,1,3` for a lane mask.
pub fn lane_list(mask: u64) -> String {
    (0..64)
        .filter(|l| mask >> l & 1 == 1)
        .map(|l| l.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn divergence(message: String) -> Violation {
    Violation {
        kind: ViolationKind::BarrierDivergence,
        property: "barrier_divergence",
        message,
        pc: None,
    }
}

impl Model<'_> {
    /// Waiting at `__syncthreads()`, the kernel boundary or a warp collective.
    pub fn is_blocked(&self, s: &[u32], t: usize) -> bool {
        s[self.layout.thread(t, FLAGS)] & (WAITING_BARRIER | WAITING_WARP) != 0
    }

    pub fn is_waiting_in_warp(&self, s: &[u32], t: usize) -> bool {
        s[self.layout.thread(t, FLAGS)] & WAITING_WARP != 0
    }

    /// The mask with `t`'s lane set, for trace events of a warp with
    /// several lanes (`None` for a warp of one thread: nothing to show).
    pub(super) fn own_lane_mask(&self, t: usize) -> Option<u64> {
        let w = self.warps.warp_of(t);
        self.warps.is_shared(w).then(|| 1 << self.warps.lane_of(t))
    }

    // ---- barrier divergence -------------------------------------------

    /// `t` arrives at `__syncthreads()`: a blockmate that already left the
    /// harness can never join it. (Arrivals at different `__syncthreads()`
    /// lines count together, as PTX's `bar.sync 0` counts them.)
    pub(super) fn check_barrier_arrival(&self, s: &[u32], t: usize) -> Result<(), Violation> {
        if !self.options.barrier_divergence {
            return Ok(());
        }
        for u in self.layout.block_threads(t) {
            if u == t || !self.takes_part(u) {
                continue;
            }
            if self.is_finished(s, u) {
                // Only now: formatting the line on every arrival is costly.
                let here = self.line_text(self.pc(s, t));
                return Err(divergence(format!(
                    "{} arrives at {here} but {} already left the harness without reaching it: a __syncthreads() that a live thread of the block never reaches.",
                    self.thread_name(t),
                    self.thread_name(u)
                )));
            }
        }
        Ok(())
    }

    /// `t` leaves the harness: nobody may be waiting for it at a barrier.
    pub(super) fn check_exit(&self, s: &[u32], t: usize) -> Result<(), Violation> {
        if !self.options.barrier_divergence {
            return Ok(());
        }
        for u in self.layout.block_threads(t) {
            if u == t || self.is_finished(s, u) {
                continue;
            }
            let pc = self.pc(s, u);
            let flags = s[self.layout.thread(u, FLAGS)];
            if flags & WAITING_BARRIER != 0
                && matches!(self.prog.code[pc as usize].op, Op::SyncThreads)
            {
                return Err(divergence(format!(
                    "{} leaves the harness while {} waits at {}: a __syncthreads() that a live thread of the block never reaches.",
                    self.thread_name(t),
                    self.thread_name(u),
                    self.line_text(pc)
                )));
            }
            if flags & WAITING_WARP != 0
                && self.warps.warp_of(u) == self.warps.warp_of(t)
                && self.named_lanes(s, u)? >> self.warps.lane_of(t) & 1 == 1
            {
                return Err(divergence(format!(
                    "{} leaves the harness while {} waits for it at {}: a lane named in the mask never arrives.",
                    self.thread_name(t),
                    self.thread_name(u),
                    self.line_text(pc)
                )));
            }
        }
        Ok(())
    }

    /// `line 12: `text`` for the instruction at `pc`.
    pub fn line_text(&self, pc: Pc) -> String {
        let instr = &self.prog.code[pc as usize];
        let line = self.prog.source.line_label(instr.span.start);
        if matches!(instr.op, Op::Exit) {
            return format!("the end of the harness ({line})");
        }
        let text = self.prog.source.snippet(instr.span);
        format!("{line} `{}`", text.lines().next().unwrap_or("").trim())
    }

    // ---- warp collectives ---------------------------------------------

    /// The lanes of `t`'s warp named by the mask of the collective at its
    /// pc, without the lanes that never take part (beyond the launch, or not
    /// running the harness). `t`'s own lane must be named.
    fn named_lanes(&self, s: &[u32], t: usize) -> Result<u64, Violation> {
        let pc = self.pc(s, t);
        let mask = match &self.prog.code[pc as usize].op {
            Op::SyncWarp { mask } | Op::Vote { mask, .. } => mask,
            _ => return Ok(0),
        };
        let w = self.warps.warp_of(t);
        let mut m = self.eval(mask, s, t)? as u64 & self.warps.all_lanes(w);
        for u in self.warps.threads(w) {
            if !self.takes_part(u) {
                m &= !(1 << self.warps.lane_of(u));
            }
        }
        if m >> self.warps.lane_of(t) & 1 == 0 {
            return Err(divergence(format!(
                "{} executes {} with a mask that does not name its own lane {}",
                self.thread_name(t),
                self.line_text(pc),
                self.warps.lane_of(t)
            )));
        }
        Ok(m)
    }

    /// Under ITS: a warp collective of thread `t` at `pc`.
    pub(super) fn its_collective(
        &self,
        s: &mut [u32],
        t: usize,
        pc: Pc,
        mut event: Option<Event>,
        ctx: &mut StepCtx,
    ) -> Result<(), Violation> {
        let w = self.warps.warp_of(t);
        if let Op::ActiveMask { dst } = self.prog.code[pc as usize].op {
            let converged = self
                .warps
                .threads(w)
                .filter(|u| !self.is_finished(s, *u) && self.pc(s, *u) == pc)
                .fold(0u64, |m, u| m | 1 << self.warps.lane_of(u));
            self.write_local(s, t, dst, converged as i64);
            self.set_pc(s, t, pc + 1);
            return self.push_event(ctx, event);
        }
        let named = self.named_lanes(s, t)?;
        let lanes: Vec<usize> = self
            .warps
            .threads(w)
            .filter(|u| named >> self.warps.lane_of(*u) & 1 == 1)
            .collect();
        for &u in &lanes {
            if u != t && self.is_finished(s, u) {
                return Err(divergence(format!(
                    "{} executes {} naming lane {}, but {} already left the harness: a lane named in the mask never arrives.",
                    self.thread_name(t),
                    self.line_text(pc),
                    self.warps.lane_of(u),
                    self.thread_name(u)
                )));
            }
        }
        s[self.layout.thread(t, FLAGS)] |= WAITING_WARP;
        if lanes.iter().any(|u| !self.is_waiting_in_warp(s, *u)) {
            return self.push_event(ctx, event);
        }
        // Everyone named is here: they must agree on the collective.
        for &u in &lanes {
            let other = self.pc(s, u);
            let same_kind = std::mem::discriminant(&self.prog.code[other as usize].op)
                == std::mem::discriminant(&self.prog.code[pc as usize].op);
            if !same_kind || self.named_lanes(s, u)? != named {
                return Err(divergence(format!(
                    "{} at {} and {} at {} disagree: the lanes of a warp collective must name the same lanes",
                    self.thread_name(t),
                    self.line_text(pc),
                    self.thread_name(u),
                    self.line_text(other)
                )));
            }
        }
        self.finish_collective(s, &lanes)?;
        if let Some(weak) = &self.ptx_memory {
            // The named lanes synchronize memory as a barrier does.
            let group = lanes[0]..lanes[lanes.len() - 1] + 1;
            if group.len() != lanes.len() {
                return Err(runtime_error(
                    "under --memory-model ptx a warp collective must name contiguous lanes",
                ));
            }
            weak.synchronize(self, s, group);
        }
        for &u in &lanes {
            s[self.layout.thread(u, FLAGS)] &= !WAITING_WARP;
            let at = self.pc(s, u);
            self.set_pc(s, u, at + 1);
        }
        if let Some(e) = &mut event {
            if lanes.len() > 1 {
                e.note = Some(format!(
                    "lanes {} of {} pass it together",
                    lane_list(named),
                    self.warps.name(w)
                ));
            }
            e.active = Some(named);
        }
        self.push_event(ctx, event)
    }

    fn push_event(&self, ctx: &mut StepCtx, event: Option<Event>) -> Result<(), Violation> {
        if let (Some(e), Some(events)) = (event, ctx.events.as_mut()) {
            events.push(e);
        }
        Ok(())
    }

    /// Writes the result of the votes of `lanes`, each at its own pc.
    fn finish_collective(&self, s: &mut [u32], lanes: &[usize]) -> Result<(), Violation> {
        let mut preds = Vec::with_capacity(lanes.len());
        for &u in lanes {
            if let Op::Vote { pred, .. } = &self.prog.code[self.pc(s, u) as usize].op {
                preds.push((self.warps.lane_of(u), self.eval(pred, s, u)? != 0));
            }
        }
        let ballot = preds
            .iter()
            .filter(|(_, p)| *p)
            .fold(0u64, |m, (l, _)| m | 1 << l);
        for &u in lanes {
            if let Op::Vote { dst, kind, .. } = self.prog.code[self.pc(s, u) as usize].op {
                let value = match kind {
                    VoteKind::Any => (ballot != 0) as i64,
                    VoteKind::All => preds.iter().all(|(_, p)| *p) as i64,
                    VoteKind::Ballot => ballot as i64,
                };
                self.write_local(s, u, dst, value);
            }
        }
        Ok(())
    }

    // ---- lockstep -----------------------------------------------------

    fn depth(&self, s: &[u32], w: usize) -> usize {
        s[self.warps.stack_word(w)] as usize
    }

    fn entry(&self, s: &[u32], w: usize, i: usize) -> (u64, u32) {
        let at = self.warps.stack_word(w) + 1 + 2 * i;
        (u64::from(s[at]), s[at + 1])
    }

    fn set_entry(&self, s: &mut [u32], w: usize, i: usize, (mask, rpc): (u64, u32)) {
        let at = self.warps.stack_word(w) + 1 + 2 * i;
        s[at] = mask as u32;
        s[at + 1] = rpc;
    }

    fn push(&self, s: &mut [u32], w: usize, entry: (u64, u32)) -> Result<(), Violation> {
        let d = self.depth(s, w);
        if d >= self.warps.depth {
            return Err(runtime_error(&format!(
                "the reconvergence stack of {} overflowed ({} entries)",
                self.warps.name(w),
                self.warps.depth
            )));
        }
        self.set_entry(s, w, d, entry);
        s[self.warps.stack_word(w)] = d as u32 + 1;
        Ok(())
    }

    fn pop(&self, s: &mut [u32], w: usize) {
        let d = self.depth(s, w);
        self.set_entry(s, w, d - 1, (0, 0));
        s[self.warps.stack_word(w)] = d as u32 - 1;
    }

    /// The active lanes of warp `w` and where they reconverge (`None`: the
    /// warp has finished).
    pub fn top_entry(&self, s: &[u32], w: usize) -> Option<(u64, Option<Pc>)> {
        let d = self.depth(s, w);
        (d > 0).then(|| {
            let (mask, rpc) = self.entry(s, w, d - 1);
            (mask, (rpc != NO_RPC).then_some(rpc))
        })
    }

    fn lanes_of(&self, w: usize, mask: u64) -> impl Iterator<Item = usize> + '_ {
        self.warps
            .threads(w)
            .filter(move |u| mask >> self.warps.lane_of(*u) & 1 == 1)
    }

    fn leader(&self, s: &[u32], w: usize) -> Option<usize> {
        let (mask, _) = self.top_entry(s, w)?;
        self.lanes_of(w, mask).next()
    }

    /// Under lockstep: the live lanes of `t`'s warp that are masked off,
    /// and the active mask (empty when not lockstep or nobody is masked off).
    pub fn masked_off(&self, s: &[u32], w: usize) -> (u64, u64) {
        if !self.warps.is_lockstep() {
            return (0, 0);
        }
        let Some((active, _)) = self.top_entry(s, w) else {
            return (0, 0);
        };
        let live = self
            .warps
            .threads(w)
            .filter(|u| !self.is_finished(s, *u))
            .fold(0u64, |m, u| m | 1 << self.warps.lane_of(u));
        (live & !active, active)
    }

    /// Under lockstep: `t` is live but not among its warp's active lanes.
    pub fn is_masked_off(&self, s: &[u32], t: usize) -> bool {
        let (off, _) = self.masked_off(s, self.warps.warp_of(t));
        off >> self.warps.lane_of(t) & 1 == 1
    }

    /// The initial stacks: every taking-part lane active, never reconverging.
    pub(super) fn init_warps(&self, s: &mut [u32]) {
        for w in 0..self.warps.count(self.layout.threads) {
            let mask = self
                .warps
                .threads(w)
                .filter(|u| !self.is_finished(s, *u))
                .fold(0u64, |m, u| m | 1 << self.warps.lane_of(u));
            if mask != 0 {
                self.push(s, w, (mask, NO_RPC))
                    .expect("an empty stack has room");
            }
        }
    }

    /// One move per warp whose active lanes can run: its lowest active lane.
    pub(super) fn warp_actions(&self, s: &[u32], out: &mut Vec<u32>) {
        for w in 0..self.warps.count(self.layout.threads) {
            if let Some(lead) = self.leader(s, w) {
                if self.has_started(s, lead) && !self.is_blocked(s, lead) {
                    out.push(lead as u32);
                }
            }
        }
    }

    /// Runs the warp of `t` for one step: one instruction for its active
    /// lanes, then (when fusing) the thread-local ones after it.
    pub(super) fn run_warp(
        &self,
        s: &mut [u32],
        t: usize,
        ctx: &mut StepCtx,
    ) -> Result<(), Violation> {
        let w = self.warps.warp_of(t);
        let mut executed = 0;
        loop {
            self.warp_instruction(s, w, ctx)?;
            executed += 1;
            let Some(lead) = self.leader(s, w) else { break };
            let pc = self.pc(s, lead);
            let stop = !self.options.fuse_local_steps
                || self.is_blocked(s, lead)
                || !self.invisible[pc as usize]
                || executed >= super::MAX_FUSED;
            if stop {
                break;
            }
        }
        for u in self.warps.threads(w) {
            self.clear_dead_locals(s, u);
        }
        Ok(())
    }

    /// Runs the thread-local instructions at the start of warp `w`.
    pub(super) fn settle_warp(&self, s: &mut [u32], w: usize) {
        let mut scratch = s.to_vec();
        for _ in 0..super::MAX_FUSED {
            let Some(lead) = self.leader(s, w) else { break };
            if !self.invisible[self.pc(s, lead) as usize] {
                break;
            }
            scratch.copy_from_slice(s);
            if self
                .warp_instruction(&mut scratch, w, &mut StepCtx::default())
                .is_err()
            {
                break;
            }
            s.copy_from_slice(&scratch);
        }
        for u in self.warps.threads(w) {
            self.clear_dead_locals(s, u);
        }
    }

    /// The instruction at the active lanes' pc, for all of them.
    fn warp_instruction(
        &self,
        s: &mut [u32],
        w: usize,
        ctx: &mut StepCtx,
    ) -> Result<(), Violation> {
        // A barrier released by another warp moved these lanes on.
        self.reconverge(s, w);
        let (mask, _) = self
            .top_entry(s, w)
            .expect("a moving warp has active lanes");
        let lanes: Vec<usize> = self.lanes_of(w, mask).collect();
        let pc = self.pc(s, lanes[0]);
        let first_event = ctx.events.as_ref().map_or(0, |e| e.len());
        let op = &self.prog.code[pc as usize].op;
        let result = match op {
            Op::SyncWarp { .. } | Op::Vote { .. } | Op::ActiveMask { .. } => {
                self.lockstep_collective(s, w, mask, &lanes, pc, ctx)
            }
            _ => lanes.iter().try_for_each(|&u| self.exec(s, u, pc, ctx)),
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
        match op {
            Op::Branch { .. } => self.diverge(s, w, mask, pc)?,
            Op::Exit => self.drop_finished(s, w),
            _ => {}
        }
        self.reconverge(s, w);
        Ok(())
    }

    /// A collective under lockstep: every live lane it names must be active.
    fn lockstep_collective(
        &self,
        s: &mut [u32],
        w: usize,
        active: u64,
        lanes: &[usize],
        pc: Pc,
        ctx: &mut StepCtx,
    ) -> Result<(), Violation> {
        if let Op::ActiveMask { dst } = self.prog.code[pc as usize].op {
            for &u in lanes {
                self.write_local(s, u, dst, active as i64);
            }
        } else {
            let (masked_off, _) = self.masked_off(s, w);
            for &u in lanes {
                let named = self.named_lanes(s, u)?;
                if named & masked_off != 0 {
                    return Err(divergence(format!(
                        "{} executes {} naming lanes {} of {}, which are masked off by a divergent branch: they cannot take part",
                        self.thread_name(u),
                        self.line_text(pc),
                        lane_list(named & masked_off),
                        self.warps.name(w)
                    )));
                }
            }
            self.finish_collective(s, lanes)?;
        }
        for &u in lanes {
            self.set_pc(s, u, pc + 1);
            let event = ctx.events.as_ref().map(|_| Event {
                thread: u as u32,
                pc,
                ..Event::default()
            });
            self.push_event(ctx, event)?;
        }
        Ok(())
    }

    /// Splits the active lanes after a branch they disagreed on.
    fn diverge(&self, s: &mut [u32], w: usize, mask: u64, pc: Pc) -> Result<(), Violation> {
        let Op::Branch {
            then_pc, else_pc, ..
        } = self.prog.code[pc as usize].op
        else {
            return Ok(());
        };
        let side = |target: Pc| {
            self.lanes_of(w, mask)
                .filter(|u| self.pc(s, *u) == target)
                .fold(0u64, |m, u| m | 1 << self.warps.lane_of(u))
        };
        let (taken, fallen) = (side(then_pc), side(else_pc));
        if then_pc == else_pc || taken == 0 || fallen == 0 {
            return Ok(());
        }
        let r = self.warps.ipdom[pc as usize].unwrap_or(NO_RPC);
        let (_, rpc) = self.entry(s, w, self.depth(s, w) - 1);
        if r == rpc {
            self.pop(s, w);
        }
        let (first, second) = match self.warps.order {
            BranchOrder::ThenFirst => ((taken, then_pc), (fallen, else_pc)),
            BranchOrder::ElseFirst => ((fallen, else_pc), (taken, then_pc)),
        };
        for (lanes, at) in [second, first] {
            if at != r {
                self.push(s, w, (lanes, r))?;
            }
        }
        Ok(())
    }

    /// Pops the entries whose lanes reached their reconvergence point.
    fn reconverge(&self, s: &mut [u32], w: usize) {
        while let Some((mask, Some(rpc))) = self.top_entry(s, w) {
            let lead = self.lanes_of(w, mask).next();
            match lead {
                Some(u) if self.pc(s, u) != rpc => break,
                _ => self.pop(s, w),
            }
        }
    }

    /// Removes finished lanes from every entry, and entries left empty.
    fn drop_finished(&self, s: &mut [u32], w: usize) {
        let live = self
            .warps
            .threads(w)
            .filter(|u| !self.is_finished(s, *u))
            .fold(0u64, |m, u| m | 1 << self.warps.lane_of(u));
        let entries: Vec<(u64, u32)> = (0..self.depth(s, w))
            .map(|i| self.entry(s, w, i))
            .filter_map(|(m, r)| (m & live != 0).then_some((m & live, r)))
            .collect();
        while self.depth(s, w) > 0 {
            self.pop(s, w);
        }
        for e in entries {
            self.push(s, w, e).expect("no deeper than before");
        }
    }
}

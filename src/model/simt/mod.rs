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

pub(crate) mod lanes;
mod lockstep;

use super::exec::StepCtx;
use super::memory::Memory;
use super::named::named_choices;
use super::state::{Layout, FLAGS, WAITING_BARRIER, WAITING_WARP};
use super::threads::{runtime_error, Threads};
use super::{Event, ModelOptions, Violation, ViolationKind};
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
    /// CUDA's rule: a `__syncthreads()` that a live thread of the block
    /// leaves without reaching is `barrier_divergence` (off for PTX's
    /// `bar.sync` in litmus tests: exited threads just stop counting).
    barrier_divergence: bool,
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
            barrier_divergence: options.barrier_divergence,
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
pub(crate) fn lane_list(mask: u64) -> String {
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

impl Warps {
    /// The mask with `t`'s lane set, for trace events of a warp with
    /// several lanes (`None` for a warp of one thread: nothing to show).
    pub(crate) fn own_lane_mask(&self, t: usize) -> Option<u64> {
        let w = self.warp_of(t);
        self.is_shared(w).then(|| 1 << self.lane_of(t))
    }

    // ---- barrier divergence -------------------------------------------

    /// `t` arrives at `__syncthreads()`: a blockmate that already left the
    /// harness can never join it. (Arrivals at different `__syncthreads()`
    /// lines count together, as PTX's `bar.sync 0` counts them.)
    pub(crate) fn check_barrier_arrival(
        &self,
        th: &Threads,
        s: &[u32],
        t: usize,
    ) -> Result<(), Violation> {
        if !self.barrier_divergence {
            return Ok(());
        }
        for u in th.layout.block_threads(t) {
            if u == t || !th.takes_part(u) {
                continue;
            }
            if th.is_finished(s, u) {
                // Only now: formatting the line on every arrival is costly.
                let here = th.line_text(th.pc(s, t));
                return Err(divergence(format!(
                    "{} arrives at {here} but {} already left the harness without reaching it: a __syncthreads() that a live thread of the block never reaches.",
                    th.thread_name(t),
                    th.thread_name(u)
                )));
            }
        }
        Ok(())
    }

    /// `t` leaves the harness: nobody may be waiting for it at a barrier.
    pub(crate) fn check_exit(&self, th: &Threads, s: &[u32], t: usize) -> Result<(), Violation> {
        if !self.barrier_divergence {
            return Ok(());
        }
        for u in th.layout.block_threads(t) {
            if u == t || th.is_finished(s, u) {
                continue;
            }
            let pc = th.pc(s, u);
            let flags = s[th.layout.thread(u, FLAGS)];
            if flags & WAITING_BARRIER != 0
                && matches!(th.prog.code[pc as usize].op, Op::SyncThreads)
            {
                return Err(divergence(format!(
                    "{} leaves the harness while {} waits at {}: a __syncthreads() that a live thread of the block never reaches.",
                    th.thread_name(t),
                    th.thread_name(u),
                    th.line_text(pc)
                )));
            }
            if flags & WAITING_WARP != 0
                && self.warp_of(u) == self.warp_of(t)
                && self.named_lanes(th, s, u)? >> self.lane_of(t) & 1 == 1
            {
                return Err(divergence(format!(
                    "{} leaves the harness while {} waits for it at {}: a lane named in the mask never arrives.",
                    th.thread_name(t),
                    th.thread_name(u),
                    th.line_text(pc)
                )));
            }
        }
        Ok(())
    }

    // ---- warp collectives ---------------------------------------------

    /// The lanes of `t`'s warp named by the mask of the collective at its
    /// pc, without the lanes that never take part (beyond the launch, or not
    /// running the harness). `t`'s own lane must be named.
    fn named_lanes(&self, th: &Threads, s: &[u32], t: usize) -> Result<u64, Violation> {
        let pc = th.pc(s, t);
        let w = self.warp_of(t);
        let mask = match &th.prog.code[pc as usize].op {
            Op::SyncWarp { mask } | Op::Vote { mask, .. } | Op::Shuffle { mask, .. } => mask,
            // `__activemask()` names the lanes that execute it together:
            // those at this instruction now (a lane there has nothing else
            // to run first). Each lane, arriving, computes the same set.
            Op::ActiveMask { .. } => {
                return Ok(self
                    .threads(w)
                    .filter(|u| th.takes_part(*u) && !th.is_finished(s, *u) && th.pc(s, *u) == pc)
                    .fold(0u64, |m, u| m | 1 << self.lane_of(u)))
            }
            _ => return Ok(0),
        };
        let mut m = th.eval(mask, s, t)? as u64 & self.all_lanes(w);
        for u in self.threads(w) {
            if !th.takes_part(u) {
                m &= !(1 << self.lane_of(u));
            }
        }
        if m >> self.lane_of(t) & 1 == 0 {
            return Err(divergence(format!(
                "{} executes {} with a mask that does not name its own lane {}",
                th.thread_name(t),
                th.line_text(pc),
                self.lane_of(t)
            )));
        }
        Ok(m)
    }

    /// Under ITS: a warp collective of thread `t` at `pc`.
    pub(crate) fn its_collective(
        &self,
        (th, memory): (&Threads, &Memory),
        s: &mut [u32],
        (t, pc): (usize, Pc),
        mut event: Option<Event>,
        ctx: &mut StepCtx,
    ) -> Result<(), Violation> {
        let w = self.warp_of(t);
        let named = self.named_lanes(th, s, t)?;
        let lanes: Vec<usize> = self
            .threads(w)
            .filter(|u| named >> self.lane_of(*u) & 1 == 1)
            .collect();
        for &u in &lanes {
            if u != t && th.is_finished(s, u) {
                return Err(divergence(format!(
                    "{} executes {} naming lane {}, but {} already left the harness: a lane named in the mask never arrives.",
                    th.thread_name(t),
                    th.line_text(pc),
                    self.lane_of(u),
                    th.thread_name(u)
                )));
            }
        }
        s[th.layout.thread(t, FLAGS)] |= WAITING_WARP;
        if lanes.iter().any(|u| !th.is_waiting_in_warp(s, *u)) {
            ctx.push(event);
            return Ok(());
        }
        // Everyone named is here: they must agree on the collective.
        for &u in &lanes {
            let other = th.pc(s, u);
            let same_kind = std::mem::discriminant(&th.prog.code[other as usize].op)
                == std::mem::discriminant(&th.prog.code[pc as usize].op);
            if !same_kind || self.named_lanes(th, s, u)? != named {
                return Err(divergence(format!(
                    "{} at {} and {} at {} disagree: the lanes of a warp collective must name the same lanes",
                    th.thread_name(t),
                    th.line_text(pc),
                    th.thread_name(u),
                    th.line_text(other)
                )));
            }
        }
        self.finish_collective(th, s, &lanes, named)?;
        let orders_memory = !matches!(
            th.prog.code[pc as usize].op,
            Op::ActiveMask { .. } | Op::Shuffle { .. }
        );
        if let Some(weak) = memory.ptx().filter(|_| orders_memory) {
            // The named lanes synchronize memory as a barrier does.
            let group = lanes[0]..lanes[lanes.len() - 1] + 1;
            if group.len() != lanes.len() {
                return Err(runtime_error(
                    "under --memory-model ptx a warp collective must name contiguous lanes",
                ));
            }
            weak.synchronize(th, s, group);
        }
        for &u in &lanes {
            s[th.layout.thread(u, FLAGS)] &= !WAITING_WARP;
            let at = th.pc(s, u);
            th.set_pc(s, u, at + 1);
        }
        if let Some(e) = &mut event {
            if lanes.len() > 1 {
                e.note = Some(format!(
                    "lanes {} of {} pass it together",
                    lane_list(named),
                    self.name(w)
                ));
            }
            e.active = Some(named);
        }
        ctx.push(event);
        Ok(())
    }

    /// What each lane of a shuffle reads: the value its source lane
    /// computed, or its own where the source does not take part. Every
    /// value is read before any lane's result is written.
    fn shuffled_values(
        &self,
        th: &Threads,
        s: &[u32],
        lanes: &[usize],
    ) -> Result<std::collections::HashMap<usize, i64>, Violation> {
        let mut offered = Vec::with_capacity(lanes.len());
        for &u in lanes {
            if let Op::Shuffle { value, src, .. } = &th.prog.code[th.pc(s, u) as usize].op {
                offered.push((u, th.eval(value, s, u)?, th.eval(src, s, u)?));
            }
        }
        let by_lane = |lane: i64| {
            offered
                .iter()
                .find(|(v, _, _)| self.lane_of(*v) as i64 == lane)
                .map(|&(_, value, _)| value)
        };
        Ok(offered
            .iter()
            .map(|&(u, own, src)| (u, by_lane(src).unwrap_or(own)))
            .collect())
    }

    /// Writes the result of the votes (or `__activemask()`, the lanes
    /// `named`) of `lanes`, each at its own pc.
    fn finish_collective(
        &self,
        th: &Threads,
        s: &mut [u32],
        lanes: &[usize],
        named: u64,
    ) -> Result<(), Violation> {
        let mut preds = Vec::with_capacity(lanes.len());
        for &u in lanes {
            if let Op::Vote { pred, .. } = &th.prog.code[th.pc(s, u) as usize].op {
                preds.push((self.lane_of(u), th.eval(pred, s, u)? != 0));
            }
        }
        let shuffled = self.shuffled_values(th, s, lanes)?;
        for &u in lanes {
            if let Op::Shuffle { dst, .. } = th.prog.code[th.pc(s, u) as usize].op {
                th.write_local(s, u, dst, shuffled[&u]);
            }
            if let Op::ActiveMask { dst } = th.prog.code[th.pc(s, u) as usize].op {
                th.write_local(s, u, dst, named as i64);
            }
            if let Op::Vote { dst, kind, .. } = th.prog.code[th.pc(s, u) as usize].op {
                // A vote counts the lanes its own mask names: in lockstep,
                // two tiles of one warp vote at once, each over its lanes.
                let own = self.named_lanes(th, s, u)?;
                let mine = preds.iter().filter(|(l, _)| own >> l & 1 == 1);
                let ballot = mine
                    .clone()
                    .filter(|(_, p)| *p)
                    .fold(0u64, |m, (l, _)| m | 1 << l);
                let value = match kind {
                    VoteKind::Any => (ballot != 0) as i64,
                    VoteKind::All => mine.clone().all(|(_, p)| *p) as i64,
                    VoteKind::Ballot => ballot as i64,
                };
                th.write_local(s, u, dst, value);
            }
        }
        Ok(())
    }
}

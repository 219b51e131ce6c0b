//! The model as the analyses see it ([`Checkable`]), for the model and
//! for the model with its reductions: names and positions of threads for
//! reports, and what the model knows about a deadlock or a violation that
//! the graph does not show (occupancy, SIMT, the lock unit).

use super::{simt, Checkable, Finding};
use crate::ir::Op;
use crate::model::reduced::Reduced;
use crate::model::{Labeled, Model, ViolationKind};

/// One line per unfinished thread of `state`: where it is and what it
/// waits for.
pub fn describe_threads(model: &Model, state: &[u32]) -> Vec<String> {
    super::deadlock::describe(&Reduced::none(model), state)
}

/// Each unfinished thread with what it is doing (`spins at line 20: ...`).
pub fn thread_positions(model: &Model, state: &[u32]) -> Vec<(usize, String)> {
    let prog = model.prog;
    let mut lines = Vec::new();
    for t in 0..model.threads.layout.threads {
        if model.threads.is_finished(state, t) {
            continue;
        }
        let pc = model.threads.pc(state, t);
        let instr = &prog.code[pc as usize];
        let line = prog.source.line_label(instr.span.start);
        let text = prog
            .source
            .snippet(instr.span)
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        let what = if !model.occupancy.is_resident(&model.threads, state, t) {
            "has not started: no block slot is free".to_string()
        } else if model.threads.is_waiting_in_warp(state, t) {
            format!("waits at {line}: `{text}` for the other lanes its mask names")
        } else if model.warps.is_masked_off(&model.threads, state, t) {
            format!("is masked off at {line}: `{text}` (its warp runs other lanes until they reconverge)")
        } else if let (true, Op::NamedBarrier { id, .. }) =
            (model.threads.is_waiting_at_barrier(state, t), &instr.op)
        {
            format!("waits at barrier {id} ({line}: `{text}`) for threads that never arrive")
        } else if model.threads.is_waiting_at_barrier(state, t) {
            let group = if matches!(instr.op, Op::KernelBoundary) {
                0..model.threads.layout.threads
            } else {
                model.threads.layout.block_threads(t)
            };
            let missing: Vec<String> = group
                .filter(|u| {
                    !model.threads.is_finished(state, *u)
                        && !model.threads.is_waiting_at_barrier(state, *u)
                })
                .map(|u| model.threads.thread_name(u))
                .collect();
            let barrier = if matches!(instr.op, Op::KernelBoundary) {
                "the kernel boundary"
            } else {
                "`__syncthreads()`"
            };
            format!(
                "waits at {barrier} ({line}) for {}",
                if missing.is_empty() {
                    "the rest of its block".to_string()
                } else {
                    missing.join(", ")
                }
            )
        } else {
            match &instr.op {
                Op::Load { .. } | Op::Atomic { .. } | Op::LockBitTry { .. } => {
                    format!("spins at {line}: `{text}`")
                }
                _ => format!("is at {line}: `{text}`"),
            }
        };
        lines.push((t, what));
    }
    lines
}

/// The analyses see the model through its adapter: the reduced model, or
/// with no reduction (`Reduced::none`) the model's full graph.
impl Checkable for Reduced<'_, '_> {
    fn thread_count(&self) -> usize {
        self.model().threads.count()
    }

    fn is_finished(&self, s: &[u32], t: usize) -> bool {
        self.model().threads.is_finished(s, t)
    }

    fn step_labels(&self, s: &[u32], a: u32, out: &mut [u32]) -> Labeled {
        self.model().step_labels(s, a, out)
    }

    fn threads_per_block(&self) -> usize {
        self.model().threads.layout.threads_per_block
    }

    fn has_run(&self, s: &[u32], t: usize) -> bool {
        !self.model().options().track_started || self.model().threads.has_run(s, t)
    }

    fn thread_name(&self, t: usize) -> String {
        self.model().threads.thread_name(t)
    }

    fn thread_positions(&self, s: &[u32]) -> Vec<(usize, String)> {
        thread_positions(self.model(), s)
    }

    /// Blocks that can never become resident make it an occupancy
    /// deadlock; otherwise the SIMT and lock-unit classes (`simt`).
    fn refine_deadlock(&self, finding: &mut Finding, end: &[u32], who: &str) {
        let model = self.model();
        let th = &model.threads;
        let unstarted: Vec<String> = (0..th.count())
            .filter(|t| !th.is_finished(end, *t) && !model.occupancy.is_resident(th, end, *t))
            .map(|t| th.thread_name(t))
            .collect();
        if unstarted.is_empty() {
            return simt::refine(self, finding, end);
        }
        let resident = model.options().resident.unwrap_or(0);
        finding.kind = ViolationKind::OccupancyDeadlock;
        finding.property = "occupancy";
        finding.message = format!(
            "{who}: the resident blocks wait for {}, which can never become resident (at most {resident} block{} resident at once)",
            unstarted.join(", "),
            if resident == 1 { "" } else { "s" }
        );
    }

    fn refine_fault(&self, finding: &mut Finding) {
        if finding.kind == ViolationKind::BarrierDivergence {
            simt::explain_divergence(self.model(), finding);
        }
    }
}

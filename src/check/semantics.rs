//! The model as the analyses see it ([`Checkable`]), for the model and
//! for the model with its reductions: names and positions of threads for
//! reports, and what the model knows about a deadlock or a violation that
//! the graph does not show (occupancy, SIMT, the lock unit).

use super::positions::{steps_on, thread_positions};
use super::{simt, Checkable, Finding};
use crate::model::{Labeled, Model, ViolationKind};
use crate::reduce::Reduced;

/// One line per unfinished thread of `state`: where it is and what it
/// waits for.
pub(crate) fn describe_threads(model: &Model, state: &[u32]) -> Vec<String> {
    super::deadlock::describe(&Reduced::none(model), state)
}

/// The analyses see the model through its adapter: the reduced model, or
/// with no reduction (`Reduced::none`) the model's full graph.
impl Checkable for Reduced<'_, '_> {
    fn thread_count(&self) -> usize {
        self.model().threads.count()
    }

    fn threads_moved(&self, a: u32) -> std::ops::Range<usize> {
        let t = self.thread_of(a);
        let warps = &self.model().warps;
        match warps.is_lockstep() {
            true => warps.threads(warps.warp_of(t)),
            false => t..t + 1,
        }
    }

    fn steps_on(&self, s: &[u32], t: usize) -> bool {
        steps_on(self.model(), s, t)
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

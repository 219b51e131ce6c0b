//! Which reductions a check searches with, and the note `--stats` prints
//! about them.
//!
//! Symmetry and ample sets are used where they are sound and the scheduler
//! lets them: a fair scheduler's analyses are per thread (representatives
//! rename threads, ample sets leave steps out), so under one they are off.

use crate::explore::{collision_probability, FINGERPRINT_BITS};
use crate::model::Scheduler;
use crate::reduce::{Reduced, Reductions, Refusal};

/// The reductions to try for `asked` under `scheduler`: a fair
/// scheduler's analyses need every thread's edges.
pub(super) fn wanted(asked: Reductions, scheduler: Scheduler) -> Reductions {
    match scheduler {
        Scheduler::Deadlock => asked,
        Scheduler::Progress(_) => asked.per_thread(),
    }
}

/// `part` of `whole` in whole percent, rounded down, but "<1%" for a part
/// that is not zero: 100% and 0% only where it is all or nothing.
fn percent(part: u64, whole: u64) -> String {
    match (part * 100).checked_div(whole) {
        Some(0) if part > 0 => "<1%".to_string(),
        Some(p) => format!("{p}%"),
        None => "0%".to_string(),
    }
}

/// What the note says, built as the check goes.
pub(super) struct Note {
    text: String,
    /// What the full graph keeps of the reductions named in `text`:
    /// forgotten writers, and under `ptx` that stale polls are explored
    /// again (the await reduction is per thread too).
    forgets: bool,
    left_out_stale_polls: bool,
    /// Under `ptx`, what the model does with views an SC fence refreshes
    /// (part of its canonical form, so on in every search), and with dead
    /// writes.
    refresh: &'static str,
    dead: &'static str,
    reduced_trace: bool,
    compacted: Option<u64>,
    /// Where in `text` the ample sets' part ends, while it is there.
    ample_end: Option<usize>,
}

impl Note {
    /// What the search starts with: each reduction on (and what it is), or
    /// off and why.
    pub(super) fn new(
        asked: Reductions,
        scheduler: Scheduler,
        reduced: &Reduced,
        refusals: &[Refusal; 3],
    ) -> Note {
        let fair = scheduler.checks_liveness();
        let symmetry = if !asked.symmetry {
            "symmetry off (--no-symmetry)".to_string()
        } else if fair {
            "symmetry off (fairness is checked per thread on the full graph)".to_string()
        } else {
            match (reduced.symmetry(), &refusals[0]) {
                (Some(sym), _) => format!("symmetry: {}", sym.describe()),
                (None, Err(why)) => format!("symmetry off ({why})"),
                (None, Ok(())) => unreachable!("asked for, neither on nor refused"),
            }
        };
        let ample = if !asked.ample_sets {
            "ample sets off (--no-por)".to_string()
        } else if fair {
            "ample sets off (fairness reads every thread's enabled steps)".to_string()
        } else {
            match &refusals[1] {
                Ok(()) if reduced.lets_spinners_sleep() => {
                    "ample sets of independent steps, spinning threads asleep on their lassos"
                        .to_string()
                }
                Ok(()) => "ample sets of independent steps".to_string(),
                Err(why) => format!("ample sets off ({why})"),
            }
        };
        let ptx = reduced.model().memory.ptx().is_some();
        let forget = match (ptx, asked.forget) {
            (false, _) => "",
            (true, false) => "; writers kept (--no-forget)",
            (true, true) => "; writers no step reads forgotten",
        };
        let awaits = match (ptx, asked.awaits, &refusals[2]) {
            (false, _, _) => String::new(),
            (true, false, _) => "; stale failed polls and blind reads explored (--no-await or --no-por)".into(),
            (true, true, _) if fair => {
                "; stale failed polls and blind reads explored (fairness reads every thread's steps)".into()
            }
            (true, true, Ok(())) => "; failed polls of a stale write and blind reads left out".into(),
            (true, true, Err(why)) => format!("; stale failed polls and blind reads explored ({why})"),
        };
        let model = reduced.model();
        let refresh = match (ptx, model.options().refresh_views) {
            (false, _) => "",
            (true, false) => "; old views kept (--no-view-refresh)",
            (true, true) if model.refreshes_views() => {
                "; views the next SC fence refreshes raised to it"
            }
            (true, true) => "; old views kept (each thread's future accesses are not known: lockstep warps or warp collectives)",
        };
        let dead = match model.memory.ptx().map(|w| w.drops_dead_writes()) {
            None | Some(false) => "",
            Some(true) if !model.options().drop_dead_writes => {
                "; dead writes kept (--no-drop-dead-writes)"
            }
            Some(true) => "; writes no step can read any more dropped",
        };
        Note {
            ample_end: reduced
                .has_ample_sets()
                .then_some(symmetry.len() + 2 + ample.len()),
            text: format!("{symmetry}; {ample}{forget}{awaits}{refresh}{dead}"),
            forgets: ptx && asked.forget,
            refresh,
            dead,
            left_out_stale_polls: reduced.skips_stale_polls(),
            reduced_trace: false,
            compacted: None,
        }
    }

    /// How much the ample sets of the reported search reduced: at how many
    /// of its expanded states a proper subset of the steps was kept. On a
    /// primitive whose threads all contend for the same words, few.
    pub(super) fn ample_effect(&mut self, stats: &crate::explore::Stats) {
        if let Some(at) = self.ample_end.take() {
            let effect = format!(
                " (a proper subset at {} of {} expanded states, {})",
                stats.ample_reduced,
                stats.expanded,
                percent(stats.ample_reduced, stats.expanded)
            );
            self.text.insert_str(at, &effect);
        }
    }

    /// The reduced search was replaced by a search of the full graph, `why`.
    pub(super) fn full_graph(&mut self, why: &str) {
        self.ample_end = None;
        self.text = format!(
            "symmetry and ample sets off ({why}: per-thread progress is checked on the full graph)"
        );
        if self.forgets {
            self.text.push_str("; writers no step reads forgotten");
        }
        if self.left_out_stale_polls {
            self.text
                .push_str("; stale failed polls and blind reads explored");
        }
        self.text.push_str(self.refresh);
        self.text.push_str(self.dead);
    }

    /// The counterexamples are traces of the reduced graph.
    pub(super) fn reduced_trace(&mut self) {
        self.reduced_trace = true;
    }

    /// The reported search kept fingerprints of its `states`.
    pub(super) fn compacted(&mut self, states: u64) {
        self.compacted = Some(states);
    }

    /// The note; `asked_compaction`: hash compaction was asked for (and is
    /// off where the search did not use it).
    pub(super) fn finish(mut self, asked_compaction: bool) -> String {
        if self.reduced_trace {
            self.text.push_str("; counterexample from the reduced graph (not necessarily shortest: the full graph is too large to retrace it)");
        }
        match self.compacted {
            Some(states) => self.text.push_str(&format!(
                "; hash compaction: {FINGERPRINT_BITS}-bit fingerprints, P(two states merged) <= {:.1e}",
                collision_probability(states)
            )),
            None if asked_compaction => self
                .text
                .push_str("; hash compaction off (the per-thread analyses read every state)"),
            None => {}
        }
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::percent;

    #[test]
    fn percent_says_all_or_nothing_only_when_it_is() {
        assert_eq!(percent(0, 0), "0%");
        assert_eq!(percent(0, 7), "0%");
        assert_eq!(percent(1, 1000), "<1%");
        assert_eq!(percent(70_929, 399_477), "17%");
        assert_eq!(percent(55_597, 55_783), "99%");
        assert_eq!(percent(9, 9), "100%");
    }
}

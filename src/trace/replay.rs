//! Saved counterexamples and their replay: re-execute the schedule step by
//! step against the spec and confirm the violation is still there, or say
//! where the run diverges from the recording.

use super::counterexample::{build_trace, Step};
use super::{RunConfig, ViolationReport};
use crate::explore::{explore, Options, TransitionSystem};
use crate::model::Model;
use serde::{Deserialize, Serialize};

/// A counterexample file (`--out DIR`, `counterexamples/`): everything
/// replay needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedCounterexample {
    pub spec: String,
    /// `builtin:NAME` or the spec's path.
    pub source: String,
    pub config: RunConfig,
    pub violation: ViolationReport,
}

/// What replay concluded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayOutcome {
    /// The schedule still leads to the same kind of violation.
    Reproduced { kind: String, message: String },
    /// The run no longer matches the recording.
    Diverged { step: u32, reason: String },
}

/// Replays `saved` on `model` (built from the saved spec and config).
pub fn replay(model: &Model, saved: &SavedCounterexample) -> ReplayOutcome {
    let v = &saved.violation;
    let words = model.layout.words();
    let mut state = vec![0u32; words];
    model.initial_state(&mut state);
    let mut next = vec![0u32; words];
    let mut actions = Vec::new();
    let all: Vec<u32> = v
        .trace
        .schedule
        .iter()
        .chain(&v.trace.cycle_schedule)
        .copied()
        .collect();
    let mut cycle_start = None;
    // Progress per thread during the cycle, for livelock and starvation.
    let mut cycle_progress = vec![0usize; model.layout.threads];
    for (i, &t) in all.iter().enumerate() {
        let step_no = i as u32 + 1;
        if i == v.trace.schedule.len() {
            cycle_start = Some(state.clone());
        }
        actions.clear();
        model.actions(&state, &mut actions);
        if !actions.contains(&t) {
            return ReplayOutcome::Diverged {
                step: step_no,
                reason: format!(
                    "{} cannot move in this state",
                    model.thread_name(crate::model::thread_of(t))
                ),
            };
        }
        let (result, progressed) = model.step_progress(&state, t, &mut next);
        if cycle_start.is_some() && progressed {
            cycle_progress[crate::model::thread_of(t)] += 1;
        }
        match result {
            Ok(()) => std::mem::swap(&mut state, &mut next),
            Err(fault) => {
                let last = i + 1 == all.len();
                if last && fault.kind.name() == v.kind {
                    return check_steps(model, saved).unwrap_or(ReplayOutcome::Reproduced {
                        kind: v.kind.clone(),
                        message: fault.message,
                    });
                }
                return ReplayOutcome::Diverged {
                    step: step_no,
                    reason: format!(
                        "a {} violation happens earlier: {}",
                        fault.kind.name(),
                        fault.message
                    ),
                };
            }
        }
    }
    if let Some(start) = cycle_start {
        if start != state {
            return ReplayOutcome::Diverged {
                step: all.len() as u32,
                reason: "the recorded cycle does not return to the state it started from".into(),
            };
        }
    }
    let ends = |reason: String| ReplayOutcome::Diverged {
        step: all.len() as u32,
        reason,
    };
    let reproduced = || {
        check_steps(model, saved).unwrap_or(ReplayOutcome::Reproduced {
            kind: v.kind.clone(),
            message: v.message.clone(),
        })
    };
    match v.kind.as_str() {
        // The refined deadlock classes (and a divergent barrier found as a
        // deadlock under lockstep) end where the harness cannot finish.
        "deadlock" | "occupancy_deadlock" | "simd_deadlock" | "alias_deadlock"
        | "barrier_divergence" => {}
        "livelock" => {
            if v.trace.cycle_schedule.is_empty() || cycle_progress.iter().any(|p| *p > 0) {
                return ends("the recorded cycle is not a cycle without progress".into());
            }
            return reproduced();
        }
        "starvation" => {
            let starved = (0..model.layout.threads)
                .any(|t| !model.is_finished(&state, t) && cycle_progress[t] == 0);
            if v.trace.cycle_schedule.is_empty()
                || !starved
                || cycle_progress.iter().all(|p| *p == 0)
            {
                return ends("in the recorded cycle nobody starves while others progress".into());
            }
            return reproduced();
        }
        other => {
            return ends(format!(
                "the schedule ends without the recorded {other} violation"
            ))
        }
    }
    if can_still_finish(model, &state) {
        return ReplayOutcome::Diverged {
            step: v.trace.schedule.len() as u32,
            reason: "the harness can still finish from the state the schedule reaches".into(),
        };
    }
    check_steps(model, saved).unwrap_or(ReplayOutcome::Reproduced {
        kind: v.kind.clone(),
        message: v.message.clone(),
    })
}

/// Compares the recorded steps (instructions, values read and written) with
/// a fresh replay; `Some` on the first difference.
fn check_steps(model: &Model, saved: &SavedCounterexample) -> Option<ReplayOutcome> {
    let t = &saved.violation.trace;
    let (fresh, _) = build_trace(model, &t.schedule, &t.cycle_schedule);
    let recorded: Vec<&Step> = t.steps.iter().chain(&t.cycle).collect();
    let now: Vec<&Step> = fresh.steps.iter().chain(&fresh.cycle).collect();
    for (a, b) in recorded.iter().zip(&now) {
        if a != b {
            return Some(ReplayOutcome::Diverged {
                step: a.step,
                reason: format!(
                    "recorded `{}` (line {}) but replay executed `{}` (line {})",
                    a.instruction, a.span.line, b.instruction, b.span.line
                ),
            });
        }
    }
    if recorded.len() != now.len() {
        let step = recorded.get(now.len()).or(now.last()).map_or(0, |s| s.step);
        return Some(ReplayOutcome::Diverged {
            step,
            reason: format!(
                "recorded {} instructions, replay executed {}",
                recorded.len(),
                now.len()
            ),
        });
    }
    None
}

/// The model started from an arbitrary state.
struct FromState<'a, 'p> {
    model: &'a Model<'p>,
    start: &'a [u32],
}

impl TransitionSystem for FromState<'_, '_> {
    type Action = u32;
    type Fault = crate::model::Violation;

    fn state_words(&self) -> usize {
        self.model.state_words()
    }

    fn initial_state(&self, out: &mut [u32]) {
        out.copy_from_slice(self.start);
    }

    fn actions(&self, s: &[u32], out: &mut Vec<u32>) {
        self.model.actions(s, out)
    }

    fn step(&self, s: &[u32], a: u32, out: &mut [u32]) -> Result<(), Self::Fault> {
        self.model.step(s, a, out)
    }

    fn is_final(&self, s: &[u32]) -> bool {
        self.model.is_final(s)
    }
}

/// Whether some execution from `state` finishes the harness.
fn can_still_finish(model: &Model, state: &[u32]) -> bool {
    let sys = FromState {
        model,
        start: state,
    };
    let exploration = explore(
        &sys,
        &Options {
            keep_edges: true,
            ..Options::default()
        },
    );
    // A fault on the way is not "finishing"; any final state found is.
    exploration.final_states().count_ones() > 0
}

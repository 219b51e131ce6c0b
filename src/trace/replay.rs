//! Replay of a saved counterexample: re-execute its schedule step by step
//! against the spec and say whether the violation is still there, the bug
//! is fixed, the spec changed under the recording, or the recording is
//! corrupt.

use super::build_trace;
use crate::explore::{explore, Options, Outcome, TransitionSystem};
use crate::model::{Model, ViolationKind};
use crate::report::{
    spec_hash, Access, Limit, RunConfig, SavedCounterexample, Step, ViolationReport,
};

/// What replay concluded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayOutcome {
    /// The schedule still leads to the recorded kind of violation (at
    /// `step`; earlier than recorded only where the spec changed).
    Reproduced {
        kind: ViolationKind,
        message: String,
        step: u32,
        spec_changed: bool,
    },
    /// The spec changed and the violation no longer happens: at `step` the
    /// recorded move is no longer possible, or the schedule ends without the
    /// violation.
    Fixed { step: u32, reason: String },
    /// The spec changed and the recording no longer applies to it: the
    /// schedule now ends in another kind of violation.
    SpecChanged { step: u32, reason: String },
    /// The spec is unchanged, yet the recording does not replay: the file
    /// was edited or damaged.
    Corrupt { step: u32, reason: String },
    /// The schedule reaches the recorded deadlock's state, but whether the
    /// harness can still finish from there was not decided within the
    /// recorded limits (`max_states`, `max_seconds`, `max_memory_mb`).
    Inconclusive { step: u32, reason: String },
}

impl ReplayOutcome {
    /// `reproduced`, `fixed`, `spec_changed`, `corrupt`, `inconclusive`.
    pub fn name(&self) -> &'static str {
        match self {
            ReplayOutcome::Reproduced { .. } => "reproduced",
            ReplayOutcome::Fixed { .. } => "fixed",
            ReplayOutcome::SpecChanged { .. } => "spec_changed",
            ReplayOutcome::Corrupt { .. } => "corrupt",
            ReplayOutcome::Inconclusive { .. } => "inconclusive",
        }
    }

    /// The exit code of `gsync-check replay` (2 is a usage or spec error).
    pub fn exit_code(&self) -> i32 {
        match self {
            ReplayOutcome::Fixed { .. } => 0,
            ReplayOutcome::Reproduced { .. } => 1,
            ReplayOutcome::SpecChanged { .. } => 4,
            ReplayOutcome::Corrupt { .. } => 5,
            // As for a check stopped by a limit.
            ReplayOutcome::Inconclusive { .. } => 3,
        }
    }
}

/// Why a replay did not reach the recorded violation.
enum Divergence {
    /// The recorded move is not possible (the bug is fixed, if the spec changed).
    CannotMove(String),
    /// The schedule ends without the violation (fixed, if the spec changed).
    Gone(String),
    /// Another kind of violation happens first.
    Other {
        kind: ViolationKind,
        message: String,
    },
    /// What a step did differs from the recording (compared only when the
    /// spec is unchanged: an edit moves lines).
    StepDiffers(String),
    /// Whether the harness can still finish from the end was not decided
    /// within the recorded limits.
    Undecided(String),
}

/// Where replay stopped matching the recording: the step, and why.
type Diverged = (u32, Divergence);

/// Replays `saved` on `model`, built from the spec whose text is
/// `spec_text` under the saved config.
pub fn replay(model: &Model, saved: &SavedCounterexample, spec_text: &str) -> ReplayOutcome {
    let spec_changed = spec_hash(spec_text) != saved.spec_hash;
    let (step, divergence) = match run_schedule(model, saved, spec_changed) {
        Ok(outcome) => return outcome,
        Err((step, Divergence::Undecided(reason))) => {
            return ReplayOutcome::Inconclusive { step, reason };
        }
        Err(d) => d,
    };
    if !spec_changed {
        let reason = match divergence {
            Divergence::CannotMove(r)
            | Divergence::Gone(r)
            | Divergence::StepDiffers(r)
            | Divergence::Undecided(r) => r,
            Divergence::Other { kind, message } => {
                format!("a {kind} violation happens instead: {message}")
            }
        };
        return ReplayOutcome::Corrupt { step, reason };
    }
    match divergence {
        Divergence::CannotMove(reason) | Divergence::Gone(reason) => {
            ReplayOutcome::Fixed { step, reason }
        }
        Divergence::Other { kind, message } => ReplayOutcome::SpecChanged {
            step,
            reason: format!(
                "the schedule now ends in a {kind} violation, not the recorded {}: {message}",
                saved.violation.kind
            ),
        },
        Divergence::StepDiffers(reason) | Divergence::Undecided(reason) => {
            ReplayOutcome::SpecChanged { step, reason }
        }
    }
}

/// Runs the recorded moves and checks that they end in the recorded
/// violation, and (spec unchanged) that each step did what was recorded.
fn run_schedule(
    model: &Model,
    saved: &SavedCounterexample,
    spec_changed: bool,
) -> Result<ReplayOutcome, Diverged> {
    let v = &saved.violation;
    let (message, step) = match walk(model, v, spec_changed)? {
        Walked::Raised { message, step } => (message, step),
        Walked::Ended(end) => (v.message.clone(), check_end(model, v, &end, &saved.config)?),
    };
    if !spec_changed {
        compare_steps(model, saved)?;
    }
    Ok(ReplayOutcome::Reproduced {
        kind: v.kind,
        message,
        step,
        spec_changed,
    })
}

/// Where the recorded moves led, when each of them was possible.
enum Walked {
    /// A step raised the recorded kind of violation: the last step, or an
    /// earlier one where the spec changed (the bug, reached sooner).
    Raised { message: String, step: u32 },
    /// The moves ran to the end without a violation.
    Ended(End),
}

/// The end of the recorded moves, for the violations that show in the
/// state graph rather than at a step (deadlock, livelock, starvation).
struct End {
    state: Vec<u32>,
    /// The state the cycle started from (`None` without a cycle).
    cycle_start: Option<Vec<u32>>,
    /// Per thread: how many of its moves in the cycle made progress.
    cycle_progress: Vec<usize>,
}

/// Makes the recorded moves (the schedule, then the cycle) from the
/// initial state; `Err` at the first that is impossible or raises another
/// violation than the recorded one.
fn walk(model: &Model, v: &ViolationReport, spec_changed: bool) -> Result<Walked, Diverged> {
    let words = model.threads.layout.words();
    let mut state = vec![0u32; words];
    model.initial_state(&mut state);
    let mut next = vec![0u32; words];
    let moves: Vec<u32> = v
        .trace
        .schedule
        .iter()
        .chain(&v.trace.cycle_schedule)
        .copied()
        .collect();
    let mut cycle_start = None;
    let mut cycle_progress = vec![0usize; model.threads.layout.threads];
    for (i, &t) in moves.iter().enumerate() {
        let step = i as u32 + 1;
        if i == v.trace.schedule.len() {
            cycle_start = Some(state.clone());
        }
        let thread = possible_move(model, &state, t).map_err(|d| (step, d))?;
        let (result, labels) = model.step_labels(&state, t, &mut next);
        if cycle_start.is_some() && labels.progressed {
            cycle_progress[thread] += 1;
        }
        match result {
            Ok(()) => std::mem::swap(&mut state, &mut next),
            Err(fault) if fault.kind == v.kind && (i + 1 == moves.len() || spec_changed) => {
                let message = fault.message;
                return Ok(Walked::Raised { message, step });
            }
            Err(fault) => {
                let (kind, message) = (fault.kind, fault.message);
                return Err((step, Divergence::Other { kind, message }));
            }
        }
    }
    Ok(Walked::Ended(End {
        state,
        cycle_start,
        cycle_progress,
    }))
}

/// The thread that makes move `t`, where the launch has it and it can
/// make that move in `state`.
fn possible_move(model: &Model, state: &[u32], t: u32) -> Result<usize, Divergence> {
    let thread = crate::model::thread_of(t);
    let threads = model.threads.layout.threads;
    if thread >= threads {
        return Err(Divergence::CannotMove(format!(
            "the schedule moves thread {thread}, but the launch has {threads}"
        )));
    }
    let mut actions = Vec::new();
    model.actions(state, &mut actions);
    if !actions.contains(&t) {
        return Err(Divergence::CannotMove(format!(
            "{} cannot make the recorded move in this state",
            model.threads.thread_name(thread)
        )));
    }
    Ok(thread)
}

/// Checks that the state the moves reach shows the recorded violation:
/// for a deadlock, that the harness cannot finish from it; for a livelock
/// or starvation, that the cycle returns to where it started and nobody
/// (or only some) progress in it. Returns the violation's step, the last.
fn check_end(
    model: &Model,
    v: &ViolationReport,
    end: &End,
    config: &RunConfig,
) -> Result<u32, Diverged> {
    let last_step = (v.trace.schedule.len() + v.trace.cycle_schedule.len()) as u32;
    let gone = |reason: &str| Err((last_step, Divergence::Gone(reason.to_string())));
    // The cycle returns to a state with the same futures: the same state,
    // up to the writers no step reads (the search stores them forgotten:
    // `Reductions::forget`), so the same moves repeat it forever.
    let same = |a: &[u32], b: &[u32]| match model.memory.ptx() {
        Some(w) => {
            let (mut a, mut b) = (a.to_vec(), b.to_vec());
            w.forget(&mut a);
            w.forget(&mut b);
            a == b
        }
        None => a == b,
    };
    if end
        .cycle_start
        .as_ref()
        .is_some_and(|s| !same(s, &end.state))
    {
        return gone("the recorded cycle does not return to the state it started from");
    }
    let no_cycle = v.trace.cycle_schedule.is_empty();
    let progress = &end.cycle_progress;
    match v.kind {
        // The refined deadlock classes (and a divergent barrier found as a
        // deadlock under lockstep) end where the harness cannot finish.
        ViolationKind::Deadlock
        | ViolationKind::OccupancyDeadlock
        | ViolationKind::SimdDeadlock
        | ViolationKind::AliasDeadlock
        | ViolationKind::BarrierDivergence => {
            let at = v.trace.schedule.len() as u32;
            match can_still_finish(model, &end.state, config) {
                Finish::Yes => {
                    let reason = "the harness can still finish from the state the schedule reaches";
                    return Err((at, Divergence::Gone(reason.into())));
                }
                Finish::Undecided(limit) => {
                    let reason = match limit {
                        Limit::Interrupted => "the schedule reaches the recorded state, but the search for a way to finish the harness from it was interrupted".to_string(),
                        _ => format!("the schedule reaches the recorded state, but the search for a way to finish the harness from it stopped at the recorded {limit} limit"),
                    };
                    return Err((last_step, Divergence::Undecided(reason)));
                }
                Finish::No => {}
            }
        }
        ViolationKind::Livelock => {
            if no_cycle || progress.iter().any(|p| *p > 0) {
                return gone("the recorded cycle is not a cycle without progress");
            }
        }
        ViolationKind::Starvation => {
            let starved = (0..model.threads.layout.threads)
                .any(|t| !model.threads.is_finished(&end.state, t) && progress[t] == 0);
            if no_cycle || !starved || progress.iter().all(|p| *p == 0) {
                return gone("in the recorded cycle nobody starves while others progress");
            }
        }
        other => {
            return gone(&format!(
                "the schedule ends without the recorded {other} violation"
            ))
        }
    }
    Ok(last_step)
}

/// Compares the recorded steps (instructions, values read and written) with
/// a fresh replay; `Err` names the first difference.
fn compare_steps(model: &Model, saved: &SavedCounterexample) -> Result<(), Diverged> {
    let t = &saved.violation.trace;
    let (fresh, _) = build_trace(model, &t.schedule, &t.cycle_schedule);
    let recorded: Vec<&Step> = t.steps.iter().chain(&t.cycle).collect();
    let now: Vec<&Step> = fresh.steps.iter().chain(&fresh.cycle).collect();
    if let Some((a, b)) = recorded.iter().zip(&now).find(|(a, b)| a != b) {
        return Err((a.step, Divergence::StepDiffers(step_difference(a, b))));
    }
    if recorded.len() != now.len() {
        let step = recorded.get(now.len()).or(now.last()).map_or(0, |s| s.step);
        return Err((
            step,
            Divergence::StepDiffers(format!(
                "recorded {} instructions, replay executed {}",
                recorded.len(),
                now.len()
            )),
        ));
    }
    Ok(())
}

/// What differs between a recorded step and the replayed one, naming the
/// field that differs (two steps can agree on instruction and line).
fn step_difference(recorded: &Step, replayed: &Step) -> String {
    let what = |s: &Step| format!("`{}` (line {})", s.instruction, s.span.line);
    let (a, b) = (recorded, replayed);
    if (a.thread, a.block, a.warp, a.lane) != (b.thread, b.block, b.warp, b.lane) {
        return format!(
            "recorded thread {} (block {}) but replay moved thread {} (block {})",
            a.thread, a.block, b.thread, b.block
        );
    }
    if (&a.instruction, a.span.line) != (&b.instruction, b.span.line) {
        return format!("recorded {} but replay executed {}", what(a), what(b));
    }
    if a.pc != b.pc || a.span != b.span {
        return format!(
            "{} is recorded as instruction {} at column {}, replay runs instruction {} at column {}",
            what(a),
            a.pc,
            a.span.column,
            b.pc,
            b.span.column
        );
    }
    let detail = if a.reads != b.reads {
        accesses_differ("reads of", "read", &a.reads, &b.reads)
    } else if a.writes != b.writes {
        accesses_differ("writes of", "wrote", &a.writes, &b.writes)
    } else if a.active_mask != b.active_mask {
        let mask = |s: &Step| format!("{:?}", s.active_mask);
        format!("recorded active lanes {}, replay {}", mask(a), mask(b))
    } else {
        let note = |s: &Step| format!("{:?}", s.note.as_deref().unwrap_or(""));
        format!("recorded note {}, replay {}", note(a), note(b))
    };
    format!("{}: {detail}", what(a))
}

/// `recorded reads of x = 1, replay read x = 0`.
fn accesses_differ(recorded_what: &str, replay_did: &str, a: &[Access], b: &[Access]) -> String {
    let shown = |accesses: &[Access]| {
        let shown: Vec<String> = accesses
            .iter()
            .map(|x| format!("{} = {}", x.location, x.value))
            .collect();
        if shown.is_empty() {
            "nothing".to_string()
        } else {
            shown.join(", ")
        }
    };
    format!(
        "recorded {recorded_what} {}, replay {replay_did} {}",
        shown(a),
        shown(b)
    )
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

/// Whether some execution from a state finishes the harness.
enum Finish {
    Yes,
    No,
    /// Neither found within the limits: the search stopped at this one.
    Undecided(Limit),
}

/// Whether some execution from `state` finishes the harness, searched
/// within the limits the counterexample was recorded under (an edited
/// launch must not make replay run for hours).
fn can_still_finish(model: &Model, state: &[u32], config: &RunConfig) -> Finish {
    let sys = FromState {
        model,
        start: state,
    };
    let exploration = explore(
        &sys,
        &Options {
            keep_edges: true,
            ..config.limits.options()
        },
    );
    // A fault on the way is not "finishing"; any final state found is.
    if exploration.final_states().count_ones() > 0 {
        return Finish::Yes;
    }
    match exploration.outcome() {
        Outcome::Limit(kind) => Finish::Undecided(Limit::from(*kind)),
        _ => Finish::No,
    }
}

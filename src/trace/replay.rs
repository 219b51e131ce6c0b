//! Saved counterexamples and their replay: re-execute the schedule step by
//! step against the spec and say whether the violation is still there, the
//! bug is fixed, the spec changed under the recording, or the recording is
//! corrupt.

use super::counterexample::{build_trace, Access, Step};
use super::{Report, RunConfig, ViolationReport};
use crate::explore::{explore, LimitKind, Options, Outcome, TransitionSystem};
use crate::model::Model;
use serde::{Deserialize, Serialize};
use std::path::{Component, Path, PathBuf};

/// A counterexample file (`--out DIR`, `counterexamples/`): everything
/// replay needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedCounterexample {
    pub spec: String,
    /// `builtin:NAME`, or the spec's path: relative to the folder of the
    /// counterexample file (so replay works from any directory and the two
    /// can move together), or absolute.
    pub source: String,
    /// [`spec_hash`] of the spec's text when it was checked: replay tells a
    /// changed spec from a corrupt recording by it.
    pub spec_hash: String,
    pub config: RunConfig,
    pub violation: ViolationReport,
}

impl SavedCounterexample {
    /// The counterexample of `violation`, found by `report` on the spec
    /// whose text is `spec_text`; `source` as the report has it.
    pub fn new(report: &Report, violation: &ViolationReport, spec_text: &str) -> Self {
        SavedCounterexample {
            spec: report.spec.clone(),
            source: report.source.clone(),
            spec_hash: spec_hash(spec_text),
            config: report.config.clone(),
            violation: violation.clone(),
        }
    }

    /// Records a spec file's path relative to `dir`, the folder the
    /// counterexample is written to (built-ins keep their name).
    pub fn locate_source_from(&mut self, dir: &Path) {
        if self.source.starts_with(BUILTIN) {
            return;
        }
        let absolute = |p: &Path| {
            std::fs::canonicalize(p).unwrap_or_else(|_| {
                std::env::current_dir()
                    .map(|cwd| cwd.join(p))
                    .unwrap_or_else(|_| p.to_path_buf())
            })
        };
        let spec = absolute(Path::new(&self.source));
        let path = relative_path(&spec, &absolute(dir)).unwrap_or(spec);
        self.source = path.to_string_lossy().replace('\\', "/");
    }

    /// Where the spec is: a built-in's name, or the path of its file
    /// (`source` resolved against the folder of `file`, this counterexample).
    pub fn spec_location(&self, file: &Path) -> SpecLocation {
        match self.source.strip_prefix(BUILTIN) {
            Some(name) => SpecLocation::Builtin(name.to_string()),
            None => {
                let dir = file.parent().unwrap_or(Path::new(""));
                SpecLocation::File(dir.join(&self.source))
            }
        }
    }
}

const BUILTIN: &str = "builtin:";

/// Where a saved counterexample's spec is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpecLocation {
    Builtin(String),
    File(PathBuf),
}

/// `base`-relative path to `target` (both absolute); `None` when they have
/// no common root (another drive).
fn relative_path(target: &Path, base: &Path) -> Option<PathBuf> {
    let t: Vec<Component> = target.components().collect();
    let b: Vec<Component> = base.components().collect();
    if t.first() != b.first() {
        return None;
    }
    let common = t.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &t[common..] {
        out.push(c);
    }
    Some(out)
}

/// A content hash of a spec's text (64-bit FNV-1a, as `fnv1a64:HEX`): it
/// detects an edit, not an adversary.
pub fn spec_hash(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("fnv1a64:{h:016x}")
}

/// What replay concluded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayOutcome {
    /// The schedule still leads to the recorded kind of violation (at
    /// `step`; earlier than recorded only where the spec changed).
    Reproduced {
        kind: String,
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
    /// `reproduced`, `fixed`, `spec_changed`, `corrupt`.
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
    Other { kind: String, message: String },
    /// What a step did differs from the recording (compared only when the
    /// spec is unchanged: an edit moves lines).
    StepDiffers(String),
}

/// Replays `saved` on `model`, built from the spec whose text is
/// `spec_text` under the saved config.
pub fn replay(model: &Model, saved: &SavedCounterexample, spec_text: &str) -> ReplayOutcome {
    let spec_changed = spec_hash(spec_text) != saved.spec_hash;
    let (step, divergence) = match run_schedule(model, saved, spec_changed) {
        Ok(outcome) => return outcome,
        Err(d) => d,
    };
    if !spec_changed {
        let reason = match divergence {
            Divergence::CannotMove(r) | Divergence::Gone(r) | Divergence::StepDiffers(r) => r,
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
        Divergence::StepDiffers(reason) => ReplayOutcome::SpecChanged { step, reason },
    }
}

/// Runs the schedule; `Err((step, why))` where it stops matching the
/// recording.
fn run_schedule(
    model: &Model,
    saved: &SavedCounterexample,
    spec_changed: bool,
) -> Result<ReplayOutcome, (u32, Divergence)> {
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
    let last_step = all.len() as u32;
    let reproduced = |message: String, step: u32| -> Result<ReplayOutcome, (u32, Divergence)> {
        if !spec_changed {
            compare_steps(model, saved)?;
        }
        Ok(ReplayOutcome::Reproduced {
            kind: v.kind.clone(),
            message,
            step,
            spec_changed,
        })
    };
    let gone = |reason: &str| Err((last_step, Divergence::Gone(reason.to_string())));
    let mut cycle_start = None;
    // Progress per thread during the cycle, for livelock and starvation.
    let mut cycle_progress = vec![0usize; model.layout.threads];
    for (i, &t) in all.iter().enumerate() {
        let step_no = i as u32 + 1;
        if i == v.trace.schedule.len() {
            cycle_start = Some(state.clone());
        }
        let thread = crate::model::thread_of(t);
        if thread >= model.layout.threads {
            return Err((
                step_no,
                Divergence::CannotMove(format!(
                    "the schedule moves thread {thread}, but the launch has {}",
                    model.layout.threads
                )),
            ));
        }
        actions.clear();
        model.actions(&state, &mut actions);
        if !actions.contains(&t) {
            return Err((
                step_no,
                Divergence::CannotMove(format!(
                    "{} cannot make the recorded move in this state",
                    model.thread_name(thread)
                )),
            ));
        }
        let (result, progressed) = model.step_progress(&state, t, &mut next);
        if cycle_start.is_some() && progressed {
            cycle_progress[thread] += 1;
        }
        match result {
            Ok(()) => std::mem::swap(&mut state, &mut next),
            // The recorded kind, at the last step; or earlier, where the
            // spec changed (then the bug is still there, reached sooner).
            Err(fault) if fault.kind.name() == v.kind && (i + 1 == all.len() || spec_changed) => {
                return reproduced(fault.message, step_no)
            }
            Err(fault) => {
                return Err((
                    step_no,
                    Divergence::Other {
                        kind: fault.kind.name().to_string(),
                        message: fault.message,
                    },
                ))
            }
        }
    }
    if let Some(start) = cycle_start {
        if start != state {
            return gone("the recorded cycle does not return to the state it started from");
        }
    }
    match v.kind.as_str() {
        // The refined deadlock classes (and a divergent barrier found as a
        // deadlock under lockstep) end where the harness cannot finish.
        "deadlock" | "occupancy_deadlock" | "simd_deadlock" | "alias_deadlock"
        | "barrier_divergence" => {}
        "livelock" => {
            if v.trace.cycle_schedule.is_empty() || cycle_progress.iter().any(|p| *p > 0) {
                return gone("the recorded cycle is not a cycle without progress");
            }
            return reproduced(v.message.clone(), last_step);
        }
        "starvation" => {
            let starved = (0..model.layout.threads)
                .any(|t| !model.is_finished(&state, t) && cycle_progress[t] == 0);
            if v.trace.cycle_schedule.is_empty()
                || !starved
                || cycle_progress.iter().all(|p| *p == 0)
            {
                return gone("in the recorded cycle nobody starves while others progress");
            }
            return reproduced(v.message.clone(), last_step);
        }
        other => {
            return gone(&format!(
                "the schedule ends without the recorded {other} violation"
            ))
        }
    }
    match can_still_finish(model, &state, &saved.config) {
        Finish::Yes => Err((
            v.trace.schedule.len() as u32,
            Divergence::Gone(
                "the harness can still finish from the state the schedule reaches".into(),
            ),
        )),
        Finish::No => reproduced(v.message.clone(), last_step),
        Finish::Undecided(limit) => Ok(ReplayOutcome::Inconclusive {
            step: last_step,
            reason: format!(
                "the schedule reaches the recorded state, but the search for a way to finish the harness from it stopped at the recorded {limit} limit"
            ),
        }),
    }
}

/// Compares the recorded steps (instructions, values read and written) with
/// a fresh replay; `Err` names the first difference.
fn compare_steps(model: &Model, saved: &SavedCounterexample) -> Result<(), (u32, Divergence)> {
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
    let accesses = |a: &[Access]| {
        let shown: Vec<String> = a
            .iter()
            .map(|x| format!("{} = {}", x.location, x.value))
            .collect();
        if shown.is_empty() {
            "nothing".to_string()
        } else {
            shown.join(", ")
        }
    };
    let (a, b) = (recorded, replayed);
    if (a.thread, a.block, a.warp, a.lane) != (b.thread, b.block, b.warp, b.lane) {
        format!(
            "recorded thread {} (block {}) but replay moved thread {} (block {})",
            a.thread, a.block, b.thread, b.block
        )
    } else if (&a.instruction, a.span.line) != (&b.instruction, b.span.line) {
        format!("recorded {} but replay executed {}", what(a), what(b))
    } else if a.pc != b.pc || a.span != b.span {
        format!(
            "{} is recorded as instruction {} at column {}, replay runs instruction {} at column {}",
            what(a),
            a.pc,
            a.span.column,
            b.pc,
            b.span.column
        )
    } else if a.reads != b.reads {
        format!(
            "{}: recorded reads of {}, replay read {}",
            what(a),
            accesses(&a.reads),
            accesses(&b.reads)
        )
    } else if a.writes != b.writes {
        format!(
            "{}: recorded writes of {}, replay wrote {}",
            what(a),
            accesses(&a.writes),
            accesses(&b.writes)
        )
    } else if a.active_mask != b.active_mask {
        format!(
            "{}: recorded active lanes {:?}, replay {:?}",
            what(a),
            a.active_mask,
            b.active_mask
        )
    } else {
        format!(
            "{}: recorded note {:?}, replay {:?}",
            what(a),
            a.note.as_deref().unwrap_or(""),
            b.note.as_deref().unwrap_or("")
        )
    }
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
    Undecided(&'static str),
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
            max_states: config.max_states,
            max_seconds: config.max_seconds,
            max_memory_bytes: config.max_memory_mb.map(|mb| mb.saturating_mul(1 << 20)),
            ..Options::default()
        },
    );
    // A fault on the way is not "finishing"; any final state found is.
    if exploration.final_states().count_ones() > 0 {
        return Finish::Yes;
    }
    match exploration.outcome() {
        Outcome::Limit(LimitKind::States) => Finish::Undecided("max_states"),
        Outcome::Limit(LimitKind::Time) => Finish::Undecided("max_seconds"),
        Outcome::Limit(LimitKind::Memory) => Finish::Undecided("max_memory_mb"),
        _ => Finish::No,
    }
}

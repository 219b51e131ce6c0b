//! A counterexample trace: the schedule (which thread moved at each step)
//! and, for readers, what each step did, rebuilt by replaying the schedule.

use crate::ir::{Op, Program};
use crate::model::{Event, Model, Violation};
use serde::{Deserialize, Serialize};

/// Where an instruction is in the spec.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourcePos {
    /// The file, when it is not the spec itself (a CUDA file a harness
    /// imports): its last path component.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Access {
    pub location: String,
    pub value: i64,
}

/// One executed instruction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// Scheduling step (1-based): instructions with the same step ran as one
    /// atomic move of their thread.
    pub step: u32,
    pub thread: u32,
    pub block: u32,
    pub warp: u32,
    pub lane: u32,
    pub pc: u32,
    /// The source text of the instruction (its first line).
    pub instruction: String,
    pub span: SourcePos,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<Access>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub writes: Vec<Access>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The warp's active mask: bit `l` set when lane `l` executed this
    /// instruction in this step (absent for a warp of one thread).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_mask: Option<u64>,
}

/// A counterexample. For a safety violation `cycle` is empty; for a deadlock
/// in which threads keep spinning, `cycle` shows a loop they can repeat
/// forever without finishing.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trace {
    /// Thread index moved at each step from the initial state.
    pub schedule: Vec<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cycle_schedule: Vec<u32>,
    pub steps: Vec<Step>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cycle: Vec<Step>,
}

/// Instructions worth showing: memory, synchronization and checks, not the
/// thread-local bookkeeping between them.
pub fn is_shown(op: &Op) -> bool {
    !matches!(
        op,
        Op::Assign { .. } | Op::Jump { .. } | Op::Branch { .. } | Op::Progress
    )
}

/// Replays `schedule` (then `cycle`) from the initial state and records the
/// steps. Returns the trace and the violation the last step raised, if any.
pub fn build_trace(model: &Model, schedule: &[u32], cycle: &[u32]) -> (Trace, Option<Violation>) {
    let words = model.threads.layout.words();
    let mut state = vec![0u32; words];
    crate::explore::TransitionSystem::initial_state(model, &mut state);
    let mut next = vec![0u32; words];
    let mut trace = Trace {
        schedule: schedule.to_vec(),
        cycle_schedule: cycle.to_vec(),
        ..Trace::default()
    };
    let mut fault = None;
    let mut step_no = 0;
    for (part, actions) in [(0, schedule), (1, cycle)] {
        for &t in actions {
            step_no += 1;
            let mut events = Vec::new();
            let result = model.step_recorded(&state, t, &mut next, &mut events);
            let steps = events
                .iter()
                .filter_map(|e| step_of(model.prog, e, step_no));
            if part == 0 {
                trace.steps.extend(steps);
            } else {
                trace.cycle.extend(steps);
            }
            if let Err(v) = result {
                if let Some(pc) = v.pc {
                    // The failing instruction raised before it was recorded.
                    let e = Event {
                        thread: crate::model::thread_of(t) as u32,
                        pc,
                        ..Event::default()
                    };
                    let mut failing = step_of_any(model.prog, &e, step_no);
                    failing.note = Some(format!("violation: {}", v.message));
                    trace.steps.push(failing);
                }
                fault = Some(v);
                return (trace, fault);
            }
            std::mem::swap(&mut state, &mut next);
        }
    }
    (trace, fault)
}

fn step_of(prog: &Program, e: &Event, step_no: u32) -> Option<Step> {
    is_shown(&prog.code[e.pc as usize].op).then(|| step_of_any(prog, e, step_no))
}

fn step_of_any(prog: &Program, e: &Event, step_no: u32) -> Step {
    let instr = &prog.code[e.pc as usize];
    let (line, column) = prog.source.line_col(instr.span.start);
    let (end_line, end_column) = prog.source.line_col(instr.span.end);
    let launch = prog.launch;
    let in_block = e.thread % launch.threads_per_block;
    let text = prog.source.snippet(instr.span);
    let instruction = match instr.op {
        Op::Exit => "(finishes the harness)".to_string(),
        Op::CriticalEnter { .. } => "(enters the critical section)".to_string(),
        Op::CriticalExit => "(leaves the critical section)".to_string(),
        Op::PhaseEnter => "(enters the phase)".to_string(),
        Op::PhaseExit => "(leaves the phase)".to_string(),
        _ => first_line(text),
    };
    let access = |v: &Vec<(String, i64)>| {
        v.iter()
            .map(|(location, value)| Access {
                location: location.clone(),
                value: *value,
            })
            .collect()
    };
    Step {
        step: step_no,
        thread: e.thread,
        block: e.thread / launch.threads_per_block,
        warp: in_block / launch.warp_size,
        lane: in_block % launch.warp_size,
        pc: e.pc,
        instruction,
        span: SourcePos {
            file: prog
                .source
                .appended_file_name(instr.span.start)
                .map(str::to_string),
            line,
            column,
            end_line,
            end_column,
        },
        reads: access(&e.reads),
        writes: access(&e.writes),
        note: e.note.clone(),
        active_mask: e.active,
    }
}

/// The first line of a snippet, trimmed, with an ellipsis when more follows.
fn first_line(text: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("").trim();
    if lines.next().is_some() {
        format!("{first} …")
    } else {
        first.to_string()
    }
}

//! Building a counterexample's [`Trace`] from the model: replay the
//! schedule (then the cycle) from the initial state and record, for
//! readers, what each step did.

use crate::diag::Source;
use crate::diag::Span;
use crate::ir::{Op, Program};
use crate::model::{Event, Model, Violation};
use crate::report::{Access, SourcePos, Step, Trace};

/// Instructions worth showing: memory, synchronization and checks, not the
/// thread-local bookkeeping between them.
fn is_shown(op: &Op) -> bool {
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
                return (trace, Some(v));
            }
            std::mem::swap(&mut state, &mut next);
        }
    }
    (trace, None)
}

fn step_of(prog: &Program, e: &Event, step_no: u32) -> Option<Step> {
    is_shown(&prog.code[e.pc as usize].op).then(|| step_of_any(prog, e, step_no))
}

fn step_of_any(prog: &Program, e: &Event, step_no: u32) -> Step {
    let instr = &prog.code[e.pc as usize];
    let launch = prog.launch;
    let in_block = e.thread % launch.threads_per_block;
    let instruction = match instr.op {
        Op::Exit => "(finishes the harness)".to_string(),
        Op::CriticalEnter { .. } => "(enters the critical section)".to_string(),
        Op::CriticalExit => "(leaves the critical section)".to_string(),
        Op::PhaseEnter => "(enters the phase)".to_string(),
        Op::PhaseExit => "(leaves the phase)".to_string(),
        _ => first_line(prog.source.snippet(instr.span)),
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
        span: source_pos(&prog.source, instr.span),
        reads: access(&e.reads),
        writes: access(&e.writes),
        note: e.note.clone(),
        active_mask: e.active,
    }
}

/// Where `span` of the program's source is, as a report names it.
pub(super) fn source_pos(source: &Source, span: Span) -> SourcePos {
    let (line, column) = source.line_col(span.start);
    let (end_line, end_column) = source.line_col(span.end);
    SourcePos {
        file: source.appended_file_name(span.start).map(str::to_string),
        line,
        column,
        end_line,
        end_column,
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

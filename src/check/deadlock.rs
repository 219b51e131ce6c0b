//! Deadlock: a reachable state from which the harness can never finish.

use super::Finding;
use crate::explore::{Exploration, StateId};
use crate::ir::Op;
use crate::model::{Model, Violation, ViolationKind};

/// Finds the shortest-reachable state that cannot finish, if any, and
/// explains it.
pub fn find(model: &Model, exploration: &Exploration<u32, Violation>) -> Option<Finding> {
    let can_finish = exploration.can_finish();
    let stuck: StateId = exploration.first_state_that_cannot_finish()?;
    let state = exploration.state(stuck);
    let schedule: Vec<u32> = exploration.path_to(stuck).into_iter().map(|(_, a)| a).collect();
    // Threads that can still move only go round in circles: show one loop.
    let cycle: Vec<u32> = exploration
        .cycle_from(stuck, |id| !can_finish.get(id))
        .map(|lasso| {
            let mut c: Vec<u32> = lasso.stem.into_iter().map(|(_, a)| a).collect();
            c.extend(lasso.cycle.into_iter().map(|(_, a)| a));
            c
        })
        .unwrap_or_default();
    let waiting = describe_threads(model, state);
    let spinning = !cycle.is_empty();
    let message = if spinning {
        "no execution can finish the harness from here: the threads that can still move spin forever".to_string()
    } else {
        "no execution can finish the harness from here: every unfinished thread is blocked".to_string()
    };
    Some(Finding {
        kind: ViolationKind::Deadlock,
        property: "deadlock",
        message,
        waiting,
        schedule,
        cycle,
    })
}

/// One line per unfinished thread: where it is and what it waits for.
pub fn describe_threads(model: &Model, state: &[u32]) -> Vec<String> {
    let prog = model.prog;
    let mut lines = Vec::new();
    for t in 0..model.layout.threads {
        if model.is_finished(state, t) {
            continue;
        }
        let pc = model.pc(state, t);
        let instr = &prog.code[pc as usize];
        let (line, _) = prog.source.line_col(instr.span.start);
        let text = prog.source.snippet(instr.span).lines().next().unwrap_or("").trim().to_string();
        let who = model.thread_name(t);
        let what = if model.is_waiting_at_barrier(state, t) {
            let missing: Vec<String> = model
                .layout
                .block_threads(t)
                .filter(|u| !model.is_finished(state, *u) && !model.is_waiting_at_barrier(state, *u))
                .map(|u| model.thread_name(u))
                .collect();
            format!(
                "waits at `__syncthreads()` (line {line}) for {}",
                if missing.is_empty() {
                    "the rest of its block".to_string()
                } else {
                    missing.join(", ")
                }
            )
        } else {
            match &instr.op {
                Op::Load { .. } | Op::Atomic { .. } => {
                    format!("spins at line {line}: `{text}`")
                }
                _ => format!("is at line {line}: `{text}`"),
            }
        };
        lines.push(format!("{who} {what}"));
    }
    lines
}

//! Deadlock: a reachable state from which the harness can never finish.

use super::Finding;
use crate::explore::{Exploration, StateId};
use crate::ir::Op;
use crate::model::{Model, Violation, ViolationKind};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;

/// Finds the shortest-reachable state that cannot finish, if any, and
/// explains it. The trace goes on from there to where the threads end up:
/// the nearest state in which nobody can move (all blocked), or else a
/// cycle they can repeat forever (spinning).
pub fn find(model: &Model, exploration: &Exploration<u32, Violation>) -> Option<Finding> {
    let can_finish = exploration.can_finish();
    let stuck: StateId = exploration.first_state_that_cannot_finish()?;
    let mut schedule: Vec<u32> = exploration
        .path_to(stuck)
        .into_iter()
        .map(|(_, a)| a)
        .collect();
    let trapped = |id: StateId| !can_finish.get(id);
    let (end, cycle) = match nearest_sink(exploration, stuck, &trapped) {
        Some((sink, path)) => {
            schedule.extend(path);
            (sink, Vec::new())
        }
        None => match exploration.cycle_from(stuck, trapped) {
            Some(lasso) => {
                schedule.extend(lasso.stem.iter().map(|(_, a)| *a));
                let entry = lasso.cycle.first().map_or(stuck, |(id, _)| *id);
                (entry, lasso.cycle.into_iter().map(|(_, a)| a).collect())
            }
            None => (stuck, Vec::new()),
        },
    };
    let waiting = describe_threads(model, exploration.state(end));
    let message = if cycle.is_empty() {
        "no execution can finish the harness: every unfinished thread is blocked".to_string()
    } else {
        "no execution can finish the harness: the threads that can still move spin forever"
            .to_string()
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

/// Breadth-first from `start` inside `within`: the nearest state with no
/// successor, and the actions leading to it.
fn nearest_sink(
    exploration: &Exploration<u32, Violation>,
    start: StateId,
    within: &impl Fn(StateId) -> bool,
) -> Option<(StateId, Vec<u32>)> {
    let mut parent: FxHashMap<StateId, (StateId, u32)> = FxHashMap::default();
    let mut queue = VecDeque::from([start]);
    let mut seen = FxHashSet::from_iter([start]);
    while let Some(id) = queue.pop_front() {
        if exploration.is_expanded(id) && exploration.successors(id).len() == 0 {
            let mut path = Vec::new();
            let mut at = id;
            while let Some((p, a)) = parent.get(&at) {
                path.push(*a);
                at = *p;
            }
            path.reverse();
            return Some((id, path));
        }
        for (a, next) in exploration.successors(id) {
            if within(next) && seen.insert(next) {
                parent.insert(next, (id, a));
                queue.push_back(next);
            }
        }
    }
    None
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
        let text = prog
            .source
            .snippet(instr.span)
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        let who = model.thread_name(t);
        let what = if model.is_waiting_at_barrier(state, t) {
            let missing: Vec<String> = model
                .layout
                .block_threads(t)
                .filter(|u| {
                    !model.is_finished(state, *u) && !model.is_waiting_at_barrier(state, *u)
                })
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

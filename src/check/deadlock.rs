//! Deadlock: a reachable state from which the harness can never finish.

use super::graph::LabeledGraph;
use super::{Checkable, Finding};
use crate::explore::{Exploration, StateId};
use crate::model::{Violation, ViolationKind};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;

/// Finds the shortest-reachable deadlocked state, if any, and explains it.
///
/// A deadlock is a reachable state from which some unfinished thread can
/// never again pass a progress point (finishing is one). In a harness that
/// can finish, such a state cannot finish either, and without labels
/// (`graph`) every state that cannot finish is taken for one: right unless
/// a thread there keeps passing `progress;` forever, which
/// [`progress_while_stuck`] tells the caller to label the graph for. A
/// harness that runs forever (`iters = 0`) never finishes, so its deadlocks
/// always need the labels.
pub(super) fn find<S: Checkable>(
    model: &S,
    exploration: &Exploration<u32, Violation>,
    graph: Option<&LabeledGraph>,
) -> Option<Finding> {
    if exploration.final_states().count_ones() > 0 || graph.is_none() {
        // One backward analysis: the first state outside it is the shortest stuck one.
        let can_finish = exploration.can_finish();
        let mut cannot = can_finish.iter_zeros();
        let stuck = match graph {
            None => cannot.next()?,
            Some(graph) => {
                // Of the states that cannot finish, the first where some
                // thread can never progress again.
                let first = cannot.next()?;
                let can_progress = graph.can_progress(exploration, model.thread_count());
                let stuck_thread = |id: StateId| {
                    let s = exploration.decode_state(id);
                    (0..model.thread_count())
                        .any(|t| !model.is_finished(&s, t) && !can_progress[t].get(id))
                };
                std::iter::once(first)
                    .chain(cannot)
                    .find(|id| stuck_thread(*id))?
            }
        };
        return Some(explain(
            model,
            exploration,
            stuck,
            &|id| !can_finish.get(id),
            None,
        ));
    }
    let graph = graph.expect("checked above");
    let can_progress = graph.can_progress(exploration, model.thread_count());
    let stuck_thread = |id: StateId| {
        let s = exploration.decode_state(id);
        (0..model.thread_count()).find(|t| !model.is_finished(&s, *t) && !can_progress[*t].get(id))
    };
    let stuck = (0..exploration.num_states() as StateId).find(|id| stuck_thread(*id).is_some())?;
    let t = stuck_thread(stuck).expect("found above");
    let trapped = |id: StateId| !can_progress[t].get(id);
    Some(explain(model, exploration, stuck, &trapped, Some(t)))
}

/// Whether, in a harness that can finish, some step between states that
/// cannot finish passes a progress point: then a thread may keep
/// progressing there forever (a loop through `progress;`), which is no
/// deadlock, and only the labelled graph tells whether some other thread
/// is stuck. Without such a step every unfinished thread of those states
/// is stuck, and no labels are needed.
pub(super) fn progress_while_stuck<S: Checkable>(
    model: &S,
    exploration: &Exploration<u32, Violation>,
) -> bool {
    if exploration.final_states().count_ones() == 0 {
        return false;
    }
    let can_finish = exploration.can_finish();
    let mut state = vec![0u32; model.state_words()];
    let mut next = state.clone();
    for id in can_finish.iter_zeros() {
        let id = id as StateId;
        if !exploration.is_expanded(id) {
            continue;
        }
        exploration.read_state(id, &mut state);
        for (a, to) in exploration.successors(id) {
            if !can_finish.get(to) && model.step_labels(&state, a, &mut next).1.progressed {
                return true;
            }
        }
    }
    false
}

/// The finding for a deadlock first reached at `stuck`: the trace goes on
/// to where the threads end up, the nearest state in which nobody can move
/// (all blocked), or else a cycle they repeat forever (spinning).
pub(crate) fn explain<S: Checkable>(
    model: &S,
    exploration: &Exploration<u32, Violation>,
    stuck: StateId,
    trapped: &dyn Fn(StateId) -> bool,
    thread: Option<usize>,
) -> Finding {
    let mut schedule: Vec<u32> = exploration
        .path_to(stuck)
        .into_iter()
        .map(|(_, a)| a)
        .collect();
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
    let state = exploration.state_of(model, end);
    let state = &state[..];
    let who = match thread {
        Some(t) => format!("{} can never progress again", model.thread_name(t)),
        None => "no execution can finish the harness".to_string(),
    };
    let how = if cycle.is_empty() {
        "every unfinished thread is blocked"
    } else {
        "the threads that can still move spin forever"
    };
    let mut finding = Finding {
        kind: ViolationKind::Deadlock,
        property: "deadlock",
        message: format!("{who}: {how}"),
        waiting: describe_against_cycle(model, state, &cycle),
        schedule,
        cycle,
    };
    model.refine_deadlock(&mut finding, state, &who);
    finding
}

/// One line per unfinished thread: where it is and what it waits for.
pub(super) fn describe<S: Checkable>(model: &S, state: &[u32]) -> Vec<String> {
    model
        .thread_positions(state)
        .into_iter()
        .map(|(t, what)| format!("{} {what}", model.thread_name(t)))
        .collect()
}

/// [`describe`] for a harness that cannot finish (no execution finishes, or
/// a thread never progresses again), where the threads spin:
/// a thread that could step on but takes no step in the repeated `cycle`
/// is said so, since "spin forever" is about the others (no move of its
/// lets the harness finish).
fn describe_against_cycle<S: Checkable>(model: &S, state: &[u32], cycle: &[u32]) -> Vec<String> {
    let mut moves = vec![false; model.thread_count()];
    for a in cycle {
        for t in model.threads_moved(*a) {
            moves[t] = true;
        }
    }
    model
        .thread_positions(state)
        .into_iter()
        .map(|(t, what)| {
            let name = model.thread_name(t);
            match cycle.is_empty() || moves[t] || !model.steps_on(state, t) {
                true => format!("{name} {what}"),
                false => format!(
                    "{name} {what} (takes no step in the cycle below: whatever it does, the harness cannot finish)"
                ),
            }
        })
        .collect()
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

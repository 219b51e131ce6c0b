//! One search and the analyses of its graph, for any [`Checkable`]
//! system: the first safety violation, or else deadlock and (under a fair
//! scheduler) livelock and starvation, within the limits.

use super::graph::LabeledGraph;
use super::reductions::FullGraph;
use super::{deadlock, liveness, CheckResult, Checkable, Finding};
use crate::explore::{explore, Exploration, LimitKind, Options, Outcome as Explored, Stats};
use crate::model::{Scheduler, Violation};

/// How an analysis ended.
pub(super) enum Outcome {
    /// Boxed: a result (its statistics with their phase timings) is far
    /// larger than the other outcomes.
    Done(Box<CheckResult>),
    /// The per-thread analyses need the full graph, which this reduced
    /// search (`reduced`, or hash compaction) does not have; the reason,
    /// for the `--stats` note.
    NeedsFullGraph(FullGraph),
    /// Hash compaction kept no states, and the harness cannot finish from
    /// some: whether a thread keeps progressing there needs them (the same
    /// search without compaction answers).
    NeedsStates,
}

/// Searches `sys` and analyses its graph. `reduced`: the system stores
/// representatives or expands ample sets, so its edges do not name every
/// thread's steps.
pub(super) fn analyse<S: Checkable>(
    sys: &S,
    options: &Options,
    scheduler: Scheduler,
    reduced: bool,
) -> Outcome {
    let options = Options {
        keep_edges: true,
        ..options.clone()
    };
    let exploration = explore(sys, &options);
    let mut stats = exploration.stats().clone();
    if let Some(finding) = fault_finding(sys, &exploration) {
        return Outcome::Done(Box::new(CheckResult {
            findings: vec![finding],
            limit: None,
            stats,
            reductions: None,
            fault: true,
        }));
    }
    if let Explored::Stuck { state } = exploration.outcome() {
        // A deadlock decided on the fly (`Options::early_deadlock`): the
        // search stopped at a stored state with no step, the least deep
        // one; every state reachable from it (itself) cannot finish. The
        // explanation is the graph analysis's, at that state, in its words:
        // a harness seen to finish cannot finish from there; in one not
        // (yet) seen to, the first unfinished thread never progresses again.
        let words = exploration.decode_state(*state);
        let thread = (exploration.final_states().count_ones() == 0)
            .then(|| (0..sys.thread_count()).find(|&t| !sys.is_finished(&words, t)))
            .flatten();
        let finding = deadlock::explain(sys, &exploration, *state, &|_| true, thread);
        return Outcome::Done(Box::new(CheckResult {
            findings: vec![finding],
            limit: None,
            stats,
            reductions: None,
            fault: false,
        }));
    }
    let limit = match exploration.outcome() {
        Explored::Limit(kind) => Some(*kind),
        _ => None,
    };
    // Edge labels are needed for liveness, and for deadlock of a harness
    // that never finishes or whose threads may progress forever without
    // finishing.
    let never_finishes = exploration.final_states().count_ones() == 0;
    let deadlock_only = !scheduler.checks_liveness() && !never_finishes;
    let compacted_stuck = deadlock_only && options.hash_compaction && limit.is_none();
    if compacted_stuck && exploration.can_finish().iter_zeros().next().is_some() {
        return Outcome::NeedsStates;
    }
    let progress_while_stuck = deadlock_only
        && !options.hash_compaction
        && deadlock::progress_while_stuck(sys, &exploration);
    let wants_graph = scheduler.checks_liveness() || never_finishes || progress_while_stuck;
    let labels = wants_graph && !((reduced || options.hash_compaction) && limit.is_some());
    if labels && (reduced || options.hash_compaction) {
        // The full search replaces this one: its memory is freed first
        // (the caller drops nothing of it), so the limit holds for the
        // second alone.
        return Outcome::NeedsFullGraph(match (never_finishes, progress_while_stuck) {
            (true, _) => FullGraph::NeverFinishes,
            (false, true) => FullGraph::ProgressWhileStuck,
            (false, false) => FullGraph::ProgressModel,
        });
    }
    let done = |findings: Vec<Finding>, limit: Option<LimitKind>, stats: Stats| {
        Outcome::Done(Box::new(CheckResult {
            findings,
            limit,
            stats,
            reductions: None,
            fault: false,
        }))
    };
    // The analyses come on top of the explorer's own memory, whether the
    // search completed or stopped at a limit: skip what does not fit and
    // stop cleanly instead of exceeding the limit (or being killed). Both
    // the explorer's accounting and the process's heap must leave room.
    let used = stats.peak_bytes as usize;
    let fits = |needed: usize| {
        !matches!(options.max_memory_bytes, Some(max) if (used + needed) as u64 > max)
            && options.memory_allows(needed as u64)
    };
    let reach = exploration.reachability_bytes();
    let label_bytes = match labels {
        true => LabeledGraph::estimated_bytes(exploration.num_states(), exploration.num_edges()),
        false => 0,
    };
    if !fits(reach + label_bytes) {
        // Without labels only a harness that can finish can be judged.
        let judged = !never_finishes && fits(reach);
        let findings = deadlocks_if(judged, sys, &exploration, None);
        stats.analysis_bytes = if judged { reach as u64 } else { 0 };
        return done(findings, Some(LimitKind::Memory), stats);
    }
    stats.analysis_bytes = (reach + label_bytes) as u64;
    let built = labels.then(|| LabeledGraph::build(sys, &exploration, &options));
    let graph = match built.transpose() {
        Ok(graph) => graph,
        Err(stop) => {
            // Only a harness seen to finish can be judged without labels.
            let findings = deadlocks_if(!never_finishes, sys, &exploration, None);
            return done(findings, Some(stop), stats);
        }
    };
    // A deadlock found before a limit is still a real deadlock: unexpanded
    // states count as able to finish. Without labels only a harness seen to
    // finish is judged. Fair cycles need the whole graph.
    let judged = graph.is_some() || !never_finishes;
    let mut findings = deadlocks_if(judged, sys, &exploration, graph.as_ref());
    let mut limit = limit;
    if let (true, None, Some(levels)) = (findings.is_empty(), limit, scheduler.levels()) {
        if let Some(graph) = &graph {
            match liveness::find(sys, &exploration, graph, levels, &options) {
                Ok(found) => findings.extend(found),
                Err(stop) => limit = Some(stop),
            }
        }
    }
    done(findings, limit, stats)
}

/// The deadlock of an explored graph, where it can be `judged`.
fn deadlocks_if<S: Checkable>(
    judged: bool,
    sys: &S,
    exploration: &Exploration<u32, Violation>,
    graph: Option<&LabeledGraph>,
) -> Vec<Finding> {
    match judged {
        true => deadlock::find(sys, exploration, graph)
            .into_iter()
            .collect(),
        false => Vec::new(),
    }
}

/// The violation at which a search stopped, if it did: the explorer's
/// first, so shortest, fault, with the threads' schedule to it.
pub(super) fn fault_finding<S: Checkable>(
    sys: &S,
    exploration: &Exploration<u32, Violation>,
) -> Option<Finding> {
    let Explored::Fault { fault, .. } = exploration.outcome() else {
        return None;
    };
    let schedule = exploration
        .fault_path()
        .unwrap_or_default()
        .into_iter()
        .map(|(_, a)| a)
        .collect();
    let mut finding = Finding {
        kind: fault.kind,
        property: fault.property,
        message: fault.message.clone(),
        waiting: Vec::new(),
        schedule,
        cycle: Vec::new(),
    };
    sys.refine_fault(&mut finding);
    Some(finding)
}

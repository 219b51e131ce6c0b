//! Properties checked on the explored state space.
//!
//! Safety properties (assertions, capacity / mutual exclusion, barrier
//! phases, invariants, runtime errors) are raised by the model while the
//! explorer runs and stop it at the first, shortest violation. Deadlock is
//! a property of the whole graph: a reachable state from which no
//! execution reaches the end of the harness, whether the threads are
//! blocked (no step enabled) or spin forever (steps enabled, none leading
//! out). It is decided by backward reachability from the final states.

mod deadlock;
mod graph;
mod liveness;
mod memory_fairness;
mod shortest;
mod simt;
mod symmetric;

pub use deadlock::{describe_threads, thread_positions};

use crate::explore::{explore, Exploration, LimitKind, Options, Outcome, Stats};
use crate::model::{Model, Scheduler, Violation, ViolationKind};
use graph::LabeledGraph;

/// What a check run found.
#[derive(Clone, Debug)]
pub struct Finding {
    pub kind: ViolationKind,
    pub property: &'static str,
    pub message: String,
    /// What each unfinished thread is doing in the violating state.
    pub waiting: Vec<String>,
    /// Threads moved from the initial state to the violation.
    pub schedule: Vec<u32>,
    /// For a deadlock with spinning threads: a schedule they can repeat forever.
    pub cycle: Vec<u32>,
}

#[derive(Clone, Debug)]
pub struct CheckResult {
    pub findings: Vec<Finding>,
    /// Set when a limit stopped the exploration before an answer was known.
    pub limit: Option<LimitKind>,
    pub stats: Stats,
    /// The search stored one state per class of block-symmetric states.
    pub symmetric: bool,
    /// The search expanded ample sets of independent steps (POR).
    pub ample: bool,
    /// The counterexamples are traces of the reduced graph, not
    /// necessarily shortest (see `shortest`).
    pub reduced_trace: bool,
    /// The search kept fingerprints only (hash compaction).
    pub compacted: bool,
    /// The search stopped at a safety violation (the one finding), not at
    /// the end of the graph.
    pub fault: bool,
}

/// Explores `model` and checks every property it defines; with a fair
/// `scheduler`, also livelock and starvation. The limits of `options`
/// bound the whole check: every search and analysis it runs stops at its
/// deadline and memory limit.
pub fn check(model: &Model, options: &Options, scheduler: Scheduler) -> CheckResult {
    let mut result = check_explored(model, options, scheduler);
    if result.ample && !result.findings.is_empty() {
        shortest::retrace(model, options, scheduler, &mut result);
    }
    if let (Some(sym), true) = (model.symmetry(), result.symmetric) {
        for f in &mut result.findings {
            symmetric::concretize(model, sym, f);
        }
    }
    result
}

fn check_explored(model: &Model, options: &Options, scheduler: Scheduler) -> CheckResult {
    let options = Options {
        keep_edges: true,
        ..options.clone()
    };
    let exploration = explore(model, &options);
    let stats = exploration.stats().clone();
    if let Some(finding) = fault_finding(model, &exploration) {
        let mut result = CheckResult::of(model, &options, vec![finding], None, stats);
        result.fault = true;
        return result;
    }
    let limit = match exploration.outcome() {
        Outcome::Limit(kind) => Some(*kind),
        _ => None,
    };
    // Edge labels are needed for liveness, and for deadlock of a harness
    // that never finishes.
    let never_finishes = exploration.final_states().count_ones() == 0;
    let wants_graph = scheduler != Scheduler::Unfair || never_finishes;
    // Edge labels of representatives name permuted threads, ample sets
    // leave out steps, and fingerprints drop states, all of which the
    // per-thread analyses need: they search the full graph again. Not
    // after a limit cut this search short: the full graph would get less
    // far still, and no liveness question is answered from part of a graph
    // (a harness not seen to finish may or may not).
    let reduced_model = model.symmetry().is_some() || model.has_por();
    let reduced = reduced_model || options.hash_compaction;
    let labels = wants_graph && !(reduced && limit.is_some());
    // A second search replaces this one: free this one's memory first, so
    // that the memory limit holds for the second alone.
    let again = |exploration: Exploration<u32, Violation>, options: Options| {
        drop(exploration);
        options
    };
    if labels && reduced_model {
        let full = Model::new(model.prog, *model.options());
        return check_explored(&full, &again(exploration, options), scheduler);
    }
    if labels && options.hash_compaction {
        let full = Options {
            hash_compaction: false,
            ..again(exploration, options)
        };
        return check_explored(model, &full, scheduler);
    }
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
    let mut stats = stats;
    if !fits(reach + label_bytes) {
        // Without labels only a harness that can finish can be judged.
        let judged = !never_finishes && fits(reach);
        let findings = deadlocks_if(judged, model, &exploration, None);
        stats.analysis_bytes = if judged { reach as u64 } else { 0 };
        return CheckResult::of(model, &options, findings, Some(LimitKind::Memory), stats);
    }
    stats.analysis_bytes = (reach + label_bytes) as u64;
    let built = labels.then(|| LabeledGraph::build(model, &exploration, &options));
    let graph = match built.transpose() {
        Ok(graph) => graph,
        Err(stop) => {
            // Only a harness seen to finish can be judged without labels.
            let findings = deadlocks_if(!never_finishes, model, &exploration, None);
            return CheckResult::of(model, &options, findings, Some(stop), stats);
        }
    };
    // A deadlock found before a limit is still a real deadlock: unexpanded
    // states count as able to finish. Without labels only a harness seen to
    // finish is judged. Fair cycles need the whole graph.
    let judged = graph.is_some() || !never_finishes;
    let mut findings = deadlocks_if(judged, model, &exploration, graph.as_ref());
    let mut limit = limit;
    if findings.is_empty() && limit.is_none() && scheduler != Scheduler::Unfair {
        if let Some(graph) = &graph {
            match liveness::find(model, &exploration, graph, scheduler, &options) {
                Ok(found) => findings.extend(found),
                Err(stop) => limit = Some(stop),
            }
        }
    }
    CheckResult::of(model, &options, findings, limit, stats)
}

impl CheckResult {
    /// The result of a search of `model` under `options`, with the
    /// reductions it used.
    fn of(
        model: &Model,
        options: &Options,
        findings: Vec<Finding>,
        limit: Option<LimitKind>,
        stats: Stats,
    ) -> CheckResult {
        CheckResult {
            findings,
            limit,
            stats,
            symmetric: model.symmetry().is_some(),
            ample: model.has_por(),
            reduced_trace: false,
            compacted: options.hash_compaction,
            fault: false,
        }
    }
}

/// The deadlock of an explored graph, where it can be `judged`.
fn deadlocks_if(
    judged: bool,
    model: &Model,
    exploration: &Exploration<u32, Violation>,
    graph: Option<&LabeledGraph>,
) -> Vec<Finding> {
    match judged {
        true => deadlock::find(model, exploration, graph)
            .into_iter()
            .collect(),
        false => Vec::new(),
    }
}

/// The violation at which a search stopped, if it did: the explorer's
/// first, so shortest, fault, with the threads' schedule to it.
fn fault_finding(model: &Model, exploration: &Exploration<u32, Violation>) -> Option<Finding> {
    let Outcome::Fault { fault, .. } = exploration.outcome() else {
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
    if finding.kind == ViolationKind::BarrierDivergence {
        simt::explain_divergence(model, &mut finding);
    }
    Some(finding)
}

#[cfg(test)]
mod tests;

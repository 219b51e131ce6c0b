//! Properties checked on the explored state space.
//!
//! Safety properties (assertions, capacity / mutual exclusion, barrier
//! phases, invariants, runtime errors) are raised by the model while the
//! explorer runs and stop it at the first, shortest violation. Deadlock is
//! a property of the whole graph: a reachable state from which no
//! execution reaches the end of the harness, whether the threads are
//! blocked (no step enabled) or spin forever (steps enabled, none leading
//! out). It is decided by backward reachability from the final states.
//! Livelock and starvation are fair cycles of the graph (`liveness`).
//!
//! The analyses (`analyse`, `deadlock`, `liveness`, `graph`) are written
//! against [`Checkable`], a narrow view of a threaded transition system,
//! and tested on small hand-made systems (`tests`). [`check`] is the
//! policy for the model: which reductions to search with (`reductions`),
//! when the full graph must be searched instead, and how a reduced
//! search's findings become real ones (`shortest`, `symmetric`).

mod analyse;
mod deadlock;
mod graph;
mod hunt;
mod label;
mod lasso;
mod liveness;
mod memory_fairness;
mod positions;
mod progress;
mod reductions;
mod scc;
mod semantics;
mod shortest;
mod simt;
mod symmetric;

#[cfg(feature = "dist")]
pub(crate) use deadlock::explain as explain_deadlock;
pub(crate) use hunt::hunt;
pub use hunt::Hunt;
#[cfg(feature = "dist")]
pub(crate) use liveness::{
    edge_sets, Component, CycleGraph, EdgeSet, Excluded, Filter, Judge, Judged, Label, Requirement,
    Survey, Tally,
};
#[cfg(feature = "dist")]
pub(crate) use progress::Seen;
pub(crate) use semantics::describe_threads;
#[cfg(feature = "dist")]
pub(crate) use shortest::{retrace_max_states, retrace_reductions};

use crate::explore::{LimitKind, Options, Stats, TransitionSystem};
use crate::model::{Labeled, Model, Scheduler, Violation, ViolationKind};
use crate::reduce::{Reduced, Reductions};
pub use reductions::{AmpleSets, DistributedRun, FullGraph, Off, ReductionLog, SearchNote};

/// What the analyses need of a semantics besides its transition system:
/// its threads, whether they finished, what a step did for liveness, the
/// launch's levels and who has run (for the progress models), and words
/// to describe them.
pub(crate) trait Checkable: TransitionSystem<Action = u32, Fault = Violation> {
    /// Number of threads.
    fn thread_count(&self) -> usize;
    /// The thread that action `a` moves.
    fn thread_of(&self, a: u32) -> usize {
        crate::model::thread_of(a)
    }
    /// The threads that action `a` moves: its thread, or under lockstep
    /// every lane of its warp.
    fn threads_moved(&self, a: u32) -> std::ops::Range<usize> {
        let t = self.thread_of(a);
        t..t + 1
    }
    /// Whether unfinished thread `t` of `s` may step on rather than wait
    /// or spin: it waits for no barrier, warp or block slot, and is not at
    /// a read it may repeat.
    fn steps_on(&self, _s: &[u32], _t: usize) -> bool {
        false
    }
    fn is_finished(&self, s: &[u32], t: usize) -> bool;
    /// Takes action `a` from `s` into `out`; says whether the thread
    /// passed a progress point and what it did to memory. `out` is the
    /// successor `step` writes (the distributed labelling takes it as the
    /// edge's target; `check::tests` checks both implementations).
    fn step_labels(&self, s: &[u32], a: u32, out: &mut [u32]) -> Labeled;
    /// How many consecutive threads make a block (the progress models'
    /// levels: blocks of the grid, threads of a block).
    fn threads_per_block(&self) -> usize {
        1
    }
    /// Whether thread `t` has taken a step on the way to `s` (the OBE
    /// models guarantee only such threads); `true` where not recorded.
    fn has_run(&self, _s: &[u32], _t: usize) -> bool {
        true
    }
    /// How reports name thread `t` (the model: `block 1 thread 3`).
    fn thread_name(&self, t: usize) -> String {
        format!("thread {t}")
    }
    /// Each unfinished thread of `s` with what it is doing (`spins at line 20: ...`).
    fn thread_positions(&self, s: &[u32]) -> Vec<(usize, String)>;
    /// Makes a deadlock found in the graph more precise with what the
    /// semantics knows (`end`: the state its threads end up in; `who`:
    /// whom the deadlock stops): an occupancy, SIMD or alias deadlock, or
    /// barrier divergence.
    fn refine_deadlock(&self, _finding: &mut Finding, _end: &[u32], _who: &str) {}
    /// Adds what the semantics knows to a violation raised by a step.
    fn refine_fault(&self, _finding: &mut Finding) {}
}

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

/// How to check: the liveness assumption, the reductions wanted (used
/// where sound), and the limits of the whole check.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    pub scheduler: Scheduler,
    pub reductions: Reductions,
    pub limits: Options,
}

#[derive(Clone, Debug)]
pub(crate) struct CheckResult {
    pub findings: Vec<Finding>,
    /// Set when a limit stopped the check before an answer was known.
    pub limit: Option<LimitKind>,
    pub stats: Stats,
    /// Which reductions the reported search used, and why the others not
    /// (`--stats`; `None` for one search of [`analyse`]).
    pub reductions: Option<Box<SearchNote>>,
    /// The search stopped at a safety violation (the one finding), not at
    /// the end of the graph.
    pub fault: bool,
}

/// Checks every property `model` defines; with a fair scheduler, also
/// livelock and starvation. The limits bound the whole check: every search
/// and analysis it runs stops at the same deadline and memory limit.
pub(crate) fn check(model: &Model, settings: &Settings) -> CheckResult {
    let scheduler = settings.scheduler;
    let wanted = reductions::wanted(settings.reductions, scheduler);
    let (reduced, refusals) = Reduced::new(model, wanted);
    let mut log = ReductionLog::new(settings.reductions, scheduler, &reduced, &refusals);
    let options = &settings.limits;
    let mut first = analyse::analyse(&reduced, options, scheduler, reduced.is_reduced());
    let mut compacted = options.hash_compaction;
    if let analyse::Outcome::NeedsStates = first {
        // A possible deadlock: search again keeping the states.
        let again = Options {
            hash_compaction: false,
            ..options.clone()
        };
        compacted = false;
        first = analyse::analyse(&reduced, &again, scheduler, reduced.is_reduced());
    }
    // Edge labels of representatives name permuted threads, ample sets
    // leave out steps, and fingerprints drop states, all of which the
    // per-thread analyses need: they search the full graph again. Not
    // after a limit cut this search short: the full graph would get less
    // far still, and no liveness question is answered from part of a graph
    // (a harness not seen to finish may or may not).
    let (full, _) = Reduced::new(model, wanted.per_thread());
    let (mut result, searched) = match first {
        analyse::Outcome::Done(result) => {
            if options.hash_compaction {
                log.compacted(compacted.then_some(result.stats.states));
            }
            log.ample_effect(&result.stats);
            (*result, &reduced)
        }
        analyse::Outcome::NeedsStates => unreachable!("searched without hash compaction"),
        analyse::Outcome::NeedsFullGraph(why) => {
            if options.hash_compaction {
                log.compacted(None);
            }
            if reduced.is_reduced() {
                log.full_graph(why);
            }
            let again = Options {
                hash_compaction: false,
                ..options.clone()
            };
            match analyse::analyse(&full, &again, scheduler, false) {
                analyse::Outcome::Done(result) => (*result, &full),
                analyse::Outcome::NeedsFullGraph(_) | analyse::Outcome::NeedsStates => {
                    unreachable!("the full graph is not reduced or compacted")
                }
            }
        }
    };
    let shortened = searched.leaves_steps_out() && !result.findings.is_empty();
    if shortened && !shortest::retrace(model, searched, settings, &mut result) {
        log.reduced_trace();
    }
    if let Some(sym) = searched.symmetry() {
        let reproduced = symmetric::concretize_all(searched, sym, &mut result.findings);
        // With writers forgotten, the representatives of one class can
        // differ in views no step reads, and then the renaming tracked
        // along a path can name the wrong block: the violation is real but
        // the schedule mapped to real blocks misses it. Search for it
        // again remembering writers (symmetry alone concretizes exactly);
        // where that does not fit, the findings stay as concretized.
        let retry = !reproduced && result.fault && searched.forgets();
        if retry && !shortest::without_forget(model, settings, &mut result) {
            log.reduced_trace();
        }
    }
    if searched.forgets() {
        for f in &mut result.findings {
            close_forgotten(model, searched, result.fault, f);
        }
    }
    result.reductions = Some(Box::new(SearchNote::Reductions(log)));
    result
}

/// Makes a finding of a search that forgets writers real: a lasso of the
/// model, and a race (a `fault`) that names its writer.
fn close_forgotten(model: &Model, searched: &Reduced, fault: bool, f: &mut Finding) {
    lasso::close(model, f);
    // A race names the writer, which the search may have forgotten
    // (symmetry's concretization replays the run already). Other
    // messages stay: some are refined past what a step raises.
    let race = matches!(
        f.kind,
        ViolationKind::DataRace | ViolationKind::HeterogeneousRace
    );
    if fault && race && searched.symmetry().is_none() {
        replay_message(model, f);
    }
}

/// Takes the message of safety violation `finding` from its run replayed
/// on `model`, where it raises the same kind of violation.
fn replay_message(model: &Model, finding: &mut Finding) {
    if let (_, Some(v)) = model.run_schedule(&finding.schedule) {
        if v.kind == finding.kind {
            finding.message = v.message;
        }
    }
}

/// Makes the findings of a search of `searched` real ones: in real thread
/// numbering, a lasso of the model where states forget writers (for
/// a search that cannot search again, as the distributed one).
#[cfg(feature = "dist")]
pub(crate) fn concretize_findings(searched: &Reduced, fault: bool, findings: &mut [Finding]) {
    if let Some(sym) = searched.symmetry() {
        symmetric::concretize_all(searched, sym, findings);
    }
    if searched.forgets() {
        for f in findings {
            close_forgotten(searched.model(), searched, fault, f);
        }
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod toys;

//! Shortest counterexamples under partial-order reduction.
//!
//! Ample sets leave interleavings out, so the breadth-first trace to a
//! violation in the reduced graph may be longer than the shortest one. The
//! violation itself is real (the reduced graph is a subgraph), and the
//! verdict is the same on the full graph; the trace is then recomputed
//! there, within a budget of states proportional to the reduced search, so
//! that the report keeps its shortest counterexample where that is cheap,
//! and says so where it is not.
//!
//! A safety violation stops a breadth-first search at its first fault, so
//! its retrace is a plain search to the first fault: no edges are kept and
//! no graph analysis follows (the same time, less memory:
//! `sense_reversing_barrier --blocks 8` peaks at 189 MB instead of 306 MB).
//! A deadlock is a property of the whole graph: its retrace is the full
//! check.

use super::analyse::{analyse, fault_finding, Outcome};
use super::{CheckResult, Settings};
use crate::explore::{explore, Options};
use crate::model::Model;
use crate::reduce::{Reduced, Reductions};

/// States the full search may store per state of the reduced one.
const BUDGET_FACTOR: u64 = 4;
/// ...plus this many, so small searches always get their shortest trace.
const BUDGET_BASE: u64 = 200_000;

/// Replaces the findings of a search with ample sets (`searched`) by
/// those of the graph without them (keeping its symmetry) when that
/// search fits in the budget (and before the check's deadline); returns
/// `false`, leaving them as they are, where it does not: the traces are
/// then taken from the reduced graph.
pub(super) fn retrace(
    model: &Model,
    searched: &Reduced,
    settings: &Settings,
    result: &mut CheckResult,
) -> bool {
    search_again(
        model,
        retrace_reductions(searched),
        settings,
        result,
        |_, _| true,
    )
}

/// The reductions a retrace searches with: those of `searched` less the
/// ones that leave steps out (the distributed explorer retraces too).
pub(crate) fn retrace_reductions(searched: &Reduced) -> Reductions {
    Reductions {
        symmetry: searched.symmetry().is_some(),
        ample_sets: false,
        forget: searched.forgets(),
        awaits: false,
    }
}

/// The most states a retrace of a search of `states` states may store.
pub(crate) fn retrace_max_states(states: u64, limits: &Options) -> u64 {
    let budget = states * BUDGET_FACTOR + BUDGET_BASE;
    limits.max_states.map_or(budget, |m| m.min(budget))
}

/// Replaces the safety violation of a search with symmetry and forgotten
/// writers by that of the search with symmetry alone, in real block
/// numbering (`check` has why), within the same budget as [`retrace`];
/// `false` where it does not fit or does not reproduce.
pub(super) fn without_forget(model: &Model, settings: &Settings, result: &mut CheckResult) -> bool {
    let wanted = Reductions {
        symmetry: true,
        ample_sets: false,
        forget: false,
        awaits: false,
    };
    search_again(model, wanted, settings, result, |full, findings| {
        let sym = full.symmetry().expect("the search again keeps symmetry");
        super::symmetric::concretize_all(full, sym, findings)
    })
}

/// Searches `model` again with `wanted` (symmetry kept as before) within
/// the budget, and takes its findings where `accept` (given the search and
/// the findings to adjust) says so.
fn search_again(
    model: &Model,
    wanted: Reductions,
    settings: &Settings,
    result: &mut CheckResult,
    accept: impl FnOnce(&Reduced, &mut Vec<super::Finding>) -> bool,
) -> bool {
    let (full, _) = Reduced::new(model, wanted);
    if full.symmetry().is_some() != wanted.symmetry {
        return false;
    }
    let options = Options {
        max_states: Some(retrace_max_states(result.stats.states, &settings.limits)),
        ..settings.limits.clone()
    };
    let findings = if result.fault {
        let options = Options {
            keep_edges: false,
            ..options
        };
        let exploration = explore(&full, &options);
        fault_finding(&full, &exploration).map(|f| vec![f])
    } else {
        match analyse(&full, &options, settings.scheduler, full.is_reduced()) {
            Outcome::Done(again) if again.limit.is_none() => Some(again.findings),
            _ => None,
        }
    };
    let Some(mut findings) = findings.filter(|f| !f.is_empty()) else {
        return false;
    };
    let accepted = accept(&full, &mut findings);
    if accepted {
        result.findings = findings;
    }
    accepted
}

//! Which reductions a check searches with, and what they did, as data
//! ([`ReductionLog`]: `--stats` words it in `format::reductions`).
//!
//! Symmetry and ample sets are used where they are sound and the scheduler
//! lets them: a fair scheduler's analyses are per thread (representatives
//! rename threads, ample sets leave steps out), so under one they are off.

use crate::explore::Stats;
use crate::model::Scheduler;
use crate::reduce::{Classes, Inapplicable, Reduced, Reductions};
use serde::{Deserialize, Serialize};

/// The reductions to try for `asked` under `scheduler`: a fair
/// scheduler's analyses need every thread's edges.
pub(crate) fn wanted(asked: Reductions, scheduler: Scheduler) -> Reductions {
    match scheduler {
        Scheduler::Deadlock => asked,
        Scheduler::Progress(_) => asked.per_thread(),
    }
}

/// Why a reduction is off.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Off {
    /// The options named turned it off.
    Option(String),
    /// A progress model is checked, and its analyses read every thread's
    /// steps on the full graph.
    Fairness,
    /// It does not apply to this model (the analysis says why).
    NotApplicable(Inapplicable),
    /// View refresh: each thread's future accesses are not known (lockstep
    /// warps or warp collectives).
    FuturesUnknown,
}

/// Why the reduced search was replaced by a search of the full graph: the
/// per-thread analyses need it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FullGraph {
    /// The harness never finishes.
    NeverFinishes,
    /// Threads keep progressing where the harness cannot finish.
    ProgressWhileStuck,
    /// A progress model is checked.
    ProgressModel,
}

/// The ample sets as they ran.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AmpleSets {
    /// Spinning threads sleep on their lassos (`reduce::por::spin`).
    pub spinners_sleep: bool,
    /// At how many of the reported search's expanded states they kept a
    /// proper subset of the steps, and of how many.
    pub proper_subset_at: Option<(u64, u64)>,
}

/// What the reductions of a check did: which ran, why each other was off,
/// and what the reported search kept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReductionLog {
    /// The classes of interchangeable blocks, or why symmetry was off.
    pub symmetry: Result<Classes, Off>,
    pub ample_sets: Result<AmpleSets, Off>,
    /// Under `ptx`: whether writers no step reads were forgotten.
    pub forget: Option<bool>,
    /// Under `ptx`: whether failed polls of a stale write (and blind
    /// reads) were left out, or why not.
    pub awaits: Option<Result<(), Off>>,
    /// Under `ptx`: whether views the next SC fence refreshes were raised
    /// to it, or why not.
    pub view_refresh: Option<Result<(), Off>>,
    /// Under `ptx`, where a location's history can hold dead writes:
    /// whether they were dropped.
    pub dead_writes: Option<bool>,
    /// Under `ptx` with the canonical form: whether it merged repeated
    /// writes until nothing merged (`--no-canonical-fixpoint`: once).
    pub canonical_fixpoint: Option<bool>,
    /// The reduced search was replaced by a search of the full graph, for
    /// this reason.
    pub full_graph: Option<FullGraph>,
    /// The counterexamples are traces of the reduced graph (too large to
    /// retrace on the full one).
    pub reduced_trace: bool,
    /// Hash compaction, where asked for: the states it fingerprinted, or
    /// `None` where the check could not use it.
    pub hash_compaction: Option<Option<u64>>,
}

/// A distributed search: its processes and workers per process, the
/// states each worker owns, and each process's peak resident memory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DistributedRun {
    pub processes: usize,
    pub workers: usize,
    pub states_per_worker: Vec<u64>,
    pub peak_rss_bytes_per_process: Vec<u64>,
}

/// What `--stats` says of how the states were searched.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SearchNote {
    /// The reductions of a search in one process.
    Reductions(ReductionLog),
    /// A distributed search (its reductions are those asked).
    Distributed(DistributedRun),
}

impl ReductionLog {
    /// What the search starts with: each reduction on, or off and why.
    pub(crate) fn new(
        asked: Reductions,
        scheduler: Scheduler,
        reduced: &Reduced,
        refusals: &[Option<Inapplicable>; 3],
    ) -> ReductionLog {
        let fair = scheduler.checks_liveness();
        let off_or = |on: bool, flag: &str| -> Result<(), Off> {
            match (on, fair) {
                (false, _) => Err(Off::Option(flag.to_string())),
                (true, true) => Err(Off::Fairness),
                (true, false) => Ok(()),
            }
        };
        let refused = |r: &Option<Inapplicable>| match r {
            Some(why) => Err(Off::NotApplicable(why.clone())),
            None => Ok(()),
        };
        let symmetry = off_or(asked.symmetry, "--no-symmetry").and_then(|()| {
            match (reduced.symmetry(), &refusals[0]) {
                (Some(sym), _) => Ok(sym.found()),
                (None, Some(why)) => Err(Off::NotApplicable(why.clone())),
                (None, None) => unreachable!("asked for, neither on nor refused"),
            }
        });
        let ample_sets = off_or(asked.ample_sets, "--no-por")
            .and_then(|()| refused(&refusals[1]))
            .map(|()| AmpleSets {
                spinners_sleep: reduced.lets_spinners_sleep(),
                proper_subset_at: None,
            });
        let model = reduced.model();
        let ptx = model.memory.ptx();
        let awaits =
            off_or(asked.awaits, "--no-await or --no-por").and_then(|()| refused(&refusals[2]));
        let view_refresh = match (model.options().refresh_views, model.refreshes_views()) {
            (false, _) => Err(Off::Option("--no-view-refresh".into())),
            (true, true) => Ok(()),
            (true, false) => Err(Off::FuturesUnknown),
        };
        ReductionLog {
            symmetry,
            ample_sets,
            forget: ptx.map(|_| asked.forget),
            awaits: ptx.map(|_| awaits),
            view_refresh: ptx.map(|_| view_refresh),
            dead_writes: ptx
                .filter(|w| w.drops_dead_writes())
                .map(|_| model.options().drop_dead_writes),
            canonical_fixpoint: ptx
                .filter(|_| model.options().canonical_memory)
                .map(|_| model.options().canonical_fixpoint),
            full_graph: None,
            reduced_trace: false,
            hash_compaction: None,
        }
    }

    /// How much the ample sets of the reported search reduced: at how many
    /// of its expanded states a proper subset of the steps was kept. On a
    /// primitive whose threads all contend for the same words, few.
    pub(crate) fn ample_effect(&mut self, stats: &Stats) {
        if let (Ok(ample), None) = (&mut self.ample_sets, &self.full_graph) {
            ample.proper_subset_at = Some((stats.ample_reduced, stats.expanded));
        }
    }

    /// The reduced search was replaced by a search of the full graph, `why`.
    pub(crate) fn full_graph(&mut self, why: FullGraph) {
        self.full_graph = Some(why);
    }

    /// The counterexamples are traces of the reduced graph.
    pub(crate) fn reduced_trace(&mut self) {
        self.reduced_trace = true;
    }

    /// Hash compaction was asked for; the reported search fingerprinted
    /// `states` (`None`: it could not use it).
    pub(crate) fn compacted(&mut self, states: Option<u64>) {
        self.hash_compaction = Some(states);
    }
}

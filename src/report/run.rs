//! The report of one check (`--format json`): the options in force, the
//! verdict, the statistics and each violation with its counterexample.

use super::{SourcePos, Trace};
use crate::check::SearchNote;
use crate::explore::{LimitKind, Limits, Phases};
use crate::ir::Launch;
use crate::model::{BranchOrder, MemoryModel, Scheduler, SimtMode, ViolationKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Verified,
    Violated,
    Inconclusive,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Verified => "verified",
            Verdict::Violated => "violated",
            Verdict::Inconclusive => "inconclusive",
        }
    }

    /// The process exit code of a run with this verdict.
    pub fn exit_code(self) -> i32 {
        match self {
            Verdict::Verified => 0,
            Verdict::Violated => 1,
            Verdict::Inconclusive => 3,
        }
    }

    /// The worse of two verdicts for a family's exit code: a violation
    /// outranks an unknown, which outranks a proof.
    pub fn worst(self, other: Verdict) -> Verdict {
        let rank = |v: Verdict| match v {
            Verdict::Verified => 0,
            Verdict::Inconclusive => 1,
            Verdict::Violated => 2,
        };
        if rank(other) > rank(self) {
            other
        } else {
            self
        }
    }
}

/// What stopped an inconclusive run (`limit` in JSON), named after the
/// option that sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// `--max-states` (or the search ran out of state ids).
    MaxStates,
    /// `--max-seconds`.
    MaxSeconds,
    /// `--max-memory`.
    MaxMemory,
    /// Ctrl-C or SIGTERM: the user stopped the run.
    Interrupted,
    /// `--hunt`: every walk (`--walks`) ended without a violation.
    Walks,
}

impl Limit {
    /// `max_states`, `max_seconds`, `max_memory`, `interrupted`: as in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Limit::MaxStates => "max_states",
            Limit::MaxSeconds => "max_seconds",
            Limit::MaxMemory => "max_memory",
            Limit::Interrupted => "interrupted",
            Limit::Walks => "walks",
        }
    }

    /// What the user sees: the option that sets the limit, as typed
    /// (`--max-memory`), or `interrupted`.
    pub fn flag(self) -> &'static str {
        match self {
            Limit::MaxStates => "--max-states",
            Limit::MaxSeconds => "--max-seconds",
            Limit::MaxMemory => "--max-memory",
            Limit::Interrupted => "interrupted",
            Limit::Walks => "--walks",
        }
    }
}

/// In the option's own words ([`Limit::flag`]); JSON keeps [`Limit::name`].
impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.flag())
    }
}

impl From<LimitKind> for Limit {
    fn from(kind: LimitKind) -> Limit {
        match kind {
            LimitKind::States => Limit::MaxStates,
            LimitKind::Time => Limit::MaxSeconds,
            LimitKind::Memory => Limit::MaxMemory,
            LimitKind::Interrupted => Limit::Interrupted,
            LimitKind::Walks => Limit::Walks,
        }
    }
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

/// Every option that decides the result: enough to rerun or replay.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    #[serde(flatten)]
    pub launch: Launch,
    pub memory_model: MemoryModel,
    /// Under `ptx`: whether races are reported (`--no-races`: false).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub races: bool,
    pub simt: SimtMode,
    /// Under `--simt lockstep`: which side of a divergent branch ran first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch_order: Option<BranchOrder>,
    /// For specs that use the lock unit: its number of lock bits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock_bits: Option<u32>,
    /// Parameter values in force (defaults and overrides).
    pub params: BTreeMap<String, i64>,
    pub fuse_local_steps: bool,
    /// Under `ptx`: whether views an SC fence refreshes before any use were
    /// raised (`--no-view-refresh`: false). Saved choices depend on it.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub refresh_views: bool,
    /// Under `ptx`: whether writes no step can read any more were removed
    /// from the middle of histories (`--no-drop-dead-writes`: false).
    /// Saved choices depend on it.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub drop_dead_writes: bool,
    /// Under `ptx`: whether the canonical form merged repeated writes
    /// until nothing merged (`--no-canonical-fixpoint`: false). Saved
    /// choices depend on it. Always recorded: a saved report without it
    /// predates the fixpoint and replays with it off.
    #[serde(default)]
    pub canonical_fixpoint: bool,
    /// Fairness assumed for liveness checks.
    pub scheduler: Scheduler,
    /// Blocks resident at once (`None`: all).
    pub resident: Option<u32>,
    /// `max_states`, `max_seconds`, `max_memory_mb`.
    #[serde(flatten)]
    pub limits: Limits,
    /// `--hunt`: the random walks that searched (a bug hunt, not a proof).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hunt: Option<crate::check::Hunt>,
    /// Kernels launched together (`--launch`): each one's blocks among
    /// `launch.blocks`; empty for a spec or a single `--kernel`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub launches: Vec<crate::ir::LaunchPart>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    pub states: u64,
    pub transitions: u64,
    /// Length of the longest shortest path (BFS depth).
    pub max_depth: u64,
    /// Time, memory and reductions: they differ from run to run, so JSON
    /// leaves them out unless `--stats` and reports are reproducible byte
    /// for byte. Their fields stand in `stats` itself.
    #[serde(flatten)]
    pub measured: Option<Measured>,
}

/// How a run went on this machine (`--stats`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// Wall-clock time of the whole check.
    pub seconds: f64,
    pub states_per_second: f64,
    /// Bytes held by the state store, visited set and graph at their peak.
    pub peak_store_bytes: u64,
    /// Bytes the graph analyses after the search (deadlock, liveness)
    /// allocate on top of the store, as `--max-memory` counts them.
    pub analysis_bytes: u64,
    /// Peak resident memory of the process (Linux only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_bytes: Option<u64>,
    /// Seconds of the state-space search alone (without the graph analyses).
    pub explore_seconds: f64,
    /// The search's seconds phase by phase (`explore::Phases`): which
    /// phase does not scale with `--threads`.
    #[serde(default)]
    pub explore_phases: Phases,
    /// Which reductions the search used, or why one was off
    /// (`format::reductions` words it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reductions: Option<SearchNote>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ViolationReport {
    pub kind: ViolationKind,
    /// The property: `assert`, `capacity`, `barrier`, `invariant`,
    /// `runtime`, `deadlock`.
    pub property: String,
    pub message: String,
    /// What every unfinished thread is doing in the violating state.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waiting: Vec<String>,
    /// Where it shows in the spec: the failing instruction, or the one a
    /// stuck thread spins or waits at (`trace::violation_location`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<SourcePos>,
    pub trace: Trace,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub spec: String,
    /// Where the spec came from: a path, or `builtin:NAME`.
    pub source: String,
    pub config: RunConfig,
    pub verdict: Verdict,
    /// Why the run is inconclusive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<Limit>,
    pub stats: Stats,
    pub violations: Vec<ViolationReport>,
    /// `check --suggest-fix`: the checked fix of the violation, or why
    /// there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<super::SuggestedFix>,
}

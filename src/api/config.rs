//! How to check a spec ([`CheckConfig`]): typed options, their defaults,
//! and the rules a value must meet.

use super::{Error, SpecSource};
use crate::diag::Diagnostic;
use crate::explore::{Limits, Options};
use crate::ir::Launch;
use crate::model::lockbits::DEFAULT_LOCK_BITS;
use crate::model::{BranchOrder, MemoryModel, ModelOptions, Scheduler, SimtMode};
use crate::reduce::Reductions;
use crate::spec::ast::SpecFile;

/// How to check a spec: one typed part per concern, each the one home of
/// its options. The command line, the book's cells (`web/`) and a saved
/// counterexample ([`config_of`](super::config_of)) all build this, and
/// the report records what decides the result ([`RunConfig`]).
///
/// [`RunConfig`]: crate::report::RunConfig
#[derive(Clone, Debug, PartialEq)]
pub struct CheckConfig {
    pub launch: Launch,
    /// `--param name=value` overrides, in the order given.
    pub params: Vec<(String, i64)>,
    /// What the semantics is (memory model, SIMT, lock unit, occupancy).
    pub semantics: Semantics,
    /// The liveness question: none (`deadlock`), or livelock and
    /// starvation under a progress model per level.
    pub scheduler: Scheduler,
    /// Which reductions to search with, where they are sound.
    pub reductions: Reductions,
    /// How the search runs (it does not change what is found).
    pub search: Search,
    pub limits: Limits,
}

/// The semantics asked for. `None` fields are resolved by
/// [`prepare`](super::prepare) from the spec's header and the defaults;
/// [`Semantics::model_options`] is then what the model runs with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Semantics {
    /// `None`: the default, `ptx`, or `sc` for a spec that uses what only
    /// `sc` models (lockstep warps, the lock unit).
    pub memory_model: Option<MemoryModel>,
    /// Under `ptx`: report heterogeneous and data races.
    pub races: bool,
    /// `None`: the spec's `//! simt:` header line, else `its`.
    pub simt: Option<SimtMode>,
    /// Under lockstep: which side of a branch runs first (default then-first).
    pub branch_order: Option<BranchOrder>,
    /// Lock bits of the shared-memory lock unit (default 1024).
    pub lock_bits: Option<u32>,
    pub fuse_local_steps: bool,
    /// At most this many blocks resident at once.
    pub resident: Option<u32>,
    /// Under `ptx`, put states in canonical form (`model::memory`); off
    /// only to cross-check the reduction (the choices saved in a
    /// counterexample depend on it, so replays assume it on).
    pub canonical_memory: bool,
    /// Under `ptx` with the canonical form, raise views that the next SC
    /// fence refreshes before any use (`model::facts::Refreshes`); off only
    /// to cross-check (saved choices depend on it, as on the canonical form).
    pub refresh_views: bool,
    /// Under `ptx` with the canonical form, remove the writes no step can
    /// read any more wherever they are in a history (`model::memory::canon`,
    /// dead writes); off only to cross-check (saved choices depend on it).
    pub drop_dead_writes: bool,
    /// Under `ptx` with the canonical form, merge repeated writes until
    /// nothing merges (`model::memory::fixpoint`): fewer states; off only
    /// to cross-check (saved choices depend on it).
    pub canonical_fixpoint: bool,
}

impl Default for Semantics {
    fn default() -> Semantics {
        let model = ModelOptions::default();
        Semantics {
            memory_model: None,
            races: model.races,
            simt: None,
            branch_order: None,
            lock_bits: None,
            fuse_local_steps: model.fuse_local_steps,
            resident: model.resident,
            canonical_memory: model.canonical_memory,
            refresh_views: model.refresh_views,
            drop_dead_writes: model.drop_dead_writes,
            canonical_fixpoint: model.canonical_fixpoint,
        }
    }
}

impl Semantics {
    /// The model's options under `scheduler` (which decides whether
    /// threads record that they have started).
    pub fn model_options(&self, scheduler: Scheduler) -> ModelOptions {
        ModelOptions {
            fuse_local_steps: self.fuse_local_steps,
            resident: self.resident,
            simt: self.simt_mode(),
            branch_order: self.branch_order_value(),
            lock_bits: self.lock_bits.unwrap_or(DEFAULT_LOCK_BITS),
            barrier_divergence: true,
            memory_model: self.memory_model(),
            races: self.races,
            canonical_memory: self.canonical_memory,
            refresh_views: self.refresh_views,
            drop_dead_writes: self.drop_dead_writes,
            canonical_fixpoint: self.canonical_fixpoint,
            track_started: scheduler.needs_started(),
        }
    }

    /// The memory model (once resolved by [`prepare`](super::prepare); the
    /// default before).
    pub fn memory_model(&self) -> MemoryModel {
        self.memory_model.unwrap_or_default()
    }

    pub fn simt_mode(&self) -> SimtMode {
        self.simt.unwrap_or_default()
    }

    pub fn branch_order_value(&self) -> BranchOrder {
        self.branch_order.unwrap_or_default()
    }
}

/// How the search runs: workers, storage and the progress bar. The result
/// does not depend on them (hash compaction only up to the collision
/// probability the report states).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Search {
    /// Worker threads of the explorer.
    pub threads: usize,
    /// Progress on stderr: a spinner on a terminal, lines in a log.
    pub progress: bool,
    /// Store 63-bit fingerprints instead of states (see `explore::Options`).
    pub hash_compaction: bool,
    /// Keep the parts of states the model names once per distinct content
    /// (`explore::parts`): lossless, on by default.
    pub tree_compression: bool,
    /// Report a deadlock as soon as the search expands a stuck state (no
    /// step enabled, not final) rather than after the whole graph
    /// (`explore::Options::early_deadlock`): the same verdict, sooner; the
    /// trace goes to the least deep stuck state.
    pub early_deadlock: bool,
    /// `--hunt`: random walks that look for a violation (`check::Hunt`)
    /// instead of the exhaustive search; a clean hunt is inconclusive.
    pub hunt: Option<crate::check::Hunt>,
}

impl Default for Search {
    fn default() -> Search {
        Search {
            threads: 1,
            progress: false,
            hash_compaction: false,
            tree_compression: true,
            early_deadlock: true,
            hunt: None,
        }
    }
}

impl Default for CheckConfig {
    fn default() -> CheckConfig {
        CheckConfig {
            launch: Launch::default(),
            params: Vec::new(),
            semantics: Semantics::default(),
            scheduler: Scheduler::Deadlock,
            reductions: Reductions::ALL,
            search: Search::default(),
            limits: Limits {
                max_states: Some(DEFAULT_MAX_STATES),
                max_memory_mb: Some(DEFAULT_MAX_MEMORY_MB),
                ..Limits::NONE
            },
        }
    }
}

impl CheckConfig {
    /// The explorer's options: the limits and how the search runs.
    pub fn explore_options(&self) -> Options {
        Options {
            keep_edges: true,
            progress: self.search.progress,
            threads: self.search.threads,
            hash_compaction: self.search.hash_compaction,
            no_tree_compression: !self.search.tree_compression,
            early_deadlock: self.search.early_deadlock,
            ..self.limits.options()
        }
    }
}

/// Default bounds: large enough for every built-in configuration, small
/// enough that a state explosion ends cleanly instead of exhausting memory.
pub const DEFAULT_MAX_STATES: u64 = 50_000_000;
pub const DEFAULT_MAX_MEMORY_MB: u64 = 8 * 1024;

/// The largest launch the checker accepts (explicit-state checking of more
/// threads than this is hopeless anyway, and the state packs thread ids).
pub const MAX_THREADS: u32 = 1024;

/// The most explorer worker threads (far more than any machine's cores;
/// tens of thousands only spend their time starting).
pub const MAX_WORKER_THREADS: usize = 1024;

/// The language's rule for parameter values: parameters count things
/// (iterations, capacities, sizes, strides) or switch them on (0/1), so
/// a value is a non-negative integer (`book/src/language.md`).
pub fn check_param_value(value: i64) -> Result<(), String> {
    if value < 0 {
        return Err(format!(
            "parameter values are non-negative (counts, sizes, 0/1 switches); got {value}"
        ));
    }
    Ok(())
}

/// A time limit is a positive, finite number of seconds.
pub fn check_seconds(seconds: f64) -> Result<(), String> {
    if !(seconds.is_finite() && seconds > 0.0) {
        return Err(format!(
            "a time limit is a positive number of seconds (got {seconds})"
        ));
    }
    Ok(())
}

/// Worker threads: 1 to [`MAX_WORKER_THREADS`].
pub fn check_worker_threads(threads: usize) -> Result<(), String> {
    if !(1..=MAX_WORKER_THREADS).contains(&threads) {
        return Err(format!(
            "worker threads are 1 to {MAX_WORKER_THREADS} (got {threads})"
        ));
    }
    Ok(())
}

impl CheckConfig {
    pub(super) fn validate(&self) -> Result<(), Error> {
        let l = self.launch;
        let positive = [
            ("--blocks", l.blocks),
            ("--threads-per-block", l.threads_per_block),
            ("--warp-size", l.warp_size),
        ];
        for (flag, v) in positive {
            if v == 0 {
                return Err(Error::Usage(format!("{flag} must be at least 1 (got 0)")));
            }
        }
        if l.warp_size > 64 {
            return Err(Error::Usage(format!(
                "--warp-size {} is larger than any GPU's (at most 64)",
                l.warp_size
            )));
        }
        if u64::from(l.blocks) * u64::from(l.threads_per_block) > u64::from(MAX_THREADS) {
            return Err(Error::Usage(format!(
                "a launch of {} blocks × {} threads has more than {MAX_THREADS} threads; explicit-state checking needs a small launch",
                l.blocks, l.threads_per_block
            )));
        }
        if self.semantics.resident == Some(0) {
            return Err(Error::Usage("--resident must be at least 1 (got 0)".into()));
        }
        check_worker_threads(self.search.threads)
            .map_err(|m| Error::Usage(format!("--threads: {m}")))?;
        if let Some(s) = self.limits.max_seconds {
            check_seconds(s).map_err(|m| Error::Usage(format!("--max-seconds: {m}")))?;
        }
        let at_least_1 = [
            ("--max-states", self.limits.max_states),
            ("--max-memory", self.limits.max_memory_mb),
        ];
        for (flag, v) in at_least_1 {
            if v == Some(0) {
                return Err(Error::Usage(format!("{flag} must be at least 1 (got 0)")));
            }
        }
        for (i, (name, value)) in self.params.iter().enumerate() {
            check_param_value(*value)
                .map_err(|m| Error::Usage(format!("--param {name}={value}: {m}")))?;
            if self.params[..i].iter().any(|(n, _)| n == name) {
                return Err(Error::Usage(format!(
                    "parameter `{name}` is set twice (--param, --iters, --size): give it once"
                )));
            }
        }
        if !self.semantics.races && self.semantics.memory_model == Some(MemoryModel::Sc) {
            return Err(Error::Usage(
                "--no-races applies under --memory-model ptx: sc reports no races".into(),
            ));
        }
        if self.semantics.lock_bits == Some(0) {
            return Err(Error::Usage(
                "--lock-bits must be at least 1 (got 0)".into(),
            ));
        }
        Ok(())
    }

    /// The SIMT mode in force: the option, else the spec header's `simt:`
    /// line, else `its`. Lockstep masks lanes in 32-bit words.
    pub(super) fn resolve_simt(&mut self, file: &SpecFile, spec: &SpecSource) -> Result<(), Error> {
        let mode: SimtMode = match (self.semantics.simt, &file.header.simt) {
            (Some(m), _) => m,
            (None, Some(v)) => v.text.parse().map_err(|e: String| {
                let d = Diagnostic::new(v.span, format!("`simt:` header line: {e}"))
                    .label("not a SIMT mode");
                Error::Spec(Box::new(d), Box::new(spec.source()))
            })?,
            (None, None) => SimtMode::Its,
        };
        if mode == SimtMode::Lockstep && self.launch.warp_size > 32 {
            return Err(Error::Usage(format!(
                "--simt lockstep supports warps of at most 32 threads (got --warp-size {})",
                self.launch.warp_size
            )));
        }
        if mode != SimtMode::Lockstep && self.semantics.branch_order.is_some() {
            return Err(Error::Usage(
                "--branch-order only applies to --simt lockstep (under its every interleaving is explored)".into(),
            ));
        }
        self.semantics.simt = Some(mode);
        Ok(())
    }

    /// The memory model a run uses: the one named, else the default,
    /// except that a spec using what only `sc` models (`sc_only`: lockstep
    /// warps, the lock unit) runs under `sc` when none is named.
    pub(super) fn resolve_memory_model(&mut self, sc_only: bool) {
        self.semantics.memory_model = Some(match self.semantics.memory_model {
            Some(named) => named,
            None if sc_only => MemoryModel::Sc,
            None => MemoryModel::default(),
        });
    }
}

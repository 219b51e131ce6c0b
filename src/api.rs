//! The library API: load a spec (built-in or from a file), check it under a
//! configuration, and get a [`Report`]. The CLI is a thin layer over this.

use crate::check::{check, Finding};
use crate::explore::{LimitKind, Options};
use crate::ir::{lower, Launch, Program};
use crate::model::lockbits::{self, DEFAULT_LOCK_BITS};
use crate::model::{BranchOrder, MemoryModel, Model, ModelOptions, Scheduler, SimtMode};
use crate::spec::ast::{Item, SpecFile};
use crate::spec::diag::{Diagnostic, Source};
use crate::trace::replay::{replay, spec_hash, ReplayOutcome, SavedCounterexample, SpecLocation};
use crate::trace::{build_trace, Report, RunConfig, Stats, Verdict, ViolationReport};
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

include!(concat!(env!("OUT_DIR"), "/builtin_specs.rs"));

/// The families a built-in spec can belong to, in the order `list` shows them.
pub const FAMILIES: &[&str] = &["barrier", "mutex", "semaphore"];

/// A spec text and where it came from.
#[derive(Clone, Debug)]
pub struct SpecSource {
    /// The spec's name: its file stem (a built-in's is its header's name;
    /// [`prepare`] names a file's spec by its header too).
    pub name: String,
    /// `builtin:NAME` or the path it was read from.
    pub origin: String,
    pub text: String,
}

impl SpecSource {
    pub fn builtin(name: &str) -> Option<SpecSource> {
        BUILTIN_SPECS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(n, text)| SpecSource {
                name: n.to_string(),
                origin: format!("builtin:{n}"),
                text: text.to_string(),
            })
    }

    pub fn from_file(path: &Path) -> Result<SpecSource, Error> {
        let text = crate::spec::input::read_text(path).map_err(Error::Usage)?;
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("spec")
            .to_string();
        Ok(SpecSource {
            name,
            origin: path.display().to_string(),
            text,
        })
    }

    /// The spec named as its header's `//! name:` line says, if it has one
    /// (a file's stem is only where it happens to be saved).
    pub fn named_by_header(&self, file: &SpecFile) -> SpecSource {
        let mut spec = self.clone();
        if let Some(name) = file.header.name.as_deref().map(str::trim) {
            if !name.is_empty() {
                spec.name = name.to_string();
            }
        }
        spec
    }

    pub fn source(&self) -> Source {
        Source::new(self.origin.clone(), self.text.clone())
    }
}

/// Every built-in spec, sorted by name.
pub fn builtins() -> impl Iterator<Item = SpecSource> {
    BUILTIN_SPECS
        .iter()
        .filter_map(|(n, _)| SpecSource::builtin(n))
}

/// A problem that stops a run before any verdict: exit code 2.
#[derive(Debug)]
pub enum Error {
    /// An error located in a spec.
    Spec(Box<Diagnostic>, Box<Source>),
    /// A bad option or launch.
    Usage(String),
}

impl Error {
    pub fn render(&self, color: bool) -> String {
        match self {
            Error::Spec(d, source) => d.render(source, color),
            Error::Usage(m) => format!("error: {m}\n"),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(false))
    }
}

/// How to check a spec.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckConfig {
    pub launch: Launch,
    /// `--param name=value` overrides, in the order given.
    pub params: Vec<(String, i64)>,
    /// `sc` or `ptx`; `None`: the default, `ptx`, or `sc` for a spec that
    /// uses what only `sc` models (lockstep warps, the lock unit).
    pub memory_model: Option<String>,
    /// Under `ptx`: report heterogeneous and data races.
    pub races: bool,
    /// `its` or `lockstep`; `None`: the spec's `//! simt:` header line, else `its`.
    pub simt: Option<String>,
    /// Under lockstep: `then-first` (default) or `else-first`.
    pub branch_order: Option<String>,
    /// Lock bits of the shared-memory lock unit (default 1024).
    pub lock_bits: Option<u32>,
    pub fuse_local_steps: bool,
    /// Fairness assumed for liveness (livelock, starvation).
    pub scheduler: Scheduler,
    /// At most this many blocks resident at once.
    pub resident: Option<u32>,
    pub max_states: Option<u64>,
    pub max_seconds: Option<f64>,
    pub max_memory_mb: Option<u64>,
    pub progress: bool,
    /// Worker threads of the explorer (the verdict and trace do not depend on it).
    pub threads: usize,
    /// Symmetry reduction over interchangeable blocks, where it is sound.
    pub symmetry: bool,
    /// Partial-order reduction of independent shared accesses (ample
    /// sets), where it is sound.
    pub ample_sets: bool,
    /// Store 63-bit fingerprints instead of states (see `explore::Options`).
    pub hash_compaction: bool,
    /// Under `ptx`, put states in canonical form (`model::memory`); off
    /// only to cross-check the reduction (the choices saved in a
    /// counterexample depend on it, so replays assume it on).
    pub canonical_memory: bool,
}

impl Default for CheckConfig {
    fn default() -> CheckConfig {
        CheckConfig {
            launch: Launch::default(),
            params: Vec::new(),
            memory_model: None,
            races: true,
            simt: None,
            branch_order: None,
            lock_bits: None,
            fuse_local_steps: true,
            scheduler: Scheduler::Unfair,
            resident: None,
            max_states: Some(DEFAULT_MAX_STATES),
            max_seconds: None,
            max_memory_mb: Some(DEFAULT_MAX_MEMORY_MB),
            progress: false,
            threads: 1,
            symmetry: true,
            ample_sets: true,
            hash_compaction: false,
            canonical_memory: true,
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
    fn validate(&self) -> Result<(), Error> {
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
        if self.resident == Some(0) {
            return Err(Error::Usage("--resident must be at least 1 (got 0)".into()));
        }
        check_worker_threads(self.threads).map_err(|m| Error::Usage(format!("--threads: {m}")))?;
        if let Some(s) = self.max_seconds {
            check_seconds(s).map_err(|m| Error::Usage(format!("--max-seconds: {m}")))?;
        }
        let at_least_1 = [
            ("--max-states", self.max_states),
            ("--max-memory", self.max_memory_mb),
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
        if !self.races && self.memory_model.as_deref() == Some(MemoryModel::Sc.name()) {
            return Err(Error::Usage(
                "--no-races applies under --memory-model ptx: sc reports no races".into(),
            ));
        }
        if let Some(name) = self.memory_model.as_deref() {
            MemoryModel::parse_or_explain(name).map_err(Error::Usage)?;
        }
        if let Some(mode) = &self.simt {
            mode.parse::<SimtMode>().map_err(Error::Usage)?;
        }
        if let Some(order) = &self.branch_order {
            order.parse::<BranchOrder>().map_err(Error::Usage)?;
        }
        if self.lock_bits == Some(0) {
            return Err(Error::Usage(
                "--lock-bits must be at least 1 (got 0)".into(),
            ));
        }
        Ok(())
    }

    /// The SIMT mode in force: the option, else the spec header's `simt:`
    /// line, else `its`. Lockstep masks lanes in 32-bit words.
    fn resolve_simt(&mut self, file: &SpecFile, spec: &SpecSource) -> Result<(), Error> {
        let mode: SimtMode = match (&self.simt, &file.header.simt) {
            (Some(m), _) => m.parse().map_err(Error::Usage)?,
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
        if mode != SimtMode::Lockstep && self.branch_order.is_some() {
            return Err(Error::Usage(
                "--branch-order only applies to --simt lockstep (under its every interleaving is explored)".into(),
            ));
        }
        self.simt = Some(mode.name().to_string());
        Ok(())
    }

    /// The memory model (once resolved by [`prepare`]; `ptx` before).
    pub fn memory_model(&self) -> MemoryModel {
        self.memory_model
            .as_deref()
            .and_then(MemoryModel::parse)
            .unwrap_or(DEFAULT_MEMORY_MODEL)
    }

    pub fn simt_mode(&self) -> SimtMode {
        self.simt
            .as_deref()
            .and_then(|m| m.parse().ok())
            .unwrap_or_default()
    }

    pub fn branch_order_value(&self) -> BranchOrder {
        self.branch_order
            .as_deref()
            .and_then(|m| m.parse().ok())
            .unwrap_or_default()
    }
}

/// The memory model when none is named.
pub const DEFAULT_MEMORY_MODEL: MemoryModel = MemoryModel::Ptx;

/// The memory model a run uses: the one named, else the default, except
/// that a spec using what only `sc` models (`sc_only`: lockstep warps, the
/// lock unit) runs under `sc` when none is named.
fn resolve_memory_model(named: Option<&str>, sc_only: bool) -> &str {
    match named {
        Some(name) => name,
        None if sc_only => "sc",
        None => DEFAULT_MEMORY_MODEL.name(),
    }
}

/// A spec parsed and lowered for one configuration.
pub struct Prepared {
    pub spec: SpecSource,
    pub file: SpecFile,
    pub program: Program,
    pub config: CheckConfig,
}

/// Parses a spec (errors located in it).
pub fn parse(spec: &SpecSource) -> Result<SpecFile, Error> {
    let source = spec.source();
    crate::spec::parse(&source).map_err(|d| Error::Spec(Box::new(d), Box::new(source)))
}

/// Parses a spec and, for a harness whose header names CUDA files
/// (`//! cuda: FILE.cu`), adds their device functions; returns the file
/// and the source every span points into (the harness, then the CUDA).
pub fn load(spec: &SpecSource) -> Result<(SpecFile, Source), Error> {
    let mut file = parse(spec)?;
    let mut source = spec.source();
    if crate::cu::imports_cuda(&file) {
        let request = crate::cu::Request::from_header(&file, Path::new(&spec.origin))
            .map_err(|d| Error::Spec(Box::new(d), Box::new(source.clone())))?;
        crate::cu::attach(&mut file, &mut source, &request)
            .map_err(|d| Error::Spec(Box::new(d), Box::new(source.clone())))?;
    }
    Ok((file, source))
}

/// Parses and lowers a spec for `config`, refusing what cannot be checked yet.
pub fn prepare(spec: &SpecSource, config: &CheckConfig) -> Result<Prepared, Error> {
    config.validate()?;
    let (file, source) = load(spec)?;
    let spec = &spec.named_by_header(&file);
    check_param_names(&file, &config.params, &spec.name)?;
    let mut config = with_liveness_defaults(&file, config, &spec.name)?;
    config.resolve_simt(&file, spec)?;
    let config = &config;
    let program = lower(&file, &source, config.launch, &config.params)
        .map_err(|d| Error::Spec(Box::new(d), Box::new(source.clone())))?;
    if let Some((what, span)) = program.unsupported.first() {
        let d = Diagnostic::new(
            *span,
            format!("`{what}` has no semantics in this version of the checker"),
        )
        .label("not supported yet")
        .hint("the construct is parsed but not modelled yet; remove it to check the rest");
        return Err(Error::Spec(Box::new(d), Box::new(source)));
    }
    let sc_only = config.simt_mode() == SimtMode::Lockstep || lockbits::uses_lock_bits(&program);
    let config = &CheckConfig {
        memory_model: Some(resolve_memory_model(config.memory_model.as_deref(), sc_only).into()),
        ..config.clone()
    };
    if config.memory_model() == MemoryModel::Ptx {
        if config.simt_mode() == SimtMode::Lockstep {
            return Err(Error::Usage(
                "--simt lockstep is modelled under --memory-model sc only".into(),
            ));
        }
        if lockbits::uses_lock_bits(&program) {
            return Err(Error::Usage(
                "the lock unit (ldslk/stsul) is modelled under --memory-model sc only".into(),
            ));
        }
    }
    if config.lock_bits.is_some() && !lockbits::uses_lock_bits(&program) {
        return Err(Error::Usage(format!(
            "--lock-bits applies to specs that use the lock unit (ldslk/stsul); `{}` does not",
            spec.name
        )));
    }
    negative_default(&file, &program, &config.params)
        .map_err(|d| Error::Spec(Box::new(d), Box::new(source.clone())))?;
    if let Some((var, span)) = lockbits::misplaced_lock_bit(&program) {
        let d = Diagnostic::new(span, lockbits::misplaced_message(&var))
            .label("not in shared memory")
            .hint("declare the variable `shared`");
        return Err(Error::Spec(Box::new(d), Box::new(source)));
    }
    Ok(Prepared {
        spec: spec.clone(),
        file,
        program,
        config: config.clone(),
    })
}

/// A parameter whose default (not overridden) is negative, located at its
/// declaration: parameter values are non-negative ([`check_param_value`]).
fn negative_default(
    file: &SpecFile,
    program: &Program,
    overrides: &[(String, i64)],
) -> Result<(), Diagnostic> {
    for (name, value) in &program.params {
        if overrides.iter().any(|(n, _)| n == name) {
            continue;
        }
        let Err(message) = check_param_value(*value) else {
            continue;
        };
        let decl = file.items.iter().find_map(|i| match i {
            Item::Param(p) if &p.name.name == name => Some(p.span),
            _ => None,
        });
        if let Some(span) = decl {
            return Err(
                Diagnostic::new(span, format!("parameter `{name}`: {message}"))
                    .label("negative default")
                    .hint("a parameter counts something or switches it on (0/1)"),
            );
        }
    }
    Ok(())
}

/// The parameters a spec declares, in order.
pub fn declared_params(file: &SpecFile) -> Vec<String> {
    file.items
        .iter()
        .filter_map(|i| match i {
            Item::Param(p) => Some(p.name.name.clone()),
            _ => None,
        })
        .collect()
}

/// Under a fair scheduler, the parameters a spec names in its
/// `//! liveness: NAME=V ...` header line (e.g. `iters=0`: run forever)
/// apply unless the command line sets them: liveness is about executions
/// that never end.
fn with_liveness_defaults(
    file: &SpecFile,
    config: &CheckConfig,
    spec: &str,
) -> Result<CheckConfig, Error> {
    let mut config = config.clone();
    if config.scheduler == Scheduler::Unfair {
        return Ok(config);
    }
    // The header parser checked the syntax and that each name is a parameter.
    for (name, v) in &file.header.liveness {
        if !config.params.iter().any(|(n, _)| *n == name.name) {
            config.params.push((name.name.clone(), *v));
        }
    }
    check_param_names(file, &config.params, spec)?;
    Ok(config)
}

fn check_param_names(
    file: &SpecFile,
    overrides: &[(String, i64)],
    spec: &str,
) -> Result<(), Error> {
    let declared: Vec<&str> = file
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Param(p) => Some(p.name.name.as_str()),
            _ => None,
        })
        .collect();
    for (name, value) in overrides {
        check_param_value(*value)
            .map_err(|m| Error::Usage(format!("spec `{spec}`: parameter `{name}={value}`: {m}")))?;
        if !declared.contains(&name.as_str()) {
            let known = if declared.is_empty() {
                "it has none".to_string()
            } else {
                format!("it has: {}", declared.join(", "))
            };
            return Err(Error::Usage(format!(
                "spec `{spec}` has no parameter `{name}` ({known})"
            )));
        }
    }
    Ok(())
}

/// The semantics of a prepared spec under its configuration.
pub fn model_of(prepared: &Prepared) -> Model<'_> {
    Model::new(
        &prepared.program,
        ModelOptions {
            fuse_local_steps: prepared.config.fuse_local_steps,
            resident: prepared.config.resident,
            simt: prepared.config.simt_mode(),
            branch_order: prepared.config.branch_order_value(),
            lock_bits: prepared.config.lock_bits.unwrap_or(DEFAULT_LOCK_BITS),
            barrier_divergence: true,
            memory_model: prepared.config.memory_model(),
            races: prepared.config.races,
            canonical_memory: prepared.config.canonical_memory,
        },
    )
}

/// The model with the reductions the configuration allows, and a note
/// saying which were used or why not.
fn reduced_model_of(prepared: &Prepared) -> (Model<'_>, String) {
    let mut model = model_of(prepared);
    let note = if !prepared.config.symmetry {
        "symmetry off (--no-symmetry)".to_string()
    } else if prepared.config.scheduler != Scheduler::Unfair {
        "symmetry off (fairness is checked per thread on the full graph)".to_string()
    } else {
        match model.enable_symmetry() {
            Ok(sym) => format!("symmetry: {}", sym.describe()),
            Err(why) => format!("symmetry off ({why})"),
        }
    };
    let por = if !prepared.config.ample_sets {
        "ample sets off (--no-por)".to_string()
    } else if prepared.config.scheduler != Scheduler::Unfair {
        "ample sets off (fairness reads every thread's enabled steps)".to_string()
    } else {
        match model.enable_por() {
            Ok(()) => "ample sets of independent steps".to_string(),
            Err(why) => format!("ample sets off ({why})"),
        }
    };
    (model, format!("{note}; {por}"))
}

/// Checks a prepared spec and builds its report.
pub fn run(prepared: &Prepared) -> Report {
    let program = &prepared.program;
    let config = &prepared.config;
    let (model, mut reductions) = reduced_model_of(prepared);
    let options = Options {
        max_states: config.max_states,
        max_seconds: config.max_seconds,
        max_memory_bytes: config.max_memory_mb.map(|mb| mb * 1024 * 1024),
        keep_edges: true,
        progress: config.progress,
        threads: config.threads,
        hash_compaction: config.hash_compaction,
    };
    let started = std::time::Instant::now();
    let result = check(&model, &options, config.scheduler);
    if (model.symmetry().is_some() && !result.symmetric) || (model.has_por() && !result.ample) {
        reductions = "symmetry and ample sets off (the harness never finishes: per-thread progress is checked on the full graph)".into();
    }
    if result.reduced_trace {
        reductions.push_str("; counterexample from the reduced graph (not necessarily shortest: the full graph is too large to retrace it)");
    }
    if result.compacted {
        reductions.push_str(&format!(
            "; hash compaction: {}-bit fingerprints, P(two states merged) <= {:.1e}",
            crate::explore::FINGERPRINT_BITS,
            crate::explore::collision_probability(result.stats.states)
        ));
    } else if config.hash_compaction {
        reductions.push_str("; hash compaction off (the per-thread analyses read every state)");
    }
    // The whole check: exploration plus the graph analyses after it.
    let seconds = started.elapsed().as_secs_f64();
    let violations: Vec<ViolationReport> = result
        .findings
        .iter()
        .map(|f| violation_report(&model, f))
        .collect();
    let verdict = if !violations.is_empty() {
        Verdict::Violated
    } else if result.limit.is_some() {
        Verdict::Inconclusive
    } else {
        Verdict::Verified
    };
    let s = &result.stats;
    Report {
        spec: prepared.spec.name.clone(),
        source: prepared.spec.origin.clone(),
        config: run_config(program, config),
        verdict,
        limit: result
            .limit
            .filter(|_| verdict == Verdict::Inconclusive)
            .map(limit_name),
        stats: Stats {
            states: s.states,
            transitions: s.transitions,
            max_depth: u64::from(s.max_depth),
            seconds: Some(seconds),
            states_per_second: Some(s.states as f64 / seconds.max(1e-9)),
            peak_store_bytes: Some(s.peak_bytes),
            analysis_bytes: Some(s.analysis_bytes),
            // The whole check's peak (search and analyses), not the search's.
            peak_rss_bytes: crate::explore::peak_rss_bytes().or(s.peak_rss_bytes),
            explore_seconds: Some(s.seconds),
            reductions: Some(reductions),
        },
        violations,
    }
}

/// Loads, prepares and checks in one call.
pub fn check_spec(spec: &SpecSource, config: &CheckConfig) -> Result<Report, Error> {
    Ok(run(&prepare(spec, config)?))
}

pub fn limit_name(kind: LimitKind) -> String {
    match kind {
        LimitKind::States => "max_states",
        LimitKind::Time => "max_seconds",
        LimitKind::Memory => "max_memory",
    }
    .to_string()
}

fn run_config(program: &Program, config: &CheckConfig) -> RunConfig {
    RunConfig {
        launch: config.launch,
        memory_model: config.memory_model().name().to_string(),
        races: config.races,
        simt: config.simt_mode().name().to_string(),
        branch_order: (config.simt_mode() == SimtMode::Lockstep)
            .then(|| config.branch_order_value().name().to_string()),
        lock_bits: lockbits::uses_lock_bits(program)
            .then(|| config.lock_bits.unwrap_or(DEFAULT_LOCK_BITS)),
        params: program.params.iter().cloned().collect::<BTreeMap<_, _>>(),
        fuse_local_steps: config.fuse_local_steps,
        scheduler: config.scheduler,
        resident: config.resident,
        max_states: config.max_states,
        max_seconds: config.max_seconds,
        max_memory_mb: config.max_memory_mb,
    }
}

fn violation_report(model: &Model, f: &Finding) -> ViolationReport {
    let (trace, fault) = build_trace(model, &f.schedule, &f.cycle);
    let location = crate::trace::location::violation_location(
        model,
        &f.schedule,
        &f.cycle,
        &trace,
        fault.is_some(),
    );
    ViolationReport {
        kind: f.kind.name().to_string(),
        property: f.property.to_string(),
        message: f.message.clone(),
        waiting: f.waiting.clone(),
        location,
        trace,
    }
}

/// The config a saved report ran with, as a [`CheckConfig`] (for replay).
pub fn config_of(report: &RunConfig) -> CheckConfig {
    CheckConfig {
        launch: report.launch,
        params: report.params.iter().map(|(k, v)| (k.clone(), *v)).collect(),
        memory_model: Some(report.memory_model.clone()),
        races: report.races,
        simt: Some(report.simt.clone()),
        branch_order: report.branch_order.clone(),
        lock_bits: report.lock_bits,
        fuse_local_steps: report.fuse_local_steps,
        scheduler: report.scheduler,
        resident: report.resident,
        max_states: report.max_states,
        max_seconds: report.max_seconds,
        max_memory_mb: report.max_memory_mb,
        // Saved choices assume the canonical form (see the field).
        canonical_memory: true,
        // How the search ran does not change what it found: replay with
        // the default search settings.
        ..CheckConfig::default()
    }
}

/// A saved counterexample (`--out DIR`) read from `text`, the content of
/// the file at `path` (errors name its line and column).
pub fn parse_counterexample(path: &Path, text: &str) -> Result<SavedCounterexample, Error> {
    serde_json::from_str(text).map_err(|e| {
        Error::Usage(format!(
            "{}:{}:{}: not a gsync-check counterexample: {e}",
            path.display(),
            e.line(),
            e.column()
        ))
    })
}

/// The spec a saved counterexample at `path` was recorded on: a built-in
/// by name, or a file relative to the counterexample's folder.
pub fn counterexample_spec(saved: &SavedCounterexample, path: &Path) -> Result<SpecSource, Error> {
    match saved.spec_location(path) {
        SpecLocation::Builtin(name) => SpecSource::builtin(&name).ok_or_else(|| {
            Error::Usage(format!(
                "the counterexample names built-in spec `{name}`, which does not exist"
            ))
        }),
        SpecLocation::File(spec_path) => SpecSource::from_file(&spec_path).map_err(|e| {
            Error::Usage(format!(
                "{} (the counterexample's spec, `{}`, is found relative to the counterexample's folder)",
                e.render(false).trim_end().trim_start_matches("error: "),
                saved.source
            ))
        }),
    }
}

/// Replays `saved` on `spec` under the recorded configuration. A spec
/// that no longer parses is an error (located); a recorded configuration
/// the spec refuses is a corrupt recording (spec unchanged) or a changed
/// spec.
pub fn replay_counterexample(
    saved: &SavedCounterexample,
    spec: &SpecSource,
) -> Result<ReplayOutcome, Error> {
    match prepare(spec, &config_of(&saved.config)) {
        Ok(prepared) => Ok(replay(&model_of(&prepared), saved, &spec.text)),
        Err(e @ Error::Spec(..)) => Err(e),
        Err(Error::Usage(m)) => {
            let reason = format!("the recorded configuration is refused: {m}");
            Ok(if spec_hash(&spec.text) == saved.spec_hash {
                ReplayOutcome::Corrupt { step: 0, reason }
            } else {
                ReplayOutcome::SpecChanged { step: 0, reason }
            })
        }
    }
}

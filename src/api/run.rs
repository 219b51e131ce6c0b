//! Checking a prepared spec and building its [`Report`]: the model, the
//! checker's settings, the findings as traces.

use super::{prepare, CheckConfig, Error, Prepared, SpecSource};
use crate::check::{check, CheckResult, Settings};
use crate::explore::Options;
use crate::ir::Program;
use crate::model::lockbits::{self, DEFAULT_LOCK_BITS};
use crate::model::{Model, ModelOptions, SimtMode};
use crate::reduce::Reductions;
use crate::report::{Limit, Measured, Report, RunConfig, Stats, Verdict, ViolationReport};
use crate::trace::violation_report;
use std::collections::BTreeMap;

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
            refresh_views: prepared.config.refresh_views,
            drop_dead_writes: prepared.config.drop_dead_writes,
            track_started: prepared.config.scheduler.needs_started(),
        },
    )
}

/// Checks a prepared spec and builds its report.
pub fn run(prepared: &Prepared) -> Report {
    let config = &prepared.config;
    let model = model_of(prepared);
    let settings = Settings {
        scheduler: config.scheduler,
        reductions: Reductions {
            symmetry: config.symmetry,
            ample_sets: config.ample_sets,
            forget: config.forget,
            awaits: config.awaits,
        },
        limits: limits_of(config),
    };
    let started = crate::clock::Instant::now();
    let result = check(&model, &settings);
    // The whole check: exploration plus the graph analyses after it.
    let seconds = started.elapsed().as_secs_f64();
    report_of(prepared, &model, &result, seconds)
}

/// The limits and search settings of a configuration.
pub(crate) fn limits_of(config: &CheckConfig) -> Options {
    Options {
        max_states: config.max_states,
        deadline: config
            .deadline
            .or_else(|| crate::explore::deadline_in(config.max_seconds)),
        max_memory_bytes: config.max_memory_mb.map(|mb| mb * 1024 * 1024),
        keep_edges: true,
        progress: config.progress,
        threads: config.threads,
        hash_compaction: config.hash_compaction,
        no_tree_compression: !config.tree_compression,
        ..Options::default()
    }
}

/// The report of a check that took `seconds` (also the distributed one's).
pub(crate) fn report_of(
    prepared: &Prepared,
    model: &Model,
    result: &CheckResult,
    seconds: f64,
) -> Report {
    let (program, config) = (&prepared.program, &prepared.config);
    let violations: Vec<ViolationReport> = result
        .findings
        .iter()
        .map(|f| violation_report(model, f))
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
            .map(Limit::from),
        stats: Stats {
            states: s.states,
            transitions: s.transitions,
            max_depth: u64::from(s.max_depth),
            measured: Some(Measured {
                seconds,
                states_per_second: s.states as f64 / seconds.max(1e-9),
                peak_store_bytes: s.peak_bytes,
                analysis_bytes: s.analysis_bytes,
                // The whole check's peak (search and analyses), not the search's.
                peak_rss_bytes: crate::explore::peak_rss_bytes().or(s.peak_rss_bytes),
                explore_seconds: s.seconds,
                reductions: result.reductions.clone(),
            }),
        },
        violations,
    }
}

/// Loads, prepares and checks in one call.
pub fn check_spec(spec: &SpecSource, config: &CheckConfig) -> Result<Report, Error> {
    Ok(run(&prepare(spec, config)?))
}

fn run_config(program: &Program, config: &CheckConfig) -> RunConfig {
    RunConfig {
        launch: config.launch,
        memory_model: config.memory_model(),
        races: config.races,
        simt: config.simt_mode(),
        branch_order: (config.simt_mode() == SimtMode::Lockstep)
            .then(|| config.branch_order_value()),
        lock_bits: lockbits::uses_lock_bits(program)
            .then(|| config.lock_bits.unwrap_or(DEFAULT_LOCK_BITS)),
        params: program.params.iter().cloned().collect::<BTreeMap<_, _>>(),
        fuse_local_steps: config.fuse_local_steps,
        refresh_views: config.refresh_views,
        drop_dead_writes: config.drop_dead_writes,
        scheduler: config.scheduler,
        resident: config.resident,
        max_states: config.max_states,
        max_seconds: config.max_seconds,
        max_memory_mb: config.max_memory_mb,
    }
}

/// The config a saved report ran with, as a [`CheckConfig`] (for replay).
pub fn config_of(report: &RunConfig) -> CheckConfig {
    CheckConfig {
        launch: report.launch,
        params: report.params.iter().map(|(k, v)| (k.clone(), *v)).collect(),
        memory_model: Some(report.memory_model),
        races: report.races,
        simt: Some(report.simt),
        branch_order: report.branch_order,
        lock_bits: report.lock_bits,
        fuse_local_steps: report.fuse_local_steps,
        refresh_views: report.refresh_views,
        drop_dead_writes: report.drop_dead_writes,
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

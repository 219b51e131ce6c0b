//! Checking a prepared spec and building its [`Report`]: the model, the
//! checker's settings, the findings as traces.

use super::{prepare, CheckConfig, Error, Prepared, Semantics, SpecSource};
use crate::check::{check, hunt, CheckResult, Settings};
use crate::explore::Limits;
use crate::ir::Program;
use crate::model::lockbits::{self, DEFAULT_LOCK_BITS};
use crate::model::{Model, SimtMode};
use crate::report::{Limit, Measured, Report, RunConfig, Stats, Verdict, ViolationReport};
use crate::trace::violation_report;
use std::collections::BTreeMap;

/// The semantics of a prepared spec under its configuration.
pub fn model_of(prepared: &Prepared) -> Model<'_> {
    let config = &prepared.config;
    Model::new(
        &prepared.program,
        config.semantics.model_options(config.scheduler),
    )
}

/// Checks a prepared spec and builds its report.
pub fn run(prepared: &Prepared) -> Report {
    let config = &prepared.config;
    let model = model_of(prepared);
    let settings = Settings {
        scheduler: config.scheduler,
        reductions: config.reductions,
        limits: config.explore_options(),
    };
    let started = crate::clock::Instant::now();
    let result = match config.search.hunt {
        Some(h) => hunt(&model, &settings, h),
        None => check(&model, &settings),
    };
    // The whole check: exploration plus the graph analyses after it.
    let seconds = started.elapsed().as_secs_f64();
    report_of(prepared, &model, &result, seconds)
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
                explore_phases: s.phases,
                reductions: result.reductions.as_deref().cloned(),
            }),
        },
        violations,
        fix: None,
    }
}

/// Loads, prepares and checks in one call.
pub fn check_spec(spec: &SpecSource, config: &CheckConfig) -> Result<Report, Error> {
    Ok(run(&prepare(spec, config)?))
}

/// [`check_spec`] with imported CUDA files read from `overlay`.
pub fn check_spec_with(
    spec: &SpecSource,
    config: &CheckConfig,
    overlay: &super::Overlay,
) -> Result<Report, Error> {
    Ok(run(&super::prepare_with(spec, config, overlay)?))
}

fn run_config(program: &Program, config: &CheckConfig) -> RunConfig {
    let semantics = &config.semantics;
    RunConfig {
        launch: config.launch,
        memory_model: semantics.memory_model(),
        races: semantics.races,
        simt: semantics.simt_mode(),
        branch_order: (semantics.simt_mode() == SimtMode::Lockstep)
            .then(|| semantics.branch_order_value()),
        lock_bits: lockbits::uses_lock_bits(program)
            .then(|| semantics.lock_bits.unwrap_or(DEFAULT_LOCK_BITS)),
        params: program.params.iter().cloned().collect::<BTreeMap<_, _>>(),
        fuse_local_steps: semantics.fuse_local_steps,
        refresh_views: semantics.refresh_views,
        drop_dead_writes: semantics.drop_dead_writes,
        canonical_fixpoint: semantics.canonical_fixpoint,
        scheduler: config.scheduler,
        resident: semantics.resident,
        limits: Limits {
            deadline: None,
            ..config.limits
        },
        hunt: config.search.hunt,
        launches: program.launches.clone(),
    }
}

/// The config a saved report ran with, as a [`CheckConfig`] (for replay):
/// everything [`run_config`] records, back in its place.
pub fn config_of(report: &RunConfig) -> CheckConfig {
    let base = CheckConfig::default();
    CheckConfig {
        launch: report.launch,
        params: report.params.iter().map(|(k, v)| (k.clone(), *v)).collect(),
        semantics: Semantics {
            memory_model: Some(report.memory_model),
            races: report.races,
            simt: Some(report.simt),
            branch_order: report.branch_order,
            lock_bits: report.lock_bits,
            fuse_local_steps: report.fuse_local_steps,
            resident: report.resident,
            // Saved choices assume the canonical form (see the field).
            canonical_memory: true,
            refresh_views: report.refresh_views,
            drop_dead_writes: report.drop_dead_writes,
            canonical_fixpoint: report.canonical_fixpoint,
        },
        scheduler: report.scheduler,
        limits: report.limits,
        // How the search ran does not change what it found: replay with
        // the default reductions and search settings.
        ..base
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BranchOrder, MemoryModel, Progress, Scheduler};

    /// The configurations a saved report must bring back: each option that
    /// decides the result away from its default, on a spec it applies to.
    fn cases() -> Vec<(&'static str, CheckConfig)> {
        let base = CheckConfig::default;
        let mut cases = vec![("spin_lock", base()), ("tinylock_mutex", base())];
        let mut with = |name, set: fn(&mut CheckConfig)| {
            let mut c = base();
            set(&mut c);
            cases.push((name, c));
        };
        with("spin_lock", |c| c.semantics.races = false);
        with("spin_lock", |c| {
            c.semantics.memory_model = Some(MemoryModel::Sc)
        });
        with("spin_lock", |c| c.semantics.fuse_local_steps = false);
        with("spin_lock", |c| c.semantics.refresh_views = false);
        with("spin_lock", |c| c.semantics.drop_dead_writes = false);
        with("spin_lock", |c| c.semantics.canonical_fixpoint = false);
        with("spin_lock", |c| {
            c.scheduler = Scheduler::uniform(Progress::Fair)
        });
        with("spin_lock", |c| c.params.push(("iters".into(), 2)));
        with("spin_lock", |c| c.limits.max_seconds = Some(9.5));
        with("spin_lock", |c| c.limits.max_states = Some(1234));
        with("spin_lock", |c| c.limits.max_memory_mb = Some(77));
        with("spin_lock", |c| {
            c.launch.blocks = 3;
            c.semantics.resident = Some(2);
        });
        with("tinylock_mutex", |c| c.semantics.lock_bits = Some(7));
        with("tinylock_mutex", |c| {
            c.launch.threads_per_block = 2;
            c.semantics.branch_order = Some(BranchOrder::ElseFirst);
        });
        cases
    }

    /// A saved report reruns the check it records: the model gets the same
    /// options and the same program, and records the same configuration.
    /// An option added to one side of `run_config` / `config_of` and not
    /// the other fails here.
    #[test]
    fn a_saved_configuration_reruns_the_same_check() {
        for (name, config) in cases() {
            let spec = SpecSource::builtin(name).expect("a built-in spec");
            let first = prepare(&spec, &config).expect("the case prepares");
            let saved = run_config(&first.program, &first.config);
            let again = prepare(&spec, &config_of(&saved)).expect("the saved case prepares");
            let options = |p: &Prepared| p.config.semantics.model_options(p.config.scheduler);
            assert_eq!(options(&first), options(&again), "{name}: {config:?}");
            assert_eq!(first.program.params, again.program.params, "{name}");
            assert_eq!(first.config.launch, again.config.launch, "{name}");
            assert_eq!(
                saved,
                run_config(&again.program, &again.config),
                "{name}: {config:?}"
            );
        }
    }

    /// Every case differs from the default in what the report records:
    /// the test above would pass vacuously for an option the report
    /// dropped on both sides.
    #[test]
    fn each_option_that_decides_the_result_is_recorded() {
        let record = |name: &str, config: &CheckConfig| {
            let spec = SpecSource::builtin(name).unwrap();
            let p = prepare(&spec, config).unwrap();
            run_config(&p.program, &p.config)
        };
        let cases = cases();
        for (name, config) in &cases[2..] {
            let default = &cases.iter().find(|(n, _)| n == name).unwrap().1;
            assert_ne!(
                record(name, config),
                record(name, default),
                "{name}: {config:?}"
            );
        }
    }

    /// The canonical fixpoint is on by default, so a new save records it
    /// either way, and one saved before it existed (no such field) was
    /// searched without it and replays without it.
    #[test]
    fn a_save_without_the_canonical_fixpoint_replays_without_it() {
        let spec = SpecSource::builtin("spin_lock").unwrap();
        let p = prepare(&spec, &CheckConfig::default()).unwrap();
        let mut saved = serde_json::to_value(run_config(&p.program, &p.config)).unwrap();
        assert_eq!(saved["canonical_fixpoint"], true);
        saved.as_object_mut().unwrap().remove("canonical_fixpoint");
        let old: RunConfig = serde_json::from_value(saved).unwrap();
        assert!(!config_of(&old).semantics.canonical_fixpoint);
    }
}

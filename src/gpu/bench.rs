//! `bench`: the seeds' comparisons on this GPU, side by side in one run:
//! barriers (with `grid.sync()` as the external baseline), mutexes and
//! semaphores, from 1 block per SM to the most the GPU holds. Writes CSV,
//! JSON and one SVG plot per family ([`super::plot`]) of time per
//! operation against blocks per SM.

use super::run::{run, GpuReport, GpuRunConfig, RunRequest};
use super::LaunchRequest;
use crate::api::{Error, SpecSource};
use crate::cuda::baseline::{run_grid_sync, GridSyncRun};
use crate::cuda::device::{Gpu, GpuInfo};
use crate::cuda::harness::{DeviceCheck, Outcome};
use crate::report::Verdict;
use serde::Serialize;
use std::time::Duration;

/// One line of a plot.
#[derive(Clone, Debug)]
pub(crate) struct Variant {
    pub family: &'static str,
    pub label: String,
    /// A built-in spec, or `grid.sync` for the baseline.
    pub spec: &'static str,
    pub params: Vec<(String, i64)>,
    pub backoff_max_ns: u32,
    pub iters: i64,
    /// Run although the model check fails (the failure is in the row).
    pub force: bool,
}

fn variant(family: &'static str, label: &str, spec: &'static str, iters: i64) -> Variant {
    Variant {
        family,
        label: label.to_string(),
        spec,
        params: Vec::new(),
        backoff_max_ns: 1024,
        iters,
        force: false,
    }
}

/// The suite: the seeds' primitives and the baseline.
pub(crate) fn suite(barrier_iters: i64, lock_iters: i64) -> Vec<Variant> {
    let mut v = vec![
        variant(
            "barrier",
            "grid.sync() (cooperative groups)",
            "grid.sync",
            barrier_iters,
        ),
        variant(
            "barrier",
            "sense-reversing, two-level (fast spec)",
            "sense_reversing_barrier_fast",
            barrier_iters,
        ),
        // The tuned barrier: one level up to 4 blocks per SM, above that
        // groups of two SMs' worth of blocks (16 at 8 blocks/SM, 32 at 16),
        // backoff 32 ns between polls, the harness's data check on one
        // episode in 8.
        Variant {
            params: vec![
                ("group_size".to_string(), 0),
                ("group_sms".to_string(), 2),
                ("flat_max".to_string(), 4),
                ("check_every".to_string(), 8),
            ],
            backoff_max_ns: 32,
            ..variant(
                "barrier",
                "sense-reversing, release/acquire: one level to 4 blocks/SM, then groups of 2 SMs (grouped spec)",
                "sense_reversing_barrier_grouped",
                barrier_iters,
            )
        },
        variant(
            "barrier",
            "sense-reversing, two-level, release/acquire, SM leaders wake their SM (hier_ra spec)",
            "sense_reversing_barrier_hier_ra",
            barrier_iters,
        ),
        variant(
            "barrier",
            "sense-reversing (seed listing, fixed)",
            "sense_reversing_barrier_fixed",
            barrier_iters,
        ),
        variant(
            "barrier",
            "HeteroSync atomic tree",
            "heterosync_tree_barrier",
            barrier_iters,
        ),
        Variant {
            force: true,
            ..variant(
                "barrier",
                "CCG-style (seed listing, forced)",
                "ccg_grid_barrier",
                barrier_iters,
            )
        },
        variant("mutex", "spin", "spin_lock", lock_iters),
        variant("mutex", "spin + backoff", "spin_lock_backoff", lock_iters),
        variant("mutex", "ticket", "ticket_mutex", lock_iters),
        variant("mutex", "ring buffer", "ring_buffer_mutex", lock_iters),
    ];
    for size in [1, 10, 120] {
        let sem = |label: &str, spec: &'static str, backoff: u32| Variant {
            params: vec![("size".to_string(), size)],
            backoff_max_ns: backoff,
            ..variant(
                "semaphore",
                &format!("{label}, size {size}"),
                spec,
                lock_iters,
            )
        };
        v.push(sem("spin", "heterosync_semaphore", 1024));
        v.push(sem("spin + backoff", "heterosync_semaphore_backoff", 1024));
        v.push(sem("priority", "priority_semaphore", 1024));
        v.push(sem("priority, no backoff", "priority_semaphore", 0));
    }
    v
}

/// One measurement.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub(crate) struct Row {
    pub family: String,
    pub variant: String,
    pub spec: String,
    pub blocks_per_sm: u32,
    pub blocks: u32,
    pub threads_per_block: u32,
    pub iters: i64,
    pub model_verdict: Verdict,
    pub outcome: Outcome,
    pub ns_per_op: Option<f64>,
    pub blocks_finished: u32,
    pub checks_passed: bool,
    pub failed_checks: String,
}

impl Row {
    fn of(v: &Variant, r: &GpuReport) -> Row {
        let failed: Vec<String> = r
            .checks
            .iter()
            .filter(|c| !c.passed)
            .map(|c| format!("{}: {}", c.name, c.detail))
            .collect();
        Row {
            family: v.family.into(),
            variant: v.label.clone(),
            spec: v.spec.into(),
            blocks_per_sm: r.config.blocks_per_sm,
            blocks: r.config.blocks,
            threads_per_block: r.config.threads_per_block,
            iters: v.iters,
            model_verdict: r.model_verdict,
            outcome: r.outcome,
            ns_per_op: r.ns_per_op,
            blocks_finished: r.blocks_finished,
            checks_passed: failed.is_empty(),
            failed_checks: failed.join("; "),
        }
    }
}

pub(crate) struct BenchOptions {
    pub contention: Vec<u32>,
    pub threads_per_block: u32,
    pub timeout: Duration,
    pub repeats: u32,
}

impl Variant {
    /// The run of this variant at `blocks_per_sm`.
    fn request(&self, spec: SpecSource, blocks_per_sm: u32, o: &BenchOptions) -> RunRequest {
        RunRequest {
            spec,
            launch: LaunchRequest {
                blocks_per_sm,
                blocks: None,
                threads_per_block: o.threads_per_block,
                iters: Some(self.iters),
                params: self.params.clone(),
            },
            cs_len: 0,
            backoff_max_ns: self.backoff_max_ns,
            timeout: o.timeout,
            repeats: o.repeats,
            force: self.force,
        }
    }
}

/// The `grid.sync()` baseline at `blocks_per_sm`, reported like a spec run.
fn grid_sync(
    gpu: &Gpu,
    blocks_per_sm: u32,
    iters: i64,
    o: &BenchOptions,
) -> Result<GpuReport, Error> {
    let iters = iters as u32;
    let threads = o.threads_per_block;
    let ran = run_grid_sync(gpu, blocks_per_sm, threads, iters, o.repeats, o.timeout)
        .map_err(|e| Error::Usage(e.to_string()))?;
    Ok(grid_sync_report(
        gpu,
        &ran,
        blocks_per_sm,
        threads,
        iters,
        o.timeout,
    ))
}

fn grid_sync_report(
    gpu: &Gpu,
    ran: &GridSyncRun,
    blocks_per_sm: u32,
    threads: u32,
    iters: u32,
    timeout: Duration,
) -> GpuReport {
    let blocks = ran.blocks;
    let completed = ran.timed.hung.is_none();
    GpuReport {
        spec: "grid.sync".into(),
        source: "cooperative groups grid_group::sync() (CUDA toolkit)".into(),
        gpu: GpuInfo::of(gpu),
        config: GpuRunConfig {
            blocks,
            threads_per_block: threads,
            blocks_per_sm,
            max_blocks_per_sm: ran.max_blocks_per_sm,
            params: vec![("iters".into(), i64::from(iters))],
            cs_len: 0,
            backoff_max_ns: 0,
            timeout_seconds: timeout.as_secs_f64(),
            forced: false,
        },
        model_check: "not model-checked (external baseline)".into(),
        model_verdict: Verdict::Inconclusive,
        // Without an abort flag a hung cooperative launch does not drain.
        outcome: if completed {
            Outcome::Completed
        } else {
            Outcome::HungUndrained
        },
        blocks_finished: blocks,
        launch_ms: ran.timed.launch_ms.clone(),
        op: "barrier episode (whole grid)".into(),
        ns_per_op: completed.then(|| ran.timed.median_ms() * 1e6 / f64::from(iters.max(1))),
        checks: if completed {
            grid_sync_checks(blocks, ran.phase_errors)
        } else {
            Vec::new()
        },
        predicted: Vec::new(),
    }
}

fn grid_sync_checks(blocks: u32, errors: u32) -> Vec<DeviceCheck> {
    vec![
        DeviceCheck {
            name: "termination".into(),
            passed: true,
            detail: format!("{blocks} of {blocks} blocks finished"),
        },
        DeviceCheck {
            name: "barrier phases".into(),
            passed: errors == 0,
            detail: format!("{errors} times a block left phase k before another had entered it (one phase in 8 checked)"),
        },
    ]
}

/// Runs every variant at every contention level. Stops early (returning
/// what it has) if a hung kernel does not drain: the GPU is then unusable.
pub(crate) fn run_suite(
    gpu: &Gpu,
    suite: &[Variant],
    o: &BenchOptions,
    mut progress: impl FnMut(&Row),
) -> Result<Vec<Row>, Error> {
    let mut rows = Vec::new();
    for v in suite {
        for &b in &o.contention {
            let report = if v.spec == "grid.sync" {
                grid_sync(gpu, b, v.iters, o)?
            } else {
                let spec = SpecSource::builtin(v.spec)
                    .ok_or_else(|| Error::Usage(format!("no built-in spec {}", v.spec)))?;
                run(gpu, &v.request(spec, b, o))?
            };
            let row = Row::of(v, &report);
            progress(&row);
            rows.push(row);
            if !report.context_usable() {
                return Ok(rows);
            }
        }
    }
    Ok(rows)
}

/// The rows as CSV.
pub(crate) fn csv(rows: &[Row]) -> String {
    let mut out = String::from(
        "family,variant,spec,blocks_per_sm,blocks,threads_per_block,iters,model_verdict,outcome,ns_per_op,blocks_finished,checks_passed,failed_checks\n",
    );
    for r in rows {
        let q = |s: &str| format!("\"{}\"", s.replace('"', "'"));
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            r.family,
            q(&r.variant),
            r.spec,
            r.blocks_per_sm,
            r.blocks,
            r.threads_per_block,
            r.iters,
            r.model_verdict.name(),
            r.outcome.name(),
            r.ns_per_op.map(|n| format!("{n:.1}")).unwrap_or_default(),
            r.blocks_finished,
            r.checks_passed,
            q(&r.failed_checks)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(variant: &str, b: u32, ns: Option<f64>, outcome: Outcome) -> Row {
        Row {
            family: "barrier".into(),
            variant: variant.into(),
            spec: "s".into(),
            blocks_per_sm: b,
            blocks: 132 * b,
            threads_per_block: 128,
            iters: 10,
            model_verdict: Verdict::Verified,
            outcome,
            ns_per_op: ns,
            blocks_finished: 0,
            checks_passed: outcome == Outcome::Completed,
            failed_checks: String::new(),
        }
    }

    #[test]
    fn plots_and_csv_have_every_variant() {
        let rows = vec![
            row("a", 1, Some(1000.0), Outcome::Completed),
            row("a", 2, Some(2000.0), Outcome::Completed),
            row("b", 1, Some(900.0), Outcome::Completed),
            row("b", 2, None, Outcome::Hung),
        ];
        let dir = std::env::temp_dir().join(format!("gsync-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("barrier.svg");
        super::super::plot::plot(&rows, "barrier", "barriers", &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(
            svg.contains("\na\n</text>") && svg.contains("\nb\n</text>"),
            "legend"
        );
        let c = csv(&rows);
        assert_eq!(c.lines().count(), 5);
        assert!(c.contains("barrier,\"b\",s,2,264,128,10,verified,hung,,0,false"));
    }

    #[test]
    fn the_suite_has_every_family_and_the_baseline() {
        let s = suite(100, 10);
        for f in ["barrier", "mutex", "semaphore"] {
            assert!(s.iter().any(|v| v.family == f));
        }
        assert!(s.iter().any(|v| v.spec == "grid.sync"));
        for v in s.iter().filter(|v| v.spec != "grid.sync") {
            assert!(SpecSource::builtin(v.spec).is_some(), "{}", v.spec);
        }
    }
}

//! `bench`: the seeds' comparisons on this GPU, side by side in one run:
//! barriers (with `grid.sync()` as the external baseline), mutexes and
//! semaphores, from 1 block per SM to the most the GPU holds. Writes CSV,
//! JSON and one SVG plot per family of time per operation against blocks
//! per SM.

use super::baseline::run_grid_sync;
use super::device::Gpu;
use super::runner::{run, GpuReport, RunRequest};
use crate::api::{Error, SpecSource};
use plotters::prelude::*;
use serde::Serialize;
use std::path::Path;
use std::time::Duration;

/// One line of a plot.
#[derive(Clone, Debug)]
pub struct Variant {
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
pub fn suite(barrier_iters: i64, lock_iters: i64) -> Vec<Variant> {
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
        // The tuned two-level barrier: groups of 16 blocks, backoff 64 ns
        // between polls, the harness's data check on one episode in 8.
        Variant {
            params: vec![
                ("group_size".to_string(), 16),
                ("check_every".to_string(), 8),
            ],
            backoff_max_ns: 64,
            ..variant(
                "barrier",
                "sense-reversing, two-level, release/acquire (grouped spec)",
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
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub family: String,
    pub variant: String,
    pub spec: String,
    pub blocks_per_sm: u32,
    pub blocks: u32,
    pub threads_per_block: u32,
    pub iters: i64,
    pub model_verdict: String,
    pub outcome: String,
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
            model_verdict: r.model_verdict.name().into(),
            outcome: r.outcome.clone(),
            ns_per_op: r.ns_per_op,
            blocks_finished: r.blocks_finished,
            checks_passed: failed.is_empty(),
            failed_checks: failed.join("; "),
        }
    }
}

pub struct BenchOptions {
    pub contention: Vec<u32>,
    pub threads_per_block: u32,
    pub timeout: Duration,
    pub repeats: u32,
}

/// Runs every variant at every contention level. Stops early (returning
/// what it has) if a hung kernel does not drain: the GPU is then unusable.
pub fn run_suite(
    gpu: &Gpu,
    suite: &[Variant],
    o: &BenchOptions,
    mut progress: impl FnMut(&Row),
) -> Result<Vec<Row>, Error> {
    let mut rows = Vec::new();
    for v in suite {
        for &b in &o.contention {
            let report = if v.spec == "grid.sync" {
                run_grid_sync(
                    gpu,
                    b,
                    o.threads_per_block,
                    v.iters as u32,
                    o.repeats,
                    o.timeout,
                )?
            } else {
                let spec = SpecSource::builtin(v.spec)
                    .ok_or_else(|| Error::Usage(format!("no built-in spec {}", v.spec)))?;
                run(
                    gpu,
                    &RunRequest {
                        spec,
                        blocks_per_sm: b,
                        blocks: None,
                        threads_per_block: o.threads_per_block,
                        iters: v.iters,
                        params: v.params.clone(),
                        cs_len: 0,
                        backoff_max_ns: v.backoff_max_ns,
                        timeout: o.timeout,
                        repeats: o.repeats,
                        force: v.force,
                    },
                )?
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
pub fn csv(rows: &[Row]) -> String {
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
            r.model_verdict,
            r.outcome,
            r.ns_per_op.map(|n| format!("{n:.1}")).unwrap_or_default(),
            r.blocks_finished,
            r.checks_passed,
            q(&r.failed_checks)
        ));
    }
    out
}

/// One SVG plot per family: ns per operation (log scale) against blocks
/// per SM; runs that hung or failed a check are drawn as crosses at the top.
pub fn plot(rows: &[Row], family: &str, title: &str, path: &Path) -> Result<(), String> {
    let rows: Vec<&Row> = rows.iter().filter(|r| r.family == family).collect();
    if rows.is_empty() {
        return Ok(());
    }
    let mut labels: Vec<&str> = Vec::new();
    for r in &rows {
        if !labels.contains(&r.variant.as_str()) {
            labels.push(&r.variant);
        }
    }
    let max_b = rows.iter().map(|r| r.blocks_per_sm).max().unwrap_or(1);
    let ok = |r: &&&Row| r.outcome == "completed" && r.ns_per_op.is_some();
    let ys: Vec<f64> = rows.iter().filter(ok).filter_map(|r| r.ns_per_op).collect();
    let lo = ys.iter().cloned().fold(f64::INFINITY, f64::min).max(1.0) / 1.5;
    let hi = ys.iter().cloned().fold(1.0, f64::max) * 3.0;
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| e.to_string();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.5f64..(f64::from(max_b) + 0.5), (lo..hi).log_scale())
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("blocks per SM")
        .y_desc("ns per operation (log)")
        .draw()
        .map_err(|e| err(&e))?;
    for (i, label) in labels.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let pts: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r.variant == *label)
            .filter(ok)
            .map(|r| (f64::from(r.blocks_per_sm), r.ns_per_op.unwrap_or(0.0)))
            .collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
            .map_err(|e| err(&e))?
            .label(label.to_string())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(|e| err(&e))?;
        let bad: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r.variant == *label && (r.outcome != "completed" || !r.checks_passed))
            .map(|r| (f64::from(r.blocks_per_sm), hi / 1.3))
            .collect();
        chart
            .draw_series(bad.iter().map(|&p| Cross::new(p, 6, color.stroke_width(2))))
            .map_err(|e| err(&e))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(variant: &str, b: u32, ns: Option<f64>, outcome: &str) -> Row {
        Row {
            family: "barrier".into(),
            variant: variant.into(),
            spec: "s".into(),
            blocks_per_sm: b,
            blocks: 132 * b,
            threads_per_block: 128,
            iters: 10,
            model_verdict: "verified".into(),
            outcome: outcome.into(),
            ns_per_op: ns,
            blocks_finished: 0,
            checks_passed: outcome == "completed",
            failed_checks: String::new(),
        }
    }

    #[test]
    fn plots_and_csv_have_every_variant() {
        let rows = vec![
            row("a", 1, Some(1000.0), "completed"),
            row("a", 2, Some(2000.0), "completed"),
            row("b", 1, Some(900.0), "completed"),
            row("b", 2, None, "hung"),
        ];
        let dir = std::env::temp_dir().join(format!("gsync-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("barrier.svg");
        plot(&rows, "barrier", "barriers", &path).unwrap();
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

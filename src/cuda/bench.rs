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

/// Distinct colours (Tableau 10 and four more), the baseline first.
const COLORS: [RGBColor; 14] = [
    RGBColor(0, 0, 0),
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(23, 190, 207),
    RGBColor(188, 189, 34),
    RGBColor(0, 0, 128),
    RGBColor(255, 187, 0),
    RGBColor(0, 128, 128),
];

/// A time in ns as a tick label in µs: `0.5`, `1`, `2.5`, `40`.
pub fn us_label(ns: f64) -> String {
    let us = ns / 1000.0;
    let text = if us >= 10.0 {
        format!("{us:.0}")
    } else if us >= 1.0 {
        format!("{us:.1}")
    } else {
        format!("{us:.2}")
    };
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// How a point did not complete, for its marker in the top row.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Missing {
    Hung,
    Refused,
    CheckFailed,
}

impl Missing {
    pub fn of(r: &Row) -> Option<Missing> {
        match r.outcome.as_str() {
            "completed" if r.checks_passed && r.ns_per_op.is_some() => None,
            "completed" => Some(Missing::CheckFailed),
            "refused" => Some(Missing::Refused),
            _ => Some(Missing::Hung),
        }
    }
}

/// One SVG plot per family: time per operation (log scale, µs) against
/// blocks per SM (log2 scale: 1, 2, 4, 8, 16); points that did not
/// complete sit in a labelled row above the data (× hung, □ refused by
/// the model check, △ a device check failed); the legend is below the
/// chart, off the data.
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
    let levels: Vec<u32> = {
        let mut l: Vec<u32> = rows.iter().map(|r| r.blocks_per_sm.max(1)).collect();
        l.sort_unstable();
        l.dedup();
        l
    };
    let x_of = |b: u32| f64::from(b.max(1)).log2();
    let (x_lo, x_hi) = (
        x_of(levels[0]) - 0.35,
        x_of(*levels.last().expect("rows")) + 0.35,
    );
    let ys: Vec<f64> = rows
        .iter()
        .filter(|r| Missing::of(r).is_none())
        .filter_map(|r| r.ns_per_op)
        .collect();
    let lo = ys
        .iter()
        .cloned()
        .fold(f64::INFINITY, f64::min)
        .clamp(1.0, 1e12)
        / 1.25;
    let hi = ys.iter().cloned().fold(lo * 2.0, f64::max) * 1.25;
    // The top row for points that did not complete, above a rule: a
    // seventh of the height, whatever the data's range.
    let band = ((hi / lo).ln() / 6.0).max(0.4);
    let rule = hi * 1.1;
    let (row_y, top) = (rule * (band * 0.4).exp(), rule * band.exp());
    // Two legend columns when the labels are short enough, else one.
    let columns = if labels.iter().all(|l| l.chars().count() <= 52) {
        2
    } else {
        1
    };
    let legend_rows = labels.len().div_ceil(columns) as u32;
    let (width, height) = (960u32, 560 + 24 * legend_rows + 8);
    let root = SVGBackend::new(path, (width, height)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| e.to_string();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (upper, lower) = root.split_vertically(560);
    let mut chart = ChartBuilder::on(&upper)
        .caption(title, ("sans-serif", 20))
        .margin(14)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(x_lo..x_hi, (lo..top).log_scale())
        .map_err(|e| err(&e))?;
    let level_of = |x: &f64| {
        levels
            .iter()
            .find(|&&b| (x_of(b) - x).abs() < 1e-6)
            .map(|b| b.to_string())
            .unwrap_or_default()
    };
    let y_text = |y: &f64| {
        if *y > rule {
            String::new()
        } else {
            us_label(*y)
        }
    };
    chart
        .configure_mesh()
        .x_labels(levels.len())
        .x_label_formatter(&level_of)
        .y_labels(12)
        .y_label_formatter(&y_text)
        .x_desc("blocks per SM (log2 scale)")
        .y_desc("µs per operation (log scale)")
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 16))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(|e| err(&e))?;
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(x_lo, rule), (x_hi, rule)],
            BLACK.mix(0.4).stroke_width(1),
        )))
        .map_err(|e| err(&e))?;
    chart
        .draw_series(std::iter::once(Text::new(
            "did not complete:  × hung   □ refused   △ check failed",
            (x_lo + 0.05, rule * (band * 0.93).exp()),
            ("sans-serif", 14).into_font().color(&BLACK.mix(0.7)),
        )))
        .map_err(|e| err(&e))?;
    let n = labels.len() as f64;
    for (i, label) in labels.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let mine: Vec<&&Row> = rows.iter().filter(|r| r.variant == *label).collect();
        let pts: Vec<(f64, f64)> = mine
            .iter()
            .filter(|r| Missing::of(r).is_none())
            .map(|r| (x_of(r.blocks_per_sm), r.ns_per_op.unwrap_or(1.0)))
            .collect();
        let width = if i == 0 { 3 } else { 2 };
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(width)))
            .map_err(|e| err(&e))?;
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 4, color.filled())))
            .map_err(|e| err(&e))?;
        // Spread the markers of the top row so that variants do not hide
        // each other.
        let dx = (i as f64 - (n - 1.0) / 2.0) * 0.045;
        for r in &mine {
            let at = (x_of(r.blocks_per_sm) + dx, row_y);
            let style = color.stroke_width(2);
            match Missing::of(r) {
                None => {}
                Some(Missing::Hung) => {
                    chart
                        .draw_series(std::iter::once(Cross::new(at, 6, style)))
                        .map_err(|e| err(&e))?;
                }
                Some(Missing::Refused) => {
                    chart
                        .draw_series(std::iter::once(
                            EmptyElement::at(at) + Rectangle::new([(-5, -5), (5, 5)], style),
                        ))
                        .map_err(|e| err(&e))?;
                }
                Some(Missing::CheckFailed) => {
                    chart
                        .draw_series(std::iter::once(TriangleMarker::new(at, 7, style)))
                        .map_err(|e| err(&e))?;
                }
            }
        }
    }
    // The legend, below the chart.
    let col = width as i32 / columns as i32;
    for (i, label) in labels.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let (c, r) = ((i % columns) as i32, (i / columns) as i32);
        let (x, y) = (24 + col * c, 8 + 24 * r);
        lower
            .draw(&PathElement::new(
                vec![(x, y + 8), (x + 26, y + 8)],
                color.stroke_width(3),
            ))
            .map_err(|e| err(&e))?;
        lower
            .draw(&Circle::new((x + 13, y + 8), 4, color.filled()))
            .map_err(|e| err(&e))?;
        lower
            .draw(&Text::new(
                label.to_string(),
                (x + 34, y),
                ("sans-serif", 15),
            ))
            .map_err(|e| err(&e))?;
    }
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

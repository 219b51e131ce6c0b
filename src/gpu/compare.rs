//! `run --compare`: two versions of one primitive (typically a spec and
//! the weakest version `relax` wrote of it) timed side by side on the same
//! launches, each model-checked first and run with its device checks on.
//!
//! At each contention level the two are launched back to back (the
//! original first, then the other), so drift of the GPU's clocks over a
//! sweep touches both alike; the speedup is the ratio of their median
//! times per operation.

use super::run::{run, GpuReport, RunRequest};
use crate::api::{Error, SpecSource};
use crate::cuda::device::Gpu;
use crate::cuda::harness::Outcome;
use serde::Serialize;

/// One contention level: both versions' reports and the speedup.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct CompareRow {
    pub blocks_per_sm: u32,
    pub original: GpuReport,
    pub other: GpuReport,
    /// Original ns per operation over the other's (above 1: the other is faster).
    pub speedup: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct CompareReport {
    pub original: String,
    pub other: String,
    pub rows: Vec<CompareRow>,
}

impl CompareReport {
    /// 0 when every launch of both completed with its checks passed.
    pub(crate) fn exit_code(&self) -> i32 {
        let ok = self
            .rows
            .iter()
            .all(|r| r.original.exit_code() == 0 && r.other.exit_code() == 0);
        i32::from(!ok)
    }
}

/// Runs `req`'s spec and `other` at each of `levels` blocks per SM,
/// calling `progress` after each level. A hung launch that holds the GPU
/// ends the sweep with the rows so far.
pub(crate) fn compare(
    gpu: &Gpu,
    req: &RunRequest,
    other: &SpecSource,
    levels: &[u32],
    mut progress: impl FnMut(&CompareRow),
) -> Result<CompareReport, Error> {
    let mut rows = Vec::new();
    for &b in levels {
        let original = run(gpu, &req.at(&req.spec, b))?;
        let usable = original.context_usable();
        let other = match usable {
            true => run(gpu, &req.at(other, b))?,
            false => not_run(&original, other),
        };
        let row = CompareRow {
            blocks_per_sm: b,
            speedup: original.ns_per_op.zip(other.ns_per_op).map(|(a, o)| a / o),
            original,
            other,
        };
        progress(&row);
        let stop = !row.other.context_usable() || !usable;
        rows.push(row);
        if stop {
            break;
        }
    }
    Ok(CompareReport {
        original: req.spec.name.clone(),
        other: other.name.clone(),
        rows,
    })
}

/// The other version's place in a row where the original left the GPU
/// unusable.
fn not_run(original: &GpuReport, other: &SpecSource) -> GpuReport {
    GpuReport {
        spec: other.name.clone(),
        source: other.origin.clone(),
        outcome: Outcome::Refused,
        model_check: "not run: the original's hung launch still holds the GPU".into(),
        launch_ms: Vec::new(),
        ns_per_op: None,
        checks: Vec::new(),
        predicted: Vec::new(),
        blocks_finished: 0,
        ..original.clone()
    }
}

/// The header of the text table.
pub(crate) fn header(report_gpu: &str, original: &str, other: &str, threads: u32) -> String {
    format!(
        "{original} against {other} on {report_gpu}, {threads} threads per block\n{:>9} {:>7}  {:>14}  {:>14}  {:>8}  checks\n",
        "blocks/SM", "blocks", "original ns/op", "other ns/op", "speedup"
    )
}

/// One level as a line of the text table.
pub(crate) fn line(r: &CompareRow) -> String {
    let ns = |g: &GpuReport| match g.ns_per_op {
        Some(n) => format!("{n:.1}"),
        None => g.outcome.name().to_string(),
    };
    let checks = |g: &GpuReport| match (g.outcome, g.checks.iter().all(|c| c.passed)) {
        (Outcome::Refused, _) => format!("{}: {}", g.spec, g.model_check),
        (_, true) => "ok".to_string(),
        (_, false) => {
            let failed: Vec<&str> = g
                .checks
                .iter()
                .filter(|c| !c.passed)
                .map(|c| c.name.as_str())
                .collect();
            format!("{} FAILED {}", g.spec, failed.join(", "))
        }
    };
    let verdicts = match (checks(&r.original), checks(&r.other)) {
        (a, b) if a == "ok" && b == "ok" => "ok".to_string(),
        (a, b) => format!("{a}; {b}"),
    };
    format!(
        "{:>9} {:>7}  {:>14}  {:>14}  {:>8}  {verdicts}\n",
        r.blocks_per_sm,
        r.original.config.blocks,
        ns(&r.original),
        ns(&r.other),
        r.speedup
            .map(|s| format!("{s:.2}x"))
            .unwrap_or_else(|| "-".into()),
    )
}

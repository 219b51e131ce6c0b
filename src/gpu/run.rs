//! `run`: model-check the spec at a small configuration, generate its CUDA
//! for the GPU launch, compile it with NVRTC, launch it under a watchdog and
//! read back the on-device checks.

use super::{generate, precheck, verdict_line, LaunchRequest, Planned};
use crate::api::{Error, SpecSource};
use crate::cuda::device::{Gpu, GpuError, GpuInfo};
use crate::cuda::harness::{
    device_checks, termination_failed, DeviceCheck, Expected, Harness, HarnessRun, Outcome,
};
use crate::cuda::{EmitOptions, Emitted};
use crate::report::{Report, Verdict};
use serde::Serialize;
use std::time::Duration;

/// Operations per participant when the request does not say.
pub(crate) const DEFAULT_ITERS: i64 = 100;

/// What to run.
#[derive(Clone, Debug)]
pub(crate) struct RunRequest {
    pub spec: SpecSource,
    /// The launch (its SMs are the GPU's).
    pub launch: LaunchRequest,
    pub cs_len: u32,
    pub backoff_max_ns: u32,
    pub timeout: Duration,
    /// Timed launches after one warm-up launch.
    pub repeats: u32,
    pub force: bool,
}

impl RunRequest {
    /// The same request for `spec` at `blocks_per_sm` (a contention level
    /// of a sweep).
    pub(crate) fn at(&self, spec: &SpecSource, blocks_per_sm: u32) -> RunRequest {
        let mut req = RunRequest {
            spec: spec.clone(),
            ..self.clone()
        };
        req.launch.blocks_per_sm = blocks_per_sm;
        req
    }
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct GpuRunConfig {
    pub blocks: u32,
    pub threads_per_block: u32,
    pub blocks_per_sm: u32,
    /// Resident blocks per SM the kernel allows (occupancy).
    pub max_blocks_per_sm: u32,
    pub params: Vec<(String, i64)>,
    pub cs_len: u32,
    pub backoff_max_ns: u32,
    pub timeout_seconds: f64,
    pub forced: bool,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct GpuReport {
    pub spec: String,
    pub source: String,
    pub gpu: GpuInfo,
    pub config: GpuRunConfig,
    /// The model check done first, as a one-line summary.
    pub model_check: String,
    pub model_verdict: Verdict,
    pub outcome: Outcome,
    pub blocks_finished: u32,
    /// Kernel times of the timed launches, ms.
    pub launch_ms: Vec<f64>,
    /// What one operation is.
    pub op: String,
    /// Median kernel time per operation, ns.
    pub ns_per_op: Option<f64>,
    pub checks: Vec<DeviceCheck>,
    /// The model's violations when the run was refused or forced.
    pub predicted: Vec<String>,
}

impl GpuReport {
    /// 0 completed with every check passed, 1 hung, refused or a check failed.
    pub(crate) fn exit_code(&self) -> i32 {
        if self.outcome == Outcome::Completed && self.checks.iter().all(|c| c.passed) {
            0
        } else {
            1
        }
    }

    /// Whether the GPU context can still be used (a hung kernel that did not
    /// drain holds it until the process exits).
    pub(crate) fn context_usable(&self) -> bool {
        self.outcome != Outcome::HungUndrained
    }
}

fn usage(e: GpuError) -> Error {
    Error::Usage(e.to_string())
}

/// Runs a spec on the GPU.
pub(crate) fn run(gpu: &Gpu, req: &RunRequest) -> Result<GpuReport, Error> {
    let iters = req.launch.iters.unwrap_or(DEFAULT_ITERS);
    let launch = LaunchRequest {
        iters: Some(iters),
        ..req.launch.clone()
    };
    let planned = launch.plan(&req.spec, gpu.sms)?;
    let mut options = EmitOptions {
        cs_len: req.cs_len,
        backoff_max_ns: req.backoff_max_ns,
        renumber: planned.renumber,
        verified: Vec::new(),
    };
    // Compile first: the occupancy of the compiled kernel decides whether
    // the launch oversubscribes the GPU, which decides the model check.
    let probe = compile(gpu, &generate(&planned.gpu, &options)?, req)?;
    let max_per_sm = probe
        .max_blocks_per_sm(planned.launch.threads_per_block)
        .map_err(usage)?;
    let oversubscribed = planned.launch.blocks > max_per_sm * gpu.sms;
    let model = precheck(&planned.gpu, oversubscribed, &req.launch.params)?;
    options.verified = vec![verdict_line(&model)];
    let mut report = refused(gpu, req, &planned, max_per_sm, &model);
    if model.verdict == Verdict::Violated && !req.force {
        return Ok(report);
    }
    let emitted = generate(&planned.gpu, &options)?;
    let harness = compile(gpu, &emitted, req)?;
    report.op = if planned.gpu.program.checks.barrier {
        "barrier episode (whole grid)".into()
    } else {
        "critical section (any block; total time / sections)".into()
    };
    let blocks = planned.launch.blocks;
    let ran = harness
        .run(
            blocks,
            planned.launch.threads_per_block,
            req.repeats,
            req.timeout,
        )
        .map_err(usage)?;
    let expected = Expected {
        program: &planned.gpu.program,
        participants: emitted.participants,
        iters,
        blocks,
        asserts: &emitted.asserts,
    };
    finish(&mut report, &ran, &expected, req.timeout);
    Ok(report)
}

fn compile<'g>(gpu: &'g Gpu, emitted: &Emitted, req: &RunRequest) -> Result<Harness<'g>, Error> {
    Harness::compile(gpu, emitted, &format!("{}.cu", req.spec.name)).map_err(usage)
}

/// The report of a run the model check refused: everything but the launches.
fn refused(
    gpu: &Gpu,
    req: &RunRequest,
    planned: &Planned,
    max_per_sm: u32,
    model: &Report,
) -> GpuReport {
    GpuReport {
        spec: req.spec.name.clone(),
        source: req.spec.origin.clone(),
        gpu: GpuInfo::of(gpu),
        config: GpuRunConfig {
            blocks: planned.launch.blocks,
            threads_per_block: planned.launch.threads_per_block,
            blocks_per_sm: req.launch.blocks_per_sm,
            max_blocks_per_sm: max_per_sm,
            params: planned.gpu.program.params.clone(),
            cs_len: req.cs_len,
            backoff_max_ns: req.backoff_max_ns,
            timeout_seconds: req.timeout.as_secs_f64(),
            forced: req.force,
        },
        model_check: verdict_line(model),
        model_verdict: model.verdict,
        outcome: Outcome::Refused,
        blocks_finished: 0,
        launch_ms: Vec::new(),
        op: String::new(),
        ns_per_op: None,
        checks: Vec::new(),
        predicted: model
            .violations
            .iter()
            .map(|v| format!("{}: {}", v.kind, v.message))
            .collect(),
    }
}

/// Fills in how the launches went: the time per operation and the device
/// checks of a completed run, the failed termination of a hung one.
fn finish(report: &mut GpuReport, ran: &HarnessRun, expected: &Expected, timeout: Duration) {
    report.outcome = ran.timed.outcome();
    report.blocks_finished = ran.blocks_finished;
    report.launch_ms = ran.timed.launch_ms.clone();
    if let Some(drained) = ran.timed.hung {
        report.checks = vec![termination_failed(
            timeout,
            ran.blocks_finished,
            expected.blocks,
            drained,
        )];
        return;
    }
    let ops = if expected.program.checks.barrier {
        expected.iters.max(1) as f64
    } else {
        f64::from(ran.stats.cs_entries.max(1))
    };
    report.ns_per_op = Some(ran.timed.median_ms() * 1e6 / ops);
    report.checks = device_checks(expected, ran.blocks_finished, &ran.stats);
}

/// The text report, in the checker's style.
pub(crate) fn render(r: &GpuReport) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let params: Vec<String> = r
        .config
        .params
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let _ = writeln!(
        out,
        "{} on {} ({} SMs, cc {}, driver {})  ({} blocks x {} threads, {} blocks/SM of at most {}, {})",
        r.spec,
        r.gpu.name,
        r.gpu.sms,
        r.gpu.compute_capability,
        r.gpu.driver,
        r.config.blocks,
        r.config.threads_per_block,
        r.config.blocks_per_sm,
        r.config.max_blocks_per_sm,
        params.join(", ")
    );
    let _ = writeln!(out, "{}", r.model_check);
    for p in &r.predicted {
        let _ = writeln!(out, "  predicted {p}");
    }
    if r.outcome == Outcome::Refused {
        let _ = writeln!(
            out,
            "refused: the model check found a violation; --force runs it anyway (a predicted hang is then stopped after --timeout)"
        );
        return out;
    }
    let _ = writeln!(
        out,
        "outcome: {}  ({} of {} blocks finished)",
        r.outcome.name(),
        r.blocks_finished,
        r.config.blocks
    );
    if let Some(ns) = r.ns_per_op {
        let launches: Vec<String> = r.launch_ms.iter().map(|m| format!("{m:.3}")).collect();
        let _ = writeln!(
            out,
            "time: {ns:.1} ns per {}  (kernel ms of {} timed launches: {})",
            r.op,
            r.launch_ms.len(),
            launches.join(", ")
        );
    }
    let _ = writeln!(out, "device checks:");
    for c in &r.checks {
        let _ = writeln!(
            out,
            "  {} {}: {}",
            if c.passed { "ok  " } else { "FAIL" },
            c.name,
            c.detail
        );
    }
    out
}

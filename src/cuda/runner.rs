//! `run`: model-check the spec at a small configuration, generate its CUDA
//! for the GPU launch, compile it with NVRTC, launch it under a watchdog and
//! read back the on-device invariant checks.

use super::device::{launch_and_wait, Ended, Gpu, GpuError, Mapped};
use super::{generate, lower_for_gpu, nvrtc, precheck_config, verdict_line, EmitOptions};
use crate::api::{self, Error, SpecSource};
use crate::ir::Launch;
use crate::report::Verdict;
use crate::spec::ast::Participants;
use serde::Serialize;
use std::ffi::c_void;
use std::time::Duration;

/// What to run.
#[derive(Clone, Debug)]
pub struct RunRequest {
    pub spec: SpecSource,
    pub blocks_per_sm: u32,
    /// Blocks in the launch (default: SMs × blocks per SM).
    pub blocks: Option<u32>,
    pub threads_per_block: u32,
    /// Operations per participant (the spec's `iters`).
    pub iters: i64,
    pub params: Vec<(String, i64)>,
    pub cs_len: u32,
    pub backoff_max_ns: u32,
    pub timeout: Duration,
    /// Timed launches after one warm-up launch.
    pub repeats: u32,
    pub force: bool,
}

#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct GpuInfo {
    pub name: String,
    pub sms: u32,
    pub compute_capability: String,
    pub driver: String,
}

impl GpuInfo {
    pub fn of(gpu: &Gpu) -> GpuInfo {
        GpuInfo {
            name: gpu.name.clone(),
            sms: gpu.sms,
            compute_capability: format!(
                "{}.{}",
                gpu.compute_capability.0, gpu.compute_capability.1
            ),
            driver: gpu.driver.clone(),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct GpuRunConfig {
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

/// One invariant checked on the device.
#[derive(Clone, Debug, Serialize)]
pub struct DeviceCheck {
    pub name: String,
    pub passed: bool,
    pub detail: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct GpuReport {
    pub spec: String,
    pub source: String,
    pub gpu: GpuInfo,
    pub config: GpuRunConfig,
    /// The model check done first, as a one-line summary.
    pub model_check: String,
    pub model_verdict: Verdict,
    /// `completed`, `hung` or `refused`.
    pub outcome: String,
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
    pub fn exit_code(&self) -> i32 {
        if self.outcome == "completed" && self.checks.iter().all(|c| c.passed) {
            0
        } else {
            1
        }
    }

    /// Whether the GPU context can still be used (a hung kernel that did not
    /// drain holds it until the process exits).
    pub fn context_usable(&self) -> bool {
        self.outcome != "hung_undrained"
    }
}

fn usage(e: GpuError) -> Error {
    Error::Usage(e.to_string())
}

/// Runs a spec on the GPU.
pub fn run(gpu: &Gpu, req: &RunRequest) -> Result<GpuReport, Error> {
    let file = api::parse(&req.spec)?;
    let declared = api::declared_params(&file);
    let blocks = req.blocks.unwrap_or(gpu.sms * req.blocks_per_sm);
    let mut params = Vec::new();
    if declared.iter().any(|d| d == "blocks_per_sm") {
        params.push(("blocks_per_sm".to_string(), i64::from(req.blocks_per_sm)));
    }
    if declared.iter().any(|d| d == "iters") {
        params.push(("iters".to_string(), req.iters));
    }
    params.extend(req.params.iter().cloned());
    let launch = Launch {
        blocks,
        threads_per_block: req.threads_per_block,
        warp_size: 32,
    };
    let lowered = lower_for_gpu(&req.spec, launch, &params)?;
    let grouped = declared.iter().any(|d| d == "blocks_per_sm");
    let renumber = (grouped && req.blocks_per_sm > 1 && blocks == gpu.sms * req.blocks_per_sm)
        .then_some((gpu.sms, req.blocks_per_sm));
    let mut options = EmitOptions {
        cs_len: req.cs_len,
        backoff_max_ns: req.backoff_max_ns,
        renumber,
        verified: Vec::new(),
    };
    // Compile first: the occupancy of the compiled kernel decides whether
    // the launch oversubscribes the GPU, which decides the model check.
    let probe = generate(&lowered, &options)?;
    let ptx = nvrtc::compile(&probe.source, &format!("{}.cu", req.spec.name), &gpu.arch())
        .map_err(Error::Usage)?;
    let module = gpu.load(&ptx).map_err(usage)?;
    let f = module.function(probe.kernel).map_err(usage)?;
    let max_per_sm = gpu
        .max_blocks_per_sm(&f, req.threads_per_block)
        .map_err(usage)?;
    drop(module);
    let oversubscribed = blocks > max_per_sm * gpu.sms;
    let all_threads = lowered.program.participants == Participants::All;
    let model = api::check_spec(
        &req.spec,
        &precheck_config(oversubscribed, all_threads, &req.params),
    )?;
    options.verified = vec![verdict_line(&model)];
    let predicted: Vec<String> = model
        .violations
        .iter()
        .map(|v| format!("{}: {}", v.kind, v.message))
        .collect();
    let mut report = GpuReport {
        spec: req.spec.name.clone(),
        source: req.spec.origin.clone(),
        gpu: GpuInfo::of(gpu),
        config: GpuRunConfig {
            blocks,
            threads_per_block: req.threads_per_block,
            blocks_per_sm: req.blocks_per_sm,
            max_blocks_per_sm: max_per_sm,
            params: lowered.program.params.clone(),
            cs_len: req.cs_len,
            backoff_max_ns: req.backoff_max_ns,
            timeout_seconds: req.timeout.as_secs_f64(),
            forced: req.force,
        },
        model_check: verdict_line(&model),
        model_verdict: model.verdict,
        outcome: "refused".into(),
        blocks_finished: 0,
        launch_ms: Vec::new(),
        op: String::new(),
        ns_per_op: None,
        checks: Vec::new(),
        predicted,
    };
    if model.verdict == Verdict::Violated && !req.force {
        return Ok(report);
    }
    let emitted = generate(&lowered, &options)?;
    let ptx = nvrtc::compile(
        &emitted.source,
        &format!("{}.cu", req.spec.name),
        &gpu.arch(),
    )
    .map_err(Error::Usage)?;
    let program = &lowered.program;
    let barrier = program.checks.barrier;
    report.op = if barrier {
        "barrier episode (whole grid)".into()
    } else {
        "critical section (any block; total time / sections)".into()
    };
    let mut stats = Vec::new();
    for launch_no in 0..=req.repeats {
        let module = gpu.load(&ptx).map_err(usage)?;
        let f = module.function(emitted.kernel).map_err(usage)?;
        let abort = Mapped::new(1).map_err(usage)?;
        let finished = Mapped::new(blocks as usize).map_err(usage)?;
        let mut abort_ptr = abort.device;
        let mut finished_ptr = finished.device;
        let mut args = [
            &mut abort_ptr as *mut _ as *mut c_void,
            &mut finished_ptr as *mut _ as *mut c_void,
        ];
        let ended = launch_and_wait(
            &f,
            blocks,
            req.threads_per_block,
            &mut args,
            false,
            Some(&abort),
            req.timeout,
            Duration::from_secs(3),
        )
        .map_err(usage)?;
        report.blocks_finished = (0..blocks as usize)
            .filter(|&b| finished.get(b) == 1)
            .count() as u32;
        match ended {
            Ended::Completed { ms } => {
                if launch_no > 0 || req.repeats == 0 {
                    report.launch_ms.push(ms);
                }
                stats = module.read_words("gs_stats", 7).map_err(usage)?;
            }
            Ended::Hung { drained } => {
                report.outcome = if drained { "hung" } else { "hung_undrained" }.into();
                if !drained {
                    // The kernel still holds the GPU: leave everything as is
                    // and let the process exit tear the context down.
                    std::mem::forget(module);
                    std::mem::forget(abort);
                    std::mem::forget(finished);
                }
                report.checks.push(DeviceCheck {
                    name: "termination".into(),
                    passed: false,
                    detail: format!(
                        "no progress after {:.1} s: {} of {blocks} blocks finished{}",
                        req.timeout.as_secs_f64(),
                        report.blocks_finished,
                        if drained {
                            "; the rest left their spin loops on the abort flag"
                        } else {
                            "; the kernel did not drain after the abort flag"
                        }
                    ),
                });
                return Ok(report);
            }
        }
    }
    report.outcome = "completed".into();
    let median = median(&report.launch_ms);
    let [cs_count, cs_entries, _occupancy, max_occupancy, phase_errors, assert_failures, first_assert] =
        [0, 1, 2, 3, 4, 5, 6].map(|i| stats[i]);
    let ops = if barrier {
        req.iters.max(1) as f64
    } else {
        f64::from(cs_entries.max(1))
    };
    report.ns_per_op = Some(median * 1e6 / ops);
    report.checks = device_checks(
        program,
        emitted.participants,
        req.iters,
        blocks,
        report.blocks_finished,
        [
            cs_count,
            cs_entries,
            max_occupancy,
            phase_errors,
            assert_failures,
            first_assert,
        ],
        &emitted.asserts,
    );
    Ok(report)
}

/// The median of kernel times (the upper one of an even count).
pub fn median(ms: &[f64]) -> f64 {
    let mut ms = ms.to_vec();
    ms.sort_by(f64::total_cmp);
    ms[ms.len() / 2]
}

fn device_checks(
    program: &crate::ir::Program,
    participants: u32,
    iters: i64,
    blocks: u32,
    finished: u32,
    [cs_count, cs_entries, max_occupancy, phase_errors, assert_failures, first_assert]: [u32; 6],
    asserts: &[String],
) -> Vec<DeviceCheck> {
    let mut checks = vec![DeviceCheck {
        name: "termination".into(),
        passed: finished == blocks,
        detail: format!("{finished} of {blocks} blocks finished"),
    }];
    let c = &program.checks;
    if let Some(cap) = c.capacity {
        let expected = i64::from(participants) * iters;
        if cap == 1 {
            checks.push(DeviceCheck {
                name: "mutual exclusion".into(),
                passed: cs_count == cs_entries,
                detail: format!(
                    "non-atomic counter {cs_count}, atomic count {cs_entries} of critical sections"
                ),
            });
        }
        checks.push(DeviceCheck {
            name: "capacity".into(),
            passed: i64::from(max_occupancy) <= cap,
            detail: format!("at most {max_occupancy} inside at once (capacity {cap})"),
        });
        checks.push(DeviceCheck {
            name: "operations".into(),
            passed: i64::from(cs_entries) == expected,
            detail: format!(
                "{cs_entries} critical sections, expected {participants} x {iters} = {expected}"
            ),
        });
    }
    if c.barrier {
        checks.push(DeviceCheck {
            name: "barrier phases".into(),
            passed: phase_errors == 0,
            detail: format!(
                "{phase_errors} times a participant left phase k before another had entered it ({participants} participants x {iters} phases, one phase in 8 checked)"
            ),
        });
    }
    if !asserts.is_empty() {
        let first = (first_assert > 0)
            .then(|| asserts.get(first_assert as usize - 1).cloned())
            .flatten()
            .map(|m| format!("; first: {m}"))
            .unwrap_or_default();
        checks.push(DeviceCheck {
            name: "assertions".into(),
            passed: assert_failures == 0,
            detail: format!("{assert_failures} failed{first}"),
        });
    }
    if !c.invariants.is_empty() {
        checks.push(DeviceCheck {
            name: "invariants".into(),
            passed: true,
            detail: "`check invariant` is checked by the model only, not on the device".into(),
        });
    }
    checks
}

/// The text report, in the checker's style.
pub fn render(r: &GpuReport) -> String {
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
    if r.outcome == "refused" {
        let _ = writeln!(
            out,
            "refused: the model check found a violation; --force runs it anyway (a predicted hang is then stopped after --timeout)"
        );
        return out;
    }
    let _ = writeln!(
        out,
        "outcome: {}  ({} of {} blocks finished)",
        r.outcome, r.blocks_finished, r.config.blocks
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

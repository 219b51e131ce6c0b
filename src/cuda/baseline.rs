//! The barrier baseline outside the specs: cooperative groups' `grid.sync()`
//! (a small fixed CUDA program, compiled with NVRTC against the toolkit's
//! headers and launched cooperatively), reported like a spec run.

use super::device::{launch_and_wait, Ended, Gpu};
use super::nvrtc;
use super::runner::{DeviceCheck, GpuInfo, GpuReport, GpuRunConfig};
use crate::api::Error;
use crate::report::Verdict;
use std::ffi::c_void;
use std::time::Duration;

const SOURCE: &str = include_str!("grid_sync.cu");

/// Where `cooperative_groups.h` is: `$CUDA_HOME/include` or /usr/local/cuda/include.
fn include_dir() -> String {
    let home = std::env::var("CUDA_HOME")
        .or_else(|_| std::env::var("CUDA_PATH"))
        .unwrap_or_else(|_| "/usr/local/cuda".into());
    format!("{home}/include")
}

/// Runs `iters` grid-wide barriers on `blocks_per_sm` blocks per SM.
pub fn run_grid_sync(
    gpu: &Gpu,
    blocks_per_sm: u32,
    threads: u32,
    iters: u32,
    repeats: u32,
    timeout: Duration,
) -> Result<GpuReport, Error> {
    let usage = |e: super::device::GpuError| Error::Usage(e.to_string());
    let ptx = nvrtc::compile_with(
        SOURCE,
        "grid_sync.cu",
        &gpu.arch(),
        &[
            format!("--include-path={}", include_dir()),
            // CUDA 13 keeps libcu++ (cuda/std/...) under include/cccl.
            format!("--include-path={}/cccl", include_dir()),
        ],
    )
    .map_err(Error::Usage)?;
    let blocks = gpu.sms * blocks_per_sm;
    let mut report = GpuReport {
        spec: "grid.sync".into(),
        source: "cooperative groups grid_group::sync() (CUDA toolkit)".into(),
        gpu: GpuInfo::of(gpu),
        config: GpuRunConfig {
            blocks,
            threads_per_block: threads,
            blocks_per_sm,
            max_blocks_per_sm: 0,
            params: vec![("iters".into(), i64::from(iters))],
            cs_len: 0,
            backoff_max_ns: 0,
            timeout_seconds: timeout.as_secs_f64(),
            forced: false,
        },
        model_check: "not model-checked (external baseline)".into(),
        model_verdict: Verdict::Inconclusive,
        outcome: "completed".into(),
        blocks_finished: blocks,
        launch_ms: Vec::new(),
        op: "barrier episode (whole grid)".into(),
        ns_per_op: None,
        checks: Vec::new(),
        predicted: Vec::new(),
    };
    let mut errors = 0;
    for launch_no in 0..=repeats {
        let module = gpu.load(&ptx).map_err(usage)?;
        let f = module.function("grid_sync_kernel").map_err(usage)?;
        report.config.max_blocks_per_sm = gpu.max_blocks_per_sm(&f, threads).map_err(usage)?;
        if blocks_per_sm > report.config.max_blocks_per_sm {
            return Err(Error::Usage(format!(
                "grid.sync() needs every block resident: {blocks_per_sm} blocks/SM > {} allowed",
                report.config.max_blocks_per_sm
            )));
        }
        let mut n = iters;
        let mut args = [&mut n as *mut _ as *mut c_void];
        match launch_and_wait(
            &f,
            blocks,
            threads,
            &mut args,
            true,
            None,
            timeout,
            Duration::ZERO,
        )
        .map_err(usage)?
        {
            Ended::Completed { ms } => {
                if launch_no > 0 || repeats == 0 {
                    report.launch_ms.push(ms);
                }
            }
            Ended::Hung { .. } => {
                report.outcome = "hung_undrained".into();
                return Ok(report);
            }
        }
        errors = module.read_words("gs_phase_errors", 1).map_err(usage)?[0];
    }
    report.ns_per_op =
        Some(super::runner::median(&report.launch_ms) * 1e6 / f64::from(iters.max(1)));
    report.checks = vec![
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
    ];
    Ok(report)
}

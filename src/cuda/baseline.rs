//! The barrier baseline outside the specs: cooperative groups' `grid.sync()`
//! (a small fixed CUDA program, compiled with NVRTC against the toolkit's
//! headers and launched cooperatively), timed like a spec's harness.

use super::device::{launch_and_wait, Ended, Gpu, GpuError};
use super::harness::Timed;
use super::nvrtc;
use std::ffi::c_void;
use std::time::Duration;

const SOURCE: &str = include_str!("grid_sync.cu");

/// The kernel's entry point.
const KERNEL: &str = "grid_sync_kernel";

/// Where `cooperative_groups.h` is: `$CUDA_HOME/include` or /usr/local/cuda/include.
fn include_dir() -> String {
    let home = std::env::var("CUDA_HOME")
        .or_else(|_| std::env::var("CUDA_PATH"))
        .unwrap_or_else(|_| "/usr/local/cuda".into());
    format!("{home}/include")
}

/// What the `grid.sync()` kernel did.
#[derive(Clone, Debug, Default)]
pub(crate) struct GridSyncRun {
    pub blocks: u32,
    /// Resident blocks per SM the kernel allows.
    pub max_blocks_per_sm: u32,
    pub timed: Timed,
    /// In the last completed launch: times a block left a phase before
    /// another had entered it (one phase in 8 checked).
    pub phase_errors: u32,
}

fn compile(gpu: &Gpu) -> Result<String, GpuError> {
    nvrtc::compile_with(
        SOURCE,
        "grid_sync.cu",
        &gpu.arch(),
        &[
            format!("--include-path={}", include_dir()),
            // CUDA 13 keeps libcu++ (cuda/std/...) under include/cccl.
            format!("--include-path={}/cccl", include_dir()),
        ],
    )
    .map_err(GpuError::Program)
}

/// Runs `iters` grid-wide barriers on `blocks_per_sm` blocks per SM of
/// `threads`, once to warm up and `repeats` times timed.
pub(crate) fn run_grid_sync(
    gpu: &Gpu,
    blocks_per_sm: u32,
    threads: u32,
    iters: u32,
    repeats: u32,
    timeout: Duration,
) -> Result<GridSyncRun, GpuError> {
    let ptx = compile(gpu)?;
    let blocks = gpu.sms * blocks_per_sm;
    let mut run = GridSyncRun {
        blocks,
        ..GridSyncRun::default()
    };
    run.timed = Timed::run(repeats, || {
        let module = gpu.load(&ptx)?;
        let f = module.function(KERNEL)?;
        run.max_blocks_per_sm = gpu.max_blocks_per_sm(&f, threads)?;
        if blocks_per_sm > run.max_blocks_per_sm {
            return Err(GpuError::Program(format!(
                "grid.sync() needs every block resident: {blocks_per_sm} blocks/SM > {} allowed",
                run.max_blocks_per_sm
            )));
        }
        let mut n = iters;
        let mut args = [&mut n as *mut _ as *mut c_void];
        let ended = launch_and_wait(
            &f,
            blocks,
            threads,
            &mut args,
            true,
            None,
            timeout,
            Duration::ZERO,
        )?;
        if let Ended::Completed { .. } = ended {
            run.phase_errors = module.read_words("gs_phase_errors", 1)?[0];
        }
        Ok(ended)
    })?;
    Ok(run)
}

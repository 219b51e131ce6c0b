//! The CUDA backend: the verified spec, lowered from the same IR the model
//! checks, as CUDA C++ (`emit`), compiled with NVRTC and run on a GPU with
//! on-device invariant checks and a watchdog (`runner`), and the benchmark
//! suite of the seeds' comparisons (`bench`).
//!
//! Everything that touches CUDA loads its libraries at run time (cudarc's
//! dynamic loading), so the crate builds and tests on machines without it.

pub mod baseline;
pub mod bench;
pub mod device;
pub mod emit;
pub mod expr;
pub mod nvrtc;
pub mod runner;

use crate::api::{self, CheckConfig, Error, SpecSource};
use crate::ir::{lower, Launch, Program};
use crate::report::Report;
use crate::spec::ast::SpecFile;
pub use emit::{EmitOptions, Emitted};

/// A spec parsed and lowered for a GPU launch (any size: the checker's
/// launch limit does not apply, nothing is explored).
pub struct GpuProgram {
    pub spec: SpecSource,
    pub file: SpecFile,
    pub program: Program,
}

/// Parses and lowers `spec` for `launch` with parameter `overrides`.
pub fn lower_for_gpu(
    spec: &SpecSource,
    launch: Launch,
    overrides: &[(String, i64)],
) -> Result<GpuProgram, Error> {
    if launch.blocks == 0 || launch.threads_per_block == 0 {
        return Err(Error::Usage(
            "a launch needs at least one block and one thread".into(),
        ));
    }
    if launch.threads_per_block > 1024 {
        return Err(Error::Usage(format!(
            "--threads-per-block {} is more than a CUDA block can have (1024)",
            launch.threads_per_block
        )));
    }
    let file = api::parse(spec)?;
    let declared = api::declared_params(&file);
    for (name, _) in overrides {
        if !declared.contains(name) {
            return Err(Error::Usage(format!(
                "spec `{}` has no parameter `{name}` (it has: {})",
                spec.name,
                declared.join(", ")
            )));
        }
    }
    let source = spec.source();
    let program = lower(&file, &source, launch, overrides)
        .map_err(|d| Error::Spec(Box::new(d), Box::new(source.clone())))?;
    Ok(GpuProgram {
        spec: spec.clone(),
        file,
        program,
    })
}

/// Emits the CUDA C++ of a lowered spec; a construct without a CUDA
/// lowering is an error located in the spec.
pub fn generate(gpu: &GpuProgram, options: &EmitOptions) -> Result<Emitted, Error> {
    emit::emit(&gpu.file, &gpu.program, &gpu.spec.name, options)
        .map_err(|d| Error::Spec(Box::new(d), Box::new(gpu.spec.source())))
}

/// The small configuration a spec is model-checked at before its CUDA is
/// trusted: the default launch (2 blocks, 1 thread each), or 3 blocks with
/// 2 resident when the GPU launch has more blocks than resident slots (the
/// model then predicts an occupancy deadlock for in-kernel barriers). A
/// spec whose harness runs every thread is checked with 2 threads per
/// block, so intra-block bugs count. `params` are the user's overrides.
pub fn precheck_config(
    oversubscribed: bool,
    all_threads: bool,
    params: &[(String, i64)],
) -> CheckConfig {
    let mut config = CheckConfig {
        max_seconds: Some(120.0),
        params: params.to_vec(),
        ..CheckConfig::default()
    };
    if all_threads {
        config.launch.threads_per_block = 2;
    }
    if oversubscribed {
        config.launch.blocks = 3;
        config.resident = Some(2);
    }
    config
}

/// One line for a generated file's header: the verdict and its configuration.
pub fn verdict_line(report: &Report) -> String {
    let c = &report.config;
    let params: Vec<String> = c.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!(
        "model-checked: {} for --blocks {} --threads-per-block {}{} (params {}; memory model {}, simt {}, scheduler {}): {} states",
        report.verdict.name(),
        c.launch.blocks,
        c.launch.threads_per_block,
        c.resident.map(|r| format!(" --resident {r}")).unwrap_or_default(),
        params.join(" "),
        c.memory_model,
        c.simt,
        c.scheduler.name(),
        report.stats.states
    )
}

//! The GPU commands' work above the layers they use: a spec parsed and
//! lowered for a GPU launch, model-checked at a small configuration before
//! its CUDA is trusted, emitted and run ([`run`]), and the benchmark suite
//! that runs the seeds' primitives side by side ([`bench`](mod@bench),
//! plotted by [`plot`]).
//!
//! Dependencies point down: this module uses `api` (parsing, checking),
//! `trace` (the model's report) and the `cuda` backend, which reads only
//! the IR.

pub(crate) mod bench;
pub(crate) mod compare;
pub(crate) mod plot;
pub(crate) mod run;

use crate::api::{self, CheckConfig, Error, SpecSource};
use crate::cuda::{self, EmitOptions, Emitted};
use crate::diag::Source;
use crate::ir::Participants;
use crate::ir::{Launch, Program};
use crate::report::Report;
use crate::spec::ast::SpecFile;
use crate::spec::lower;

/// A spec lowered for a GPU launch (any size: the checker's launch limit
/// does not apply, nothing is explored).
pub struct GpuProgram {
    pub spec: SpecSource,
    pub program: Program,
    /// What the program's spans point into: the spec, then any CUDA it imports.
    pub source: Source,
}

impl GpuProgram {
    /// Whether every thread runs the harness (not only each block's master).
    pub fn all_threads(&self) -> bool {
        self.program.participants == Participants::All
    }
}

/// Parses and lowers `spec` for `launch` with parameter `overrides`.
pub fn lower_for_gpu(
    spec: &SpecSource,
    launch: Launch,
    overrides: &[(String, i64)],
) -> Result<GpuProgram, Error> {
    check_launch(launch)?;
    lower_parsed(spec, api::load(spec)?, launch, overrides)
}

/// Refuses a launch CUDA cannot make.
fn check_launch(launch: Launch) -> Result<(), Error> {
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
    Ok(())
}

/// Lowers a parsed spec (with the CUDA a harness imports, `api::load`),
/// refusing overrides of parameters it does not declare.
fn lower_parsed(
    spec: &SpecSource,
    (file, source): (SpecFile, Source),
    launch: Launch,
    overrides: &[(String, i64)],
) -> Result<GpuProgram, Error> {
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
    let program = lower(&file, &source, launch, overrides)
        .map_err(|d| Error::Spec(Box::new(d), Box::new(source.clone())))?;
    Ok(GpuProgram {
        spec: spec.clone(),
        program,
        source,
    })
}

/// A GPU launch as the commands ask for it; the spec's `blocks_per_sm`
/// and `iters` parameters follow it where the spec declares them.
#[derive(Clone, Debug)]
pub struct LaunchRequest {
    /// Blocks each SM runs at once.
    pub blocks_per_sm: u32,
    /// Blocks in the launch (default: SMs × blocks per SM).
    pub blocks: Option<u32>,
    pub threads_per_block: u32,
    /// Operations per participant (the spec's `iters`; default: the spec's).
    pub iters: Option<i64>,
    /// The user's parameter overrides.
    pub params: Vec<(String, i64)>,
}

/// A spec lowered for the launch a [`LaunchRequest`] asks for on some SMs.
pub struct Planned {
    pub gpu: GpuProgram,
    pub launch: Launch,
    /// `EmitOptions::renumber`: blocks renumbered so that the spec's SM
    /// groups are the GPU's, when the launch fills every SM with exactly
    /// `blocks_per_sm` blocks.
    pub renumber: Option<(u32, u32)>,
}

impl LaunchRequest {
    /// Parses and lowers `spec` for this launch on `sms` SMs.
    pub fn plan(&self, spec: &SpecSource, sms: u32) -> Result<Planned, Error> {
        let full = sms.saturating_mul(self.blocks_per_sm);
        let launch = Launch {
            blocks: self.blocks.unwrap_or(full),
            threads_per_block: self.threads_per_block,
            warp_size: 32,
        };
        check_launch(launch)?;
        let (file, source) = api::load(spec)?;
        let declared = api::declared_params(&file);
        let declares = |name: &str| declared.iter().any(|d| d == name);
        let mut params = Vec::new();
        if declares("blocks_per_sm") {
            params.push(("blocks_per_sm".to_string(), i64::from(self.blocks_per_sm)));
        }
        if let Some(k) = self.iters.filter(|_| declares("iters")) {
            params.push(("iters".to_string(), k));
        }
        params.extend(self.params.iter().cloned());
        let renumber =
            (declares("blocks_per_sm") && self.blocks_per_sm > 1 && launch.blocks == full)
                .then_some((sms, self.blocks_per_sm));
        Ok(Planned {
            gpu: lower_parsed(spec, (file, source), launch, &params)?,
            launch,
            renumber,
        })
    }
}

/// Emits the CUDA C++ of a lowered spec; a construct without a CUDA
/// lowering is an error located in the spec.
pub fn generate(gpu: &GpuProgram, options: &EmitOptions) -> Result<Emitted, Error> {
    cuda::emit(&gpu.program, &gpu.spec.name, options)
        .map_err(|d| Error::Spec(Box::new(d), Box::new(gpu.source.clone())))
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
        params: params.to_vec(),
        ..CheckConfig::default()
    };
    config.limits.max_seconds = Some(120.0);
    if all_threads {
        config.launch.threads_per_block = 2;
    }
    if oversubscribed {
        config.launch.blocks = 3;
        config.semantics.resident = Some(2);
    }
    config
}

/// Model-checks `gpu`'s spec at its [`precheck_config`].
pub fn precheck(
    gpu: &GpuProgram,
    oversubscribed: bool,
    params: &[(String, i64)],
) -> Result<Report, Error> {
    api::check_spec(
        &gpu.spec,
        &precheck_config(oversubscribed, gpu.all_threads(), params),
    )
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
        c.scheduler,
        report.stats.states
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(blocks: Option<u32>, iters: Option<i64>) -> LaunchRequest {
        LaunchRequest {
            blocks_per_sm: 4,
            blocks,
            threads_per_block: 32,
            iters,
            params: vec![("check_every".into(), 8)],
        }
    }

    /// The spec's `blocks_per_sm` and `iters` follow the launch, the user's
    /// overrides come last, and a launch that fills every SM renumbers.
    #[test]
    fn a_launch_request_sets_the_spec_parameters_it_declares() {
        let spec = SpecSource::builtin("sense_reversing_barrier_grouped").unwrap();
        let p = request(None, Some(7)).plan(&spec, 3).unwrap();
        assert_eq!(p.launch.blocks, 12);
        assert_eq!(p.renumber, Some((3, 4)));
        let value = |name: &str| {
            p.gpu
                .program
                .params
                .iter()
                .find(|(n, _)| n == name)
                .unwrap()
                .1
        };
        assert_eq!(
            (value("blocks_per_sm"), value("iters"), value("check_every")),
            (4, 7, 8)
        );
        let p = request(Some(5), None).plan(&spec, 3).unwrap();
        assert_eq!((p.launch.blocks, p.renumber), (5, None));
        let spin = SpecSource::builtin("spin_lock").unwrap();
        let err = request(None, Some(7)).plan(&spin, 3).err().unwrap();
        assert!(
            err.to_string().contains("no parameter `check_every`"),
            "{err}"
        );
    }
}

//! `gsync-check litmus PATH --on-gpu`: run the tests on the GPU and compare
//! the outcomes seen with the model's.

use super::args::TextOrJson as Format;
use super::to_json;
use crate::api::Error;
use crate::cuda::device::Gpu;
use crate::litmus::gpu::corpus::{prepare_all, run_all, CorpusOptions};
use crate::litmus::gpu::report::{csv, render};
use crate::litmus::gpu::run::RunOptions;
use crate::litmus::gpu::stress::{environments, Environment};
use crate::litmus::LitmusConfig;
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args, Debug, Clone)]
pub struct GpuLitmusArgs {
    /// Run the tests on the GPU, many times under stress, and compare the outcomes seen with the model's (exit 1 if the GPU shows one the model forbids)
    #[arg(long)]
    pub on_gpu: bool,

    /// With --on-gpu: liveness expectations (`path,0|1`, 1: terminates); their tests are also checked for termination by the model (weak fairness), and a GPU instance still spinning at its deadline counts as a hang
    #[arg(long, value_name = "FILE.csv", requires = "on_gpu")]
    pub expect_liveness: Option<PathBuf>,

    /// With --on-gpu: launches per environment per test
    #[arg(long, value_name = "N", default_value_t = 200, requires = "on_gpu")]
    pub launches: u32,

    /// With --on-gpu: environments to run (plain, shuffle, stress) [default: all]
    #[arg(
        long,
        value_name = "NAME,...",
        value_delimiter = ',',
        value_parser = Environment::named,
        requires = "on_gpu"
    )]
    pub environments: Vec<Environment>,

    /// With --on-gpu: blocks per SM launched (at most what fits)
    #[arg(long, value_name = "B", default_value_t = 4, requires = "on_gpu")]
    pub gpu_blocks_per_sm: u32,

    /// With --on-gpu: a spin loop gives up this many microseconds after its thread started
    #[arg(long, value_name = "US", default_value_t = 20_000, requires = "on_gpu")]
    pub budget_us: u32,

    /// With --on-gpu: seed of the launches' random shuffles and stress
    #[arg(long, value_name = "N", default_value_t = 1, requires = "on_gpu")]
    pub seed: u64,

    /// With --on-gpu: write litmus-gpu.json and litmus-gpu.csv here
    #[arg(long, value_name = "DIR", requires = "on_gpu")]
    pub out: Option<PathBuf>,

    /// With --on-gpu: write each test's CUDA program here and stop (no GPU needed)
    #[arg(long, value_name = "DIR", requires = "on_gpu")]
    pub emit_dir: Option<PathBuf>,
}

fn write(path: &Path, text: &str) -> Result<(), Error> {
    std::fs::write(path, text)
        .map_err(|e| Error::Usage(format!("cannot write {}: {e}", path.display())))
}

pub(super) fn run(
    path: &Path,
    expect: Option<&Path>,
    config: LitmusConfig,
    format: Format,
    g: &GpuLitmusArgs,
) -> Result<i32, Error> {
    let chosen = if g.environments.is_empty() {
        environments()
    } else {
        g.environments.clone()
    };
    let o = CorpusOptions {
        config,
        expect,
        liveness: g.expect_liveness.as_deref(),
        environments: chosen,
        run: RunOptions {
            launches: g.launches,
            blocks_per_sm: g.gpu_blocks_per_sm,
            budget_us: g.budget_us,
            seed: g.seed,
            ..RunOptions::default()
        },
    };
    let prepared = prepare_all(path, &o).map_err(Error::Usage)?;
    if let Some(dir) = &g.emit_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::Usage(format!("cannot create {}: {e}", dir.display())))?;
        let mut n = 0;
        for p in prepared.iter().flatten() {
            let name = p
                .result
                .path
                .replace(['/', '\\'], "__")
                .replace(".litmus", ".cu");
            write(&dir.join(name), &p.kernel.source)?;
            n += 1;
        }
        eprintln!("wrote {n} CUDA programs to {}", dir.display());
        return Ok(0);
    }
    let gpu = Gpu::open().map_err(|e| Error::Usage(e.to_string()))?;
    let report = run_all(&gpu, prepared, &o, |t| {
        // Not `sum()`: the empty sum of f64 is -0.0, printed `-0.00`.
        let secs = t.runs.iter().fold(0.0, |a, r| a + r.seconds);
        eprintln!("{} {} ({secs:.2} s)", t.path, t.status.name());
    });
    if let Some(dir) = &g.out {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::Usage(format!("cannot create {}: {e}", dir.display())))?;
        write(&dir.join("litmus-gpu.json"), &to_json(&report))?;
        write(&dir.join("litmus-gpu.csv"), &csv(&report))?;
    }
    match format {
        Format::Json => println!("{}", to_json(&report)),
        Format::Text => print!("{}", render(&report)),
    }
    Ok(report.exit_code())
}

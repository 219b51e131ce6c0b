//! `emit`, `run` and `bench`: the CUDA backend's commands.

use gsync_check::api::{self, Error, SpecSource};
use gsync_check::cuda::{self, EmitOptions};
use gsync_check::ir::Launch;
use std::path::{Path, PathBuf};

/// The GPU launch shared by `emit` and `run`.
#[derive(clap::Args, Debug, Clone)]
pub struct GpuLaunchArgs {
    /// A built-in spec (see `list`) or a .gsync file
    pub name: String,

    /// Blocks each SM runs at once (sets the spec's `blocks_per_sm` parameter, if it has one)
    #[arg(long, value_name = "B", default_value_t = 1)]
    pub blocks_per_sm: u32,

    /// Number of SMs [default: the GPU's; 132 (H100) for `emit`]
    #[arg(long, value_name = "S")]
    pub sms: Option<u32>,

    /// Blocks in the launch [default: SMs × blocks per SM]
    #[arg(long, value_name = "N")]
    pub blocks: Option<u32>,

    /// Threads per block
    #[arg(long, value_name = "T", default_value_t = 128)]
    pub threads_per_block: u32,

    /// Operations per block (sets the spec's `iters` parameter) [default: the spec's for `emit`, 1000 for `run`]
    #[arg(long, value_name = "K")]
    pub iters: Option<i64>,

    /// Override a spec parameter (repeatable): --param size=10
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = super::args::parse_param)]
    pub params: Vec<(String, i64)>,

    /// Global loads and stores in each critical section
    #[arg(long, value_name = "L", default_value_t = 0)]
    pub cs_len: u32,

    /// Longest backoff() sleep, ns
    #[arg(long, value_name = "NS", default_value_t = 1024)]
    pub backoff_max_ns: u32,
}

#[derive(clap::Args, Debug)]
pub struct EmitArgs {
    #[command(flatten)]
    pub launch: GpuLaunchArgs,

    /// Write the CUDA C++ here (default: standard output)
    #[arg(short = 'o', long = "output", value_name = "FILE.cu")]
    pub output: Option<PathBuf>,
}

/// A built-in spec or a spec file.
pub fn load_spec(name: &str) -> Result<SpecSource, Error> {
    if let Some(spec) = SpecSource::builtin(name) {
        return Ok(spec);
    }
    let path = Path::new(name);
    if path.is_file() {
        return SpecSource::from_file(path);
    }
    Err(Error::Usage(format!(
        "no built-in spec named `{name}` and no such file\n  `gsync-check list` shows the built-in specs"
    )))
}

/// The launch and parameter overrides the arguments ask for on `sms` SMs.
pub fn launch_of(
    args: &GpuLaunchArgs,
    sms: u32,
    declared: &[String],
    default_iters: Option<i64>,
) -> (Launch, Vec<(String, i64)>) {
    let blocks = args
        .blocks
        .unwrap_or(sms.saturating_mul(args.blocks_per_sm));
    let mut params = Vec::new();
    if declared.iter().any(|d| d == "blocks_per_sm") {
        params.push(("blocks_per_sm".to_string(), i64::from(args.blocks_per_sm)));
    }
    if let Some(k) = args.iters.or(default_iters) {
        if declared.iter().any(|d| d == "iters") {
            params.push(("iters".to_string(), k));
        }
    }
    params.extend(args.params.iter().cloned());
    let launch = Launch {
        blocks,
        threads_per_block: args.threads_per_block,
        warp_size: 32,
    };
    (launch, params)
}

/// Blocks renumbered so the spec's SM groups are the GPU's, when the launch
/// fills every SM with exactly `blocks_per_sm` blocks.
pub fn renumbering(
    args: &GpuLaunchArgs,
    launch: Launch,
    sms: u32,
    declared: &[String],
) -> Option<(u32, u32)> {
    let grouped = declared.iter().any(|d| d == "blocks_per_sm");
    (grouped && args.blocks_per_sm > 1 && launch.blocks == sms * args.blocks_per_sm)
        .then_some((sms, args.blocks_per_sm))
}

pub fn emit(args: &EmitArgs) -> Result<i32, Error> {
    let spec = load_spec(&args.launch.name)?;
    let file = api::parse(&spec)?;
    let declared = api::declared_params(&file);
    let sms = args.launch.sms.unwrap_or(132);
    let (launch, params) = launch_of(&args.launch, sms, &declared, None);
    let gpu = cuda::lower_for_gpu(&spec, launch, &params)?;
    let report = api::check_spec(&spec, &cuda::precheck_config(false))?;
    let options = EmitOptions {
        cs_len: args.launch.cs_len,
        backoff_max_ns: args.launch.backoff_max_ns,
        renumber: renumbering(&args.launch, launch, sms, &declared),
        verified: vec![cuda::verdict_line(&report)],
    };
    let emitted = cuda::generate(&gpu, &options)?;
    match &args.output {
        Some(path) => {
            std::fs::write(path, &emitted.source)
                .map_err(|e| Error::Usage(format!("cannot write {}: {e}", path.display())))?;
            eprintln!(
                "wrote {} ({} blocks x {} threads; spec {})",
                path.display(),
                launch.blocks,
                launch.threads_per_block,
                report.verdict.name()
            );
        }
        None => print!("{}", emitted.source),
    }
    Ok(0)
}

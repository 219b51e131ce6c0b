//! `emit`, `run` and `bench`: the CUDA backend's commands.

use super::args::{
    at_least_1, family_name, param_value, parse_param, positive_seconds, TextOrJson,
};
use crate::api::{Error, SpecSource};
use crate::cuda::device::{Gpu, GpuInfo};
use crate::cuda::EmitOptions;
use crate::gpu::bench::{self, BenchOptions, Row};
use crate::gpu::compare;
use crate::gpu::run::{self as runner, RunRequest};
use crate::gpu::{self, plot, verdict_line, LaunchRequest};
use std::path::{Path, PathBuf};

/// The GPU launch shared by `emit` and `run`.
#[derive(clap::Args, Debug, Clone)]
pub struct GpuLaunchArgs {
    /// A built-in spec (see `list`) or a .gsync file
    pub name: String,

    /// Blocks each SM runs at once (sets the spec's `blocks_per_sm` parameter, if it has one); `run` takes a list, 1,2,4,8,16, and runs each
    #[arg(long, value_name = "B[,B...]", default_value = "1", value_delimiter = ',', value_parser = at_least_1::<u32>, allow_negative_numbers = true)]
    pub blocks_per_sm: Vec<u32>,

    /// Number of SMs [default: the GPU's; 132 (H100) for `emit`]
    #[arg(long, value_name = "S", value_parser = at_least_1::<u32>, allow_negative_numbers = true)]
    pub sms: Option<u32>,

    /// Blocks in the launch [default: SMs × blocks per SM]
    #[arg(long, value_name = "N", value_parser = at_least_1::<u32>, allow_negative_numbers = true)]
    pub blocks: Option<u32>,

    /// Threads per block, 1 to 1024
    #[arg(long, value_name = "T", default_value_t = 128, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads_per_block: u32,

    /// Operations per block (sets the spec's `iters` parameter) [default: the spec's for `emit`, 100 for `run`]
    #[arg(long, value_name = "K", value_parser = param_value, allow_negative_numbers = true)]
    pub iters: Option<i64>,

    /// Override a spec parameter (repeatable): --param size=10
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
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
pub(super) fn load_spec(name: &str) -> Result<SpecSource, Error> {
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

impl GpuLaunchArgs {
    /// The launch these arguments ask for, at the first contention level.
    fn request(&self) -> LaunchRequest {
        LaunchRequest {
            blocks_per_sm: self.blocks_per_sm[0],
            blocks: self.blocks,
            threads_per_block: self.threads_per_block,
            iters: self.iters,
            params: self.params.clone(),
        }
    }
}

pub(super) fn emit(args: &EmitArgs) -> Result<i32, Error> {
    if args.launch.blocks_per_sm.len() > 1 {
        return Err(Error::Usage(
            "`emit` writes one launch: give one --blocks-per-sm (a list is for `run`)".into(),
        ));
    }
    let spec = load_spec(&args.launch.name)?;
    let sms = args.launch.sms.unwrap_or(132);
    let planned = args.launch.request().plan(&spec, sms)?;
    let launch = planned.launch;
    let report = gpu::precheck(&planned.gpu, false, &args.launch.params)?;
    let options = EmitOptions {
        cs_len: args.launch.cs_len,
        backoff_max_ns: args.launch.backoff_max_ns,
        renumber: planned.renumber,
        verified: vec![verdict_line(&report)],
    };
    let emitted = gpu::generate(&planned.gpu, &options)?;
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

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub launch: GpuLaunchArgs,

    /// Seconds before a launch counts as hung and its spin loops are told to stop
    #[arg(long, value_name = "S", default_value_t = 10.0, value_parser = positive_seconds, allow_negative_numbers = true)]
    pub timeout: f64,

    /// Timed launches (after one warm-up launch), at least 1
    #[arg(long, value_name = "R", default_value_t = 3, value_parser = at_least_1::<u32>, allow_negative_numbers = true)]
    pub repeats: u32,

    /// Run even if the model check finds a violation (to watch a predicted hang)
    #[arg(long)]
    pub force: bool,

    /// Also run this spec (a built-in name or a .gsync file, such as the one `relax --output` wrote) at each of the same launches, and show both times and the speedup
    #[arg(long, value_name = "SPEC")]
    pub compare: Option<String>,

    /// Output format
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,
}

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Directory for bench.csv, bench.json and one SVG plot per family
    #[arg(long, value_name = "DIR", default_value = "bench-results")]
    pub out: PathBuf,

    /// Contention levels (blocks per SM), comma-separated [default: 1,2,4,8,16 up to occupancy]
    #[arg(long, value_name = "B,B,...", value_delimiter = ',', value_parser = at_least_1::<u32>, allow_negative_numbers = true)]
    pub blocks_per_sm: Vec<u32>,

    /// Threads per block, 1 to 1024
    #[arg(long, value_name = "T", default_value_t = 128, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads_per_block: u32,

    /// Barrier episodes per launch, at least 1
    #[arg(long, value_name = "K", default_value_t = 1000, value_parser = at_least_1::<i64>, allow_negative_numbers = true)]
    pub barrier_iters: i64,

    /// Lock/semaphore operations per block per launch, at least 1
    #[arg(long, value_name = "K", default_value_t = 10, value_parser = at_least_1::<i64>, allow_negative_numbers = true)]
    pub lock_iters: i64,

    /// Seconds before a launch counts as hung
    #[arg(long, value_name = "S", default_value_t = 5.0, value_parser = positive_seconds, allow_negative_numbers = true)]
    pub timeout: f64,

    /// Timed launches per point (after one warm-up), at least 1
    #[arg(long, value_name = "R", default_value_t = 3, value_parser = at_least_1::<u32>, allow_negative_numbers = true)]
    pub repeats: u32,

    /// Only the variants whose spec or label contains this text
    #[arg(long, value_name = "TEXT")]
    pub only: Option<String>,

    /// Only these families (barrier, mutex, semaphore), comma-separated
    #[arg(long, value_name = "F,F,...", value_delimiter = ',', value_parser = family_name)]
    pub family: Vec<String>,

    /// Draw the plots of a recorded bench.json into --out, running nothing (no GPU needed)
    #[arg(long, value_name = "FILE.json")]
    pub from: Option<PathBuf>,
}

fn open_gpu() -> Result<Gpu, Error> {
    Gpu::open().map_err(|e| Error::Usage(e.to_string()))
}

fn timeout(s: f64) -> Result<std::time::Duration, Error> {
    std::time::Duration::try_from_secs_f64(s)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            Error::Usage(format!(
                "--timeout must be a positive number of seconds (got {s})"
            ))
        })
}

pub(super) fn run(args: &RunArgs) -> Result<i32, Error> {
    let l = &args.launch;
    let levels = &l.blocks_per_sm;
    if levels.len() > 1 && l.blocks.is_some() {
        return Err(Error::Usage(
            "--blocks fixes the launch: give one --blocks-per-sm with it, or leave --blocks out to run SMs x each level".into(),
        ));
    }
    let spec = load_spec(&l.name)?;
    let other = args.compare.as_deref().map(load_spec).transpose()?;
    let timeout = timeout(args.timeout)?;
    let gpu = open_gpu()?;
    let req = RunRequest {
        spec,
        launch: l.request(),
        cs_len: l.cs_len,
        backoff_max_ns: l.backoff_max_ns,
        timeout,
        repeats: args.repeats,
        force: args.force,
    };
    if let Some(other) = other {
        return run_compare(&gpu, &req, &other, args);
    }
    let mut reports = Vec::new();
    for &b in levels {
        let report = runner::run(&gpu, &req.at(&req.spec, b))?;
        if args.format == TextOrJson::Text {
            print!("{}", runner::render(&report));
        }
        let usable = report.context_usable();
        reports.push(report);
        if !usable {
            break;
        }
    }
    if args.format == TextOrJson::Json {
        match reports.as_slice() {
            [one] => println!("{}", super::to_json(one)),
            all => println!("{}", super::to_json(&all)),
        }
    }
    Ok(i32::from(reports.iter().any(|r| r.exit_code() != 0)))
}

/// `run --compare`: both versions at each level, as a table.
fn run_compare(
    gpu: &Gpu,
    req: &RunRequest,
    other: &SpecSource,
    args: &RunArgs,
) -> Result<i32, Error> {
    let text = args.format == TextOrJson::Text;
    if text {
        print!(
            "{}",
            compare::header(
                &gpu.name,
                &req.spec.name,
                &other.name,
                req.launch.threads_per_block
            )
        );
    }
    let report = compare::compare(gpu, req, other, &args.launch.blocks_per_sm, |row| {
        if text {
            print!("{}", compare::line(row));
        }
    })?;
    match args.format {
        TextOrJson::Json => println!("{}", super::to_json(&report)),
        TextOrJson::Text => {
            if let Some(first) = report.rows.first() {
                println!(
                    "(model checks: {}; {})",
                    first.original.model_check, first.other.model_check
                );
            }
        }
    }
    Ok(report.exit_code())
}

/// Redraws the plots of a recorded run.
fn replot(from: &Path, out: &Path) -> Result<i32, Error> {
    let bad = |e: &dyn std::fmt::Display| Error::Usage(format!("{}: {e}", from.display()));
    let text = std::fs::read_to_string(from).map_err(|e| bad(&e))?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad(&e))?;
    let rows: Vec<Row> = serde_json::from_value(json["rows"].clone()).map_err(|e| bad(&e))?;
    let gpu = json["gpu"]["name"].as_str().unwrap_or("GPU");
    let threads = json["threads_per_block"].as_u64().unwrap_or(128) as u32;
    std::fs::create_dir_all(out)
        .map_err(|e| Error::Usage(format!("cannot create {}: {e}", out.display())))?;
    write_plots(&rows, gpu, threads, out)?;
    eprintln!("wrote the plots of {} to {}", from.display(), out.display());
    Ok(0)
}

fn write_plots(rows: &[Row], gpu: &str, threads: u32, out: &Path) -> Result<(), Error> {
    for (family, title) in [
        ("barrier", "Barriers: time per grid-wide barrier"),
        ("mutex", "Mutexes: time per critical section"),
        ("semaphore", "Semaphores: time per critical section"),
    ] {
        let title = format!("{title} ({gpu}, {threads} threads/block)");
        plot::plot(rows, family, &title, &out.join(format!("{family}.svg")))
            .map_err(|e| Error::Usage(format!("plot {family}: {e}")))?;
    }
    Ok(())
}

pub(super) fn bench(args: &BenchArgs) -> Result<i32, Error> {
    if let Some(from) = &args.from {
        return replot(from, &args.out);
    }
    let timeout = timeout(args.timeout)?;
    let gpu = open_gpu()?;
    let mut suite = bench::suite(args.barrier_iters, args.lock_iters);
    if let Some(only) = &args.only {
        suite.retain(|v| v.spec.contains(only.as_str()) || v.label.contains(only.as_str()));
    }
    if !args.family.is_empty() {
        suite.retain(|v| args.family.iter().any(|f| f == v.family));
    }
    if suite.is_empty() {
        return Err(Error::Usage(
            "no variant matches --only and --family: nothing to measure".into(),
        ));
    }
    let max = 2048 / args.threads_per_block.max(1);
    let contention: Vec<u32> = if args.blocks_per_sm.is_empty() {
        [1, 2, 4, 8, 16].into_iter().filter(|&b| b <= max).collect()
    } else {
        args.blocks_per_sm.clone()
    };
    eprintln!(
        "bench on {} ({} SMs, driver {}): {} variants x blocks/SM {:?}",
        gpu.name,
        gpu.sms,
        gpu.driver,
        suite.len(),
        contention
    );
    let options = BenchOptions {
        contention,
        threads_per_block: args.threads_per_block,
        timeout,
        repeats: args.repeats,
    };
    let rows = bench::run_suite(&gpu, &suite, &options, |r| {
        eprintln!(
            "  {:<9} {:<40} {:>2} blk/SM  {:<9} {:>12}  {}",
            r.family,
            r.variant,
            r.blocks_per_sm,
            r.outcome.name(),
            r.ns_per_op
                .map(|n| format!("{n:.1} ns"))
                .unwrap_or_default(),
            if r.checks_passed {
                "checks ok".to_string()
            } else {
                format!("FAILED {}", r.failed_checks)
            }
        )
    })?;
    std::fs::create_dir_all(&args.out)
        .map_err(|e| Error::Usage(format!("cannot create {}: {e}", args.out.display())))?;
    let write = |name: &str, text: &str| {
        std::fs::write(args.out.join(name), text)
            .map_err(|e| Error::Usage(format!("cannot write {name}: {e}")))
    };
    let json = serde_json::json!({
        "gpu": GpuInfo::of(&gpu),
        "date_utc": utc_now(),
        "threads_per_block": args.threads_per_block,
        "rows": rows,
    });
    write("bench.json", &super::to_json(&json))?;
    write("bench.csv", &bench::csv(&rows))?;
    write_plots(&rows, &gpu.name, args.threads_per_block, &args.out)?;
    eprintln!(
        "wrote {}/bench.csv, bench.json and the plots",
        args.out.display()
    );
    Ok(0)
}

/// The current UTC time, RFC 3339, from the system clock.
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = secs / 86_400;
    let (h, m, s) = (secs % 86_400 / 3600, secs % 3600 / 60, secs % 60);
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(mo <= 2);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{m:02}:{s:02}Z")
}

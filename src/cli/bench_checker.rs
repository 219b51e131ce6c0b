//! `gsync-check bench-checker`: the checker's own benchmark.

use super::args::{at_least_1, family_name, positive_seconds, worker_threads};
use crate::api::Error;
use crate::bench_checker::{self, spin, BenchOptions};
use crate::model::MemoryModel;
use clap::Args;

#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// Families to measure (default: all)
    #[arg(long, value_delimiter = ',', value_name = "FAMILY,...", value_parser = family_name)]
    pub families: Vec<String>,

    /// Smallest launch, at least 1
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = at_least_1::<u32>, allow_negative_numbers = true)]
    pub min_blocks: u32,

    /// Largest launch tried (a mode stops growing once it runs out of time)
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = at_least_1::<u32>, allow_negative_numbers = true)]
    pub max_blocks: u32,

    /// Time budget of one family at one launch, in seconds (positive)
    #[arg(long, value_name = "S", default_value_t = 60.0, value_parser = positive_seconds, allow_negative_numbers = true)]
    pub max_seconds: f64,

    /// Explorer worker threads, 1 to 1024
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = worker_threads, allow_negative_numbers = true)]
    pub threads: usize,

    /// Memory model of the measured runs: sc (the default here, as in the published scaling tables) or ptx
    #[arg(long, value_name = "MODEL", default_value = "sc")]
    pub memory_model: MemoryModel,
    /// Also run each reduced launch with N explorer threads (1 to 1024), side by side (parallel speed-up)
    #[arg(long, value_name = "N", value_parser = worker_threads, allow_negative_numbers = true)]
    pub speedup: Option<usize>,

    /// Only the reduced runs (no side-by-side run without symmetry and ample sets)
    #[arg(long)]
    pub no_compare: bool,

    /// Runs of each family at each launch, 1 to 100; the row shown is the median by search time (short searches vary from run to run)
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = repeat_count, allow_negative_numbers = true)]
    pub repeat: usize,

    /// Also compare with SPIN on the spin-lock and ticket mutexes (needs `spin` and a C compiler)
    #[arg(long)]
    pub spin: bool,

    /// Process counts for the SPIN comparison, each at least 1
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "N,...",
        default_value = "3,4,5,6",
        value_parser = at_least_1::<u32>
    , allow_negative_numbers = true)]
    pub spin_processes: Vec<u32>,
}

pub(super) fn run(args: &BenchArgs) -> Result<i32, Error> {
    if args.min_blocks > args.max_blocks {
        return Err(Error::Usage(format!(
            "--min-blocks {} is more than --max-blocks {}",
            args.min_blocks, args.max_blocks
        )));
    }
    let mut opts = BenchOptions {
        blocks: (args.min_blocks..=args.max_blocks).collect(),
        max_seconds: args.max_seconds,
        threads: args.threads,
        compare: !args.no_compare,
        memory_model: args.memory_model,
        speedup_threads: args.speedup,
        repeat: args.repeat,
        ..BenchOptions::default()
    };
    if !args.families.is_empty() {
        opts.families = args.families.clone();
    }
    let mut print = |line: &str| println!("{line}");
    bench_checker::run(&opts, &mut print);
    if args.spin {
        println!("\nSPIN comparison (SPIN {}):", spin_version());
        if !spin::available() {
            return Err(Error::Usage(
                "`spin` is not installed (apt-get install spin)".into(),
            ));
        }
        spin::compare(&args.spin_processes, &mut print);
    }
    Ok(0)
}

/// `--repeat`: 1 to 100 runs.
fn repeat_count(s: &str) -> Result<usize, String> {
    let n: usize = at_least_1(s)?;
    match n <= 100 {
        true => Ok(n),
        false => Err(format!("must be at most 100 (got {s})")),
    }
}

fn spin_version() -> String {
    std::process::Command::new("spin")
        .arg("-V")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|_| "not found".into())
}

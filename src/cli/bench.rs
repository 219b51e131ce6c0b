//! `gsync-check bench-checker`: the checker's own benchmark.

use clap::Args;
use gsync_check::api::{Error, FAMILIES};
use gsync_check::bench::{self, spin, BenchOptions};

#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// Families to measure (default: all)
    #[arg(long, value_delimiter = ',', value_name = "FAMILY,...")]
    pub families: Vec<String>,

    /// Smallest launch
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub min_blocks: u32,

    /// Largest launch tried (a mode stops growing once it runs out of time)
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub max_blocks: u32,

    /// Time budget of one family at one launch, in seconds
    #[arg(long, value_name = "S", default_value_t = 60.0)]
    pub max_seconds: f64,

    /// Explorer worker threads
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub threads: usize,

    /// Memory model of the measured runs: sc (the default here, as in the published scaling tables) or ptx
    #[arg(long, value_name = "MODEL", default_value = "sc")]
    pub memory_model: String,
    /// Also run each reduced launch with N explorer threads, side by side (parallel speed-up)
    #[arg(long, value_name = "N")]
    pub speedup: Option<usize>,

    /// Only the reduced runs (no side-by-side run without symmetry and ample sets)
    #[arg(long)]
    pub no_compare: bool,

    /// Also compare with SPIN on the spin-lock and ticket mutexes (needs `spin` and a C compiler)
    #[arg(long)]
    pub spin: bool,

    /// Process counts for the SPIN comparison
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "N,...",
        default_value = "3,4,5,6"
    )]
    pub spin_processes: Vec<u32>,
}

pub fn run(args: &BenchArgs) -> Result<i32, Error> {
    for f in &args.families {
        if !FAMILIES.contains(&f.as_str()) {
            return Err(Error::Usage(format!(
                "unknown family `{f}` (known: {})",
                FAMILIES.join(", ")
            )));
        }
    }
    if args.min_blocks == 0 || args.min_blocks > args.max_blocks {
        return Err(Error::Usage(
            "--min-blocks must be at least 1 and at most --max-blocks".into(),
        ));
    }
    if args.threads == 0 || args.speedup == Some(0) {
        return Err(Error::Usage(
            "--threads and --speedup must be at least 1 (got 0)".into(),
        ));
    }
    gsync_check::model::MemoryModel::parse_or_explain(&args.memory_model).map_err(Error::Usage)?;
    let mut opts = BenchOptions {
        blocks: (args.min_blocks..=args.max_blocks).collect(),
        max_seconds: args.max_seconds,
        threads: args.threads,
        compare: !args.no_compare,
        memory_model: args.memory_model.clone(),
        speedup_threads: args.speedup,
        ..BenchOptions::default()
    };
    if !args.families.is_empty() {
        opts.families = args.families.clone();
    }
    let mut print = |line: &str| println!("{line}");
    bench::run(&opts, &mut print);
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

fn spin_version() -> String {
    std::process::Command::new("spin")
        .arg("-V")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|_| "not found".into())
}

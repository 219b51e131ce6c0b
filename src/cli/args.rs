//! Command-line arguments.

use clap::{Args, Parser, Subcommand, ValueEnum};
use gsync_check::model::Scheduler;
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  gsync-check semaphore --blocks 3          check every semaphore variant, one table
  gsync-check spin_lock --blocks 3          check one built-in spec (memory model ptx)
  gsync-check semaphore --blocks 4 --memory-model sc   the same under sequential consistency
  gsync-check sense_barrier_no_flip --format json > report.json
  gsync-check check my_lock.gsync --param iters=2 --out cex/
  gsync-check mutex --blocks 3 --iters 0 --scheduler weak   liveness: starvation, livelock
  gsync-check barrier --blocks 3 --resident 2 --memory-model sc   occupancy deadlock
  gsync-check replay cex/my_lock.json       re-run a saved counterexample
  gsync-check list                          built-in specs and their sources

Exit codes: 0 verified, 1 violation found, 2 usage or spec error,
3 inconclusive (a state, time or memory limit was reached).";

#[derive(Parser, Debug)]
#[command(
    name = "gsync-check",
    version,
    about = "Model checker for GPU synchronization algorithms (barriers, mutexes, semaphores)",
    long_about = None,
    after_help = EXAMPLES,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// A built-in spec (file stem, see `list`) or a family: barrier, mutex, semaphore.
    #[arg(value_name = "NAME", required = true)]
    pub name: Option<String>,

    #[command(flatten)]
    pub check: CheckArgs,

    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check a spec file of your own.
    #[command(
        after_help = "Example:\n  gsync-check check my_lock.gsync --blocks 3 --param iters=2"
    )]
    Check {
        /// The `.gsync` file.
        file: PathBuf,
        #[command(flatten)]
        check: Box<CheckArgs>,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// List the built-in specs with their source and description.
    List,
    /// Check every spec under the paths against the `//! expect` lines of its header (for CI).
    #[command(
        after_help = "Exit codes: 0 every expectation met, 1 some not met, 2 a spec or option error.\n\nExamples:\n  gsync-check verify specs/\n  gsync-check verify specs/ --format sarif > gsync.sarif\n  gsync-check verify specs/ --format junit > gsync-junit.xml"
    )]
    Verify {
        /// Spec files or directories (searched recursively for .gsync files).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Re-execute a saved counterexample (JSON from --out) against its spec.
    #[command(
        after_help = "The spec is a built-in (by name) or a file (its path relative to the counterexample's folder); its content hash, recorded with the counterexample, tells an edited spec from a damaged recording.\n\nExit codes:\n  1 reproduced: the schedule still leads to the recorded violation (also after an edit of the spec, which is noted)\n  0 fixed: the spec changed and the violation no longer happens on this schedule (a recorded step is no longer possible, or the schedule ends without it); `check` tells whether another schedule finds it\n  4 spec changed: the schedule now ends in another kind of violation, or the spec refuses the recorded options\n  5 corrupt: the spec is unchanged but the recording does not replay (the file was edited or damaged)\n  2 usage error: not a counterexample file, spec not found or not parsing\n\nExample:\n  gsync-check replay counterexamples/sense_barrier_no_flip.json"
    )]
    Replay {
        /// A counterexample file written by --out.
        file: PathBuf,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Run herd PTX litmus tests: one file, or a directory against expected results.
    #[command(
        after_help = "Examples:\n  gsync-check litmus ../shared/litmus/PTX/Manual/MP-gpu.litmus\n  gsync-check litmus ../shared/litmus/PTX --expect ../shared/litmus/PTX/expected-safety.csv\n\nExit codes: 0 done (no unsound test), 1 some test is unsound, 2 usage or parse error, 3 the test cannot be expressed."
    )]
    Litmus(super::litmus::LitmusArgs),
    /// Write the CUDA C++ of a spec (the program that was model-checked) for a GPU launch.
    #[command(
        after_help = "Example:\n  gsync-check emit sense_reversing_barrier_fixed --blocks-per-sm 8 -o srb.cu"
    )]
    Emit(super::gpu::EmitArgs),
    /// Model-check a spec, then run its CUDA on the GPU: ns per operation and on-device invariant checks.
    #[command(
        after_help = "Exit codes: 0 completed with every device check passed, 1 hung, refused (violated spec) or a check failed, 2 usage error or no GPU.\n\nExamples:\n  gsync-check run sense_reversing_barrier_fixed --blocks-per-sm 8 --iters 1000\n  gsync-check run heterosync_tree_barrier --blocks-per-sm 32 --force --timeout 3   occupancy deadlock: hung"
    )]
    Run(super::gpu::RunArgs),
    /// Measure every barrier, mutex and semaphore on the GPU from 1 to the most blocks per SM: CSV, JSON, SVG plots.
    Bench(super::gpu::BenchArgs),
    /// Benchmark the checker: states, states/s and memory per family at growing --blocks, with and without reductions (and against SPIN with --spin).
    #[command(
        name = "bench-checker",
        after_help = "Examples:\n  gsync-check bench-checker --families semaphore --max-blocks 6\n  gsync-check bench-checker --families mutex --max-blocks 3 --spin"
    )]
    BenchChecker(super::bench::BenchArgs),
}

#[derive(Args, Debug, Clone, Default)]
pub struct CheckArgs {
    /// Number of blocks in the launch [default: 2]
    #[arg(long, value_name = "N")]
    pub blocks: Option<u32>,

    /// Threads per block [default: 1]
    #[arg(long, value_name = "N")]
    pub threads_per_block: Option<u32>,

    /// Threads per warp [default: 32]
    #[arg(long, value_name = "N")]
    pub warp_size: Option<u32>,

    /// Override a spec parameter (repeatable): --param iters=2
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
    pub params: Vec<(String, i64)>,

    /// Shorthand for --param iters=N
    #[arg(long, value_name = "N")]
    pub iters: Option<i64>,

    /// Shorthand for --param size=N (semaphore capacity)
    #[arg(long, value_name = "N")]
    pub size: Option<i64>,

    /// Memory model: ptx (scoped PTX model) or sc (sequential consistency). Default: ptx, except sc for a spec using lockstep warps or the lock unit (modelled under sc only)
    #[arg(long, value_name = "MODEL")]
    pub memory_model: Option<String>,

    /// Under --memory-model ptx, do not report heterogeneous or data races: see what the racing loads read instead (stale values, lost updates)
    #[arg(long)]
    pub no_races: bool,

    /// SIMT execution: its (Volta+ independent thread scheduling; the default unless the spec's header says `simt: lockstep`) or lockstep (pre-Volta: one instruction per warp, reconvergence at the immediate post-dominator). Example: --simt lockstep --threads-per-block 2
    #[arg(long, value_name = "MODE")]
    pub simt: Option<String>,

    /// Under --simt lockstep, which side of a divergent branch runs first: then-first (default: the lanes whose condition holds, i.e. those staying in a loop) or else-first. Example: --simt lockstep --branch-order else-first
    #[arg(long, value_name = "ORDER")]
    pub branch_order: Option<String>,

    /// Number of lock bits of the shared-memory lock unit (ldslk/stsul); word address A uses bit A mod N [default: 1024, Fermi]. Example: --lock-bits 2048
    #[arg(long, value_name = "N")]
    pub lock_bits: Option<u32>,

    /// Fairness for liveness checks: unfair (deadlocks only), weak, strong, obe, hsa
    #[arg(long, value_name = "MODEL", default_value = "unfair")]
    pub scheduler: Scheduler,

    /// At most R blocks resident at once; the others start as resident blocks finish
    #[arg(long, value_name = "R", conflicts_with_all = ["sms", "blocks_per_sm"])]
    pub resident: Option<u32>,

    /// Number of SMs (with --blocks-per-sm: resident = SMS × B)
    #[arg(long, value_name = "S", requires = "blocks_per_sm")]
    pub sms: Option<u32>,

    /// Blocks each SM holds at once (with --sms)
    #[arg(long, value_name = "B", requires = "sms")]
    pub blocks_per_sm: Option<u32>,

    /// Stop with verdict inconclusive (exit 3) after this many states [default: 50000000]
    #[arg(long, value_name = "N")]
    pub max_states: Option<u64>,

    /// Stop with verdict inconclusive (exit 3) after this many seconds (of the whole check, every search it runs included)
    #[arg(long, value_name = "S")]
    pub max_seconds: Option<f64>,

    /// Stop with verdict inconclusive (exit 3) before the explorer uses this many MiB [default: 8192]
    #[arg(long, value_name = "MIB")]
    pub max_memory: Option<u64>,

    /// Explorer worker threads; verdicts, state counts and traces do not depend on it [default: the number of CPUs available]
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,

    /// Store every state, not one per class of states equal up to renaming interchangeable blocks
    #[arg(long)]
    pub no_symmetry: bool,

    /// Keep a 63-bit fingerprint per state instead of the state (less memory; --stats states the collision probability)
    #[arg(long)]
    pub hash_compaction: bool,

    /// No partial-order reduction at all: every instruction interleaved, every enabled step expanded (slower; for cross-checking)
    #[arg(long)]
    pub no_por: bool,

    /// Interleave thread-local instructions too (the ample sets of shared accesses stay on)
    #[arg(long)]
    pub no_fuse_local: bool,

    /// Expand every enabled step, not an ample set of independent ones (fusing of local steps stays on)
    #[arg(long)]
    pub no_ample_sets: bool,
}

#[derive(Args, Debug, Clone, Default)]
pub struct OutputArgs {
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// Write each counterexample as JSON into this directory
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Draw the first counterexample as an SVG sequence diagram into FILE (one spec only)
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,

    /// Print states/s and memory (and include timings in JSON)
    #[arg(long)]
    pub stats: bool,

    /// Colour: auto (on a terminal), always, never
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

#[derive(ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    #[default]
    Text,
    Json,
    /// SARIF 2.1.0, for code-scanning annotations
    Sarif,
    /// JUnit XML (with `verify`)
    Junit,
}

#[derive(ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

impl Cli {
    /// Parses options given as words (an `expect` line), returning the
    /// subcommand, or clap's message on error.
    pub fn try_parse_from_args(
        argv: impl Iterator<Item = String>,
    ) -> Result<Option<Command>, String> {
        use clap::Parser;
        Cli::try_parse_from(argv)
            .map(|cli| cli.command)
            .map_err(|e| e.to_string().lines().next().unwrap_or("").to_string())
    }
}

pub fn parse_param(s: &str) -> Result<(String, i64), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=VALUE, found `{s}`"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("missing parameter name in `{s}`"));
    }
    let value = value.trim();
    let parsed = match value.strip_prefix("0x") {
        Some(hex) => i64::from_str_radix(hex, 16),
        None => value.parse::<i64>(),
    };
    let v = parsed.map_err(|_| format!("`{value}` is not an integer"))?;
    Ok((name.to_string(), v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_parse_and_reject() {
        assert_eq!(parse_param("iters=3"), Ok(("iters".into(), 3)));
        assert_eq!(parse_param("mask=0xff"), Ok(("mask".into(), 255)));
        assert!(parse_param("iters").is_err());
        assert!(parse_param("=3").is_err());
        assert!(parse_param("iters=three").is_err());
    }

    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}

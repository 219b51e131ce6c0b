//! Command-line arguments.

use clap::{Args, Parser, Subcommand, ValueEnum};
use gsync_check::api;
use gsync_check::model::{BranchOrder, MemoryModel, Scheduler, SimtMode};
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  gsync-check semaphore --blocks 3          check every semaphore variant, one table
  gsync-check spin_lock --blocks 3          check one built-in spec (memory model ptx)
  gsync-check semaphore --blocks 4 --memory-model sc   the same under sequential consistency
  gsync-check sense_barrier_no_flip --format json > report.json
  gsync-check check my_lock.gsync --param iters=2 --out cex/
  gsync-check mutex --blocks 3 --iters 0 --scheduler fair   liveness: starvation, livelock
  gsync-check check my_flag.gsync --scheduler blocks=obe,threads=fair   progress models per level
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
    /// Print the source of a built-in spec (the program the checker explores), to read beside its traces.
    #[command(
        after_help = "The line numbers of a counterexample (`33:`) are lines of this text.\n\nExit codes: 0 printed, 2 no built-in spec of that name or lines outside the spec.\n\nExamples:\n  gsync-check show spin_lock\n  gsync-check show ticket_mutex > my_ticket.gsync   a copy to edit and `check`\n  gsync-check show semaphore_check_outside_lock --lines 22-37   the lines a trace cites, numbered"
    )]
    Show {
        /// A built-in spec (file stem, see `list`).
        name: String,
        /// Number the lines, as a counterexample cites them.
        #[arg(short = 'n', long)]
        line_numbers: bool,
        /// Only lines FROM to TO (1-based, inclusive), numbered. Example: --lines 22-37
        #[arg(long, value_name = "FROM-TO", value_parser = line_range)]
        lines: Option<LineRange>,
    },
    /// Check every spec under the paths against the `//! expect` lines of its header (for CI).
    #[command(
        after_help = "Exit codes: 0 every expectation met, 1 some not met, 2 a spec or option error.\n\nExamples:\n  gsync-check verify specs/\n  gsync-check verify specs/ --format sarif > gsync.sarif\n  gsync-check verify specs/ --format junit > gsync-junit.xml"
    )]
    Verify {
        /// Spec files or directories (searched recursively for .gsync files).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        output: VerifyOutputArgs,
    },
    /// Re-execute a saved counterexample (JSON from --out) against its spec.
    #[command(
        after_help = "The spec is a built-in (by name) or a file (its path relative to the counterexample's folder); its content hash, recorded with the counterexample, tells an edited spec from a damaged recording.\n\nExit codes:\n  1 reproduced: the schedule still leads to the recorded violation (also after an edit of the spec, which is noted)\n  0 fixed: the spec changed and the violation no longer happens on this schedule (a recorded step is no longer possible, or the schedule ends without it); `check` tells whether another schedule finds it\n  4 spec changed: the schedule now ends in another kind of violation, or the spec refuses the recorded options\n  5 corrupt: the spec is unchanged but the recording does not replay (the file was edited or damaged)\n  2 usage error: not a counterexample file, spec not found or not parsing\n\nExample:\n  gsync-check replay counterexamples/sense_barrier_no_flip.json"
    )]
    Replay {
        /// A counterexample file written by --out.
        file: PathBuf,
        #[command(flatten)]
        output: ReplayOutputArgs,
    },
    /// Run herd PTX litmus tests: one file, or a directory against expected results; their final conditions, or with --liveness whether they terminate.
    #[command(
        after_help = "Examples:\n  gsync-check litmus ../shared/litmus/PTX/Manual/MP-gpu.litmus\n  gsync-check litmus ../shared/litmus/PTX --expect ../shared/litmus/PTX/expected-safety.csv\n  gsync-check litmus ../shared/litmus/PTX/Manual/XF-Barrier-weak.litmus --liveness   a hang, as a lasso\n  gsync-check litmus ../shared/litmus/PTX --liveness --expect ../shared/litmus/PTX/expected-liveness.csv\n  gsync-check litmus ../shared/litmus/PTX --liveness --scheduler obe --expect ../shared/litmus/PTX/expected-liveness.csv\n\nExit codes: 0 done (no unsound test), 1 some test is unsound, 2 usage or parse error, 3 the test cannot be expressed."
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
        after_help = "Examples:\n  gsync-check bench-checker --families semaphore --max-blocks 6\n  gsync-check bench-checker --families semaphore --memory-model ptx --no-compare --min-blocks 4 --max-blocks 4 --repeat 7\n  gsync-check bench-checker --families mutex --max-blocks 3 --spin"
    )]
    BenchChecker(super::bench::BenchArgs),
}

#[derive(Args, Debug, Clone, Default)]
pub struct CheckArgs {
    /// Number of blocks in the launch [default: 2]
    #[arg(long, value_name = "N", value_parser = at_least_1::<u32>, allow_negative_numbers = true)]
    pub blocks: Option<u32>,

    /// Threads per block [default: 1]
    #[arg(long, value_name = "N", value_parser = at_least_1::<u32>, allow_negative_numbers = true)]
    pub threads_per_block: Option<u32>,

    /// Threads per warp, 1 to 64 [default: 32]
    #[arg(long, value_name = "N", value_parser = at_least_1::<u32>, allow_negative_numbers = true)]
    pub warp_size: Option<u32>,

    /// Override a spec parameter (repeatable, once per name): --param iters=2. Parameters count things or switch them on (0/1): values are non-negative
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
    pub params: Vec<(String, i64)>,

    /// Shorthand for --param iters=N
    #[arg(long, value_name = "N", value_parser = param_value, allow_negative_numbers = true)]
    pub iters: Option<i64>,

    /// Shorthand for --param size=N (semaphore capacity)
    #[arg(long, value_name = "N", value_parser = param_value, allow_negative_numbers = true)]
    pub size: Option<i64>,

    /// Memory model: ptx (scoped PTX model) or sc (sequential consistency). Default: ptx, except sc for a spec using lockstep warps or the lock unit (modelled under sc only)
    #[arg(long, value_name = "MODEL")]
    pub memory_model: Option<MemoryModel>,

    /// Under --memory-model ptx, do not report heterogeneous or data races: see what the racing loads read instead (stale values, lost updates). Refused with --memory-model sc, which has no races to report
    #[arg(long)]
    pub no_races: bool,

    /// SIMT execution: its (Volta+ independent thread scheduling; the default unless the spec's header says `simt: lockstep`) or lockstep (pre-Volta: one instruction per warp, reconvergence at the immediate post-dominator). Example: --simt lockstep --threads-per-block 2
    #[arg(long, value_name = "MODE")]
    pub simt: Option<SimtMode>,

    /// Under --simt lockstep, which side of a divergent branch runs first: then-first (default: the lanes whose condition holds, i.e. those staying in a loop) or else-first. Example: --simt lockstep --branch-order else-first
    #[arg(long, value_name = "ORDER")]
    pub branch_order: Option<BranchOrder>,

    /// Number of lock bits of the shared-memory lock unit (ldslk/stsul), for specs that use it; word address A uses bit A mod N [default: 1024, Fermi]. Example: --lock-bits 2048
    #[arg(long, value_name = "N", value_parser = at_least_1::<u32>, allow_negative_numbers = true)]
    pub lock_bits: Option<u32>,

    /// The liveness question. `deadlock` (default): deadlocks only, no liveness. A progress model looks for livelock and starvation too: fair (weak fairness; alias weak), strong, hsa (only the lowest unfinished thread is guaranteed), obe (a thread that has run once is; others may never start), hsa-obe (both), lobe (obe, and every lower-numbered thread), unfair (none). One model applies between blocks and within a block; `blocks=MODEL,threads=MODEL` sets them apart (a key left out: blocks=obe, threads=fair). Examples: --scheduler fair, --scheduler blocks=obe,threads=fair. See book/src/progress-models.md
    #[arg(long, value_name = "MODEL", default_value = "deadlock")]
    pub scheduler: Scheduler,

    /// At most R blocks resident at once; the others start as resident blocks finish
    #[arg(long, value_name = "R", conflicts_with_all = ["sms", "blocks_per_sm"], value_parser = at_least_1::<u32>)]
    pub resident: Option<u32>,

    /// Number of SMs (with --blocks-per-sm: resident = SMS × B)
    #[arg(long, value_name = "S", requires = "blocks_per_sm", value_parser = at_least_1::<u32>, allow_negative_numbers = true)]
    pub sms: Option<u32>,

    /// Blocks each SM holds at once (with --sms)
    #[arg(long, value_name = "B", requires = "sms", value_parser = at_least_1::<u32>, allow_negative_numbers = true)]
    pub blocks_per_sm: Option<u32>,

    /// Stop with verdict inconclusive (exit 3) after this many states, at least 1 [default: 50000000]
    #[arg(long, value_name = "N", value_parser = at_least_1::<u64>, allow_negative_numbers = true)]
    pub max_states: Option<u64>,

    /// Stop with verdict inconclusive (exit 3) after this many seconds, a positive number (of the whole check, every search and analysis included; for a family, of the whole family, each variant getting an equal share of the time left)
    #[arg(long, value_name = "S", value_parser = positive_seconds, allow_negative_numbers = true)]
    pub max_seconds: Option<f64>,

    /// Stop with verdict inconclusive (exit 3) before the process holds this many MiB (the search, its batches and the analyses after it), at least 1 [default: 8192]
    #[arg(long, value_name = "MIB", value_parser = at_least_1::<u64>, allow_negative_numbers = true)]
    pub max_memory: Option<u64>,

    /// Explorer worker threads, 1 to 1024; verdicts, state counts and traces do not depend on it [default: the number of CPUs available]
    #[arg(long, value_name = "N", value_parser = worker_threads, allow_negative_numbers = true)]
    pub threads: Option<usize>,

    /// Store every state, not one per class of states equal up to renaming interchangeable blocks
    #[arg(long)]
    pub no_symmetry: bool,

    /// Under --memory-model ptx, store who wrote each write even where no step can tell writers apart (more states; for cross-checking)
    #[arg(long)]
    pub no_forget: bool,

    /// Under --memory-model ptx, also explore the failed iterations of a polling loop that read an older write than the latest, and the reads of newer writes by a blind load, one whose value decides nothing (more states; for cross-checking)
    #[arg(long = "no-await")]
    pub no_await: bool,

    /// Under --memory-model ptx, keep a thread's old view of a location even where its next SC fence refreshes it before any use (more states; for cross-checking)
    #[arg(long)]
    pub no_view_refresh: bool,

    /// Under --memory-model ptx, keep the writes of an atomics-only location that no step can read any more (no longer the latest, with the value its compare-and-swaps expect) in the middle of its history (more states; for cross-checking)
    #[arg(long)]
    pub no_drop_dead_writes: bool,

    /// Keep a 63-bit fingerprint per state instead of the state (less memory; --stats states the collision probability)
    #[arg(long)]
    pub hash_compaction: bool,

    /// Under --memory-model ptx, store each state whole instead of keeping each distinct write history once (same search, more memory; for measuring)
    #[arg(long)]
    pub no_tree_compression: bool,

    /// No partial-order reduction at all: every instruction interleaved, every enabled step expanded, stale failed polls included (slower; for cross-checking)
    #[arg(long)]
    pub no_por: bool,

    /// Interleave thread-local instructions too (the ample sets of shared accesses stay on)
    #[arg(long)]
    pub no_fuse_local: bool,

    /// Expand every enabled step, not an ample set of independent ones (fusing of local steps stays on)
    #[arg(long)]
    pub no_ample_sets: bool,

    #[cfg(feature = "dist")]
    #[command(flatten)]
    pub dist: super::dist::DistArgs,
}

/// How a check reports (the top level and `check`).
#[derive(Args, Debug, Clone, Default)]
pub struct OutputArgs {
    /// Output format: text, json or sarif (SARIF 2.1.0, for code-scanning annotations)
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = check_format)]
    pub format: Format,

    /// Write each counterexample as JSON into this directory (for `replay`)
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Draw the first counterexample as an SVG sequence diagram into FILE (one spec only)
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,

    /// Print states/s, memory and the reductions used, with how many states the ample sets reduced (and include timings in JSON; not with SARIF)
    #[arg(long)]
    pub stats: bool,

    /// Colour: auto (on a terminal), always, never
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// How `verify` reports.
#[derive(Args, Debug, Clone, Default)]
pub struct VerifyOutputArgs {
    /// Output format
    #[arg(long, value_enum, default_value_t = VerifyFormat::Text)]
    pub format: VerifyFormat,

    /// Write the counterexample of each expectation that found a violation into this directory, as SPEC.lineN.json (N: the expect line)
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Print states/s and memory per expectation (and include timings in JSON; not with SARIF or JUnit)
    #[arg(long)]
    pub stats: bool,

    /// Colour: auto (on a terminal), always, never
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// How `replay` reports.
#[derive(Args, Debug, Clone, Default)]
pub struct ReplayOutputArgs {
    /// Output format
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,

    /// Draw the counterexample as an SVG sequence diagram into FILE
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,

    /// Colour: auto (on a terminal), always, never
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// The reports of a check.
#[derive(ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    #[default]
    Text,
    Json,
    /// SARIF 2.1.0, for code-scanning annotations
    Sarif,
}

/// The reports of `verify`: a check's, and JUnit's test cases.
#[derive(ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VerifyFormat {
    #[default]
    Text,
    Json,
    /// SARIF 2.1.0, for code-scanning annotations
    Sarif,
    /// JUnit XML, one test case per expectation
    Junit,
}

/// Commands that report as text or JSON only (`replay`, `litmus`, `run`).
#[derive(ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TextOrJson {
    #[default]
    Text,
    Json,
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
    Ok((name.to_string(), param_value(value)?))
}

/// A parameter's value: a non-negative integer, decimal or `0x` hex.
pub fn param_value(value: &str) -> Result<i64, String> {
    let value = value.trim();
    let parsed = match value.strip_prefix("0x") {
        Some(hex) => i64::from_str_radix(hex, 16),
        None => value.parse::<i64>(),
    };
    let v = parsed.map_err(|_| format!("`{value}` is not an integer"))?;
    api::check_param_value(v)?;
    Ok(v)
}

/// A check's `--format`; JUnit, offered by `verify`, is pointed there.
fn check_format(s: &str) -> Result<Format, String> {
    if s == "junit" {
        return Err(
            "JUnit reports expectations as test cases: use it with `gsync-check verify PATH`"
                .into(),
        );
    }
    Format::from_str(s, false).map_err(|_| format!("expected text, json or sarif, found `{s}`"))
}

/// A family's name: barrier, mutex, semaphore.
pub fn family_name(s: &str) -> Result<String, String> {
    if api::FAMILIES.contains(&s) {
        Ok(s.to_string())
    } else {
        Err(format!(
            "unknown family `{s}` (known: {})",
            api::FAMILIES.join(", ")
        ))
    }
}

/// A whole number of at least 1 (launch sizes, limits, repeats).
/// Lines FROM to TO of a text, 1-based and inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineRange {
    pub from: usize,
    pub to: usize,
}

/// Parses `FROM-TO` (or a single line `N`) into a [`LineRange`].
pub fn line_range(s: &str) -> Result<LineRange, String> {
    let (a, b) = s.split_once('-').unwrap_or((s, s));
    let from: usize = at_least_1(a)?;
    let to: usize = at_least_1(b)?;
    if to < from {
        return Err(format!(
            "`{s}` ends before it starts: write FROM-TO with FROM <= TO"
        ));
    }
    Ok(LineRange { from, to })
}

pub fn at_least_1<T>(s: &str) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + From<u8>,
{
    let v: T = s
        .trim()
        .parse()
        .map_err(|_| match s.trim().starts_with('-') {
            true => format!("must be at least 1 (got {s})"),
            false => format!("`{s}` is not a whole number"),
        })?;
    if v < T::from(1) {
        return Err(format!("must be at least 1 (got {s})"));
    }
    Ok(v)
}

/// A time limit: a positive, finite number of seconds.
pub fn positive_seconds(s: &str) -> Result<f64, String> {
    parse_then(s, "a number of seconds", api::check_seconds)
}

/// Explorer worker threads: 1 to [`api::MAX_WORKER_THREADS`].
pub fn worker_threads(s: &str) -> Result<usize, String> {
    parse_then(s, "a number of threads", api::check_worker_threads)
}

/// Parses `s`, then applies the library's rule for the value.
fn parse_then<T: std::str::FromStr + Copy>(
    s: &str,
    what: &str,
    rule: fn(T) -> Result<(), String>,
) -> Result<T, String> {
    let v: T = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not {what}"))?;
    rule(v)?;
    Ok(v)
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
        assert!(parse_param("iters=-1")
            .unwrap_err()
            .contains("non-negative"));
        for bad in ["nan", "inf", "-1", "0", "1e400", "soon"] {
            assert!(positive_seconds(bad).is_err(), "{bad}");
        }
        assert_eq!(positive_seconds("0.5"), Ok(0.5));
        assert!(worker_threads("0").is_err() && worker_threads("100000").is_err());
    }

    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}

//! The command line as a whole: the subcommands and their options
//! (`Cli`, `Command`), over the shared options of `args` and each command
//! family's own.

use super::args::{
    line_range, CheckArgs, LineRange, OutputArgs, ReplayOutputArgs, VerifyLimits, VerifyOutputArgs,
};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  gsync-check semaphore --blocks 3          check every semaphore variant, one table
  gsync-check spin_lock --blocks 3          check one built-in spec (memory model ptx)
  gsync-check semaphore --blocks 4 --memory-model sc   the same under sequential consistency
  gsync-check sense_barrier_no_flip --format json > report.json
  gsync-check check my_lock.gsync --param iters=2 --out cex/
  gsync-check mp_flag_no_fence --suggest-fix   a violation with a checked fix (or why none helps)
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
    /// Check a spec file of your own, or a CUDA kernel as it is launched (`FILE.cu --kernel NAME`).
    #[command(
        after_help = "Examples:\n  gsync-check check my_lock.gsync --blocks 3 --param iters=2\n  gsync-check check lock.cu --kernel spin_lock --grid 2 --block 1 --arg n=1 --arg data=2\n  gsync-check check pc.cu --launch 'producer<<<2, 32>>>(data, flag)' --launch 'consumer<<<2, 32>>>(flag, data, 1)'"
    )]
    Check {
        /// The `.gsync` file, or a `.cu` file with --kernel.
        file: PathBuf,
        #[command(flatten)]
        check: Box<CheckArgs>,
        #[command(flatten)]
        kernel: Box<super::args::KernelArgs>,
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
    /// Check every spec under the paths against the `//! expect` lines of its header, and every `.cu` file whose `//!` header states kernel expectations (for CI).
    #[command(
        after_help = "A `.cu` file's header is its `//!` lines before the first line of code; each `//! expect --kernel NAME [--grid G --block B --arg NAME=V ...]: VERDICT [KIND]` checks that kernel as launched (`--launch K<<<G,B>>>(ARGS)`, repeated and without spaces, kernels launched together), and `//! cuda-include: DIR` / `//! cuda-define: DEF` go to clang.\n\nExit codes: 0 every expectation met, 1 some not met, 2 a spec or option error.\n\nExamples:\n  gsync-check verify specs/\n  gsync-check verify harnesses/heterosync/heterosync_kernels.cu\n  gsync-check verify specs/ --format sarif > gsync.sarif\n  gsync-check verify specs/ --format junit > gsync-junit.xml"
    )]
    Verify {
        /// Spec files, `.cu` files with kernel expectations, or directories (searched recursively for .gsync files and .cu files with a `//!` header).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        limits: VerifyLimits,
        #[command(flatten)]
        output: VerifyOutputArgs,
        #[command(flatten)]
        dist: super::dist_args::DistArgs,
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
        after_help = "Exit codes: 0 completed with every device check passed, 1 hung, refused (violated spec) or a check failed, 2 usage error or no GPU.\n\nExamples:\n  gsync-check run sense_reversing_barrier_fixed --blocks-per-sm 8 --iters 1000\n  gsync-check run heterosync_tree_barrier --blocks-per-sm 32 --force --timeout 3   occupancy deadlock: hung\n  gsync-check relax sense_reversing_barrier_hier -o hier_relaxed.gsync && gsync-check run sense_reversing_barrier_hier --compare hier_relaxed.gsync --blocks-per-sm 1,2,4,8,16   the original against its weakest correct version"
    )]
    Run(super::gpu::RunArgs),
    /// Measure every barrier, mutex and semaphore on the GPU from 1 to the most blocks per SM: CSV, JSON, SVG plots.
    Bench(super::gpu::BenchArgs),
    /// Relax a spec's orders, scopes and fences as far as every `//! expect` line still holds (the weakest correct version): a diff, the relaxed spec, a maximality check.
    #[command(after_help = super::tune::RELAX_HELP)]
    Relax(super::tune::RelaxArgs),
    /// Find the least strengthening of orders, scopes and fences that makes a violated check verify, or say that none helps.
    #[command(after_help = super::tune::REPAIR_HELP)]
    Repair(super::tune::RepairArgs),
    /// Benchmark the checker: states, states/s and memory per family at growing --blocks, with and without reductions (and against SPIN with --spin).
    #[command(
        name = "bench-checker",
        after_help = "Examples:\n  gsync-check bench-checker --families semaphore --max-blocks 6\n  gsync-check bench-checker --families semaphore --memory-model ptx --no-compare --min-blocks 4 --max-blocks 4 --repeat 7\n  gsync-check bench-checker --families mutex --max-blocks 3 --spin"
    )]
    BenchChecker(super::bench_checker::BenchArgs),
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
            .map_err(|e| {
                // The error and clap's suggestion (`tip: a similar argument
                // exists: '--blocks'`), without the usage block.
                let text = e.to_string();
                let mut lines = text.lines();
                let first = lines.next().unwrap_or("").to_string();
                match lines.map(str::trim).find(|l| l.starts_with("tip:")) {
                    Some(tip) => format!("{first} ({tip})"),
                    None => first,
                }
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}

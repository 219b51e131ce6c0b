//! `gsync-check relax` and `gsync-check repair`: the options, and the
//! result printed as text (the changes, a diff in the spec's own lines,
//! `help:` lines) or JSON, with the tuned spec written to a file.

use super::args::{at_least_1, positive_seconds, worker_threads, CheckOptions, TextOrJson};
use super::gpu::load_spec;
use super::to_json;
use crate::api::Error;
use crate::tune::{self, diff, Budget, Status, Tuned};
use clap::Args;
use std::path::PathBuf;

pub(super) const RELAX_HELP: &str = "\
Relaxes every atomic, load, store and fence of the spec (order: sc fence -> acq_rel -> acquire/release -> relaxed -> plain, a fence removed, `volatile` dropped; scope: sys -> gpu -> cta) as far as every `//! expect` line of its header still holds (safety at its launch, liveness under its progress model). Each point's weakest level is tried first, then one step at a time, pass after pass until a pass keeps nothing: that last pass tried every single further step, so the result is reported maximal only when each of them was checked and refused. The result is re-checked at one block more than the expectations name.

A harness that imports CUDA (`//! cuda: FILE.cu`) is relaxed in its CUDA too: each `atomicXxx[_block|_system]` call's scope, each `__threadfence[_block|_system]()` (narrowed, made an inline PTX `fence.acq_rel`, or removed) and each written libcu++ `memory_order_*` argument, in the device functions the harness reaches. The CUDA files are edited in memory; with --output the changed ones are written beside the output harness (STEM.FILE.cu), which names them.

Exit codes: 0 done, 1 the result fails at the larger launch, 2 usage or spec error (or the spec does not meet its expectations), 3 a limit left the search (or some steps) undecided.

Examples:
  gsync-check relax mp_flag
  gsync-check relax sense_reversing_barrier_hier_ra --output hier_relaxed.gsync
  gsync-check relax my_lock.gsync --max-seconds 600 --format json > relax.json
  gsync-check run hier_relaxed.gsync --blocks-per-sm 8   the relaxed spec is an ordinary spec";

pub(super) const REPAIR_HELP: &str = "\
Looks for the least strengthening (an access's order or scope raised, a variable made volatile, a fence inserted) under which the check, with the options given, verifies. The spec is first saturated (everything at its strongest, a system-scope SC fence before every statement): if that is still violated, no ordering change helps (a deadlock by design, an occupancy deadlock) and repair says so. Otherwise the saturated spec is relaxed back towards the original until nothing more can be undone.

Exit codes: 0 a fix was found (or the check already verifies), 1 no ordering change helps (or the fix fails at one block more), 2 usage or spec error, 3 a limit left the search undecided.

Examples:
  gsync-check repair mp_flag_no_fence
  gsync-check repair tree_barrier_block_atomics --output fixed.gsync
  gsync-check repair my_flag.gsync --blocks 3 --param iters=2";

/// What `relax` and `repair` print and write.
#[derive(Args, Debug, Clone)]
pub struct TuneOutput {
    /// Write the tuned spec to this file (a spec like any other: check, run or bench it)
    #[arg(short = 'o', long, value_name = "FILE.gsync")]
    pub output: Option<PathBuf>,

    /// Output format: text (changes, a unified diff, help lines) or json
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,

    /// Seconds for each re-check at one block more than the expectations name; 0: no re-check
    #[arg(long, value_name = "S", default_value_t = 60.0)]
    pub scale_seconds: f64,

    /// No progress lines on stderr
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct RelaxArgs {
    /// A built-in spec (see `list`) or a `.gsync` file
    pub spec: String,

    /// Stop the whole search after this many seconds: the result so far meets the expectations, the verdict is inconclusive (exit 3)
    #[arg(long, value_name = "S", value_parser = positive_seconds, allow_negative_numbers = true)]
    pub max_seconds: Option<f64>,

    /// Stop each check after this many states (a step whose check stops is not taken, and the result is not shown maximal) [default: 50000000]
    #[arg(long, value_name = "N", value_parser = at_least_1::<u64>, allow_negative_numbers = true)]
    pub max_states: Option<u64>,

    /// Stop each check before the process holds this many MiB [default: 8192]
    #[arg(long, value_name = "MIB", value_parser = at_least_1::<u64>, allow_negative_numbers = true)]
    pub max_memory: Option<u64>,

    /// Explorer worker threads of each check [default: the CPUs available]
    #[arg(long, value_name = "N", value_parser = worker_threads, allow_negative_numbers = true)]
    pub threads: Option<usize>,

    #[command(flatten)]
    pub output: TuneOutput,
}

#[derive(Args, Debug)]
pub struct RepairArgs {
    /// A built-in spec (see `list`) or a `.gsync` file
    pub spec: String,

    #[command(flatten)]
    pub check: CheckOptions,

    #[command(flatten)]
    pub output: TuneOutput,
}

fn budget(
    max_seconds: Option<f64>,
    max_states: Option<u64>,
    mb: Option<u64>,
    threads: Option<usize>,
) -> Budget {
    Budget {
        deadline: crate::explore::deadline_in(max_seconds),
        max_states,
        max_memory_mb: mb,
        threads,
    }
}

pub(super) fn relax(args: &RelaxArgs) -> Result<i32, Error> {
    let spec = load_spec(&args.spec)?;
    let options = tune::RelaxOptions {
        budget: budget(
            args.max_seconds,
            args.max_states,
            args.max_memory,
            args.threads,
        ),
        scale_seconds: (args.output.scale_seconds > 0.0).then_some(args.output.scale_seconds),
        progress: !args.output.quiet,
    };
    let tuned = tune::relax(&spec, &options)?;
    finish(&tuned, &args.output, "relax")
}

pub(super) fn repair(args: &RepairArgs) -> Result<i32, Error> {
    let spec = load_spec(&args.spec)?;
    let c = &args.check;
    let options = tune::RepairOptions {
        budget: budget(c.max_seconds, c.max_states, c.max_memory, c.threads),
        scale_seconds: (args.output.scale_seconds > 0.0).then_some(args.output.scale_seconds),
        progress: !args.output.quiet,
    };
    let tuned = tune::repair(&spec, &c.config(None), &options)?;
    finish(&tuned, &args.output, "repair")
}

/// Writes the tuned spec (where asked and changed), prints the result.
fn finish(tuned: &Tuned, output: &TuneOutput, tool: &str) -> Result<i32, Error> {
    let written = match &output.output {
        Some(path) => tune::output::write(tuned, path)?,
        None => Vec::new(),
    };
    match output.format {
        TextOrJson::Json => println!("{}", to_json(tuned)),
        TextOrJson::Text => print!("{}", render(tuned, output, tool, &written)),
    }
    Ok(tuned.exit_code())
}

fn render(t: &Tuned, output: &TuneOutput, tool: &str, written: &[PathBuf]) -> String {
    let mut out = format!(
        "{tool} {}: {} points, {} checks in {:.1} s\n",
        t.spec, t.points, t.checks, t.seconds
    );
    if let Some(v) = &t.violation {
        out += &format!("the check gives: {v}\n");
    }
    for c in &t.changes {
        out += &format!("  {}: {} -> {}\n", c.at(), c.from, c.to);
    }
    out += &counts_line(t);
    out += &maximality_line(t, tool);
    for s in &t.scale {
        let verdict = match s.agree {
            Some(true) => "as expected",
            Some(false) => "MISMATCH",
            None => "undecided at the limits",
        };
        let whose = match s.line {
            0 => "the check's options".to_string(),
            line => format!("line {line}'s options"),
        };
        out += &format!(
            "re-check at --blocks {} ({whose}): {} (expected {}): {verdict}\n",
            s.blocks, s.got, s.expected
        );
    }
    for n in &t.notes {
        out += &format!("note: {n}\n");
    }
    let new_name = output
        .output
        .as_ref()
        .map_or_else(|| format!("{tool}ed"), |p| p.display().to_string());
    out += &diff::unified(&t.original, &t.text, &t.origin, &new_name);
    let copies = output
        .output
        .as_ref()
        .map(|p| tune::output::cuda_copies(t, p));
    for (k, f) in t.cuda.iter().enumerate() {
        let copy = copies.as_ref().and_then(|c| c[k].as_ref());
        let new_name = copy.map_or_else(|| format!("{tool}ed"), |p| p.display().to_string());
        out += &diff::unified(&f.original, &f.text, &f.path, &new_name);
    }
    if tool == "repair" && t.status == Status::Done {
        out.extend(t.changes.iter().map(|c| format!("help: {}\n", c.help())));
    }
    out += &match &t.status {
        Status::Done => format!("{tool}: done\n"),
        Status::NothingToRepair => "repair: the check already verifies: nothing to repair\n".into(),
        Status::NoFix(why) => format!("repair: no fix: {why}\n"),
        Status::Refuted(why) => format!("{tool}: the result does not scale: {why}\n"),
        Status::Inconclusive(why) => format!("{tool}: inconclusive: {why}\n"),
    };
    if !t.changes.is_empty() {
        out.extend(written.iter().map(|p| format!("wrote {}\n", p.display())));
    }
    out
}

fn counts_line(t: &Tuned) -> String {
    let c = &t.counts;
    match (&t.status, t.changes.is_empty()) {
        (Status::NoFix(_) | Status::NothingToRepair, _) => return String::new(),
        (_, true) => return "no change\n".into(),
        _ => {}
    }
    format!(
        "orders changed: {}, volatile: {}, fences removed: {}, inserted: {}, changed: {}, scopes narrowed: {}, widened: {}\n",
        c.orders, c.volatile, c.fences_removed, c.fences_inserted, c.fences_changed, c.scopes_narrowed, c.scopes_widened
    )
}

fn maximality_line(t: &Tuned, tool: &str) -> String {
    match (&t.status, t.maximal) {
        (Status::NothingToRepair | Status::NoFix(_), _) => String::new(),
        (_, true) if tool == "repair" => format!(
            "minimal: each of the {} single steps back towards the original fails the check (checked)\n",
            t.refusals.len()
        ),
        (_, true) => format!(
            "maximal: each of the {} single steps further breaks an expectation (checked)\n",
            t.refusals.len()
        ),
        (_, false) => "local: not every single further step was decided\n".into(),
    }
}

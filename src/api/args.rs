//! The options of a check as a command line gives them, parsed once
//! (clap) into typed values and turned into a [`CheckConfig`]: the
//! command-line tool and the book's cells (`web/`) read the same options
//! the same way.

use super::{check_param_value, check_seconds, check_worker_threads};
use super::{CheckConfig, Search, Semantics};
use crate::check::Hunt;
use crate::explore::Limits;
use crate::ir::Launch;
use crate::model::{BranchOrder, MemoryModel, Scheduler, SimtMode};
use crate::reduce::Reductions;
use clap::Args;

#[derive(Args, Debug, Clone, Default)]
pub struct CheckOptions {
    /// Number of blocks in the launch [default: 2] (alias: --grid)
    #[arg(long, alias = "grid", value_name = "N", value_parser = at_least_1::<u32>, allow_negative_numbers = true)]
    pub blocks: Option<u32>,

    /// Threads per block [default: 1] (alias: --block)
    #[arg(long, alias = "block", value_name = "N", value_parser = at_least_1::<u32>, allow_negative_numbers = true)]
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

    /// The liveness question. `deadlock` (default): deadlocks only, no liveness. A progress model looks for livelock and starvation too: fair (weak fairness; alias weak), strong, hsa (only the lowest-numbered thread that can still run is guaranteed), obe (a thread that has run once is; others may never start), hsa-obe (both), lobe (obe, and every lower-numbered thread), unfair (none). One model applies between blocks and within a block; `blocks=MODEL,threads=MODEL` sets them apart (a key left out: blocks=obe, threads=fair). Examples: --scheduler fair, --scheduler blocks=obe,threads=fair. See book/src/progress-models.md
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

    /// Stop with verdict inconclusive (exit 3) before the process holds this many MiB (the search, its batches and the analyses after it; the heap is counted within 256 KiB per thread), at least 1 [default: 8192]
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

    /// Under --memory-model ptx, merge repeated writes only once per step, as before (more states; for cross-checking)
    #[arg(long)]
    pub no_canonical_fixpoint: bool,

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

    /// Decide deadlocks only from the whole state graph: do not stop at the first stuck state (no step enabled, harness not finished) the search reaches. Same verdicts, later; the trace may differ (for cross-checking)
    #[arg(long)]
    pub no_early_deadlock: bool,

    /// Hunt for bugs instead of proving their absence, for launches too large to search exhaustively: random walks over the threads (bounded by --walks and --walk-depth, and by --max-seconds and --max-states, which counts steps), reporting the first safety violation or deadlock as a counterexample, shortened. A hunt that finds nothing is inconclusive (exit 3): it proves nothing. Example: gsync-check check my_barrier.gsync --blocks 5 --hunt --max-seconds 60
    #[arg(long)]
    pub hunt: bool,

    /// With --hunt: the seed of the walks (the same seed finds the same counterexample, whatever --threads) [default: 0]
    #[arg(long, value_name = "N", requires = "hunt")]
    pub seed: Option<u64>,

    /// With --hunt: the most walks [default: 100000]
    #[arg(long, value_name = "N", requires = "hunt", value_parser = at_least_1::<u64>, allow_negative_numbers = true)]
    pub walks: Option<u64>,

    /// With --hunt: the most steps of one walk [default: 5000]
    #[arg(long, value_name = "N", requires = "hunt", value_parser = at_least_1::<u32>, allow_negative_numbers = true)]
    pub walk_depth: Option<u32>,
}

impl CheckOptions {
    /// The check configuration these options ask for; `declared` filters
    /// the parameter overrides to those a spec has (for family runs).
    pub fn config(&self, declared: Option<&[String]>) -> CheckConfig {
        let defaults = Launch::default();
        let mut params = self.params.clone();
        if let Some(i) = self.iters {
            params.push(("iters".into(), i));
        }
        if let Some(s) = self.size {
            params.push(("size".into(), s));
        }
        if let Some(declared) = declared {
            params.retain(|(n, _)| declared.contains(n));
        }
        let base = CheckConfig::default();
        CheckConfig {
            launch: Launch {
                blocks: self.blocks.unwrap_or(defaults.blocks),
                threads_per_block: self.threads_per_block.unwrap_or(defaults.threads_per_block),
                warp_size: self.warp_size.unwrap_or(defaults.warp_size),
            },
            params,
            semantics: Semantics {
                memory_model: self.memory_model,
                races: !self.no_races,
                simt: self.simt,
                branch_order: self.branch_order,
                lock_bits: self.lock_bits,
                fuse_local_steps: !(self.no_fuse_local || self.no_por),
                resident: self.resident.or(match (self.sms, self.blocks_per_sm) {
                    (Some(s), Some(b)) => Some(s.saturating_mul(b)),
                    _ => None,
                }),
                refresh_views: !self.no_view_refresh,
                drop_dead_writes: !self.no_drop_dead_writes,
                canonical_fixpoint: !self.no_canonical_fixpoint,
                ..base.semantics
            },
            scheduler: self.scheduler,
            reductions: Reductions {
                symmetry: !self.no_symmetry,
                ample_sets: !(self.no_ample_sets || self.no_por),
                forget: !self.no_forget,
                awaits: !(self.no_await || self.no_por),
            },
            search: Search {
                threads: self.threads.unwrap_or_else(available_cpus),
                // A spinner on a terminal, lines in a log: a long run in
                // CI or behind `2> err` says how it goes too.
                progress: true,
                hash_compaction: self.hash_compaction,
                tree_compression: !self.no_tree_compression,
                early_deadlock: !self.no_early_deadlock,
                hunt: self.hunt.then(|| Hunt {
                    seed: self.seed.unwrap_or(0),
                    walks: self.walks.unwrap_or(Hunt::DEFAULT_WALKS),
                    depth: self.walk_depth.unwrap_or(Hunt::DEFAULT_DEPTH),
                }),
            },
            limits: Limits {
                max_states: self.max_states.or(base.limits.max_states),
                max_seconds: self.max_seconds,
                max_memory_mb: self.max_memory.or(base.limits.max_memory_mb),
                deadline: None,
            },
        }
    }
}

/// The CPUs this process may use (its affinity mask and cgroup quota):
/// the search's result does not depend on how many threads run it.
fn available_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
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
    let v = int_literal(value).ok_or_else(|| format!("`{value}` is not an integer"))?;
    check_param_value(v)?;
    Ok(v)
}

/// An integer as the command line and launch expressions spell one:
/// decimal or `0x` hex, optionally negative (`-0x10`). The one parser of
/// every integer a user types, so `--param`, `--arg` and a `--launch`
/// argument accept the same spellings.
pub(crate) fn int_literal(text: &str) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text),
    };
    let magnitude = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) if hex.starts_with(|c: char| c.is_ascii_hexdigit()) => {
            i64::from_str_radix(hex, 16).ok()?
        }
        Some(_) => return None,
        None if digits.starts_with(|c: char| c.is_ascii_digit()) => digits.parse().ok()?,
        None => return None,
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// A whole number of at least 1 (launch sizes, limits, repeats).
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
    parse_then(s, "a number of seconds", check_seconds)
}

/// Explorer worker threads: 1 to [`MAX_WORKER_THREADS`](super::MAX_WORKER_THREADS).
pub fn worker_threads(s: &str) -> Result<usize, String> {
    parse_then(s, "a number of threads", check_worker_threads)
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
    fn integer_literals_are_spelled_one_way_everywhere() {
        for (text, value) in [
            ("12", 12),
            ("-12", -12),
            ("0x1f", 31),
            ("0X1F", 31),
            ("-0x10", -16),
        ] {
            assert_eq!(int_literal(text), Some(value), "{text}");
        }
        for text in [
            "",
            "-",
            "0x",
            "x1",
            "1x",
            "+3",
            "--1",
            "0x-1",
            "1_000",
            "99999999999999999999",
        ] {
            assert_eq!(int_literal(text), None, "{text}");
        }
    }

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
}

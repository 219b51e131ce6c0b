//! The checker's benchmark (`gsync-check bench-checker`, `cargo bench
//! --bench checker`): for each family, every variant at a growing number of
//! blocks, with and without the reductions, side by side in one run:
//! states, search time, states per second and peak memory; and how far each
//! family scales within a time budget. [`spin`] compares with SPIN on the
//! same mutexes.

pub mod spin;

use crate::api::{self, CheckConfig, SpecSource};
use crate::model::MemoryModel;
use crate::report::{Report, Verdict};
use std::fmt::Write;
use std::time::Instant;

/// What to measure.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    pub families: Vec<String>,
    /// Block counts to try, ascending; a mode stops growing at its first
    /// row that does not finish within `max_seconds`.
    pub blocks: Vec<u32>,
    /// Budget of one family row (all its variants), in seconds.
    pub max_seconds: f64,
    pub threads: usize,
    /// Also run every row without reductions.
    pub compare: bool,
    /// Memory model of the measured runs (`sc` unless asked: the
    /// published scaling tables measure the interleavings alone).
    pub memory_model: MemoryModel,
    /// Also run every complete reduced row with this many explorer threads,
    /// side by side, for the parallel speed-up.
    pub speedup_threads: Option<usize>,
    /// Runs of each row; the one reported is the median by search time
    /// (a short search's time varies from run to run far more than a long
    /// one's: a tenth of a second is a few scheduler ticks).
    pub repeat: usize,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            families: api::FAMILIES.iter().map(|f| f.to_string()).collect(),
            blocks: (2..=8).collect(),
            max_seconds: 60.0,
            threads: 1,
            compare: true,
            memory_model: MemoryModel::Sc,
            speedup_threads: None,
            repeat: 1,
        }
    }
}

/// One family at one launch, with or without reductions: all variants.
#[derive(Clone, Debug)]
pub struct Row {
    pub family: String,
    pub blocks: u32,
    pub reduced: bool,
    /// Explorer threads.
    pub threads: usize,
    pub states: u64,
    pub transitions: u64,
    /// Search time summed over the variants.
    pub explore_seconds: f64,
    /// Whole run (parse, search, analyses) over the variants.
    pub seconds: f64,
    /// CPU time of the process over the whole run, all threads: on a
    /// loaded machine `states / cpu_seconds` of a one-thread run is still
    /// close to what one idle core does.
    pub cpu_seconds: f64,
    /// Largest explorer memory of one variant.
    pub peak_store_bytes: u64,
    /// Peak resident memory during this row (process-wide, reset per row
    /// where Linux allows it).
    pub peak_rss_bytes: Option<u64>,
    /// Every variant finished within the budget.
    pub complete: bool,
    /// `spec: verdict` per variant.
    pub verdicts: Vec<(String, Verdict)>,
}

impl Row {
    pub fn states_per_second(&self) -> f64 {
        self.states as f64 / self.explore_seconds.max(1e-9)
    }
}

/// The built-in specs of a family.
pub fn family_members(family: &str) -> Vec<SpecSource> {
    api::builtins()
        .filter(|s| {
            api::parse(s)
                .ok()
                .is_some_and(|f| f.header.family.as_deref() == Some(family))
        })
        .collect()
}

/// [`run_row`] `opts.repeat` times: the run with the median search time
/// (with an even count, the slower of the middle two). Every run explores
/// the same states; a row whose runs disagree on states or verdicts is
/// reported as the first run, marked incomplete, rather than hidden.
pub fn measure_row(family: &str, blocks: u32, reduced: bool, opts: &BenchOptions) -> Row {
    let first = run_row(family, blocks, reduced, opts);
    if opts.repeat <= 1 || !first.complete {
        return first;
    }
    let mut runs = vec![first];
    for _ in 1..opts.repeat {
        let again = run_row(family, blocks, reduced, opts);
        if !again.complete || again.states != runs[0].states || again.verdicts != runs[0].verdicts {
            runs[0].complete = false;
            return runs.swap_remove(0);
        }
        runs.push(again);
    }
    runs.sort_by(|a, b| a.explore_seconds.total_cmp(&b.explore_seconds));
    runs.swap_remove(runs.len() / 2)
}

/// Checks every variant of `family` at `blocks`; stops early (incomplete)
/// once the budget is spent.
pub fn run_row(family: &str, blocks: u32, reduced: bool, opts: &BenchOptions) -> Row {
    reset_peak_rss();
    let start = Instant::now();
    let cpu_start = process_cpu_seconds();
    let mut row = Row {
        family: family.to_string(),
        blocks,
        reduced,
        threads: opts.threads,
        states: 0,
        transitions: 0,
        explore_seconds: 0.0,
        seconds: 0.0,
        cpu_seconds: 0.0,
        peak_store_bytes: 0,
        peak_rss_bytes: None,
        complete: true,
        verdicts: Vec::new(),
    };
    for spec in family_members(family) {
        let left = opts.max_seconds - start.elapsed().as_secs_f64();
        if left <= 0.0 {
            row.complete = false;
            break;
        }
        let mut config = CheckConfig::default();
        config.launch.blocks = blocks;
        config.reductions.symmetry = reduced;
        config.reductions.ample_sets = reduced;
        config.search.threads = opts.threads;
        config.limits.max_seconds = Some(left);
        config.semantics.memory_model = Some(opts.memory_model);
        let Ok(report) = api::check_spec(&spec, &config) else {
            continue;
        };
        add(&mut row, &report);
    }
    row.seconds = start.elapsed().as_secs_f64();
    row.cpu_seconds = process_cpu_seconds() - cpu_start;
    row.peak_rss_bytes = crate::explore::peak_rss_bytes();
    row
}

fn add(row: &mut Row, report: &Report) {
    let s = &report.stats;
    row.states += s.states;
    row.transitions += s.transitions;
    if let Some(m) = &s.measured {
        row.explore_seconds += m.explore_seconds;
        row.peak_store_bytes = row.peak_store_bytes.max(m.peak_store_bytes);
    }
    row.complete &= report.verdict != Verdict::Inconclusive;
    row.verdicts.push((report.spec.clone(), report.verdict));
}

/// CPU seconds used by this process so far (all threads).
fn process_cpu_seconds() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` only writes the timespec it is given.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) } == 0;
    match ok {
        true => t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9,
        false => 0.0,
    }
}

/// Lets `VmHWM` measure from now on (Linux: writing 5 to `clear_refs`).
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Runs the benchmark, printing each row as it is measured; returns the rows.
pub fn run(opts: &BenchOptions, out: &mut dyn FnMut(&str)) -> Vec<Row> {
    out(&header());
    let mut rows = Vec::new();
    for family in &opts.families {
        let modes: &[bool] = if opts.compare {
            &[true, false]
        } else {
            &[true]
        };
        let mut growing = vec![true; modes.len()];
        for &blocks in &opts.blocks {
            for (m, &reduced) in modes.iter().enumerate() {
                if !growing[m] {
                    continue;
                }
                let row = measure_row(family, blocks, reduced, opts);
                growing[m] = row.complete;
                out(&format_row(&row));
                let again = opts.speedup_threads.filter(|_| reduced && row.complete);
                rows.push(row);
                if let Some(threads) = again {
                    let more = BenchOptions {
                        threads,
                        ..opts.clone()
                    };
                    let row = measure_row(family, blocks, reduced, &more);
                    out(&format_row(&row));
                    rows.push(row);
                }
            }
            if growing.iter().all(|g| !g) {
                break;
            }
        }
    }
    out(&summary(&rows, opts));
    rows
}

pub fn header() -> String {
    format!(
        "{:<10} {:>6} {:<10} {:>11} {:>9} {:>9} {:>9} {:>12} {:>10} {:>10}  {}",
        "family",
        "blocks",
        "reductions",
        "states",
        "search s",
        "total s",
        "cpu s",
        "states/s",
        "store MiB",
        "RSS MiB",
        "verdicts"
    )
}

fn mib(b: u64) -> f64 {
    b as f64 / (1024.0 * 1024.0)
}

pub fn format_row(r: &Row) -> String {
    let verdicts = r
        .verdicts
        .iter()
        .map(|(_, v)| match v {
            Verdict::Verified => 'V',
            Verdict::Violated => 'X',
            Verdict::Inconclusive => '?',
        })
        .collect::<String>();
    format!(
        "{:<10} {:>6} {:<10} {:>11} {:>9.3} {:>9.3} {:>9.3} {:>12.0} {:>10.1} {:>10.1}  {}{}{}",
        r.family,
        r.blocks,
        if r.reduced { "reduced" } else { "none" },
        r.states,
        r.explore_seconds,
        r.seconds,
        r.cpu_seconds,
        r.states_per_second(),
        mib(r.peak_store_bytes),
        r.peak_rss_bytes.map_or(0.0, mib),
        verdicts,
        if r.complete { "" } else { "  (budget spent)" },
        if r.threads > 1 {
            format!("  ({} threads)", r.threads)
        } else {
            String::new()
        }
    )
}

/// How far each family got within the budget, and the reduction factor
/// where both modes finished.
pub fn summary(rows: &[Row], opts: &BenchOptions) -> String {
    let mut s = format!(
        "\nwithin {:.0} s per family run (V verified, X violated, ? out of budget):\n",
        opts.max_seconds
    );
    for family in &opts.families {
        let best = |reduced: bool| {
            rows.iter()
                .filter(|r| &r.family == family && r.reduced == reduced && r.complete)
                .map(|r| r.blocks)
                .max()
        };
        let show = |b: Option<u32>| b.map_or("none".to_string(), |b| format!("{b} blocks"));
        let _ = write!(
            s,
            "  {family:<10} with symmetry and ample sets: {}",
            show(best(true))
        );
        if opts.compare {
            let _ = write!(s, ", without: {}", show(best(false)));
        }
        s.push('\n');
        let base = |r: &&Row| &r.family == family && r.threads == opts.threads;
        for r in rows.iter().filter(base).filter(|r| r.reduced) {
            let full = rows
                .iter()
                .filter(base)
                .find(|f| !f.reduced && f.blocks == r.blocks);
            if let Some(f) = full.filter(|f| f.complete && r.complete) {
                let same = f.verdicts == r.verdicts;
                let _ = writeln!(
                    s,
                    "    {} blocks: {:.1}x fewer states, {:.1}x faster, verdicts {}",
                    r.blocks,
                    f.states as f64 / r.states.max(1) as f64,
                    f.seconds / r.seconds.max(1e-9),
                    if same { "identical" } else { "DIFFER" }
                );
            }
            let more = rows.iter().find(|m| {
                &m.family == family
                    && m.reduced
                    && m.blocks == r.blocks
                    && Some(m.threads) == opts.speedup_threads
            });
            if let Some(m) = more.filter(|m| m.complete) {
                let same = m.states == r.states && m.verdicts == r.verdicts;
                let _ = writeln!(
                    s,
                    "    {} blocks: {} threads search {:.2}x faster than {} ({:.3} s vs {:.3} s), states and verdicts {}",
                    r.blocks,
                    m.threads,
                    r.explore_seconds / m.explore_seconds.max(1e-9),
                    r.threads,
                    m.explore_seconds,
                    r.explore_seconds,
                    if same { "identical" } else { "DIFFER" }
                );
            }
        }
    }
    s
}

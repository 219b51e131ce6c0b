//! Text rendering of reports: the summary, who waits on what, and the
//! counterexample as a table with one column per thread.

#[cfg(not(feature = "terminal"))]
use super::plain::Colorize;
use crate::ir::Launch;
use crate::model::simt::lane_list;
use crate::report::{
    FixStatus, Limit, Report, RunConfig, Step, SuggestedFix, Trace, Verdict, ViolationReport,
};
#[cfg(feature = "terminal")]
use colored::Colorize;
use std::fmt::Write;

/// Width of one thread column in a trace table.
pub(super) const COLUMN: usize = 38;
/// Above this many columns a trace is printed as one line per step instead.
const MAX_COLUMNS: usize = 4;

/// The human summary of one report. Colour follows `colored`'s global switch.
pub fn render_report(report: &Report, show_stats: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} {}",
        report.spec.bold(),
        settings(&report.config).dimmed()
    );
    let stats = &report.stats;
    let seconds = stats
        .measured
        .as_ref()
        .map(|m| format!(", {:.2} s", m.seconds))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "verdict: {}  ({} states, {} transitions, depth {}{seconds})",
        verdict_colored(report.verdict),
        stats.states,
        stats.transitions,
        stats.max_depth
    );
    if let Some(limit) = report.limit {
        let _ = writeln!(out, "  {}", limit_text(limit, &report.config));
    }
    if show_stats {
        let _ = writeln!(out, "{}", render_stats(report));
    }
    for v in &report.violations {
        render_violation(&mut out, v, &ThreadNames::of(&report.config));
    }
    match &report.fix {
        Some(fix) => render_fix(&mut out, fix),
        // A race's hint says what the accesses need in general; only the
        // search can tell what cures this spec (a spec's text, not a kernel).
        None if report.violations.iter().any(|v| v.property == "race")
            && !report.source.ends_with(".cu") =>
        {
            let _ = writeln!(
                out,
                "\n{} the hint above is not checked: `--suggest-fix` searches for a change of orders, scopes or fences under which this check verifies",
                "note:".bold()
            );
        }
        None => {}
    }
    out
}

/// The checked fix of `check --suggest-fix`: help lines and the diff, or
/// why there is none.
fn render_fix(out: &mut String, fix: &SuggestedFix) {
    match fix.status {
        FixStatus::Found => {
            let minimal = if fix.minimal {
                "; minimal: undoing any part of it fails the check"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "\n{} {} ({}){minimal}",
                "fix:".green().bold(),
                fix.why,
                search_figures(fix)
            );
            out.push_str(&fix.diff);
            for h in &fix.help {
                let _ = writeln!(out, "{} {h}", "help:".green().bold());
            }
            if let Some(c) = &fix.caveat {
                let _ = writeln!(out, "{} {c}", "warning:".yellow().bold());
            }
        }
        FixStatus::None | FixStatus::Inconclusive => {
            let _ = writeln!(
                out,
                "\n{} {} ({})",
                "fix:".bold(),
                fix.why,
                search_figures(fix)
            );
        }
    }
}

/// `22 checks` (`, 0.1 s` with `--stats`).
fn search_figures(fix: &SuggestedFix) -> String {
    let s = fix
        .seconds
        .map(|s| format!(", {s:.1} s"))
        .unwrap_or_default();
    format!("{} check{}{s}", fix.checks, plural(fix.checks as u32))
}

/// Why an inconclusive run stopped, in the words of the option that set
/// the limit and with its value, so that the user knows what to raise.
pub fn limit_text(limit: Limit, config: &RunConfig) -> String {
    let limits = &config.limits;
    let value = match limit {
        Limit::MaxStates => limits.max_states.map(|n| n.to_string()),
        Limit::MaxSeconds => limits.max_seconds.map(|s| s.to_string()),
        Limit::MaxMemory => limits.max_memory_mb.map(|mb| format!("{mb} (MiB)")),
        Limit::Interrupted => {
            return "interrupted (Ctrl-C or SIGTERM) before the answer was known: the figures are the search's so far".into();
        }
        Limit::Walks => {
            let hunt = config.hunt.unwrap_or_default();
            return format!(
                "no violation in {} random walks of at most {} steps (--seed {}): a bug hunt that finds nothing proves nothing; check without --hunt for a verdict",
                hunt.walks, hunt.depth, hunt.seed
            );
        }
    };
    let value = value.map(|v| format!(" {v}")).unwrap_or_default();
    format!("stopped by {limit}{value} before the answer was known; raise it (--max-states, --max-seconds, --max-memory) or shrink the launch")
}

/// `(2 blocks × 1 thread, warp 32, memory ptx, iters=1)`: the options in
/// force.
fn settings(c: &RunConfig) -> String {
    let params: Vec<String> = c.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!(
        "({}, warp {}, memory {}{}{}{})",
        launches_text(c),
        c.launch.warp_size,
        c.memory_model,
        simt_settings(c),
        if params.is_empty() { "" } else { ", " },
        params.join(", ")
    )
}

/// `2 blocks × 1 thread`, or the launches of several kernels launched
/// together: `producer<<<2,1>>> + consumer<<<2,1>>>`.
pub fn launches_text(c: &RunConfig) -> String {
    if c.launches.is_empty() {
        return launch_text(&c.launch);
    }
    let calls: Vec<String> = c
        .launches
        .iter()
        .map(|p| {
            format!(
                "{}<<<{},{}>>>",
                p.kernel, p.blocks, c.launch.threads_per_block
            )
        })
        .collect();
    calls.join(" + ")
}

/// `2 blocks × 1 thread`.
pub fn launch_text(l: &Launch) -> String {
    format!(
        "{} block{} × {} thread{}",
        l.blocks,
        plural(l.blocks),
        l.threads_per_block,
        plural(l.threads_per_block)
    )
}

/// How a trace's threads are named: blocks of `threads_per_block`
/// threads, each of the kernel among `launches` whose blocks include it
/// (several kernels launched together).
#[derive(Clone, Copy)]
pub struct ThreadNames<'a> {
    pub threads_per_block: u32,
    pub launches: &'a [crate::ir::LaunchPart],
}

impl ThreadNames<'_> {
    /// The names a report's configuration gives its threads.
    pub fn of(c: &RunConfig) -> ThreadNames<'_> {
        ThreadNames {
            threads_per_block: c.launch.threads_per_block,
            launches: &c.launches,
        }
    }

    /// Threads numbered in blocks of `tpb`, one launch.
    pub fn blocks_of(tpb: u32) -> ThreadNames<'static> {
        ThreadNames {
            threads_per_block: tpb,
            launches: &[],
        }
    }

    /// `block 1` (one thread per block) or `b1 t0`; `consumer block 1` or
    /// `consumer b1 t0` for a block of one of several kernels, numbered in
    /// its own grid.
    pub(super) fn label(&self, t: u32) -> String {
        let tpb = self.threads_per_block;
        // 0 only in a damaged counterexample file (replay says it is corrupt).
        if tpb <= 1 {
            return crate::ir::block_label(self.launches, t);
        }
        let (b, lane) = (t / tpb, t % tpb);
        match self
            .launches
            .iter()
            .find(|p| (p.first_block..p.first_block + p.blocks).contains(&b))
        {
            Some(p) => format!("{} b{} t{lane}", p.kernel, b - p.first_block),
            None => format!("b{b} t{lane}"),
        }
    }
}

/// One violation: its kind, message and who waits on what, then the
/// counterexample, one column per thread.
pub fn render_violation(out: &mut String, v: &ViolationReport, names: &ThreadNames) {
    let _ = writeln!(
        out,
        "\n{} {}",
        v.kind.name().red().bold(),
        format!("[{}]", v.property).dimmed()
    );
    let _ = writeln!(out, "  {}", v.message);
    for w in &v.waiting {
        let _ = writeln!(out, "    - {w}");
    }
    let trace = &v.trace;
    let threads = thread_columns(&trace.steps, &trace.cycle);
    let n = trace.schedule.len();
    let plural = if n == 1 { "" } else { "s" };
    let _ = writeln!(out, "\ncounterexample: {n} step{plural}");
    let files = imported_files(trace.steps.iter().chain(&trace.cycle));
    render_legend(out, trace, &files);
    if trace.steps.is_empty() {
        let _ = writeln!(out, "  (already in the initial state)");
    } else {
        out.push_str(&render_steps(&trace.steps, &threads, names, &files));
    }
    if !trace.cycle.is_empty() {
        let _ = writeln!(out, "{}", "then forever, repeating:".yellow());
        out.push_str(&render_steps(&trace.cycle, &threads, names, &files));
    }
}

/// What the step table's marks mean, where it has them: the tags of the
/// imported `files` its lines are in, and the active masks of warps.
fn render_legend(out: &mut String, trace: &Trace, files: &[String]) {
    if !files.is_empty() {
        let named: Vec<String> = files
            .iter()
            .enumerate()
            .map(|(i, f)| format!("{}N in {f}", file_tag(i)))
            .collect();
        let legend = format!("  line N is in the spec, {}", named.join(", "));
        let _ = writeln!(out, "{}", legend.dimmed());
    }
    if trace
        .steps
        .iter()
        .chain(&trace.cycle)
        .any(|s| s.active_mask.is_some())
    {
        let _ = writeln!(
            out,
            "{}",
            "  [lanes ...]: the active mask, the lanes of the warp that executed the instruction"
                .dimmed()
        );
    }
}

/// `, simt lockstep (then-first), 1024 lock bits` for the settings that
/// differ from plain independent scheduling (the default says nothing).
fn simt_settings(c: &RunConfig) -> String {
    let mut out = String::new();
    if let Some(order) = &c.branch_order {
        let _ = write!(out, ", simt {} ({order})", c.simt);
    }
    if let Some(bits) = c.lock_bits {
        let _ = write!(out, ", {bits} lock bits");
    }
    out
}

/// States/s and memory, for `--stats`.
pub fn render_stats(report: &Report) -> String {
    let s = &report.stats;
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    let m = s.measured.as_ref();
    let mut line = format!(
        "stats: {} states, {} transitions, {:.0} states/s",
        s.states,
        s.transitions,
        m.map_or(0.0, |m| m.states_per_second)
    );
    let Some(m) = m else {
        return line;
    };
    let b = m.peak_store_bytes;
    let per_state = if s.states > 0 {
        b as f64 / s.states as f64
    } else {
        0.0
    };
    let _ = write!(line, ", store {:.1} MiB ({per_state:.0} B/state)", mib(b));
    if m.analysis_bytes > 0 {
        let _ = write!(line, ", graph analyses {:.1} MiB", mib(m.analysis_bytes));
    }
    if let Some(b) = m.peak_rss_bytes {
        let _ = write!(line, ", peak RSS {:.1} MiB", mib(b));
    }
    if let Some(note) = &m.reductions {
        let _ = write!(line, "; {}", super::reductions::describe(note));
    }
    line
}

fn plural(n: u32) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// A coloured string, or (without the `terminal` feature) a plain one.
#[cfg(feature = "terminal")]
type Painted = colored::ColoredString;
#[cfg(not(feature = "terminal"))]
type Painted = String;

pub fn verdict_colored(v: Verdict) -> Painted {
    match v {
        Verdict::Verified => "VERIFIED".green().bold(),
        Verdict::Violated => "VIOLATED".red().bold(),
        Verdict::Inconclusive => "INCONCLUSIVE".yellow().bold(),
    }
}

/// The threads that appear in a trace, in order.
pub(super) fn thread_columns(steps: &[Step], cycle: &[Step]) -> Vec<u32> {
    let mut threads: Vec<u32> = steps.iter().chain(cycle).map(|s| s.thread).collect();
    threads.sort_unstable();
    threads.dedup();
    threads
}

/// What a step did, in one short line: `lock: 0 → 1` style.
pub(super) fn effects(step: &Step) -> String {
    let mut parts = Vec::new();
    for r in &step.reads {
        match step.writes.iter().find(|w| w.location == r.location) {
            Some(w) => parts.push(format!("{}: {} → {}", r.location, r.value, w.value)),
            None => parts.push(format!("{} = {}", r.location, r.value)),
        }
    }
    for w in &step.writes {
        if !step.reads.iter().any(|r| r.location == w.location) {
            parts.push(format!("{} := {}", w.location, w.value));
        }
    }
    parts.join(", ")
}

/// `line 12`, or `FILE:12` in a file the spec imports.
fn line_of(s: &Step) -> String {
    match &s.span.file {
        Some(f) => format!("{f}:{}", s.span.line),
        None => format!("line {}", s.span.line),
    }
}

/// The files other than the spec that steps are in, in order of appearance.
fn imported_files<'a>(steps: impl Iterator<Item = &'a Step>) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    for s in steps {
        if let Some(f) = &s.span.file {
            if !files.contains(f) {
                files.push(f.clone());
            }
        }
    }
    files
}

/// `a`, `b`, ...: the tag of the i-th imported file in the step table.
fn file_tag(i: usize) -> char {
    char::from(b'a' + (i % 26) as u8)
}

/// `12`, or `a12` for line 12 of the first imported file.
fn short_line_of(s: &Step, files: &[String]) -> String {
    match &s.span.file {
        Some(f) => {
            let i = files.iter().position(|g| g == f).unwrap_or(0);
            format!("{}{}", file_tag(i), s.span.line)
        }
        None => s.span.line.to_string(),
    }
}

/// Steps as a table with one column per thread; above [`MAX_COLUMNS`]
/// threads, one line per step.
fn render_steps(steps: &[Step], threads: &[u32], names: &ThreadNames, files: &[String]) -> String {
    if threads.len() > MAX_COLUMNS {
        return render_step_lines(steps, names);
    }
    let mut out = String::new();
    let header: Vec<String> = threads
        .iter()
        .map(|t| pad(&names.label(*t), COLUMN))
        .collect();
    let _ = writeln!(
        out,
        "{:>5} │ {}",
        "step",
        header.join(" │ ").trim_end().bold()
    );
    for s in steps {
        let col = threads.iter().position(|t| *t == s.thread).unwrap_or(0);
        for (i, line) in cell_lines(s, files).iter().enumerate() {
            let step_no = if i == 0 {
                format!("{:>5}", s.step)
            } else {
                " ".repeat(5)
            };
            let mut cells: Vec<String> = vec![" ".repeat(COLUMN); threads.len()];
            cells[col] = pad(line, COLUMN);
            let row = cells.join(" │ ");
            let row = if i == 0 {
                row
            } else {
                row.dimmed().to_string()
            };
            let _ = writeln!(out, "{step_no} │ {}", row.trim_end());
        }
    }
    out
}

/// One line per step, its note below it: for traces with too many threads
/// for columns.
fn render_step_lines(steps: &[Step], names: &ThreadNames) -> String {
    let mut out = String::new();
    for s in steps {
        let _ = writeln!(
            out,
            "{:>4}  {:<10} {:<9} {}  {}",
            s.step,
            names.label(s.thread),
            line_of(s),
            shown_instruction(s),
            effects(s).cyan()
        );
        if let Some(n) = &s.note {
            let _ = writeln!(out, "{:>22}{}", "", n.yellow());
        }
    }
    out
}

/// The lines of a step in its thread's column: line and instruction, then
/// what it read and wrote, then its note, each wrapped to the column under
/// its indent.
fn cell_lines(s: &Step, files: &[String]) -> Vec<String> {
    let mut texts = vec![(
        format!("{:>3}: ", short_line_of(s, files)),
        shown_instruction(s),
    )];
    let fx = effects(s);
    if !fx.is_empty() {
        texts.push((" ".repeat(5), fx));
    }
    if let Some(n) = &s.note {
        texts.push((" ".repeat(5), n.clone()));
    }
    texts
        .iter()
        .flat_map(|(indent, text)| {
            wrap(text, COLUMN - indent.len())
                .into_iter()
                .enumerate()
                .map(move |(k, piece)| {
                    let lead = if k == 0 {
                        indent.clone()
                    } else {
                        " ".repeat(indent.len())
                    };
                    format!("{lead}{piece}")
                })
        })
        .collect()
}

/// The instruction, led by the warp's active mask when the warp has
/// several lanes (`[lanes 0,2] atomicCAS(...)`).
fn shown_instruction(s: &Step) -> String {
    match s.active_mask {
        Some(mask) => format!("[lanes {}] {}", lane_list(mask), s.instruction),
        None => s.instruction.clone(),
    }
}

fn pad(s: &str, width: usize) -> String {
    let n = s.chars().count();
    if n >= width {
        s.to_string()
    } else {
        format!("{s}{}", " ".repeat(width - n))
    }
}

/// Splits text into lines of at most `width` characters, at spaces where it
/// can; never drops text.
pub(super) fn wrap(s: &str, width: usize) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut current = String::new();
    for word in s.split_whitespace() {
        if !current.is_empty() && current.chars().count() + 1 + word.chars().count() > width {
            pieces.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
        // A single word longer than a line is cut where it must be.
        while current.chars().count() > width {
            pieces.push(current.chars().take(width).collect());
            current = current.chars().skip(width).collect();
        }
    }
    if !current.is_empty() || pieces.is_empty() {
        pieces.push(current);
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_keeps_every_character() {
        let s = "x".repeat(100);
        let pieces = wrap(&s, 38);
        assert_eq!(pieces.concat(), s);
        let words = "block 1 entered the critical section while block 0 is inside";
        let pieces = wrap(words, 20);
        assert!(pieces.iter().all(|p| p.chars().count() <= 20));
        let rejoined: Vec<&str> = pieces.iter().flat_map(|p| p.split_whitespace()).collect();
        assert_eq!(rejoined.join(" "), words);
        assert!(pieces.iter().all(|p| p.chars().count() <= 38));
    }
}

//! Progress of long explorations on stderr: a spinner on a terminal, and
//! where stderr is a file or a pipe (CI logs, `2> err`) a line every few
//! seconds, both saying how close the run is to its limits.

use crate::clock::Instant;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{
    HumanBytes, HumanCount, HumanDuration, ProgressBar, ProgressDrawTarget, ProgressStyle,
};

use super::heap;
use super::limits::Options;

/// What the run is checking now (a family's variant), named in the lines
/// written where no terminal shows the command's own "checking ..." line.
static LABEL: Mutex<Option<String>> = Mutex::new(None);

/// What the search's deadline is, where it is not `--max-seconds` itself
/// (a family variant's share of it), for the "s left" figure.
static DEADLINE_IS: Mutex<Option<String>> = Mutex::new(None);

/// Whether the one-time forecast ([`Progress::forecast`]) was given: once
/// per process, however many searches a check or a family runs.
static FORECAST_GIVEN: AtomicBool = AtomicBool::new(false);

/// Names what is being checked in the progress lines (`None`: nothing).
pub fn set_progress_label(label: Option<String>) {
    if let Ok(mut l) = LABEL.lock() {
        *l = label;
    }
}

/// Says what the search's deadline is when it is only a part of
/// `--max-seconds` (`None`: the deadline is `--max-seconds`), e.g.
/// "its 4 s share of --max-seconds 30".
pub fn set_progress_deadline(what: Option<String>) {
    if let Ok(mut d) = DEADLINE_IS.lock() {
        *d = what;
    }
}

/// How the progress is shown.
enum Mode {
    Off,
    /// A spinner redrawn in place.
    Terminal(Option<ProgressBar>),
    /// A line every [`Progress::LINE_EVERY`].
    Lines,
}

/// Shown only when enabled and the run has lasted more than
/// [`Progress::DELAY`] (a spinner) or [`Progress::LINE_DELAY`] (lines);
/// the explorer calls [`Progress::update`] every few thousand states.
pub(crate) struct Progress {
    mode: Mode,
    last: Duration,
    max_states: Option<u64>,
    max_memory: Option<u64>,
    deadline: Option<Instant>,
    /// The process's memory when the search started (for the forecast).
    memory_at_start: u64,
}

impl Progress {
    /// How long a run must last before the spinner appears.
    pub(super) const DELAY: Duration = Duration::from_secs(1);
    const EVERY: Duration = Duration::from_millis(100);
    /// Lines in a log: the first after two seconds, then one every five.
    const LINE_DELAY: Duration = Duration::from_secs(2);
    const LINE_EVERY: Duration = Duration::from_secs(5);
    /// A search forecast to run longer than this is announced.
    const LONG: Duration = Duration::from_secs(60);

    pub(super) fn new(opts: &Options) -> Self {
        let mode = match (opts.progress, std::io::stderr().is_terminal()) {
            (false, _) => Mode::Off,
            (true, true) => Mode::Terminal(None),
            (true, false) => Mode::Lines,
        };
        Self {
            mode,
            last: Duration::ZERO,
            max_states: opts.max_states,
            max_memory: opts.max_memory_bytes,
            deadline: opts.deadline,
            memory_at_start: heap::in_use().unwrap_or(0),
        }
    }

    /// Whether updates can have any effect (cheap check for the hot loop).
    #[inline]
    pub(super) fn active(&self) -> bool {
        !matches!(self.mode, Mode::Off)
    }

    /// `bytes`: the explorer's own, used where the process's heap is not
    /// counted.
    pub(super) fn update(&mut self, start: Instant, states: usize, depth: u32, bytes: usize) {
        let elapsed = start.elapsed();
        let (delay, every) = match self.mode {
            Mode::Off => return,
            Mode::Terminal(_) => (Self::DELAY, Self::EVERY),
            Mode::Lines => (Self::LINE_DELAY, Self::LINE_EVERY),
        };
        if elapsed < delay || (self.last > Duration::ZERO && elapsed < self.last + every) {
            return;
        }
        self.last = elapsed;
        let memory = heap::in_use().unwrap_or(bytes as u64);
        let terse = matches!(self.mode, Mode::Terminal(_));
        let figures = self.figures(elapsed, states as u64, depth, memory, terse);
        let forecast = self.forecast(elapsed, states as u64, memory);
        match &mut self.mode {
            Mode::Off => {}
            Mode::Terminal(bar) => {
                let bar = bar.get_or_insert_with(|| {
                    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                    bar.set_style(
                        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
                            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                    );
                    bar
                });
                if let Some(note) = forecast {
                    bar.println(note);
                }
                bar.set_message(figures);
                bar.tick();
            }
            Mode::Lines => {
                let label = LABEL.lock().ok().and_then(|l| l.clone());
                let label = label.map(|l| format!(" {l}")).unwrap_or_default();
                eprintln!("progress{label}: {} s, {figures}", elapsed.as_secs());
                if let Some(note) = forecast {
                    eprintln!("{note}");
                }
            }
        }
    }

    /// `1,234 states (12% of --max-states), 5,678/s, depth 9, memory
    /// 1.2 GiB of 8 GiB (--max-memory), 48 s left (--max-seconds)`: the
    /// figures and how close each limit is; `terse` leaves out the flags'
    /// names, for a spinner that must fit a terminal's line.
    fn figures(
        &self,
        elapsed: Duration,
        states: u64,
        depth: u32,
        memory: u64,
        terse: bool,
    ) -> String {
        let named = |flag: &str| match terse {
            true => String::new(),
            false => format!(" ({flag})"),
        };
        let rate = states as f64 / elapsed.as_secs_f64().max(1e-9);
        let mut out = format!("{} states", HumanCount(states));
        if let Some(max) = self.max_states {
            let of = if terse { "" } else { " of --max-states" };
            out += &format!(" ({}%{of})", percent(states, max));
        }
        out += &format!(
            ", {}/s, depth {depth}, memory {}",
            HumanCount(rate as u64),
            HumanBytes(memory)
        );
        if let Some(max) = self.max_memory {
            out += &format!(" of {}{}", HumanBytes(max), named("--max-memory"));
        }
        if let Some(deadline) = self.deadline {
            let left = deadline.saturating_duration_since(Instant::now());
            let what = DEADLINE_IS.lock().ok().and_then(|d| d.clone());
            let what = match (terse, what) {
                (true, _) => String::new(),
                (false, Some(what)) => format!(" of {what}"),
                (false, None) => " (--max-seconds)".to_string(),
            };
            out += &format!(", {} s left{what}", left.as_secs());
        }
        out
    }

    /// Once, when the search so far says it may run long: when, at the
    /// rates seen, it would reach the first of its limits, and what bounds
    /// it. A search that ends sooner makes the note moot, so it says so.
    fn forecast(&self, elapsed: Duration, states: u64, memory: u64) -> Option<String> {
        if elapsed < Self::LINE_DELAY || FORECAST_GIVEN.load(Ordering::Relaxed) {
            return None;
        }
        let secs = elapsed.as_secs_f64();
        let at_rate = |done: f64, left: f64| (done > 0.0).then(|| left / (done / secs));
        let mut ends: Vec<(f64, String)> = Vec::new();
        if let Some(max) = self.max_states {
            let left = max.saturating_sub(states) as f64;
            ends.extend(at_rate(states as f64, left).map(|t| (t, format!("--max-states ({max})"))));
        }
        if let Some(max) = self.max_memory {
            let grown = memory.saturating_sub(self.memory_at_start) as f64;
            let left = max.saturating_sub(memory) as f64;
            ends.extend(
                at_rate(grown, left).map(|t| (t, format!("--max-memory ({})", HumanBytes(max)))),
            );
        }
        if let Some(deadline) = self.deadline {
            let left = deadline
                .saturating_duration_since(Instant::now())
                .as_secs_f64();
            ends.push((left, "--max-seconds".into()));
        }
        let (first, limit) = ends.into_iter().min_by(|a, b| a.0.total_cmp(&b.0))?;
        if first < Self::LONG.as_secs_f64() {
            return None;
        }
        FORECAST_GIVEN.store(true, Ordering::Relaxed);
        let within = HumanDuration(Duration::from_secs_f64(first.min(1e7)));
        Some(if limit == "--max-seconds" {
            format!("note: this search may run until --max-seconds, {within} from now; Ctrl-C stops it with the figures so far")
        } else {
            format!("note: at its rate so far this search reaches {limit} in about {within}, unless it ends first; --max-seconds bounds it, a smaller launch shrinks it, Ctrl-C stops it with the figures so far")
        })
    }

    pub(super) fn finish(&mut self) {
        if let Mode::Terminal(bar) = &mut self.mode {
            if let Some(bar) = bar.take() {
                bar.finish_and_clear();
            }
        }
    }
}

/// `part` as a whole percentage of `whole`.
fn percent(part: u64, whole: u64) -> u64 {
    (part as u128 * 100 / u128::from(whole.max(1))) as u64
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

//! A progress line on stderr for long explorations.

use crate::clock::Instant;
use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{HumanBytes, HumanCount, ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Shown only when enabled, stderr is a terminal and the run has lasted
/// more than [`Progress::DELAY`]; the explorer calls [`Progress::update`]
/// every few thousand states.
pub(crate) struct Progress {
    enabled: bool,
    bar: Option<ProgressBar>,
    last: Duration,
}

impl Progress {
    /// How long a run must last before the bar appears.
    pub(super) const DELAY: Duration = Duration::from_secs(1);
    const EVERY: Duration = Duration::from_millis(100);

    pub(super) fn new(enabled: bool) -> Self {
        Self {
            enabled: enabled && std::io::stderr().is_terminal(),
            bar: None,
            last: Duration::ZERO,
        }
    }

    /// Whether updates can have any effect (cheap check for the hot loop).
    #[inline]
    pub(super) fn active(&self) -> bool {
        self.enabled
    }

    pub(super) fn update(&mut self, start: Instant, states: usize, depth: u32, bytes: usize) {
        if !self.enabled {
            return;
        }
        let elapsed = start.elapsed();
        if elapsed < Self::DELAY || elapsed < self.last + Self::EVERY {
            return;
        }
        self.last = elapsed;
        let bar = self.bar.get_or_insert_with(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar
        });
        let rate = states as f64 / elapsed.as_secs_f64();
        bar.set_message(format!(
            "{} states, {}/s, depth {}, {}",
            HumanCount(states as u64),
            HumanCount(rate as u64),
            depth,
            HumanBytes(bytes as u64)
        ));
        bar.tick();
    }

    pub(super) fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

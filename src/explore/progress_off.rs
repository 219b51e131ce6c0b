//! The progress line's interface without the `terminal` feature: nothing
//! is drawn (the WebAssembly build, whose host shows its own progress).

use super::limits::Options;
use crate::clock::Instant;

/// Nothing is drawn, so nothing is named.
pub fn set_progress_label(_label: Option<String>) {}

/// Without the `terminal` feature nothing is drawn.
pub fn set_progress_deadline(_what: Option<String>) {}

pub(crate) struct Progress;

impl Progress {
    pub(crate) fn new(_opts: &Options) -> Self {
        Progress
    }

    #[inline]
    pub(crate) fn active(&self) -> bool {
        false
    }

    pub(crate) fn update(&mut self, _start: Instant, _states: usize, _depth: u32, _bytes: usize) {}

    pub(crate) fn finish(&mut self) {}
}

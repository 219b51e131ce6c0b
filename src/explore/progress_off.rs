//! The progress line's interface without the `terminal` feature: nothing
//! is drawn (the WebAssembly build, whose host shows its own progress).

use crate::clock::Instant;

pub(crate) struct Progress;

impl Progress {
    pub(crate) fn new(_enabled: bool) -> Self {
        Progress
    }

    #[inline]
    pub(crate) fn active(&self) -> bool {
        false
    }

    pub(crate) fn update(&mut self, _start: Instant, _states: usize, _depth: u32, _bytes: usize) {}

    pub(crate) fn finish(&mut self) {}
}

//! How long the workers of the parallel phases waited inside them: a
//! helper that joined a phase late (or not at all), and every worker from
//! finding no item left until the phase ended (its tail). Summed in worker
//! seconds (`--stats`: `explore_phases.waits`), so that a phase that
//! scales badly shows whether its workers idled or worked more slowly:
//! a phase's seconds times its workers, less their waits, is their work.
//!
//! Three atomics per phase, each written once by each worker, and one
//! clock read as a worker joins and one as it leaves.

use super::stats::Wait;
use crate::clock::Instant;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Nanoseconds the workers waited, added up over phases until taken.
#[derive(Default)]
pub(super) struct Waits {
    join: AtomicU64,
    tail: AtomicU64,
}

impl Waits {
    /// The waits since the last call, in worker seconds.
    pub(super) fn take(&self) -> Wait {
        let secs = |a: &AtomicU64| a.swap(0, Relaxed) as f64 * 1e-9;
        Wait {
            join: secs(&self.join),
            tail: secs(&self.tail),
        }
    }
}

/// The clock of one parallel phase of `threads` workers.
pub(super) struct PhaseClock<'a> {
    start: Instant,
    threads: u64,
    /// Workers that joined, the sum of when they joined and of when they
    /// left (nanoseconds since `start`).
    joined: AtomicU64,
    join_sum: AtomicU64,
    leave_sum: AtomicU64,
    into: &'a Waits,
}

impl<'a> PhaseClock<'a> {
    /// Starts the clock of a phase of `threads` workers, whose waits go
    /// `into` there when it [`end`](Self::end)s.
    pub(super) fn start(threads: usize, into: &'a Waits) -> Self {
        PhaseClock {
            start: Instant::now(),
            threads: threads as u64,
            joined: AtomicU64::new(0),
            join_sum: AtomicU64::new(0),
            leave_sum: AtomicU64::new(0),
            into,
        }
    }

    /// Nanoseconds since the phase started.
    pub(super) fn now(&self) -> u64 {
        Instant::now().duration_since(self.start).as_nanos() as u64
    }

    /// A worker that joined at `joined` (a [`now`](Self::now)) found no
    /// item left.
    pub(super) fn left(&self, joined: u64) {
        let left = self.now();
        self.joined.fetch_add(1, Relaxed);
        self.join_sum.fetch_add(joined, Relaxed);
        self.leave_sum.fetch_add(left, Relaxed);
    }

    /// The phase ended (every worker has left): its waits go into the
    /// total. A worker that never joined waited the whole phase.
    pub(super) fn end(self) {
        let end = self.now();
        let joined = self.joined.into_inner().min(self.threads);
        let (join_sum, leave_sum) = (self.join_sum.into_inner(), self.leave_sum.into_inner());
        let absent = (self.threads - joined) * end;
        let tail = (joined * end).saturating_sub(leave_sum);
        self.into.join.fetch_add(join_sum + absent, Relaxed);
        self.into.tail.fetch_add(tail, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::{PhaseClock, Waits};
    use std::time::Duration;

    #[test]
    fn a_worker_that_never_joined_waits_the_whole_phase_and_an_early_leaver_its_tail() {
        let waits = Waits::default();
        let clock = PhaseClock::start(3, &waits);
        // One worker joins at once and leaves at once; another works
        // for 30 ms; the third never joins.
        let first = clock.now();
        clock.left(first);
        let second = clock.now();
        std::thread::sleep(Duration::from_millis(30));
        clock.left(second);
        clock.end();
        let w = waits.take();
        // The absent worker waited the whole phase (at least 30 ms), the
        // first one its tail (about 30 ms), the second one almost nothing.
        assert!(w.join >= 0.030 && w.join < 0.030 + 0.5, "join {}", w.join);
        assert!(w.tail >= 0.029 && w.tail < 0.030 + 0.5, "tail {}", w.tail);
        // Taken: nothing left.
        let again = waits.take();
        assert_eq!((again.join, again.tail), (0.0, 0.0));
    }
}

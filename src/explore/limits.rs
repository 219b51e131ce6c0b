//! Exploration options and resource limits.
//!
//! The limits bound a whole check, not one search: a check runs several
//! searches and analyses, and a family several checks, all against one
//! [`Options::deadline`] and one memory limit measured on the process's
//! heap ([`heap`](super::heap)), so every phase can ask
//! [`Options::limit_reached`] and stop cleanly.

use crate::clock::Instant;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use super::heap;

/// How to run an exploration.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options {
    /// Stop once this many states are stored (a further new state trips it).
    pub max_states: Option<u64>,
    /// Stop at this instant (shared by every search and analysis of a
    /// check: see [`Options::deadline_in`]).
    pub deadline: Option<Instant>,
    /// Stop before the process would hold more than this many bytes: its
    /// heap as counted by [`heap::CountingAlloc`] plus what it held
    /// outside the heap at start (within 256 KiB per thread: each thread
    /// counts its own allocations until they pass that), or, without that
    /// allocator, the explorer's own allocations (visited set, per-state
    /// metadata, edges).
    pub max_memory_bytes: Option<u64>,
    /// Keep every transition (from, action, to) for graph analyses
    /// (successors, backward reachability, cycles).
    pub keep_edges: bool,
    /// Show progress on stderr once the run lasts a second or two: a
    /// spinner on a terminal, elsewhere a line every few seconds.
    pub progress: bool,
    /// Worker threads generating successors (0 or 1: the calling thread).
    /// The result does not depend on it.
    pub threads: usize,
    /// Which pool runs them (the result does not depend on it either).
    pub pool: super::WorkerPool,
    /// Keep a 63-bit fingerprint per state instead of its words (except the
    /// states still to expand): far less memory, at the risk stated by
    /// [`collision_probability`](super::collision_probability). Stored
    /// states are then recomputed from their path when asked for.
    pub hash_compaction: bool,
    /// Store every state whole, without interning the parts the system
    /// names ([`state_parts`](super::TransitionSystem::state_parts), tree
    /// compression): the same search, more memory (for measuring it).
    pub no_tree_compression: bool,
    /// Stop at the first expanded state that is not final and has no
    /// enabled step (every unfinished thread blocked): a deadlock decided
    /// on the fly ([`Outcome::Stuck`](super::Outcome::Stuck)) instead of
    /// after the whole graph.
    pub early_deadlock: bool,
}

/// The bounds of a check as the user sets them (`--max-states`,
/// `--max-seconds`, `--max-memory`): the one home of these options, from
/// the command line to the saved report (`report::RunConfig` flattens it)
/// and back to a replay.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Limits {
    pub max_states: Option<u64>,
    pub max_seconds: Option<f64>,
    pub max_memory_mb: Option<u64>,
    /// When set, the check ends at this instant, whatever `max_seconds`
    /// says: the variants of a family share the family's deadline. Not
    /// saved: a replay starts its own clock.
    #[serde(skip)]
    pub deadline: Option<Instant>,
}

impl Limits {
    /// No bound at all.
    pub const NONE: Limits = Limits {
        max_states: None,
        max_seconds: None,
        max_memory_mb: None,
        deadline: None,
    };

    /// Search options bounded by these limits, the deadline counted from
    /// now where none is set; the other settings are the defaults.
    pub fn options(&self) -> Options {
        Options {
            max_states: self.max_states,
            deadline: self.deadline.or_else(|| deadline_in(self.max_seconds)),
            max_memory_bytes: self.max_memory_mb.map(|mb| mb.saturating_mul(1 << 20)),
            ..Options::default()
        }
    }
}

/// The deadline `seconds` from now (`None`: no time limit). A time too
/// large for the clock is no limit.
pub fn deadline_in(seconds: Option<f64>) -> Option<Instant> {
    let s = seconds?;
    let d = Duration::try_from_secs_f64(s.max(0.0)).ok()?;
    Instant::now().checked_add(d)
}

/// Set when the user asks a run to stop (the command line points Ctrl-C
/// and SIGTERM at it): every limit check then answers
/// [`LimitKind::Interrupted`], so an interrupted run ends the way a run
/// out of time does, inconclusive with what it found so far. An `Arc`
/// because a signal handler's registration holds one.
static INTERRUPT: LazyLock<Arc<AtomicBool>> = LazyLock::new(|| Arc::new(AtomicBool::new(false)));

/// The flag that [`interrupted`] reads, for a signal handler to set.
pub fn interrupt_flag() -> Arc<AtomicBool> {
    Arc::clone(&INTERRUPT)
}

/// Whether the run was asked to stop.
#[inline]
pub fn interrupted() -> bool {
    INTERRUPT.load(Ordering::Relaxed)
}

impl Options {
    /// Whether the deadline has passed.
    #[inline]
    pub fn time_up(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// The time or memory limit reached now, or an interrupt, if any (the
    /// explorer counts states itself). Cheap: a clock read and two atomic
    /// loads.
    #[inline]
    pub fn limit_reached(&self) -> Option<LimitKind> {
        if interrupted() {
            return Some(LimitKind::Interrupted);
        }
        if self.time_up() {
            return Some(LimitKind::Time);
        }
        if !self.memory_allows(0) {
            return Some(LimitKind::Memory);
        }
        None
    }

    /// Whether the process may allocate `extra` more bytes within the
    /// memory limit. Without the counting allocator nothing outside the
    /// explorer is known: only the explorer's own projection applies.
    #[inline]
    pub fn memory_allows(&self, extra: u64) -> bool {
        match (self.max_memory_bytes, heap::in_use()) {
            (Some(max), Some(used)) => used.saturating_add(extra) <= max,
            _ => true,
        }
    }

    /// Bytes the process holds beyond `own` (what the caller accounts for
    /// itself): 0 without the counting allocator.
    pub(crate) fn outside(&self, own: usize) -> u64 {
        heap::in_use().map_or(0, |used| used.saturating_sub(own as u64))
    }
}

/// Which limit stopped an exploration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LimitKind {
    /// [`Options::max_states`], or the `u32` id space ran out.
    States,
    /// [`Options::deadline`].
    Time,
    /// [`Options::max_memory_bytes`].
    Memory,
    /// The user asked the run to stop ([`interrupted`]).
    Interrupted,
    /// A bug hunt's walks all ended without a violation: it proves nothing.
    Walks,
}

impl fmt::Display for LimitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LimitKind::States => "state limit",
            LimitKind::Time => "time limit",
            LimitKind::Memory => "memory limit",
            LimitKind::Interrupted => "interrupt",
            LimitKind::Walks => "walk budget",
        })
    }
}

/// Size in bytes of `v` after `v.reserve(additional)`, and the size of the
/// old buffer if that reserve reallocates (0 otherwise). Mirrors the
/// amortized growth of `Vec` (double, or exactly what is needed if more).
pub(crate) fn vec_after_reserve<T>(v: &Vec<T>, additional: usize) -> (usize, usize) {
    let size = std::mem::size_of::<T>();
    let (len, cap) = (v.len(), v.capacity());
    if size == 0 || cap - len >= additional {
        return (cap * size, 0);
    }
    let min_cap = if size == 1 {
        8
    } else if size <= 1024 {
        4
    } else {
        1
    };
    let new_cap = (cap * 2).max(len + additional).max(min_cap);
    (new_cap * size, cap * size)
}

/// Bytes allocated by a `Vec`.
pub(crate) fn vec_bytes<T>(v: &Vec<T>) -> usize {
    v.capacity() * std::mem::size_of::<T>()
}

/// Accumulates a memory projection over several buffers.
#[derive(Default)]
pub(crate) struct Projection {
    /// Total size after all reserves.
    pub steady: usize,
    /// Largest old buffer alive during one reallocation.
    pub transient: usize,
}

impl Projection {
    pub(super) fn add(&mut self, (after, old): (usize, usize)) {
        self.steady += after;
        self.transient = self.transient.max(old);
    }
    pub(super) fn vec<T>(&mut self, v: &Vec<T>, additional: usize) {
        self.add(vec_after_reserve(v, additional));
    }
    /// Peak bytes while growing.
    pub(super) fn peak(&self) -> usize {
        self.steady + self.transient
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vec_projection_matches_std() {
        let mut v: Vec<u64> = Vec::new();
        for add in [1usize, 1, 2, 5, 3, 100, 7, 1000] {
            let (after, _) = vec_after_reserve(&v, add);
            v.reserve(add);
            assert_eq!(after, vec_bytes(&v));
            v.extend(std::iter::repeat_n(0, add));
        }
    }
}

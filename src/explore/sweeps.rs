//! Backward reachability by sweeps over the forward edges, on the
//! explorer's workers: the marks of [`Exploration::can_reach`].
//!
//! A sweep goes from the last state down and marks every unmarked state
//! with a marked successor; sweeps repeat until one marks nothing. With
//! several workers a sweep is split into runs of whole bit words, handed
//! out from the last down: a worker writes only its own words (plain
//! relaxed loads and stores, no read-modify-write) and reads the others'
//! with relaxed loads, so it may miss a mark made in the same sweep, which
//! the next sweep then sees. Marks only ever follow a marked successor, and
//! the sweeps end only after one that saw every earlier mark (the pool's
//! end of a job orders it before the next) marked nothing: the result is
//! the least fixed point whatever the order, the same set as on one thread
//! (which takes the runs in order, i.e. the plain sequential sweep).
//!
//! [`Exploration::can_reach`]: super::Exploration::can_reach

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::bitset::BitSet;
use super::edges::Forward;
use super::store::StateId;
use super::workers::Workers;

/// Edges from which the sweeps run on the search's workers (about a
/// millisecond of sweeping on one thread; waking the workers costs more
/// below): for [`Exploration::can_reach`] and the proviso's pass.
///
/// [`Exploration::can_reach`]: super::Exploration::can_reach
pub(super) const PARALLEL_SWEEP_EDGES: usize = 1 << 18;

/// At most this many bit words (of 64 states) a run: small enough that
/// sixteen workers share a sweep evenly, large enough that handing a run
/// out costs nothing against its edges.
const RUN_WORDS: usize = 64;

/// A run of bit words `lo..hi` of one sweep, and what sweeping it did.
struct Run {
    lo: usize,
    hi: usize,
    marked: usize,
    visited: usize,
}

/// The states of `0..n` marked by `target`, then every state with a path
/// to a marked one, by sweeps on `workers` for as long as their visits
/// (states and edges, divided among the workers) stay within `budget`.
/// Returns the marks and whether they are the fixed point (`false`: the
/// budget ran out first; the caller finishes by a backward search).
pub(super) fn sweep_marks(
    edges: Forward<'_>,
    n: usize,
    target: impl Fn(StateId) -> bool + Sync,
    workers: &Workers,
    budget: usize,
) -> (BitSet, bool) {
    let threads = workers.count();
    let words = n.div_ceil(64);
    let per_run = (words / (16 * threads)).clamp(1, RUN_WORDS);
    // From the last word down: one thread takes them in a sequential
    // sweep's order.
    let mut runs: Vec<Run> = (0..words.div_ceil(per_run))
        .rev()
        .map(|r| Run {
            lo: r * per_run,
            hi: ((r + 1) * per_run).min(words),
            marked: 0,
            visited: 0,
        })
        .collect();
    let seen: Vec<AtomicU64> = (0..words).map(|_| AtomicU64::new(0)).collect();
    workers.each(&mut runs, |_, run| {
        for (wi, word) in seen.iter().enumerate().take(run.hi).skip(run.lo) {
            let bits = (0..64usize.min(n - wi * 64))
                .filter(|&b| target((wi * 64 + b) as StateId))
                .fold(0u64, |w, b| w | 1 << b);
            word.store(bits, Relaxed);
        }
    });
    let mut work = 0;
    let settled = loop {
        if work > budget {
            break false;
        }
        workers.each(&mut runs, |_, run| sweep_run(edges, n, &seen, run));
        let marked: usize = runs.iter().map(|r| r.marked).sum();
        if marked == 0 {
            break true;
        }
        work += runs.iter().map(|r| r.visited).sum::<usize>() / threads;
    };
    let words = seen.into_iter().map(AtomicU64::into_inner).collect();
    (BitSet::from_words(words, n), settled)
}

/// Sweeps the states of `run`'s words from the last down: marks every
/// unmarked one with a marked successor, and counts the states marked and
/// the states and edges visited.
fn sweep_run(edges: Forward<'_>, n: usize, seen: &[AtomicU64], run: &mut Run) {
    let is_marked = |t: StateId| seen[t as usize / 64].load(Relaxed) >> (t % 64) & 1 != 0;
    let (mut marked, mut visited) = (0, 0);
    for wi in (run.lo..run.hi).rev() {
        let valid = match n - wi * 64 {
            rest if rest >= 64 => u64::MAX,
            rest => (1u64 << rest) - 1,
        };
        // Only this run writes this word during the sweep.
        let mut word = seen[wi].load(Relaxed);
        let mut unmarked = !word & valid;
        while unmarked != 0 {
            let b = 63 - unmarked.leading_zeros();
            unmarked &= !(1u64 << b);
            let s = (wi * 64) as StateId + b;
            let targets = edges.targets_of(s);
            visited += 1 + targets.len();
            if targets.iter().any(|&t| is_marked(t)) {
                // Stored at once: lower states of this word may step here.
                word |= 1 << b;
                seen[wi].store(word, Relaxed);
                marked += 1;
            }
        }
    }
    (run.marked, run.visited) = (marked, visited);
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::edges::Edges;
    use super::super::graph::tests::pseudo_random;
    use super::*;

    /// Edges of `lists[s]` out of state `s`.
    pub(in crate::explore) fn edges_of(lists: &[Vec<StateId>]) -> Edges<()> {
        let mut e = Edges::default();
        for l in lists {
            e.targets.extend(l);
            e.actions.extend(l.iter().map(|_| ()));
            e.offsets.push(e.targets.len() as u64);
        }
        e
    }

    /// Backward reachability by its definition: every state with a marked
    /// successor is marked, until no state changes.
    fn fixed_point(lists: &[Vec<StateId>], target: &[bool]) -> BitSet {
        let mut seen = BitSet::new(lists.len());
        (0..lists.len() as StateId)
            .filter(|&s| target[s as usize])
            .for_each(|s| _ = seen.insert(s));
        let mut changed = true;
        while changed {
            changed = false;
            for (s, l) in (0..).zip(lists) {
                if !seen.get(s) && l.iter().any(|&t| seen.get(t)) {
                    changed |= seen.insert(s);
                }
            }
        }
        seen
    }

    #[test]
    fn the_workers_find_the_fixed_point_of_one_thread() {
        let mut next = pseudo_random(11);
        let pools: Vec<Workers> = [1, 2, 3, 5].into_iter().map(Workers::new).collect();
        for round in 0..60 {
            let n = [1u64, 63, 64, 65, 700, 5000][round % 6];
            // Mostly edges to nearby higher ids, as a breadth-first search
            // numbers them, and some back edges far down.
            let lists: Vec<Vec<StateId>> = (0..n)
                .map(|s| {
                    (0..next(4))
                        .map(|_| match next(3) {
                            0 => next(n),
                            _ => (s + u64::from(next(64))).min(n - 1) as u32,
                        })
                        .collect()
                })
                .collect();
            let target: Vec<bool> = (0..n).map(|_| next(50) == 0).collect();
            let e = edges_of(&lists);
            let want = fixed_point(&lists, &target);
            for workers in &pools {
                let (got, settled) = sweep_marks(
                    e.forward(),
                    n as usize,
                    |s| target[s as usize],
                    workers,
                    usize::MAX,
                );
                assert!(settled);
                assert_eq!(got, want, "{} workers, round {round}", workers.count());
            }
        }
    }

    #[test]
    fn a_spent_budget_stops_the_sweeps() {
        // A chain down: each sweep marks one more state.
        let n: StateId = 300;
        let lists: Vec<Vec<StateId>> = (0..n).map(|s| vec![s.saturating_sub(1)]).collect();
        let e = edges_of(&lists);
        for threads in [1, 3] {
            let workers = Workers::new(threads);
            let (marks, settled) = sweep_marks(e.forward(), n as usize, |s| s == 0, &workers, 1000);
            assert!(!settled, "{threads} threads");
            assert!(marks.get(0) && !marks.get(n - 1));
        }
    }
}

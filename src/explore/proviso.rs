//! The proviso of partial-order reduction: every terminal strong component
//! of the reduced graph holds a fully expanded state (Valmari's condition
//! for stubborn sets, "Stubborn sets for reduced state space generation",
//! LNCS 483, 1991; Valmari's *The state explosion problem*, LNCS 1491,
//! 1998, section 7).
//!
//! A state expanded by an ample subset of its steps must not let the search
//! postpone a step forever (the *ignoring problem*). The textbook cure,
//! "every cycle of the reduced graph holds a fully expanded state" (Clarke,
//! Grumberg, Peled, *Model Checking*, C3), cannot be checked breadth first
//! without also firing where two paths merely meet, which on spinning
//! barriers expanded most states fully. What the checker preserves is
//! less than C3 is made for (the module doc of `reduce::por` says what):
//! every reachable fault, and for each state whether the run can still
//! finish. For those it suffices that each *terminal* strongly connected
//! component (one that no edge leaves) of the reduced graph holds a state
//! that took every enabled step.
//!
//! **Why.** Let `r` be a stored state and `w` a path of the full graph
//! from `r` to a *target*: a state that fails an invariant, or a state and
//! a step from it that fails, or a state that cannot finish. Ample sets are
//! persistent (C1): along a path of steps outside the ample set of `s`,
//! each step is independent of every ample step of `s` (with the sleeping
//! threads of `reduce::por::spin`, which has that persistence argument).
//! They are invisible (C2). From a stored state `s`:
//!
//! 1. If some step of `w` is ample in `s`, the first one can be moved to
//!    the front (it is independent of the steps before it, which it
//!    therefore leaves enabled and which leave it enabled): take it; the
//!    rest of `w` is one step shorter and ends at the same target.
//! 2. If none is, every ample step `a` of `s` commutes with the whole of
//!    `w`: `w` stays executable after `a`, and ends at the target's
//!    `a`-successor, which is a target again. An invariant or a failing
//!    step reads nothing that `a` writes (C2, and the argument of
//!    `reduce::por`), and not being able to finish is kept by every
//!    successor. Take any ample step: `w` keeps its length.
//! 3. If `s` took every enabled step, the first step of `w` is among them
//!    (or `w` is empty): take it.
//!
//! The reduced graph is finite, so from any state some terminal component
//! is reachable along its edges, and inside it its fully expanded state;
//! walking there, each step is case 1 or 2, and at the end case 3 applies.
//! So `w` shrinks after finitely many reduced steps, and after `|w|`
//! rounds of this the reduced graph has reached a target: every fault is
//! found (the search reports the first it meets), and a state that cannot
//! finish is reached from `r`, which therefore cannot finish in the reduced
//! graph either. Conversely, when `w` ends in a final state no step is
//! enabled there (every thread finished), so in case 2 `a`, which `w`
//! leaves enabled, would still be enabled at the end: case 2 never arises,
//! and the reduced graph finishes from `r` whenever the full one does, with
//! no proviso needed (the same argument keeps every state where nobody can
//! move). Symmetry reduction renames states along the way, which changes
//! neither the length of `w` nor what its target is.
//!
//! **How.** The search first runs without any proviso, remembering which
//! states were reduced and keeping the reduced graph's edges. When nothing
//! is left to expand, it finds the terminal components of the states
//! discovered since the last such pass ([`unexpanded_terminal_components`];
//! Tarjan's algorithm, iteratively, on the states that a sweep could not
//! show to reach a fully expanded state) in which every state was reduced,
//! expands the smallest state of each fully (its new successors are new
//! states to search), and goes on. Only the newly discovered states need
//! looking at: after a pass every terminal component holds a fully
//! expanded state, and later passes only add states and edges (an expanded
//! state's edges only grow); a terminal component of the larger graph that
//! holds an older state `o` contains everything `o` reaches, which includes
//! a terminal component of the older graph and so its fully expanded state.
//!
//! **Which state.** The argument needs some fully expanded state in each
//! terminal component, not a particular one. The smallest id is taken
//! because ids are the discovery order of a deterministic breadth-first
//! search, the same for any number of threads and for the distributed
//! explorer, which numbers its states the same way (level start plus rank
//! within the level) and finds the same states on its partitioned graph
//! (`dist::proviso`): the counts and traces then agree everywhere.

use super::bitset::BitSet;
use super::edges::Forward;
use super::limits::vec_bytes;
use super::store::StateId;
use super::sweeps::sweep_marks;
use super::workers::Workers;

/// Marks a state whose component is done.
const DONE: u32 = u32::MAX;

/// What [`unexpanded_terminal_components`] found, and the bytes it used.
pub(super) struct Components {
    /// The smallest state of each terminal component whose states are all
    /// reduced, in increasing order.
    pub unexpanded: Vec<StateId>,
    /// Bytes its buffers took at their largest (a stack's old and new
    /// buffers both count while it grows).
    pub bytes: usize,
}

/// The smallest state of each terminal strongly connected component of the
/// graph on states `from..to` (successors `targets(s)`; an edge to a state
/// below `from` leaves the component) whose states are all `reduced`, in
/// increasing order, and the bytes used; `None` if its buffers would take
/// more than `budget` bytes. Iterative (Pearce's one-number variant of Tarjan's
/// algorithm, "A space-efficient algorithm for finding strongly connected
/// components", IPL 116(1), 2016): millions of states make deep searches.
/// States of `closed` (see [`closed_by_sweeps`]) cannot be in such a
/// component, and the search skips them; without it a cheap sweep first
/// closes most of those states ([`close_escaping`]).
pub(super) fn unexpanded_terminal_components<'g>(
    targets: impl Fn(StateId) -> &'g [StateId],
    reduced: &BitSet,
    range: (usize, usize),
    budget: usize,
    closed: Option<&BitSet>,
) -> Option<Components> {
    match closed {
        Some(c) => search(targets, reduced, range, budget, Close::Marked(c)),
        None => search(targets, reduced, range, budget, Close::Sweep),
    }
}

/// The states of `0..to` that reach a fully expanded state (not `reduced`)
/// or a state below `from` (their paths leave the range), by sweeps on
/// `workers` (`sweeps`) within about `budget` visits of states and edges
/// per worker: the states [`close_escaping`] closes and, as the sweeps
/// repeat, those it misses along edges to lower ids. Every state marked
/// has such a path, which is all the search needs of a closed state; at
/// 16 threads this takes the one-thread sweep off the pass.
pub(super) fn closed_by_sweeps(
    edges: Forward<'_>,
    reduced: &BitSet,
    (from, to): (usize, usize),
    workers: &Workers,
    budget: usize,
) -> BitSet {
    let target = |s: StateId| (s as usize) < from || !reduced.get(s);
    sweep_marks(edges, to, target, workers, budget).0
}

/// Which states the search closes before it starts.
enum Close<'c> {
    /// None.
    #[cfg(test)]
    Nothing,
    /// Those one sweep finds ([`close_escaping`]).
    Sweep,
    /// The marked ones (ids of the whole graph).
    Marked(&'c BitSet),
}

/// [`unexpanded_terminal_components`], with states closed first or not
/// (the same components either way: tests compare).
fn search<'g>(
    targets: impl Fn(StateId) -> &'g [StateId],
    reduced: &BitSet,
    (from, to): (usize, usize),
    budget: usize,
    close: Close<'_>,
) -> Option<Components> {
    let n = to - from;
    if n * 4 + n.div_ceil(64) * 8 > budget {
        return None;
    }
    // `num[i]`: 0 unvisited, else the smallest visit number state
    // `from + i` reaches within its open component, DONE once closed.
    let mut num = vec![0u32; n];
    match close {
        #[cfg(test)]
        Close::Nothing => {}
        Close::Sweep => close_escaping(&targets, reduced, (from, to), &mut num),
        Close::Marked(marks) => {
            for (v, num) in num.iter_mut().enumerate() {
                if marks.get((from + v) as StateId) {
                    *num = DONE;
                }
            }
        }
    }
    // States whose own edges leave their component.
    let mut leaves = BitSet::new(n);
    // Visited states of open components (not roots).
    let mut open: Vec<u32> = Vec::new();
    // The search path: (local state, next edge, its visit number).
    let mut path: Vec<(u32, u32, u32)> = Vec::new();
    let mut visits = 0u32;
    let mut found = Vec::new();
    let fixed = vec_bytes(&num) + vec_bytes(leaves.words_vec());
    let mut peak = fixed;
    // Whether `v` can take one more item within the budget (counted in
    // `peak` while it grows), with `other` the other stack.
    let mut room = |v: usize, (len, cap, size): (usize, usize, usize), other: usize| {
        if len < cap {
            return true;
        }
        let after = (cap * 2).max(len + 1).max(4) * size;
        peak = peak.max(fixed + other + v + after);
        peak <= budget
    };
    for root in 0..n as u32 {
        if num[root as usize] != 0 {
            continue;
        }
        visits += 1;
        num[root as usize] = visits;
        if !room(vec_bytes(&path), shape(&path), vec_bytes(&open)) {
            return None;
        }
        path.push((root, 0, visits));
        while let Some(&mut (v, ref mut k, own)) = path.last_mut() {
            let edges = targets(from as StateId + v);
            if let Some(&t) = edges.get(*k as usize) {
                *k += 1;
                let Some(w) = (t as usize).checked_sub(from) else {
                    leaves.insert(v);
                    continue;
                };
                if num[w] == 0 {
                    visits += 1;
                    num[w] = visits;
                    if !room(vec_bytes(&path), shape(&path), vec_bytes(&open)) {
                        return None;
                    }
                    path.push((w as u32, 0, visits));
                    continue;
                }
                settle_edge(&mut num, &mut leaves, v, w);
                continue;
            }
            path.pop();
            if num[v as usize] == own {
                // `v` is the root of its component: the states above it on
                // `open` are the rest.
                let mut smallest = v;
                let mut out = leaves.get(v);
                let mut all_reduced = reduced.get(from as StateId + v);
                while let Some(&u) = open.last() {
                    if num[u as usize] < own {
                        break;
                    }
                    open.pop();
                    smallest = smallest.min(u);
                    out |= leaves.get(u);
                    all_reduced &= reduced.get(from as StateId + u);
                    num[u as usize] = DONE;
                }
                num[v as usize] = DONE;
                if !out && all_reduced {
                    found.push(from as StateId + smallest);
                }
            } else {
                if !room(vec_bytes(&open), shape(&open), vec_bytes(&path)) {
                    return None;
                }
                open.push(v);
            }
            if let Some(&(p, _, _)) = path.last() {
                settle_edge(&mut num, &mut leaves, p, v as usize);
            }
        }
    }
    found.sort_unstable();
    Some(Components {
        unexpanded: found,
        bytes: peak.max(fixed + vec_bytes(&open) + vec_bytes(&path)),
    })
}

/// Closes (`num[i] = DONE`) some of the states of `from..to` that reach a
/// fully expanded state or leave the range: none of them is in a terminal
/// component of reduced states, and an edge to one leaves its source's
/// component (were the two in one component, the source would reach as
/// far), which is what an edge to a closed state means to the search. One
/// sweep down the ids closes a state that is not reduced or has an edge
/// out of the range or to a closed state. Most edges of a breadth-first
/// search go up, to states already swept, so the sweep closes nearly every
/// state of a graph whose runs can finish (the pass got about 20x cheaper
/// on semaphores), leaving the search the states on cycles it could not
/// see past.
fn close_escaping<'g>(
    targets: &impl Fn(StateId) -> &'g [StateId],
    reduced: &BitSet,
    (from, to): (usize, usize),
    num: &mut [u32],
) {
    for v in (0..to - from).rev() {
        let s = (from + v) as StateId;
        let gone = |&t: &StateId| match (t as usize).checked_sub(from) {
            Some(w) => num[w] == DONE,
            None => true,
        };
        if !reduced.get(s) || targets(s).iter().any(gone) {
            num[v] = DONE;
        }
    }
}

/// Length, capacity and item size of a stack.
fn shape<T>(v: &Vec<T>) -> (usize, usize, usize) {
    (v.len(), v.capacity(), std::mem::size_of::<T>())
}

/// The edge `v -> w` to a visited state: it leaves `v`'s component if
/// `w`'s is closed (another component), else `v` reaches what `w` reaches.
#[inline]
fn settle_edge(num: &mut [u32], leaves: &mut BitSet, v: u32, w: usize) {
    if num[w] == DONE {
        leaves.insert(v);
    } else if num[w] < num[v as usize] {
        num[v as usize] = num[w];
    }
}

#[cfg(test)]
mod tests {
    use super::super::sweeps::tests::edges_of;
    use super::super::test_rng::Rng;
    use super::*;
    use crate::explore::{explore, Options, Outcome, TransitionSystem};

    /// `unexpanded_terminal_components` on an explicit graph.
    fn components(succ: &[&[StateId]], reduced: &[bool], from: usize) -> Vec<StateId> {
        let mut bits = BitSet::default();
        reduced.iter().for_each(|&b| bits.push(b));
        let all = usize::MAX;
        unexpanded_terminal_components(|s| succ[s as usize], &bits, (from, succ.len()), all, None)
            .unwrap()
            .unexpanded
    }

    #[test]
    fn finds_the_terminal_components_without_a_fully_expanded_state() {
        // 0 -> {1 <-> 2} -> {3 <-> 4 <-> 5}, 5 -> 5; 6 alone (no edges),
        // 7 <-> 8 with 8 fully expanded; 9 -> 9.
        let succ: &[&[StateId]] = &[
            &[1, 6, 7, 9],
            &[2],
            &[1, 3],
            &[4],
            &[5],
            &[3, 5],
            &[],
            &[8],
            &[7],
            &[9],
        ];
        let mut reduced = vec![true; succ.len()];
        assert_eq!(components(succ, &reduced, 0), vec![3, 6, 7, 9]);
        reduced[8] = false;
        reduced[4] = false;
        assert_eq!(components(succ, &reduced, 0), vec![6, 9]);
        // From 2 on: 2's edge to 1 leaves, so {2} is not terminal.
        reduced[4] = true;
        assert_eq!(components(succ, &reduced, 2), vec![3, 6, 9]);
    }

    /// The states `close_escaping` closes on an explicit graph (local numbers).
    fn swept(succ: &[Vec<StateId>], reduced: &BitSet, from: usize) -> Vec<StateId> {
        let targets = |s: StateId| &succ[s as usize][..];
        let mut num = vec![0; succ.len() - from];
        close_escaping(&targets, reduced, (from, succ.len()), &mut num);
        (0..num.len() as StateId)
            .filter(|&v| num[v as usize] == DONE)
            .collect()
    }

    fn bits(b: &[bool]) -> BitSet {
        let mut bits = BitSet::default();
        b.iter().for_each(|&b| bits.push(b));
        bits
    }

    #[test]
    fn the_sweep_marks_states_that_reach_a_fully_expanded_one() {
        // 0 -> {1 <-> 2}, 0 -> 3 -> 4 (fully expanded); 5 -> 5.
        let succ: Vec<Vec<StateId>> = vec![vec![1, 3], vec![2], vec![1], vec![4], vec![], vec![5]];
        let mut reduced = [true; 6];
        reduced[4] = false;
        assert_eq!(swept(&succ, &bits(&reduced), 0), [0, 3, 4]);
        // From 1 on, 1 and 2 reach nothing fully expanded either.
        assert_eq!(swept(&succ, &bits(&reduced), 1), [2, 3]);
        // An edge down to a fully expanded state is not seen by one sweep
        // (1 -> 0): such a state is left to the search, which finds that
        // its edge leaves.
        let succ: Vec<Vec<StateId>> = vec![vec![1], vec![0]];
        let reduced = bits(&[false, true]);
        assert_eq!(swept(&succ, &reduced, 0), [0]);
        let targets = |s: StateId| &succ[s as usize][..];
        let found = unexpanded_terminal_components(targets, &reduced, (0, 2), usize::MAX, None);
        assert!(found.unwrap().unexpanded.is_empty());
    }

    /// Whether `s` reaches a state that is not reduced or an edge below `from`.
    fn truly_escapes(succ: &[Vec<StateId>], reduced: &[bool], from: usize, s: usize) -> bool {
        let mut seen = vec![false; succ.len()];
        let mut stack = vec![s];
        seen[s] = true;
        while let Some(v) = stack.pop() {
            if !reduced[v] {
                return true;
            }
            for &t in &succ[v] {
                let t = t as usize;
                if t < from {
                    return true;
                }
                if !seen[t] {
                    seen[t] = true;
                    stack.push(t);
                }
            }
        }
        false
    }

    #[test]
    fn the_sweep_changes_nothing_found_on_random_graphs() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let pools: Vec<Workers> = (1..=4).map(Workers::new).collect();
        let (mut searched, mut found) = (0, 0);
        for round in 0..3000 {
            let n = 1 + rng.below(40) as usize;
            // Mostly upward edges, as in a breadth-first search, some down.
            let succ: Vec<Vec<StateId>> = (0..n)
                .map(|s| {
                    let k = rng.below(4);
                    (0..k)
                        .map(|_| match rng.below(4) {
                            0 => rng.below(n as u64) as StateId,
                            _ => (s as u64 + rng.below((n - s) as u64)) as StateId,
                        })
                        .collect()
                })
                .collect();
            let odds = 2 + rng.below(30);
            let reduced: Vec<bool> = (0..n).map(|_| rng.below(odds) != 0).collect();
            let from = rng.below(n as u64 / 2 + 1) as usize;
            let b = bits(&reduced);
            let marked = swept(&succ, &b, from);
            for &v in &marked {
                let s = from + v as usize;
                assert!(
                    truly_escapes(&succ, &reduced, from, s),
                    "round {round}: {s}"
                );
            }
            searched += n - from - marked.len();
            let targets = |s: StateId| &succ[s as usize][..];
            let filtered = unexpanded_terminal_components(targets, &b, (from, n), usize::MAX, None);
            let plain = search(targets, &b, (from, n), usize::MAX, Close::Nothing);
            let plain = plain.unwrap().unexpanded;
            assert_eq!(
                filtered.unwrap().unexpanded,
                plain,
                "round {round}: {succ:?} reduced {reduced:?} from {from}"
            );
            // Closed by sweeps on 1 to 4 workers, within a budget of one to
            // three passes or none: the same components.
            let edges = edges_of(&succ);
            let workers = &pools[round % pools.len()];
            let budget = (round % 4) * (n + edges.len());
            let marks = closed_by_sweeps(edges.forward(), &b, (from, n), workers, budget);
            for s in marks.iter_ones().filter(|&s| s as usize >= from) {
                assert!(
                    truly_escapes(&succ, &reduced, from, s as usize),
                    "round {round}: {s}"
                );
            }
            let swept =
                unexpanded_terminal_components(targets, &b, (from, n), usize::MAX, Some(&marks));
            assert_eq!(swept.unwrap().unexpanded, plain, "round {round}: sweeps");
            found += plain.len();
        }
        // The graphs left the search something to do and to find.
        assert!(searched > 10_000 && found > 1_000, "{searched} {found}");
    }

    #[test]
    fn deep_chains_need_no_recursion() {
        let n = 1_000_000u32;
        let succ: Vec<Vec<StateId>> = (0..n).map(|s| vec![(s + 1) % n]).collect();
        let mut bits = BitSet::default();
        (0..n).for_each(|_| bits.push(true));
        let search = |budget| {
            unexpanded_terminal_components(
                |s| &succ[s as usize],
                &bits,
                (0, n as usize),
                budget,
                None,
            )
        };
        let got = search(usize::MAX).unwrap();
        assert_eq!(got.unexpanded, vec![0]);
        // The search path grew to the chain's length, and needs its room.
        assert!(got.bytes >= n as usize * 12, "{}", got.bytes);
        assert!(search(got.bytes).is_some());
        assert!(search(got.bytes - 1).is_none());
        assert!(search(n as usize * 4).is_none());
    }

    /// `spin` counts word 0 round `0..len` (a cycle of `len` states),
    /// `advance` moves word 1 through stages `0..=stages`; reaching the last
    /// stage is an error. While a stage is left, only `spin` is ample, so
    /// each stage is a terminal cycle that the proviso must break, one
    /// pass after the other. With `escape`, `spin` from `[len - 1, 0]`
    /// goes to `[0, 1]` instead: stage 0 is then no terminal component and
    /// needs no full expansion.
    struct Stages {
        len: u32,
        stages: u32,
        escape: bool,
    }

    impl TransitionSystem for Stages {
        type Action = u32;
        type Fault = u32;
        fn state_words(&self) -> usize {
            2
        }
        fn initial_state(&self, out: &mut [u32]) {
            out.fill(0);
        }
        fn actions(&self, s: &[u32], out: &mut Vec<u32>) {
            out.push(0);
            if s[1] < self.stages {
                out.push(1);
            }
        }
        fn step(&self, s: &[u32], a: u32, out: &mut [u32]) -> Result<(), u32> {
            out.copy_from_slice(s);
            match a {
                0 if self.escape && s == [self.len - 1, 0] => out.copy_from_slice(&[0, 1]),
                0 => out[0] = (s[0] + 1) % self.len,
                _ => out[1] += 1,
            }
            Ok(())
        }
        fn check_state(&self, s: &[u32]) -> Result<(), u32> {
            match s[1] == self.stages {
                true => Err(s[0]),
                false => Ok(()),
            }
        }
        fn is_final(&self, _: &[u32]) -> bool {
            false
        }
        fn ample_actions(&self, s: &[u32], out: &mut Vec<u32>) -> bool {
            self.actions(s, out);
            let reduced = out.len() > 1;
            out.truncate(1);
            reduced
        }
        fn reduces(&self) -> bool {
            true
        }
    }

    /// Two processes, `spin` and `advance`, on separate words; the spin
    /// step alone is a valid ample set everywhere (independent, invisible),
    /// so without the proviso the search would go round the spin cycle and
    /// never see the error.
    const IGNORING: Stages = Stages {
        len: 2,
        stages: 1,
        escape: false,
    };

    #[test]
    fn the_proviso_keeps_a_step_postponed_around_a_cycle() {
        for threads in [1, 2] {
            let opts = Options {
                threads,
                ..Options::default()
            };
            let e = explore(&IGNORING, &opts);
            // The spin cycle [0,0] -> [1,0] -> [0,0] is a terminal
            // component; its smallest state [0,0] takes both steps.
            let want = Outcome::Fault {
                state: 2,
                action: None,
                fault: 0,
            };
            assert_eq!(e.outcome(), &want, "{threads} threads");
            assert_eq!(e.num_states(), 3);
            assert_eq!(e.parent(2), Some((0, 1)));
        }
    }

    /// The actions to the error, the same for 1 and 2 threads.
    fn stages(sys: &Stages, hash_compaction: bool) -> Vec<u32> {
        let mut runs = [1, 2].map(|threads| {
            let e = explore(
                sys,
                &Options {
                    threads,
                    hash_compaction,
                    ..Options::default()
                },
            );
            let Outcome::Fault { state, action, .. } = e.outcome().clone() else {
                panic!("the last stage was not reached: {:?}", e.outcome());
            };
            assert_eq!(action, None);
            assert_eq!(e.state_of(sys, state)[1], sys.stages);
            (e.num_states(), e.path_to(state))
        });
        assert_eq!(runs[0], runs[1]);
        std::mem::take(&mut runs[0].1)
            .into_iter()
            .map(|(_, a)| a)
            .collect()
    }

    #[test]
    fn every_pass_breaks_the_terminal_cycles_it_finds() {
        for hash_compaction in [false, true] {
            // Three stages, each reached only by the full expansion of the
            // previous stage's cycle, found by the pass after it: stage
            // `k`'s cycle starts at its entry [0, k], expanded fully.
            let sys = Stages {
                len: 3,
                stages: 3,
                escape: false,
            };
            // A proviso that missed a cycle of several states, or looked
            // only once, would stop at stage 0 or 1.
            assert_eq!(stages(&sys, hash_compaction), [1, 1, 1]);
        }
    }

    #[test]
    fn a_cycle_that_can_be_left_needs_no_full_expansion() {
        let sys = Stages {
            len: 4,
            stages: 2,
            escape: true,
        };
        let e = explore(&sys, &Options::default());
        // Stage 0 is left by `spin` from [3, 0]; stage 1's cycle is
        // terminal and broken at [0, 1]: [0,0] is never expanded fully.
        let path: Vec<u32> = e.fault_path().unwrap().iter().map(|&(_, a)| a).collect();
        assert_eq!(path, [0, 0, 0, 0, 1]);
        // 4 states of stage 0, 4 of stage 1, the last stage.
        assert_eq!(e.num_states(), 9);
    }
}

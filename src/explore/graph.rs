//! Analyses on the explored state graph (kept with
//! [`Options::keep_edges`], `edges`): successors, predecessors, backward
//! reachability, cycles.
//!
//! [`Options::keep_edges`]: super::Options::keep_edges

use std::collections::VecDeque;

use hashbrown::{HashMap, HashSet};
use rustc_hash::FxBuildHasher;

use super::bfs::Exploration;
use super::bitset::BitSet;
use super::edges::{Edges, Reverse};
use super::store::StateId;
use super::sweeps::{sweep_marks, PARALLEL_SWEEP_EDGES};
use super::workers::Workers;

type FxMap<K, V> = HashMap<K, V, FxBuildHasher>;
type FxSet<K> = HashSet<K, FxBuildHasher>;

/// A lasso: a path from a start state to a cycle, and the cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lasso<A> {
    /// Steps `(from, action)` from the start state to the cycle entry
    /// (empty if the start state is on the cycle).
    pub stem: Vec<(StateId, A)>,
    /// Steps `(from, action)` around the cycle, from the entry back to it
    /// (`cycle[0].0` is the entry; a self-loop is a one-step cycle).
    pub cycle: Vec<(StateId, A)>,
}

impl<A: Copy, F> Exploration<A, F> {
    /// Whether transitions were kept ([`Options::keep_edges`](super::Options::keep_edges)).
    pub fn has_edges(&self) -> bool {
        self.edges.is_some()
    }

    fn edges(&self) -> &Edges<A> {
        self.edges
            .as_ref()
            .expect("graph analyses need an exploration run with Options::keep_edges")
    }

    /// Number of kept transitions (duplicates and self-loops included).
    /// Panics if edges were not kept.
    pub fn num_edges(&self) -> usize {
        self.edges().targets.len()
    }

    /// The transitions `(action, to)` out of `id`, in action order; empty
    /// for a state that was not expanded. Panics if edges were not kept.
    pub fn successors(&self, id: StateId) -> impl ExactSizeIterator<Item = (A, StateId)> + '_ {
        let e = self.edges();
        let r = e.range(id);
        e.actions[r.clone()]
            .iter()
            .copied()
            .zip(e.targets[r].iter().copied())
    }

    /// Bytes that backward reachability ([`can_reach`](Self::can_reach),
    /// [`can_finish`](Self::can_finish)) allocates on top of the
    /// exploration: the predecessor lists (offsets, their fill cursors
    /// while built, sources), the search queue and the result bit set.
    pub fn reachability_bytes(&self) -> usize {
        let (n, e) = (self.num_states() + 1, self.num_edges());
        2 * n * std::mem::size_of::<u64>()
            + e * std::mem::size_of::<StateId>()
            + n * std::mem::size_of::<StateId>()
            + n.div_ceil(8)
    }

    fn reverse(&self) -> &Reverse {
        self.reverse.get_or_init(|| {
            let e = self.edges();
            let n = self.num_states();
            let mut offsets = vec![0u64; n + 1];
            for &t in &e.targets {
                offsets[t as usize + 1] += 1;
            }
            for i in 0..n {
                offsets[i + 1] += offsets[i];
            }
            let mut fill = offsets.clone();
            let mut sources = vec![0 as StateId; e.targets.len()];
            for s in 0..self.num_expanded() as StateId {
                for i in e.range(s) {
                    let t = e.targets[i] as usize;
                    sources[fill[t] as usize] = s;
                    fill[t] += 1;
                }
            }
            Reverse { offsets, sources }
        })
    }

    /// The sources of the transitions into `id`, in increasing order (with
    /// repeats for parallel edges). Built once on first use. Panics if edges
    /// were not kept.
    pub fn predecessors(&self, id: StateId) -> &[StateId] {
        let r = self.reverse();
        let i = id as usize;
        &r.sources[r.offsets[i] as usize..r.offsets[i + 1] as usize]
    }

    /// Backward reachability over the kept edges: bit `s` is set iff some
    /// state `t` with `target(t)` is reachable from `s` (in zero or more
    /// steps). Panics if edges were not kept.
    ///
    /// Breadth-first ids make most edges point to higher ids, so sweeps
    /// over the forward edges from the last state down, marking each state
    /// with a marked successor, settle almost every state in the first
    /// sweep; a sweep that marks nothing ends them (the result is the least
    /// fixed point, as a backward search's). The sweeps read the edges in
    /// order, where a backward search jumps between predecessor lists, and
    /// on a large graph they run on the search's workers (`sweeps`). If
    /// back edges keep the sweeps going past a few rounds' worth of edges
    /// (on one thread; the workers share theirs), a backward search over the
    /// predecessors finishes from the marks.
    pub fn can_reach(&self, target: impl Fn(StateId) -> bool + Sync) -> BitSet {
        let n = self.num_states();
        let e = self.edges().forward();
        let caller = Workers::caller();
        // Waking the workers costs more than a small graph's sweeps.
        let workers = match e.len() >= PARALLEL_SWEEP_EDGES {
            true => &self.workers,
            false => &caller,
        };
        let budget = 3 * (e.len() + n);
        let (mut seen, settled) = sweep_marks(e, n, target, workers, budget);
        if settled {
            return seen;
        }
        let mut queue: Vec<StateId> = seen.iter_ones().collect();
        let mut i = 0;
        while i < queue.len() {
            let t = queue[i];
            i += 1;
            for &s in self.predecessors(t) {
                if seen.insert(s) {
                    queue.push(s);
                }
            }
        }
        seen
    }

    /// States from which a final state is reachable. States that were not
    /// expanded (after a limit or fault) count as able to finish, since
    /// their futures are unknown, so the complement never holds false
    /// deadlocks. Computed once (a graph of millions of states takes a
    /// sweep over every edge). Panics if edges were not kept.
    pub fn can_finish(&self) -> &BitSet {
        self.finishing.get_or_init(|| {
            let (expanded, finals) = (self.num_expanded(), &self.finals);
            self.can_reach(|s| s as usize >= expanded || finals.get(s))
        })
    }

    /// The smallest id (so the one with the shortest path from the initial
    /// state) among the states that cannot reach any final state — a
    /// deadlock or a non-terminating region. `None` if all can finish.
    /// Panics if edges were not kept.
    pub fn first_state_that_cannot_finish(&self) -> Option<StateId> {
        self.can_finish().iter_zeros().next()
    }

    /// A lasso from `start` staying inside `within`: a shortest stem to a
    /// state on a cycle and a shortest cycle through that state, all states
    /// satisfying `within`. `None` if `start` is outside `within` or no
    /// cycle inside it is reachable. Deterministic. Panics if edges were not
    /// kept.
    pub fn cycle_from(&self, start: StateId, within: impl Fn(StateId) -> bool) -> Option<Lasso<A>> {
        if !within(start) {
            return None;
        }
        let on_cycle = self.find_cycle_nodes(start, &within)?;
        let (stem, entry) = if on_cycle.contains(&start) {
            (Vec::new(), start)
        } else {
            self.shortest_path(start, &within, |t| on_cycle.contains(&t))?
        };
        let (cycle, _) = self.shortest_path(entry, &within, |t| t == entry)?;
        Some(Lasso { stem, cycle })
    }

    /// Depth-first search from `start` inside `within` for a cycle; returns
    /// the states on the first cycle found.
    fn find_cycle_nodes(
        &self,
        start: StateId,
        within: &impl Fn(StateId) -> bool,
    ) -> Option<FxSet<StateId>> {
        const DONE: usize = usize::MAX;
        // State -> position on the DFS stack, or DONE.
        let mut mark: FxMap<StateId, usize> = FxMap::default();
        let mut stack: Vec<(StateId, std::ops::Range<usize>)> = Vec::new();
        let e = self.edges();
        mark.insert(start, 0);
        stack.push((start, e.range(start)));
        while let Some((s, range)) = stack.last_mut() {
            let s = *s;
            match range.next() {
                Some(i) => {
                    let t = e.targets[i];
                    if !within(t) {
                        continue;
                    }
                    match mark.get(&t) {
                        Some(&DONE) => {}
                        Some(&pos) => {
                            return Some(stack[pos..].iter().map(|&(n, _)| n).collect());
                        }
                        None => {
                            mark.insert(t, stack.len());
                            stack.push((t, e.range(t)));
                        }
                    }
                }
                None => {
                    mark.insert(s, DONE);
                    stack.pop();
                }
            }
        }
        None
    }

    /// Shortest path (BFS over edges, in id and action order) from `from`
    /// inside `within` whose last step enters a state satisfying `goal`; at
    /// least one step. Returns the path and the state it ends in.
    fn shortest_path(
        &self,
        from: StateId,
        within: &impl Fn(StateId) -> bool,
        goal: impl Fn(StateId) -> bool,
    ) -> Option<(Vec<(StateId, A)>, StateId)> {
        let mut parent: FxMap<StateId, (StateId, A)> = FxMap::default();
        let mut queue = VecDeque::from([from]);
        let mut seen: FxSet<StateId> = FxSet::default();
        seen.insert(from);
        while let Some(u) = queue.pop_front() {
            for (a, t) in self.successors(u) {
                if !within(t) {
                    continue;
                }
                if goal(t) {
                    let mut path = vec![(u, a)];
                    let mut cur = u;
                    while cur != from {
                        let step = parent[&cur];
                        path.push(step);
                        cur = step.0;
                    }
                    path.reverse();
                    return Some((path, t));
                }
                if seen.insert(t) {
                    parent.insert(t, (u, a));
                    queue.push_back(t);
                }
            }
        }
        None
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::{explore, Options, TransitionSystem};
    use super::*;

    /// A graph given by its successor lists; the state is the node.
    struct Listed(Vec<Vec<u32>>);

    impl TransitionSystem for Listed {
        type Action = usize;
        type Fault = ();
        fn state_words(&self) -> usize {
            1
        }
        fn initial_state(&self, out: &mut [u32]) {
            out[0] = 0;
        }
        fn actions(&self, s: &[u32], out: &mut Vec<usize>) {
            out.extend(0..self.0[s[0] as usize].len());
        }
        fn step(&self, s: &[u32], a: usize, out: &mut [u32]) -> Result<(), ()> {
            out[0] = self.0[s[0] as usize][a];
            Ok(())
        }
        fn is_final(&self, _: &[u32]) -> bool {
            false
        }
    }

    /// Backward reachability by a plain search over the predecessors.
    fn backward_search<A: Copy, F>(ex: &Exploration<A, F>, target: &[StateId]) -> BitSet {
        let mut seen = BitSet::new(ex.num_states());
        let mut queue = target.to_vec();
        for &t in target {
            seen.insert(t);
        }
        while let Some(t) = queue.pop() {
            for &s in ex.predecessors(t) {
                if seen.insert(s) {
                    queue.push(s);
                }
            }
        }
        seen
    }

    fn check(graph: Vec<Vec<u32>>, targets: &[u32]) {
        let ex = explore(
            &Listed(graph),
            &Options {
                keep_edges: true,
                ..Options::default()
            },
        );
        let ids: Vec<StateId> = targets.iter().filter_map(|&t| ex.find(&[t])).collect();
        let got = ex.can_reach(|s| ids.contains(&s));
        assert_eq!(got, backward_search(&ex, &ids), "targets {targets:?}");
    }

    /// Pseudo-random numbers below the argument, from `seed` (a linear
    /// congruential generator: the same graphs every run).
    pub(in crate::explore) fn pseudo_random(seed: u64) -> impl FnMut(u64) -> u32 {
        let mut x = seed;
        move |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 33) % m) as u32
        }
    }

    #[test]
    fn sweeps_agree_with_a_backward_search() {
        // Pseudo-random graphs: many back edges and unreachable targets.
        let mut next = pseudo_random(7);
        for n in [1u64, 2, 5, 64, 65, 300] {
            let graph: Vec<Vec<u32>> = (0..n)
                .map(|_| (0..next(4)).map(|_| next(n)).collect())
                .collect();
            for k in 0..4 {
                let targets: Vec<u32> = (0..k).map(|_| next(n)).collect();
                check(graph.clone(), &targets);
            }
        }
    }

    #[test]
    fn long_back_edge_chains_fall_back_to_the_backward_search() {
        // 0 reaches every node at once (ids follow the nodes), and each
        // node steps down to the one below: from node 1, the way to the
        // target goes down one node per sweep, past the sweeps' budget.
        let n = 400;
        let graph: Vec<Vec<u32>> = (0..n)
            .map(|v| match v {
                0 => (1..n).collect(),
                v => vec![v - 1],
            })
            .collect();
        check(graph.clone(), &[1]);
        check(graph, &[n - 1]);
    }
}

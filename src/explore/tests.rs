//! Explorer tests on toy systems.

use std::time::{Duration, Instant};

use super::*;

/// `n` counters, each stepping from 0 to `k`; action `i` increments counter
/// `i`. Final when all are at `k`. Optional faults for tests.
struct Counters {
    n: usize,
    k: u32,
    /// `check_state` fails on this state.
    bad_state: Option<Vec<u32>>,
    /// `step` fails when taking this action from this state.
    bad_step: Option<(Vec<u32>, usize)>,
}

impl Counters {
    fn new(n: usize, k: u32) -> Self {
        Self {
            n,
            k,
            bad_state: None,
            bad_step: None,
        }
    }
}

impl TransitionSystem for Counters {
    type Action = usize;
    type Fault = &'static str;

    fn state_words(&self) -> usize {
        self.n
    }
    fn initial_state(&self, out: &mut [u32]) {
        out.fill(0);
    }
    fn actions(&self, state: &[u32], out: &mut Vec<usize>) {
        out.extend((0..self.n).filter(|&i| state[i] < self.k));
    }
    fn step(&self, state: &[u32], a: usize, out: &mut [u32]) -> Result<(), &'static str> {
        if let Some((s, b)) = &self.bad_step {
            if s == state && *b == a {
                return Err("bad step");
            }
        }
        out.copy_from_slice(state);
        out[a] += 1;
        Ok(())
    }
    fn check_state(&self, state: &[u32]) -> Result<(), &'static str> {
        match &self.bad_state {
            Some(s) if s == state => Err("bad state"),
            _ => Ok(()),
        }
    }
    fn is_final(&self, state: &[u32]) -> bool {
        state.iter().all(|&c| c == self.k)
    }
}

fn with_edges() -> Options {
    Options {
        keep_edges: true,
        ..Options::default()
    }
}

fn actions_of(path: &[(StateId, usize)]) -> Vec<usize> {
    path.iter().map(|&(_, a)| a).collect()
}

#[test]
fn counters_exact_counts() {
    for (n, k) in [(1usize, 0u32), (1, 5), (3, 3), (4, 4), (2, 9)] {
        let sys = Counters::new(n, k);
        let ex = explore(&sys, &with_edges());
        let states = (k as u64 + 1).pow(n as u32);
        let transitions = n as u64 * k as u64 * (k as u64 + 1).pow(n as u32 - 1);
        assert_eq!(ex.outcome(), &Outcome::Complete);
        assert!(ex.is_complete());
        assert_eq!(ex.num_states() as u64, states);
        let st = ex.stats();
        assert_eq!(st.states, states);
        assert_eq!(st.expanded, states);
        assert_eq!(st.transitions, transitions);
        assert_eq!(st.final_states, 1);
        assert_eq!(st.max_depth, n as u32 * k);
        assert!(st.peak_bytes > 0);
        assert_eq!(ex.num_edges() as u64, transitions);
        assert_eq!(ex.state(0), vec![0; n].as_slice());
        let last = ex.find(&vec![k; n]).unwrap();
        assert!(ex.is_final(last));
        assert_eq!(ex.path_to(last).len(), n * k as usize);
        assert_eq!(ex.depth(last), n * k as usize);
        assert_eq!(ex.first_state_that_cannot_finish(), None);
        assert_eq!(ex.can_finish().count_ones() as u64, states);
        assert_eq!(ex.fault_path(), None);
    }
}

#[test]
fn bfs_ids_are_by_level_and_paths_are_shortest() {
    let sys = Counters::new(3, 2);
    let ex = explore(&sys, &with_edges());
    let mut prev_depth = 0;
    for id in 0..ex.num_states() as StateId {
        let s = ex.state(id);
        let d = s.iter().sum::<u32>() as usize;
        assert!(d >= prev_depth, "ids must be in BFS level order");
        prev_depth = d;
        let path = ex.path_to(id);
        assert_eq!(path.len(), d);
        // Replaying the path reaches the state.
        let mut cur = vec![0u32; 3];
        for &(from, a) in &path {
            assert_eq!(ex.state(from), cur.as_slice());
            cur[a] += 1;
        }
        assert_eq!(cur.as_slice(), s);
    }
}

#[test]
fn successors_and_predecessors() {
    let sys = Counters::new(2, 2);
    let ex = explore(&sys, &with_edges());
    let id = |s: [u32; 2]| ex.find(&s).unwrap();
    let succ: Vec<_> = ex.successors(id([1, 1])).collect();
    assert_eq!(succ, vec![(0, id([2, 1])), (1, id([1, 2]))]);
    assert_eq!(ex.successors(id([2, 2])).len(), 0);
    let mut preds = ex.predecessors(id([1, 1])).to_vec();
    preds.sort();
    let mut want = vec![id([0, 1]), id([1, 0])];
    want.sort();
    assert_eq!(preds, want);
    assert!(ex.predecessors(0).is_empty());
    let reach = ex.can_reach(|s| s == id([1, 1]));
    assert_eq!(reach.count_ones(), 4);
    assert!(reach.get(0) && !reach.get(id([2, 0])));
}

#[test]
fn check_state_fault_has_shortest_trace() {
    let mut sys = Counters::new(2, 5);
    sys.bad_state = Some(vec![2, 1]);
    let ex = explore(&sys, &Options::default());
    let Outcome::Fault {
        state,
        action,
        fault,
    } = ex.outcome().clone()
    else {
        panic!("expected a fault, got {:?}", ex.outcome());
    };
    assert_eq!(fault, "bad state");
    assert_eq!(action, None);
    assert_eq!(ex.state(state), &[2, 1]);
    // (2,1) is first reached from (2,0), which BFS expands before (1,1).
    let path = ex.fault_path().unwrap();
    assert_eq!(actions_of(&path), vec![0, 0, 1]);
    assert_eq!(path, ex.path_to(state));
    assert_eq!(ex.state(path[2].0), &[2, 0]);
    assert!(ex.stats().max_depth <= 3);
}

#[test]
fn step_fault_reports_source_and_action() {
    let mut sys = Counters::new(2, 5);
    sys.bad_step = Some((vec![1, 2], 0));
    let ex = explore(&sys, &with_edges());
    match ex.outcome() {
        Outcome::Fault {
            state,
            action: Some(0),
            fault: "bad step",
        } => {
            assert_eq!(ex.state(*state), &[1, 2]);
            let path = ex.fault_path().unwrap();
            assert_eq!(path.len(), 4);
            assert_eq!(*path.last().unwrap(), (*state, 0));
            assert_eq!(actions_of(&path[..3]), actions_of(&ex.path_to(*state)));
            // The interrupted expansion left no edges behind.
            assert!(!ex.is_expanded(*state));
            assert_eq!(ex.successors(*state).len(), 0);
        }
        other => panic!("unexpected outcome {other:?}"),
    }
}

#[test]
fn initial_state_fault() {
    let mut sys = Counters::new(2, 5);
    sys.bad_state = Some(vec![0, 0]);
    let ex = explore(&sys, &Options::default());
    assert!(matches!(
        ex.outcome(),
        Outcome::Fault {
            state: 0,
            action: None,
            ..
        }
    ));
    assert_eq!(ex.fault_path(), Some(vec![]));
    assert_eq!(ex.num_states(), 1);
}

/// A line 0..=5 (final at 5, which loops on itself), with a trap from 2
/// into the sink 100 and an exit from 3 into the spin loop 200 <-> 201.
struct DeadEnds;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Act {
    Inc,
    Trap,
    Spin,
    Stay,
}

impl TransitionSystem for DeadEnds {
    type Action = Act;
    type Fault = ();
    fn state_words(&self) -> usize {
        1
    }
    fn initial_state(&self, out: &mut [u32]) {
        out[0] = 0;
    }
    fn actions(&self, s: &[u32], out: &mut Vec<Act>) {
        match s[0] {
            0..=4 => out.push(Act::Inc),
            5 => out.push(Act::Stay),
            200 | 201 => out.push(Act::Spin),
            _ => {}
        }
        match s[0] {
            2 => out.push(Act::Trap),
            3 => out.push(Act::Spin),
            _ => {}
        }
    }
    fn step(&self, s: &[u32], a: Act, out: &mut [u32]) -> Result<(), ()> {
        out[0] = match (s[0], a) {
            (v, Act::Inc) => v + 1,
            (_, Act::Trap) => 100,
            (3, Act::Spin) => 200,
            (200, Act::Spin) => 201,
            (201, Act::Spin) => 200,
            (v, Act::Stay) => v,
            _ => unreachable!(),
        };
        Ok(())
    }
    fn is_final(&self, s: &[u32]) -> bool {
        s[0] == 5
    }
}

#[test]
fn dead_end_and_spin_loop() {
    let ex = explore(&DeadEnds, &with_edges());
    assert!(ex.is_complete());
    let id = |v: u32| ex.find(&[v]).unwrap();
    // Discovery order: 0 1 2 3 100 4 200 5 201.
    let order: Vec<u32> = (0..ex.num_states() as StateId)
        .map(|i| ex.state(i)[0])
        .collect();
    assert_eq!(order, vec![0, 1, 2, 3, 100, 4, 200, 5, 201]);
    let can = ex.can_finish();
    let stuck: Vec<u32> = can.iter_zeros().map(|i| ex.state(i)[0]).collect();
    assert_eq!(stuck, vec![100, 200, 201]);
    let first = ex.first_state_that_cannot_finish().unwrap();
    assert_eq!(ex.state(first), &[100]);
    assert_eq!(
        ex.path_to(first),
        vec![(id(0), Act::Inc), (id(1), Act::Inc), (id(2), Act::Trap)]
    );

    // The spin loop, seen from inside the stuck set.
    let within = |s: StateId| !can.get(s);
    let lasso = ex.cycle_from(id(200), within).unwrap();
    assert!(lasso.stem.is_empty());
    assert_eq!(
        lasso.cycle,
        vec![(id(200), Act::Spin), (id(201), Act::Spin)]
    );
    // The sink has no cycle; a start outside the set gives none.
    assert_eq!(ex.cycle_from(id(100), within), None);
    assert_eq!(ex.cycle_from(id(3), within), None);

    // From the initial state over all states: DFS meets the self-loop at 5
    // first; the stem to it is shortest.
    let lasso = ex.cycle_from(0, |_| true).unwrap();
    assert_eq!(lasso.cycle, vec![(id(5), Act::Stay)]);
    assert_eq!(lasso.stem.len(), 5);
    // Excluding the final state, the spin loop is found, with a shortest stem.
    let lasso = ex.cycle_from(0, |s| !ex.is_final(s)).unwrap();
    assert_eq!(
        lasso.stem,
        vec![
            (id(0), Act::Inc),
            (id(1), Act::Inc),
            (id(2), Act::Inc),
            (id(3), Act::Spin)
        ]
    );
    assert_eq!(
        lasso.cycle,
        vec![(id(200), Act::Spin), (id(201), Act::Spin)]
    );
}

#[test]
fn state_limit_stops_at_bound() {
    let sys = Counters::new(4, 4); // 625 states
    for max in [0u64, 1, 2, 10, 624] {
        let ex = explore(
            &sys,
            &Options {
                max_states: Some(max),
                keep_edges: true,
                ..Options::default()
            },
        );
        assert_eq!(
            ex.outcome(),
            &Outcome::Limit(LimitKind::States),
            "max {max}"
        );
        assert_eq!(ex.num_states() as u64, max);
        // Unexpanded states count as possibly finishing: no false deadlock.
        if max > 0 {
            assert_eq!(ex.first_state_that_cannot_finish(), None);
            assert!(ex.num_expanded() < ex.num_states());
        }
    }
    let ex = explore(
        &sys,
        &Options {
            max_states: Some(625),
            ..Options::default()
        },
    );
    assert!(ex.is_complete());
}

#[test]
fn state_limit_is_prompt_on_a_huge_space() {
    let sys = Counters::new(12, 1_000_000);
    let t = Instant::now();
    let ex = explore(
        &sys,
        &Options {
            max_states: Some(1000),
            ..Options::default()
        },
    );
    assert_eq!(ex.outcome(), &Outcome::Limit(LimitKind::States));
    assert_eq!(ex.num_states(), 1000);
    assert!(t.elapsed() < Duration::from_secs(2));
}

/// An unbounded counter.
struct Forever;
impl TransitionSystem for Forever {
    type Action = ();
    type Fault = ();
    fn state_words(&self) -> usize {
        2
    }
    fn initial_state(&self, out: &mut [u32]) {
        out.fill(0);
    }
    fn actions(&self, _: &[u32], out: &mut Vec<()>) {
        out.push(());
    }
    fn step(&self, s: &[u32], _: (), out: &mut [u32]) -> Result<(), ()> {
        let v = (u64::from(s[0]) | u64::from(s[1]) << 32) + 1;
        out[0] = v as u32;
        out[1] = (v >> 32) as u32;
        Ok(())
    }
    fn is_final(&self, _: &[u32]) -> bool {
        false
    }
}

#[test]
fn time_limit_stops_promptly() {
    let t = Instant::now();
    let ex = explore(
        &Forever,
        &Options {
            deadline: deadline_in(Some(0.2)),
            progress: true,
            ..Options::default()
        },
    );
    assert_eq!(ex.outcome(), &Outcome::Limit(LimitKind::Time));
    // Promptly: well before ten times the limit, however busy the machine.
    assert!(t.elapsed() < Duration::from_secs(2));
    assert!(t.elapsed() >= Duration::from_millis(200));
    assert!(ex.num_states() > 1);
    let ex = explore(
        &Forever,
        &Options {
            deadline: deadline_in(Some(0.0)),
            ..Options::default()
        },
    );
    assert_eq!(ex.outcome(), &Outcome::Limit(LimitKind::Time));
    assert_eq!(ex.num_states(), 1);
}

#[test]
fn memory_limit_respects_own_accounting() {
    for limit in [100u64, 10_000, 1 << 20] {
        for keep_edges in [false, true] {
            let ex = explore(
                &Forever,
                &Options {
                    max_memory_bytes: Some(limit),
                    keep_edges,
                    ..Options::default()
                },
            );
            assert_eq!(ex.outcome(), &Outcome::Limit(LimitKind::Memory));
            let st = ex.stats();
            assert!(st.peak_bytes <= limit, "{} > {limit}", st.peak_bytes);
            if limit >= 10_000 {
                assert!(ex.num_states() > 100);
                // The limit is used, not wasted: over a quarter of it.
                assert!(st.peak_bytes > limit / 4);
            }
        }
    }
}

/// States scrambled through a multiplicative hash, with many merges.
struct Scramble;
impl TransitionSystem for Scramble {
    type Action = u8;
    type Fault = ();
    fn state_words(&self) -> usize {
        3
    }
    fn initial_state(&self, out: &mut [u32]) {
        out.copy_from_slice(&[1, 2, 3]);
    }
    fn actions(&self, s: &[u32], out: &mut Vec<u8>) {
        out.extend((0..3u8).filter(|&a| (s[0] >> a) & 1 == 0 || a == 0));
    }
    fn step(&self, s: &[u32], a: u8, out: &mut [u32]) -> Result<(), ()> {
        let x = s[(a as usize) % 3]
            .wrapping_mul(0x9E37_79B9)
            .rotate_left(u32::from(a) + 5);
        out[0] = (s[1] ^ x) % 37;
        out[1] = (s[2].wrapping_add(x)) % 31;
        out[2] = (s[0] ^ u32::from(a)) % 29;
        Ok(())
    }
    fn is_final(&self, s: &[u32]) -> bool {
        s[0] == 0
    }
}

/// Asserts that two explorations are the same graph with the same ids.
fn assert_same<A: Copy + PartialEq + std::fmt::Debug, F: PartialEq + std::fmt::Debug>(
    a: &Exploration<A, F>,
    b: &Exploration<A, F>,
) {
    assert_eq!(a.num_states(), b.num_states());
    assert_eq!(a.outcome(), b.outcome());
    assert_eq!(a.stats().transitions, b.stats().transitions);
    assert_eq!(a.stats().max_depth, b.stats().max_depth);
    for id in 0..a.num_states() as StateId {
        assert_eq!(a.state(id), b.state(id));
        assert_eq!(a.parent(id), b.parent(id));
        assert_eq!(a.is_final(id), b.is_final(id));
        assert!(a.successors(id).eq(b.successors(id)));
    }
}

#[test]
fn threads_do_not_change_the_result() {
    let with = |threads: usize| Options {
        threads,
        ..with_edges()
    };
    let one = explore(&Scramble, &with(1));
    assert!(one.num_states() > 1000);
    for threads in [2, 3, 8] {
        assert_same(&one, &explore(&Scramble, &with(threads)));
    }
    // Faults: the same first fault and shortest trace.
    let mut sys = Counters::new(3, 3);
    sys.bad_state = Some(vec![2, 1, 3]);
    sys.bad_step = Some((vec![1, 1, 2], 2));
    let one = explore(&sys, &with(1));
    assert!(matches!(one.outcome(), Outcome::Fault { .. }));
    for threads in [2, 4] {
        let many = explore(&sys, &with(threads));
        assert_same(&one, &many);
        assert_eq!(one.fault_path(), many.fault_path());
    }
    // Limits stop at the same place.
    let limited = |threads| Options {
        max_states: Some(700),
        ..with(threads)
    };
    assert_same(
        &explore(&Scramble, &limited(1)),
        &explore(&Scramble, &limited(2)),
    );
}

#[test]
fn hash_compaction_finds_the_same_graph_and_recomputes_states() {
    let full = explore(&Scramble, &with_edges());
    let compact = explore(
        &Scramble,
        &Options {
            hash_compaction: true,
            threads: 2,
            ..with_edges()
        },
    );
    assert_eq!(full.num_states(), compact.num_states());
    assert_eq!(full.outcome(), compact.outcome());
    assert!(compact.store().base() > 0, "expanded states were dropped");
    assert!(compact.stats().peak_bytes < full.stats().peak_bytes);
    for id in 0..full.num_states() as StateId {
        assert_eq!(full.parent(id), compact.parent(id));
        assert!(full.successors(id).eq(compact.successors(id)));
        assert_eq!(full.state(id), &compact.state_of(&Scramble, id)[..]);
    }
}

#[test]
fn determinism() {
    let opts = with_edges();
    let a = explore(&Scramble, &opts);
    let b = explore(&Scramble, &opts);
    assert!(a.num_states() > 1000, "{}", a.num_states());
    assert_same(&a, &b);
    assert_eq!(a.can_finish(), b.can_finish());
    assert_eq!(
        a.first_state_that_cannot_finish(),
        b.first_state_that_cannot_finish()
    );
    let last = a.num_states() as StateId - 1;
    assert_eq!(a.path_to(last), b.path_to(last));
    assert_eq!(a.cycle_from(0, |_| true), b.cycle_from(0, |_| true));
    // A run stopped by a state limit is a prefix of the full run.
    let c = explore(
        &Scramble,
        &Options {
            max_states: Some(500),
            ..Options::default()
        },
    );
    for id in 0..500 {
        assert_eq!(a.state(id), c.state(id));
        assert_eq!(a.parent(id), c.parent(id));
    }
}

#[test]
fn cycle_is_a_real_cycle_in_scramble() {
    let ex = explore(&Scramble, &with_edges());
    let lasso = ex
        .cycle_from(0, |_| true)
        .expect("finite graph has a cycle");
    // Stem is connected and ends where the cycle starts; the cycle closes.
    let mut cur = 0;
    for &(from, a) in lasso.stem.iter().chain(&lasso.cycle) {
        assert_eq!(from, cur);
        cur = ex
            .successors(from)
            .find(|&(b, _)| b == a)
            .map(|(_, t)| t)
            .unwrap();
    }
    assert_eq!(cur, lasso.cycle[0].0);
}

#[test]
#[should_panic(expected = "keep_edges")]
fn graph_needs_edges() {
    let ex = explore(&Counters::new(1, 1), &Options::default());
    assert!(!ex.has_edges());
    ex.first_state_that_cannot_finish();
}

/// [`Scramble`] with faults where a state (or a step from it) hits `seed`,
/// and optionally "ample sets" (one action of some states: not a sound
/// reduction, but one the explorer must apply, proviso included, exactly
/// as a sequential search does).
struct FaultyScramble {
    bad_state: Option<u32>,
    bad_step: Option<(u32, u8)>,
    ample: bool,
}

fn mark(s: &[u32]) -> u32 {
    (s[0] * 31 + s[1] * 7 + s[2]) % 211
}

impl TransitionSystem for FaultyScramble {
    type Action = u8;
    type Fault = u32;
    fn state_words(&self) -> usize {
        3
    }
    fn initial_state(&self, out: &mut [u32]) {
        Scramble.initial_state(out)
    }
    fn actions(&self, s: &[u32], out: &mut Vec<u8>) {
        Scramble.actions(s, out)
    }
    fn step(&self, s: &[u32], a: u8, out: &mut [u32]) -> Result<(), u32> {
        if self.bad_step == Some((mark(s), a)) {
            return Err(1000 + mark(s));
        }
        Scramble.step(s, a, out).map_err(|_| 0)
    }
    fn check_state(&self, s: &[u32]) -> Result<(), u32> {
        match self.bad_state == Some(mark(s)) {
            true => Err(mark(s)),
            false => Ok(()),
        }
    }
    fn is_final(&self, s: &[u32]) -> bool {
        Scramble.is_final(s)
    }
    fn ample_actions(&self, s: &[u32], out: &mut Vec<u8>) -> bool {
        self.actions(s, out);
        // Also "reduced" where one action is all there is: the proviso then
        // finds terminal components of reduced states to expand fully.
        let reduce = self.ample && !s[1].is_multiple_of(13);
        if reduce {
            out.truncate(1);
        }
        reduce
    }
    fn reduces(&self) -> bool {
        self.ample
    }
}

/// The successors a sequential search takes from `cur` by `actions` (its
/// ample set, or every enabled action); stops at a failing step.
#[allow(clippy::type_complexity)]
fn reference_successors<S: TransitionSystem>(
    sys: &S,
    cur: &[u32],
    actions: Vec<S::Action>,
) -> (Vec<(S::Action, Vec<u32>)>, Option<(S::Action, S::Fault)>) {
    let mut succs = Vec::new();
    for a in actions {
        let mut next = vec![0; cur.len()];
        if let Err(fault) = sys.step(cur, a, &mut next) {
            return (succs, Some((a, fault)));
        }
        sys.canonicalize(&mut next);
        succs.push((a, next));
    }
    (succs, None)
}

/// The smallest state of each terminal strongly connected component of the
/// graph `edges` whose states are all `reduced`, in increasing order
/// (petgraph's Tarjan on the whole graph, independent of the explorer's).
fn reference_unexpanded_components<A>(
    edges: &[Vec<(A, StateId)>],
    reduced: &[bool],
) -> Vec<StateId> {
    use petgraph::graph::{DiGraph, NodeIndex};
    let mut g: DiGraph<(), ()> = DiGraph::new();
    let nodes: Vec<NodeIndex> = (0..edges.len()).map(|_| g.add_node(())).collect();
    for (s, out) in edges.iter().enumerate() {
        for &(_, t) in out {
            g.add_edge(nodes[s], nodes[t as usize], ());
        }
    }
    let mut found: Vec<StateId> = petgraph::algo::tarjan_scc(&g)
        .into_iter()
        .filter(|scc| {
            let inside: std::collections::HashSet<usize> = scc.iter().map(|n| n.index()).collect();
            let terminal = inside.iter().all(|&s| {
                edges[s]
                    .iter()
                    .all(|&(_, t)| inside.contains(&(t as usize)))
            });
            terminal && inside.iter().all(|&s| reduced[s])
        })
        .map(|scc| scc.iter().map(|n| n.index() as StateId).min().unwrap())
        .collect();
    found.sort_unstable();
    found
}

/// What a plain sequential breadth-first search finds: states by id,
/// parents, the edges of expanded states, transitions and the outcome.
struct Reference<A, F> {
    states: Vec<Vec<u32>>,
    parents: Vec<Option<(StateId, A)>>,
    edges: Vec<Vec<(A, StateId)>>,
    transitions: u64,
    outcome: Outcome<A, F>,
    /// States the proviso expanded fully.
    proviso: usize,
    /// Expanded states that kept a proper ample subset (`Stats::ample_reduced`).
    ample_reduced: u64,
}

impl<A: Copy, F> Reference<A, F> {
    /// Stores the successors `succs` of `from` (new ones with `check_state`),
    /// counting a transition each; returns their edges, or why it stopped.
    fn store<S: TransitionSystem<Action = A, Fault = F>>(
        &mut self,
        sys: &S,
        ids: &mut std::collections::HashMap<Vec<u32>, StateId>,
        (from, succs): (StateId, Vec<(A, Vec<u32>)>),
        max_states: usize,
    ) -> Result<Vec<(A, StateId)>, Outcome<A, F>> {
        let mut edges = Vec::new();
        for (a, next) in succs {
            self.transitions += 1;
            let to = match ids.get(&next) {
                Some(&id) => id,
                None if self.states.len() >= max_states => {
                    return Err(Outcome::Limit(LimitKind::States));
                }
                None => {
                    let id = self.states.len() as StateId;
                    ids.insert(next.clone(), id);
                    self.states.push(next.clone());
                    self.parents.push(Some((from, a)));
                    if let Err(fault) = sys.check_state(&next) {
                        return Err(Outcome::Fault {
                            state: id,
                            action: None,
                            fault,
                        });
                    }
                    id
                }
            };
            edges.push((a, to));
        }
        Ok(edges)
    }
}

/// A plain sequential search: breadth first by ample sets; when nothing is
/// left, the smallest state of each terminal component of reduced states
/// is expanded fully (in id order), and the search goes on.
fn reference<S: TransitionSystem>(sys: &S, max_states: usize) -> Reference<S::Action, S::Fault> {
    let mut init = vec![0; sys.state_words()];
    sys.initial_state(&mut init);
    let mut r = Reference {
        states: vec![init.clone()],
        parents: vec![None],
        edges: Vec::new(),
        transitions: 0,
        outcome: Outcome::Complete,
        proviso: 0,
        ample_reduced: 0,
    };
    let mut ids = std::collections::HashMap::from([(init.clone(), 0)]);
    if let Err(fault) = sys.check_state(&init) {
        r.outcome = Outcome::Fault {
            state: 0,
            action: None,
            fault,
        };
        return r;
    }
    let mut reduced = Vec::new();
    loop {
        while r.edges.len() < r.states.len() {
            let head = r.edges.len();
            let cur = r.states[head].clone();
            let mut ample = Vec::new();
            reduced.push(sys.ample_actions(&cur, &mut ample));
            let (succs, fault) = reference_successors(sys, &cur, ample);
            let edges = match r.store(sys, &mut ids, (head as StateId, succs), max_states) {
                Ok(edges) => edges,
                Err(end) => {
                    r.outcome = end;
                    return r;
                }
            };
            if let Some((a, fault)) = fault {
                r.outcome = Outcome::Fault {
                    state: head as StateId,
                    action: Some(a),
                    fault,
                };
                return r;
            }
            r.edges.push(edges);
        }
        let chosen = reference_unexpanded_components(&r.edges, &reduced);
        if chosen.is_empty() {
            r.ample_reduced = reduced.iter().filter(|&&b| b).count() as u64;
            return r;
        }
        for f in chosen {
            let cur = r.states[f as usize].clone();
            let mut all = Vec::new();
            sys.actions(&cur, &mut all);
            let (succs, fault) = reference_successors(sys, &cur, all);
            // A full expansion counts its transitions only once complete.
            let counted = r.transitions;
            let edges = match r.store(sys, &mut ids, (f, succs), max_states) {
                Ok(edges) => edges,
                Err(end) => {
                    r.transitions = counted;
                    r.outcome = end;
                    return r;
                }
            };
            if let Some((a, fault)) = fault {
                r.transitions = counted;
                r.outcome = Outcome::Fault {
                    state: f,
                    action: Some(a),
                    fault,
                };
                return r;
            }
            r.transitions = counted + (edges.len() - r.edges[f as usize].len()) as u64;
            r.edges[f as usize] = edges;
            reduced[f as usize] = false;
            r.proviso += 1;
        }
    }
}

/// The batched, parallel search stores and stops exactly where the plain
/// sequential one does, for faults and limits at many places.
#[test]
fn batches_match_a_plain_sequential_search() {
    let mut cases = vec![(None, None, usize::MAX)];
    for m in [0, 3, 17, 50, 101, 150, 210] {
        cases.push((Some(m), None, usize::MAX));
        cases.push((None, Some((m, (m % 3) as u8)), usize::MAX));
    }
    for max in [1, 2, 65, 130, 700, 1500] {
        cases.push((None, None, max));
    }
    let mut seen = [0; 4];
    let mut proviso = 0;
    for ((bad_state, bad_step, max), ample) in
        cases.into_iter().flat_map(|c| [(c, false), (c, true)])
    {
        let sys = FaultyScramble {
            bad_state,
            bad_step,
            ample,
        };
        let want = reference(&sys, max);
        proviso += want.proviso;
        seen[match &want.outcome {
            Outcome::Complete => 0,
            Outcome::Limit(_) => 1,
            Outcome::Fault { action: None, .. } => 2,
            Outcome::Fault { .. } => 3,
            Outcome::Stuck { .. } => unreachable!("no early deadlock asked for"),
        }] += 1;
        // The proviso keeps the reduced graph's edges itself when they are
        // not asked for: the same search either way.
        for (threads, keep_edges) in [(1, true), (2, true), (4, true), (2, false)] {
            let got = explore(
                &sys,
                &Options {
                    threads,
                    max_states: Some(max as u64).filter(|_| max != usize::MAX),
                    keep_edges,
                    ..Options::default()
                },
            );
            let case = format!("{bad_state:?} {bad_step:?} {max} ample {ample} x{threads}");
            assert_eq!(got.outcome(), &want.outcome, "{case}");
            assert_eq!(got.num_states(), want.states.len(), "{case}");
            assert_eq!(got.num_expanded(), want.edges.len(), "{case}");
            assert_eq!(got.stats().transitions, want.transitions, "{case}");
            if want.outcome == Outcome::Complete {
                assert_eq!(got.stats().ample_reduced, want.ample_reduced, "{case}");
                assert_eq!(want.ample_reduced > 0, ample, "{case}");
            }
            for id in 0..got.num_states() {
                assert_eq!(got.state(id as StateId), &want.states[id][..], "{case}");
                assert_eq!(got.parent(id as StateId), want.parents[id], "{case}");
            }
            assert_eq!(got.has_edges(), keep_edges, "{case}");
            if !keep_edges {
                continue;
            }
            for (id, edges) in want.edges.iter().enumerate() {
                assert!(
                    got.successors(id as StateId).eq(edges.iter().copied()),
                    "{case}"
                );
            }
        }
    }
    // Every kind of ending, several times, at different depths.
    assert!(proviso > 0, "the proviso never fired");
    assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
    assert!(seen[2] > 2 && seen[3] > 2, "{seen:?}");
}

/// The proviso's Tarjan over the states from some id on agrees with
/// petgraph's over the whole graph where the older states count as fully
/// expanded, on random graphs of many small cycles.
#[test]
fn terminal_components_match_petgraph() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let mut found = 0;
    for round in 0..300 {
        let n = 1 + next(60) as usize;
        let edges: Vec<Vec<((), StateId)>> = (0..n)
            .map(|s| {
                // Mostly near neighbours, so that there are many components.
                (0..next(3))
                    .map(|_| match next(4) {
                        0 => ((), next(n as u64) as StateId),
                        _ => ((), ((s + n - 2 + next(5) as usize) % n) as StateId),
                    })
                    .collect()
            })
            .collect();
        let from = next(n as u64) as usize;
        let reduced: Vec<bool> = (0..n).map(|s| s >= from && next(8) != 0).collect();
        let want = reference_unexpanded_components(&edges, &reduced);
        let targets: Vec<Vec<StateId>> = edges
            .iter()
            .map(|l| l.iter().map(|&(_, t)| t).collect())
            .collect();
        let mut bits = BitSet::default();
        reduced.iter().for_each(|&b| bits.push(b));
        let got = proviso::unexpanded_terminal_components(
            |s| &targets[s as usize],
            &bits,
            (from, n),
            n * 64,
            None,
        )
        .unwrap()
        .unexpanded;
        assert_eq!(got, want, "round {round}: {edges:?} from {from}");
        found += got.len();
    }
    assert!(found > 100, "{found}");
}

/// With ample sets the proviso's edges, bits and search count toward the
/// memory limit, and hash compaction (which drops the words of expanded
/// states, recomputed for their full expansion) finds the same search.
#[test]
fn the_proviso_keeps_to_memory_limits_and_hash_compaction() {
    let sys = FaultyScramble {
        bad_state: None,
        bad_step: None,
        ample: true,
    };
    let want = reference(&sys, usize::MAX);
    assert!(want.proviso > 0);
    let compact = explore(
        &sys,
        &Options {
            hash_compaction: true,
            threads: 2,
            ..Options::default()
        },
    );
    assert_eq!(compact.outcome(), &want.outcome);
    assert_eq!(compact.num_states(), want.states.len());
    assert_eq!(compact.stats().transitions, want.transitions);
    for id in 0..compact.num_states() as StateId {
        assert_eq!(compact.parent(id), want.parents[id as usize]);
    }
    let full = explore(&sys, &Options::default()).stats().peak_bytes;
    for limit in [full / 4, full / 2, full - 1] {
        let e = explore(
            &sys,
            &Options {
                max_memory_bytes: Some(limit),
                ..Options::default()
            },
        );
        assert_eq!(e.outcome(), &Outcome::Limit(LimitKind::Memory), "{limit}");
        assert!(
            e.stats().peak_bytes <= limit,
            "{} > {limit}",
            e.stats().peak_bytes
        );
    }
    let e = explore(
        &sys,
        &Options {
            max_memory_bytes: Some(full),
            ..Options::default()
        },
    );
    assert!(e.is_complete());
}

/// [`Counters`] that jam in one state: nothing is enabled there, and it is
/// not final (a stuck state).
struct Jammed {
    counters: Counters,
    jam: Vec<u32>,
}

impl TransitionSystem for Jammed {
    type Action = usize;
    type Fault = &'static str;

    fn state_words(&self) -> usize {
        self.counters.state_words()
    }
    fn initial_state(&self, out: &mut [u32]) {
        self.counters.initial_state(out);
    }
    fn actions(&self, state: &[u32], out: &mut Vec<usize>) {
        if state != self.jam {
            self.counters.actions(state, out);
        }
    }
    fn step(&self, state: &[u32], a: usize, out: &mut [u32]) -> Result<(), &'static str> {
        self.counters.step(state, a, out)
    }
    fn is_final(&self, state: &[u32]) -> bool {
        self.counters.is_final(state)
    }
}

#[test]
fn early_deadlock_stops_at_the_least_deep_stuck_state() {
    let sys = Jammed {
        counters: Counters::new(3, 3),
        jam: vec![2, 1, 0],
    };
    let full = explore(&sys, &with_edges());
    assert!(full.is_complete(), "without the check the search goes on");
    let jam = full.find(&sys.jam).expect("the jam is reachable");
    assert_eq!(full.successors(jam).len(), 0);
    for threads in [1, 2, 4] {
        let early = explore(
            &sys,
            &Options {
                early_deadlock: true,
                threads,
                ..with_edges()
            },
        );
        let Outcome::Stuck { state } = *early.outcome() else {
            panic!("stopped at the jam: {:?}", early.outcome());
        };
        assert_eq!(early.state(state), &sys.jam[..], "{threads} threads");
        assert_eq!(early.path_to(state).len(), 3, "a shortest trace");
        assert!(early.is_expanded(state), "the stuck state was expanded");
        assert!(early.num_states() < full.num_states(), "stopped early");
        assert_eq!(
            early.find(&sys.jam),
            Some(jam),
            "the same ids as the whole search"
        );
    }
}

#[test]
fn a_final_state_is_not_stuck() {
    let sys = Counters::new(3, 2);
    let early = explore(
        &sys,
        &Options {
            early_deadlock: true,
            ..Options::default()
        },
    );
    assert!(early.is_complete());
    assert_eq!(early.stats().final_states, 1);
}

//! Deterministic breadth-first exploration.

use std::sync::OnceLock;
use std::time::Instant;

use super::bitset::BitSet;
use super::expand::{Chunk, Expander, Succ};
use super::graph::{Edges, Reverse};
use super::limits::{vec_bytes, LimitKind, Options, Projection};
use super::progress::Progress;
use super::proviso;
use super::stats::{peak_rss_bytes, Stats};
use super::store::{Slot, StateId, StateStore, MAX_STATES};
use super::TransitionSystem;

/// Parent marker of the initial state.
const NO_PARENT: StateId = StateId::MAX;

/// How often (in expanded states) the clock and the progress bar are checked.
const CHECK_EVERY: usize = 256;

/// How an exploration ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome<A, F> {
    /// Every reachable state was stored and expanded; no fault.
    Complete,
    /// A fault was found; the search stopped there. Breadth-first order
    /// makes the trace to it a shortest one.
    ///
    /// - `action == None`: `check_state` rejected `state` (the initial state
    ///   or a newly reached one); the trace is
    ///   [`Exploration::path_to`]`(state)`.
    /// - `action == Some(a)`: `step(state, a)` returned the fault; the trace
    ///   is `path_to(state)` followed by `(state, a)`.
    ///
    /// [`Exploration::fault_path`] builds that trace.
    Fault {
        /// Where the fault was detected.
        state: StateId,
        /// The step taken from `state` that raised it, if it came from `step`.
        action: Option<A>,
        /// The violation.
        fault: F,
    },
    /// A limit of [`Options`] stopped the search first.
    Limit(LimitKind),
}

/// The result of [`explore`]: the stored states, their BFS tree (parent and
/// action of every state), final states, optional edges, outcome and stats.
pub struct Exploration<A, F> {
    pub(super) store: StateStore,
    /// Parent of every state ([`NO_PARENT`] for the initial state).
    pub(super) parents: Vec<StateId>,
    /// `via[id - 1]`: the action from `parents[id]` that first reached `id`.
    pub(super) via: Vec<A>,
    pub(super) finals: BitSet,
    /// States `0..expanded` had all their successors generated.
    pub(super) expanded: usize,
    pub(super) edges: Option<Edges<A>>,
    pub(super) reverse: OnceLock<Reverse>,
    pub(super) outcome: Outcome<A, F>,
    pub(super) stats: Stats,
}

impl<A: Copy, F> Exploration<A, F> {
    /// How the search ended.
    pub fn outcome(&self) -> &Outcome<A, F> {
        &self.outcome
    }

    /// Whether every reachable state was explored without a fault.
    pub fn is_complete(&self) -> bool {
        matches!(self.outcome, Outcome::Complete)
    }

    /// The words of state `id`.
    pub fn state(&self, id: StateId) -> &[u32] {
        self.store.get(id)
    }

    /// The words of state `id`, recomputed along its path from the initial
    /// state when hash compaction dropped them.
    pub fn state_of<S>(&self, sys: &S, id: StateId) -> std::borrow::Cow<'_, [u32]>
    where
        S: TransitionSystem<Action = A, Fault = F>,
    {
        if self.store.has_words(id) {
            return std::borrow::Cow::Borrowed(self.store.get(id));
        }
        let mut state = vec![0u32; self.store.words()];
        let mut next = state.clone();
        sys.initial_state(&mut state);
        sys.canonicalize(&mut state);
        for (_, a) in self.path_to(id) {
            if sys.step(&state, a, &mut next).is_ok() {
                sys.canonicalize(&mut next);
                std::mem::swap(&mut state, &mut next);
            }
        }
        std::borrow::Cow::Owned(state)
    }

    /// The id of a stored state.
    pub fn find(&self, state: &[u32]) -> Option<StateId> {
        self.store.find(state)
    }

    /// Number of stored states (ids are `0..num_states()`).
    pub fn num_states(&self) -> usize {
        self.store.len()
    }

    /// Number of states whose successors were all generated (ids
    /// `0..num_expanded()`); equals `num_states()` after a complete run.
    pub fn num_expanded(&self) -> usize {
        self.expanded
    }

    /// Whether all successors of `id` were generated.
    pub fn is_expanded(&self, id: StateId) -> bool {
        (id as usize) < self.expanded
    }

    /// Whether `id` is a final state.
    pub fn is_final(&self, id: StateId) -> bool {
        self.finals.get(id)
    }

    /// The final states, one bit per state.
    pub fn final_states(&self) -> &BitSet {
        &self.finals
    }

    /// The BFS parent of `id` and the action that first reached it
    /// (`None` for the initial state).
    pub fn parent(&self, id: StateId) -> Option<(StateId, A)> {
        match self.parents[id as usize] {
            NO_PARENT => None,
            p => Some((p, self.via[id as usize - 1])),
        }
    }

    /// BFS depth of `id` (length of its shortest path).
    pub fn depth(&self, id: StateId) -> usize {
        let mut n = 0;
        let mut cur = id;
        while let Some((p, _)) = self.parent(cur) {
            n += 1;
            cur = p;
        }
        n
    }

    /// A shortest path from the initial state to `id`: the steps
    /// `(from, action)` in order; empty for the initial state.
    pub fn path_to(&self, id: StateId) -> Vec<(StateId, A)> {
        let mut path = Vec::new();
        let mut cur = id;
        while let Some(step) = self.parent(cur) {
            path.push(step);
            cur = step.0;
        }
        path.reverse();
        path
    }

    /// The shortest trace to the fault, if the outcome is a fault: the steps
    /// `(from, action)` from the initial state, ending with the faulting
    /// step when the fault came from `step`.
    pub fn fault_path(&self) -> Option<Vec<(StateId, A)>> {
        match &self.outcome {
            Outcome::Fault { state, action, .. } => {
                let mut path = self.path_to(*state);
                if let Some(a) = action {
                    path.push((*state, *a));
                }
                Some(path)
            }
            _ => None,
        }
    }

    /// Figures of the run.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The visited set.
    pub fn store(&self) -> &StateStore {
        &self.store
    }
}

/// Explores the states reachable from the initial state of `sys` breadth
/// first, in a deterministic order: ids are assigned in discovery order,
/// states are expanded in id order and actions in the order `actions` gives
/// them, so the same system always yields the same ids and result.
pub fn explore<S: TransitionSystem>(sys: &S, opts: &Options) -> Exploration<S::Action, S::Fault> {
    let mut bfs = Bfs::new(sys, opts);
    let outcome = bfs.run();
    bfs.finish(outcome)
}

struct Bfs<'a, S: TransitionSystem> {
    sys: &'a S,
    opts: &'a Options,
    max_states: usize,
    start: Instant,
    store: StateStore,
    parents: Vec<StateId>,
    via: Vec<S::Action>,
    finals: BitSet,
    edges: Option<Edges<S::Action>>,
    expanded: usize,
    transitions: u64,
    max_depth: u32,
    peak_bytes: usize,
    progress: Progress,
}

impl<'a, S: TransitionSystem> Bfs<'a, S> {
    fn new(sys: &'a S, opts: &'a Options) -> Self {
        let max_states = opts
            .max_states
            .map_or(MAX_STATES, |m| m.min(MAX_STATES as u64) as usize);
        Self {
            sys,
            opts,
            max_states,
            start: Instant::now(),
            store: match opts.hash_compaction {
                true => StateStore::compact(sys.state_words()),
                false => StateStore::new(sys.state_words()),
            },
            parents: Vec::new(),
            via: Vec::new(),
            finals: BitSet::default(),
            edges: opts.keep_edges.then(Edges::default),
            expanded: 0,
            transitions: 0,
            max_depth: 0,
            peak_bytes: 0,
            progress: Progress::new(opts.progress),
        }
    }

    /// Bytes allocated by the explorer now.
    fn bytes(&self) -> usize {
        self.store.bytes()
            + vec_bytes(&self.parents)
            + vec_bytes(&self.via)
            + vec_bytes(self.finals.words_vec())
            + self.edges.as_ref().map_or(0, Edges::bytes)
    }

    /// Makes room for `n` more states and transitions, unless that would
    /// break the memory limit (then returns `false` and allocates nothing).
    fn reserve(&mut self, n: usize) -> bool {
        let mut p = Projection::default();
        p.add(self.store.bytes_after_reserve(n));
        p.vec(&self.parents, n);
        p.vec(&self.via, n);
        p.vec(self.finals.words_vec(), self.finals.words_needed(n));
        if let Some(e) = &self.edges {
            e.project(&mut p, n);
        }
        if let Some(limit) = self.opts.max_memory_bytes {
            if p.peak() as u64 > limit {
                return false;
            }
        }
        self.peak_bytes = self.peak_bytes.max(p.peak());
        self.store.reserve(n);
        self.parents.reserve(n);
        self.via.reserve(n);
        self.finals.reserve(n);
        if let Some(e) = &mut self.edges {
            e.reserve(n);
        }
        true
    }

    fn run(&mut self) -> Outcome<S::Action, S::Fault> {
        let sys = self.sys;
        let words = self.store.words();
        let mut cur = vec![0u32; words];

        // The initial state.
        sys.initial_state(&mut cur);
        sys.canonicalize(&mut cur);
        if self.max_states == 0 {
            return Outcome::Limit(LimitKind::States);
        }
        if !self.reserve(1) {
            return Outcome::Limit(LimitKind::Memory);
        }
        self.store.insert(&cur);
        self.parents.push(NO_PARENT);
        self.finals.push(sys.is_final(&cur));
        if let Err(fault) = sys.check_state(&cur) {
            return Outcome::Fault {
                state: 0,
                action: None,
                fault,
            };
        }

        let mut depth: u32 = 0;
        let mut level_end: usize = 1;
        let mut head: usize = 0;
        let mut expander = Expander::new(self.opts.threads.max(1));
        let mut full = Chunk::new();
        while head < self.store.len() {
            self.store.forget_before(head as StateId);
            let count = expander.batch().min(self.store.len() - head);
            let chunks = expander.expand(sys, &self.store, head as StateId, count);
            for chunk in chunks {
                let mut from = 0;
                for (i, &end) in chunk.ends.iter().enumerate() {
                    if head == level_end {
                        depth += 1;
                        level_end = self.store.len();
                    }
                    if head.is_multiple_of(CHECK_EVERY) {
                        if let Some(limit) = self.check_clock(depth) {
                            return Outcome::Limit(limit);
                        }
                    }
                    let head_id = head as StateId;
                    let range = from..end;
                    from = end;
                    let ended = if chunk.reduced[i]
                        && proviso::closes_cycle(&self.store, chunk, range.clone(), level_end)
                    {
                        // Cycle proviso: this state takes every enabled step.
                        full.fill(sys, &self.store, (head_id, 1), false, false);
                        self.merge_state(sys, &full, (0, 0..full.ends[0]), head_id, depth)
                    } else {
                        self.merge_state(sys, chunk, (i, range), head_id, depth)
                    };
                    if let Some(outcome) = ended {
                        return outcome;
                    }
                    if let Some(e) = &mut self.edges {
                        e.close_state();
                    }
                    head += 1;
                    self.expanded = head;
                }
            }
        }
        Outcome::Complete
    }

    /// Merges the successors `range` of the state at index `i` of `chunk`
    /// (the state `head`); returns the outcome that ends the search, if any.
    fn merge_state(
        &mut self,
        sys: &S,
        chunk: &Chunk<S::Action, S::Fault>,
        (i, range): (usize, std::ops::Range<usize>),
        head: StateId,
        depth: u32,
    ) -> Option<Outcome<S::Action, S::Fault>> {
        if !self.reserve(chunk.enabled[i]) {
            return Some(Outcome::Limit(LimitKind::Memory));
        }
        let words = self.store.words();
        for k in range {
            let succ = chunk.succs[k];
            if let Some(fault) = self.merge(sys, chunk.state(k, words), succ, head, depth) {
                return Some(fault);
            }
        }
        match &chunk.fault {
            Some((at, a, fault)) if *at == i => Some(Outcome::Fault {
                state: head,
                action: Some(*a),
                fault: fault.clone(),
            }),
            _ => None,
        }
    }

    /// The time limit and the progress bar, checked every few states.
    fn check_clock(&mut self, depth: u32) -> Option<LimitKind> {
        if let Some(limit) = self.opts.max_seconds {
            if self.start.elapsed().as_secs_f64() >= limit {
                return Some(LimitKind::Time);
            }
        }
        if self.progress.active() {
            let bytes = self.bytes();
            self.progress
                .update(self.start, self.store.len(), depth, bytes);
        }
        None
    }

    /// Adds the step `head --action--> state` to the graph, storing `state`
    /// if new; returns the outcome that ends the search, if any.
    #[inline]
    fn merge(
        &mut self,
        sys: &S,
        state: &[u32],
        succ: Succ<S::Action>,
        head: StateId,
        depth: u32,
    ) -> Option<Outcome<S::Action, S::Fault>> {
        self.transitions += 1;
        let slot = match succ.known {
            Some(id) => Slot::Old(id),
            None => self.store.insert_hashed(state, succ.hash, self.max_states),
        };
        let (to, is_new) = match slot {
            Slot::Old(id) => (id, false),
            Slot::New(id) => (id, true),
            Slot::Full => return Some(Outcome::Limit(LimitKind::States)),
        };
        if let Some(e) = &mut self.edges {
            e.push(succ.action, to);
        }
        if is_new {
            self.parents.push(head);
            self.via.push(succ.action);
            self.finals.push(sys.is_final(state));
            self.max_depth = depth + 1;
            if let Err(fault) = sys.check_state(state) {
                return Some(Outcome::Fault {
                    state: to,
                    action: None,
                    fault,
                });
            }
        }
        None
    }

    fn finish(mut self, outcome: Outcome<S::Action, S::Fault>) -> Exploration<S::Action, S::Fault> {
        self.progress.finish();
        if let Some(e) = &mut self.edges {
            e.truncate_to_closed();
        }
        self.peak_bytes = self.peak_bytes.max(self.bytes());
        let seconds = self.start.elapsed().as_secs_f64();
        let states = self.store.len() as u64;
        let stats = Stats {
            states,
            expanded: self.expanded as u64,
            transitions: self.transitions,
            final_states: self.finals.count_ones() as u64,
            max_depth: self.max_depth,
            seconds,
            states_per_second: if seconds > 0.0 {
                states as f64 / seconds
            } else {
                0.0
            },
            peak_bytes: self.peak_bytes as u64,
            peak_rss_bytes: peak_rss_bytes(),
        };
        Exploration {
            store: self.store,
            parents: self.parents,
            via: self.via,
            finals: self.finals,
            expanded: self.expanded,
            edges: self.edges,
            reverse: OnceLock::new(),
            outcome,
            stats,
        }
    }
}

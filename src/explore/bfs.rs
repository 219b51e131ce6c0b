//! Deterministic breadth-first exploration.

mod terminal;

use crate::clock::Instant;
use std::sync::OnceLock;

use super::batch::Claims;
use super::bitset::BitSet;
use super::edges::{Edges, Reverse};
use super::expand::{batch_len, Chunk, Expander};
use super::limits::{vec_bytes, LimitKind, Options, Projection};
use super::progress::Progress;
use super::stats::{peak_rss_bytes, Phase, Phases, Stats};
use super::store::{StateId, StateStore, MAX_STATES};
use super::table::Claim;
use super::workers::Workers;
use super::TransitionSystem;

/// Parent marker of the initial state.
const NO_PARENT: StateId = StateId::MAX;

/// Where a batch stops, in the order a sequential search meets the events
/// at one successor position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Stop {
    /// A step failed (the position is just after the state's successors).
    Step,
    /// A stuck state was expanded (no successors: the position is where
    /// the next state's would start).
    Stuck,
    /// A new state found the store at its bound.
    Full,
    /// The invariants reject a new state (its index among the chunk's winners).
    Invalid(usize),
}

/// The BFS level being expanded: its depth, and the first id past it.
struct Level {
    depth: u32,
    end: usize,
}

/// How an exploration ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome<A, F> {
    /// Every reachable state was stored and expanded; no fault.
    Complete,
    /// A fault was found; the search stopped there. Breadth-first order
    /// makes the trace to it a shortest one (in the reduced graph as far
    /// as the proviso had expanded it, see `proviso`).
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
    /// With [`Options::early_deadlock`]: `state`, not final, has no enabled
    /// step; the search stopped when it expanded it. States are expanded in
    /// breadth-first order, so it is a stuck state of least depth, and
    /// [`Exploration::path_to`] a shortest trace to one (in the reduced
    /// graph, as for a fault).
    Stuck {
        /// The stuck state (expanded, without successors).
        state: StateId,
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
    /// [`Exploration::can_finish`], computed on first use: the deadlock
    /// check asks twice (`progress_while_stuck`, then `find`).
    pub(super) finishing: OnceLock<BitSet>,
    /// The words of every held state, decoded on the first [`Exploration::state`].
    pub(super) decoded: OnceLock<Vec<u32>>,
    pub(super) outcome: Outcome<A, F>,
    pub(super) stats: Stats,
    /// The search's workers, kept for the graph analyses
    /// ([`Exploration::can_reach`]) when the edges are kept.
    pub(super) workers: Workers,
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

    /// The words of state `id`. The first call decodes every held state
    /// (a copy of them all, as words): for tests and small runs; analyses
    /// of whole state spaces use [`read_state`](Self::read_state) or
    /// [`decode_state`](Self::decode_state).
    pub fn state(&self, id: StateId) -> &[u32] {
        let words = self.store.words();
        let base = self.store.base() as usize;
        let all = self.decoded.get_or_init(|| {
            let mut all = vec![0u32; (self.store.len() - base) * words];
            for (i, out) in all.chunks_exact_mut(words.max(1)).enumerate() {
                self.store.read((base + i) as StateId, out);
            }
            all
        });
        // Out of range or dropped: the store says which.
        if !self.store.has_words(id) {
            self.store.get(id);
        }
        let i = id as usize - base;
        &all[i * words..(i + 1) * words]
    }

    /// Writes the words of state `id` into `out` (`state_words()` long).
    pub fn read_state(&self, id: StateId, out: &mut [u32]) {
        self.store.read(id, out);
    }

    /// The words of state `id`, decoded anew (no copy of the others kept).
    pub fn decode_state(&self, id: StateId) -> Vec<u32> {
        self.store.get(id)
    }

    /// The words of state `id`, recomputed along its path from the initial
    /// state when hash compaction dropped them.
    pub fn state_of<S>(&self, sys: &S, id: StateId) -> std::borrow::Cow<'_, [u32]>
    where
        S: TransitionSystem<Action = A, Fault = F>,
    {
        std::borrow::Cow::Owned(words_of(sys, &self.store, (&self.parents, &self.via), id))
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
        tree_path((&self.parents, &self.via), id)
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
    let workers = Workers::of(opts.pool, opts.threads.max(1));
    let outcome = bfs.run(&workers);
    bfs.finish(outcome, workers)
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
    /// The reduced graph's edges: kept for the proviso while the system
    /// reduces, and for the caller with [`Options::keep_edges`].
    edges: Option<Edges<S::Action>>,
    /// While the system reduces: which expanded states took only an ample
    /// subset of their steps (`proviso`).
    reduced: Option<BitSet>,
    /// States before this one were searched for terminal components.
    searched: usize,
    /// States the proviso expanded fully.
    full_expansions: u64,
    expanded: usize,
    transitions: u64,
    max_depth: u32,
    peak_bytes: usize,
    /// Bytes the last batch's successors took per expanded state (sizes
    /// the next batch: `batch_len`).
    succ_bytes_per_state: usize,
    /// Successors per expanded state in the last batch (for
    /// [`grow_ahead`](Self::grow_ahead)).
    succs_per_state: usize,
    progress: Progress,
    /// Time per phase, and the clock of the phase running now.
    phases: Phases,
    lap: Instant,
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
                false => {
                    StateStore::new(sys.state_words()).with_parts(match opts.no_tree_compression {
                        false => sys.state_parts(),
                        true => Vec::new(),
                    })
                }
            },
            parents: Vec::new(),
            via: Vec::new(),
            finals: BitSet::default(),
            edges: (opts.keep_edges || sys.reduces()).then(Edges::default),
            reduced: sys.reduces().then(BitSet::default),
            searched: 0,
            full_expansions: 0,
            expanded: 0,
            transitions: 0,
            max_depth: 0,
            peak_bytes: 0,
            succ_bytes_per_state: 0,
            succs_per_state: 0,
            progress: Progress::new(opts),
            phases: Phases::default(),
            lap: Instant::now(),
        }
    }

    /// Bytes allocated by the explorer now.
    fn bytes(&self) -> usize {
        self.store.bytes()
            + vec_bytes(&self.parents)
            + vec_bytes(&self.via)
            + vec_bytes(self.finals.words_vec())
            + self.edges.as_ref().map_or(0, Edges::bytes)
            + self
                .reduced
                .as_ref()
                .map_or(0, |r| vec_bytes(r.words_vec()))
    }

    /// Makes room for `n` more states (of `bytes` bytes of codes in all),
    /// `sources` more expanded states and `transitions` more edges, unless
    /// that would break the memory limit (then returns `false` and
    /// allocates nothing). What the process holds outside the explorer's
    /// own buffers (batch buffers, the model, earlier phases) counts too.
    fn reserve(
        &mut self,
        workers: &Workers,
        (n, bytes): (usize, usize),
        sources: usize,
        transitions: usize,
    ) -> bool {
        if !self.fits((n, bytes), sources, transitions) {
            return false;
        }
        self.store.reserve_on(n, bytes, workers);
        self.parents.reserve(n);
        self.via.reserve(n);
        self.finals.reserve(n);
        if let Some(e) = &mut self.edges {
            e.reserve(sources, transitions);
        }
        true
    }

    /// Whether the memory after [`reserve`](Self::reserve) keeps to the
    /// limit; if so, its peak counts towards the explorer's.
    fn fits(&mut self, (n, bytes): (usize, usize), sources: usize, transitions: usize) -> bool {
        let mut p = Projection::default();
        p.add(self.store.bytes_after_reserve(n, bytes));
        p.vec(&self.parents, n);
        p.vec(&self.via, n);
        p.vec(self.finals.words_vec(), self.finals.words_needed(n));
        if let Some(e) = &self.edges {
            e.project(&mut p, sources, transitions);
        }
        if let Some(limit) = self.opts.max_memory_bytes {
            if p.peak() as u64 + self.opts.outside(self.bytes()) > limit {
                return false;
            }
        }
        self.peak_bytes = self.peak_bytes.max(p.peak());
        true
    }

    /// Prepares the visited table's growth, to run while the batch of
    /// `count` states expands, if their successors may not fit in it: as
    /// many per state as the last batch's and a quarter more (what does
    /// not fit after all grows between the phases, as before).
    fn grow_ahead(&mut self, count: usize, workers: &Workers) {
        let expected = count * self.succs_per_state * 5 / 4;
        if expected > 0 && self.fits((expected, 0), 0, 0) {
            self.store.start_growth(expected, workers.count());
        }
    }

    fn run(&mut self, workers: &Workers) -> Outcome<S::Action, S::Fault> {
        let sys = self.sys;
        let words = self.store.words();
        let mut cur = vec![0u32; words];

        // The initial state.
        sys.initial_state(&mut cur);
        sys.canonicalize(&mut cur);
        if self.max_states == 0 {
            return Outcome::Limit(LimitKind::States);
        }
        if !self.reserve(workers, (1, self.store.max_code()), 0, 0) {
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

        let mut expander = Expander::new();
        let mut claims = Claims::new();
        let mut level = Level { depth: 0, end: 1 };
        loop {
            while self.expanded < self.store.len() {
                if let Some(limit) = self.check_limits(level.depth) {
                    return Outcome::Limit(limit);
                }
                let head = self.expanded;
                if head == level.end {
                    level.depth += 1;
                    level.end = self.store.len();
                }
                self.store.forget_before(head as StateId);
                // A batch stays within one level, which gives max_depth.
                let batch = batch_len(self.succ_bytes_per_state, self.opts.max_memory_bytes);
                let count = batch.min(level.end - head);
                let span = (head as StateId, count);
                self.grow_ahead(count, workers);
                self.phases
                    .lap(&mut self.lap, Phase::Serial, workers.take_waits());
                let chunks = expander.expand(workers, sys, &self.store, span, self.opts);
                self.phases
                    .lap(&mut self.lap, Phase::Expand, workers.take_waits());
                self.phases.batches += 1;
                self.store.finish_growth();
                if let Some(limit) = chunks.iter().find_map(|c| c.interrupted) {
                    return Outcome::Limit(limit);
                }
                let taken: usize = chunks.iter().map(Chunk::succ_bytes).sum();
                self.succ_bytes_per_state = taken.div_ceil(count);
                let succs: usize = chunks.iter().map(|c| c.succs.len()).sum();
                self.succs_per_state = succs.div_ceil(count);
                let bytes: usize = chunks.iter().map(Chunk::code_bytes).sum();
                if !self.reserve(workers, (succs, bytes), count, succs) {
                    return Outcome::Limit(LimitKind::Memory);
                }
                self.phases
                    .lap(&mut self.lap, Phase::Serial, workers.take_waits());
                claims.claim(workers, sys, &self.store, chunks);
                self.phases
                    .lap(&mut self.lap, Phase::Claim, workers.take_waits());
                if let Some(end) = self.merge_batch(workers, chunks, &mut claims, &level) {
                    return end;
                }
            }
            // Nothing left to expand: the proviso may add states.
            self.phases
                .lap(&mut self.lap, Phase::Serial, workers.take_waits());
            let more = self.expand_terminal_components(workers);
            self.phases
                .lap(&mut self.lap, Phase::Proviso, workers.take_waits());
            match more {
                Ok(true) => {}
                Ok(false) => return Outcome::Complete,
                Err(end) => return end,
            }
        }
    }

    /// Stores the batch's new states (ids in discovery order) and its
    /// edges, up to the first event a sequential search would have stopped
    /// at (a failed step, a state the invariants reject, the state limit);
    /// returns that event's outcome.
    fn merge_batch(
        &mut self,
        workers: &Workers,
        chunks: &[Chunk<S::Action, S::Fault>],
        claims: &mut Claims<S::Fault>,
        level: &Level,
    ) -> Option<Outcome<S::Action, S::Fault>> {
        let n = chunks.len();
        // The first stopping event: (chunk, successor index, kind), kinds
        // ordered as a sequential search meets them at one position: a
        // failed step (after the state's successors), the state limit when
        // storing a new state, then its invariants.
        let mut stop: Option<(usize, usize, Stop)> = None;
        let mut room = self.max_states - self.store.len();
        for (c, (chunk, cl)) in chunks.iter().zip(&claims.chunks).enumerate() {
            let mut events = Vec::new();
            if let Some((i, _, _)) = &chunk.fault {
                events.push((chunk.ends[*i], Stop::Step));
            }
            if let Some(i) = chunk.stuck {
                events.push((chunk.ends[i], Stop::Stuck));
            }
            if cl.winners.len() > room {
                events.push((cl.winners[room] as usize, Stop::Full));
            }
            if let Some((j, _)) = &cl.bad {
                events.push((cl.winners[*j] as usize, Stop::Invalid(*j)));
            }
            if let Some(&(at, kind)) = events.iter().min() {
                stop = Some((c, at, kind));
                break;
            }
            room -= cl.winners.len();
        }
        // What is kept, per chunk: successors before `cuts[c]` (their
        // edges and the winners among them) and `kept[c]` winners.
        let mut cuts: Vec<usize> = chunks.iter().map(|c| c.succs.len()).collect();
        let mut kept: Vec<usize> = claims.chunks[..n].iter().map(|c| c.winners.len()).collect();
        if let Some((c, at, kind)) = stop {
            for k in c + 1..n {
                cuts[k] = 0;
                kept[k] = 0;
            }
            let winners = &claims.chunks[c].winners;
            kept[c] = winners.partition_point(|&k| (k as usize) < at);
            cuts[c] = at;
            if let Stop::Invalid(_) = kind {
                // The rejected state is stored, as the search stores it first.
                kept[c] += 1;
                cuts[c] += 1;
            }
        }
        // States of each chunk whose expansion is complete: a prefix.
        let closed: Vec<usize> = chunks
            .iter()
            .enumerate()
            .map(|(c, chunk)| match stop {
                Some((sc, ..)) if c > sc => 0,
                Some((sc, at, kind)) if c == sc => match kind {
                    Stop::Step => chunk.fault.as_ref().map_or(0, |f| f.0),
                    // The stuck state itself was expanded (into nothing).
                    Stop::Stuck => chunk.stuck.map_or(0, |k| k + 1),
                    Stop::Full | Stop::Invalid(_) => chunk.ends.partition_point(|&e| e <= at),
                },
                _ => chunk.ends.len(),
            })
            .collect();
        let first_id = self.store.len();
        self.store_batch(workers, chunks, claims, (&kept, &cuts, &closed));

        // Finals, reduced states and counts, in position order.
        for (c, chunk) in chunks.iter().enumerate() {
            self.finals.extend(&claims.chunks[c].finals[..kept[c]]);
            if kept[c] > 0 {
                self.max_depth = level.depth + 1;
            }
            self.transitions += cuts[c] as u64;
            let reduced = &chunk.reduced[..closed[c]];
            match &mut self.reduced {
                Some(r) => r.extend(reduced),
                None => assert!(!reduced.contains(&true), "reduced, but `reduces` said no"),
            }
            self.expanded += closed[c];
        }
        if let Some((c, _, Stop::Full)) = stop {
            if closed[c] < chunks[c].ends.len() {
                // The step that found no room was taken.
                self.transitions += 1;
            }
        }
        let (c, _, kind) = stop?;
        Some(match kind {
            Stop::Step => {
                let (i, a, fault) = chunks[c].fault.as_ref().expect("a failed step");
                Outcome::Fault {
                    state: chunks[c].first + *i as StateId,
                    action: Some(*a),
                    fault: fault.clone(),
                }
            }
            Stop::Stuck => Outcome::Stuck {
                state: chunks[c].first + chunks[c].stuck.expect("a stuck state") as StateId,
            },
            Stop::Full => Outcome::Limit(LimitKind::States),
            Stop::Invalid(j) => {
                let cl = &claims.chunks[c];
                let before: usize = claims.chunks[..c].iter().map(|c| c.winners.len()).sum();
                let fault = cl.bad.as_ref().expect("a rejected state").1.clone();
                Outcome::Fault {
                    state: (first_id + before + j) as StateId,
                    action: None,
                    fault,
                }
            }
        })
    }

    /// Stores the first `kept[c]` winners of each chunk under their ids,
    /// in position order (codes and table slots: `commit`; parents and
    /// actions: `record`), the edges of the successors before `cuts[c]`,
    /// and the ends of the edge lists of its first `closed[c]` states
    /// (`record`): one job per chunk on the workers in each phase, each on
    /// its own slices of the buffers. Placing the codes is one step per
    /// chunk on this thread (`serial`); the workers copy the codes and
    /// write their locations, and the first writes fault fresh pages in on
    /// every worker rather than on the caller alone.
    fn store_batch(
        &mut self,
        workers: &Workers,
        chunks: &[Chunk<S::Action, S::Fault>],
        claims: &Claims<S::Fault>,
        (kept, cuts, closed): (&[usize], &[usize], &[usize]),
    ) {
        let first_id = self.store.len();
        let cls = &claims.chunks[..chunks.len()];
        let winners = |c: usize| &cls[c].winners[..kept[c]];
        let code_len = |c: usize, j: usize| chunks[c].succs[winners(c)[j] as usize].code.1 as usize;
        let groups: Vec<(usize, usize)> = (0..chunks.len())
            .map(|c| match kept[c] == cls[c].winners.len() {
                true => (kept[c], cls[c].bytes),
                false => (kept[c], (0..kept[c]).map(|j| code_len(c, j)).sum()),
            })
            .collect();
        // The first id of each chunk's winners.
        let firsts: Vec<usize> = kept
            .iter()
            .scan(first_id, |id, &n| Some(std::mem::replace(id, *id + n)))
            .collect();
        let (won, edges): (usize, usize) = (kept.iter().sum(), cuts.iter().sum());
        let (edges, ends) = match &self.edges {
            Some(_) => (edges, closed.iter().sum()),
            None => (0, 0),
        };
        // Where each chunk's edges start.
        let edge_base = self.edges.as_ref().map_or(0, Edges::len);
        let bases: Vec<usize> = cuts
            .iter()
            .scan(edge_base, |e, &n| Some(std::mem::replace(e, *e + n)))
            .collect();
        let compact = self.store.is_compact();
        let mut parents = spare(&mut self.parents, won);
        let mut via = spare(&mut self.via, won);
        let (mut targets, mut actions, mut offsets) = match &mut self.edges {
            Some(e) => e.spare(edges, ends),
            None => (&mut [][..], &mut [][..], &mut [][..]),
        };
        let (table, mut runs, mut prints) = self.store.append(&groups, code_len);
        let mut runs = &mut runs[..];
        let mut jobs = Vec::with_capacity(chunks.len());
        for (c, (&won, &cut)) in kept.iter().zip(cuts).enumerate() {
            let mine = runs.iter().take_while(|r| r.group == c).count();
            let r = split_off_front(&mut runs, mine);
            let f = split_off_front(&mut prints, if compact { won } else { 0 });
            let p = split_off_front(&mut parents, won);
            let v = split_off_front(&mut via, won);
            let n = if edges > 0 { cut } else { 0 };
            let t = split_off_front(&mut targets, n);
            let a = split_off_front(&mut actions, n);
            let o = split_off_front(&mut offsets, if ends > 0 { closed[c] } else { 0 });
            jobs.push((c, r, f, p, v, (t, a, o)));
        }
        self.phases
            .lap(&mut self.lap, Phase::Serial, workers.take_waits());
        workers.each(&mut jobs, |_, (c, runs, prints, parents, ..)| {
            let (chunk, cl) = (&chunks[*c], &cls[*c]);
            let mut runs = runs.iter_mut();
            let mut run = runs.next();
            for (j, &k) in cl.winners[..parents.len()].iter().enumerate() {
                let k = k as usize;
                let r = run.as_mut().expect("room for every winner");
                r.push(chunk.code(k));
                if r.is_full() {
                    run = runs.next();
                }
                if compact {
                    prints[j] = chunk.succs[k].hash as u32;
                }
                let Claim::New(pos) = cl.claims[k] else {
                    unreachable!("a winner claimed a new state")
                };
                table.commit(pos, (firsts[*c] + j) as StateId);
            }
        });
        self.phases
            .lap(&mut self.lap, Phase::Commit, workers.take_waits());
        // Every new state's slot is committed now: the edges read the ids.
        workers.each(&mut jobs, |_, (c, _, _, parents, via, edges)| {
            let (targets, actions, offsets) = edges;
            let (chunk, cl) = (&chunks[*c], &cls[*c]);
            let mut state = 0;
            for (j, &k) in cl.winners[..parents.len()].iter().enumerate() {
                let k = k as usize;
                while chunk.ends[state] <= k {
                    state += 1;
                }
                parents[j].write(chunk.first + state as StateId);
                via[j].write(chunk.succs[k].action);
            }
            for (k, (t, a)) in targets.iter_mut().zip(actions.iter_mut()).enumerate() {
                a.write(chunk.succs[k].action);
                t.write(match cl.claims[k] {
                    Claim::Old(id) => id,
                    Claim::New(pos) => table
                        .committed(pos)
                        .expect("a successor's first discovery comes before it"),
                });
            }
            for (o, &end) in offsets.iter_mut().zip(&chunk.ends) {
                o.write((bases[*c] + end) as u64);
            }
        });
        self.phases
            .lap(&mut self.lap, Phase::Record, workers.take_waits());
        // SAFETY: the jobs' slices split the first `won` (`edges`, `ends`)
        // items of the spare room between them in order, with no gap
        // (`kept[c]`, `cut` and `closed[c]` per chunk, above), and each job
        // wrote every item of its slices: its `kept[c]` winners (no more
        // than it has), its `cut` edges and its `closed[c]` list ends (no
        // more than its states); the store's runs hold the `won` winners,
        // and the commit filled each. A panic in a job returns before this.
        unsafe {
            self.store.appended();
            self.parents.set_len(self.parents.len() + won);
            self.via.set_len(self.via.len() + won);
            if let Some(e) = &mut self.edges {
                e.appended(edges, ends);
            }
        }
    }

    /// The time and memory limits and the progress bar, checked once per
    /// batch (and by the workers before each state they expand).
    fn check_limits(&mut self, depth: u32) -> Option<LimitKind> {
        if let Some(limit) = self.opts.limit_reached() {
            return Some(limit);
        }
        if self.progress.active() {
            let bytes = self.bytes();
            self.progress
                .update(self.start, self.store.len(), depth, bytes);
        }
        None
    }

    /// The exploration, which keeps the search's `workers` for the graph
    /// analyses when it keeps the edges.
    fn finish(
        mut self,
        outcome: Outcome<S::Action, S::Fault>,
        workers: Workers,
    ) -> Exploration<S::Action, S::Fault> {
        self.phases
            .lap(&mut self.lap, Phase::Serial, workers.take_waits());
        self.progress.finish();
        if let Some(e) = &mut self.edges {
            e.truncate_to_closed();
        }
        self.peak_bytes = self.peak_bytes.max(self.bytes());
        if !self.opts.keep_edges {
            self.edges = None;
        }
        if self.full_expansions > 0 {
            // States found by full expansions are shallower than their levels.
            self.max_depth = self.exact_max_depth();
        }
        let seconds = self.start.elapsed().as_secs_f64();
        let states = self.store.len() as u64;
        let stats = Stats {
            states,
            expanded: self.expanded as u64,
            transitions: self.transitions,
            // The proviso expands reduced states only, each in one pass.
            ample_reduced: self
                .reduced
                .as_ref()
                .map_or(0, |r| r.count_ones() as u64 - self.full_expansions),
            final_states: self.finals.count_ones() as u64,
            max_depth: self.max_depth,
            seconds,
            states_per_second: if seconds > 0.0 {
                states as f64 / seconds
            } else {
                0.0
            },
            peak_bytes: self.peak_bytes as u64,
            analysis_bytes: 0,
            peak_rss_bytes: peak_rss_bytes(),
            phases: self.phases,
        };
        Exploration {
            store: self.store,
            parents: self.parents,
            via: self.via,
            finals: self.finals,
            expanded: self.expanded,
            edges: self.edges,
            reverse: OnceLock::new(),
            finishing: OnceLock::new(),
            decoded: OnceLock::new(),
            workers: match self.opts.keep_edges {
                true => workers,
                false => Workers::caller(),
            },
            outcome,
            stats,
        }
    }
}

/// The words of state `id`: read from the store, or recomputed along its
/// path from the initial state (`parents` and `via`) when hash compaction
/// dropped them.
fn words_of<S: TransitionSystem>(
    sys: &S,
    store: &StateStore,
    (parents, via): (&[StateId], &[S::Action]),
    id: StateId,
) -> Vec<u32> {
    if store.has_words(id) {
        return store.get(id);
    }
    let mut state = vec![0u32; store.words()];
    let mut next = state.clone();
    sys.initial_state(&mut state);
    sys.canonicalize(&mut state);
    for (_, a) in tree_path((parents, via), id) {
        if sys.step(&state, a, &mut next).is_ok() {
            sys.canonicalize(&mut next);
            std::mem::swap(&mut state, &mut next);
        }
    }
    state
}

/// The path from the initial state to `id` in the BFS tree (`parents`,
/// and `via[id - 1]` the action into `id`): steps `(from, action)` in order.
fn tree_path<A: Copy>((parents, via): (&[StateId], &[A]), id: StateId) -> Vec<(StateId, A)> {
    let mut path = Vec::new();
    let mut cur = id;
    while parents[cur as usize] != NO_PARENT {
        let from = parents[cur as usize];
        path.push((from, via[cur as usize - 1]));
        cur = from;
    }
    path.reverse();
    path
}

/// The first `n` items of the spare room of `v` (made if missing), to be
/// written before `v.set_len` counts them.
fn spare<T>(v: &mut Vec<T>, n: usize) -> &mut [std::mem::MaybeUninit<T>] {
    v.reserve(n);
    &mut v.spare_capacity_mut()[..n]
}

/// Splits the first `n` items off `rest` (leaving it the remainder), for
/// handing disjoint slices of one buffer to the workers.
fn split_off_front<'a, T>(rest: &mut &'a mut [T], n: usize) -> &'a mut [T] {
    let (front, back) = std::mem::take(rest).split_at_mut(n);
    *rest = back;
    front
}

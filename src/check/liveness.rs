//! Livelock and starvation: fair cycles of the explored state graph.
//!
//! A *livelock* is a reachable cycle, fair under the scheduler, on which no
//! thread passes a progress point; *starvation* is a fair cycle on which
//! some threads pass progress points and an unfinished thread never does.
//! Both are searched for among the strongly connected components (petgraph's
//! Tarjan) of the graph restricted to the allowed edges: for a livelock, the
//! non-progress edges; for the starvation of thread `t`, every edge but
//! `t`'s progress edges.
//!
//! **How fairness of a component is decided (exactly, on the explored
//! graph).** A strongly connected component `C` has a cycle through every
//! one of its states and edges, so:
//!
//! - the progress models built on weak fairness (`fair`, `hsa`, `obe`,
//!   `hsa-obe`, `lobe`, `unfair`, per level: `progress`): `C` holds an
//!   admitted cycle iff the cycle through all of `C` is admitted, where a
//!   thread the models keep running must be disabled in some state of `C`
//!   or move on some edge inside `C` — the cycle through everything visits
//!   that state or takes that edge.
//! - strong fairness: a thread that is enabled somewhere in `C` but never
//!   moves inside `C` forces a fair cycle to avoid every state where it is
//!   enabled; those states are removed and the rest split into components
//!   again (Emerson–Lei style pruning) until a component passes or nothing
//!   is left.
//!
//! - memory fairness (under `ptx`, see `memory_fairness`): a component
//!   that keeps a thread reading older writes of a location, or writes
//!   landing before its newest, while no write ever becomes its newest,
//!   loses those edges and is split again (the same pruning, on edges).
//!
//! Within a component the sets of finished threads and of threads that
//! have run once are constant (both are permanent and a cycle returns to
//! its start).

use super::graph::LabeledGraph;
pub(crate) use super::label::Label;
pub(crate) use super::memory_fairness::{Excluded, Requirement, Tally};
use super::progress::{self, Seen};
use super::scc;
use super::{Checkable, Finding};
use crate::explore::{Exploration, LimitKind, Options, StateId};
use crate::model::{Levels, Scheduler, Violation, ViolationKind};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// Which edges a search may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EdgeSet {
    /// Edges on which nobody passes a progress point (livelock).
    NoProgress,
    /// Every edge but the progress edges of this thread (its starvation).
    AllButProgressOf(u32),
}

impl EdgeSet {
    pub(crate) fn allows(self, l: Label) -> bool {
        match self {
            EdgeSet::NoProgress => !l.progress,
            EdgeSet::AllButProgressOf(t) => !(l.progress && l.thread == t),
        }
    }
}

/// The edges a search may use: its edge set, less the edges of the memory
/// fairness requirements it gave up on.
#[derive(Clone, Debug)]
pub(crate) struct Filter {
    pub edges: EdgeSet,
    pub excluded: Excluded,
}

impl Filter {
    pub(crate) fn allows(&self, l: &Label) -> bool {
        self.edges.allows(*l) && !self.excluded.forbids(l)
    }

    pub(crate) fn clone_with(&self, rs: &[Requirement]) -> Filter {
        Filter {
            edges: self.edges,
            excluded: self.excluded.with(rs),
        }
    }
}

/// The first livelock, else the first starvation, under the progress
/// models `levels` (and, under `ptx`, memory fairness); stops at a time or
/// memory limit of `options`.
pub(super) fn find<S: Checkable>(
    model: &S,
    exploration: &Exploration<u32, Violation>,
    graph: &LabeledGraph,
    levels: Levels,
    options: &Options,
) -> Result<Option<Finding>, LimitKind> {
    find_with(model, exploration, graph, (levels, options), true)
}

/// [`find`], with memory fairness on or off (off: what the check found
/// before it had memory fairness, for the tests that show the difference).
pub(super) fn find_with<S: Checkable>(
    model: &S,
    exploration: &Exploration<u32, Violation>,
    graph: &LabeledGraph,
    (levels, options): (Levels, &Options),
    memory_fairness: bool,
) -> Result<Option<Finding>, LimitKind> {
    let view = Explored {
        enabled: EnabledSets::compute(model, exploration, options)?,
        exploration,
        graph,
    };
    let search = Search {
        judge: Judge {
            model,
            levels,
            memory_fairness,
        },
        view,
        options,
    };
    for (edges, starving) in edge_sets(model.thread_count()) {
        if let Some(comp) = search.fair_component(edges, starving)? {
            return Ok(Some(search.judge.report(&search.view, comp)));
        }
    }
    Ok(None)
}

/// The edge sets a search for fair cycles tries, in order: livelock, then
/// the starvation of each thread (with the thread).
pub(crate) fn edge_sets(threads: usize) -> impl Iterator<Item = (EdgeSet, Option<usize>)> {
    let starving = (0..threads).map(|t| (EdgeSet::AllButProgressOf(t as u32), Some(t)));
    std::iter::once((EdgeSet::NoProgress, None)).chain(starving)
}

/// The part of a labelled state graph the lasso of a fair component reads:
/// the edges of its states, which threads are enabled in them, and the
/// path to its entry. The sequential check reads its whole graph; the
/// distributed one the component it gathered.
pub(crate) trait CycleGraph {
    /// Calls `f` with each edge out of `id` (its label and target), in the
    /// order of petgraph's edge list of the sequential graph.
    fn each_edge(&self, id: StateId, f: &mut dyn FnMut(Label, StateId));
    fn is_enabled(&self, id: StateId, t: usize) -> bool;
    /// The actions from the initial state to `id` in the BFS tree.
    fn path_to(&self, id: StateId) -> Vec<u32>;
    fn decode(&self, id: StateId) -> Vec<u32>;
}

/// The sequential check's graph.
struct Explored<'a> {
    enabled: EnabledSets,
    exploration: &'a Exploration<u32, Violation>,
    graph: &'a LabeledGraph,
}

impl CycleGraph for Explored<'_> {
    fn each_edge(&self, id: StateId, f: &mut dyn FnMut(Label, StateId)) {
        for e in self.graph.graph.edges(NodeIndex::new(id as usize)) {
            f(*e.weight(), e.target().index() as StateId);
        }
    }

    fn is_enabled(&self, id: StateId, t: usize) -> bool {
        self.enabled.get(id, t)
    }

    fn path_to(&self, id: StateId) -> Vec<u32> {
        self.exploration
            .path_to(id)
            .into_iter()
            .map(|(_, a)| a)
            .collect()
    }

    fn decode(&self, id: StateId) -> Vec<u32> {
        self.exploration.decode_state(id)
    }
}

struct Search<'a, S> {
    judge: Judge<'a, S>,
    view: Explored<'a>,
    options: &'a Options,
}

/// How fair cycles are judged and reported: the model, its progress
/// models, and whether memory fairness applies.
pub(crate) struct Judge<'a, S> {
    pub model: &'a S,
    pub levels: Levels,
    pub memory_fairness: bool,
}

/// A fair cycle found: its states and the edge filter it lives in.
pub(crate) struct Component {
    /// Sorted state ids.
    pub states: Vec<StateId>,
    pub filter: Filter,
    pub starving: Option<usize>,
}

/// What the judgement of a component says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Judged {
    Fair,
    Unfair,
    /// Strong fairness: look again among the states where this thread is
    /// disabled (there are some).
    PruneEnabled(usize),
    /// Memory fairness: look again without the edges these requirements limit.
    Exclude(Vec<Requirement>),
}

impl<S: Checkable> Search<'_, S> {
    /// A component with a fair cycle using only `filter` edges; for
    /// starvation of `starving`, one where it is unfinished and someone else
    /// progresses.
    fn fair_component(
        &self,
        edges: EdgeSet,
        starving: Option<usize>,
    ) -> Result<Option<Component>, LimitKind> {
        let all: Vec<StateId> = (0..self.view.exploration.num_states() as StateId).collect();
        let start = Filter {
            edges,
            excluded: Excluded::default(),
        };
        let mut work = vec![(all, start)];
        let mut found: Vec<(Vec<StateId>, Filter)> = Vec::new();
        while let Some((nodes, filter)) = work.pop() {
            if let Some(limit) = self.options.limit_reached() {
                return Err(limit);
            }
            for comp in self.components(&nodes, &filter) {
                let survey = self.judge.survey(&self.view, &comp, &filter);
                match self.judge.judge(&survey, starving) {
                    Judged::Fair => found.push((comp, filter.clone())),
                    Judged::Unfair => {}
                    Judged::PruneEnabled(t) => {
                        let rest = comp
                            .iter()
                            .copied()
                            .filter(|id| !self.view.is_enabled(*id, t))
                            .collect();
                        work.push((rest, filter.clone()));
                    }
                    Judged::Exclude(rs) => work.push((comp, filter.clone_with(&rs))),
                }
            }
        }
        // Deterministic choice: the component reached first in BFS order.
        let Some((states, filter)) = found.into_iter().min_by_key(|c| c.0[0]) else {
            return Ok(None);
        };
        Ok(Some(Component {
            states,
            filter,
            starving,
        }))
    }

    /// Non-trivial strongly connected components of the subgraph induced by
    /// `nodes` and the allowed edges.
    fn components(&self, nodes: &[StateId], filter: &Filter) -> Vec<Vec<StateId>> {
        if nodes.len() != self.view.exploration.num_states() {
            return self.components_within(nodes, filter);
        }
        let graph = &self.view.graph.graph;
        let mut found = Vec::new();
        // The callback form allocates nothing for the (many) trivial components.
        scc::components(
            nodes.len(),
            |v, out| {
                let allowed = graph
                    .edges(NodeIndex::new(v))
                    .filter(|e| filter.allows(e.weight()));
                out.extend(allowed.map(|e| e.target().index()));
            },
            |c| {
                let v = NodeIndex::new(c[0]);
                let nontrivial = c.len() > 1
                    || graph
                        .edges_connecting(v, v)
                        .any(|e| filter.allows(e.weight()));
                if nontrivial {
                    let mut ids: Vec<StateId> = c.iter().map(|&n| n as StateId).collect();
                    ids.sort_unstable();
                    found.push(ids);
                }
            },
        );
        found
    }

    /// [`Self::components`] of a part of the graph (the pruning rounds,
    /// often many and small): Tarjan on a copy of just that part, so a
    /// round costs its own states and edges, not the whole graph's.
    fn components_within(&self, nodes: &[StateId], filter: &Filter) -> Vec<Vec<StateId>> {
        // `nodes` is sorted: a state's local index is its rank.
        let local = |id: StateId| nodes.binary_search(&id).ok();
        let mut sub: DiGraph<(), (), u32> = DiGraph::with_capacity(nodes.len(), nodes.len());
        for _ in nodes {
            sub.add_node(());
        }
        let mut looped = vec![false; nodes.len()];
        for (i, id) in nodes.iter().enumerate() {
            for e in self.view.graph.graph.edges(NodeIndex::new(*id as usize)) {
                let to = e.target().index() as StateId;
                if let (Some(j), true) = (local(to), filter.allows(e.weight())) {
                    looped[i] |= i == j;
                    sub.add_edge(NodeIndex::new(i), NodeIndex::new(j), ());
                }
            }
        }
        let mut found = Vec::new();
        scc::components(
            nodes.len(),
            |v, out| out.extend(sub.neighbors(NodeIndex::new(v)).map(|w| w.index())),
            |c| {
                if c.len() > 1 || looped[c[0]] {
                    let mut ids: Vec<StateId> = c.iter().map(|&n| nodes[n]).collect();
                    ids.sort_unstable();
                    found.push(ids);
                }
            },
        );
        found
    }
}

impl<S: Checkable> Judge<'_, S> {
    /// Whether a component showing `survey` holds a fair cycle (for
    /// starvation of `starving`: one where it is unfinished and someone
    /// else progresses), or where to look again.
    pub(crate) fn judge(&self, survey: &Survey, starving: Option<usize>) -> Judged {
        if let Some(t) = starving {
            if survey.seen[t].finished {
                return Judged::Unfair; // a finished thread does not starve
            }
            if !survey.progress {
                return Judged::Unfair; // no one progresses: a livelock, found before
            }
        }
        let threads = self.thread_fairness(&survey.seen);
        if matches!(threads, Judged::Unfair) {
            return threads;
        }
        let unmet = match self.memory_fairness {
            true => survey.memory.unmet(),
            false => Vec::new(),
        };
        match unmet.is_empty() {
            true => threads,
            false => Judged::Exclude(unmet),
        }
    }

    /// What the cycle through all of `comp` (allowed edges inside it)
    /// shows of each thread, whether someone progresses on it, and its
    /// memory accesses.
    fn survey(&self, g: &dyn CycleGraph, comp: &[StateId], filter: &Filter) -> Survey {
        let first = g.decode(comp[0]);
        let mut survey = Survey::new(self.model, &first);
        let member = |id: StateId| comp.binary_search(&id).is_ok();
        for id in comp {
            survey.state(|t| g.is_enabled(*id, t));
            g.each_edge(*id, &mut |l, to| {
                if filter.allows(&l) && member(to) {
                    survey.edge(&l);
                }
            });
        }
        survey
    }

    /// The threads whose fairness the cycle through `comp` relies on (a
    /// lasso shows each move or be disabled), if the models admit it.
    fn relied_on(&self, seen: &[Seen]) -> Option<Vec<usize>> {
        if self.levels.is_strong() {
            return Some((0..seen.len()).collect());
        }
        progress::admitted(self.levels, self.model.threads_per_block(), seen)
    }

    /// Whether a cycle of a component is admitted by the progress models,
    /// given what the cycle through all of it shows of each thread.
    fn thread_fairness(&self, seen: &[Seen]) -> Judged {
        if !self.levels.is_strong() {
            return match self.relied_on(seen) {
                Some(_) => Judged::Fair,
                None => Judged::Unfair,
            };
        }
        // Strong fairness: a thread enabled somewhere that never moves
        // forces a fair cycle to avoid every state where it is enabled;
        // what remains may still hold one.
        let Some(t) = (0..seen.len()).find(|t| !seen[*t].moves && seen[*t].enabled_somewhere)
        else {
            return Judged::Fair;
        };
        match seen[t].disabled_somewhere {
            true => Judged::PruneEnabled(t),
            false => Judged::Unfair,
        }
    }

    /// The lasso: a shortest path to the component, then a cycle inside it
    /// that satisfies the fairness conditions (it takes a witness edge or
    /// visits a witness state for every fairly scheduled thread).
    fn lasso(&self, g: &dyn CycleGraph, comp: &Component) -> (Vec<u32>, Vec<u32>) {
        let entry = comp.states[0];
        let stem = g.path_to(entry);
        let member = |id: StateId| comp.states.binary_search(&id).is_ok();
        let edge_ok = |l: Label, to: StateId| comp.filter.allows(&l) && member(to);
        // The first edge of the component (by source, target, action) whose
        // label passes `want`.
        let first_edge = |want: &dyn Fn(&Label) -> bool| {
            comp.states.iter().find_map(|id| {
                let mut best = None;
                g.each_edge(*id, &mut |l, to| {
                    if want(&l) && edge_ok(l, to) {
                        let w = Witness::Edge(*id, to, l.action);
                        best = Some(best.map_or(w, |b: Witness| b.min(w)));
                    }
                });
                best
            })
        };
        // Witnesses in a fixed order: threads by index.
        let mut targets: Vec<Witness> = Vec::new();
        let seen = self.survey(g, &comp.states, &comp.filter).seen;
        for t in self.relied_on(&seen).unwrap_or_default() {
            match first_edge(&|l| l.thread == t as u32) {
                Some(w) => targets.push(w),
                None => {
                    if let Some(id) = comp.states.iter().find(|id| !g.is_enabled(**id, t)) {
                        targets.push(Witness::State(*id));
                    }
                }
            }
        }
        if comp.starving.is_some() {
            // Show the others progressing at least once per round.
            targets.extend(first_edge(&|l| l.progress));
        }
        // Memory fairness: every older read or landing the cycle may take is
        // matched by a read or write of the newest.
        let mut memory = Tally::default();
        for id in &comp.states {
            g.each_edge(*id, &mut |l, to| {
                if edge_ok(l, to) {
                    memory.add(&l);
                }
            });
        }
        for r in memory.asked().filter(|_| self.memory_fairness) {
            targets.extend(first_edge(&|l| r.grants(l)));
        }
        let mut cycle = Vec::new();
        let mut at = entry;
        for w in targets {
            match w {
                Witness::State(s) => {
                    cycle.extend(path_within(g, at, s, &edge_ok));
                    at = s;
                }
                Witness::Edge(from, to, a) => {
                    cycle.extend(path_within(g, at, from, &edge_ok));
                    cycle.push(a);
                    at = to;
                }
            }
        }
        cycle.extend(path_within(g, at, entry, &edge_ok));
        if cycle.is_empty() {
            // Every witness was the entry state itself: take any edge round.
            let mut first = None;
            g.each_edge(entry, &mut |l, to| {
                if first.is_none() && edge_ok(l, to) {
                    first = Some((l.action, to));
                }
            });
            if let Some((a, to)) = first {
                cycle.push(a);
                cycle.extend(path_within(g, to, entry, &edge_ok));
            }
        }
        (stem, cycle)
    }

    /// Who keeps winning and who keeps losing: per thread, its steps and
    /// progress points in one round of the cycle, and where it is at its start.
    /// Returns the lines and the progress count of each thread.
    fn round_summary(&self, start: &[u32], cycle: &[u32]) -> (Vec<String>, Vec<usize>) {
        let model = self.model;
        let threads = model.thread_count();
        let mut steps = vec![0usize; threads];
        let mut progress = vec![0usize; threads];
        let mut state = start.to_vec();
        let mut next = state.clone();
        for &t in cycle {
            let (_, labels) = model.step_labels(&state, t, &mut next);
            steps[model.thread_of(t)] += 1;
            progress[model.thread_of(t)] += labels.progressed as usize;
            std::mem::swap(&mut state, &mut next);
        }
        let mut lines = Vec::new();
        for (t, what) in model.thread_positions(start) {
            let verdict = match (steps[t], progress[t]) {
                (0, _) => "never moves".to_string(),
                (n, 0) => format!("moves {n} time{} per round and never progresses", plural(n)),
                (n, p) => format!(
                    "moves {n} time{} per round and progresses {p} time{}",
                    plural(n),
                    plural(p)
                ),
            };
            lines.push(format!(
                "{} {verdict} (at the start of the round it {what})",
                model.thread_name(t)
            ));
        }
        (lines, progress)
    }

    /// The finding of fair component `comp` of `g`: its lasso and who
    /// wins and loses on it.
    pub(crate) fn report(&self, g: &dyn CycleGraph, comp: Component) -> Finding {
        let (schedule, cycle) = self.lasso(g, &comp);
        let model = self.model;
        let fairness = Scheduler::Progress(self.levels).under();
        let start = g.decode(comp.states[0]);
        let (waiting, progress) = self.round_summary(&start, &cycle);
        match comp.starving {
            None => Finding {
                kind: ViolationKind::Livelock,
                property: "livelock",
                message: format!(
                    "{fairness}, the threads can run forever without anyone passing a progress point (entering a critical section, passing a barrier, `progress;` or finishing)"
                ),
                waiting,
                schedule,
                cycle,
            },
            Some(t) => {
                let mut winners: Vec<String> = (0..model.thread_count())
                    .filter(|u| progress.get(*u).is_some_and(|p| *p > 0))
                    .map(|u| model.thread_name(u))
                    .collect();
                winners.sort();
                Finding {
                    kind: ViolationKind::Starvation,
                    property: "starvation",
                    message: format!(
                        "{fairness}, {} never progresses while {} keep{} progressing",
                        model.thread_name(t),
                        winners.join(", "),
                        if winners.len() == 1 { "s" } else { "" }
                    ),
                    waiting,
                    schedule,
                    cycle,
                }
            }
        }
    }
}

/// Shortest path of actions from `from` to `to` over allowed edges of `g`
/// (the first found breadth-first, each state's edges by action and target).
fn path_within(
    g: &dyn CycleGraph,
    from: StateId,
    to: StateId,
    edge_ok: &dyn Fn(Label, StateId) -> bool,
) -> Vec<u32> {
    if from == to {
        return Vec::new();
    }
    let mut parent: FxHashMap<StateId, (StateId, u32)> = FxHashMap::default();
    parent.insert(from, (from, 0));
    let mut queue = VecDeque::from([from]);
    let mut edges: Vec<(u32, StateId)> = Vec::new();
    while let Some(id) = queue.pop_front() {
        edges.clear();
        g.each_edge(id, &mut |l, next| {
            if edge_ok(l, next) {
                edges.push((l.action, next));
            }
        });
        edges.sort_unstable();
        for &(a, next) in &edges {
            if parent.contains_key(&next) {
                continue;
            }
            parent.insert(next, (id, a));
            if next == to {
                let mut path = Vec::new();
                let mut at = to;
                while at != from {
                    let (p, a) = parent[&at];
                    path.push(a);
                    at = p;
                }
                path.reverse();
                return path;
            }
            queue.push_back(next);
        }
    }
    Vec::new()
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Which threads are enabled in each state, computed once: the fairness
/// test asks for every state of every component.
struct EnabledSets {
    words: usize,
    bits: Vec<u64>,
}

impl EnabledSets {
    fn compute<S: Checkable>(
        model: &S,
        exploration: &Exploration<u32, Violation>,
        options: &Options,
    ) -> Result<EnabledSets, LimitKind> {
        let words = model.thread_count().div_ceil(64);
        let n = exploration.num_states();
        let mut bits = vec![0u64; n * words];
        let mut actions = Vec::new();
        let mut state = vec![0u32; model.state_words()];
        for id in 0..n {
            if id % 1024 == 0 {
                if let Some(limit) = options.limit_reached() {
                    return Err(limit);
                }
            }
            actions.clear();
            exploration.read_state(id as StateId, &mut state);
            model.actions(&state, &mut actions);
            for &a in &actions {
                let t = model.thread_of(a);
                bits[id * words + t / 64] |= 1 << (t % 64);
            }
        }
        Ok(EnabledSets { words, bits })
    }

    fn get(&self, id: StateId, t: usize) -> bool {
        self.bits[id as usize * self.words + t / 64] >> (t % 64) & 1 == 1
    }
}

/// What the cycle through a component shows: per thread, whether it is
/// finished and has run (as in its first state), is enabled and disabled
/// somewhere, moves; whether someone progresses; its memory accesses.
/// Sums over states and edges, in any order (the distributed check adds
/// up each worker's part).
pub(crate) struct Survey {
    pub seen: Vec<Seen>,
    /// Someone passes a progress point on an allowed edge.
    pub progress: bool,
    pub memory: Tally,
}

impl Survey {
    /// A survey of a component whose first state is `first`, before any
    /// of its states and edges is counted.
    pub(crate) fn new<S: Checkable>(model: &S, first: &[u32]) -> Survey {
        Survey {
            seen: (0..model.thread_count())
                .map(|t| Seen {
                    finished: model.is_finished(first, t),
                    started: model.has_run(first, t),
                    ..Seen::default()
                })
                .collect(),
            progress: false,
            memory: Tally::default(),
        }
    }

    /// Counts a state of the component, whose threads `enabled` says.
    pub(crate) fn state(&mut self, enabled: impl Fn(usize) -> bool) {
        for (t, s) in self.seen.iter_mut().enumerate() {
            match enabled(t) {
                true => s.enabled_somewhere = true,
                false => s.disabled_somewhere = true,
            }
        }
    }

    /// Counts an allowed edge inside the component.
    pub(crate) fn edge(&mut self, l: &Label) {
        let s = &mut self.seen[l.thread as usize];
        s.moves = true;
        s.started = true;
        self.progress |= l.progress;
        self.memory.add(l);
    }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Witness {
    State(StateId),
    Edge(StateId, StateId, u32),
}

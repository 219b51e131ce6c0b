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
use super::label::Label;
use super::memory_fairness::{Excluded, Requirement, Tally};
use super::progress::{self, Seen};
use super::scc;
use super::{Checkable, Finding};
use crate::explore::{BitSet, Exploration, LimitKind, Options, StateId};
use crate::model::{Levels, Scheduler, Violation, ViolationKind};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use std::collections::VecDeque;

/// Which edges a search may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EdgeSet {
    /// Edges on which nobody passes a progress point (livelock).
    NoProgress,
    /// Every edge but the progress edges of this thread (its starvation).
    AllButProgressOf(u32),
}

impl EdgeSet {
    fn allows(self, l: Label) -> bool {
        match self {
            EdgeSet::NoProgress => !l.progress,
            EdgeSet::AllButProgressOf(t) => !(l.progress && l.thread == t),
        }
    }
}

/// The edges a search may use: its edge set, less the edges of the memory
/// fairness requirements it gave up on.
#[derive(Clone, Debug)]
struct Filter {
    edges: EdgeSet,
    excluded: Excluded,
}

impl Filter {
    fn allows(&self, l: &Label) -> bool {
        self.edges.allows(*l) && !self.excluded.forbids(l)
    }

    fn clone_with(&self, rs: &[Requirement]) -> Filter {
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
    let search = Search {
        enabled: EnabledSets::compute(model, exploration, options)?,
        model,
        exploration,
        graph,
        levels,
        memory_fairness,
        options,
    };
    if let Some(comp) = search.fair_component(EdgeSet::NoProgress, None)? {
        return Ok(Some(search.report(comp)));
    }
    for t in 0..model.thread_count() {
        let edges = EdgeSet::AllButProgressOf(t as u32);
        if let Some(comp) = search.fair_component(edges, Some(t))? {
            return Ok(Some(search.report(comp)));
        }
    }
    Ok(None)
}

struct Search<'a, S> {
    model: &'a S,
    enabled: EnabledSets,
    exploration: &'a Exploration<u32, Violation>,
    graph: &'a LabeledGraph,
    levels: Levels,
    memory_fairness: bool,
    options: &'a Options,
}

/// A fair cycle found: its states and the edge filter it lives in.
struct Component {
    /// Sorted state ids.
    states: Vec<StateId>,
    filter: Filter,
    starving: Option<usize>,
}

impl<S: Checkable> Search<'_, S> {
    fn is_enabled(&self, id: StateId, t: usize) -> bool {
        self.enabled.get(id, t)
    }

    /// A component with a fair cycle using only `filter` edges; for
    /// starvation of `starving`, one where it is unfinished and someone else
    /// progresses.
    fn fair_component(
        &self,
        edges: EdgeSet,
        starving: Option<usize>,
    ) -> Result<Option<Component>, LimitKind> {
        let all: Vec<StateId> = (0..self.exploration.num_states() as StateId).collect();
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
                match self.judge(&comp, &filter, starving) {
                    Judgement::Fair => found.push((comp, filter.clone())),
                    Judgement::Unfair => {}
                    Judgement::Prune(rest) => work.push((rest, filter.clone())),
                    Judgement::Exclude(rs) => work.push((comp, filter.clone_with(&rs))),
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
        if nodes.len() != self.exploration.num_states() {
            return self.components_within(nodes, filter);
        }
        let graph = &self.graph.graph;
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
            for e in self.graph.graph.edges(NodeIndex::new(*id as usize)) {
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

    fn judge(&self, comp: &[StateId], filter: &Filter, starving: Option<usize>) -> Judgement {
        let first = self.exploration.decode_state(comp[0]);
        if let Some(t) = starving {
            if self.model.is_finished(&first, t) {
                return Judgement::Unfair; // a finished thread does not starve
            }
        }
        let survey = self.survey(comp, filter);
        if starving.is_some() && !survey.progress {
            return Judgement::Unfair; // no one progresses: a livelock, found before
        }
        let threads = self.thread_fairness(comp, &survey.seen);
        if matches!(threads, Judgement::Unfair) {
            return threads;
        }
        let unmet = match self.memory_fairness {
            true => survey.memory.unmet(),
            false => Vec::new(),
        };
        match unmet.is_empty() {
            true => threads,
            false => Judgement::Exclude(unmet),
        }
    }

    /// What the cycle through all of `comp` (allowed edges inside it)
    /// shows of each thread, whether someone progresses on it, and its
    /// memory accesses.
    fn survey(&self, comp: &[StateId], filter: &Filter) -> Survey {
        let first = self.exploration.decode_state(comp[0]);
        let first = first.as_slice();
        let member = |id: StateId| comp.binary_search(&id).is_ok();
        let mut seen: Vec<Seen> = (0..self.model.thread_count())
            .map(|t| Seen {
                finished: self.model.is_finished(first, t),
                started: self.model.has_run(first, t),
                ..Seen::default()
            })
            .collect();
        let mut survey = Survey {
            seen: Vec::new(),
            progress: false,
            memory: Tally::default(),
        };
        for id in comp {
            for (t, s) in seen.iter_mut().enumerate() {
                match self.is_enabled(*id, t) {
                    true => s.enabled_somewhere = true,
                    false => s.disabled_somewhere = true,
                }
            }
            for e in self.graph.graph.edges(NodeIndex::new(*id as usize)) {
                let l = *e.weight();
                if filter.allows(&l) && member(e.target().index() as StateId) {
                    let s = &mut seen[l.thread as usize];
                    s.moves = true;
                    s.started = true;
                    survey.progress |= l.progress;
                    survey.memory.add(&l);
                }
            }
        }
        survey.seen = seen;
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

    /// Whether a cycle of `comp` is admitted by the progress models, given
    /// what the cycle through all of it shows of each thread.
    fn thread_fairness(&self, comp: &[StateId], seen: &[Seen]) -> Judgement {
        if !self.levels.is_strong() {
            return match self.relied_on(seen) {
                Some(_) => Judgement::Fair,
                None => Judgement::Unfair,
            };
        }
        // Strong fairness: a thread enabled somewhere that never moves
        // forces a fair cycle to avoid every state where it is enabled;
        // what remains may still hold one.
        let Some(t) = (0..seen.len()).find(|t| !seen[*t].moves && seen[*t].enabled_somewhere)
        else {
            return Judgement::Fair;
        };
        let rest: Vec<StateId> = comp
            .iter()
            .copied()
            .filter(|id| !self.is_enabled(*id, t))
            .collect();
        if rest.is_empty() {
            Judgement::Unfair
        } else {
            Judgement::Prune(rest)
        }
    }

    /// The lasso: a shortest path to the component, then a cycle inside it
    /// that satisfies the fairness conditions (it takes a witness edge or
    /// visits a witness state for every fairly scheduled thread).
    fn lasso(&self, comp: &Component) -> (Vec<u32>, Vec<u32>) {
        let entry = comp.states[0];
        let stem: Vec<u32> = self
            .exploration
            .path_to(entry)
            .into_iter()
            .map(|(_, a)| a)
            .collect();
        let n = self.exploration.num_states();
        let mut member = BitSet::new(n);
        for id in &comp.states {
            member.insert(*id);
        }
        let edge_ok = |l: Label, to: StateId| comp.filter.allows(&l) && member.get(to);
        // The first edge of the component (by source, target, action) whose
        // label passes `want`.
        let first_edge = |want: &dyn Fn(&Label) -> bool| {
            comp.states.iter().find_map(|id| {
                self.graph
                    .graph
                    .edges(NodeIndex::new(*id as usize))
                    .filter(|e| {
                        want(e.weight()) && edge_ok(*e.weight(), e.target().index() as StateId)
                    })
                    .map(|e| Witness::Edge(*id, e.target().index() as StateId, e.weight().action))
                    .min()
            })
        };
        // Witnesses in a fixed order: threads by index.
        let mut targets: Vec<Witness> = Vec::new();
        let seen = self.survey(&comp.states, &comp.filter).seen;
        for t in self.relied_on(&seen).unwrap_or_default() {
            match first_edge(&|l| l.thread == t as u32) {
                Some(w) => targets.push(w),
                None => {
                    if let Some(id) = comp.states.iter().find(|id| !self.is_enabled(**id, t)) {
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
            for e in self.graph.graph.edges(NodeIndex::new(*id as usize)) {
                if edge_ok(*e.weight(), e.target().index() as StateId) {
                    memory.add(e.weight());
                }
            }
        }
        for r in memory.asked().filter(|_| self.memory_fairness) {
            targets.extend(first_edge(&|l| r.grants(l)));
        }
        let mut cycle = Vec::new();
        let mut at = entry;
        for w in targets {
            match w {
                Witness::State(s) => {
                    cycle.extend(self.path_within(at, s, &edge_ok));
                    at = s;
                }
                Witness::Edge(from, to, a) => {
                    cycle.extend(self.path_within(at, from, &edge_ok));
                    cycle.push(a);
                    at = to;
                }
            }
        }
        cycle.extend(self.path_within(at, entry, &edge_ok));
        if cycle.is_empty() {
            // Every witness was the entry state itself: take any edge round.
            if let Some(e) = self
                .graph
                .graph
                .edges(NodeIndex::new(entry as usize))
                .find(|e| edge_ok(*e.weight(), e.target().index() as StateId))
            {
                cycle.push(e.weight().action);
                cycle.extend(self.path_within(e.target().index() as StateId, entry, &edge_ok));
            }
        }
        (stem, cycle)
    }

    /// Shortest path of actions from `from` to `to` over allowed edges.
    fn path_within(
        &self,
        from: StateId,
        to: StateId,
        edge_ok: &dyn Fn(Label, StateId) -> bool,
    ) -> Vec<u32> {
        if from == to {
            return Vec::new();
        }
        let n = self.exploration.num_states();
        let mut parent: Vec<Option<(StateId, u32)>> = vec![None; n];
        let mut seen = BitSet::new(n);
        seen.insert(from);
        let mut queue = VecDeque::from([from]);
        while let Some(id) = queue.pop_front() {
            let mut edges: Vec<(u32, StateId)> = self
                .graph
                .graph
                .edges(NodeIndex::new(id as usize))
                .filter(|e| edge_ok(*e.weight(), e.target().index() as StateId))
                .map(|e| (e.weight().action, e.target().index() as StateId))
                .collect();
            edges.sort_unstable();
            for (a, next) in edges {
                if seen.insert(next) {
                    parent[next as usize] = Some((id, a));
                    if next == to {
                        let mut path = Vec::new();
                        let mut at = to;
                        while let Some((p, a)) = parent[at as usize] {
                            path.push(a);
                            if p == from {
                                break;
                            }
                            at = p;
                        }
                        path.reverse();
                        return path;
                    }
                    queue.push_back(next);
                }
            }
        }
        Vec::new()
    }

    /// Who keeps winning and who keeps losing: per thread, its steps and
    /// progress points in one round of the cycle, and where it is at its start.
    /// Returns the lines and the progress count of each thread.
    fn round_summary(&self, entry: StateId, cycle: &[u32]) -> (Vec<String>, Vec<usize>) {
        let model = self.model;
        let threads = model.thread_count();
        let mut steps = vec![0usize; threads];
        let mut progress = vec![0usize; threads];
        let mut state = self.exploration.decode_state(entry);
        let mut next = state.clone();
        for &t in cycle {
            let (_, labels) = model.step_labels(&state, t, &mut next);
            steps[model.thread_of(t)] += 1;
            progress[model.thread_of(t)] += labels.progressed as usize;
            std::mem::swap(&mut state, &mut next);
        }
        let start = self.exploration.decode_state(entry);
        let mut lines = Vec::new();
        for (t, what) in model.thread_positions(&start) {
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

    fn report(&self, comp: Component) -> Finding {
        let (schedule, cycle) = self.lasso(&comp);
        let model = self.model;
        let fairness = Scheduler::Progress(self.levels).under();
        let (waiting, progress) = self.round_summary(comp.states[0], &cycle);
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

/// What the cycle through a component shows.
struct Survey {
    seen: Vec<Seen>,
    /// Someone passes a progress point on an allowed edge.
    progress: bool,
    memory: Tally,
}

enum Judgement {
    Fair,
    Unfair,
    /// Strong fairness: look again among these states.
    Prune(Vec<StateId>),
    /// Memory fairness: look again without the edges these requirements limit.
    Exclude(Vec<Requirement>),
}

#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum Witness {
    State(StateId),
    Edge(StateId, StateId, u32),
}

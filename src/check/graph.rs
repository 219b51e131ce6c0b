//! The explored state graph with its labels, as a petgraph graph: which
//! thread moved on each edge and whether it passed a progress point. Built
//! only when an analysis needs labels (liveness, and deadlock of harnesses
//! that never finish).

use super::label::Label;
use super::Checkable;
use crate::explore::{BitSet, Exploration, LimitKind, Options, StateId};
use crate::model::Violation;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;

pub(super) struct LabeledGraph {
    pub graph: DiGraph<(), Label, u32>,
}

impl LabeledGraph {
    /// What `build` will allocate for this many states and edges (petgraph
    /// nodes and edges with their links, plus the liveness bit sets).
    pub(super) fn estimated_bytes(states: usize, edges: usize) -> usize {
        let node = std::mem::size_of::<petgraph::graph::Node<(), u32>>();
        let edge = std::mem::size_of::<petgraph::graph::Edge<Label, u32>>();
        states * (node + 16) + edges * edge
    }

    /// Labels every explored edge by re-taking its step (the explorer keeps
    /// only the thread; the progress bit costs one more step per edge here
    /// instead of a word per edge during the search). As long as the search
    /// in steps: stops at a time or memory limit of `options`.
    pub(super) fn build<S: Checkable>(
        model: &S,
        exploration: &Exploration<u32, Violation>,
        options: &Options,
    ) -> Result<LabeledGraph, LimitKind> {
        let n = exploration.num_states();
        let mut graph = DiGraph::with_capacity(n, exploration.num_edges());
        for _ in 0..n {
            graph.add_node(());
        }
        let mut scratch = vec![0u32; model.state_words()];
        let mut state = vec![0u32; model.state_words()];
        for id in 0..n as StateId {
            if !exploration.is_expanded(id) {
                continue;
            }
            if let Some(limit) = options.limit_reached() {
                return Err(limit);
            }
            exploration.read_state(id, &mut state);
            let state = state.as_slice();
            for (t, to) in exploration.successors(id) {
                let (_, labels) = model.step_labels(state, t, &mut scratch);
                let label = Label::new(model.thread_of(t) as u32, t, &labels);
                graph.add_edge(
                    NodeIndex::new(id as usize),
                    NodeIndex::new(to as usize),
                    label,
                );
            }
        }
        Ok(LabeledGraph { graph })
    }

    /// For each thread, the states from which it can still pass a progress
    /// point: backward reachability from the sources of its progress edges.
    /// States a limit left unexpanded count as able to (nothing is known).
    pub(super) fn can_progress(
        &self,
        exploration: &Exploration<u32, Violation>,
        threads: usize,
    ) -> Vec<BitSet> {
        let n = exploration.num_states();
        let mut sources: Vec<BitSet> = (0..threads).map(|_| BitSet::new(n)).collect();
        for e in self.graph.edge_references() {
            if e.weight().progress {
                sources[e.weight().thread as usize].insert(e.source().index() as StateId);
            }
        }
        sources
            .iter()
            .map(|src| exploration.can_reach(|id| src.get(id) || !exploration.is_expanded(id)))
            .collect()
    }
}

//! Steps that lie on no cycle of the state graph, whose ample sets need no
//! cycle proviso.
//!
//! The proviso (`explore::proviso`) only has to break cycles of the reduced
//! graph: a state none of whose ample steps can lie on a cycle is on none,
//! and may stay reduced. The breadth-first proviso cannot tell a cycle from
//! two paths meeting (it fully expands a state as soon as one ample
//! successor is already stored at its depth or above), and with spinning
//! threads and symmetry that was half of the states of the barriers.
//!
//! A potential that no step decreases: `Φ = (Σ phases entered, Σ rank of
//! each thread's pc)`, compared lexicographically, where ranks number the
//! strongly connected components of the control-flow graph without the
//! edges out of `PhaseEnter` (only while `check barrier` counts phases)
//! in topological order, a finished thread ranking above all. A step (one
//! visible instruction and the local ones fused after it) follows
//! control-flow edges: either it passes a `PhaseEnter` and the phase sum
//! grows, or it follows edges of that graph and no rank drops. Barrier
//! releases move the waiting threads along an edge too. Renaming blocks
//! keeps `Φ`, so this holds for symmetry representatives as well. A step
//! that enters a phase, finishes the thread, or leaves the component of its
//! pc increases `Φ`, which never comes back down: it lies on no cycle.

use crate::ir::{cfg, Op};
use crate::model::state::FINISHED;
use crate::model::Model;
use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;

/// Strongly connected components of the control-flow graph, as used by `Φ`.
pub(super) struct Components {
    /// Component of each pc.
    of: Vec<u32>,
    /// The component has a cycle (else every step from it leaves it).
    cyclic: Vec<bool>,
}

impl Components {
    pub fn new(model: &Model) -> Components {
        let code = &model.prog.code;
        let counts_phases = model.prog.checks.barrier;
        let mut g: DiGraph<(), ()> = DiGraph::with_capacity(code.len(), code.len() * 2);
        let nodes: Vec<_> = (0..code.len()).map(|_| g.add_node(())).collect();
        let mut self_loop = vec![false; code.len()];
        for (pc, instr) in code.iter().enumerate() {
            if counts_phases && matches!(instr.op, Op::PhaseEnter) {
                continue;
            }
            for n in cfg::successors(code, pc as u32) {
                if let Some(&to) = nodes.get(n as usize) {
                    g.add_edge(nodes[pc], to, ());
                    self_loop[pc] |= n as usize == pc;
                }
            }
        }
        let mut of = vec![0; code.len()];
        let mut cyclic = Vec::new();
        for (id, scc) in tarjan_scc(&g).into_iter().enumerate() {
            cyclic.push(scc.len() > 1 || self_loop[scc[0].index()]);
            for n in scc {
                of[n.index()] = id as u32;
            }
        }
        Components { of, cyclic }
    }

    /// Whether every step from `pc` leaves its component (no need to run
    /// it): the component has no cycle and the step moves the pc (it does
    /// not stay waiting at a barrier).
    pub fn always_leaves(&self, model: &Model, pc: u32) -> bool {
        let waits = matches!(
            model.prog.code[pc as usize].op,
            Op::SyncThreads
                | Op::KernelBoundary
                | Op::SyncWarp { .. }
                | Op::Vote { .. }
                | Op::ActiveMask { .. }
        );
        !waits && !self.cyclic[self.of[pc as usize] as usize]
    }

    /// Whether the step of thread `t` from `before` to `after` increases `Φ`.
    pub fn increases(&self, model: &Model, (before, after): (&[u32], &[u32]), t: usize) -> bool {
        let phases = model.layout.thread(t, crate::model::state::PHASES);
        let (from, to) = (model.pc(before, t), model.pc(after, t));
        to == FINISHED
            || after[phases] != before[phases]
            || self.of[from as usize] != self.of[to as usize]
    }
}

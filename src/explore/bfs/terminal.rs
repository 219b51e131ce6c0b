//! The proviso's passes (see `proviso`): when the search has nothing left
//! to expand, the terminal components of the newly discovered states in
//! which every state was reduced each get their smallest state expanded
//! fully, sequentially and in id order, so that ids, parents and outcome
//! do not depend on the number of threads.

use super::super::proviso;
use super::super::store::{Slot, StateId};
use super::super::sweeps::PARALLEL_SWEEP_EDGES;
use super::super::workers::Workers;
use super::{words_of, Bfs, Outcome};
use crate::explore::{LimitKind, TransitionSystem};

/// A state's successors `(action, target)` in action order.
type EdgeList<A> = Vec<(A, StateId)>;

/// Where a fault or limit stopped the search.
type End<S> = Outcome<<S as TransitionSystem>::Action, <S as TransitionSystem>::Fault>;

impl<S: TransitionSystem> Bfs<'_, S> {
    /// Runs one pass of the proviso over the states discovered since the
    /// last one (all expanded). Returns whether it stored new states (to
    /// expand next), or where a fault or limit stopped it. On a large graph
    /// the `workers` first close the states that reach a fully expanded
    /// one (their sweeps), which one thread did.
    pub(super) fn expand_terminal_components(&mut self, workers: &Workers) -> Result<bool, End<S>> {
        let Some(reduced) = &self.reduced else {
            return Ok(false);
        };
        let (from, to) = (self.searched, self.store.len());
        self.searched = to;
        let bytes = self.bytes();
        let budget = match self.opts.max_memory_bytes {
            Some(m) => (m as usize).saturating_sub(bytes + self.opts.outside(bytes) as usize),
            None => usize::MAX,
        };
        let edges = self.edges.as_ref().expect("edges are kept while reducing");
        // Sweeps of one pass's visits per worker (on one thread the pass's
        // own single sweep is cheaper).
        let closed = (workers.count() > 1 && edges.len() >= PARALLEL_SWEEP_EDGES).then(|| {
            let visits = to + edges.len();
            proviso::closed_by_sweeps(edges.forward(), reduced, (from, to), workers, visits)
        });
        // Counted at any number of threads, so that a memory limit stops
        // every one at the same place.
        let closed_bytes = to.div_ceil(64) * 8;
        let targets = |s| edges.targets_of(s);
        let Some(found) = proviso::unexpanded_terminal_components(
            targets,
            reduced,
            (from, to),
            budget.saturating_sub(closed_bytes),
            closed.as_ref(),
        ) else {
            return Err(Outcome::Limit(LimitKind::Memory));
        };
        self.peak_bytes = self.peak_bytes.max(bytes + closed_bytes + found.bytes);
        let chosen = found.unexpanded;
        let mut lists = Vec::with_capacity(chosen.len());
        let mut stop = None;
        for &state in &chosen {
            match self.expand_fully(state) {
                Ok(list) => lists.push((state, list)),
                Err(end) => {
                    stop = Some(end);
                    break;
                }
            }
        }
        // The edges of the states expanded fully (before any stop) are theirs.
        let edges = self.edges.as_mut().expect("edges are kept while reducing");
        for (state, list) in &lists {
            self.transitions += (list.len() - edges.targets_of(*state).len()) as u64;
        }
        edges.replace_longer(&lists);
        self.full_expansions += lists.len() as u64;
        match stop {
            Some(end) => Err(end),
            None => Ok(self.store.len() > to),
        }
    }

    /// Takes every enabled step of `state`, storing new successors as
    /// sequential search does (a failing step or a rejected new state stops
    /// it, a new state beyond the limits too); returns its edges.
    fn expand_fully(&mut self, state: StateId) -> Result<EdgeList<S::Action>, End<S>> {
        if let Some(limit) = self.opts.limit_reached() {
            return Err(Outcome::Limit(limit));
        }
        let sys = self.sys;
        let cur = words_of(sys, &self.store, (&self.parents, &self.via), state);
        let mut actions = Vec::new();
        sys.actions(&cur, &mut actions);
        let mut next = vec![0u32; cur.len()];
        let mut list = Vec::with_capacity(actions.len());
        for a in actions {
            if let Err(fault) = sys.step(&cur, a, &mut next) {
                return Err(Outcome::Fault {
                    state,
                    action: Some(a),
                    fault,
                });
            }
            sys.canonicalize(&mut next);
            if !self.reserve(&Workers::caller(), (1, self.store.max_code()), 0, 1) {
                return Err(Outcome::Limit(LimitKind::Memory));
            }
            let id = match self.store.insert_bounded(&next, self.max_states) {
                Slot::Old(id) => id,
                Slot::Full => return Err(Outcome::Limit(LimitKind::States)),
                Slot::New(id) => {
                    self.parents.push(state);
                    self.via.push(a);
                    self.finals.push(sys.is_final(&next));
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
            list.push((a, id));
        }
        Ok(list)
    }

    /// The largest BFS depth of a stored state, from the parents (a
    /// parent's id is below its child's).
    pub(super) fn exact_max_depth(&self) -> u32 {
        let mut depth = vec![0u32; self.parents.len()];
        let mut max = 0;
        for id in 1..self.parents.len() {
            depth[id] = depth[self.parents[id] as usize] + 1;
            max = max.max(depth[id]);
        }
        max
    }
}

//! A system started at one of its states: where the threads of a deadlock
//! end up is searched from the first state that cannot finish (the
//! distributed explorer), and whether the harness can still finish from a
//! state a random walk reached (the bug hunt).

use super::TransitionSystem;

pub(crate) struct Rooted<'a, S> {
    sys: &'a S,
    root: Vec<u32>,
    /// With [`Rooted::reduced`]: the states expanded fully; every other
    /// state takes its ample set, as in the search that found the root.
    full: Option<std::collections::HashSet<Vec<u32>>>,
}

impl<'a, S> Rooted<'a, S> {
    /// Every enabled step of every state.
    pub(crate) fn new(sys: &'a S, root: Vec<u32>) -> Self {
        Rooted {
            sys,
            root,
            full: None,
        }
    }

    /// The reduced graph of a search that expanded the states `full`
    /// fully and every other state by its ample set: its edges from the
    /// root, with no proviso of its own (the search's is replayed).
    #[cfg(feature = "dist")]
    pub(crate) fn reduced(sys: &'a S, root: Vec<u32>, full: &[Vec<u32>]) -> Self {
        Rooted {
            sys,
            root,
            full: Some(full.iter().cloned().collect()),
        }
    }
}

impl<S: TransitionSystem> TransitionSystem for Rooted<'_, S> {
    type Action = S::Action;
    type Fault = S::Fault;

    fn state_words(&self) -> usize {
        self.sys.state_words()
    }

    fn initial_state(&self, out: &mut [u32]) {
        out.copy_from_slice(&self.root);
    }

    fn actions(&self, state: &[u32], out: &mut Vec<S::Action>) {
        self.sys.actions(state, out);
    }

    fn step(&self, state: &[u32], action: S::Action, out: &mut [u32]) -> Result<(), S::Fault> {
        self.sys.step(state, action, out)
    }

    fn step_from_copy(
        &self,
        state: &[u32],
        action: S::Action,
        out: &mut [u32],
    ) -> Result<(), S::Fault> {
        self.sys.step_from_copy(state, action, out)
    }

    fn check_state(&self, state: &[u32]) -> Result<(), S::Fault> {
        self.sys.check_state(state)
    }

    fn is_final(&self, state: &[u32]) -> bool {
        self.sys.is_final(state)
    }

    fn canonicalize(&self, state: &mut [u32]) {
        self.sys.canonicalize(state);
    }

    // The set is reported as not reduced: the replayed proviso needs none.
    fn ample_actions(&self, state: &[u32], out: &mut Vec<S::Action>) -> bool {
        match &self.full {
            Some(full) if !full.contains(state) => {
                self.sys.ample_actions(state, out);
            }
            _ => self.sys.actions(state, out),
        }
        false
    }
}

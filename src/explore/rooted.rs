//! A system started at one of its states: where the threads of a deadlock
//! end up is searched from the first state that cannot finish (the
//! distributed explorer), and whether the harness can still finish from a
//! state a random walk reached (the bug hunt).

use super::TransitionSystem;

pub(crate) struct Rooted<'a, S> {
    sys: &'a S,
    root: Vec<u32>,
}

impl<'a, S> Rooted<'a, S> {
    pub(crate) fn new(sys: &'a S, root: Vec<u32>) -> Self {
        Rooted { sys, root }
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
}

//! A generic explicit-state explorer over a [`TransitionSystem`].
//!
//! States are fixed-length strings of `u32` words: every semantics packs its
//! state into words (small integers, bit masks), which keeps states compact,
//! cheap to step and compare. The store keeps each state as a compact,
//! injective byte code (`codec`: zero words cost a bit, small ones a
//! byte) in a segmented arena without per-state allocation. The explorer
//! knows nothing about GPUs: it is tested on toy systems and reused by
//! every semantics.
//!
//! [`explore`] runs a deterministic breadth-first search (so the first
//! fault found has a shortest trace, unless the partial-order proviso had
//! to expand states fully first, `proviso`) over a [`StateStore`] (flat arena plus
//! a lock-free table of ids, `table`), under the limits of [`Options`]. It
//! works in batches of states of one level: worker threads expand them
//! (`expand`), then claim their successors in the table, which keeps each
//! new state's first discovery (`batch`), so that ids, parents, edges and
//! the first fault are those of a sequential search for any number of
//! threads (`--threads`). It returns an
//! [`Exploration`]: states by id, BFS parents for [`Exploration::path_to`],
//! final states, [`Stats`] and, with [`Options::keep_edges`], the state
//! graph for analyses (successors, predecessors, backward reachability,
//! [`Exploration::first_state_that_cannot_finish`],
//! [`Exploration::cycle_from`]).

/// A system the explorer can enumerate.
pub trait TransitionSystem: Sync {
    /// What labels a step, e.g. the index of the thread that moves.
    type Action: Copy + Eq + std::fmt::Debug + Send + Sync;
    /// A safety violation detected in a state or while taking a step.
    type Fault: Clone + std::fmt::Debug + Send + Sync;

    /// Number of words in every state.
    fn state_words(&self) -> usize;

    /// Writes the single initial state into `out` (`out.len() == state_words()`).
    fn initial_state(&self, out: &mut [u32]);

    /// Appends the actions enabled in `state` to `out`, in a fixed order
    /// (the order decides which shortest counterexample is reported).
    fn actions(&self, state: &[u32], out: &mut Vec<Self::Action>);

    /// Takes `action` from `state`, writing the successor into `out`.
    /// An error is a violation found by this step.
    fn step(&self, state: &[u32], action: Self::Action, out: &mut [u32])
        -> Result<(), Self::Fault>;

    /// Like [`step`](Self::step), when `out` already holds a copy of
    /// `state` (the explorer fills it instead of zeroing it): a system
    /// whose step starts by copying the state skips that copy.
    fn step_from_copy(
        &self,
        state: &[u32],
        action: Self::Action,
        out: &mut [u32],
    ) -> Result<(), Self::Fault> {
        self.step(state, action, out)
    }

    /// Checks the state invariants of a reached state. The explorer asks
    /// it of every successor it generates, while the words are at hand
    /// (cheaper than decoding the new ones again), so it should be cheap.
    fn check_state(&self, _state: &[u32]) -> Result<(), Self::Fault> {
        Ok(())
    }

    /// A final (accepting) state: the run finished normally.
    fn is_final(&self, state: &[u32]) -> bool;

    /// Word ranges of the states that take few distinct values across the
    /// search while the other words change at every step: the store keeps
    /// each distinct content of a range once (`parts`). Ordered and apart.
    /// Default: none.
    fn state_parts(&self) -> Vec<std::ops::Range<usize>> {
        Vec::new()
    }

    /// Replaces a state by the representative of its symmetry class: a
    /// state from which the same things happen up to a renaming the
    /// properties do not see. The explorer stores representatives only.
    /// Default: every state is its own representative.
    fn canonicalize(&self, _state: &mut [u32]) {}

    /// Partial-order reduction: appends an *ample* subset of the actions
    /// enabled in `state` (persistent: no step outside it, on any path that
    /// avoids it, depends on it; invisible to the properties) and returns
    /// `true` when it is a proper subset. The explorer takes care of the
    /// proviso (see `proviso`): it expands some of those states fully
    /// later. Default: every enabled action.
    fn ample_actions(&self, state: &[u32], out: &mut Vec<Self::Action>) -> bool {
        self.actions(state, out);
        false
    }

    /// Whether [`ample_actions`](Self::ample_actions) may return `true`:
    /// the explorer then keeps the reduced graph's edges during the search
    /// for its proviso (it panics if a state is reduced while this says no).
    fn reduces(&self) -> bool {
        false
    }
}

mod arena;
mod batch;
mod bfs;
mod bitset;
mod codec;
mod edges;
mod expand;
mod graph;
mod growth;
pub mod heap;
mod limits;
mod parts;
mod pool;
#[cfg(feature = "terminal")]
mod progress;
// Without a terminal, the same interface drawing nothing.
#[cfg(not(feature = "terminal"))]
#[path = "progress_off.rs"]
mod progress;
mod proviso;
mod rooted;
mod stats;
mod store;
mod sweeps;
mod sync;
mod table;
mod waits;
mod wire;
mod workers;

#[cfg(test)]
pub(crate) mod test_rng;
#[cfg(test)]
mod tests;

pub use bfs::{explore, Exploration, Outcome};
pub use bitset::BitSet;
pub use graph::Lasso;
pub use limits::{deadline_in, interrupt_flag, interrupted, LimitKind, Limits, Options};
pub use progress::{set_progress_deadline, set_progress_label};
pub(crate) use rooted::Rooted;
pub use stats::{peak_rss_bytes, rss_bytes, PhaseWaits, Phases, Stats, Wait};
pub use store::{collision_probability, Slot, StateId, StateStore, FINGERPRINT_BITS, MAX_STATES};
pub use workers::WorkerPool;

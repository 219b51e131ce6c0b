//! The explored state graph's transitions (kept with
//! [`Options::keep_edges`]), in compressed sparse row form, and the
//! predecessors built from them on demand.
//!
//! [`Options::keep_edges`]: super::Options::keep_edges

use std::mem::MaybeUninit;

use super::limits::{vec_bytes, Projection};
use super::store::StateId;

/// Transitions in compressed sparse row form. BFS expands states in id
/// order, so edges arrive grouped by source: `offsets[s]..offsets[s + 1]`
/// index the edges of state `s`.
pub(crate) struct Edges<A> {
    pub(super) offsets: Vec<u64>,
    pub(super) targets: Vec<StateId>,
    pub(super) actions: Vec<A>,
}

impl<A> Default for Edges<A> {
    fn default() -> Self {
        Self {
            offsets: vec![0],
            targets: Vec::new(),
            actions: Vec::new(),
        }
    }
}

impl<A: Copy> Edges<A> {
    /// Room for `n` more edges (their targets and actions) and the ends of
    /// `states` more states' edge lists, to be written in place (in
    /// parallel) before [`appended`](Self::appended) counts them.
    #[allow(clippy::type_complexity)]
    pub(super) fn spare(
        &mut self,
        n: usize,
        states: usize,
    ) -> (
        &mut [MaybeUninit<StateId>],
        &mut [MaybeUninit<A>],
        &mut [MaybeUninit<u64>],
    ) {
        self.targets.reserve(n);
        self.actions.reserve(n);
        self.offsets.reserve(states);
        (
            &mut self.targets.spare_capacity_mut()[..n],
            &mut self.actions.spare_capacity_mut()[..n],
            &mut self.offsets.spare_capacity_mut()[..states],
        )
    }

    /// Appends the `n` edges and `states` list ends written into
    /// [`spare`](Self::spare)'s room.
    ///
    /// # Safety
    /// The first `n` targets and actions and `states` ends of that room
    /// were written.
    pub(super) unsafe fn appended(&mut self, n: usize, states: usize) {
        self.targets.set_len(self.targets.len() + n);
        self.actions.set_len(self.actions.len() + n);
        self.offsets.set_len(self.offsets.len() + states);
    }

    /// Number of edges appended so far.
    pub(super) fn len(&self) -> usize {
        self.targets.len()
    }

    /// Drops the edges of a state whose expansion was interrupted.
    pub(super) fn truncate_to_closed(&mut self) {
        let n = *self.offsets.last().expect("offsets start with 0") as usize;
        self.targets.truncate(n);
        self.actions.truncate(n);
    }

    pub(super) fn bytes(&self) -> usize {
        vec_bytes(&self.offsets) + vec_bytes(&self.targets) + vec_bytes(&self.actions)
    }

    /// Projects [`reserve`](Self::reserve)`(states, n)`.
    pub(super) fn project(&self, p: &mut Projection, states: usize, n: usize) {
        p.vec(&self.offsets, states);
        p.vec(&self.targets, n);
        p.vec(&self.actions, n);
    }

    /// Room for `states` more expanded states with `n` edges in all.
    pub(super) fn reserve(&mut self, states: usize, n: usize) {
        self.offsets.reserve(states);
        self.targets.reserve(n);
        self.actions.reserve(n);
    }

    /// The targets of the edges of `s` (none if it is not closed).
    #[inline]
    pub(super) fn targets_of(&self, s: StateId) -> &[StateId] {
        self.forward().targets_of(s)
    }

    /// The edges' sources and targets without their actions (which other
    /// threads may read whatever the action type).
    pub(super) fn forward(&self) -> Forward<'_> {
        Forward {
            offsets: &self.offsets,
            targets: &self.targets,
        }
    }

    /// Replaces the edge lists of closed states, `lists` in increasing
    /// state order, by lists at least as long (a reduced state expanded
    /// fully later): moves the later states' edges up in place, from the
    /// back, so the only new memory is the growth.
    pub(super) fn replace_longer(&mut self, lists: &[(StateId, Vec<(A, StateId)>)]) {
        let closed = self.offsets.len() - 1;
        let end = self.offsets[closed] as usize;
        assert_eq!(end, self.targets.len(), "edges of an open state");
        let grow: usize = lists
            .iter()
            .map(|(s, l)| l.len() - self.range(*s).len())
            .sum();
        let Some(&filler) = lists.iter().flat_map(|(_, l)| l).map(|(a, _)| a).next() else {
            return;
        };
        self.targets.resize(end + grow, 0);
        self.actions.resize(end + grow, filler);
        // `shift`: how far the edges of states after `s` move up.
        let (mut shift, mut hi) = (grow, end);
        let mut lists = lists.iter().rev().peekable();
        for s in (0..closed).rev() {
            if shift == 0 && lists.peek().is_none() {
                break;
            }
            let lo = self.offsets[s] as usize;
            self.offsets[s + 1] = (hi + shift) as u64;
            match lists.next_if(|(t, _)| *t as usize == s) {
                Some((_, list)) => {
                    shift -= list.len() - (hi - lo);
                    for (k, &(a, t)) in list.iter().enumerate() {
                        self.actions[lo + shift + k] = a;
                        self.targets[lo + shift + k] = t;
                    }
                }
                None => {
                    self.targets.copy_within(lo..hi, lo + shift);
                    self.actions.copy_within(lo..hi, lo + shift);
                }
            }
            hi = lo;
        }
    }

    pub(super) fn range(&self, s: StateId) -> std::ops::Range<usize> {
        self.forward().range(s)
    }
}

/// The targets of [`Edges`], grouped by source.
#[derive(Clone, Copy)]
pub(crate) struct Forward<'a> {
    offsets: &'a [u64],
    targets: &'a [StateId],
}

impl<'a> Forward<'a> {
    /// The targets of the edges of `s` (none if it is not closed).
    #[inline]
    pub(super) fn targets_of(self, s: StateId) -> &'a [StateId] {
        &self.targets[self.range(s)]
    }

    /// The indices of the edges of `s` (empty if it is not closed).
    #[inline]
    fn range(self, s: StateId) -> std::ops::Range<usize> {
        let s = s as usize;
        if s + 1 < self.offsets.len() {
            self.offsets[s] as usize..self.offsets[s + 1] as usize
        } else {
            0..0
        }
    }

    /// Number of edges.
    pub(super) fn len(self) -> usize {
        self.targets.len()
    }
}

/// Predecessor lists (CSR), built on first use.
pub(crate) struct Reverse {
    pub(super) offsets: Vec<u64>,
    pub(super) sources: Vec<StateId>,
}

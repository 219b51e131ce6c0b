//! Backward reachability on the partitioned graph, along the predecessor
//! edges a worker kept (`Partition::preds`): the deadlock analysis marks
//! the states that can finish, the proviso those that escape a terminal
//! component. Marks for this worker's own states are taken at once (a
//! fixpoint within the worker before each exchange, as `colour::spread`
//! does), so the rounds count the crossings between workers, and no round
//! holds all its marks (`Outbox`).

use super::colour::TAKE_EVERY;
use super::partition::Packing;
use super::rounds::{marks, Msg, Outbox, Ptr, Rounds};
use crate::explore::BitSet;

/// The states from local index `first` on, with the edges into them
/// sorted by target (their sources packed by `packing`).
pub(super) struct Preds<'p> {
    first: u32,
    edges: &'p [(u32, u32)],
    packing: Packing,
}

impl<'p> Preds<'p> {
    /// `edges` must be sorted by target and hold every edge into the
    /// states from `first` on.
    pub(super) fn new(first: u32, edges: &'p [(u32, u32)], packing: Packing) -> Self {
        debug_assert!(edges.is_sorted_by_key(|e| e.0));
        Preds {
            first,
            edges,
            packing,
        }
    }

    pub(super) fn first(&self) -> u32 {
        self.first
    }

    pub(super) fn holds(&self, local: u32) -> bool {
        local >= self.first
    }

    /// The sources of the edges into `local` (by binary search: an index
    /// of where each state's edges start would cost 8 bytes a state).
    pub(super) fn of(&self, local: u32) -> impl Iterator<Item = Ptr> + 'p {
        let from = self.edges.partition_point(|p| p.0 < local);
        let to = from + self.edges[from..].partition_point(|p| p.0 <= local);
        let packing = self.packing;
        self.edges[from..to]
            .iter()
            .map(move |p| packing.unpack(p.1))
    }
}

/// Marks (bit `local - first` of `marked`) every state held by `preds`
/// that has a path to a marked one, on every worker, to a fixpoint:
/// `frontier` holds this worker's states just marked, `sources` states
/// held anywhere to be marked (those outside their owner's range are not).
pub(super) fn mark_backward(
    rounds: &mut Rounds<'_>,
    preds: &Preds<'_>,
    marked: &mut BitSet,
    mut frontier: Vec<u32>,
    sources: Vec<Ptr>,
) {
    let me = rounds.index() as u32;
    let first = preds.first;
    let mut out = Outbox::new(rounds.peers(), Msg::Marks);
    let mut mark = |local: u32, frontier: &mut Vec<u32>| {
        if preds.holds(local) && marked.insert(local - first) {
            frontier.push(local);
        }
    };
    for (w, local) in sources {
        match w == me {
            true => mark(local, &mut frontier),
            false => out.push(rounds, w, local),
        }
    }
    let mut sent = 0usize;
    loop {
        while let Some(l) = frontier.pop() {
            for (w, local) in preds.of(l) {
                if w == me {
                    mark(local, &mut frontier);
                    continue;
                }
                out.push(rounds, w, local);
                sent += 1;
                // The marks others sent meanwhile are taken in as they
                // come: a first round sends nearly every crossing edge
                // (the proviso's escape starts from every state expanded
                // fully), which piled up in timely's buffers unread (#43:
                // the search's peak, 26 MiB of a 4 × 1 process at 6
                // blocks). Marks only add to a fixpoint, in any order.
                if sent.is_multiple_of(TAKE_EVERY) {
                    rounds.take_early(|m| {
                        for local in marks(m).into_iter().flatten() {
                            mark(local, &mut frontier);
                        }
                    });
                }
            }
        }
        let round = std::mem::replace(&mut out, Outbox::new(rounds.peers(), Msg::Marks));
        let take = |local| mark(local, &mut frontier);
        if !rounds.end_fixpoint_round_each(round, marks, take) {
            return;
        }
    }
}

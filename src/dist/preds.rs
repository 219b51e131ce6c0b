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
    /// Where the edges into each state from `first` on start in `edges`
    /// (one more entry, the end): built once per analysis, 4 bytes a
    /// state, where two binary searches a state over all the edges cost
    /// the deadlock analysis an eighth of a run at 8 × 2 (#43). `None`
    /// where the edges do not fit `u32` offsets: the binary searches then.
    starts: Option<Vec<u32>>,
    packing: Packing,
}

impl<'p> Preds<'p> {
    /// `edges` must be sorted by target and hold every edge into the
    /// states from `first` on (edges into earlier states are left out).
    pub(super) fn new(first: u32, edges: &'p [(u32, u32)], packing: Packing) -> Self {
        debug_assert!(edges.is_sorted_by_key(|e| e.0));
        let starts = u32::try_from(edges.len()).ok().map(|_| {
            let states = edges.last().map_or(0, |e| (e.0 + 1).saturating_sub(first));
            let mut starts = Vec::with_capacity(states as usize + 1);
            // Edges into states before `first` (a range's edges back to
            // earlier levels) come first and belong to none of them.
            for (i, e) in edges.iter().enumerate().filter(|(_, e)| e.0 >= first) {
                while starts.len() <= (e.0 - first) as usize {
                    starts.push(i as u32);
                }
            }
            starts.push(edges.len() as u32);
            starts
        });
        Preds {
            first,
            edges,
            starts,
            packing,
        }
    }

    pub(super) fn first(&self) -> u32 {
        self.first
    }

    pub(super) fn holds(&self, local: u32) -> bool {
        local >= self.first
    }

    /// The sources of the edges into `local`.
    pub(super) fn of(&self, local: u32) -> impl Iterator<Item = Ptr> + 'p {
        let (from, to) = match &self.starts {
            Some(starts) => {
                let k = (local - self.first) as usize;
                match starts.get(k + 1) {
                    Some(&end) => (starts[k] as usize, end as usize),
                    None => (0, 0),
                }
            }
            None => {
                let from = self.edges.partition_point(|p| p.0 < local);
                (
                    from,
                    from + self.edges[from..].partition_point(|p| p.0 <= local),
                )
            }
        };
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::test_rng::Rng;

    /// The edges into each state found by the offsets are those the
    /// binary searches find, with edges into earlier states before
    /// `first`, states without edges, and states past the last edge.
    #[test]
    fn offsets_find_the_edges_binary_searches_find() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut next = |n: u32| rng.below(u64::from(n)) as u32;
        for _ in 0..200 {
            let first = next(20);
            let mut edges: Vec<(u32, u32)> =
                (0..next(60)).map(|_| (next(50), next(1000))).collect();
            edges.sort_unstable_by_key(|e| e.0);
            let packing = Packing::new(3);
            let offsets = Preds::new(first, &edges, packing);
            assert!(offsets.starts.is_some());
            let searches = Preds {
                starts: None,
                ..Preds::new(first, &edges, packing)
            };
            for local in first..60 {
                let a: Vec<Ptr> = offsets.of(local).collect();
                let b: Vec<Ptr> = searches.of(local).collect();
                assert_eq!(a, b, "state {local}, first {first}, edges {edges:?}");
            }
        }
    }
}

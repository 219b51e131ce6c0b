//! The proviso of partial-order reduction on the partitioned graph: the
//! same states as the sequential explorer's pass (`explore::proviso`,
//! whose module doc has the argument), found without gathering the graph.
//!
//! A pass looks at the states of the current range (those discovered
//! since the last pass, levels `range.0` on) and finds the terminal strong
//! components of the reduced graph among them in which every state was
//! reduced, and the smallest sequential id of each. Three steps, each a
//! fixpoint of message rounds along the kept predecessor edges:
//!
//! 1. *Escape*: a state escapes if it was expanded fully, has an edge out
//!    of the range (the receivers of such edges noted their sources in
//!    `Partition::leaving`), or reaches a state that escapes (backward
//!    reachability, as `backward` does for the final states). None of
//!    these is in such a component. What remains is closed under
//!    successors: a state with an edge to an escaping one escapes.
//! 2. *Least reachable id*: in the remainder, `low(s)` is the least id
//!    that `s` reaches (itself included), by propagating minima backward.
//!    Every state of a terminal component `C` reaches exactly `C`, so
//!    `low` is `min C` throughout `C`.
//! 3. *Greatest low reachable*: `high(s)` is the greatest `low` that `s`
//!    reaches. A state `m` is the smallest of a terminal component exactly
//!    when `low(m) = high(m) = id(m)`: every state it reaches then reaches
//!    `m` back (its `low` is `m`, an id it can only get from reaching `m`),
//!    so `m`'s component is all it reaches; and conversely, inside a
//!    terminal component everything reached has `low = min C`.
//!
//! The chosen states go to every worker sorted by id, the order in which
//! the sequential explorer expands them fully.

use super::partition::Partition;
use super::preds::{mark_backward, Preds};
use super::rounds::{Msg, Outbox, Ptr, Rounds};
use crate::explore::BitSet;

/// The smallest state of each terminal component of the range's reduced
/// states: (sequential id, worker, index) sorted by id, on every worker.
/// `range`: the first level of the range, and where the edges into its
/// states start in `Partition::preds`; `starts`: each level's first id.
pub(super) fn unexpanded(
    rounds: &mut Rounds<'_>,
    part: &mut Partition,
    (first_level, first_pred): (u32, usize),
    starts: &[u64],
) -> Vec<(u64, u32, u32)> {
    // Levels only grow along a worker's states: the range is a suffix.
    let first = part.level_first(first_level);
    part.preds[first_pred..].sort_unstable_by_key(|p| p.0);
    let leaving = std::mem::take(&mut part.leaving);
    let part = &*part;
    let range = Preds::new(first, &part.preds[first_pred..], part.packing());
    let escaped = escape(rounds, part, &range, leaving);
    let n = part.len() - first as usize;
    let id = |l: u32| starts[part.level(l) as usize] + part.rank(l);
    let remainder: Vec<u32> = (first..part.len() as u32)
        .filter(|&l| !escaped.get(l - first))
        .collect();
    let mut low = vec![u64::MAX; n];
    for &l in &remainder {
        low[(l - first) as usize] = id(l);
    }
    propagate(rounds, &range, &mut low, remainder.clone(), |new, old| {
        new < old
    });
    let mut high = low.clone();
    propagate(rounds, &range, &mut high, remainder.clone(), |new, old| {
        new > old
    });
    let mine: Vec<u64> = remainder
        .iter()
        .filter(|&&l| {
            let i = (l - first) as usize;
            low[i] == id(l) && high[i] == id(l)
        })
        .flat_map(|&l| [id(l), u64::from(l)])
        .collect();
    let mut chosen: Vec<(u64, u32, u32)> = rounds
        .gather(mine)
        .iter()
        .enumerate()
        .flat_map(|(w, v)| v.chunks(2).map(move |c| (c[0], w as u32, c[1] as u32)))
        .collect();
    chosen.sort_unstable();
    chosen
}

/// The range's states that escape (bit `local - first`): not reduced, an
/// edge out of the range (`leaving`: sources held anywhere), or a path to
/// one that is.
fn escape(
    rounds: &mut Rounds<'_>,
    part: &Partition,
    range: &Preds<'_>,
    leaving: Vec<Ptr>,
) -> BitSet {
    let first = range.first();
    let mut escaped = BitSet::new(part.len() - first as usize);
    let frontier: Vec<u32> = (first..part.len() as u32)
        .filter(|&l| !part.is_reduced(l))
        .collect();
    for &l in &frontier {
        escaped.insert(l - first);
    }
    mark_backward(rounds, range, &mut escaped, frontier, leaving);
    escaped
}

/// Propagates `labels` (indexed `local - first`; `u64::MAX` outside the
/// remainder) backward along the range's edges until none is `better`,
/// starting from the states `changed`.
fn propagate(
    rounds: &mut Rounds<'_>,
    range: &Preds<'_>,
    labels: &mut [u64],
    mut changed: Vec<u32>,
    better: impl Fn(u64, u64) -> bool,
) {
    let first = range.first();
    loop {
        let mut out = Outbox::new(rounds.peers(), Msg::Labels);
        for l in changed.drain(..) {
            let label = labels[(l - first) as usize];
            for (w, local) in range.of(l) {
                out.push(rounds, w, (local, label));
            }
        }
        let Some(got) = rounds.end_fixpoint_round(out, labelled) else {
            return;
        };
        for (local, label) in got {
            if !range.holds(local) {
                continue;
            }
            let old = &mut labels[(local - first) as usize];
            if *old != u64::MAX && better(label, *old) {
                *old = label;
                changed.push(local);
            }
        }
        changed.sort_unstable();
        changed.dedup();
    }
}

fn labelled(m: Msg) -> Option<Vec<(u32, u64)>> {
    match m {
        Msg::Labels(v) => Some(v),
        _ => None,
    }
}

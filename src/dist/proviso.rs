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
    // A sequential id fits four bytes below `NONE` (`Packing`: fewer than
    // 2^32 states a run), so the labels take four bytes a state, one
    // vector for both steps, and the remainder is listed again for each
    // step, not kept in copies (#43: three lists, `low` and `high` at
    // eight bytes each made the search's peak at 7 blocks).
    let id = |l: u32| {
        let id = starts[part.level(l) as usize] + part.rank(l);
        u32::try_from(id).expect("fewer than 2^32 states a run")
    };
    let remainder = || (first..part.len() as u32).filter(|&l| !escaped.get(l - first));
    let mut labels = vec![NONE; n];
    for l in remainder() {
        labels[(l - first) as usize] = id(l);
    }
    propagate(
        rounds,
        &range,
        &mut labels,
        remainder().collect(),
        |new, old| new < old,
    );
    // Where `low(s)` is `s`'s own id; `high` starts from `low`.
    let mut own_low = BitSet::new(n);
    for l in remainder().filter(|&l| labels[(l - first) as usize] == id(l)) {
        own_low.insert(l - first);
    }
    propagate(
        rounds,
        &range,
        &mut labels,
        remainder().collect(),
        |new, old| new > old,
    );
    let mine: Vec<u64> = remainder()
        .filter(|&l| own_low.get(l - first) && labels[(l - first) as usize] == id(l))
        .flat_map(|l| [u64::from(id(l)), u64::from(l)])
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

/// A state outside the remainder, in `propagate`'s labels.
const NONE: u32 = u32::MAX;

/// Propagates `labels` (indexed `local - first`; [`NONE`] outside the
/// remainder) backward along the range's edges until none is `better`,
/// starting from the states `changed`.
fn propagate(
    rounds: &mut Rounds<'_>,
    range: &Preds<'_>,
    labels: &mut [u32],
    mut changed: Vec<u32>,
    better: impl Fn(u32, u32) -> bool,
) {
    let first = range.first();
    loop {
        let mut out = Outbox::new(rounds.peers(), Msg::Labels);
        for l in changed.drain(..) {
            let label = labels[(l - first) as usize];
            for (w, local) in range.of(l) {
                out.push(rounds, w, (local, u64::from(label)));
            }
        }
        let Some(got) = rounds.end_fixpoint_round(out, labelled) else {
            return;
        };
        for (local, label) in got {
            if !range.holds(local) {
                continue;
            }
            // Sent from a label of this type.
            let label = label as u32;
            let old = &mut labels[(local - first) as usize];
            if *old != NONE && better(label, *old) {
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

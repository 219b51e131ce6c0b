//! Deadlock on the partitioned graph: which states can still finish
//! (backward reachability from the final states, each owner marking its
//! states and asking the owners of their predecessors to mark theirs),
//! and the first state, in the sequential search's order, that cannot.

use super::partition::Partition;
use super::preds::{mark_backward, Preds};
use super::rounds::{Msg, Rounds};
use super::search::walk;
use crate::check::Checkable;
use crate::explore::BitSet;

/// What the deadlock analysis found, the same on every worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Stuck {
    /// Every state can finish.
    None,
    /// The actions to the first state that cannot finish.
    At(Vec<u32>),
    /// Only the labelled graph answers (a harness that never finishes, or
    /// threads that progress where it cannot finish): the reason.
    NeedsLabels(&'static str),
}

/// Finds the first state that cannot finish, after a complete search that
/// kept the predecessors.
pub(super) fn find<S: Checkable>(sys: &S, rounds: &mut Rounds<'_>, part: &mut Partition) -> Stuck {
    let finals = rounds.sum(vec![part.finals.count_ones() as u64])[0];
    if finals == 0 {
        return Stuck::NeedsLabels("the harness never finishes");
    }
    let can = can_finish(rounds, part);
    // The first state that cannot finish: smallest (level, rank).
    let first = (0..part.len() as u32)
        .filter(|&l| !can.get(l))
        .min_by_key(|&l| (part.level(l), part.rank(l)));
    let code = |l: u32| [u64::from(part.level(l)), part.rank(l)];
    let mine = first.map_or(vec![], |l| code(l).to_vec());
    let all = rounds.gather(mine);
    let Some(min) = all.iter().filter(|v| !v.is_empty()).min().cloned() else {
        return Stuck::None;
    };
    if progress_while_stuck(sys, rounds, part, &can) {
        return Stuck::NeedsLabels("threads keep progressing where the harness cannot finish");
    }
    let at = first.filter(|&l| code(l)[..] == min[..]);
    Stuck::At(walk(rounds, part, at))
}

/// The states of this partition that can reach a final state.
fn can_finish(rounds: &mut Rounds<'_>, part: &mut Partition) -> BitSet {
    part.preds.sort_unstable_by_key(|p| p.0);
    let mut can = BitSet::new(part.len());
    let finals: Vec<u32> = part.finals.iter_ones().collect();
    for &l in &finals {
        can.insert(l);
    }
    mark_backward(
        rounds,
        &Preds::new(0, &part.preds, part.packing()),
        &mut can,
        finals,
        Vec::new(),
    );
    can
}

/// Whether some step between two states that cannot finish passes a
/// progress point (the sequential `deadlock::progress_while_stuck`).
fn progress_while_stuck<S: Checkable>(
    sys: &S,
    rounds: &mut Rounds<'_>,
    part: &Partition,
    can: &BitSet,
) -> bool {
    let peers = rounds.peers();
    let mut out = vec![Vec::new(); peers];
    let (mut actions, mut next) = (Vec::new(), vec![0u32; sys.state_words()]);
    for l in (0..part.len() as u32).filter(|&l| !can.get(l)) {
        let s = &part.state(l)[..];
        actions.clear();
        // The steps of the reduced graph, as the sequential check reads them.
        match part.is_reduced(l) {
            true => drop(sys.ample_actions(s, &mut actions)),
            false => sys.actions(s, &mut actions),
        }
        for &a in &actions {
            if sys.step_labels(s, a, &mut next).1.progressed {
                sys.canonicalize(&mut next);
                out[super::partition::owner(&next, peers) as usize].extend_from_slice(&next);
            }
        }
    }
    let asks = out
        .into_iter()
        .enumerate()
        .filter(|(_, w)| !w.is_empty())
        .map(|(w, words)| (w as u32, Msg::Asks(words)));
    let words = part.words().max(1);
    let stuck = rounds
        .exchange(asks.collect::<Vec<_>>())
        .into_iter()
        .map(|m| match m {
            Msg::Asks(asked) => asked
                .chunks(words)
                .filter(|s| part.find(s).is_some_and(|l| !can.get(l)))
                .count(),
            _ => 0,
        })
        .sum::<usize>();
    rounds.sum(vec![stuck as u64])[0] > 0
}

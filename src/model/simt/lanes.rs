//! The order in which the lanes of a lockstep warp apply one memory
//! instruction. CUDA does not say in which order the lanes of a warp-wide
//! atomic (or store) reach memory, so every order is a behaviour. The
//! model explores them up to a sound reduction:
//!
//! - lanes that access different words do not affect one another (under
//!   sequential consistency, the only memory model lockstep runs under, an
//!   access touches its own word and its lane's locals), so only the order
//!   *within* each group of lanes on one word matters;
//! - loads write nothing: their order never matters;
//! - atomics whose old value nobody reads and whose operation commutes with
//!   itself (`add`, `sub`, `and`, `or`, `xor`, `min`, `max`) leave the same
//!   word whatever their order.
//!
//! Every other group of `k` lanes is run in each of its `k!` orders: the
//! warp's step has one action per combination of orders (the action's
//! choice bits, a mixed-radix number over the groups, each digit a
//! permutation in lexicographic order; 0 is ascending lane order). More than
//! [`MAX_ORDERS`] combinations cannot be encoded and are an error of the
//! step, never a silent choice of one.

use crate::ir::{AtomicOp, Op, Pc};
use crate::model::threads::{runtime_error, Threads};
use crate::model::Violation;

/// The most lane orders one warp step may have (the action's choice bits).
pub(crate) const MAX_ORDERS: usize = 1 << 15;

/// The groups of lanes (ascending) whose order matters at `pc`, by word.
pub(crate) fn groups(th: &Threads, s: &[u32], lanes: &[usize], pc: Pc) -> Vec<Vec<usize>> {
    let op = &th.prog.code[pc as usize].op;
    let ordered = match op {
        Op::Store { .. } => true,
        Op::Atomic { op, dst, .. } => {
            let result_read = dst.is_some_and(|d| th.is_live(pc + 1, d));
            result_read || !commutes(*op)
        }
        _ => false,
    };
    let Some(access) = op.access().filter(|_| ordered && lanes.len() > 1) else {
        return vec![];
    };
    let mut by_word: Vec<(usize, Vec<usize>)> = Vec::new();
    for &u in lanes {
        // An address that faults is reported by the step, in any order.
        let Ok((word, _)) = th.address(s, u, &access.loc) else {
            return vec![];
        };
        match by_word.iter_mut().find(|(w, _)| *w == word) {
            Some((_, group)) => group.push(u),
            None => by_word.push((word, vec![u])),
        }
    }
    by_word
        .into_iter()
        .map(|(_, g)| g)
        .filter(|g| g.len() > 1)
        .collect()
}

/// Whether two applications of `op` (with any operands) commute.
fn commutes(op: AtomicOp) -> bool {
    matches!(
        op,
        AtomicOp::Add
            | AtomicOp::Sub
            | AtomicOp::And
            | AtomicOp::Or
            | AtomicOp::Xor
            | AtomicOp::Min
            | AtomicOp::Max
    )
}

/// How many combinations of orders the groups have (saturating).
pub(crate) fn count(groups: &[Vec<usize>]) -> usize {
    groups
        .iter()
        .map(|g| (1..=g.len()).fold(1usize, |f, k| f.saturating_mul(k)))
        .fold(1usize, |n, f| n.saturating_mul(f))
}

/// The lanes in the order that `choice` names: `lanes` ascending, each
/// group's positions refilled with its permutation.
pub(crate) fn order(
    lanes: &[usize],
    groups: &[Vec<usize>],
    choice: u32,
) -> Result<Vec<usize>, Violation> {
    let n = count(groups);
    if n > MAX_ORDERS {
        let sizes: Vec<String> = groups.iter().map(|g| g.len().to_string()).collect();
        return Err(runtime_error(&format!(
            "the lanes of this warp-wide access could reach memory in {} orders (groups of {} lanes on one word), more than the {MAX_ORDERS} a step can explore: check with fewer threads per warp",
            if n == usize::MAX { "too many".to_string() } else { n.to_string() },
            sizes.join(", ")
        )));
    }
    let mut rest = choice as usize;
    let mut out = lanes.to_vec();
    for g in groups {
        let f = (1..=g.len()).product::<usize>();
        let perm = nth_permutation(g, rest % f);
        rest /= f;
        let mut next = perm.into_iter();
        for slot in out.iter_mut().filter(|u| g.contains(u)) {
            *slot = next.next().expect("as many as the group");
        }
    }
    Ok(out)
}

/// The `k`-th permutation of `items` in lexicographic order of positions.
fn nth_permutation(items: &[usize], mut k: usize) -> Vec<usize> {
    let mut pool = items.to_vec();
    let mut out = Vec::with_capacity(items.len());
    for n in (1..=items.len()).rev() {
        let f = (1..n).product::<usize>();
        out.push(pool.remove(k / f));
        k %= f;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_are_enumerated_once_each() {
        let items = [3, 5, 9];
        let mut seen: Vec<Vec<usize>> = (0..6).map(|k| nth_permutation(&items, k)).collect();
        assert_eq!(seen[0], [3, 5, 9], "0 is ascending");
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 6);
    }

    #[test]
    fn groups_are_permuted_in_place_and_independently() {
        let lanes = [0, 1, 2, 3];
        let groups = vec![vec![0, 2], vec![1, 3]];
        assert_eq!(count(&groups), 4);
        assert_eq!(order(&lanes, &groups, 0).unwrap(), [0, 1, 2, 3]);
        assert_eq!(order(&lanes, &groups, 1).unwrap(), [2, 1, 0, 3]);
        assert_eq!(order(&lanes, &groups, 2).unwrap(), [0, 3, 2, 1]);
        assert_eq!(order(&lanes, &groups, 3).unwrap(), [2, 3, 0, 1]);
    }

    #[test]
    fn too_many_orders_are_an_error_not_a_choice() {
        let lanes: Vec<usize> = (0..9).collect();
        let err = order(&lanes, std::slice::from_ref(&lanes), 0).unwrap_err();
        assert!(err.message.contains("362880 orders"), "{}", err.message);
    }
}

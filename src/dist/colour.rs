//! Strongly connected components on the partitioned labelled graph, by
//! colouring (Orzan): within each *item* (a set of states searched
//! together, with its own edge filter), every state takes the greatest id
//! that reaches it (forward propagation to a fixpoint); a state whose
//! colour is its own id is a root, and the states of its colour that reach
//! it (backward propagation within the colour) are its component. What
//! is left of each item is coloured again, until nothing is.
//!
//! Why that is a component: a state `s` of colour `r` is reached from `r`
//! (the colour came from it along the item's edges) and, once marked,
//! reaches `r`; and every state of `r`'s component has colour `r` (`r`
//! reaches it, and a greater id reaching it would reach `r`, so `r`'s
//! colour would not be its own).

use super::labels::Labelled;
use super::rounds::{spread_values, Msg, Ptr, Rounds};
use crate::check::Label;

/// No item, colour or component.
pub(super) const NONE: u64 = u64::MAX;

/// Which way values travel along the edges.
#[derive(Clone, Copy)]
pub(super) enum Way {
    Forward,
    Backward,
}

/// Sends, from each state of `changed`, its `(item, value)` along its
/// edges that `allowed` lets through, and gives every received one to
/// `accept(state, item, value)`, which says whether the state changed
/// (then it sends on); to a fixpoint on every worker. Values for this
/// worker's own states are taken at once (a fixpoint within the worker
/// before each exchange): the rounds count the crossings between
/// workers, not the lengths of paths.
pub(super) fn spread(
    rounds: &mut Rounds<'_>,
    g: &Labelled,
    way: Way,
    mut changed: Vec<u32>,
    send: impl Fn(u32) -> (u64, u64),
    allowed: impl Fn(u64, &Label) -> bool,
    mut accept: impl FnMut(u32, u64, u64) -> bool,
) {
    let me = rounds.index() as u32;
    loop {
        let mut out = Vec::new();
        while let Some(l) = changed.pop() {
            let (item, value) = send(l);
            let edges: Box<dyn Iterator<Item = (&Label, Ptr)>> = match way {
                Way::Forward => Box::new(g.out(l).iter().map(|e| (&e.0, e.1))),
                Way::Backward => Box::new(g.inn(l).iter().map(|e| (&e.0, e.1))),
            };
            for (_, (w, local)) in edges.filter(|(label, _)| allowed(item, label)) {
                if w != me {
                    out.push((w, (local, item, value)));
                } else if accept(local, item, value) {
                    changed.push(local);
                }
            }
        }
        let Some(got) = rounds.exchange_each_or_done(out, Msg::Spread, spread_values) else {
            return;
        };
        for (local, item, value) in got {
            if accept(local, item, value) {
                changed.push(local);
            }
        }
        changed.sort_unstable();
        changed.dedup();
    }
}

/// One round of colouring: the component (its root's id) of each state
/// whose component this round finds, `NONE` for the others; `item` of
/// each state (`NONE`: in none), `allowed(item, label)`: the item's edges.
pub(super) fn components(
    rounds: &mut Rounds<'_>,
    g: &Labelled,
    item: &[u64],
    allowed: &impl Fn(u64, &Label) -> bool,
) -> Vec<u64> {
    let n = g.len();
    let active: Vec<u32> = (0..n as u32)
        .filter(|&l| item[l as usize] != NONE)
        .collect();
    let mut colour: Vec<u64> = (0..n)
        .map(|l| match item[l] {
            NONE => NONE,
            _ => g.ids[l],
        })
        .collect();
    {
        let c = std::cell::RefCell::new(&mut colour);
        spread(
            rounds,
            g,
            Way::Forward,
            active.clone(),
            |l| (item[l as usize], c.borrow()[l as usize]),
            allowed,
            |l, it, value| {
                let mut c = c.borrow_mut();
                let old = &mut c[l as usize];
                let takes = item[l as usize] == it && value > *old;
                if takes {
                    *old = value;
                }
                takes
            },
        );
    }
    let mut comp = vec![NONE; n];
    let roots: Vec<u32> = active
        .into_iter()
        .filter(|&l| colour[l as usize] == g.ids[l as usize])
        .collect();
    for &l in &roots {
        comp[l as usize] = g.ids[l as usize];
    }
    let c = std::cell::RefCell::new(&mut comp);
    spread(
        rounds,
        g,
        Way::Backward,
        roots,
        |l| (item[l as usize], c.borrow()[l as usize]),
        allowed,
        |l, it, value| {
            let i = l as usize;
            let mut c = c.borrow_mut();
            let takes = item[i] == it && colour[i] == value && c[i] == NONE;
            if takes {
                c[i] = value;
            }
            takes
        },
    );
    comp
}

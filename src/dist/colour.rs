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
use super::rounds::{spread_values, Msg, Outbox, Ptr, Rounds};
use super::slots::{copy_item, copy_of, Comps, Items, NONE};
use crate::check::Label;

/// Which way values travel along the edges.
#[derive(Clone, Copy)]
pub(super) enum Way {
    Forward,
    Backward,
}

/// Items a worker sends between two looks at what has reached it.
pub(super) const TAKE_EVERY: usize = 1 << 13;

/// Slot `s` as the four bytes the lists of slots to visit hold them in
/// (#43: eight a slot, for every slot at a colouring's start); a worker's
/// slots (its states times the copies) must fit.
pub(super) fn slot(s: usize) -> u32 {
    u32::try_from(s).expect("a worker's slots (states × copies) fit in 32 bits")
}

/// Sends, from each slot of `changed` (state `slot % states` of copy
/// `slot / states`), its `(item, value)` along the state's edges that
/// `allowed` lets through to the same copy of their targets, and gives
/// every received one to `accept(slot, item, value)`, which says whether
/// the slot changed (then it sends on); to a fixpoint on every worker.
/// Values for this worker's own states are taken at once (a fixpoint
/// within the worker before each exchange): the rounds count the
/// crossings between workers, not the lengths of paths; and every copy
/// travels in the same rounds.
pub(super) fn spread(
    rounds: &mut Rounds<'_>,
    g: &Labelled,
    way: Way,
    mut changed: Vec<u32>,
    send: impl Fn(usize) -> (u64, u64),
    allowed: impl Fn(u64, &Label) -> bool,
    mut accept: impl FnMut(usize, u64, u64) -> bool,
) {
    let me = rounds.index() as u32;
    let n = g.len();
    let edges = |slot: usize| -> Box<dyn Iterator<Item = (Label, Ptr)> + '_> {
        let l = (slot % n) as u32;
        match way {
            Way::Forward => Box::new(g.out(l)),
            Way::Backward => Box::new(g.inn(l)),
        }
    };
    loop {
        // The slots with edges to other workers that changed: each sends
        // its last value once the worker's own fixpoint is reached, not
        // every value it passed through (#43: a colouring's first round
        // carried several values a crossing, all held in timely's buffers).
        // What the others send meanwhile is taken in as it comes, also
        // here, and its slots visited in the next round, as if it had
        // come at the round's end (#43: a worker long at its own fixpoint
        // left a round of crossings, 20 bytes each, to pile up in
        // timely's buffers; visiting them at once, the worker went over
        // its slots again with each batch and held more).
        let mut crossing = Vec::new();
        let mut next = Vec::new();
        let mut visited = 0usize;
        while let Some(at) = changed.pop() {
            let s = at as usize;
            let (item, value) = send(s);
            let base = s - s % n;
            let mut crosses = false;
            for (_, (w, local)) in edges(s).filter(|(label, _)| allowed(item, label)) {
                if w != me {
                    crosses = true;
                } else if accept(base + local as usize, item, value) {
                    changed.push(slot(base + local as usize));
                }
            }
            if crosses {
                crossing.push(at);
            }
            visited += 1;
            if visited.is_multiple_of(TAKE_EVERY) {
                rounds.take_early(|m| {
                    for v in spread_values(m).into_iter().flatten() {
                        arrive(n, &mut accept, &mut next, v);
                    }
                });
            }
        }
        crossing.sort_unstable();
        crossing.dedup();
        changed = next;
        // What arrives is taken for the next round.
        let mut take = |v| arrive(n, &mut accept, &mut changed, v);
        // They leave as they fill a record, and what the others sent
        // meanwhile is taken in as they go: a round is never held whole.
        let mut out = Outbox::new(rounds.peers(), Msg::Spread);
        let mut sent = 0usize;
        for at in crossing {
            let (item, value) = send(at as usize);
            for (_, (w, local)) in edges(at as usize).filter(|(label, _)| allowed(item, label)) {
                if w != me {
                    out.push(rounds, w, (local, item, value));
                    sent += 1;
                    if sent.is_multiple_of(TAKE_EVERY) {
                        rounds.take_early(|m| {
                            spread_values(m).into_iter().flatten().for_each(&mut take)
                        });
                    }
                }
            }
        }
        let more = rounds.end_fixpoint_round_each(out, spread_values, &mut take);
        if !more {
            return;
        }
        changed.sort_unstable();
        changed.dedup();
    }
}

/// Gives a value that reached this worker, `(state, item, value)`, to
/// its slot (of `n` states a copy); a slot it changed goes to `to`, to be
/// visited.
fn arrive(
    n: usize,
    accept: &mut impl FnMut(usize, u64, u64) -> bool,
    to: &mut Vec<u32>,
    (local, item, value): (u32, u64, u64),
) {
    let s = copy_of(item) * n + local as usize;
    if accept(s, item, value) {
        to.push(slot(s));
    }
}

/// One round of colouring: the component of each slot whose component
/// this round finds (its root's id, under its copy's tag); `item` of
/// each slot (`NONE`: in none; every copy of the states after another,
/// as `spread` reads them), `allowed(item, label)`: the item's edges.
pub(super) fn components(
    rounds: &mut Rounds<'_>,
    g: &Labelled,
    item: &Items,
    allowed: &impl Fn(u64, &Label) -> bool,
) -> Comps {
    let n = g.len();
    let active = (0..item.len()).filter(|&s| item.get(s) != NONE);
    // A slot's colour is a state's id (below 2^32, `Packing`), four
    // bytes a slot: the copy's tag is the slot's own, added to the
    // component's name at the end (#43: eight bytes a slot, every slot).
    let own = |s: usize| g.ids[s % n] as u32;
    let mut colour: Vec<u32> = (0..item.len()).map(own).collect();
    {
        let c = std::cell::RefCell::new(&mut colour);
        spread(
            rounds,
            g,
            Way::Forward,
            active.clone().map(slot).collect(),
            |s| (item.get(s), u64::from(c.borrow()[s])),
            allowed,
            |s, it, value| {
                let mut c = c.borrow_mut();
                let old = &mut c[s];
                let takes = item.get(s) == it && value > u64::from(*old);
                if takes {
                    *old = value as u32;
                }
                takes
            },
        );
    }
    let mut comp = Comps::none(item.len(), n);
    let roots: Vec<u32> = active.filter(|&s| colour[s] == own(s)).map(slot).collect();
    for &s in &roots {
        comp.set(s as usize, colour[s as usize]);
    }
    let c = std::cell::RefCell::new(&mut comp);
    spread(
        rounds,
        g,
        Way::Backward,
        roots,
        |s| (item.get(s), c.borrow().get(s)),
        allowed,
        |s, it, value| {
            let mut c = c.borrow_mut();
            let takes = item.get(s) == it
                && !c.is_found(s)
                && copy_item(copy_of(it)) | u64::from(colour[s]) == value;
            if takes {
                c.set(s, colour[s]);
            }
            takes
        },
    );
    comp
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::test_rng::Rng;

    fn label(progress: bool) -> Label {
        Label {
            thread: 0,
            action: 0,
            progress,
            location: 0,
            memory: 0,
        }
    }

    /// Each copy's components, colouring until nothing is left, by
    /// slot: on `workers` workers of one process, copy 0 on every edge,
    /// copy 1 on the edges without progress (as `liveness`'s items do).
    fn distributed(
        workers: usize,
        ids: Vec<Vec<u64>>,
        edges: Vec<(Ptr, Label, Ptr)>,
    ) -> Vec<(u64, u64, u64)> {
        let config = timely::Config::process(workers);
        let guards = timely::execute(config, move |worker| {
            let mut rounds = Rounds::new(worker, workers);
            let me = rounds.index() as u32;
            let g = Labelled::of_edges(me, &ids, &edges);
            let n = g.len();
            let mut item = Items::new(2, n);
            let allowed = |it: u64, l: &Label| copy_of(it) == 0 || !l.progress;
            let mut found = Vec::new();
            let left = |item: &Items| (0..item.len()).filter(|&s| item.get(s) != NONE).count();
            while rounds.sum(vec![left(&item) as u64])[0] > 0 {
                let comp = components(&mut rounds, &g, &item, &allowed);
                for (s, c) in comp.found() {
                    found.push((copy_of(item.get(s)) as u64, g.ids[s % n], c & 0xffff_ffff));
                    item.set(s, NONE);
                }
            }
            found
        })
        .expect("timely starts");
        let mut all: Vec<_> = guards.join().into_iter().flat_map(|r| r.unwrap()).collect();
        all.sort_unstable();
        all
    }

    /// Each state's component by mutual reachability, named by its
    /// greatest id, for each copy's edges: (copy, id, component).
    fn sequential(ids: &[u64], edges: &[(usize, bool, usize)]) -> Vec<(u64, u64, u64)> {
        let n = ids.len();
        let mut all = Vec::new();
        for copy in 0..2u64 {
            let reach: Vec<Vec<bool>> = (0..n)
                .map(|from| {
                    let mut seen = vec![false; n];
                    let mut todo = vec![from];
                    seen[from] = true;
                    while let Some(s) = todo.pop() {
                        for &(a, progress, b) in edges {
                            if a == s && (copy == 0 || !progress) && !seen[b] {
                                seen[b] = true;
                                todo.push(b);
                            }
                        }
                    }
                    seen
                })
                .collect();
            for s in 0..n {
                let root = (0..n).filter(|&t| reach[s][t] && reach[t][s]);
                let root = root.map(|t| ids[t]).max().expect("a state reaches itself");
                all.push((copy, ids[s], root));
            }
        }
        all.sort_unstable();
        all
    }

    #[test]
    fn components_of_two_copies_are_the_sequential_ones_on_random_graphs() {
        for seed in 1..=12u64 {
            let mut rng = Rng(seed * 0x9e37_79b9_7f4a_7c15);
            let (n, workers) = (5 + rng.below(30) as usize, 1 + rng.below(3) as usize);
            // State s is worker s % workers's index s / workers, with id s.
            let place = |s: usize| ((s % workers) as u32, (s / workers) as u32);
            let mut ids = vec![Vec::new(); workers];
            for s in 0..n {
                ids[s % workers].push(s as u64);
            }
            let edges: Vec<(usize, bool, usize)> = (0..n * 2)
                .map(|_| {
                    let a = rng.below(n as u64) as usize;
                    (a, rng.below(3) == 0, rng.below(n as u64) as usize)
                })
                .collect();
            let placed = edges
                .iter()
                .map(|&(a, p, b)| (place(a), label(p), place(b)))
                .collect();
            assert_eq!(
                distributed(workers, ids, placed),
                sequential(&(0..n as u64).collect::<Vec<_>>(), &edges),
                "seed {seed}: {n} states on {workers} workers"
            );
        }
    }
}

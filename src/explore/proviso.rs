//! The cycle proviso of partial-order reduction, in its breadth-first form.
//!
//! A state expanded by an ample subset of its steps must not let the search
//! go round a cycle on which some enabled step is postponed forever (the
//! *ignoring problem*): every cycle of the reduced graph needs a state that
//! took all its steps (Clarke, Grumberg, Peled, *Model Checking*, condition
//! C3 in its cycle form). The depth-first test ("no ample successor on the
//! stack") has no stack to look at in a breadth-first search; the layered
//! variant for breadth first (Bošnački, Leue, Lluch-Lafuente, "Partial-order
//! reduction for general state exploring algorithms", STTT 11(1), 2009) is:
//! a state of depth `d` is fully expanded when one of its ample successors
//! is already stored at depth `<= d`.
//!
//! Why that suffices: in breadth-first order an edge `s -> s'` has
//! `depth(s') <= depth(s) + 1`. If every edge of a cycle went one level
//! deeper, the depths would grow strictly around the cycle, which is
//! impossible; so some edge of every cycle goes to a depth `<= ` its
//! source's, and the proviso made that source take every step. (Edges to a
//! state first found at depth `d + 1`, including by another parent, cannot
//! close a cycle on their own and need nothing.)

use super::expand::Chunk;
use super::store::{StateId, StateStore};

/// Whether one of the ample successors `range` of a reduced state at depth
/// `d` is already stored at depth `<= d`: ids below `level_end` (the first
/// id of depth `d + 1`), since ids are given in breadth-first order. Only
/// looks at states committed before the level (read-only, so workers may
/// call it during a batch).
pub(super) fn closes_cycle<A, F>(
    store: &StateStore,
    chunk: &Chunk<A, F>,
    range: std::ops::Range<usize>,
    level_end: usize,
) -> bool
where
    A: Copy,
{
    range.into_iter().any(|k| {
        let id = store.find_code(chunk.code(k), chunk.succs[k].hash);
        id.is_some_and(|id: StateId| (id as usize) < level_end)
    })
}

#[cfg(test)]
mod tests {
    use crate::explore::{explore, Options, Outcome, TransitionSystem};

    /// Two processes on separate words: `spin` flips word 0 forever, `fail`
    /// sets word 1 once, which is an error. The spin step alone is a valid
    /// ample set everywhere (independent, invisible), so without the proviso
    /// the search would go round the spin cycle and never see the error.
    struct Ignoring;

    impl TransitionSystem for Ignoring {
        type Action = u32;
        type Fault = &'static str;
        fn state_words(&self) -> usize {
            2
        }
        fn initial_state(&self, out: &mut [u32]) {
            out.fill(0);
        }
        fn actions(&self, s: &[u32], out: &mut Vec<u32>) {
            out.push(0);
            if s[1] == 0 {
                out.push(1);
            }
        }
        fn step(&self, s: &[u32], a: u32, out: &mut [u32]) -> Result<(), &'static str> {
            out.copy_from_slice(s);
            out[a as usize] ^= 1;
            Ok(())
        }
        fn check_state(&self, s: &[u32]) -> Result<(), &'static str> {
            if s[1] == 1 {
                return Err("reached");
            }
            Ok(())
        }
        fn is_final(&self, _: &[u32]) -> bool {
            false
        }
        fn ample_actions(&self, s: &[u32], out: &mut Vec<u32>) -> bool {
            self.actions(s, out);
            let reduced = out.len() > 1;
            out.truncate(1);
            reduced
        }
    }

    #[test]
    fn the_proviso_keeps_a_step_postponed_around_a_cycle() {
        for threads in [1, 2] {
            let opts = Options {
                threads,
                ..Options::default()
            };
            let e = explore(&Ignoring, &opts);
            assert!(
                matches!(
                    e.outcome(),
                    Outcome::Fault {
                        fault: "reached",
                        ..
                    }
                ),
                "{threads} threads: {:?}",
                e.outcome()
            );
            // The spin cycle [0,0] -> [1,0] -> [0,0] closes at [1,0], which
            // takes both steps; nothing else is expanded fully.
            assert_eq!(e.num_states(), 3);
        }
    }
}

//! Lassos found on a graph that forgets (`Reductions::forget`), made real.
//!
//! Such a graph stores one state for states that differ only in what no
//! step reads (the writers of writes under `ptx`), so a cycle of it may
//! come back to a real state that differs from the one it left in those
//! words: a thread spinning on a read-modify-write becomes the writer of
//! the value it reads in the first round, not before. Its moves can be
//! repeated from there for ever (those states have the same futures), and
//! the real states at the start of each round are eventually periodic: the
//! rounds before the period join the stem, and the cycle is the period, so
//! that the counterexample replays on the model as it is.

use super::Finding;
use crate::explore::TransitionSystem;
use crate::model::Model;

/// Rounds of the cycle tried before the lasso is left as it is (the
/// period comes after one or two rounds: the writers of the cycle's own
/// writes settle in the first).
const MAX_ROUNDS: usize = 16;

/// Makes `finding`'s cycle (in real threads) a cycle of the model.
pub(super) fn close(model: &Model, finding: &mut Finding) {
    if finding.cycle.is_empty() {
        return;
    }
    let mut state = vec![0u32; model.state_words()];
    model.initial_state(&mut state);
    let mut next = state.clone();
    let mut run = |state: &mut Vec<u32>, moves: &[u32]| {
        moves.iter().all(|&t| {
            let ok = model.step(state, t, &mut next).is_ok();
            std::mem::swap(state, &mut next);
            ok
        })
    };
    if !run(&mut state, &finding.schedule) {
        return;
    }
    let mut starts = vec![state.clone()];
    for _ in 0..MAX_ROUNDS {
        if !run(&mut state, &finding.cycle) {
            return;
        }
        if let Some(i) = starts.iter().position(|s| *s == state) {
            let round = std::mem::take(&mut finding.cycle);
            for _ in 0..i {
                finding.schedule.extend_from_slice(&round);
            }
            finding.cycle = round.repeat(starts.len() - i);
            return;
        }
        starts.push(state.clone());
    }
}

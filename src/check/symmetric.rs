//! Findings of a symmetry-reduced search, in real block numbering.
//!
//! The explorer stored representatives, so a finding's schedule names
//! threads of representatives; [`Symmetry::concretize`] maps it to real
//! threads, and the messages and positions are recomputed from the real
//! states, so that the report and `replay` agree.

use super::{describe_threads, Finding};
use crate::explore::TransitionSystem;
use crate::model::symmetry::Symmetry;
use crate::model::{Model, Violation};

/// Rewrites `finding` in real thread numbering.
pub fn concretize(model: &Model, symmetry: &Symmetry, finding: &mut Finding) {
    let (schedule, cycle, state, fault) =
        real_run(model, symmetry, &finding.schedule, &finding.cycle);
    let fault = fault.or_else(|| model.check_state(&state).err());
    match fault {
        Some(v) if v.kind == finding.kind => finding.message = v.message,
        _ => finding.waiting = describe_threads(model, &state),
    }
    finding.schedule = schedule;
    finding.cycle = cycle;
}

/// The real run that `schedule` and `cycle` of representatives stand
/// for: the real threads they move, the real state `schedule` ends in, and
/// the fault it raises on the way, if any (the run stops there).
pub fn real_run(
    model: &Model,
    symmetry: &Symmetry,
    schedule: &[u32],
    cycle: &[u32],
) -> (Vec<u32>, Vec<u32>, Vec<u32>, Option<Violation>) {
    let mut initial = vec![0u32; model.state_words()];
    model.initial_state(&mut initial);
    let step = |s: &[u32], t: u32, out: &mut [u32]| model.step(s, t, out).is_ok();
    let (schedule, cycle) = symmetry.concretize(&initial, schedule, cycle, &step);
    // Replay the real schedule: the state it ends in, or the fault it raises.
    let mut state = initial;
    let mut next = state.clone();
    let mut fault = None;
    for &t in &schedule {
        match model.step(&state, t, &mut next) {
            Ok(()) => state.copy_from_slice(&next),
            Err(v) => {
                fault = Some(v);
                break;
            }
        }
    }
    (schedule, cycle, state, fault)
}

//! Findings of a symmetry-reduced search, in real block numbering.
//!
//! The explorer stored representatives, so a finding's schedule names
//! threads of representatives; [`Symmetry::concretize`] maps it to real
//! threads, and the messages and positions are recomputed from the real
//! states, so that the report and `replay` agree.

use super::{describe_threads, Finding};
use crate::explore::TransitionSystem;
use crate::model::Violation;
use crate::reduce::symmetry::Symmetry;
use crate::reduce::Reduced;

/// Rewrites `finding` of the search of `searched` in real thread numbering;
/// says whether the real run ends in a violation of the finding's kind
/// (for a safety violation, whether it reproduces).
pub(super) fn concretize(searched: &Reduced, symmetry: &Symmetry, finding: &mut Finding) -> bool {
    let model = searched.model();
    let (schedule, cycle, state, fault) =
        real_run(searched, symmetry, &finding.schedule, &finding.cycle);
    let fault = fault.or_else(|| model.check_state(&state).err());
    let reproduced = fault.as_ref().is_some_and(|v| v.kind == finding.kind);
    match fault {
        Some(v) if v.kind == finding.kind => finding.message = v.message,
        _ => finding.waiting = describe_threads(model, &state),
    }
    finding.schedule = schedule;
    finding.cycle = cycle;
    reproduced
}

/// Rewrites every finding of `findings` in real thread numbering; says
/// whether each real run ends in a violation of its finding's kind.
pub(super) fn concretize_all(
    searched: &Reduced,
    symmetry: &Symmetry,
    findings: &mut [Finding],
) -> bool {
    let mut reproduced = true;
    for f in findings {
        reproduced &= concretize(searched, symmetry, f);
    }
    reproduced
}

/// The real run that `schedule` and `cycle` of representatives stand
/// for: the real threads they move, the real state `schedule` ends in, and
/// the fault it raises on the way, if any (the run stops there).
pub(super) fn real_run(
    searched: &Reduced,
    symmetry: &Symmetry,
    schedule: &[u32],
    cycle: &[u32],
) -> (Vec<u32>, Vec<u32>, Vec<u32>, Option<Violation>) {
    let model = searched.model();
    let mut initial = vec![0u32; model.state_words()];
    model.initial_state(&mut initial);
    let step = |s: &[u32], t: u32, out: &mut [u32]| model.step(s, t, out).is_ok();
    let step_rep = |s: &[u32], t: u32, out: &mut [u32]| {
        let ok = model.step(s, t, out).is_ok();
        searched.forget_writers(out);
        ok
    };
    let (schedule, cycle) = symmetry.concretize(&initial, schedule, cycle, (&step, &step_rep));
    // Replay the real schedule: the state it ends in, or the fault it raises.
    let (state, fault) = model.run_schedule(&schedule);
    (schedule, cycle, state, fault)
}

//! The properties checked while stepping, over the threads' part of the
//! state: the capacity of critical sections (mutual exclusion is capacity
//! 1), barrier safety (nobody leaves a phase before everyone entered it),
//! and the spec's invariants.

use super::state::{CRITICAL, PHASES};
use super::threads::{runtime_error, Threads};
use super::{Violation, ViolationKind};

/// Thread `t` enters a critical section with `weight`: the weights inside
/// may not exceed the capacity `cap`.
pub(super) fn enter_critical(
    th: &Threads,
    s: &mut [u32],
    t: usize,
    (weight, cap): (i64, i64),
) -> Result<(), Violation> {
    let mut inside = vec![];
    let mut total = weight;
    for u in 0..th.count() {
        let w = s[th.layout.thread(u, CRITICAL)];
        if u != t && w > 0 {
            total = total.saturating_add(i64::from(w - 1));
            inside.push(u);
        }
    }
    // The state keeps `weight + 1` in a word: a larger weight that the
    // capacity admits cannot be counted.
    let stored = weight.min(i64::from(u32::MAX - 1)) as u32;
    s[th.layout.thread(t, CRITICAL)] = stored + 1;
    if total <= cap {
        if i64::from(stored) != weight {
            return Err(runtime_error(&format!(
                "critical section weight {weight} is larger than {} (a count of slots held)",
                u32::MAX - 1
            )));
        }
        return Ok(());
    }
    let others: Vec<String> = inside.iter().map(|u| th.thread_name(*u)).collect();
    let message = if th.prog.checks.mutual_exclusion && cap == 1 {
        format!(
            "{} entered the critical section while {} {} inside",
            th.thread_name(t),
            others.join(", "),
            if others.len() == 1 { "is" } else { "are" }
        )
    } else {
        format!(
            "{} entered the critical section with weight {weight}: total weight {total} exceeds capacity {cap} (inside: {})",
            th.thread_name(t),
            others.join(", ")
        )
    };
    Err(Violation {
        kind: ViolationKind::MutualExclusion,
        property: "capacity",
        message,
        pc: None,
    })
}

/// Barrier safety: nobody leaves its k-th phase before everyone entered theirs.
pub(super) fn leave_phase(th: &Threads, s: &[u32], t: usize) -> Result<(), Violation> {
    let k = s[th.layout.thread(t, PHASES)];
    for u in 0..th.count() {
        if !th.takes_part(u) {
            continue;
        }
        let entered = s[th.layout.thread(u, PHASES)];
        if entered < k {
            return Err(Violation {
                kind: ViolationKind::BarrierSafety,
                property: "barrier",
                message: format!(
                    "barrier safety: {} left barrier phase {k} before {} arrived at it (it has entered {entered} phase{})",
                    th.thread_name(t),
                    th.thread_name(u),
                    if entered == 1 { "" } else { "s" }
                ),
                pc: None,
            });
        }
    }
    Ok(())
}

/// The spec's `check invariant(...)` lines, in a reached state.
pub(super) fn check_invariants(th: &Threads, s: &[u32]) -> Result<(), Violation> {
    for (inv, span) in &th.prog.checks.invariants {
        if th.eval(inv, s, 0)? == 0 {
            return Err(Violation {
                kind: ViolationKind::Assertion,
                property: "invariant",
                message: format!(
                    "invariant `{}` does not hold",
                    th.prog.source.snippet(*span)
                ),
                pc: None,
            });
        }
    }
    Ok(())
}

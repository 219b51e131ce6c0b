//! Why the waiters of a deadlock wait, for the SIMT and lock-unit classes:
//!
//! - `alias_deadlock` (seed 004, 4.4.2): a thread spins on `ldslk` for a
//!   lock bit that is held through a *different* address hashing to the
//!   same bit, by itself or by a thread that will not release it (e.g. one
//!   waiting at the `__syncthreads()` the spinner must reach first).
//! - `barrier_divergence` (seed 002): under lockstep, lanes wait at
//!   `__syncthreads()` while lanes of their own warp are masked off by a
//!   divergent branch and can never arrive.
//! - `simd_deadlock` (seed 004, 4.4.1): under lockstep, the active lanes of
//!   a warp spin while other lanes of the same warp are masked off until
//!   the spinners reach the reconvergence point, so whatever the masked-off
//!   lanes would do (release a lock, produce a value) never happens.
//!
//! Anything else stays a plain `deadlock`.

use super::positions::thread_positions;
use super::Finding;
use crate::explore::TransitionSystem;
use crate::ir::{Op, Pc};
use crate::model::simt::lane_list;
use crate::model::{Event, Model, ViolationKind};
use crate::reduce::Reduced;

/// Replays `actions` from the initial state, recording every instruction.
pub(super) fn replay_events(model: &Model, actions: &[u32]) -> (Vec<Event>, Vec<u32>) {
    let mut state = vec![0u32; model.threads.layout.words()];
    model.initial_state(&mut state);
    let mut next = state.clone();
    let mut events = Vec::new();
    for &a in actions {
        if model
            .step_recorded(&state, a, &mut next, &mut events)
            .is_err()
        {
            break;
        }
        std::mem::swap(&mut state, &mut next);
    }
    (events, state)
}

/// The branch after which threads `a` and `b` went different ways: the
/// last instruction of the common prefix of their executions (the recorded
/// ones, then where each stands in `state`), if it is a branch.
pub(super) fn split_branch(
    model: &Model,
    (events, state): (&[Event], &[u32]),
    a: usize,
    b: usize,
) -> Option<Pc> {
    let pcs = |t: usize| {
        events
            .iter()
            .filter(move |e| e.thread as usize == t)
            .map(|e| e.pc)
            .chain([model.threads.pc(state, t)])
    };
    let mut last = None;
    for (x, y) in pcs(a).zip(pcs(b)) {
        if x != y {
            return last
                .filter(|pc: &Pc| matches!(model.prog.code[*pc as usize].op, Op::Branch { .. }));
        }
        last = Some(x);
    }
    None
}

/// ` The block split at line 9 `if (...)`: ...` or nothing.
fn split_sentence(
    model: &Model,
    history: (&[Event], &[u32]),
    a: usize,
    others: &[usize],
) -> String {
    others
        .iter()
        .find_map(|&b| {
            let pc = split_branch(model, history, a, b)?;
            Some(format!(
                " The threads split at the branch at {}: {} went one way, {} the other.",
                model.threads.line_text(pc),
                model.threads.thread_name(a),
                model.threads.thread_name(b)
            ))
        })
        .unwrap_or_default()
}

/// Adds to a `barrier_divergence` found while stepping the branch that split
/// the block: `schedule` ends with the step that raised it.
pub(super) fn explain_divergence(model: &Model, finding: &mut Finding) {
    let Some((&actor, before)) = finding.schedule.split_last() else {
        return;
    };
    let (events, state) = replay_events(model, before);
    let actor = crate::model::thread_of(actor);
    let others: Vec<usize> = model
        .threads
        .layout
        .block_threads(actor)
        .filter(|u| *u != actor && model.threads.takes_part(*u))
        .filter(|u| model.threads.is_finished(&state, *u) || model.threads.is_blocked(&state, *u))
        .collect();
    finding
        .message
        .push_str(&split_sentence(model, (&events, &state), actor, &others));
}

/// Refines a deadlock whose threads end in `end` after `schedule`+`cycle`.
pub(super) fn refine(searched: &Reduced, finding: &mut Finding, end: &[u32]) {
    let model = searched.model();
    // Under symmetry the search stored representatives: the schedule moves
    // their threads (replayed as they are, it could move a finished one)
    // and `end` is one. Refine the real run they stand for.
    let (schedule, cycle, end) = match searched.symmetry() {
        Some(sym) => {
            let (schedule, cycle, end, _) =
                super::symmetric::real_run(searched, sym, &finding.schedule, &finding.cycle);
            (schedule, cycle, end)
        }
        None => (
            finding.schedule.clone(),
            finding.cycle.clone(),
            end.to_vec(),
        ),
    };
    let end = &end[..];
    let actions: Vec<u32> = schedule.iter().chain(&cycle).copied().collect();
    let (events, _) = replay_events(model, &actions);
    let cycle_from = replay_events(model, &schedule).0.len();
    if let Some(message) = alias(model, (&events, cycle_from), end) {
        finding.kind = ViolationKind::AliasDeadlock;
        finding.property = "alias_deadlock";
        finding.message = message;
        return;
    }
    for w in 0..model.warps.count(model.threads.layout.threads) {
        let (masked_off, active) = model.warps.masked_off(&model.threads, end, w);
        if masked_off == 0 {
            continue;
        }
        let lanes: Vec<usize> = model.warps.threads(w).collect();
        let lane = |mask: u64| {
            lanes
                .iter()
                .copied()
                .filter(move |u| mask >> model.warps.lane_of(*u) & 1 == 1)
        };
        let Some(lead) = lane(active).next() else {
            continue;
        };
        let off: Vec<usize> = lane(masked_off).collect();
        let waiting_at = model.threads.pc(end, lead);
        if model.threads.is_blocked(end, lead)
            && matches!(model.prog.code[waiting_at as usize].op, Op::SyncThreads)
        {
            finding.kind = ViolationKind::BarrierDivergence;
            finding.property = "barrier_divergence";
            finding.message = format!(
                "{} of {} wait at {} while {} of the same warp {} masked off by a divergent branch and can never reach it, so the barrier never opens.{}",
                lanes_word(active),
                model.warps.name(w),
                model.threads.line_text(waiting_at),
                lanes_word(masked_off),
                if masked_off.count_ones() == 1 { "is" } else { "are" },
                split_sentence(model, (&events, end), lead, &off)
            );
            return;
        }
        finding.kind = ViolationKind::SimdDeadlock;
        finding.property = "simd_deadlock";
        finding.message = simd_message(model, &events, end, w, (active, masked_off), cycle_from);
        return;
    }
}

/// The `simd_deadlock` report: warp, lanes on each side, reconvergence
/// point, and the resource the active lanes wait on.
fn simd_message(
    model: &Model,
    events: &[Event],
    end: &[u32],
    w: usize,
    (active, masked_off): (u64, u64),
    cycle_from: usize,
) -> String {
    let lead = model
        .warps
        .threads(w)
        .find(|u| active >> model.warps.lane_of(*u) & 1 == 1)
        .expect("active lanes exist");
    let spin_pc = model.threads.pc(end, lead);
    let (_, rpc) = model.warps.top_entry(end, w).unwrap_or((0, None));
    let reconverge = match rpc {
        Some(pc) => format!("the reconvergence point {}", model.threads.line_text(pc)),
        None => {
            "a reconvergence point they never reach (the warp has none below this loop)".to_string()
        }
    };
    // What the spinners read over and over: the resource they wait on.
    let by_spinners = |e: &&Event| active >> model.warps.lane_of(e.thread as usize) & 1 == 1;
    let mut resources: Vec<String> = events[cycle_from..]
        .iter()
        .filter(by_spinners)
        .flat_map(|e| e.reads.iter().map(|(l, _)| l.clone()))
        .collect();
    if resources.is_empty() {
        let last = events
            .iter()
            .rev()
            .filter(by_spinners)
            .find(|e| e.pc == spin_pc);
        resources.extend(
            last.into_iter()
                .flat_map(|e| e.reads.iter().map(|(l, _)| l.clone())),
        );
    }
    resources.sort();
    resources.dedup();
    let resource = if resources.is_empty() {
        String::new()
    } else {
        format!(", waiting on {}", resources.join(", "))
    };
    let off_threads: Vec<usize> = model
        .warps
        .threads(w)
        .filter(|u| masked_off >> model.warps.lane_of(*u) & 1 == 1)
        .collect();
    let where_off: Vec<String> = off_threads
        .iter()
        .map(|&u| {
            let pc = model.threads.pc(end, u);
            if Some(pc) == rpc {
                format!(
                    "{} waits at the reconvergence point",
                    model.threads.thread_name(u)
                )
            } else {
                format!(
                    "{} waits at {}",
                    model.threads.thread_name(u),
                    model.threads.line_text(pc)
                )
            }
        })
        .collect();
    format!(
        "SIMD deadlock in {}: {} {} at {}{resource}; {} of the same warp {} masked off ({}) until the spinning lanes reach {}, so what {} would do next (release the lock, publish the value) never happens.{}",
        model.warps.name(w),
        lanes_word(active),
        if active.count_ones() == 1 { "spins" } else { "spin" },
        model.threads.line_text(spin_pc),
        lanes_word(masked_off),
        if masked_off.count_ones() == 1 { "is" } else { "are" },
        where_off.join("; "),
        reconverge,
        if masked_off.count_ones() == 1 { "it" } else { "they" },
        split_sentence(model, (events, end), lead, &off_threads)
    )
}

/// `lane 1` or `lanes 0,2`.
fn lanes_word(mask: u64) -> String {
    if mask.count_ones() == 1 {
        format!("lane {}", lane_list(mask))
    } else {
        format!("lanes {}", lane_list(mask))
    }
}

/// An `ldslk` that finds its bit taken: who, where, through which word.
struct FailedTry {
    thread: usize,
    pc: Pc,
    location: String,
    bit: String,
    word_address: Option<u32>,
}

/// The failed `ldslk`s the deadlocked threads repeat: those they stand at in
/// `end`, then those of the cycle (without fusing, a spinner may end the
/// cycle elsewhere in its loop).
fn failed_tries(model: &Model, cycle: &[Event], end: &[u32]) -> Vec<FailedTry> {
    let mut tries: Vec<FailedTry> = (0..model.threads.layout.threads)
        .filter_map(|t| {
            let (pc, r) = model.lock_bits.waiting(&model.threads, end, t)?;
            Some(FailedTry {
                thread: t,
                pc,
                bit: model.lock_bits.bit_name(&model.threads, t, &r),
                location: r.location,
                word_address: Some(r.word_address),
            })
        })
        .collect();
    for e in cycle {
        let is_try = matches!(model.prog.code[e.pc as usize].op, Op::LockBitTry { .. });
        if let (true, [(location, _), (bit, 0)]) = (is_try && e.writes.is_empty(), &e.reads[..]) {
            tries.push(FailedTry {
                thread: e.thread as usize,
                pc: e.pc,
                location: location.clone(),
                bit: bit.clone(),
                word_address: None,
            });
        }
    }
    tries
}

/// A thread spinning on a lock bit held through an aliased address.
fn alias(model: &Model, (events, cycle_from): (&[Event], usize), end: &[u32]) -> Option<String> {
    failed_tries(model, &events[cycle_from..], end)
        .into_iter()
        .find_map(|w| {
            let taken = events
                .iter()
                .rev()
                .find(|e| e.writes.iter().any(|(l, v)| *l == w.bit && *v == 0))?;
            let (via, _) = taken.reads.first()?;
            if *via == w.location {
                return None;
            }
            let holder = taken.thread as usize;
            let doing = if holder == w.thread {
                "itself".to_string()
            } else {
                let what = thread_positions(model, end)
                    .into_iter()
                    .find(|(u, _)| *u == holder)
                    .map(|(_, what)| format!(", which {what}"))
                    .unwrap_or_else(|| ", which has finished".to_string());
                format!("{}{what}", model.threads.thread_name(holder))
            };
            let word = w
                .word_address
                .map(|a| format!(" (word address {a})"))
                .unwrap_or_default();
            Some(format!(
                "alias deadlock: {} waits at {} for {} through {}{word}, but that bit is held through the aliased address {} by {doing}; with {} lock bits, addresses that are equal modulo {} share a bit",
                model.threads.thread_name(w.thread),
                model.threads.line_text(w.pc),
                w.bit,
                w.location,
                via,
                model.lock_bits.count(),
                model.lock_bits.count()
            ))
        })
}

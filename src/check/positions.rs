//! Where each unfinished thread of a state is and what it is doing, in
//! words, for deadlock and liveness reports.

use crate::ir::Op;
use crate::model::Model;

/// Each unfinished thread with what it is doing (`spins at line 20: ...`).
pub(crate) fn thread_positions(model: &Model, state: &[u32]) -> Vec<(usize, String)> {
    let prog = model.prog;
    let mut lines = Vec::new();
    for t in 0..model.threads.layout.threads {
        if model.threads.is_finished(state, t) {
            continue;
        }
        let pc = model.threads.pc(state, t);
        let instr = &prog.code[pc as usize];
        let line = prog.source.line_label(instr.span.start);
        let text = prog
            .source
            .snippet(instr.span)
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        let what = if !model.occupancy.is_resident(&model.threads, state, t) {
            "has not started: no block slot is free".to_string()
        } else if model.threads.is_waiting_in_warp(state, t) {
            format!("waits at {line}: `{text}` for the other lanes its mask names")
        } else if model.warps.is_masked_off(&model.threads, state, t) {
            format!("is masked off at {line}: `{text}` (its warp runs other lanes until they reconverge)")
        } else if let (true, Op::NamedBarrier { id, .. }) =
            (model.threads.is_waiting_at_barrier(state, t), &instr.op)
        {
            format!("waits at barrier {id} ({line}: `{text}`) for threads that never arrive")
        } else if model.threads.is_waiting_at_barrier(state, t) {
            let group = if matches!(instr.op, Op::KernelBoundary) {
                0..model.threads.layout.threads
            } else {
                model.threads.layout.block_threads(t)
            };
            let missing: Vec<String> = group
                .filter(|u| {
                    !model.threads.is_finished(state, *u)
                        && !model.threads.is_waiting_at_barrier(state, *u)
                })
                .map(|u| model.threads.thread_name(u))
                .collect();
            let barrier = if matches!(instr.op, Op::KernelBoundary) {
                "the kernel boundary"
            } else {
                "`__syncthreads()`"
            };
            format!(
                "waits at {barrier} ({line}) for {}",
                if missing.is_empty() {
                    "the rest of its block".to_string()
                } else {
                    missing.join(", ")
                }
            )
        } else {
            match &instr.op {
                Op::Load { .. } | Op::Atomic { .. } | Op::LockBitTry { .. } => {
                    format!("spins at {line}: `{text}`")
                }
                _ => format!("is at {line}: `{text}`"),
            }
        };
        lines.push((t, what));
    }
    lines
}

/// Whether unfinished thread `t` may step on rather than wait or spin: it
/// waits for no barrier, lanes or block slot, and is not at a read it may
/// repeat (what [`thread_positions`] calls "is at").
pub(crate) fn steps_on(model: &Model, state: &[u32], t: usize) -> bool {
    let th = &model.threads;
    let op = &model.prog.code[th.pc(state, t) as usize].op;
    model.occupancy.is_resident(th, state, t)
        && !th.is_waiting_in_warp(state, t)
        && !model.warps.is_masked_off(th, state, t)
        && !th.is_waiting_at_barrier(state, t)
        && !matches!(
            op,
            Op::Load { .. } | Op::Atomic { .. } | Op::LockBitTry { .. }
        )
}

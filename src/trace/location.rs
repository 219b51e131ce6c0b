//! Where a violation shows in the spec, for annotations (SARIF): the
//! failing instruction of a safety violation; for a deadlock, livelock or
//! starvation, the instruction a stuck thread spins or waits at.

use super::counterexample::source_pos;
use crate::ir::Op;
use crate::model::{thread_of, Model};
use crate::report::{SourcePos, Trace};

/// `faulted`: the schedule's last step raised the violation (a safety
/// violation); then `trace`'s last step is the failing instruction.
/// Otherwise the threads are stuck where the schedule leaves them: the
/// first thread that never progresses in the cycle (or any unfinished one,
/// where there is no cycle), preferring one that spins on memory (a load
/// or atomic), then one blocked at a barrier, over one masked off.
pub fn violation_location(
    model: &Model,
    schedule: &[u32],
    cycle: &[u32],
    trace: &Trace,
    faulted: bool,
) -> Option<SourcePos> {
    if faulted {
        return trace.steps.last().map(|s| s.span.clone());
    }
    let (state, None) = model.run_schedule(schedule) else {
        return None;
    };
    let mut next = state.clone();
    // Threads that progress during the cycle are not the stuck ones.
    let mut progressed = vec![false; model.threads.layout.threads];
    let mut s = state.clone();
    for &t in cycle {
        let (result, labels) = model.step_labels(&s, t, &mut next);
        result.ok()?;
        progressed[thread_of(t)] |= labels.progressed;
        std::mem::swap(&mut s, &mut next);
    }
    let stuck: Vec<usize> = (0..model.threads.layout.threads)
        .filter(|&t| !model.threads.is_finished(&state, t) && !progressed[t])
        .collect();
    let op_of = |t: usize| &model.prog.code[model.threads.pc(&state, t) as usize];
    let spins = |t: &&usize| {
        matches!(
            op_of(**t).op,
            Op::Load { .. } | Op::Atomic { .. } | Op::LockBitTry { .. }
        )
    };
    let at_barrier = |t: &&usize| model.threads.is_waiting_at_barrier(&state, **t);
    let t = *stuck
        .iter()
        .find(spins)
        .or(stuck.iter().find(at_barrier))
        .or(stuck.first())?;
    Some(source_pos(&model.prog.source, op_of(t).span))
}

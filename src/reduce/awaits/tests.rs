//! The await reduction's promise to every spinner: the poll that reads the
//! latest write stays (so a thread with a step keeps one).

use super::Awaits;
use crate::explore::{explore, Options, TransitionSystem};
use crate::ir::Launch;
use crate::model::{thread_of, MemoryModel, Model, ModelOptions};

/// The model's options of these tests: ptx, the rest by default.
fn ptx() -> ModelOptions {
    ModelOptions {
        memory_model: MemoryModel::Ptx,
        ..ModelOptions::default()
    }
}

/// `text` lowered for `blocks` blocks of one thread.
fn program(text: &str, blocks: u32) -> crate::ir::Program {
    let launch = Launch {
        blocks,
        threads_per_block: 1,
        warp_size: 32,
    };
    crate::model::tests::program(text, launch)
}

/// Block 0 writes `lock` four times, filling its history (four writes)
/// while block 1's view may stay at the oldest; block 1 polls with an
/// `atomicCAS` that fails on every value written. Its atomic makes room
/// first, so its choices count from the history without the oldest write.
const FULL_HISTORY_POLL: &str = "global u32 lock = 0;\nharness all {\n if (blockIdx == 0) { atomicExch(lock, 1); atomicExch(lock, 2); atomicExch(lock, 3); atomicExch(lock, 4); }\n else { while (atomicCAS(lock, 7, 8) != 7) { } }\n}";

#[test]
fn a_poll_of_a_full_history_keeps_its_read_of_the_latest_write() {
    let prog = program(FULL_HISTORY_POLL, 2);
    let model = Model::new(&prog, ptx());
    let awaits = Awaits::new(&model).expect("ptx, no lockstep");
    let e = explore(&model, &Options::default());
    let (mut all, mut kept) = (Vec::new(), Vec::new());
    let mut full_polls = 0;
    for id in 0..e.num_states() as u32 {
        let s = e.state(id);
        all.clear();
        model.actions(s, &mut all);
        kept.clone_from(&all);
        awaits.retain(&model, s, &mut kept, 0);
        let spinner = |a: &u32| thread_of(*a) == 1;
        let x = model.memory.ptx().expect("ptx").location_section(0);
        full_polls += usize::from(s[x.start] as usize == crate::model::memory::HISTORY);
        assert!(
            !all.iter().any(spinner) || kept.iter().any(spinner),
            "state {id}: block 1's steps {all:?} all left out"
        );
    }
    assert!(full_polls > 0, "no state with a full history was reached");
}

/// A step that cannot end back at its pc (`may_stutter` off there) is
/// never a stutter, so skipping the test there leaves out exactly what the
/// test would: checked on every stale read of every state reached, in a
/// spin loop on a flag (where stutters happen) and in the priority
/// semaphore (stale reads outside loops, stale polls of an `atomicCAS`).
#[test]
fn the_static_filter_skips_only_steps_that_do_not_stutter() {
    let specs = [
        (include_str!("../../../specs/mp_flag.gsync"), 2),
        (include_str!("../../../specs/priority_semaphore.gsync"), 3),
    ];
    let (mut skipped, mut stutters) = (0, 0);
    for (text, blocks) in specs {
        let prog = program(text, blocks);
        let model = Model::new(&prog, ptx());
        let awaits = Awaits::new(&model).expect("ptx, no lockstep");
        let memory = model.memory.ptx().expect("ptx");
        let e = explore(&model, &Options::default());
        let (mut all, mut next) = (Vec::new(), vec![0u32; model.state_words()]);
        for id in 0..e.num_states() as u32 {
            let s = e.state(id);
            all.clear();
            model.actions(s, &mut all);
            for &a in all
                .iter()
                .filter(|&&a| memory.reads_stale(&model.threads, s, a))
            {
                let stutter = awaits.stutters(&model, s, a, &mut next);
                stutters += usize::from(stutter);
                if !awaits.may_stutter[model.threads.pc(s, thread_of(a)) as usize] {
                    skipped += 1;
                    assert!(!stutter, "state {id}: action {a:#x} stutters");
                }
            }
        }
    }
    assert!(
        skipped > 0 && stutters > 0,
        "{skipped} skipped, {stutters} stutters"
    );
}

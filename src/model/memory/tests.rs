//! The `ptx` model on small programs: weak outcomes it must reach, the
//! orderings it must keep, and the races it reports.

use crate::diag::Source;
use crate::explore::{explore, Options, Outcome};
use crate::ir::Launch;
use crate::model::{MemoryModel, Model, ModelOptions, Violation, ViolationKind};
use crate::spec::lower;

const TWO_BLOCKS: Launch = Launch {
    blocks: 2,
    threads_per_block: 1,
    warp_size: 32,
};

const ONE_BLOCK: Launch = Launch {
    blocks: 1,
    threads_per_block: 2,
    warp_size: 32,
};

/// The first fault under `model` (`races`: report races), if any.
fn fault(text: &str, launch: Launch, model: MemoryModel, races: bool) -> Option<Violation> {
    let source = Source::new("t.gsync", text);
    let file = crate::spec::parse(&source).unwrap_or_else(|d| panic!("parse: {}", d.message));
    let prog =
        lower(&file, &source, launch, &[]).unwrap_or_else(|d| panic!("lower: {}", d.message));
    let options = ModelOptions {
        memory_model: model,
        races,
        ..ModelOptions::default()
    };
    let m = Model::new(&prog, options);
    let e = explore(&m, &Options::default());
    match e.outcome() {
        Outcome::Fault { fault, .. } => Some(fault.clone()),
        Outcome::Complete | Outcome::Stuck { .. } => None,
        Outcome::Limit(k) => panic!("limit {k:?}"),
    }
}

/// Message passing: block 0 writes data then the flag, block 1 waits for
/// the flag and checks the data. `FENCE` is replaced by the fences used.
const MP: &str = "global u32 data = 0;\nglobal volatile u32 flag = 0;\nharness all {\n if (blockIdx == 0) { data = 1; WFENCE flag = 1; }\n else { while (flag == 0) { } RFENCE assert(data == 1, \"stale data\"); }\n}";

fn mp(wfence: &str, rfence: &str) -> String {
    MP.replace("WFENCE", wfence).replace("RFENCE", rfence)
}

/// Found by cargo-fuzz (`fuzz/`, built with overflow checks): a location
/// only read-modify-writes touch keeps only its latest write, so the floor
/// of the readers' views fell below 0 (an overflow; `cargo test` without
/// `--release` panicked here, a release build wrapped).
#[test]
fn a_location_only_rmws_touch_keeps_its_latest_write_past_old_views() {
    let text =
        "global u32 count = 0;\nharness all {\n atomicAdd(count, 1);\n atomicExch(count, 0);\n}";
    assert_eq!(fault(text, TWO_BLOCKS, MemoryModel::Ptx, true), None);
}

#[test]
fn message_passing_needs_device_fences_on_both_sides() {
    let bare = mp("", "");
    assert_eq!(fault(&bare, TWO_BLOCKS, MemoryModel::Sc, true), None);
    let stale = fault(&bare, TWO_BLOCKS, MemoryModel::Ptx, false).expect("stale data");
    assert_eq!(
        (stale.kind, stale.property),
        (ViolationKind::Assertion, "assert")
    );
    let race = fault(&bare, TWO_BLOCKS, MemoryModel::Ptx, true).expect("a race");
    assert_eq!(race.kind, ViolationKind::HeterogeneousRace);
    assert!(race.message.contains("`data`"), "{}", race.message);
    let fenced = mp("__threadfence();", "__threadfence();");
    assert_eq!(fault(&fenced, TWO_BLOCKS, MemoryModel::Ptx, true), None);
    // Only the writer's fence, or block-scope fences, are not enough.
    let half = mp("__threadfence();", "");
    assert!(fault(&half, TWO_BLOCKS, MemoryModel::Ptx, false).is_some());
    let narrow = mp("__threadfence_block();", "__threadfence_block();");
    let race = fault(&narrow, TWO_BLOCKS, MemoryModel::Ptx, true).expect("too narrow");
    assert_eq!(race.kind, ViolationKind::HeterogeneousRace);
    assert!(race.message.contains("block-scope"), "{}", race.message);
}

#[test]
fn block_scope_fences_suffice_within_a_block() {
    let text = mp("__threadfence_block();", "__threadfence_block();")
        .replace("blockIdx == 0", "threadIdx == 0");
    assert_eq!(fault(&text, ONE_BLOCK, MemoryModel::Ptx, true), None);
    let bare = mp("", "").replace("blockIdx == 0", "threadIdx == 0");
    let race = fault(&bare, ONE_BLOCK, MemoryModel::Ptx, true).expect("a data race");
    assert_eq!(race.kind, ViolationKind::DataRace);
}

#[test]
fn block_scope_atomics_lose_updates_across_blocks() {
    let text = |add: &str| {
        format!("global u32 n = 0;\nharness all {{ {add}(n, 1); __kernel_boundary(); assert(n == 2, \"lost update\"); }}")
    };
    assert_eq!(
        fault(&text("atomicAdd"), TWO_BLOCKS, MemoryModel::Ptx, true),
        None
    );
    let lost = fault(
        &text("atomicAdd_block"),
        TWO_BLOCKS,
        MemoryModel::Ptx,
        false,
    )
    .expect("lost");
    assert_eq!(lost.message, "lost update");
    let race = fault(&text("atomicAdd_block"), TWO_BLOCKS, MemoryModel::Ptx, true).expect("race");
    assert_eq!(race.kind, ViolationKind::HeterogeneousRace);
    // Within one block they are atomic.
    let one = text("atomicAdd_block");
    assert_eq!(fault(&one, ONE_BLOCK, MemoryModel::Ptx, true), None);
}

#[test]
fn coherence_per_location_holds_for_strong_accesses() {
    // CoWR: a thread reads its own latest write (no racing writer).
    let own = "global u32 x = 0;\nharness all { if (threadIdx == 0) { x = 1; x = 5; assert(x == 5, \"own write lost\"); } }";
    assert_eq!(fault(own, ONE_BLOCK, MemoryModel::Ptx, true), None);
    // CoRR: volatile reads never go back in coherence order.
    let corr = "global volatile u32 x = 0;\nharness all { if (blockIdx == 0) { x = 1; x = 2; } else { u32 a = x; u32 b = x; assert(!(a == 2 && b == 1), \"CoRR\"); } }";
    assert_eq!(fault(corr, TWO_BLOCKS, MemoryModel::Ptx, true), None);
    // Plain (weak) racing reads get no such guarantee.
    let weak = corr.replace("volatile ", "");
    let f = fault(&weak, TWO_BLOCKS, MemoryModel::Ptx, false).expect("incoherent weak reads");
    assert_eq!(f.message, "CoRR");
}

/// The writes held in all histories of a `ptx` state.
fn writes_held(model: &Model, s: &[u32]) -> usize {
    let memory = model.memory.ptx().expect("ptx");
    (0..memory.sec.locs).map(|x| memory.len(s, x)).sum()
}

/// Specs (and their blocks) whose states one pass of the canonical form
/// leaves with repeats, and a barrier and a mutex it leaves without.
const NOT_IDEMPOTENT: [(&str, u32); 5] = [
    (include_str!("../../../specs/priority_semaphore.gsync"), 3),
    (include_str!("../../../specs/heterosync_semaphore.gsync"), 3),
    (include_str!("../../../specs/spin_lock_semaphore.gsync"), 3),
    (
        include_str!("../../../specs/sense_reversing_barrier_fixed.gsync"),
        2,
    ),
    (include_str!("../../../specs/ticket_mutex.gsync"), 2),
];

/// The programs of [`NOT_IDEMPOTENT`], each at its blocks of one thread.
fn not_idempotent() -> impl Iterator<Item = crate::ir::Program> {
    NOT_IDEMPOTENT.into_iter().map(|(text, blocks)| {
        let launch = Launch {
            blocks,
            threads_per_block: 1,
            warp_size: 32,
        };
        crate::model::tests::program(text, launch)
    })
}

/// The `ptx` model's options, with the dead-write drop and the canonical
/// form's fixpoint as asked.
fn ptx_options(drop_dead_writes: bool, canonical_fixpoint: bool) -> ModelOptions {
    ModelOptions {
        memory_model: MemoryModel::Ptx,
        drop_dead_writes,
        canonical_fixpoint,
        ..ModelOptions::default()
    }
}

/// The canonical form is not idempotent, and a second pass over a stored
/// state only ever merges or drops writes (what an incremental form, one
/// that redoes only what a step touched, would have to do first; see
/// "Per core, measured again" in book/src/checker-performance.md). Two
/// rules run after the repeat merge within one pass and make new repeats:
/// the dead-write drop (`atomicCAS(lock, 0, 1)` after an unlock: the
/// released 0 goes and two locks' 1s become neighbours, here in
/// `priority_semaphore`), and the view clamps (a release whose view they
/// empty is no release, and then repeats the write before it: with the
/// dead-write drop off, in `priority_semaphore` and `spin_lock_semaphore`
/// only that remains).
#[test]
fn a_second_canonical_pass_only_merges_writes() {
    // Per spec, the states a second pass changes with the dead-write drop
    // off and on.
    let mut changed = Vec::new();
    for prog in not_idempotent() {
        let mut counts = [0usize; 2];
        for drop_dead_writes in [true, false] {
            let model = Model::new(&prog, ptx_options(drop_dead_writes, false));
            let memory = model.memory.ptx().expect("ptx");
            let e = explore(&model, &Options::default());
            for id in 0..e.num_states() as u32 {
                let s = e.state(id);
                let mut again = s.to_vec();
                memory.normalize(&model.threads, &mut again, &model.facts);
                if again != s {
                    counts[usize::from(drop_dead_writes)] += 1;
                    assert!(
                        writes_held(&model, &again) < writes_held(&model, s),
                        "state {id}: a second pass changed it without merging a write"
                    );
                }
            }
        }
        changed.push(counts);
    }
    // Both causes are reached: the clamps (with the dead-write drop off),
    // and the dead-write drop alone (a spec the clamps leave idempotent).
    let clamps = changed.iter().any(|&[off, _]| off > 0);
    let dead_writes = changed.iter().any(|&[off, on]| off == 0 && on > 0);
    assert!(clamps && dead_writes, "{changed:?}");
}

/// The canonical fixpoint puts out the whole form's fixpoint: on every
/// successor (taken before its canonical form) of every state the search
/// stores with the switch off and on, with the dead-write drop on and off,
/// the targeted merge (`memory::fixpoint`) gives the state that repeating
/// the whole form until nothing changes gives, and that state differs from
/// one pass's on some successors.
#[test]
fn the_targeted_fixpoint_is_the_whole_forms_fixpoint() {
    let mut fewer = 0;
    for prog in not_idempotent() {
        for drop_dead_writes in [true, false] {
            let model = |fixpoint| Model::new(&prog, ptx_options(drop_dead_writes, fixpoint));
            let (once, fixed) = (model(false), model(true));
            let normalize = |m: &Model, s: &mut Vec<u32>| {
                let memory = m.memory.ptx().expect("ptx");
                memory.normalize(&m.threads, s, &m.facts);
            };
            for searched in [&once, &fixed] {
                for_each_raw_successor(searched, &once, |id, a, raw| {
                    let mut targeted = raw.clone();
                    normalize(&fixed, &mut targeted);
                    let mut whole = raw;
                    normalize(&once, &mut whole);
                    let one_pass = whole.clone();
                    loop {
                        let before = whole.clone();
                        normalize(&once, &mut whole);
                        if before == whole {
                            break;
                        }
                    }
                    assert_eq!(targeted, whole, "state {id}, action {a:#x}");
                    fewer += usize::from(whole != one_pass);
                });
            }
        }
    }
    assert!(fewer > 0, "no successor where one pass is not the fixpoint");
}

/// The view refresh skips a thread whose view already holds both SC-fence
/// views (`canon::holds_sc_views`): on every successor (before its
/// canonical form) of every state of the specs above, refreshing such a
/// thread changes nothing, the shortcut is taken, and some thread it does
/// not skip is raised (so the refresh is at work in these specs).
#[test]
fn the_view_refresh_skips_only_threads_it_would_not_raise() {
    let (mut skipped, mut raised) = (0, 0);
    for prog in not_idempotent() {
        let model = Model::new(&prog, ptx_options(true, true));
        let memory = model.memory.ptx().expect("ptx");
        for_each_raw_successor(&model, &model, |id, a, raw| {
            for t in 0..memory.sec.threads {
                if model.threads.is_finished(&raw, t) {
                    continue;
                }
                let mut refreshed = raw.clone();
                memory.refresh_thread(&model.threads, &mut refreshed, &model.facts, t);
                if memory.holds_sc_views(&raw, t) {
                    assert_eq!(refreshed, raw, "state {id}, action {a:#x}, thread {t}");
                    skipped += 1;
                } else {
                    raised += usize::from(refreshed != raw);
                }
            }
        });
    }
    assert!(
        skipped > 0 && raised > 0,
        "skipped {skipped}, raised {raised}"
    );
}

/// Calls `f(id, action, raw)` with every successor `raw` that `stepper`
/// takes, before its canonical form, from every state `id` the search of
/// `searched` stores.
fn for_each_raw_successor(
    searched: &Model,
    stepper: &Model,
    mut f: impl FnMut(u32, u32, Vec<u32>),
) {
    use crate::explore::TransitionSystem;
    let e = explore(searched, &Options::default());
    let mut actions = Vec::new();
    for id in 0..e.num_states() as u32 {
        let s = e.state(id);
        actions.clear();
        stepper.actions(s, &mut actions);
        for &a in &actions {
            let mut raw = s.to_vec();
            if stepper.step_unnormalized(s, a, &mut raw).is_ok() {
                f(id, a, raw);
            }
        }
    }
}

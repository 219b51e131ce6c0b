//! The sequentially consistent semantics on small programs, explored.

use super::*;
use crate::diag::Source;
use crate::explore::{explore, Options, Outcome};
use crate::ir::Launch;
use crate::spec::lower;

/// The options of these tests: sequential consistency.
fn sc() -> ModelOptions {
    ModelOptions {
        memory_model: MemoryModel::Sc,
        ..ModelOptions::default()
    }
}

/// `text` parsed and lowered for `launch` (the model's tests use it too).
pub(crate) fn program(text: &str, launch: Launch) -> Program {
    let source = Source::new("t.gsync", text);
    let file = crate::spec::parse(&source).unwrap_or_else(|d| panic!("parse: {}", d.message));
    lower(&file, &source, launch, &[]).unwrap_or_else(|d| panic!("lower: {}", d.message))
}

/// The first fault found, if any, and the number of states.
fn run(text: &str, launch: Launch, fuse: bool) -> (Option<Violation>, usize) {
    let prog = program(text, launch);
    let model = Model::new(
        &prog,
        ModelOptions {
            fuse_local_steps: fuse,
            ..sc()
        },
    );
    let e = explore(&model, &Options::default());
    let fault = match e.outcome() {
        Outcome::Fault { fault, .. } => Some(fault.clone()),
        _ => None,
    };
    (fault, e.num_states())
}

const TWO_THREADS: Launch = Launch {
    blocks: 1,
    threads_per_block: 2,
    warp_size: 32,
};
#[test]
fn syncthreads_orders_the_threads_of_a_block() {
    let with = "global u32 x[2] = 0;\nharness all { x[threadIdx] = 1; __syncthreads(); assert(x[1 - threadIdx] == 1); }";
    assert_eq!(run(with, TWO_THREADS, true).0, None);
    let without = with.replace("__syncthreads();", "");
    let fault = run(&without, TWO_THREADS, true)
        .0
        .expect("the assertion can fail");
    assert_eq!(fault.kind, ViolationKind::Assertion);
}

/// Seed 002's `bad_kernel`: a thread that leaves before a `__syncthreads()`
/// its blockmate waits at can never reach it. Hardware may let the others
/// pass (an exited thread no longer counts) or hang; CUDA calls it undefined,
/// so the checker reports it whichever thread gets there first.
#[test]
fn a_thread_leaving_before_a_barrier_is_barrier_divergence() {
    let text = "harness all { if (threadIdx == 0) { return; } __syncthreads(); }";
    let fault = run(text, TWO_THREADS, true).0.expect("divergent barrier");
    assert_eq!(fault.kind, ViolationKind::BarrierDivergence);
    let fixed = "harness all { __syncthreads(); if (threadIdx == 0) { return; } }";
    assert_eq!(run(fixed, TWO_THREADS, true).0, None);
}

#[test]
fn stores_wrap_at_the_declared_width() {
    // The CCG barrier's counter relies on i32 overflow.
    let text = "global i32 c = 2147483647;\nharness master { atomicAdd(c, 1); assert(c < 0); }";
    let one = Launch::of_blocks(1);
    assert_eq!(run(text, one, true).0, None);
    let text = "global u8 c = 255;\nharness master { c = c + 1; assert(c == 0); }";
    assert_eq!(run(text, one, true).0, None);
}

#[test]
fn mutual_exclusion_is_checked_on_entry() {
    let text = "harness master { check mutual_exclusion; critical { } }";
    let fault = run(text, Launch::default(), true)
        .0
        .expect("two blocks enter");
    assert_eq!(fault.kind, ViolationKind::MutualExclusion);
}

#[test]
fn capacity_sums_weights() {
    let base =
        "param size = 3;\nharness master { check capacity(size); critical(blockIdx + 1) { } }";
    // Weights 1 + 2 = 3 fit a capacity of 3 ...
    assert_eq!(run(base, Launch::default(), true).0, None);
    // ... but not 2.
    let tight = base.replace("size = 3", "size = 2");
    assert!(run(&tight, Launch::default(), true).0.is_some());
}

/// Found by the fuzzer (tests/fuzz, with overflow checks): a weight near
/// i64::MAX overflowed the sum of the weights inside, and a weight past
/// u32 was cut to 32 bits in the state.
#[test]
fn huge_critical_weights_are_counted_or_refused() {
    let base = "param size = 3;\nharness master { check capacity(size); critical(WEIGHT) { } }";
    // Over the capacity: a capacity violation, whatever the width.
    for weight in ["9223372036854775807", "4294967295", "4294967296"] {
        let text = base.replace("WEIGHT", weight);
        let fault = run(&text, Launch::default(), true)
            .0
            .expect("over capacity");
        assert_eq!(fault.property, "capacity", "{weight}: {}", fault.message);
    }
    // Admitted by a capacity as large, but not countable in the state.
    let text = base
        .replace("size = 3", "size = 9223372036854775807")
        .replace("WEIGHT", "4294967295");
    let fault = run(&text, Launch::default(), true).0.expect("too large");
    assert_eq!(fault.property, "runtime");
    assert!(
        fault
            .message
            .contains("critical section weight 4294967295 is larger than 4294967294"),
        "{}",
        fault.message
    );
}

#[test]
fn out_of_bounds_index_is_a_runtime_error() {
    let text = "global u32 a[2] = 0;\nharness master { a[blockIdx + 1] = 1; }";
    let fault = run(text, Launch::default(), true)
        .0
        .expect("block 1 writes a[2]");
    assert_eq!(fault.property, "runtime");
    assert!(fault.message.contains("out of bounds"), "{}", fault.message);
}

#[test]
fn fusing_local_steps_keeps_verdicts_and_shrinks_the_space() {
    let text = "param iters = 2;\nglobal u32 lock = 0;\nharness master { check mutual_exclusion;\n\
                for (u32 i = 0; i < iters; i++) { while (atomicExch(lock, 1) != 0) { } critical { } atomicExch(lock, 0); } }";
    let (f1, fused) = run(text, Launch::default(), true);
    let (f2, plain) = run(text, Launch::default(), false);
    assert_eq!((f1, f2), (None, None));
    assert!(fused < plain, "fused {fused} vs unfused {plain}");
    let broken = text.replace("while (atomicExch(lock, 1) != 0) { }", "");
    assert!(run(&broken, Launch::default(), true).0.is_some());
    assert!(run(&broken, Launch::default(), false).0.is_some());
}

#[test]
fn non_master_threads_finish_at_once() {
    let text = "global u32 n = 0;\nharness master { atomicAdd(n, 1); }\n";
    let prog = program(text, TWO_THREADS);
    let model = Model::new(&prog, sc());
    let mut s = vec![0; model.state_words()];
    model.initial_state(&mut s);
    assert!(!model.threads.is_finished(&s, 0));
    assert!(model.threads.is_finished(&s, 1));
}

#[test]
fn occupancy_starts_blocks_in_order_as_others_finish() {
    let text = "harness master { }";
    let launch = Launch::of_blocks(3);
    let prog = program(text, launch);
    let model = Model::new(
        &prog,
        ModelOptions {
            resident: Some(1),
            ..sc()
        },
    );
    let mut s = vec![0; model.state_words()];
    model.initial_state(&mut s);
    let mut actions = Vec::new();
    model.actions(&s, &mut actions);
    assert_eq!(actions, vec![0], "only block 0 is resident");
    let mut next = s.clone();
    model.step(&s, 0, &mut next).unwrap();
    actions.clear();
    model.actions(&next, &mut actions);
    assert_eq!(actions, vec![1], "block 1 starts when block 0 finishes");
}

#[test]
fn progress_points_are_reported_by_steps() {
    let text = "global u32 x = 0;\nharness master { x = 1; progress; x = 2; }";
    let one = Launch::of_blocks(1);
    let prog = program(text, one);
    let model = Model::new(&prog, sc());
    let mut s = vec![0; model.state_words()];
    model.initial_state(&mut s);
    let mut next = s.clone();
    // `x = 1` then the fused `progress;`.
    let (r, labels) = model.step_labels(&s, 0, &mut next);
    assert!(r.is_ok() && labels.progressed);
    let s = next.clone();
    let (_, labels) = model.step_labels(&s, 0, &mut next);
    assert!(!labels.progressed, "x = 2 alone is no progress");
}

#[test]
fn a_counter_feeding_only_itself_is_dead() {
    // `i` only feeds `i++`: strong liveness clears it, so a loop that runs
    // forever has finitely many states.
    let text = "global u32 x = 0;\nharness master { for (u32 i = 0; true; i++) { x = 1 - x; } }";
    let one = Launch::of_blocks(1);
    let (_, states) = run(text, one, true);
    assert!(states < 10, "{states} states");
}

/// The kinds an `expect` line may name are the kinds a report names.
#[test]
fn expect_lines_know_every_violation_kind() {
    let names: Vec<&str> = ViolationKind::ALL.iter().map(|k| k.name()).collect();
    assert_eq!(names, crate::spec::header::VIOLATION_KINDS);
}

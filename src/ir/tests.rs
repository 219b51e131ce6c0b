//! Lowering, post-dominators and liveness on small programs.

use super::cfg::{immediate_post_dominators, Liveness};
use super::*;
use crate::diag::Source;
use crate::spec::{lower, parse};

fn lower_text(text: &str, launch: Launch) -> Program {
    let source = Source::new("t.gsync", text);
    let file = parse(&source).unwrap_or_else(|d| panic!("parse: {}", d.message));
    lower(&file, &source, launch, &[]).unwrap_or_else(|d| panic!("lower: {}", d.message))
}

fn lower_err(text: &str) -> String {
    let source = Source::new("t.gsync", text);
    let file = parse(&source).unwrap_or_else(|d| panic!("parse: {}", d.message));
    match lower(&file, &source, Launch::default(), &[]) {
        Ok(_) => panic!("expected an error"),
        Err(d) => d.message,
    }
}

fn pc_of(prog: &Program, pred: impl Fn(&Op) -> bool) -> Pc {
    prog.code
        .iter()
        .position(|i| pred(&i.op))
        .expect("instruction present") as Pc
}

/// The instructions of `p` by kind (`Load`, `Assign`, ...), as `Debug` spells them.
fn kinds(p: &Program) -> Vec<String> {
    p.code
        .iter()
        .map(|i| format!("{:?}", i.op))
        .map(|op| op.split([' ', '(', '{']).next().unwrap_or("").to_string())
        .collect()
}

#[test]
fn memory_reads_become_loads_before_the_expression() {
    let p = lower_text(
        "global u32 a = 0; global u32 b = 0;\nharness master { u32 x = a + b; assert(x == 0); }",
        Launch::default(),
    );
    let kinds = kinds(&p);
    assert_eq!(kinds.iter().filter(|k| *k == "Load").count(), 2);
    assert_eq!(kinds[..3], ["Load", "Load", "Assign"]);
}

#[test]
fn compound_assignment_to_memory_is_two_steps() {
    let p = lower_text(
        "global i32 c = 0;\nharness master { c += 1; }",
        Launch::default(),
    );
    assert_eq!(kinds(&p)[..2], ["Load", "Store"]);
}

#[test]
fn short_circuit_guards_the_right_operand() {
    // `a[i]` must not be read when `i < 2` is false.
    let p = lower_text(
        "global u32 a[2] = 0;\nharness master { u32 i = 5; bool ok = i < 2 && a[i] == 0; assert(!ok); }",
        Launch::default(),
    );
    let branch = pc_of(&p, |op| matches!(op, Op::Branch { .. }));
    let load = pc_of(&p, |op| matches!(op, Op::Load { .. }));
    assert!(branch < load, "the branch comes before the load");
}

#[test]
fn procedures_are_inlined_with_their_return_values() {
    let p = lower_text(
        "global u32 l = 0;\nfn try() -> bool { return atomicCAS(l, 0, 1) == 0; }\nharness master { while (!try()) { } }",
        Launch::default(),
    );
    assert_eq!(
        p.code
            .iter()
            .filter(|i| matches!(i.op, Op::Atomic { .. }))
            .count(),
        1
    );
}

#[test]
fn scopes_and_orders_come_from_suffixes() {
    let p = lower_text(
        "global u32 l = 0;\nharness master { atomicCAS_block(l, 0, 1); atomicExch.release.gpu(l, 0); u32 v = load.acquire.gpu(l); }",
        Launch::default(),
    );
    let atomics: Vec<(Order, Scope)> = p
        .code
        .iter()
        .filter_map(|i| i.op.access().map(|a| (a.order, a.scope)))
        .collect();
    assert_eq!(
        atomics,
        vec![
            (Order::Relaxed, Scope::Cta),
            (Order::Release, Scope::Gpu),
            (Order::Acquire, Scope::Gpu)
        ]
    );
}

#[test]
fn array_sizes_and_shared_initial_values_use_launch_constants() {
    let launch = Launch::of_blocks(3);
    let p = lower_text(
        "global u32 flags[nblocks] = 7;\nshared u32 mine = blockIdx * 10;\nharness master { }",
        launch,
    );
    assert_eq!(p.vars[0].len, 3);
    assert_eq!(p.vars[0].init, vec![7, 7, 7]);
    assert_eq!(p.vars[1].init, vec![0, 10, 20]);
}

#[test]
fn designated_elements_are_set_and_the_rest_are_zero() {
    let launch = Launch::of_blocks(4);
    let p = lower_text(
        "global u32 flags[nblocks] = {[0] = 1, [nblocks - 1] = 9};\n\
         shared i8 mine[2] = {[1] = -1 - blockIdx};\nharness master { }",
        launch,
    );
    assert_eq!(p.vars[0].init, vec![1, 0, 0, 9]);
    // Per block, wrapped to the type (raw two's complement bytes).
    assert_eq!(p.vars[1].init, vec![0, 0xFF, 0, 0xFE, 0, 0xFD, 0, 0xFC]);
}

#[test]
fn a_designated_index_outside_this_launch_is_a_located_error() {
    let text = "global u32 flags[nblocks] = {[2] = 1};\nharness master { }";
    let source = Source::new("t.gsync", text);
    let file = parse(&source).expect("parses");
    let three = Launch::of_blocks(3);
    assert_eq!(
        lower(&file, &source, three, &[]).unwrap().vars[0].init,
        [0, 0, 1]
    );
    let d = lower(&file, &source, Launch::default(), &[]).expect_err("2 blocks");
    assert!(
        d.message
            .contains("index 2 is out of range for `flags`, which has 2 element(s)"),
        "{}",
        d.message
    );
    assert_eq!(source.line_col(d.span.start), (1, 31));
    assert!(lower_err("global u32 a[2] = {[-1] = 1};\nharness master { }").contains("index -1"));
    assert!(
        lower_err("global u32 a[2] = {[1] = 1, [1] = 2};\nharness master { }")
            .contains("element 1 of `a` is initialised twice")
    );
    assert!(lower_err("local u32 a = {[0] = 1};\nharness master { }")
        .contains("a scalar takes one initial value"));
}

#[test]
fn semantic_errors_are_reported() {
    assert!(lower_err("fn f() { f(); }\nharness master { f(); }").contains("recursive"));
    assert!(lower_err("harness master { critical { critical { } } }").contains("cannot nest"));
    assert!(
        lower_err("global u32 a[2] = 0;\nharness master { u32 x = a; }").contains("is an array")
    );
    assert!(
        lower_err("harness master { u32 x = 0; atomicAdd(x, 1); }").contains("global or shared")
    );
    assert!(
        lower_err("fn f() -> u32 { }\nharness master { u32 x = f(); }").contains("must return")
    );
    assert!(
        lower_err("param p = 1;\nharness master { p = 2; }").contains("cannot assign to parameter")
    );
    assert!(lower_err("global u32 a[3] = {1, 2};\nharness master { }").contains("2 initial values"));
    assert!(lower_err("global u32 x = 0;").contains("no harness"));
    assert!(
        lower_err("global u64 w = 0;\nharness master { atomicInc(w, 3); }")
            .contains("`atomicInc` has no 64-bit form")
    );
}

#[test]
fn branches_reconverge_at_their_post_dominator() {
    let p = lower_text(
        "global u32 a = 0;\nharness all { if (threadIdx == 0) { a = 1; } else { a = 2; } __syncthreads(); }",
        Launch::default(),
    );
    let ipdom = immediate_post_dominators(&p.code);
    let branch = pc_of(&p, |op| matches!(op, Op::Branch { .. }));
    let sync = pc_of(&p, |op| matches!(op, Op::SyncThreads));
    assert_eq!(ipdom[branch as usize], Some(sync));
}

#[test]
fn a_loop_without_exit_has_no_post_dominator() {
    // `for (;;)` has no condition, so nothing leaves the loop.
    let p = lower_text("harness master { for (;;) { } }", Launch::default());
    let ipdom = immediate_post_dominators(&p.code);
    let jump = pc_of(&p, |op| matches!(op, Op::Jump { .. }));
    assert_eq!(ipdom[jump as usize], None);
}

#[test]
fn temporaries_die_after_their_use() {
    let p = lower_text(
        "global u32 l = 0;\nharness master { while (atomicExch(l, 1) != 0) { } atomicExch(l, 0); }",
        Launch::default(),
    );
    let live = Liveness::compute(&p.code, p.locals.len());
    let atomic = pc_of(&p, |op| matches!(op, Op::Atomic { .. }));
    let Op::Atomic { dst: Some(t), .. } = p.code[atomic as usize].op else {
        panic!("the loop's atomic keeps its result")
    };
    assert!(live.is_live(atomic + 1, t), "read by the branch");
    let last = pc_of(&p, |op| matches!(op, Op::Exit));
    assert!(!live.is_live(last, t), "dead after the loop");
}

/// The targets of every jump in `p` (a `return` is a jump to the end of its
/// inlined body).
fn jump_targets(p: &Program) -> Vec<Pc> {
    p.code
        .iter()
        .filter_map(|i| match i.op {
            Op::Jump { target } => Some(target),
            _ => None,
        })
        .collect()
}

#[test]
fn a_helper_may_return_inside_a_critical_section_or_phase() {
    // Issue #20: the `return` leaves only the helper, whose inlined body
    // ends inside the region, so the region still closes normally.
    let helpers = "global u32 a = 0;\n\
                   fn pick(u32 x) -> u32 { if (x == 0) { return 1; } return 2; }\n\
                   fn early() { if (blockIdx == 0) { return; } a = 1; }\n";
    for (region, enter, exit) in [
        ("critical", "CriticalEnter", "CriticalExit"),
        ("phase", "PhaseEnter", "PhaseExit"),
    ] {
        let text = format!(
            "{helpers}harness master {{ {region} {{ u32 y = pick(blockIdx); early(); a = y; }} }}"
        );
        let p = lower_text(&text, Launch::default());
        let kinds = kinds(&p);
        let enter = kinds.iter().position(|k| k == enter).expect("entered") as Pc;
        let exit = kinds.iter().position(|k| k == exit).expect("left") as Pc;
        let targets = jump_targets(&p);
        assert!(targets.len() >= 3, "three returns: {targets:?}");
        for t in targets {
            assert!(
                enter < t && t < exit,
                "{region}: a return jumps to {t}, outside {enter}..{exit}"
            );
        }
    }
}

#[test]
fn return_break_and_continue_may_not_leave_a_region() {
    let leaves = "may not leave a critical section or phase";
    for body in [
        "harness master { critical { return; } }",
        "harness master { phase { return; } }",
        // The region is inside the helper: its return would leave it.
        "fn f() { critical { return; } }\nharness master { f(); }",
        "fn f() -> u32 { phase { if (blockIdx == 0) { return 1; } } return 0; }\n\
         harness master { u32 x = f(); }",
        "harness master { while (true) { critical { break; } } }",
        "harness master { for (u32 i = 0; i < 2; i++) { phase { continue; } } }",
    ] {
        assert!(lower_err(body).contains(leaves), "{body}");
    }
    // Loops inside the region may still be left.
    lower_text(
        "harness master { critical { for (u32 i = 0; i < 2; i++) { if (i == 1) { break; } } } }",
        Launch::default(),
    );
}

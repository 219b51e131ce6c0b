//! Ample sets that let settled threads sleep (`model/por/spin.rs`: a thread
//! that, run alone, ends up spinning or finishes counts only with the words
//! of that run) are sound on the spin-heavy specs: under `sc`, with
//! symmetry off so that the partial-order reduction alone differs,
//!
//! - the reduced search reaches the full search's verdict and violation
//!   kinds;
//! - every state it stores is a state of the full graph (`--no-por`), and
//!   every state of the full graph in which no thread can move (a blocked
//!   deadlock, or the end of the harness) is stored by it;
//! - a state of the reduced graph cannot finish exactly when some state of
//!   the full graph cannot (a spinning deadlock is kept too).

mod common;

use gsync_check::api::{self, CheckConfig};
use gsync_check::explore::{explore, Options, TransitionSystem};
use gsync_check::ir::Launch;
use gsync_check::model::MemoryModel;
use gsync_check::reduce::{Reduced, Reductions};

use gsync_check::api::Semantics;
use rustc_hash::FxHashSet;

const AMPLE_SETS: Reductions = Reductions {
    ample_sets: true,
    ..Reductions::NONE
};

/// Barriers (one and two levels, with and without bugs), mutexes and
/// semaphores whose threads spin, at small launches.
const SPECS: &[(&str, u32)] = &[
    ("sense_reversing_barrier_fixed", 3),
    ("sense_reversing_barrier_fixed", 4),
    ("sense_reversing_barrier", 4),
    // Deadlocks where the proviso expands states fully, over several passes.
    ("tree_barrier_single", 3),
    ("atomic_barrier_goal_ne", 3),
    ("sense_reversing_barrier_hier", 3),
    ("sense_reversing_barrier_grouped", 3),
    ("sense_barrier_no_flip", 3),
    ("sense_barrier_central", 3),
    ("heterosync_tree_barrier", 4),
    ("atomic_counter_barrier", 3),
    ("xiao_feng_barrier", 3),
    ("two_kernel_barrier", 3),
    ("spin_lock", 3),
    ("spin_lock_backoff", 3),
    ("ticket_mutex", 3),
    ("heterosync_semaphore", 3),
    ("sleeping_semaphore", 3),
    ("spin_lock_semaphore", 3),
    ("semaphore_check_outside_lock", 3),
];

fn config(blocks: u32, ample_sets: bool) -> CheckConfig {
    CheckConfig {
        launch: Launch {
            blocks,
            ..Launch::default()
        },
        semantics: Semantics {
            memory_model: Some(MemoryModel::Sc),
            ..Semantics::default()
        },
        reductions: Reductions {
            symmetry: false,
            ample_sets,
            ..Reductions::ALL
        },
        ..CheckConfig::default()
    }
}

#[test]
fn reduced_verdicts_match_the_full_search_on_spinning_specs() {
    for &(name, blocks) in SPECS {
        let spec = api::SpecSource::builtin(name).unwrap();
        let full = api::check_spec(&spec, &config(blocks, false)).unwrap();
        let reduced = api::check_spec(&spec, &config(blocks, true)).unwrap();
        let what = format!("{name} --blocks {blocks}");
        assert_eq!(full.verdict, reduced.verdict, "{what}");
        let kinds = |r: &gsync_check::report::Report| {
            r.violations.iter().map(|v| v.kind).collect::<Vec<_>>()
        };
        assert_eq!(kinds(&full), kinds(&reduced), "{what}");
        assert!(reduced.stats.states <= full.stats.states, "{what}");
    }
}

#[test]
fn reduced_graphs_keep_every_stuck_and_final_state_of_the_full_graph() {
    let mut reduced_somewhere = false;
    for &(name, blocks) in SPECS {
        let spec = api::SpecSource::builtin(name).unwrap();
        let prepared = api::prepare(&spec, &config(blocks, true)).unwrap();
        let full = api::model_of(&prepared);
        let (por, why) = Reduced::new(&full, AMPLE_SETS);
        assert!(por.has_ample_sets(), "{why:?}");
        let opts = Options {
            keep_edges: true,
            ..Options::default()
        };
        let all = explore(&full, &opts);
        let reduced = explore(&por, &opts);
        let what = format!("{name} --blocks {blocks}");
        if !all.is_complete() {
            // A safety violation stops both searches; the verdicts are
            // compared above.
            assert!(!reduced.is_complete(), "{what}");
            continue;
        }
        assert!(reduced.is_complete(), "{what}");
        let real: FxHashSet<&[u32]> = (0..all.num_states() as u32)
            .map(|id| all.state(id))
            .collect();
        let kept: FxHashSet<&[u32]> = (0..reduced.num_states() as u32)
            .map(|id| reduced.state(id))
            .collect();
        assert!(
            kept.iter().all(|s| real.contains(s)),
            "{what}: the reduced search stored a state no run reaches"
        );
        let mut actions = Vec::new();
        for id in 0..all.num_states() as u32 {
            actions.clear();
            full.actions(all.state(id), &mut actions);
            if actions.is_empty() {
                assert!(
                    kept.contains(all.state(id)),
                    "{what}: state {id} of the full graph, where nobody can move, is missed"
                );
            }
        }
        let stuck = |e: &gsync_check::explore::Exploration<_, _>| {
            e.first_state_that_cannot_finish().is_some()
        };
        assert_eq!(stuck(&all), stuck(&reduced), "{what}: deadlock");
        reduced_somewhere |= reduced.num_states() < all.num_states();
    }
    assert!(reduced_somewhere);
}

/// Block 1 spins until block 2 sets `x`, then writes `y`, which block 0
/// checks. At the start block 0's load of `y` conflicts only with block 1,
/// which spins; but block 2, which is not asleep (it can still write `x`),
/// can wake it first. Letting block 1 sleep anyway (an asleep set that is
/// not closed under awake writers) would take block 0's load alone and
/// miss the assertion.
#[test]
fn a_spinner_that_an_awake_thread_can_release_is_not_asleep() {
    let text = "global u32 x = 0;\n\
                global u32 y = 0;\n\
                harness master {\n\
                    check barrier;\n\
                    if (blockIdx == 0) {\n\
                        assert(y != 2, \"block 1 wrote y first\");\n\
                    } else if (blockIdx == 1) {\n\
                        while (x == 0) { }\n\
                        y = 2;\n\
                    } else {\n\
                        x = 1;\n\
                    }\n\
                }\n";
    one_violation_with_and_without_ample_sets("woken_by_a_third_block", text, 3, "assertion");
}

/// Checks the spec `text` at `blocks` blocks with ample sets off and on:
/// each finds one violation of `kind`; returns its message per run.
fn one_violation_with_and_without_ample_sets(
    name: &str,
    text: &str,
    blocks: u32,
    kind: &str,
) -> Vec<String> {
    let path = common::write_temp_spec(name, text);
    let spec = api::SpecSource::from_file(&path).unwrap();
    [false, true]
        .into_iter()
        .map(|ample_sets| {
            let report = api::check_spec(&spec, &config(blocks, ample_sets)).unwrap();
            let kinds: Vec<&str> = report.violations.iter().map(|v| v.kind.name()).collect();
            assert_eq!(kinds, [kind], "{name}, ample sets {ample_sets}");
            report.violations[0].message.clone()
        })
        .collect()
}

/// A member's phase entry conflicts with a thread that may still leave a
/// phase (`model/por`, *phases*). Block 1's phase sets the flag that block
/// 0's phase waits for, so the one barrier violation is block 1 leaving
/// before block 0 has entered. Taking block 0's entry alone first (as if
/// entering touched nobody) would make that order unreachable.
#[test]
fn a_phase_entry_conflicts_with_another_threads_phase_exit() {
    let text = "global u32 flag = 0;\n\
                harness master {\n\
                    check barrier;\n\
                    if (blockIdx == 0) {\n\
                        phase { while (flag == 0) { } }\n\
                    } else {\n\
                        phase { flag = 1; }\n\
                    }\n\
                }\n";
    for message in one_violation_with_and_without_ample_sets(
        "phase_entry_before_exit",
        text,
        2,
        "barrier_safety",
    ) {
        assert!(
            message.contains("left barrier phase 1 before block 0 arrived"),
            "{message}"
        );
    }
}

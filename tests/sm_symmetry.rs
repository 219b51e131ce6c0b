//! Symmetry of SMs and of words owned by blocks and SMs is sound: every
//! representative the symmetric search stores is a state of the full graph
//! (a canonicalization that moved a block without its SM's words, or
//! renamed an id inconsistently, would make states no real run reaches),
//! and it stores fewer states. Checked under `sc` and `ptx` (where the
//! owned words' histories and view entries move too).

mod common;

use gsync_check::api::Semantics;
use gsync_check::api::{self, CheckConfig};
use gsync_check::explore::{explore, Options};
use gsync_check::ir::Launch;
use gsync_check::reduce::{Reduced, Reductions};
use rustc_hash::FxHashSet;

/// Each block publishes a word, leaves its id in its SM's word and reads
/// the data of the block that was there before it (a stored id used as an
/// index). `fence` orders the two; without it `ptx` may read stale data.
fn first_arrival(fence: &str) -> String {
    format!(
        "param blocks_per_sm = 2;\n\
         global u32 data[nblocks] = 0;\n\
         global u32 first[(nblocks + blocks_per_sm - 1) / blocks_per_sm] = 99;\n\
         local u32 my_sm = blockIdx / blocks_per_sm;\n\
         harness master {{\n\
             data[blockIdx] = 1;\n\
             {fence}\n\
             u32 prev = atomicExch(first[my_sm], blockIdx);\n\
             {fence}\n\
             if (prev != 99) {{ assert(data[prev] == 1, \"the earlier arriver's data is visible\"); }}\n\
         }}\n"
    )
}

fn config(blocks: u32, model: &str, symmetry: bool) -> CheckConfig {
    CheckConfig {
        launch: Launch {
            blocks,
            ..Launch::default()
        },
        semantics: Semantics {
            memory_model: Some(model.parse().unwrap()),
            ..Semantics::default()
        },
        reductions: Reductions {
            symmetry,
            ..Reductions::ALL
        },
        ..CheckConfig::default()
    }
}

/// (states stored with symmetry, states of the full graph, symmetry's
/// description); panics if a stored representative is not a real state.
fn representatives_are_real(
    spec: &api::SpecSource,
    blocks: u32,
    model: &str,
) -> (usize, usize, String) {
    let prepared = api::prepare(spec, &config(blocks, model, true)).unwrap();
    let full = api::model_of(&prepared);
    let symmetry = Reductions {
        symmetry: true,
        ..Reductions::NONE
    };
    let (sym, why) = Reduced::new(&full, symmetry);
    let found = sym.symmetry().unwrap_or_else(|| panic!("{why:?}")).found();
    let described = gsync_check::format::reductions::classes(&found);
    let opts = Options::default();
    let all = explore(&full, &opts);
    let reduced = explore(&sym, &opts);
    assert!(all.is_complete() && reduced.is_complete());
    let real: FxHashSet<&[u32]> = (0..all.num_states() as u32)
        .map(|id| all.state(id))
        .collect();
    for id in 0..reduced.num_states() as u32 {
        assert!(
            real.contains(reduced.state(id)),
            "{} --blocks {blocks} --memory-model {model}: representative {id} is not reachable",
            spec.name
        );
    }
    (reduced.num_states(), all.num_states(), described)
}

#[test]
fn sm_representatives_are_real_states_under_sc_and_ptx() {
    let path = common::write_temp_spec("first_arrival", &first_arrival("__threadfence();"));
    let spec = api::SpecSource::from_file(&path).unwrap();
    for (blocks, model) in [(4, "sc"), (5, "sc"), (6, "sc"), (4, "ptx")] {
        let (reduced, full, described) = representatives_are_real(&spec, blocks, model);
        assert!(
            described.contains("interchangeable SMs of 2 blocks"),
            "{described}"
        );
        // Two SMs of two blocks at least: 2! * 2! * 2! = 8 renamings.
        assert!(reduced * 4 < full, "{blocks} {model}: {reduced} of {full}");
    }
}

#[test]
fn barrier_representatives_are_real_states() {
    // Per-SM counters `perSMBarr[2 * my_sm + k]`, a static leader per SM
    // (rank 0), per-block words: SMs {0,1} and {2,3} interchangeable.
    for name in ["heterosync_tree_barrier", "tree_barrier_single"] {
        let spec = api::SpecSource::builtin(name).unwrap();
        let (reduced, full, described) = representatives_are_real(&spec, 4, "sc");
        assert!(
            described.contains("interchangeable SMs of 2 blocks {0,1}"),
            "{name}: {described}"
        );
        assert!(reduced < full, "{name}");
    }
    // Ring neighbours (`data[(blockIdx + 1) % nblocks]`): rotations only.
    for name in ["sense_barrier_central", "two_kernel_barrier"] {
        let spec = api::SpecSource::builtin(name).unwrap();
        let (reduced, full, described) = representatives_are_real(&spec, 4, "sc");
        assert_eq!(described, "blocks {0,1,2,3} rotated as a ring", "{name}");
        assert!(reduced * 2 < full, "{name}: {reduced} of {full}");
    }
}

#[test]
fn sm_symmetry_keeps_the_ptx_verdict_and_its_counterexample_replays() {
    let path = common::write_temp_spec("first_arrival_racy", &first_arrival(""));
    let spec = api::SpecSource::from_file(&path).unwrap();
    for blocks in [4, 6] {
        let full = api::check_spec(&spec, &config(blocks, "ptx", false)).unwrap();
        let reduced = api::check_spec(&spec, &config(blocks, "ptx", true)).unwrap();
        assert_eq!(full.verdict, reduced.verdict);
        assert!(
            !reduced.violations.is_empty(),
            "stale data is visible under ptx"
        );
        assert!(reduced.stats.states < full.stats.states);
        for v in &reduced.violations {
            let saved = gsync_check::report::SavedCounterexample::new(&reduced, v, &spec.text);
            let prepared = api::prepare(&spec, &api::config_of(&reduced.config)).unwrap();
            let outcome = gsync_check::trace::replay(&api::model_of(&prepared), &saved, &spec.text);
            assert!(
                matches!(
                    outcome,
                    gsync_check::trace::ReplayOutcome::Reproduced { .. }
                ),
                "{outcome:?}"
            );
        }
    }
}

#[test]
fn ring_representatives_are_real_states() {
    // Each block publishes, then records whether its ring neighbour had
    // published: sorting the blocks (any permutation, not a rotation)
    // would pair records with the wrong neighbours.
    let text = "global u32 data[nblocks] = 0;\n\
                global u32 seen[nblocks] = 0;\n\
                harness master {\n\
                    data[blockIdx] = 1;\n\
                    seen[blockIdx] = data[(blockIdx + 1) % nblocks] + 1;\n\
                }\n";
    let path = common::write_temp_spec("ring_publish", text);
    let spec = api::SpecSource::from_file(&path).unwrap();
    for blocks in [4, 5] {
        let (reduced, full, described) = representatives_are_real(&spec, blocks, "sc");
        assert!(described.ends_with("rotated as a ring"), "{described}");
        assert!(reduced * 3 < full, "{reduced} of {full}");
    }
}

/// Found by the fuzzer (tests/fuzz): a deadlock found among
/// representatives was refined (is it a SIMD, alias or divergence
/// deadlock?) by replaying its schedule of representatives' threads as if
/// they were real ones, which moved a finished thread (an index out of
/// bounds, a panic). The lock below breaks (a block that finds it taken
/// stores 0xFFFFFFFF), so the harness can deadlock.
#[test]
fn a_deadlock_among_representatives_is_refined_on_the_real_run() {
    let text = "param size = 2;\nglobal volatile u32 sem = size + 1;\n\
        fn sem_wait() { while (true) { u32 v = atomicExch(sem, 0);\n\
          if (v == 0) { sem = v - 1; }\n\
          if (v == 1) { sem = 1; continue; }\n\
          sem = v - 1; break; } }\n\
        fn sem_post() { while (true) { u32 v = atomicExch(sem, 0);\n\
          if (v != 0) { sem = v + 1; break; } } }\n\
        harness master { sem_wait(); sem_post(); }\n";
    let spec = api::SpecSource {
        name: "broken_lock".into(),
        origin: "broken_lock.gsync".into(),
        text: text.into(),
    };
    for symmetry in [true, false] {
        let report = api::check_spec(&spec, &config(2, "sc", symmetry)).unwrap();
        assert_eq!(report.verdict.name(), "violated", "symmetry {symmetry}");
        assert_eq!(
            report.violations[0].kind.name(),
            "deadlock",
            "symmetry {symmetry}"
        );
    }
}

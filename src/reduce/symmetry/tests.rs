//! Which blocks the inference finds interchangeable, and canonical states.

use super::{Asymmetry, Symmetry};
use crate::api::Semantics;
use crate::diag::Source;
use crate::explore::{explore, Options, TransitionSystem};
use crate::ir::{Launch, Program};
use crate::model::{MemoryModel, Model, ModelOptions};
use crate::reduce::{Reduced, Reductions};
use crate::spec::lower;

/// The options of these tests: sequential consistency.
fn sc() -> ModelOptions {
    ModelOptions {
        memory_model: MemoryModel::Sc,
        ..ModelOptions::default()
    }
}

/// `model` with symmetry reduction, which must apply.
fn symmetric<'m, 'p>(model: &'m Model<'p>) -> Reduced<'m, 'p> {
    let symmetry = Reductions {
        symmetry: true,
        ..Reductions::NONE
    };
    let (reduced, why) = Reduced::new(model, symmetry);
    assert!(reduced.symmetry().is_some(), "{why:?}");
    reduced
}

fn program(text: &str, blocks: u32) -> Program {
    let source = Source::new("t.gsync", text);
    let file = crate::spec::parse(&source).unwrap_or_else(|d| panic!("parse: {}", d.message));
    let launch = Launch {
        blocks,
        ..Launch::default()
    };
    lower(&file, &source, launch, &[]).unwrap_or_else(|d| panic!("lower: {}", d.message))
}

fn classes(text: &str, blocks: u32) -> Result<Vec<Vec<u32>>, Asymmetry> {
    let prog = program(text, blocks);
    let model = Model::new(&prog, sc());
    Symmetry::infer(&prog, &model.threads.layout, None).map(|s| s.classes().1.to_vec())
}

const LOCK: &str = "global u32 lock = 0;\nglobal u32 owner = 99;\n";

#[test]
fn ids_used_as_names_keep_all_blocks_interchangeable() {
    let text = format!(
        "{LOCK}harness master {{ while (atomicCAS(lock, 0, 1) != 0) {{ }} owner = blockIdx; \
         critical {{ }} assert(owner == blockIdx, \"owner\"); atomicExch(lock, 0); }}"
    );
    assert_eq!(classes(&text, 4), Ok(vec![vec![0, 1, 2, 3]]));
}

#[test]
fn a_block_compared_with_a_constant_stays_apart() {
    let text =
        "global u32 x = 0;\nharness master { bool writer = blockIdx == 1; if (writer) { x = 1; } }";
    assert_eq!(classes(text, 4), Ok(vec![vec![0, 2, 3]]));
    // An id written as a constant names a block too.
    let text = format!("{LOCK}harness master {{ owner = blockIdx; owner = 2; }}");
    assert_eq!(classes(&text, 4), Ok(vec![vec![0, 1, 3]]));
    // An initial value read as an id does not: it is data, renamed with
    // the blocks (owner starts as block 0, and as block 2 in the renamed
    // initial state, whose graph is isomorphic).
    let text =
        "global u32 owner = 0;\nharness master { if (owner == blockIdx) { owner = blockIdx; } }";
    assert_eq!(classes(text, 3), Ok(vec![vec![0, 1, 2]]));
}

#[test]
fn arithmetic_on_ids_turns_symmetry_off() {
    for body in [
        "x = blockIdx * 2;",
        "if (blockIdx < 2) { x = 1; }",
        "flags[blockIdx + 1] = 1;",
        "flags[blockIdx] = 1; flags[x] = 2;",
        "x = blockIdx; x = x + 0; atomicAdd(x, 1);",
        "if (blockIdx) { x = 1; }",
    ] {
        let text =
            format!("global u32 x = 0;\nglobal u32 flags[4] = 0;\nharness master {{ {body} }}");
        assert!(classes(&text, 4).is_err(), "{body}");
    }
}

#[test]
fn representatives_are_fixed_points_and_rename_ids() {
    let text = format!(
        "{LOCK}harness master {{ while (atomicCAS(lock, 0, 1) != 0) {{ }} owner = blockIdx + 1; \
         critical {{ }} atomicExch(lock, 0); }}"
    );
    let prog = program(&text, 3);
    let plain = Model::new(&prog, sc());
    let model = symmetric(&plain);
    let reduced = explore(&model, &Options::default());
    let full = explore(&Model::new(&prog, sc()), &Options::default());
    assert!(reduced.num_states() < full.num_states());
    // Every stored state is its own representative. (Representatives need
    // not be unique per class: that costs states, never soundness.)
    let mut s = vec![0u32; model.state_words()];
    for id in 0..reduced.num_states() as u32 {
        s.copy_from_slice(reduced.state(id));
        model.canonicalize(&mut s);
        assert_eq!(s, reduced.state(id));
    }
    let owner = plain.threads.layout.var_base[1];
    let mut renamed = false;
    for id in 0..full.num_states() as u32 {
        s.copy_from_slice(full.state(id));
        model.canonicalize(&mut s);
        // `owner` holds block + 1: renamed along with the blocks.
        renamed |= s[owner] != full.state(id)[owner];
    }
    assert!(renamed);
}

#[test]
fn block_indexed_arrays_keep_blocks_interchangeable() {
    for body in [
        "flags[blockIdx] = 1; assert(flags[blockIdx] == 1, \"own\");",
        "for (u32 i = 0; i < 2; i++) { flags[(i % 2) * 4 + blockIdx] = i; }",
        "flags[blockIdx + 4] = 1;",
    ] {
        let text = format!("global u32 flags[8] = 0;\nharness master {{ {body} }}");
        assert_eq!(classes(&text, 4), Ok(vec![vec![0, 1, 2, 3]]), "{body}");
    }
    // An index that may reach the neighbour's word is not described.
    let text = "global u32 flags[8] = 0;\nlocal u32 k = 0;\n\
                harness master { k = 1; flags[2 * blockIdx + k + 1] = 1; }";
    assert!(classes(text, 4).is_err());
}

const SMS: &str = "param blocks_per_sm = 2;\n\
    global u32 count[(nblocks + 1) / 2 * 2] = 0;\n\
    global u32 leader[(nblocks + 1) / 2] = 9;\n\
    local u32 my_sm = blockIdx / blocks_per_sm;\n";

/// Classes of blocks (or SMs), each a sorted list.
type Classes = Vec<Vec<u32>>;

/// Classes (within SMs, of SMs) for an SM-structured program.
fn sm_classes(body: &str, blocks: u32) -> Result<(Classes, Classes), Asymmetry> {
    let text = format!("{SMS}harness master {{ {body} }}");
    let prog = program(&text, blocks);
    let model = Model::new(&prog, sc());
    Symmetry::infer(&prog, &model.threads.layout, None).map(|s| {
        let (ranks, sms) = s.classes();
        (ranks.to_vec(), sms.to_vec())
    })
}

#[test]
fn sms_and_their_blocks_are_interchangeable() {
    let body = "atomicAdd(count[2 * my_sm], 1); atomicAdd(count[2 * my_sm + 1], 1); \
                leader[my_sm] = blockIdx; \
                if (leader[my_sm] == blockIdx) { atomicAdd(count[2 * my_sm], 1); }";
    // Blocks 0-5 in SMs {0,1} {2,3} {4,5}; block 6 alone in a partial SM.
    assert_eq!(
        sm_classes(body, 7),
        Ok((
            vec![vec![0, 1], vec![2, 3], vec![4, 5]],
            vec![vec![0, 1, 2]]
        ))
    );
    // A static leader (rank 0) stays the leader of its SM; SM 0 compared
    // with a constant stays put.
    let body = "if (blockIdx % blocks_per_sm == 0) { atomicAdd(count[2 * my_sm], 1); } \
                if (my_sm == 0) { atomicAdd(count[1], 0); }";
    assert!(sm_classes(body, 6).is_err(), "count[1] is SM 0's word");
    let body = "if (blockIdx % blocks_per_sm == 0) { atomicAdd(count[2 * my_sm], 1); } \
                if (my_sm == 0) { atomicAdd(count[2 * my_sm + 1], 1); }";
    assert_eq!(sm_classes(body, 6), Ok((vec![], vec![vec![1, 2]])));
}

/// Explores `text` with and without symmetry; every stored state must be
/// its own representative, and the reduced graph must be smaller.
fn reduced_and_full(text: &str, blocks: u32) -> (Reduced<'static, 'static>, usize, usize) {
    let prog: &'static Program = Box::leak(Box::new(program(text, blocks)));
    let model = symmetric(Box::leak(Box::new(Model::new(prog, sc()))));
    let reduced = explore(&model, &Options::default());
    let full = explore(&Model::new(prog, sc()), &Options::default());
    let mut s = vec![0u32; model.state_words()];
    for id in 0..reduced.num_states() as u32 {
        s.copy_from_slice(reduced.state(id));
        model.canonicalize(&mut s);
        assert_eq!(s, reduced.state(id));
    }
    (model, reduced.num_states(), full.num_states())
}

#[test]
fn an_sms_words_move_with_its_blocks() {
    // Each SM counts its arrivals in its own word and elects the last
    // arriver; a block checks that its SM's word, not another's, counted it.
    let text = format!(
        "{SMS}harness master {{ u32 here = atomicAdd(count[2 * my_sm], 1); \
         if (here == 1) {{ leader[my_sm] = blockIdx; }} \
         assert(count[2 * my_sm] >= 1, \"own SM counted\"); \
         if (leader[my_sm] == blockIdx) {{ atomicAdd(count[2 * my_sm + 1], 1); }} }}"
    );
    let (model, reduced, full) = reduced_and_full(&text, 4);
    assert!(reduced * 4 <= full, "{reduced} of {full}");
    // Swapping SM 0's blocks with SM 1's moves count[0..2] to count[2..4]
    // and renames the leaders: a state where only SM 0 counted maps to
    // one where only SM 1 did, so both have one representative.
    let layout = &model.model().threads.layout;
    let count = layout.var_base[0];
    let leader = layout.var_base[1];
    let mut a = vec![0u32; model.state_words()];
    layout.initial(model.model().prog, &mut a);
    let mut b = a.clone();
    a[count] = 1;
    a[leader] = 1;
    b[count + 2] = 1;
    b[leader + 1] = 3;
    model.canonicalize(&mut a);
    model.canonicalize(&mut b);
    assert_eq!(a, b);
}

#[test]
fn ring_neighbours_allow_rotations_only() {
    let prog = program(
        "global u32 flags[4] = 0;\nharness master { flags[blockIdx] = 1; \
         assert(flags[(blockIdx + 1) % nblocks] <= 1, \"neighbour\"); }",
        4,
    );
    let model = Model::new(&prog, sc());
    let sym = Symmetry::infer(&prog, &model.threads.layout, None).unwrap();
    assert_eq!(
        crate::format::reductions::classes(&sym.found()),
        "blocks {0,1,2,3} rotated as a ring"
    );
    // Blocks 1 and 3 have written their flags: rotating block 1 to block 0
    // gives the smallest sequence of blocks... and moves the flags with them.
    let mut s = vec![0u32; model.state_words()];
    model.threads.layout.initial(&prog, &mut s);
    let flags = model.threads.layout.var_base[0];
    let mut a = s.clone();
    a[flags + 1] = 1;
    a[flags + 3] = 1;
    let mut b = s.clone();
    b[flags] = 1;
    b[flags + 2] = 1;
    sym.canonicalize(&mut a);
    sym.canonicalize(&mut b);
    assert_eq!(a, b, "a rotation by one block");
    // Blocks 0 and 1 differ from blocks 0 and 2 by no rotation.
    let mut c = s.clone();
    c[flags] = 1;
    c[flags + 1] = 1;
    sym.canonicalize(&mut c);
    assert_ne!(a, c);
    // A ring with a block singled out has no rotation left.
    let text =
        "global u32 flags[4] = 0;\nharness master { if (blockIdx == 0) { flags[blockIdx] = 1; } \
                assert(flags[(blockIdx + 1) % nblocks] <= 1, \"neighbour\"); }";
    assert!(classes(text, 4).is_err());
}

/// The built-in spec `name` prepared for `blocks` blocks under `sc`.
fn builtin_under_sc(name: &str, blocks: u32) -> crate::api::Prepared {
    let spec = crate::api::SpecSource::builtin(name).unwrap();
    let config = crate::api::CheckConfig {
        launch: Launch {
            blocks,
            ..Launch::default()
        },
        semantics: Semantics {
            memory_model: Some(MemoryModel::Sc),
            ..Semantics::default()
        },
        ..crate::api::CheckConfig::default()
    };
    crate::api::prepare(&spec, &config).unwrap()
}

/// How far the canonical form is from exact: every state the symmetric
/// search stores for `sense_reversing_barrier_fixed --blocks 5` is mapped
/// to the least image under all 8 renamings of the group (SMs 0 and 1
/// swapped or not, each SM's two blocks swapped or not).
#[test]
#[ignore = "a measurement (seconds): cargo test --release -- --ignored canonical_form"]
fn canonical_form_exactness_on_the_sense_reversing_barrier() {
    let prepared = builtin_under_sc("sense_reversing_barrier_fixed", 5);
    let plain = crate::api::model_of(&prepared);
    let model = symmetric(&plain);
    let reduced = explore(&model, &Options::default());
    let sym = model.symmetry().unwrap();
    assert_eq!(
        sym.classes(),
        (&[vec![0, 1], vec![2, 3]][..], &[vec![0, 1]][..])
    );
    let (mut copy, mut moves, mut entries) = (Vec::new(), Vec::new(), Vec::new());
    let mut exact = std::collections::HashSet::new();
    for id in 0..reduced.num_states() as u32 {
        let mut least: Option<Vec<u32>> = None;
        for bits in 0..8u32 {
            let swap_sms = bits & 1 != 0;
            let within = |m: u32| bits >> (1 + m) & 1 != 0;
            let mut perm = vec![0u32; 5];
            for b in 0..5u32 {
                let (m, r) = (b / 2, b % 2);
                perm[b as usize] = if m == 2 {
                    b
                } else {
                    let r = if within(m) { 1 - r } else { r };
                    let m = if swap_sms { 1 - m } else { m };
                    m * 2 + r
                };
            }
            let sm_perm = if swap_sms {
                vec![1, 0, 2]
            } else {
                vec![0, 1, 2]
            };
            let mut s = reduced.state(id).to_vec();
            sym.apply(&mut s, &perm, &sm_perm, &mut copy, &mut moves, &mut entries);
            if least.as_ref().is_none_or(|l| s < *l) {
                least = Some(s);
            }
        }
        exact.insert(least.unwrap());
    }
    println!(
        "stored {} representatives of {} orbits",
        reduced.num_states(),
        exact.len()
    );
    // Measured: 204 752 stored for 204 416 orbits (0.2 % more).
    assert!(exact.len() <= reduced.num_states());
    assert!(reduced.num_states() * 100 <= exact.len() * 101);
}

/// Nanoseconds per canonicalization of the successors the search makes
/// (ample steps from every stored state of `name`): the best of five
/// passes over at most 400 000 of them, so that one-core timings of the
/// symmetry code can be compared without the rest of the search.
fn canonicalization_ns(name: &str, blocks: u32) -> f64 {
    let prepared = builtin_under_sc(name, blocks);
    let plain = crate::api::model_of(&prepared);
    let model = symmetric(&plain);
    let reduced = explore(&model, &Options::default());
    let words = model.state_words();
    let (mut succ, mut actions) = (Vec::new(), Vec::new());
    let mut next = vec![0u32; words];
    'states: for id in 0..reduced.num_states() as u32 {
        actions.clear();
        model.ample_actions(reduced.state(id), &mut actions);
        for a in &actions {
            if model.step(reduced.state(id), *a, &mut next).is_ok() {
                succ.extend_from_slice(&next);
            }
            if succ.len() >= 400_000 * words {
                break 'states;
            }
        }
    }
    let mut best = f64::INFINITY;
    let mut work = succ.clone();
    for _ in 0..5 {
        work.copy_from_slice(&succ);
        let start = std::time::Instant::now();
        for s in work.chunks_exact_mut(words) {
            model.canonicalize(s);
        }
        let ns = start.elapsed().as_nanos() as f64 / (succ.len() / words) as f64;
        best = best.min(ns);
    }
    best
}

#[test]
#[ignore = "a measurement (ns): cargo test --release -- --ignored canonicalization_cost --nocapture"]
fn canonicalization_cost() {
    for (name, blocks) in [
        ("priority_semaphore", 11),
        ("sense_reversing_barrier_fixed", 6),
    ] {
        let ns = canonicalization_ns(name, blocks);
        println!("{name} --blocks {blocks} sc: {ns:.1} ns per canonicalization");
        assert!(ns > 0.0);
    }
}

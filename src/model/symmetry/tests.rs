//! Which blocks the inference finds interchangeable, and canonical states.

use super::Symmetry;
use crate::explore::{explore, Options, TransitionSystem};
use crate::ir::{lower, Launch, Program};
use crate::model::{Model, ModelOptions};
use crate::spec::diag::Source;

fn program(text: &str, blocks: u32) -> Program {
    let source = Source::new("t.gsync", text);
    let file = crate::spec::parse(&source).unwrap_or_else(|d| panic!("parse: {}", d.message));
    let launch = Launch {
        blocks,
        ..Launch::default()
    };
    lower(&file, &source, launch, &[]).unwrap_or_else(|d| panic!("lower: {}", d.message))
}

fn classes(text: &str, blocks: u32) -> Result<Vec<Vec<u32>>, String> {
    let prog = program(text, blocks);
    let model = Model::new(&prog, ModelOptions::default());
    Symmetry::infer(&prog, &model.layout, None).map(|s| s.classes().to_vec())
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
    // So does an initial value read as an id (owner starts as block 0).
    let text =
        "global u32 owner = 0;\nharness master { if (owner == blockIdx) { owner = blockIdx; } }";
    assert_eq!(classes(text, 3), Ok(vec![vec![1, 2]]));
}

#[test]
fn arithmetic_on_ids_turns_symmetry_off() {
    for body in [
        "x = blockIdx * 2;",
        "if (blockIdx < 2) { x = 1; }",
        "flags[blockIdx] = 1;",
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
    let mut model = Model::new(&prog, ModelOptions::default());
    model.enable_symmetry().unwrap();
    let reduced = explore(&model, &Options::default());
    let full = explore(
        &Model::new(&prog, ModelOptions::default()),
        &Options::default(),
    );
    assert!(reduced.num_states() < full.num_states());
    // Every stored state is its own representative. (Representatives need
    // not be unique per class: that costs states, never soundness.)
    let mut s = vec![0u32; model.state_words()];
    for id in 0..reduced.num_states() as u32 {
        s.copy_from_slice(reduced.state(id));
        model.canonicalize(&mut s);
        assert_eq!(s, reduced.state(id));
    }
    let owner = model.layout.var_base[1];
    let mut renamed = false;
    for id in 0..full.num_states() as u32 {
        s.copy_from_slice(full.state(id));
        model.canonicalize(&mut s);
        // `owner` holds block + 1: renamed along with the blocks.
        renamed |= s[owner] != full.state(id)[owner];
    }
    assert!(renamed);
}

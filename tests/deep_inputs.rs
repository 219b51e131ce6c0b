//! Deep inputs (issue 17, item 2): every pass after the parser recurses over
//! expression trees, blocks and inlined calls, so the front ends bound them
//! (expression height, nesting, call depth, litmus condition height) with
//! located errors. The reproducers that overflowed the stack get exit 2 and
//! a location; inputs right at the bounds go through every pass (parse,
//! constants, lowering, exploration, CUDA emission) on a test thread's
//! default stack (2 MiB).

mod common;

use common::*;
use gsync_check::api::Semantics;
use gsync_check::api::{self, CheckConfig, SpecSource};
use gsync_check::cuda::EmitOptions;
use gsync_check::diag::Source;
use gsync_check::gpu;
use gsync_check::ir::Launch;
use gsync_check::litmus::{self, LitmusConfig};
use gsync_check::model::MemoryModel;

fn chain(term: &str, op: &str, n: usize) -> String {
    vec![term; n].join(op)
}

/// Runs `args` on `name.gsync` holding `text`: exit 2, and stderr names
/// `file:line:col` and `message`.
fn assert_located(name: &str, text: &str, args: &[&str], at: &str, message: &str) {
    let path = write_temp_spec(name, text);
    let mut all = args.to_vec();
    all.push(path.to_str().unwrap());
    let out = run(&all);
    let err = stderr(&out);
    assert_eq!(code(&out), 2, "{all:?}: {err}");
    assert!(err.contains(message), "{all:?}: `{message}` not in {err}");
    assert!(
        err.contains(&format!("{name}.gsync:{at}")),
        "{all:?}: `{at}` not in {err}"
    );
}

#[test]
fn a_15000_term_sum_is_refused_with_its_location() {
    let text = format!(
        "global u32 x = 0;\nharness master {{\n  x = {};\n}}\n",
        chain("x", "+", 15_000)
    );
    // The 256th `+` makes the tree 257 high: column 7 + 2 * 255 + 1.
    for command in ["check", "emit"] {
        assert_located(
            "sum_chain",
            &text,
            &[command],
            "3:518",
            "expression nests deeper than 256 levels",
        );
    }
}

#[test]
fn a_20000_term_conjunction_is_refused_with_its_location() {
    let text = format!(
        "global u32 x = 0;\nharness master {{\n  u32 a = 1;\n  if ({}) {{ x = 1; }}\n}}\n",
        chain("a", "&&", 20_000)
    );
    assert_located(
        "and_chain",
        &text,
        &["check"],
        "4:773",
        "expression nests deeper than 256 levels",
    );
}

#[test]
fn a_5000_call_chain_is_refused_at_the_65th_call() {
    let mut text = String::from("global u32 x = 0;\n");
    for i in 0..5000 {
        text += &format!("fn f{i}() {{ f{}(); }}\n", i + 1);
    }
    text += "fn f5000() { atomicAdd(x, 1); }\nharness master {\n  f0();\n}\n";
    for command in ["check", "emit"] {
        assert_located(
            "call_chain",
            &text,
            &[command],
            "65:12",
            "calls nest deeper than 64 levels",
        );
    }
}

#[test]
fn calls_doubling_the_code_at_each_level_are_refused() {
    let mut text = String::from("global u32 x = 0;\n");
    for i in 0..30 {
        text += &format!("fn f{i}() {{ f{0}(); f{0}(); }}\n", i + 1);
    }
    text += "fn f30() { atomicAdd(x, 1); }\nharness master {\n  f0();\n}\n";
    let path = write_temp_spec("doubling", &text);
    let out = run(&["check", path.to_str().unwrap()]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("inlining makes the program longer than 65536 instructions"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn nesting_summed_over_inlined_calls_is_bounded() {
    // 20 procedures, each nesting its call 97 blocks deep: every bound of
    // the parser holds, the sum over the inlined bodies does not.
    let mut text = String::from("global u32 x = 0;\n");
    for i in 0..20 {
        let call = match i {
            19 => "atomicAdd(x, 1);".to_string(),
            _ => format!("f{}();", i + 1),
        };
        text += &format!("fn f{i}() {{{}{call}{}}}\n", "{".repeat(97), "}".repeat(97));
    }
    text += "harness master {\n  f0();\n}\n";
    let path = write_temp_spec("nested_calls", &text);
    let out = run(&["check", path.to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(code(&out), 2, "{err}");
    assert!(
        err.contains("blocks, expressions and inlined calls nest deeper than 1024 levels"),
        "{err}"
    );
    assert!(err.contains("nested_calls.gsync:12:"), "{err}");
}

const LITMUS_HEAD: &str = "PTX deep\n{ x=0; P0:r0=0; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\n";

fn assert_litmus_located(name: &str, condition: &str, at: &str, message: &str) {
    let path = write_temp_spec(name, &format!("{LITMUS_HEAD}exists ({condition})\n"));
    let out = run(&["litmus", path.to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(code(&out), 2, "{err}");
    assert!(err.contains(message), "`{message}` not in {err}");
    assert!(err.contains(&format!("{name}.gsync:{at}")), "{err}");
}

#[test]
fn litmus_conditions_nested_10000_deep_or_50000_long_are_refused() {
    let cmp = "P0:r0 == 0";
    assert_litmus_located(
        "parens",
        &format!("{}{cmp}{}", "(".repeat(10_000), ")".repeat(10_000)),
        "5:109",
        "the final condition nests deeper than 100 parentheses or `~`",
    );
    assert_litmus_located(
        "conjunction",
        &chain(cmp, " /\\ ", 50_000),
        "5:3590",
        "the final condition nests deeper than 256 levels",
    );
    assert_litmus_located(
        "negations",
        &format!("{}{cmp}", "~".repeat(10_000)),
        "5:109",
        "the final condition nests deeper than 100 parentheses or `~`",
    );
}

/// A spec at every bound at once: a parameter, an array size and initial
/// values 256 high, 64 procedures inlined one inside the next, the last
/// with blocks nested to the parser's limit around a 256-high expression
/// over locals (kept by the lowering, so the model evaluates it and the
/// CUDA backend emits it), and an invariant 256 high.
fn spec_at_the_bounds() -> String {
    let sum = |term: &str| chain(term, " + ", 256);
    let mut text = format!(
        "param p = {};\nglobal u32 x = 0;\nshared u32 a[{}] = {};\nlocal u32 l = {};\n",
        chain("1", " + ", 256),
        chain("1", " * ", 256),
        sum("nblocks"),
        sum("threadIdx"),
    );
    for i in 0..63 {
        text += &format!("fn f{i}() {{ f{}(); }}\n", i + 1);
    }
    text += &format!(
        "fn f63() {{\n  u32 y = l;\n  {}x = {};{}\n}}\n",
        "{".repeat(95),
        sum("y"),
        "}".repeat(95)
    );
    text += &format!(
        "harness master {{\n  check invariant({} < 1000);\n  f0();\n}}\n",
        chain("x", " + ", 254)
    );
    text
}

#[test]
fn a_spec_at_every_bound_goes_through_every_pass() {
    let spec = SpecSource {
        name: "at_the_bounds".into(),
        origin: "at_the_bounds.gsync".into(),
        text: spec_at_the_bounds(),
    };
    let config = CheckConfig {
        semantics: Semantics {
            memory_model: Some(MemoryModel::Sc),
            ..Semantics::default()
        },
        ..CheckConfig::default()
    };
    let report = api::check_spec(&spec, &config).unwrap_or_else(|e| panic!("{e}"));
    // Each block adds 256 * (0 + 0) = 0: x stays 0, the invariant holds.
    assert_eq!(report.verdict.name(), "verified", "{report:?}");
    let launch = Launch {
        blocks: 4,
        threads_per_block: 32,
        warp_size: 32,
    };
    let gpu = gpu::lower_for_gpu(&spec, launch, &[]).unwrap_or_else(|e| panic!("{e}"));
    let emitted = gpu::generate(&gpu, &EmitOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    assert!(emitted.source.contains("y + y"), "the long sum is emitted");
}

#[test]
fn a_litmus_condition_at_the_bounds_is_checked() {
    let cmp = "P0:r0 == 0";
    let long = chain(cmp, " /\\ ", 256);
    let text = format!(
        "{LITMUS_HEAD}exists ({}{long}{})\n",
        "(".repeat(98),
        ")".repeat(98)
    );
    let checked = litmus::check_source(
        &Source::new("bounds.litmus", text),
        &LitmusConfig::default(),
    )
    .unwrap_or_else(|e| panic!("{}", e.render(false)));
    assert!(checked.holds, "r0 reads the initial 0");
}

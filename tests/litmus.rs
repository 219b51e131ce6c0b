//! The litmus front end: hand-written tests with known SC outcomes, located
//! parse errors, the directory runner's summary line (the PTX corpus in
//! `shared/litmus/PTX` is run by `litmus_corpus.rs`).

mod common;

use common::*;
use gsync_check::diag::Source;
use gsync_check::litmus::{self, parse, Agreement, LitmusConfig};
use gsync_check::model::MemoryModel;
use std::path::PathBuf;

fn hand(name: &str) -> PathBuf {
    repo().join("tests/litmus").join(name)
}

fn check(name: &str) -> litmus::Checked {
    litmus::check_file(&hand(name), &sc()).unwrap_or_else(|f| panic!("{name}: {}", f.reason()))
}

#[test]
fn weak_outcomes_of_mp_sb_lb_are_unreachable_under_sc() {
    for name in ["MP.litmus", "SB.litmus", "LB.litmus"] {
        let c = check(name);
        assert!(!c.holds, "{name}: SC reaches the weak outcome");
        // Exactly the three interleaving outcomes.
        assert_eq!(c.outcomes.len(), 3, "{name}: {:?}", c.outcomes);
    }
}

#[test]
fn corr_holds_and_spin_loops_barriers_atomics_work() {
    assert!(check("CoRR.litmus").holds);
    let spin = check("Spin.litmus");
    assert!(spin.holds);
    // P2 only finishes when it reads the flag P0 set to its counter value 1.
    assert_eq!(spin.outcomes, vec!["P0:r0=1; P1:r0=0; P2:r1=1; c=2"]);
}

#[test]
fn agreement_follows_the_quantifier() {
    use parse::Quantifier::*;
    assert_eq!(litmus::agreement(Exists, false, true), Agreement::Unsound);
    assert_eq!(
        litmus::agreement(Exists, true, false),
        Agreement::OverApproximate
    );
    assert_eq!(
        litmus::agreement(NotExists, true, false),
        Agreement::Unsound
    );
    assert_eq!(
        litmus::agreement(NotExists, false, true),
        Agreement::OverApproximate
    );
    assert_eq!(litmus::agreement(Forall, true, false), Agreement::Unsound);
    assert_eq!(litmus::agreement(Forall, true, true), Agreement::Same);
}

#[test]
fn parse_errors_are_located() {
    let text = "PTX bad\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1+ ;\nexists (x == 1)\n";
    let d = parse::parse(text).unwrap_err();
    let source = Source::new("bad.litmus", text);
    assert_eq!(d.location(&source), "bad.litmus:4:13");
    let text = "PTX bad\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1 /\\ )\n";
    let d = parse::parse(text).unwrap_err();
    assert!(
        d.location(&Source::new("b", text)).starts_with("b:5:"),
        "{d:?}"
    );
    assert!(parse::parse("X86 t\n{}\n").is_err());
}

/// Inputs the fuzzer (tests/fuzz) found: an operand left out between
/// commas sliced the text backwards, and a character of several bytes in
/// the condition was sliced through (panics); numbers past i64 or u32
/// wrapped instead of being refused.
#[test]
fn fuzz_found_inputs_are_refused_with_a_location() {
    let condition = "exists (x == 1)";
    // (initial state, placement, code, condition, message, line).
    let refused = [
        (
            "x=0;",
            "cta 0,gpu 0",
            "ld.weak , x",
            condition,
            "missing operand",
            4,
        ),
        (
            "x=0;",
            "cta 0,gpu 0",
            "st.weak x,  ",
            condition,
            "missing operand",
            4,
        ),
        (
            "x=0;",
            "cta 0,gpu 0",
            "st.weak x,,1",
            condition,
            "missing operand",
            4,
        ),
        (
            "x=--5;",
            "cta 0,gpu 0",
            "st.weak x, 1",
            condition,
            "expected an integer initial value",
            2,
        ),
        (
            "x=0x-5;",
            "cta 0,gpu 0",
            "st.weak x, 1",
            condition,
            "expected an integer initial value",
            2,
        ),
        (
            "x=9223372036854775808;",
            "cta 0,gpu 0",
            "st.weak x, 1",
            condition,
            "expected an integer initial value",
            2,
        ),
        (
            "x=-0x8000000000000001;",
            "cta 0,gpu 0",
            "st.weak x, 1",
            condition,
            "expected an integer initial value",
            2,
        ),
        (
            "x=0;",
            "cta 4294967296,gpu 0",
            "st.weak x, 1",
            condition,
            "cannot read the placement `cta 4294967296`",
            3,
        ),
        // A character of two bytes in the condition was cut in half.
        (
            "x=0;",
            "cta 0,gpu 0",
            "st.weak x, 1",
            "exists (x = 1ں9)",
            "unexpected `ں` in the final condition",
            5,
        ),
    ];
    for (init, place, row, condition, message, line) in refused {
        let text = format!("PTX t\n{{ {init} }}\n P0@{place} ;\n {row} ;\n{condition}\n");
        let d = parse::parse(&text).unwrap_err();
        assert_eq!(d.message, message, "{text}");
        let at = d.location(&Source::new("t", text.as_str()));
        assert!(at.starts_with(&format!("t:{line}:")), "{text}: {at}");
    }
    // The extremes of i64 are values.
    for init in [
        "x=-9223372036854775808;",
        "x=-0x8000000000000000;",
        "x=0x7fffffffffffffff;",
    ] {
        let text =
            format!("PTX t\n{{ {init} }}\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\n{condition}\n");
        parse::parse(&text).unwrap();
    }
}

#[test]
fn single_file_cli() {
    let out = run(&["litmus", "tests/litmus/MP.litmus", "--memory-model", "sc"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("condition (exists): fails"),
        "{}",
        stdout(&out)
    );
    let out = run(&["litmus", "tests/litmus/NamedReg.litmus"]);
    assert_eq!(code(&out), 3);
    assert!(
        stderr(&out).contains("NamedReg.litmus:6:2"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn directory_run_prints_the_summary_last() {
    // The hand-written tests against their expected outcomes, under sc.
    let run_dir = |rest: &[&str]| {
        let dir = [
            "litmus",
            "tests/litmus",
            "--expect",
            "tests/litmus/expected.csv",
            "--memory-model",
            "sc",
        ];
        run(&[&dir[..], rest].concat())
    };
    let out = run_dir(&[]);
    let text = stdout(&out);
    assert_eq!(code(&out), 1, "unsound tests exit 1\n{text}");
    assert_eq!(
        text.lines().last(),
        Some("litmus: 7 tests, 6 supported, 3 agree, 3 unsound")
    );
    assert!(
        text.contains("NamedReg.litmus")
            && text.contains("unsupported: barrier operands in registers")
    );
    let out = run_dir(&["--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let s = &json["summary"];
    assert_eq!(
        (&s["tests"], &s["supported"], &s["agree"], &s["unsound"]),
        (&7.into(), &6.into(), &3.into(), &3.into())
    );
}

#[test]
fn ctas_become_blocks_padded_with_exiting_threads() {
    let text = "PTX pad\n{ x=0; P2:r0=7; }\n P0@cta 5,gpu 0 | P1@cta 5,gpu 0 | P2@cta 1,gpu 0 ;\n st.weak x, 1 | st.weak x, 2 | ld.weak r1, x ;\nforall (P2:r0 == 7 /\\ (x == 1 \\/ x == 2))\n";
    let source = Source::new("pad.litmus", text);
    let test = parse::parse(text).unwrap();
    let tr = litmus::translate::translate(&test, &source).unwrap();
    let launch = tr.program.launch;
    assert_eq!((launch.blocks, launch.threads_per_block), (2, 2));
    let c = litmus::check_source(&source, &sc()).unwrap();
    assert!(c.holds, "{:?}", c.outcomes);
    assert_eq!(c.outcomes.len(), 2, "{:?}", c.outcomes);
}

/// The litmus runs these tests compare with are under `sc` (the default
/// is `ptx`).
fn sc() -> LitmusConfig {
    LitmusConfig {
        memory_model: MemoryModel::Sc,
        ..LitmusConfig::default()
    }
}

fn ptx() -> LitmusConfig {
    LitmusConfig {
        memory_model: MemoryModel::Ptx,
        ..LitmusConfig::default()
    }
}

#[test]
fn ptx_reaches_the_weak_outcomes_of_mp_sb_lb() {
    for name in ["MP.litmus", "SB.litmus", "LB.litmus"] {
        let c = litmus::check_file(&hand(name), &ptx())
            .unwrap_or_else(|f| panic!("{name}: {}", f.reason()));
        assert!(
            c.holds,
            "{name}: ptx misses the weak outcome: {:?}",
            c.outcomes
        );
    }
    // Coherence of one location holds in every model.
    let c = litmus::check_file(&hand("CoRR.litmus"), &ptx()).unwrap();
    assert!(c.holds, "{:?}", c.outcomes);
}

/// `--liveness` on one file: P1 spins until P0 raises a flag. Under weak
/// fairness (the default) every execution ends; under OBE P0 need never
/// start, and the hang is printed as a lasso.
#[test]
fn liveness_of_one_file_is_judged_under_the_scheduler_asked_for() {
    let file = "tests/litmus/liveness/MP-spin.litmus";
    let out = run(&["litmus", file, "--liveness"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("termination (scheduler fair): every execution ends"),
        "{}",
        stdout(&out)
    );
    let out = run(&["litmus", file, "--liveness", "--scheduler", "obe"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(text.contains("termination (scheduler obe): some execution does not end"));
    assert!(
        text.contains("livelock") && text.contains("then forever, repeating:"),
        "{text}"
    );
    assert!(text.contains("block 0 never moves"), "{text}");
    // With the expectation (1: terminates), a hang the file does not
    // expect is an over-approximation, not unsound.
    let out = run(&[
        "litmus",
        file,
        "--liveness",
        "--scheduler",
        "obe",
        "--expect",
        "tests/litmus/liveness/expected-liveness.csv",
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["scheduler"], "obe");
    assert_eq!(json["terminates"], false);
    assert_eq!(json["expected"], true);
    assert_eq!(json["agreement"], "over-approximate");
    assert_eq!(json["violation"]["kind"], "livelock");
    assert!(!json["violation"]["trace"]["cycle"]
        .as_array()
        .unwrap()
        .is_empty());
}

#[test]
fn liveness_of_a_directory_counts_agreement_with_terminates_for_1() {
    let dir = |rest: &[&str]| {
        let args = [
            "litmus",
            "tests/litmus/liveness",
            "--expect",
            "tests/litmus/liveness/expected-liveness.csv",
        ];
        run(&[&args[..], rest].concat())
    };
    let out = dir(&["--liveness"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        text.contains("MP-spin.litmus  ends      ends    fair"),
        "{text}"
    );
    assert!(text.contains("memory model ptx, scheduler fair:"), "{text}");
    assert_eq!(
        text.lines().last(),
        Some("litmus: 1 tests, 1 supported, 1 agree, 0 unsound")
    );
    let out = dir(&["--liveness", "--scheduler", "unfair", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (&json["liveness"], &json["scheduler"]),
        (&true.into(), &"unfair".into())
    );
    assert_eq!(json["rows"][0]["agreement"], "over-approximate");
}

/// Liveness is asked for, never guessed: a liveness file without
/// `--liveness` is refused (it would compare "terminates" with "the final
/// condition holds"), and `--scheduler` needs `--liveness`.
#[test]
fn liveness_is_explicit() {
    let out = run(&[
        "litmus",
        "tests/litmus/liveness",
        "--expect",
        "tests/litmus/liveness/expected-liveness.csv",
    ]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("looks like liveness expectations"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("add --liveness"), "{}", stderr(&out));
    let out = run(&["litmus", "tests/litmus/MP.litmus", "--scheduler", "fair"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--liveness"), "{}", stderr(&out));
    let out = run(&[
        "litmus",
        "tests/litmus/liveness/MP-spin.litmus",
        "--liveness",
        "--scheduler",
        "often",
    ]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("unknown progress model `often`"),
        "{}",
        stderr(&out)
    );
}

/// A release atomic continues the release sequence of the write it reads
/// (PTX, as C++): the last arriver at CUDA's grid barrier acquires every
/// earlier arriver's release through its own addition (issue 21).
#[test]
fn a_release_atomic_continues_the_release_sequence_it_reads() {
    let name = "memory/RelSeqReleaseRMW.litmus";
    let c = litmus::check_file(&hand(name), &ptx())
        .unwrap_or_else(|f| panic!("{name}: {}", f.reason()));
    assert!(
        !c.holds,
        "{name}: ptx reaches the forbidden outcome: {:?}",
        c.outcomes
    );
}

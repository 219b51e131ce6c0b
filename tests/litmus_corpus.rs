//! The PTX litmus corpus in `shared/litmus/PTX`: every file parses, SC is
//! never weaker than PTX, and the PTX model is sound and agrees with the
//! expected results. Without the corpus these tests are reported as
//! ignored (failed under CI=true): see `common::needs`.

mod common;

use common::*;
use gsync_check::diag::Source;
use gsync_check::litmus::{self, parse, LitmusConfig, Question};
use std::path::{Path, PathBuf};

fn main() -> std::process::ExitCode {
    let corpus = litmus_corpus();
    let missing = corpus.as_ref().err().cloned();
    let dir = corpus.unwrap_or_default();
    type Test = fn(&Path);
    let tests: [(&str, Test); 3] = [
        ("every_corpus_file_parses", every_corpus_file_parses),
        (
            "corpus_under_sc_is_never_weaker_than_ptx",
            corpus_under_sc_is_never_weaker_than_ptx,
        ),
        (
            "corpus_under_ptx_is_sound_and_agrees",
            corpus_under_ptx_is_sound_and_agrees,
        ),
    ];
    run_trials(
        tests
            .into_iter()
            .map(|(name, test)| {
                let dir = dir.clone();
                needs(name, missing.clone(), move || test(&dir))
            })
            .collect(),
    )
}

fn config(memory_model: &str) -> LitmusConfig {
    LitmusConfig {
        memory_model: memory_model.parse().expect("a memory model"),
        ..LitmusConfig::default()
    }
}

fn corpus_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "litmus") {
                out.push(p);
            }
        }
    }
    let mut out = vec![];
    walk(dir, &mut out);
    out.sort();
    out
}
fn every_corpus_file_parses(dir: &Path) {
    let files = corpus_files(dir);
    assert!(files.len() >= 130, "{} files", files.len());
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        if let Err(d) = parse::parse(&text) {
            panic!(
                "{}",
                d.render(&Source::new(f.display().to_string(), text), false)
            );
        }
    }
}

fn corpus_under_sc_is_never_weaker_than_ptx(dir: &Path) {
    let csv = dir.join("expected-safety.csv");
    let out = run(&[
        "litmus",
        dir.to_str().unwrap(),
        "--expect",
        csv.to_str().unwrap(),
        "--memory-model",
        "sc",
    ]);
    let text = stdout(&out);
    let last = text.lines().last().unwrap_or_default().to_string();
    let words: Vec<&str> = last.split(' ').collect();
    assert_eq!(
        (words[0], words[2], words[4], words[6], words[8]),
        ("litmus:", "tests,", "supported,", "agree,", "unsound"),
        "{last}"
    );
    // Every interleaving is a PTX execution: SC may forbid, never add.
    assert!(!text.contains("over-approximate\n"), "{text}");
    let report = litmus::run_dir(dir, &csv, &config("sc"), Question::Condition).unwrap();
    let s = &report.summary;
    assert_eq!(s.over_approximate, 0);
    assert_eq!(s.tests, s.supported + s.unsupported);
    assert!(s.supported * 10 >= s.tests * 7, "{s:?}");
    assert_eq!(last, s.line());
    // Liveness expectations: every fair SC execution of a test whose spin
    // loops PTX says terminate must terminate too (SC has fewer executions,
    // so it may only miss hangs, never add one).
    let live = litmus::run_dir(
        dir,
        &dir.join("expected-liveness.csv"),
        &config("sc"),
        Question::FAIR_TERMINATION,
    )
    .unwrap();
    let l = &live.summary;
    assert!(live.liveness && l.tests > 0);
    assert_eq!(l.tests, l.supported + l.unsupported);
    assert!(l.supported > 0, "{l:?}");
    assert_eq!(l.over_approximate, 0, "{l:?}");
}

fn corpus_under_ptx_is_sound_and_agrees(dir: &Path) {
    let report = litmus::run_dir(
        dir,
        &dir.join("expected-safety.csv"),
        &config("ptx"),
        Question::Condition,
    )
    .unwrap();
    let s = &report.summary;
    // The hard gate: the model never forbids what PTX allows.
    assert_eq!(s.unsound, 0, "{s:?}");
    assert!(s.agree * 10 >= s.supported * 9, "{s:?}");
    assert!(s.supported * 10 >= s.tests * 8, "{s:?}");
    let live = litmus::run_dir(
        dir,
        &dir.join("expected-liveness.csv"),
        &config("ptx"),
        Question::FAIR_TERMINATION,
    )
    .unwrap();
    assert_eq!(live.summary.unsound, 0, "{:?}", live.summary);
    // Memory fairness: the spin loops PTX says terminate (`XF-Barrier-relacq`,
    // `-rlx`) terminate; the real hang of `XF-Barrier-weak` (racing weak
    // flag writes: the reset may be ordered before the raise) is still found.
    assert_eq!(live.summary.over_approximate, 0, "{:?}", live.summary);
    let weak = live
        .rows
        .iter()
        .find(|r| r.path.ends_with("XF-Barrier-weak.litmus"))
        .expect("XF-Barrier-weak is in the liveness expectations");
    assert_eq!(weak.model, Some(false), "{weak:?}");
}

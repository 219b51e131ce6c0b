//! The CUDA front end: HeteroSync's real sources (read from
//! `../shared/heterosync`) against their harnesses' expected verdicts, the
//! subset's constructs against C++'s meaning, located refusals of what is
//! outside the subset, the timing abstraction, and CUDA lines in
//! counterexamples. With CI=true, a missing libclang or `../shared` fails
//! the tests instead of skipping them.

mod common;

use common::*;
use std::path::PathBuf;

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Whether the test can run; panics under CI when it cannot.
fn can_run(needs_shared: bool) -> bool {
    let out = run(&["check", "tests/cuda/constructs.gsync", "--blocks", "1"]);
    if stderr(&out).contains("needs libclang") {
        assert!(
            !in_ci(),
            "CI=true but libclang is missing: {}",
            stderr(&out)
        );
        eprintln!("libclang is not installed; skipped");
        return false;
    }
    if needs_shared && !heterosync().is_dir() {
        assert!(
            !in_ci(),
            "CI=true but {} is missing",
            heterosync().display()
        );
        eprintln!("no {}; skipped", heterosync().display());
        return false;
    }
    true
}

fn heterosync() -> PathBuf {
    repo().join("../shared/heterosync")
}

#[test]
fn every_heterosync_harness_meets_its_expectations() {
    if !can_run(true) {
        return;
    }
    let out = run(&["verify", "harnesses/heterosync"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 0, "{text}{}", stderr(&out));
    assert!(!text.contains("FAIL"), "{text}");
    // Every HeteroSync harness took part.
    for name in [
        "heterosync_spin_mutex",
        "heterosync_ebo_mutex",
        "heterosync_fa_mutex",
        "heterosync_sleep_mutex",
        "heterosync_spin_semaphore",
        "heterosync_ebo_semaphore",
        "heterosync_atomic_tree_barrier",
        "heterosync_lf_tree_barrier",
        "heterosync_seqlock",
        "heterosync_ref_counter",
        "heterosync_split_counter",
    ] {
        assert!(
            text.contains(&format!("PASS {name} ")),
            "{name} missing:\n{text}"
        );
    }
}

#[test]
fn the_subset_computes_what_cuda_cpp_says() {
    if !can_run(false) {
        return;
    }
    let out = run(&["check", "tests/cuda/constructs.gsync", "--blocks", "1"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    // The same harness with one wrong expectation fails on that line.
    let text = std::fs::read_to_string(repo().join("tests/cuda/constructs.gsync")).unwrap();
    let wrong = text.replace("sum_do(3) == 4", "sum_do(3) == 6");
    let dir = std::env::temp_dir().join(format!("gsync-cu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        repo().join("tests/cuda/constructs.cu"),
        dir.join("constructs.cu"),
    )
    .unwrap();
    std::fs::write(dir.join("wrong.gsync"), wrong).unwrap();
    let out = run(&[
        "check",
        dir.join("wrong.gsync").to_str().unwrap(),
        "--blocks",
        "1",
    ]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        stdout(&out).contains("assertion `sum_do(3) == 6` failed"),
        "{}",
        stdout(&out)
    );
}

/// Checks a harness calling `f(buf)` in a one-function CUDA file.
fn check_snippet(name: &str, cuda: &str) -> std::process::Output {
    let dir = std::env::temp_dir().join(format!("gsync-cu-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}.cu")), cuda).unwrap();
    let harness =
        format!("//! cuda: {name}.cu\nglobal u32 buf[4] = 0;\nharness all {{ f(buf); }}\n");
    std::fs::write(dir.join(format!("{name}.gsync")), harness).unwrap();
    run(&[
        "check",
        dir.join(format!("{name}.gsync")).to_str().unwrap(),
        "--blocks",
        "1",
    ])
}

#[test]
fn constructs_outside_the_subset_are_located_errors() {
    if !can_run(false) {
        return;
    }
    let cases = [
        ("switch", "__device__ void f(unsigned *p) {\n  switch (*p) { default: break; }\n}\n", "`switch`", 2),
        ("goto", "__device__ void f(unsigned *p) {\n  goto end;\nend:\n  *p = 1;\n}\n", "`goto`", 2),
        ("float", "__device__ void f(unsigned *p) {\n  float x = 1.5f;\n  *p = 1;\n}\n", "floating-point", 2),
        ("wide", "__device__ void f(unsigned *p) {\n  unsigned long long x = 1;\n  *p = 1;\n}\n", "64-bit integers", 2),
        ("member", "struct S { int a; };\n__device__ void f(unsigned *p) {\n  S s; *p = s.a;\n}\n", "member access", 3),
        ("ptx", "__device__ void f(unsigned *p) {\n  asm volatile(\"ld.global.nc.u32 %0, [%1];\" : \"=r\"(*p) : \"l\"(p));\n}\n", "`.nc`", 2),
        ("undefined", "__device__ void g();\n__device__ void f(unsigned *p) {\n  g();\n}\n", "without a definition", 3),
        ("compile", "__device__ void f(unsigned *p) {\n  *p = undeclared;\n}\n", "does not compile", 2),
    ];
    for (name, cuda, construct, line) in cases {
        let out = check_snippet(name, cuda);
        let err = stderr(&out);
        assert_eq!(code(&out), 2, "{name}: {err}");
        assert!(err.contains(construct), "{name}: {err}");
        assert!(
            err.contains(&format!("{name}.cu:{line}:")),
            "{name}: no location in {err}"
        );
    }
}

fn states(args: &[&str]) -> (String, u64) {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let out = run(&all);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{args:?}: {}", stderr(&out)));
    (
        json["verdict"].as_str().unwrap().to_string(),
        json["stats"]["states"].as_u64().unwrap(),
    )
}

#[test]
fn abstracting_back_off_keeps_the_verdicts_and_saves_states() {
    if !can_run(true) {
        return;
    }
    let timed = "harnesses/heterosync/heterosync_ebo_mutex_timed.gsync";
    let text = std::fs::read_to_string(repo().join(timed)).unwrap();
    // The same harness and MAX_BACKOFF with the abstraction on (written
    // elsewhere, so the CUDA paths become absolute).
    let shared = std::fs::canonicalize(heterosync().join("..")).unwrap();
    let abstracted = text
        .replace("//! cuda-timing: model\n", "")
        .replace("../../../shared", shared.to_str().unwrap());
    assert_ne!(abstracted, text);
    let dir = std::env::temp_dir().join(format!("gsync-cu-{}-timing", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("abstracted_ebo_mutex.gsync");
    std::fs::write(&path, abstracted).unwrap();
    let p = path.to_str().unwrap();
    for launch in [vec![], vec!["--blocks", "3", "--memory-model", "sc"]] {
        let mut a = vec!["check", p];
        a.extend(&launch);
        let mut m = vec!["check", timed];
        m.extend(&launch);
        let (va, sa) = states(&a);
        let (vm, sm) = states(&m);
        assert_eq!(va, vm, "{launch:?}");
        assert!(sa < sm, "{launch:?}: abstracted {sa} states, modelled {sm}");
    }
}

#[test]
fn counterexamples_show_the_cuda_lines() {
    if !can_run(true) {
        return;
    }
    let out = run(&["check", "harnesses/heterosync/heterosync_sleep_mutex.gsync"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 1);
    assert!(text.contains("aN in cudaLocksMutexSleep.cu"), "{text}");
    // The release that comes before its fence: line 102 of the source.
    assert!(
        text.contains("a102: atomicExch((int *)ringBuffer +"),
        "{text}"
    );
    let json = run(&[
        "check",
        "harnesses/heterosync/heterosync_sleep_mutex.gsync",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let steps = v["violations"][0]["trace"]["steps"].as_array().unwrap();
    assert!(steps
        .iter()
        .any(|s| s["span"]["file"] == "cudaLocksMutexSleep.cu" && s["span"]["line"] == 102));
}

//! Deadlocks decided on the fly and the bug hunt (`--hunt`), end to end:
//! a stuck state is the same deadlock with and without the early check;
//! the hunt finds the sense-reversing barrier's deadlock at a launch where
//! the exhaustive search, bounded, gives up, with a counterexample that
//! replays and does not depend on the threads; a hunt that finds nothing
//! is inconclusive, and stops at --max-seconds.

mod common;

use common::{code, repo, run, stdout};
use std::time::Instant;

fn input(name: &str) -> String {
    repo()
        .join("tests/hunt")
        .join(name)
        .to_str()
        .expect("a UTF-8 path")
        .to_string()
}

fn json(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_str(&stdout(out)).unwrap_or_else(|e| panic!("JSON report: {e}: {out:?}"))
}

/// `check FILE ARGS --format json`: the exit code and the report.
fn check(file: &str, args: &[&str]) -> (i32, serde_json::Value) {
    let out = run(&[&["check", file][..], args, &["--format", "json"]].concat());
    (code(&out), json(&out))
}

#[test]
fn a_stuck_state_is_the_same_deadlock_with_and_without_the_early_check() {
    let spec = input("stuck_named_barrier.gsync");
    let launch = [
        "--blocks",
        "1",
        "--threads-per-block",
        "3",
        "--warp-size",
        "1",
    ];
    let (early_code, early) = check(&spec, &launch);
    let (full_code, full) = check(&spec, &[&launch[..], &["--no-early-deadlock"]].concat());
    assert_eq!((early_code, full_code), (1, 1), "{early}\n{full}");
    let v = |r: &serde_json::Value, key: &str| r["violations"][0][key].clone();
    assert_eq!(v(&early, "kind"), "deadlock");
    assert_eq!(v(&early, "kind"), v(&full, "kind"));
    assert_eq!(v(&early, "message"), v(&full, "message"));
    assert_eq!(v(&early, "waiting"), v(&full, "waiting"));
    let steps = |r: &serde_json::Value| {
        r["violations"][0]["trace"]["schedule"]
            .as_array()
            .map(Vec::len)
    };
    assert!(steps(&early) <= steps(&full), "breadth first: no longer");
    // Under --resident the blocks waiting for a slot make it an occupancy
    // deadlock, decided on the fly too.
    let occupancy = [
        "--blocks",
        "2",
        "--resident",
        "1",
        "--threads-per-block",
        "2",
        "--warp-size",
        "1",
    ];
    let (_, early) = check(&spec, &occupancy);
    let (_, full) = check(&spec, &[&occupancy[..], &["--no-early-deadlock"]].concat());
    assert_eq!(v(&early, "kind"), v(&full, "kind"), "{early}\n{full}");
}

#[test]
fn the_hunt_finds_the_barrier_deadlock_that_a_bounded_search_cannot() {
    let spec = input("srb_deadlock.gsync");
    let launch = ["--blocks", "4"];
    let (bounded, report) = check(&spec, &[&launch[..], &["--max-states", "20000"]].concat());
    assert_eq!(bounded, 3, "the exhaustive search needs more: {report}");
    let dir = std::env::temp_dir().join(format!("gsync-hunt-{}", std::process::id()));
    let out_dir = dir.to_str().expect("a UTF-8 path");
    let hunt = [&launch[..], &["--hunt", "--out", out_dir]].concat();
    let (found, report) = check(&spec, &hunt);
    assert_eq!(found, 1, "{report}");
    assert_eq!(report["violations"][0]["kind"], "deadlock", "{report}");
    assert!(
        report["violations"][0]["trace"]["cycle"]
            .as_array()
            .is_some_and(|c| !c.is_empty()),
        "the threads spin: {report}"
    );
    let saved = dir.join("sense_reversing_barrier_fixed_deadlock.json");
    let replayed = run(&["replay", saved.to_str().expect("a UTF-8 path")]);
    assert_eq!(code(&replayed), 1, "{}", stdout(&replayed));
    assert!(
        stdout(&replayed).contains("reproduced"),
        "{}",
        stdout(&replayed)
    );
    let _ = std::fs::remove_dir_all(&dir);
    // The seed decides the counterexample, not the worker threads.
    let seeded = |threads: &str| {
        check(
            &spec,
            &[
                &launch[..],
                &["--hunt", "--seed", "7", "--threads", threads],
            ]
            .concat(),
        )
        .1
    };
    let (one, two) = (seeded("1"), seeded("2"));
    assert_eq!(one["violations"], two["violations"]);
}

#[test]
fn a_clean_hunt_is_inconclusive_and_says_it_proves_nothing() {
    let out = run(&["spin_lock", "--hunt", "--walks", "50"]);
    assert_eq!(code(&out), 3, "{}", stdout(&out));
    assert!(
        stdout(&out).contains("no violation in 50 random walks"),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("proves nothing"), "{}", stdout(&out));
    let report = json(&run(&[
        "spin_lock",
        "--hunt",
        "--walks",
        "50",
        "--format",
        "json",
    ]));
    assert_eq!(report["verdict"], "inconclusive");
    assert_eq!(report["limit"], "walks");
    // The time limit bounds the hunt like any search.
    let started = Instant::now();
    let out = run(&[
        "ticket_mutex",
        "--blocks",
        "3",
        "--hunt",
        "--walks",
        "100000000",
        "--max-seconds",
        "1",
    ]);
    assert_eq!(code(&out), 3, "{}", stdout(&out));
    assert!(
        started.elapsed().as_secs_f64() < 20.0,
        "stopped at the time limit"
    );
}

#[test]
fn hunt_options_need_hunt_and_one_process() {
    let out = run(&["spin_lock", "--seed", "3"]);
    assert_eq!(code(&out), 2);
    if cfg!(feature = "dist") {
        let out = run(&["spin_lock", "--hunt", "--local-processes", "2"]);
        assert_eq!(code(&out), 2, "{}", stdout(&out));
    }
}

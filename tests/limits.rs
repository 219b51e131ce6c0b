//! Limits bound the whole check, every phase of it (issue 17, item 3): a
//! run stops cleanly with verdict inconclusive (exit 3) within its time
//! limit, with its peak resident set within 10% of `--max-memory`, and a
//! family's `--max-seconds` covers the whole family.
//!
//! The time bounds asserted here are ten times the limit or more, so that
//! a busy machine cannot fail them; what they catch is a phase that
//! ignores the limit (before: a minute past a 2-second limit).

mod common;

use common::*;
use std::time::{Duration, Instant};

const MIB: u64 = 1024 * 1024;

/// Runs `args` with `--format json --stats`; returns the report(s), the
/// exit code and the wall time.
fn run_json(args: &[&str]) -> (serde_json::Value, i32, Duration) {
    let start = Instant::now();
    let out = run(&[args, &["--format", "json", "--stats"]].concat());
    let wall = start.elapsed();
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", stderr(&out)));
    (json, code(&out), wall)
}

fn peak_rss(report: &serde_json::Value) -> u64 {
    report["stats"]["peak_rss_bytes"]
        .as_u64()
        .expect("peak RSS is known on Linux")
}

/// 1024 blocks: each state has a thousand successors of kilobytes each.
/// Before, one batch of them held 2.7 GiB under a 200 MiB limit and ran
/// for a minute past a 5-second limit.
#[test]
fn a_wide_launch_stays_within_its_limits() {
    for threads in ["1", "2"] {
        let args = [
            "spin_lock",
            "--blocks",
            "1024",
            "--max-memory",
            "64",
            "--max-seconds",
            "2",
            "--threads",
            threads,
        ];
        let (report, code, wall) = run_json(&args);
        assert_eq!(code, 3, "{args:?}");
        assert_eq!(report["verdict"], "inconclusive");
        assert!(wall < Duration::from_secs(30), "{args:?}: {wall:?}");
        let rss = peak_rss(&report);
        assert!(rss <= 64 * MIB * 11 / 10, "{args:?}: peak RSS {rss}");
    }
}

/// A run that reaches its memory limit ends with a resident set within
/// 10% of it, whatever the phase (search or analyses), and uses it: over
/// a quarter.
#[test]
fn a_memory_limit_bounds_the_resident_set() {
    let cases: [&[&str]; 3] = [
        &["priority_semaphore", "--blocks", "6", "--max-memory", "100"],
        &[
            "ticket_mutex",
            "--blocks",
            "6",
            "--scheduler",
            "fair",
            "--max-memory",
            "60",
        ],
        &[
            "heterosync_tree_barrier",
            "--blocks",
            "6",
            "--max-memory",
            "80",
            "--threads",
            "2",
        ],
    ];
    for args in cases {
        let limit: u64 = args[args.iter().position(|a| *a == "--max-memory").unwrap() + 1]
            .parse()
            .unwrap();
        let (report, code, _) = run_json(args);
        assert_eq!(code, 3, "{args:?}");
        assert_eq!(report["limit"], "max_memory", "{args:?}");
        let rss = peak_rss(&report);
        assert!(rss <= limit * MIB * 11 / 10, "{args:?}: peak RSS {rss}");
        assert!(
            rss > limit * MIB / 4,
            "{args:?}: peak RSS {rss}: the limit is wasted"
        );
    }
}

/// `--max-seconds` on a family bounds the family, not each variant: each
/// variant gets an equal share of the time left, so the variants after one
/// that explodes are still decided.
#[test]
fn a_family_shares_one_deadline() {
    let (reports, code, wall) = run_json(&["barrier", "--blocks", "6", "--max-seconds", "2"]);
    let reports = reports.as_array().expect("one report per variant");
    assert!(reports.len() > 10);
    // Before: two seconds per variant, half a minute in all.
    assert!(wall < Duration::from_secs(20), "{wall:?}");
    let late: Vec<usize> = (0..reports.len())
        .filter(|&i| reports[i]["limit"] == "max_seconds")
        .collect();
    assert!(!late.is_empty(), "no variant met the deadline");
    // One that met its share does not leave every later one undecided.
    let decided_after = (late[0]..reports.len()).any(|i| reports[i]["verdict"] != "inconclusive");
    assert!(decided_after, "every variant after {} was cut off", late[0]);
    assert!(code == 1 || code == 3, "exit {code}");
}

/// The family table's seconds are what each variant really took: a
/// variant searched again with the time its neighbours left shows both
/// passes, so the column adds up to the run (before: only the last pass,
/// 10 s of a 35 s run), and its states are those of its better pass.
#[test]
fn a_family_table_accounts_for_the_whole_run() {
    let args = [
        "semaphore",
        "--blocks",
        "6",
        "--max-seconds",
        "6",
        "--threads",
        "1",
    ];
    let start = Instant::now();
    let out = run(&args);
    let wall = start.elapsed().as_secs_f64();
    let text = stdout(&out);
    let rows: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() == 5 && w[0].contains('_'))
        .collect();
    assert_eq!(rows.len(), 7, "{text}");
    let seconds: f64 = rows.iter().map(|w| w[4].parse::<f64>().unwrap()).sum();
    assert!(
        rows.iter().any(|w| w[2] == "(--max-seconds)"),
        "no variant ran out of time: {text}"
    );
    // Start-up and printing are the only time outside the checks.
    assert!(
        seconds >= 0.9 * wall - 0.3 && seconds <= wall,
        "the seconds column adds up to {seconds:.2} s of a {wall:.2} s run:\n{text}"
    );
}

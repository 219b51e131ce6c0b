//! `gsync-check check FILE.cu --launch 'K<<<G,B>>>(ARGS)' --launch ...`:
//! kernels launched together (issue #39), through clang-19 and opt-19
//! with CUDA's headers from the PyPI wheels. A producer kernel and a
//! consumer kernel share a flag and a data word per block
//! (`tests/kernels/co_launch.cu`): verified with release/acquire, a race
//! without, a deadlock with the consumer alone; traces name each block's
//! kernel; bad launches are located errors. Without the toolchain the
//! tests are reported as ignored, and fail under CI=true.

mod common;

use common::*;
use gsync_check::llvm::toolchain::Toolchain;
use serde_json::Value;

const FILE: &str = "tests/kernels/co_launch.cu";
const PRODUCER: &str = "producer<<<2, 1>>>(data, flag)";
const CONSUMER: &str = "consumer<<<2, 1>>>(flag, data, 42)";

/// `check FILE --launch L ... ARGS --format json`: the report and exit code.
fn check_json(launches: &[&str], args: &[&str]) -> (Value, i32) {
    let mut argv = vec!["check", FILE, "--format", "json"];
    for l in launches {
        argv.extend(["--launch", l]);
    }
    argv.extend_from_slice(args);
    let out = run(&argv);
    let report = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("{argv:?}: no JSON report ({e}): {}", stderr(&out)));
    (report, code(&out))
}

/// The file's own `//! expect` lines, which launch with `--launch`.
fn expectations_hold() {
    let out = run(&["verify", FILE]);
    let text = stdout(&out);
    assert_eq!(code(&out), 0, "{text}{}", stderr(&out));
    assert!(text.contains("verify: 4 passed, 0 failed"), "{text}");
}

/// The launches share the host buffers they both name: the consumer's
/// `ready` and `in` are the producer's `flag` and `data`. Release/acquire
/// verifies; the same kernels under different host names do not share
/// memory, and the consumer then waits forever.
fn host_names_share_buffers() {
    let (report, exit) = check_json(
        &[PRODUCER, CONSUMER],
        &["--arg", "data=2", "--arg", "flag=2"],
    );
    assert_eq!(
        (report["verdict"].as_str(), exit),
        (Some("verified"), 0),
        "{report:#}"
    );
    assert_eq!(report["config"]["blocks"], 4, "{report:#}");
    let launches = &report["config"]["launches"];
    assert_eq!(launches[0]["kernel"], "producer", "{report:#}");
    assert_eq!(launches[1]["first_block"], 2, "{report:#}");
    assert_eq!(report["config"]["params"]["data"], 2, "{report:#}");
    let (report, _) = check_json(&[PRODUCER, "consumer<<<2, 1>>>(other, data, 42)"], &[]);
    assert_eq!(report["violations"][0]["kind"], "deadlock", "{report:#}");
}

/// Relaxed accesses order nothing: the consumer's read of the data races
/// with the producer's write, and the trace says which kernel each block
/// belongs to, numbered in its own grid.
fn races_name_each_blocks_kernel() {
    let launches = [
        "producer_relaxed<<<2, 1>>>(data, flag)",
        "consumer_relaxed<<<2, 1>>>(flag, data, 42)",
    ];
    let (report, exit) = check_json(&launches, &[]);
    assert_eq!(exit, 1, "{report:#}");
    let v = &report["violations"][0];
    assert_eq!(v["kind"], "heterogeneous_race", "{v:#}");
    let message = v["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("consumer_relaxed block 0's plain load"),
        "{message}"
    );
    assert!(
        message.contains("producer_relaxed block 0's plain store"),
        "{message}"
    );
    // The consumer's block 0 is the launch's block 2.
    let blocks: Vec<u64> = v["trace"]["steps"]
        .as_array()
        .map(|s| s.iter().filter_map(|s| s["block"].as_u64()).collect())
        .unwrap_or_default();
    assert!(blocks.contains(&2) && blocks.contains(&0), "{blocks:?}");
    let mut argv = vec!["check", FILE];
    for l in &launches {
        argv.extend(["--launch", l]);
    }
    let text = stdout(&run(&argv));
    assert!(
        text.contains("producer_relaxed<<<2,1>>> + consumer_relaxed<<<2,1>>>"),
        "{text}"
    );
    assert!(text.contains("│ consumer_relaxed block 0"), "{text}");
}

/// One launch of the consumer alone: its blocks wait for a flag nobody
/// sets. The deadlock names the consumer's blocks.
fn the_consumer_alone_deadlocks() {
    let (report, exit) = check_json(&[CONSUMER], &[]);
    assert_eq!(exit, 1, "{report:#}");
    let v = &report["violations"][0];
    assert_eq!(v["kind"], "deadlock", "{v:#}");
    assert!(
        v["waiting"]
            .to_string()
            .contains("consumer block 1 spins at line 22"),
        "{v:#}"
    );
}

/// Bad launches: exit 2, with the kernel's line where the file has one.
fn bad_launches_are_errors() {
    let error = |launches: &[&str], args: &[&str]| {
        let mut argv = vec!["check", FILE];
        for l in launches {
            argv.extend(["--launch", l]);
        }
        argv.extend_from_slice(args);
        let out = run(&argv);
        assert_eq!(code(&out), 2, "{argv:?}: {}", stdout(&out));
        stderr(&out)
    };
    let e = error(&["nope<<<2, 1>>>(a)"], &[]);
    assert!(
        e.contains("no kernel `nope`; the file's kernels: producer, consumer"),
        "{e}"
    );
    let e = error(&[PRODUCER, "consumer<<<2, 2>>>(flag, data, 42)"], &[]);
    assert!(e.contains("must have blocks of one size"), "{e}");
    let e = error(&["producer<<<2, 1>>>(data)"], &[]);
    assert!(e.contains("co_launch.cu:29:"), "{e}");
    assert!(
        e.contains("passes 1 argument; kernel `producer` takes 2 (data, flag)"),
        "{e}"
    );
    let e = error(&["producer<<<2, 1>>>(7, flag)"], &[]);
    assert!(
        e.contains("passes the integer 7 for `data`, a pointer"),
        "{e}"
    );
    let e = error(&[CONSUMER.replace("42", "n").as_str()], &[]);
    assert!(e.contains("passes `n` for `expected`"), "{e}");
    assert!(e.contains("--arg n=VALUE"), "{e}");
    let e = error(&[PRODUCER], &["--arg", "dta=2"]);
    assert!(e.contains("no launch passes a host variable `dta`"), "{e}");
    let e = error(&["producer<<<2>>>(data, flag)"], &[]);
    assert!(e.contains("give the grid and the block size"), "{e}");
    let e = error(&["producer<<<0, 1>>>(data, flag)"], &[]);
    assert!(e.contains("`0` as the grid"), "{e}");
    let e = error(&["producer(data, flag)"], &[]);
    assert!(e.contains("no `<<<`"), "{e}");
    // Each launch has its own grid: --grid and --kernel are refused.
    let e = error(&[PRODUCER], &["--grid", "3"]);
    assert!(e.contains("cannot be used with"), "{e}");
    let e = error(&[PRODUCER], &["--kernel", "producer"]);
    assert!(e.contains("cannot be used with"), "{e}");
}

fn main() -> std::process::ExitCode {
    let missing = Toolchain::find().err().map(|e| e.to_string());
    let tests: [(&str, fn()); 5] = [
        ("co_launch::expectations_hold", expectations_hold),
        (
            "co_launch::host_names_share_buffers",
            host_names_share_buffers,
        ),
        (
            "co_launch::races_name_each_blocks_kernel",
            races_name_each_blocks_kernel,
        ),
        (
            "co_launch::the_consumer_alone_deadlocks",
            the_consumer_alone_deadlocks,
        ),
        (
            "co_launch::bad_launches_are_errors",
            bad_launches_are_errors,
        ),
    ];
    let trials = tests
        .into_iter()
        .map(|(name, f)| needs(name, missing.clone(), f))
        .collect();
    run_trials(trials)
}

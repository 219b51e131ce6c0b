//! The distributed explorer (feature `dist`) against the single-process
//! one: 1, 2 and 3 processes over loopback (`--local-processes`) give the
//! same report (verdict, violation kinds, state counts, the very trace) as
//! one process searching with the same reductions, ample sets and their
//! proviso included, and under the progress models (deadlock with labels,
//! livelock, starvation, the lasso); families and `verify` run
//! distributed; a killed process and a host that cannot be reached end
//! the run without a verdict, and a liveness question on more threads
//! than the labels hold is refused.

#![cfg(feature = "dist")]

mod common;
#[path = "generated/program.rs"]
#[allow(dead_code)]
mod program;

use common::{code, run, stderr, stdout};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn json(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_str(&stdout(out)).unwrap_or_else(|e| {
        panic!(
            "JSON report: {e}\nstdout: {}\nstderr: {}",
            stdout(out),
            stderr(out)
        )
    })
}

/// What must agree, pulled out for a readable failure before the whole
/// reports are compared.
fn summary(r: &serde_json::Value) -> String {
    let kinds: Vec<String> = r["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .map(|v| {
            let steps = v["trace"]["schedule"].as_array().map_or(0, Vec::len);
            format!("{} after {steps} steps", v["kind"])
        })
        .collect();
    format!("{} {} {kinds:?}", r["verdict"], r["stats"])
}

/// `spec` under sc and ptx (with `extra` options), with ample sets and
/// without: one process against two and three.
fn same_as_one_process(spec: &str, extra: &[&str]) {
    for (model, ample) in [("sc", true), ("ptx", true), ("sc", false)] {
        let mut args = vec![spec, "--memory-model", model, "--format", "json"];
        args.extend(extra);
        if !ample {
            args.push("--no-ample-sets");
        }
        let one = run(&args);
        let expected = json(&one);
        for n in ["2", "3"] {
            let many = run(&[&args[..], &["--local-processes", n]].concat());
            let got = json(&many);
            let what = format!("{spec} {extra:?} --memory-model {model} on {n} processes");
            assert_eq!(summary(&got), summary(&expected), "{what}");
            assert_eq!(got, expected, "{what}: the reports differ");
            assert_eq!(code(&many), code(&one), "{what}: exit code");
        }
    }
}

#[test]
fn mutexes_as_one_process() {
    same_as_one_process("ring_buffer_mutex", &[]);
    same_as_one_process("mutex_plain_unlock", &[]);
}

#[test]
fn semaphores_as_one_process() {
    same_as_one_process("semaphore_check_outside_lock", &["--blocks", "3"]);
    same_as_one_process("sleeping_semaphore", &[]);
}

#[test]
fn barriers_as_one_process() {
    same_as_one_process("sense_barrier_no_flip", &[]);
    same_as_one_process("tree_barrier_single", &[]);
}

#[test]
fn violations_found_in_every_family() {
    // The comparisons above mean something only if they meet violations
    // of several kinds, and verified runs.
    let kinds = |spec: &str, model: &str| {
        let out = run(&[
            spec,
            "--memory-model",
            model,
            "--local-processes",
            "2",
            "--format",
            "json",
        ]);
        summary(&json(&out))
    };
    assert!(kinds("mutex_plain_unlock", "ptx").contains("violated"));
    assert!(kinds("tree_barrier_single", "sc").contains("deadlock"));
    assert!(kinds("sense_barrier_no_flip", "sc").contains("barrier_safety"));
    assert!(kinds("ring_buffer_mutex", "sc").contains("verified"));
}

#[test]
fn limits_end_every_process_inconclusive() {
    // Without ample sets, whose graph here is too small for the limits.
    let args = [
        "heterosync_tree_barrier",
        "--blocks",
        "3",
        "--no-ample-sets",
        "--local-processes",
        "2",
    ];
    let out = run(&[&args[..], &["--max-states", "1000"]].concat());
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("INCONCLUSIVE  (1000 states"),
        "{}",
        stdout(&out)
    );
    // Two processes need about 24 MiB each here (2-core VM): 14 stops
    // them midway.
    let out = run(&[&args[..], &["--max-memory", "14"]].concat());
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("stopped by --max-memory"),
        "{}",
        stdout(&out)
    );
}

/// What `--max-memory` bounds is each process: a limit under which one
/// process cannot finish lets three finish, with the states of the
/// unlimited run. (Measured on the 2-core VM: one process needs 71 MiB
/// and stops at 233,612 states under 64; three need about 51 each.)
#[test]
fn memory_limit_is_per_process() {
    let args = ["priority_semaphore", "--blocks", "5", "--format", "json"];
    let limit = ["--max-memory", "60"];
    let one = run(&[&args[..], &limit].concat());
    assert_eq!(code(&one), 3, "{}", stderr(&one));
    assert_eq!(json(&one)["limit"], "max_memory");
    let many = run(&[&args[..], &limit, &["--local-processes", "3"]].concat());
    assert_eq!(code(&many), 0, "{}", stderr(&many));
    let unlimited = json(&run(&args));
    let many = json(&many);
    assert_eq!(many["verdict"], "verified", "{many}");
    assert_eq!(many["stats"], unlimited["stats"]);
}

/// A limit reached after the search, in the liveness analyses, ends the
/// distributed run inconclusive on every process (they once ran on past
/// it). The analyses of these 76,502 states need more memory than their
/// search (on the 2-core VM: the search completes within 20 MiB a
/// process, the analyses within 22), so the smallest `--max-memory` at
/// which the whole graph is searched leaves the analyses short. That limit
/// is found by trying each MiB upwards, so that the test does not depend
/// on how many bytes either needs. The limit reads a process's memory at
/// moments that depend on timing, and what it counts outside the heap is
/// measured once, at the first look: at this size two runs differ by a
/// MiB or two under load (a CI run once finished the analyses at the
/// first limit that completed the search), so that limit is tried up to
/// [`TRIES`] times for a run whose analyses stop.
#[test]
fn a_limit_in_the_distributed_liveness_analyses_ends_the_run() {
    const TRIES: usize = 4;
    let args = [
        "priority_semaphore",
        "--blocks",
        "3",
        "--scheduler",
        "fair",
        "--no-canonical-fixpoint",
        "--local-processes",
        "2",
        "--threads",
        "1",
        "--format",
        "json",
    ];
    let unlimited = json(&run(&args));
    assert_eq!(unlimited["verdict"], "violated", "{unlimited}");
    let states = &unlimited["stats"]["states"];
    // The report at `mib`, and whether the whole graph was searched.
    let limited = |mib: u32| {
        let limited = run(&[&args[..], &["--max-memory", &mib.to_string()]].concat());
        let report = json(&limited);
        let complete = report["stats"]["states"] == *states;
        if !complete || report["verdict"] == "inconclusive" {
            // Stopped, by the search or by the analyses: inconclusive.
            assert_eq!(code(&limited), 3, "{report}");
            assert_eq!(report["limit"], "max_memory", "{report}");
        }
        (report, complete)
    };
    let Some(first) = (8..=64).find(|&mib| limited(mib).1) else {
        panic!("the search did not complete within 64 MiB a process");
    };
    let mut last = serde_json::Value::Null;
    for _ in 0..TRIES {
        let (report, complete) = limited(first);
        if complete && report["verdict"] == "inconclusive" {
            // The whole graph was searched: the analyses stopped.
            return;
        }
        last = report;
    }
    panic!(
        "at {first} MiB, the least that completes the search, the analyses never stopped in \
         {TRIES} runs: they need no more memory than the search, so this launch no longer tests \
         a limit in the analyses\n{last}"
    );
}

/// One spec under a progress model, on 1, 2 and 3 processes against one
/// process; its verdict and violation kind.
fn live_as_one_process(spec: &str, extra: &[&str]) -> String {
    summary(&live_as_one_process_json(&[&[spec][..], extra].concat()))
}

/// The report of `args` on one process, the same on 1, 2 and 3.
fn live_as_one_process_json(args: &[&str]) -> serde_json::Value {
    let args = [args, &["--format", "json"]].concat();
    let one = run(&args);
    let expected = json(&one);
    for n in ["1", "2", "3"] {
        let many = run(&[&args[..], &["--local-processes", n]].concat());
        let what = format!("{args:?} on {n} processes");
        assert_eq!(code(&many), code(&one), "{what}: {}", stderr(&many));
        let got = json(&many);
        assert_eq!(summary(&got), summary(&expected), "{what}");
        assert_eq!(got, expected, "{what}: the reports differ");
    }
    expected
}

#[test]
fn liveness_runs_distributed_as_one_process() {
    // A livelock, starvation, and a proof, each with its lasso.
    let fair = ["--scheduler", "fair", "--memory-model", "sc"];
    assert!(live_as_one_process("heterosync_semaphore", &fair).contains("livelock"));
    assert!(live_as_one_process("spin_lock", &fair).contains("starvation"));
    assert!(live_as_one_process("ticket_mutex", &fair).contains("verified"));
    // Under ptx, with memory fairness.
    let ptx = ["--scheduler", "fair", "--memory-model", "ptx"];
    assert!(live_as_one_process("heterosync_semaphore", &ptx).contains("livelock"));
    // A harness that never finishes (`--iters 0`): its deadlock is a
    // thread that can never progress again (here one never resident).
    let never = ["--blocks", "3", "--resident", "2", "--iters", "0"];
    let never = [&never[..], &fair].concat();
    let found = live_as_one_process("spin_lock", &never);
    assert!(found.contains("deadlock"), "{found}");
}

#[test]
fn families_under_progress_models_as_one_process() {
    let mut seen = String::new();
    for scheduler in ["fair", "hsa", "obe"] {
        for family in ["mutex", "semaphore", "barrier"] {
            let sc = [family, "--scheduler", scheduler, "--memory-model", "sc"];
            seen += &family_as_one_process(&sc, &["1", "2", "3"]);
            seen += &family_as_one_process(&[family, "--scheduler", scheduler], &["2"]);
        }
    }
    // The comparisons met every kind of answer.
    for kind in ["livelock", "starvation", "deadlock", "verified"] {
        assert!(seen.contains(kind), "no {kind} among {seen}");
    }
}

#[test]
fn a_killed_process_ends_the_run_without_verdict() {
    let parent = Command::new(env!("CARGO_BIN_EXE_gsync-check"))
        .args([
            "heterosync_tree_barrier",
            "--blocks",
            "4",
            // Without ample sets the search takes tens of seconds (with
            // them about one): still running when its child is killed.
            "--no-ample-sets",
            "--max-seconds",
            "120",
        ])
        .args(["--local-processes", "2", "--format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start gsync-check");
    // Its child, once started and searching.
    let children = format!("/proc/{0}/task/{0}/children", parent.id());
    let start = Instant::now();
    let child = loop {
        let listed = std::fs::read_to_string(&children).unwrap_or_default();
        if let Some(pid) = listed.split_whitespace().next() {
            break pid.to_string();
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no child started"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    std::thread::sleep(Duration::from_millis(2500));
    let killed = Command::new("kill").args(["-9", &child]).status();
    assert!(killed.expect("kill").success());
    let out = parent.wait_with_output().expect("the run ends");
    assert_eq!(code(&out), 4, "stderr: {}", stderr(&out));
    assert!(stderr(&out).contains("no verdict"), "{}", stderr(&out));
    assert!(
        stdout(&out).is_empty(),
        "a verdict was printed: {}",
        stdout(&out)
    );
}

#[test]
fn an_unreachable_process_ends_the_run_without_verdict() {
    // Process 1 of 2 whose process 0 never starts.
    let dir = std::env::temp_dir().join(format!("gsync-unreachable-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let hosts = dir.join("hosts");
    let ports: Vec<_> = (0..2)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    let text: String = ports
        .iter()
        .map(|l| format!("127.0.0.1:{}\n", l.local_addr().unwrap().port()))
        .collect();
    drop(ports);
    std::fs::write(&hosts, text).unwrap();
    let hosts = hosts.display().to_string();
    let args = ["ring_buffer_mutex", "--processes", "2", "--process", "1"];
    let out = run(&[&args[..], &["--hostfile", &hosts, "--connect-timeout", "2"]].concat());
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code(&out), 4, "stderr: {}", stderr(&out));
    assert!(
        stderr(&out).contains("did not all connect"),
        "{}",
        stderr(&out)
    );
}

/// The lines of a report that must not depend on where it ran: all but
/// timings and the notes of what process 0 checked alone.
fn verdict_lines(out: &std::process::Output) -> Vec<String> {
    stdout(out)
        .lines()
        .filter(|l| !l.contains("checked by process 0 alone"))
        .map(str::to_string)
        .collect()
}

/// Every variant of a family (JSON reports, ample sets on) on `counts`
/// processes against one process; the variants' summaries.
fn family_as_one_process(args: &[&str], counts: &[&str]) -> String {
    let args = [args, &["--format", "json"]].concat();
    let one = run(&args);
    let expected = json(&one);
    let variants = expected.as_array().expect("one report per variant");
    assert!(variants.len() > 3, "{expected}");
    for n in counts {
        let many = run(&[&args[..], &["--local-processes", n]].concat());
        let got = json(&many);
        let what = format!("{args:?} on {n} processes");
        for (g, e) in got.as_array().expect("reports").iter().zip(variants) {
            assert_eq!(summary(g), summary(e), "{what}: {}", e["spec"]);
        }
        assert_eq!(got, expected, "{what}: the reports differ");
        assert_eq!(code(&many), code(&one), "{what}: exit code");
    }
    variants.iter().map(summary).collect()
}

#[test]
fn families_run_distributed_as_one_process() {
    family_as_one_process(&["mutex", "--memory-model", "sc"], &["1", "2", "3"]);
    family_as_one_process(&["mutex"], &["2"]);
}

#[test]
fn every_family_with_ample_sets_as_one_process() {
    family_as_one_process(&["barrier", "--memory-model", "sc"], &["2"]);
    family_as_one_process(&["barrier"], &["3"]);
    family_as_one_process(&["semaphore", "--memory-model", "sc"], &["3"]);
    family_as_one_process(&["semaphore"], &["2"]);
    // Occupancy: more blocks than can be resident at once.
    let occupancy = [
        "barrier",
        "--blocks",
        "3",
        "--resident",
        "2",
        "--memory-model",
        "sc",
    ];
    family_as_one_process(&occupancy, &["2"]);
}

#[test]
fn verify_runs_distributed_as_one_process() {
    let spec = "specs/sense_reversing_barrier_fixed.gsync";
    let one = run(&["verify", spec]);
    let many = run(&["verify", "--local-processes", "2", spec]);
    assert_eq!(verdict_lines(&many), verdict_lines(&one));
    assert_eq!(code(&many), 0, "{}", stdout(&many));
    // Liveness, and deadlocks decided with labels, are distributed too:
    // nothing is left to process 0 alone.
    assert!(
        !stdout(&many).contains("checked by process 0 alone"),
        "{}",
        stdout(&many)
    );
}

#[test]
fn liveness_of_more_threads_than_labels_hold_needs_one_process() {
    let out = run(&[
        "spin_lock",
        "--blocks",
        "65",
        "--scheduler",
        "fair",
        "--local-processes",
        "2",
    ]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("at most 64 threads"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).is_empty());
}

#[test]
fn random_programs_as_one_process() {
    // Programs nobody wrote (`tests/generated.rs`'s generator), with every
    // reduction on, under sc (where ample sets apply most) and ptx.
    let dir = std::env::temp_dir().join(format!("gsync-dist-gen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut violated = 0;
    for seed in 0..8u64 {
        let g = program::generate(seed);
        let file = dir.join(format!("gen_{seed}.gsync"));
        std::fs::write(&file, &g.text).unwrap();
        let file = file.display().to_string();
        let (blocks, threads) = (g.blocks.to_string(), g.threads.to_string());
        let model = if seed % 2 == 0 { "sc" } else { "ptx" };
        let args = [
            "check",
            &file,
            "--blocks",
            &blocks,
            "--threads-per-block",
            &threads,
            "--memory-model",
            model,
            "--format",
            "json",
        ];
        let one = run(&args);
        let many = run(&[&args[..], &["--local-processes", "2"]].concat());
        let what = format!("seed {seed} ({model}):\n{}", g.text);
        if code(&many) == 2 && stderr(&many).contains("labelled state graph") {
            // Refused after the search, as documented: never a wrong verdict.
            continue;
        }
        assert_eq!(code(&many), code(&one), "{what}\n{}", stderr(&many));
        if code(&one) <= 1 {
            assert_eq!(json(&many), json(&one), "{what}");
        }
        violated += i32::from(code(&one) == 1);
    }
    let _ = std::fs::remove_dir_all(&dir);
    // The comparisons met violations as well as proofs.
    assert!((1..8).contains(&violated), "{violated} of 8 violated");
}

/// A harness stuck early: block 0 sets a flag and waits at a barrier no
/// one else reaches; block 1 first does six atomic adds unless it sees
/// the flag. One process stops at the stuck state when it expands it (16
/// states); without the early check the graph is completed (31).
const EARLY_STUCK: &str = "global u32 flag = 0;
global u32 work = 0;

harness all {
    if (blockIdx.x == 0) {
        atomicExch(flag, 1);
        bar.sync(1, threads_per_block + 1);
    } else {
        if (atomicAdd(flag, 0) == 0) {
            for (u32 i = 0; i < 6; i++) {
                atomicAdd(work, 1);
            }
        }
    }
}
";

#[test]
fn a_deadlock_decided_on_the_fly_as_one_process() {
    let dir = std::env::temp_dir().join(format!("gsync-dist-early-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("early_stuck.gsync");
    std::fs::write(&file, EARLY_STUCK).unwrap();
    let file = file.display().to_string();
    let states = |r: &serde_json::Value| r["stats"]["states"].as_u64().expect("states");
    let mut seen = Vec::new();
    for extra in [&[][..], &["--no-early-deadlock"], &["--scheduler", "fair"]] {
        for model in ["sc", "ptx"] {
            let args = [&["check", &file, "--memory-model", model][..], extra].concat();
            let report = live_as_one_process_json(&args);
            assert!(summary(&report).contains("deadlock"), "{report}");
            seen.push(states(&report));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    // The comparisons met a search stopped early: fewer states than the
    // same launch searched to the end (the figures distributed.md states).
    assert_eq!(seen, [16, 16, 31, 31, 16, 16]);
}

//! `gsync-check replay`: a saved counterexample is found from any
//! directory, and replay tells apart a reproduced violation (exit 1), a
//! fixed bug (0), a spec changed under the recording (4) and a corrupt
//! recording (5); a file that is no counterexample is an error (2).

mod common;

use common::*;
use std::path::{Path, PathBuf};

/// A mutex whose test-and-set is two plain accesses: under sc two blocks
/// can both read 0 and enter.
const RACY: &str = r#"//! name: racy_mutex
//! family: mutex
//! expect --memory-model sc: violated mutual_exclusion
global u32 lock = 0;
fn acquire() { while (lock != 0) { } lock = 1; }
fn release() { lock = 0; }
harness master {
    check mutual_exclusion;
    acquire(); critical { } release();
}
"#;

/// A scratch folder of its own for each test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gsync-replay-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Checks `spec_text` as `dir/racy_mutex.gsync` from `dir`, writing its
/// counterexample into `dir/cex`; returns the counterexample's path.
fn record(dir: &Path, spec_text: &str) -> PathBuf {
    std::fs::write(dir.join("racy_mutex.gsync"), spec_text).unwrap();
    let out = run_in(
        dir,
        &[
            "check",
            "racy_mutex.gsync",
            "--memory-model",
            "sc",
            "--out",
            "cex",
        ],
    );
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    dir.join("cex/racy_mutex.json")
}

/// Replays `cex` from the repository root (not where it was recorded).
fn replay(cex: &Path, format: &str) -> (i32, String) {
    let out = run(&["replay", cex.to_str().unwrap(), "--format", format]);
    (code(&out), stdout(&out) + &stderr(&out))
}

fn edit_spec(dir: &Path, from: &str, to: &str) {
    assert!(RACY.contains(from));
    std::fs::write(dir.join("racy_mutex.gsync"), RACY.replacen(from, to, 1)).unwrap();
}

#[test]
fn a_counterexample_replays_from_another_directory() {
    let dir = scratch("elsewhere");
    let cex = record(&dir, RACY);
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cex).unwrap()).unwrap();
    // Relative to the counterexample's folder, with the spec's hash.
    assert_eq!(saved["source"], "../racy_mutex.gsync");
    assert!(saved["spec_hash"].as_str().unwrap().starts_with("fnv1a64:"));
    let (code, out) = replay(&cex, "text");
    assert_eq!(code, 1, "{out}");
    assert!(out.starts_with("reproduced: mutual_exclusion"), "{out}");
    assert!(!out.contains("spec changed"), "{out}");
}

#[test]
fn an_edit_that_keeps_the_bug_still_reproduces_and_says_the_spec_changed() {
    let dir = scratch("comment");
    let cex = record(&dir, RACY);
    edit_spec(
        &dir,
        "global u32 lock",
        "// a new line moves every line below\nglobal u32 lock",
    );
    let (code, out) = replay(&cex, "text");
    assert_eq!(code, 1, "{out}");
    assert!(out.starts_with("reproduced: mutual_exclusion"), "{out}");
    assert!(out.contains("the spec changed since"), "{out}");
}

#[test]
fn a_fixed_bug_exits_0() {
    let dir = scratch("fixed");
    let cex = record(&dir, RACY);
    edit_spec(
        &dir,
        "while (lock != 0) { } lock = 1;",
        "while (atomicCAS(lock, 0, 1) != 0) { }",
    );
    let (code, out) = replay(&cex, "json");
    assert_eq!(code, 0, "{out}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["replay"], "fixed", "{out}");
}

#[test]
fn a_spec_that_now_fails_otherwise_is_a_changed_spec_exit_4() {
    let dir = scratch("changed");
    let cex = record(&dir, RACY);
    edit_spec(
        &dir,
        "acquire(); critical",
        "assert(lock == 7); acquire(); critical",
    );
    let (code, out) = replay(&cex, "text");
    assert_eq!(code, 4, "{out}");
    assert!(
        out.starts_with("spec changed:")
            && out.contains("assertion violation, not the recorded mutual_exclusion"),
        "{out}"
    );
}

#[test]
fn an_edited_recording_of_an_unchanged_spec_is_corrupt_exit_5() {
    let golden = repo().join("counterexamples/sense_barrier_no_flip.json");
    let original: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(golden).unwrap()).unwrap();
    let dir = scratch("corrupt");
    type Edit = fn(&mut serde_json::Value);
    let edits: [(&str, Edit, &str); 3] = [
        (
            "truncated",
            |v| {
                v["violation"]["trace"]["schedule"]
                    .as_array_mut()
                    .unwrap()
                    .pop();
            },
            "the schedule ends without the recorded barrier_safety violation",
        ),
        (
            "value",
            |v| {
                let steps = v["violation"]["trace"]["steps"].as_array_mut().unwrap();
                let read = steps.iter_mut().find(|s| s.get("reads").is_some()).unwrap();
                read["reads"][0]["value"] = 7.into();
            },
            "recorded reads of perSMBarr[0] = 7, replay read perSMBarr[0] = 0",
        ),
        (
            // The same instruction and line on both sides: the message
            // names what differs.
            "pc",
            |v| {
                let pc = &mut v["violation"]["trace"]["steps"][0]["pc"];
                *pc = (pc.as_u64().unwrap() + 1).into();
            },
            "is recorded as instruction",
        ),
    ];
    for (name, edit, says) in edits {
        let mut saved = original.clone();
        edit(&mut saved);
        let path = dir.join(format!("{name}.json"));
        std::fs::write(&path, serde_json::to_string(&saved).unwrap()).unwrap();
        let (code, out) = replay(&path, "text");
        assert_eq!(code, 5, "{name}: {out}");
        assert!(
            out.starts_with("corrupt: the spec is unchanged") && out.contains(says),
            "{name}: {out}"
        );
    }
}

#[test]
fn replay_rejects_a_file_that_is_not_a_counterexample() {
    let path = write_temp_spec("not_json", "{ \"hello\": 1 }");
    let out = run(&["replay", path.to_str().unwrap()]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("not a gsync-check counterexample"));
}

/// The committed counterexample of `spec` with `edit` applied, written to
/// a scratch folder of `test`'s own.
fn edited_golden(spec: &str, test: &str, edit: impl FnOnce(&mut serde_json::Value)) -> PathBuf {
    let golden = repo().join(format!("counterexamples/{spec}.json"));
    let mut saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(golden).unwrap()).unwrap();
    edit(&mut saved);
    let path = scratch(test).join(format!("{test}.json"));
    std::fs::write(&path, serde_json::to_string(&saved).unwrap()).unwrap();
    path
}

/// Found by the fuzzer (tests/fuzz): a recording whose launch has 0
/// threads per block divided by zero drawing its SVG; it is a corrupt
/// recording of an unchanged spec.
#[test]
fn a_recording_with_an_empty_block_is_corrupt_and_still_drawn() {
    let path = edited_golden("spin_lock", "empty_block", |v| {
        v["config"]["threads_per_block"] = 0.into();
    });
    let svg = path.with_extension("svg");
    let out = run(&[
        "replay",
        path.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    let text = stdout(&out) + &stderr(&out);
    assert_eq!(code(&out), 5, "{text}");
    assert!(
        text.contains(
            "the recorded configuration is refused: --threads-per-block must be at least 1"
        ),
        "{text}"
    );
    assert!(std::fs::read_to_string(svg).unwrap().starts_with("<svg"));
}

/// Found by the fuzzer (tests/fuzz): a recording edited to a large launch
/// made replay search, without a bound, for a way to finish from the
/// deadlock's state. The search keeps to the recorded limits, and says so
/// when it stops at one (exit 3, as a check does).
#[test]
fn a_deadlock_whose_search_reaches_the_recorded_limit_is_inconclusive() {
    let path = edited_golden("lockbit_alias_self", "wide", |v| {
        v["config"]["blocks"] = 64.into();
        v["config"]["max_states"] = 1000.into();
    });
    let (code, out) = replay(&path, "text");
    assert_eq!(code, 3, "{out}");
    assert!(
        out.starts_with("inconclusive: ")
            && out.contains("stopped at the recorded --max-states limit"),
        "{out}"
    );
    let (code, out) = replay(&path, "json");
    assert_eq!(code, 3, "{out}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["replay"], "inconclusive", "{out}");
}

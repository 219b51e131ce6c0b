//! `relax` and `repair` through the real binary: relaxed specs re-verified
//! by `verify`, an over-strong spec relaxed, the maximality claim checked
//! independently (each point of a result weakened one step by hand must
//! break an expectation), fixes that verify, and "no fix" where no
//! ordering change can help.

mod common;

use common::*;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gsync-relax-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `relax SPEC -o OUT`: exit 0 and the relaxed text.
fn relax_to(spec: &str, out: &Path) -> (String, String) {
    let o = run(&["relax", spec, "-q", "-o", path_str(out)]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    (stdout(&o), std::fs::read_to_string(out).unwrap())
}

fn verify(path: &Path) -> std::process::Output {
    run(&["verify", path_str(path)])
}

#[test]
fn relaxed_builtin_specs_verify() {
    // (spec, what its relaxed text must show)
    let cases: &[(&str, &str)] = &[
        ("mp_flag", "fence.acq_rel.gpu()"),
        ("spin_lock_backoff", "fence.acq_rel.gpu()"),
        ("sense_barrier_central", "atomicExch_block("),
        ("shared_spin_lock", "_block("),
        ("spin_lock_semaphore", ""),
    ];
    for (spec, shows) in cases {
        let out = scratch(&format!("{spec}_relaxed.gsync"));
        let (report, text) = relax_to(spec, &out);
        assert!(report.contains("maximal: each of the"), "{spec}: {report}");
        assert!(report.contains("relax: done"), "{spec}: {report}");
        assert!(text.contains(shows), "{spec}: no `{shows}` in\n{text}");
        assert!(
            report.contains(&format!("+++ {}", out.display())),
            "{report}"
        );
        let v = verify(&out);
        assert_eq!(code(&v), 0, "{spec} relaxed:\n{}", stdout(&v));
    }
}

/// A message-passing spec written far too strong: system-scope release
/// and acquire, an SC fence beside each, a fence in the spin loop.
const OVER_STRONG: &str = r#"//! name: mp_over_strong
//! expect --memory-model ptx: verified
//! expect --memory-model ptx --blocks 3: verified
global i32 data = 0;
global u32 flag = 0;
harness master {
    if (blockIdx == 0) {
        data = 42;
        __threadfence_system();
        store.release.sys(flag, 1);
    } else {
        while (load.acquire.sys(flag) == 0) {
            __threadfence_system();
        }
        __threadfence_system();
        assert(data == 42);
    }
}
"#;

#[test]
fn an_over_strong_spec_is_relaxed_to_gpu_scope_and_fewer_fences() {
    let spec = write_temp_spec("mp_over_strong", OVER_STRONG);
    let out = scratch("mp_over_strong_relaxed.gsync");
    let o = run(&[
        "relax",
        path_str(&spec),
        "-q",
        "--format",
        "json",
        "-o",
        path_str(&out),
    ]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(json["maximal"], true);
    let counts = &json["counts"];
    // Found on this spec: the poll relaxed with one acquire fence after
    // the loop (cheaper than an acquire per poll), the release at gpu.
    assert!(counts["fences_removed"].as_u64().unwrap() >= 2, "{counts}");
    assert!(counts["scopes_narrowed"].as_u64().unwrap() >= 3, "{counts}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(!text.contains(".sys"), "{text}");
    assert!(!text.contains("__threadfence_system"), "{text}");
    // Between blocks, block scope is not enough: gpu stays.
    assert!(text.contains("store.release.gpu(flag, 1)"), "{text}");
    assert!(text.contains("(flag) == 0"), "{text}");
    assert_eq!(code(&verify(&out)), 0);
}

#[test]
fn each_further_weakening_of_a_relaxed_spec_breaks_an_expectation() {
    let out = scratch("mp_flag_maximal.gsync");
    let (_, text) = relax_to("mp_flag", &out);
    // Every point of the result, one step weaker, by hand.
    let fence = "fence.acq_rel.gpu();";
    assert_eq!(text.matches(fence).count(), 2, "{text}");
    let mut variants = Vec::new();
    for (k, (at, _)) in text.match_indices(fence).enumerate() {
        let removed = format!("{}{}", &text[..at], &text[at + fence.len()..]);
        let narrowed = format!(
            "{}fence.acq_rel.cta();{}",
            &text[..at],
            &text[at + fence.len()..]
        );
        variants.push((format!("fence {k} removed"), removed));
        variants.push((format!("fence {k} at cta"), narrowed));
    }
    variants.push((
        "flag not volatile".into(),
        text.replacen("global volatile i32 flag", "global i32 flag", 1),
    ));
    for (what, variant) in variants {
        assert_ne!(variant, text, "{what}");
        let path = write_temp_spec("mp_flag_weaker", &variant);
        let v = verify(&path);
        assert_eq!(
            code(&v),
            1,
            "{what}: still meets its expectations\n{}",
            stdout(&v)
        );
    }
}

#[test]
fn repair_inserts_the_fences_a_message_passing_spec_lacks() {
    let out = scratch("mp_flag_repaired.gsync");
    let o = run(&["repair", "mp_flag_no_fence", "-q", "-o", path_str(&out)]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let report = stdout(&o);
    assert!(
        report.contains("the check gives: violated heterogeneous_race"),
        "{report}"
    );
    assert_eq!(report.matches("help: insert `").count(), 2, "{report}");
    assert!(report.contains("minimal:"), "{report}");
    for blocks in ["2", "3"] {
        let c = run(&["check", path_str(&out), "--blocks", blocks]);
        assert_eq!(code(&c), 0, "--blocks {blocks}: {}", stdout(&c));
    }
}

#[test]
fn repair_widens_the_block_scope_atomics_of_a_tree_barrier() {
    let out = scratch("tree_repaired.gsync");
    let o = run(&[
        "repair",
        "tree_barrier_block_atomics",
        "-q",
        "-o",
        path_str(&out),
    ]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let report = stdout(&o);
    assert!(report.contains("scopes narrowed: 0, widened: "), "{report}");
    assert!(!report.contains("widened: 0"), "{report}");
    let c = run(&["check", path_str(&out)]);
    assert_eq!(code(&c), 0, "{}", stdout(&c));
}

#[test]
fn repair_finds_no_fix_for_a_deadlock_by_design() {
    for args in [
        &["repair", "tree_barrier_single", "-q"][..],
        &[
            "repair",
            "heterosync_tree_barrier",
            "--blocks",
            "3",
            "--resident",
            "2",
            "-q",
        ][..],
    ] {
        let o = run(args);
        assert_eq!(code(&o), 1, "{args:?}: {}{}", stdout(&o), stderr(&o));
        let report = stdout(&o);
        assert!(report.contains("repair: no fix:"), "{report}");
        assert!(report.contains("deadlock"), "{report}");
        assert!(!report.contains("help:"), "{report}");
    }
}

#[test]
fn repair_of_a_verified_check_changes_nothing() {
    let o = run(&["repair", "mp_flag", "-q"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    assert!(stdout(&o).contains("nothing to repair"));
    assert!(!stdout(&o).contains("+++"));
}

#[test]
fn relax_refuses_what_it_cannot_relax() {
    // A spec that does not meet an expectation: located, exit 2.
    let wrong = OVER_STRONG.replace(
        "//! expect --memory-model ptx: verified",
        "//! expect --memory-model ptx: violated deadlock",
    );
    let path = write_temp_spec("mp_wrong", &wrong);
    let o = run(&["relax", path_str(&path), "-q"]);
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    assert!(
        stderr(&o).contains(&format!("{}:2:", path.display())),
        "{}",
        stderr(&o)
    );
    // Only SC expectations: nothing to relax.
    let sc = OVER_STRONG.replace("--memory-model ptx", "--memory-model sc");
    let path = write_temp_spec("mp_sc", &sc);
    let o = run(&["relax", path_str(&path), "-q"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--memory-model ptx"), "{}", stderr(&o));
    // No expectation at all.
    let none = OVER_STRONG.replace("//! expect", "//! note: was");
    let path = write_temp_spec("mp_none", &none);
    assert_eq!(code(&run(&["relax", path_str(&path), "-q"])), 2);
    // Bad expect options, located.
    let bad = OVER_STRONG.replace("--blocks 3", "--blcks 3");
    let path = write_temp_spec("mp_bad", &bad);
    let o = run(&["relax", path_str(&path), "-q"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains(":3: the expect line's options"),
        "{}",
        stderr(&o)
    );
    assert_eq!(code(&run(&["relax", "no_such_spec"])), 2);
}

#[test]
fn a_time_limit_makes_the_search_inconclusive() {
    let o = run(&["relax", "ticket_mutex", "-q", "--max-seconds", "0.01"]);
    assert_eq!(code(&o), 3, "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("relax: inconclusive"), "{}", stdout(&o));
    // What was written meets the expectations even so.
    let out = scratch("ticket_partial.gsync");
    let o = run(&[
        "relax",
        "ticket_mutex",
        "-q",
        "--max-seconds",
        "0.5",
        "-o",
        path_str(&out),
    ]);
    assert!(matches!(code(&o), 0 | 3), "{}", stdout(&o));
    assert_eq!(code(&verify(&out)), 0);
}

/// #42 item 5: a race's hint is a hint, not a fix. For
/// `semaphore_check_outside_lock` the old "Fix:" told both sides to fence,
/// which leaves the race (the bug is the read outside the lock); the
/// report now says what the accesses need and to read the trace, and
/// `--suggest-fix` finds that no ordering change cures it.
#[test]
fn a_race_hint_is_not_a_fix_until_checked() {
    let spec = "semaphore_check_outside_lock";
    let o = run(&[spec]);
    assert_eq!(code(&o), 1);
    let report = stdout(&o);
    assert!(!report.contains("Fix:"), "{report}");
    assert!(report.contains("Hint (not a checked fix):"), "{report}");
    assert!(report.contains("read the counterexample"), "{report}");
    assert!(report.contains("`--suggest-fix` searches"), "{report}");
    assert!(!report.contains("help:"), "{report}");

    let o = run(&[spec, "--suggest-fix"]);
    assert_eq!(code(&o), 1, "the verdict stays: {}", stderr(&o));
    let report = stdout(&o);
    assert!(
        report.contains("fix: no ordering change cures it"),
        "{report}"
    );
    assert!(report.contains("mutual_exclusion"), "{report}");
    assert!(!report.contains("help:"), "{report}");
    assert!(!report.contains("`--suggest-fix` searches"), "{report}");
}

/// `check --suggest-fix` on a missing fence: the help lines and diff of a
/// fix that was checked; the same change, applied, verifies.
#[test]
fn suggest_fix_shows_a_checked_fix_for_a_missing_fence() {
    let o = run(&["check", "specs/mp_flag_no_fence.gsync", "--suggest-fix"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let report = stdout(&o);
    assert!(
        report.contains("fix: checked: with it the check verifies"),
        "{report}"
    );
    assert!(report.contains("minimal:"), "{report}");
    let helps: Vec<&str> = report.lines().filter(|l| l.starts_with("help: ")).collect();
    assert_eq!(helps.len(), 2, "{report}");
    assert!(
        helps.iter().all(|h| h.contains("insert `fence.")),
        "{report}"
    );
    // The diff's added lines, applied by hand at the lines the help names.
    let text = std::fs::read_to_string("specs/mp_flag_no_fence.gsync").unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut at: Vec<(usize, String)> = helps
        .iter()
        .map(|h| {
            let fence = h.split('`').nth(1).unwrap().to_string();
            let line: usize = h
                .rsplit("line ")
                .next()
                .unwrap()
                .split(':')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            (line, fence)
        })
        .collect();
    at.sort_by_key(|a| std::cmp::Reverse(a.0));
    for (line, fence) in at {
        lines.insert(line - 1, format!("        {fence}"));
    }
    let out = scratch("mp_flag_suggested.gsync");
    std::fs::write(&out, lines.join("\n") + "\n").unwrap();
    for blocks in ["2", "3"] {
        let c = run(&["check", path_str(&out), "--blocks", blocks]);
        assert_eq!(code(&c), 0, "--blocks {blocks}: {}", stdout(&c));
    }
}

/// A deadlock by design and an occupancy deadlock: `--suggest-fix` says
/// that no ordering change cures them, and offers nothing.
#[test]
fn suggest_fix_says_no_ordering_change_cures_a_deadlock() {
    for args in [
        &["tree_barrier_single", "--suggest-fix"][..],
        &[
            "heterosync_tree_barrier",
            "--blocks",
            "3",
            "--resident",
            "2",
            "--suggest-fix",
        ][..],
    ] {
        let o = run(args);
        assert_eq!(code(&o), 1, "{args:?}: {}", stderr(&o));
        let report = stdout(&o);
        assert!(
            report.contains("fix: no ordering change cures it"),
            "{args:?}: {report}"
        );
        assert!(report.contains("deadlock"), "{report}");
        assert!(!report.contains("help:"), "{report}");
    }
}

#[test]
fn suggest_fix_is_for_one_spec() {
    let o = run(&["barrier", "--suggest-fix"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("name a single spec"), "{}", stderr(&o));
}

/// `--max-seconds` bounds the whole run, the fix's search included: a
/// search cut short shows no fix (a half-walked saturated spec is not a
/// change to suggest), and the verdict stays the check's.
#[test]
fn suggest_fix_stays_within_max_seconds() {
    let started = std::time::Instant::now();
    let o = run(&[
        "tree_barrier_block_atomics",
        "--suggest-fix",
        "--max-seconds",
        "0.5",
    ]);
    let seconds = started.elapsed().as_secs_f64();
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(seconds < 10.0, "took {seconds} s");
    let report = stdout(&o);
    assert!(report.contains("\nfix: "), "{report}");
    if !report.contains("fix: checked") {
        assert!(report.contains("stopped"), "{report}");
        assert!(!report.contains("help:"), "{report}");
    }
}

//! The command line: exit codes, located errors, limits, determinism and
//! the family table, run through the real binary.

mod common;

use common::*;

const GOOD: &str = r#"//! name: good
//! family: mutex
//! expect: verified
param iters = 1;
global u32 lock = 0;
fn acquire() { while (atomicCAS(lock, 0, 1) != 0) { backoff(); } }
fn release() { atomicExch(lock, 0); }
harness master {
    check mutual_exclusion;
    for (u32 i = 0; i < iters; i++) { acquire(); critical { } release(); }
}
"#;

/// Replaces the first occurrence of `from` in the good spec.
fn broken(from: &str, to: &str) -> String {
    assert!(GOOD.contains(from), "{from} not in the good spec");
    GOOD.replacen(from, to, 1)
}

#[test]
fn the_good_spec_is_verified() {
    let path = write_temp_spec("good", GOOD);
    let out = run(&["check", path.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("VERIFIED"));
}

#[test]
fn malformed_specs_get_located_errors_and_exit_2() {
    // (what is wrong, replacement, expected message fragment, expected line:col)
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "release(); }\n}",
            "release(); }\n",
            "is never closed",
            "8:16",
        ),
        (
            "atomicExch(lock, 0); }",
            "atomicExch(lock, 0) }",
            "expected `;`",
            "7:36",
        ),
        (
            "while (atomicCAS(lock",
            "while (atomicCAS(lokc",
            "unknown name `lokc`",
            "6:33",
        ),
        (
            "atomicExch(lock, 0)",
            "atomicExch.warp(lock, 0)",
            "unknown qualifier",
            "7:27",
        ),
        (
            "global u32 lock",
            "global uint64_t lock",
            "spelt `u64`",
            "5:8",
        ),
        (
            "atomicCAS(lock, 0, 1)",
            "atomicCAS(lock, 0)",
            "takes 3 arguments",
            "6:23",
        ),
        (
            "acquire(); critical",
            "acquire(1); critical",
            "takes 0 argument",
            "10:39",
        ),
        (
            "atomicExch(lock, 0)",
            "atomicExch(i, 0)",
            "unknown name `i`",
            "7:27",
        ),
        ("harness master", "harness everyone", "master", "8:9"),
        (
            "check mutual_exclusion",
            "check fairness",
            "fairness",
            "9:11",
        ),
        (
            "{ backoff(); }",
            "{ backof(); }",
            "unknown procedure `backof`",
            "6:53",
        ),
        (
            "for (u32 i = 0;",
            "for (u32 i = 0 ",
            "expected `;`",
            "10:21",
        ),
        (
            "global u32 lock = 0;",
            "global u32 lock = 0;\nglobal u32 lock = 1;",
            "already defined at line 5",
            "6:12",
        ),
        (
            "release() { atomicExch",
            "release() { break; atomicExch",
            "outside of a loop",
            "7:16",
        ),
    ];
    let mut failures = Vec::new();
    for (i, (from, to, message, location)) in cases.iter().enumerate() {
        let path = write_temp_spec(&format!("bad{i}"), &broken(from, to));
        let out = run(&["check", path.to_str().unwrap()]);
        let err = stderr(&out);
        let located = format!("bad{i}.gsync:{location}");
        let ok = code(&out) == 2
            && err.contains(message)
            && err.contains(&located)
            && err.contains('^')
            && !err.contains("panicked");
        if !ok {
            failures.push(format!(
                "case {i} ({to:?}): want exit 2, `{message}` at {located}; got exit {}:\n{err}",
                code(&out)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn impossible_launches_and_bad_options_exit_2() {
    for (args, fragment) in [
        (
            vec!["spin_lock", "--blocks", "0"],
            "'--blocks <N>': must be at least 1",
        ),
        (
            vec!["spin_lock", "--threads-per-block", "0"],
            "'--threads-per-block <N>': must be at least 1",
        ),
        (
            vec!["spin_lock", "--blocks", "100000"],
            "more than 1024 threads",
        ),
        (
            vec!["spin_lock", "--param", "nope=1"],
            "has no parameter `nope`",
        ),
        (
            vec!["spin_lock", "--memory-model", "tso"],
            "unknown memory model",
        ),
        (vec!["no_such_spec"], "no built-in spec or family"),
        (vec!["spin_lock", "--frobnicate"], "--frobnicate"),
        (
            vec!["spin_lock", "--threads", "0"],
            "worker threads are 1 to 1024",
        ),
        (
            vec!["spin_lock", "--scheduler", "fiar"],
            "unknown progress model `fiar`",
        ),
        (
            vec!["spin_lock", "--scheduler", "blocks=obe,warps=fair"],
            "unknown level `warps`",
        ),
        (
            vec!["spin_lock", "--scheduler", "threads=strong"],
            "give it alone, --scheduler strong",
        ),
    ] {
        assert_usage_error(&args, fragment);
    }
}

/// Values that would run but mean nothing are refused, each naming its
/// rule (#17): a negative parameter (the loop never runs, a capacity below
/// zero), limits that stop before the first state, options that do not
/// apply, and formats or outputs a command does not have.
#[test]
fn values_that_mean_nothing_are_refused() {
    let cex = "counterexamples/spin_lock.json";
    // An expectation file (any extension) without a row for the test.
    let no_mp_row = write_temp_spec("no_mp_row", "SB.litmus,1\n");
    let no_mp_row = no_mp_row.to_str().unwrap();
    for (args, fragment) in [
        (&["spin_lock", "--param", "iters=-1"][..], "non-negative"),
        (&["spin_lock", "--iters", "-1"], "non-negative"),
        (&["semaphore", "--size", "-3"], "non-negative"),
        (
            &["spin_lock", "--max-seconds", "nan"],
            "positive number of seconds",
        ),
        (
            &["spin_lock", "--max-seconds", "inf"],
            "positive number of seconds",
        ),
        (
            &["spin_lock", "--max-seconds", "0"],
            "positive number of seconds",
        ),
        (&["spin_lock", "--max-memory", "0"], "must be at least 1"),
        (&["spin_lock", "--max-states", "0"], "must be at least 1"),
        (
            &["spin_lock", "--threads", "100000"],
            "worker threads are 1 to 1024",
        ),
        (
            &["spin_lock", "--sms", "0", "--blocks-per-sm", "2"],
            "'--sms <S>'",
        ),
        (
            &["spin_lock", "--iters", "1", "--param", "iters=2"],
            "set twice",
        ),
        (&["spin_lock", "--lock-bits", "8"], "use the lock unit"),
        (
            &["spin_lock", "--memory-model", "sc", "--no-races"],
            "sc reports no races",
        ),
        (
            &["spin_lock", "--format", "junit"],
            "use it with `gsync-check verify",
        ),
        (
            &["spin_lock", "--format", "xml"],
            "expected text, json or sarif",
        ),
        (
            &["spin_lock", "--format", "sarif", "--stats"],
            "this format has none",
        ),
        (
            &["replay", cex, "--out", "x"],
            "unexpected argument '--out'",
        ),
        (
            &["replay", cex, "--format", "sarif"],
            "possible values: text, json",
        ),
        (
            &["verify", "specs/spin_lock.gsync", "--svg", "x.svg"],
            "'--svg'",
        ),
        (
            &["litmus", "tests/litmus/MP.litmus", "--format", "junit"],
            "possible values: text, json",
        ),
        (
            &["litmus", "tests/litmus/MP.litmus", "--max-states", "0"],
            "must be at least 1",
        ),
        (&["bench-checker", "--families", "barier"], "unknown family"),
        (
            &["bench-checker", "--max-seconds", "-5"],
            "positive number of seconds",
        ),
        (
            &["run", "spin_lock", "--repeats", "0"],
            "must be at least 1",
        ),
        (
            &["run", "spin_lock", "--format", "sarif"],
            "possible values: text, json",
        ),
        (&["bench", "--barrier-iters", "0"], "must be at least 1"),
        (
            &["litmus", "tests/litmus/MP.litmus", "--expect", no_mp_row],
            "has no row",
        ),
    ] {
        assert_usage_error(args, fragment);
    }
}

/// A report is named by the spec's `//! name:` line, not by the file it
/// happens to be saved in.
#[test]
fn a_report_takes_its_name_from_the_header() {
    let path = write_temp_spec("saved_under_another_name", GOOD);
    let out = run(&["check", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["spec"], "good");
    let out = run(&["verify", path.to_str().unwrap()]);
    assert!(stdout(&out).contains("PASS good ["), "{}", stdout(&out));
}

/// `verify --max-states` (and `--max-seconds`, `--max-memory`) caps every
/// expectation: one that needs more states ends inconclusive and fails,
/// and a bad value is refused like `check`'s.
#[test]
fn verify_limits_cap_every_expectation() {
    let spec = "specs/spin_lock.gsync";
    let free = run(&["verify", spec]);
    assert_eq!(code(&free), 0, "{}", stdout(&free));
    let capped = run(&["verify", spec, "--max-states", "3"]);
    assert_eq!(code(&capped), 1, "{}", stdout(&capped));
    assert!(
        stdout(&capped).contains("inconclusive"),
        "{}",
        stdout(&capped)
    );
    let roomy = run(&[
        "verify",
        spec,
        "--max-seconds",
        "600",
        "--max-memory",
        "4096",
    ]);
    assert_eq!(code(&roomy), 0, "{}", stdout(&roomy));
    let bad = run(&["verify", spec, "--max-seconds", "-1"]);
    assert_eq!(code(&bad), 2);
    assert!(
        stderr(&bad).contains("positive number of seconds"),
        "{}",
        stderr(&bad)
    );
}

/// A spec whose parameter defaults to a negative value is refused at the
/// declaration, unless the command line overrides it.
#[test]
fn a_negative_parameter_default_is_a_located_error() {
    let path = write_temp_spec("negative_default", &GOOD.replace("iters = 1", "iters = -1"));
    let out = run(&["check", path.to_str().unwrap()]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("negative_default.gsync:4:1")
            && stderr(&out).contains("non-negative"),
        "{}",
        stderr(&out)
    );
    let out = run(&["check", path.to_str().unwrap(), "--iters", "1"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

/// `verify --out` writes the counterexample of each expectation that found
/// a violation, named after its expect line; `--stats` adds timings to JSON.
#[test]
fn verify_writes_counterexamples_and_stats() {
    let dir = std::env::temp_dir().join(format!("gsync-verify-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let spec = "specs/sense_barrier_no_flip.gsync";
    let out = run(&[
        "verify",
        spec,
        "--out",
        dir.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json[0]["report"]["stats"].get("seconds").is_none());
    // Line 7 is the first `expect ... violated` line.
    let cex = dir.join("sense_barrier_no_flip.line7.json");
    let replayed = run(&["replay", cex.to_str().unwrap()]);
    assert_eq!(code(&replayed), 1, "{}", stdout(&replayed));
    let _ = std::fs::remove_dir_all(&dir);
    let out = run(&["verify", spec, "--stats", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json[0]["report"]["stats"]["seconds"].is_number());
}

#[test]
fn a_tiny_state_limit_is_inconclusive_with_exit_3() {
    let out = run(&[
        "ticket_mutex",
        "--blocks",
        "3",
        "--max-states",
        "5",
        "--format",
        "json",
    ]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["verdict"], "inconclusive");
    assert_eq!(json["limit"], "max_states");
    assert!(json["stats"]["states"].as_u64().unwrap() <= 5);
}

#[test]
fn json_reports_are_byte_identical_across_runs() {
    for args in [
        vec![
            "semaphore",
            "--blocks",
            "3",
            "--memory-model",
            "sc",
            "--format",
            "json",
        ],
        vec!["semaphore", "--format", "json"],
        vec!["sense_barrier_no_flip", "--format", "json"],
    ] {
        let a = run(&args);
        let b = run(&args);
        assert!(!a.stdout.is_empty());
        assert_eq!(a.stdout, b.stdout, "{args:?} differs between runs");
        // Nor does the number of explorer threads change a byte.
        let threaded = run(&[args.as_slice(), &["--threads", "3"]].concat());
        assert_eq!(
            a.stdout, threaded.stdout,
            "{args:?} differs with --threads 3"
        );
    }
}

#[test]
fn family_json_is_an_array_of_reports_and_exit_is_the_worst() {
    let out = run(&["barrier", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let reports = json.as_array().expect("an array");
    assert!(reports.len() >= 5, "every barrier variant");
    let any_violated = reports.iter().any(|r| r["verdict"] == "violated");
    assert!(any_violated, "the buggy barriers are in the family");
    assert_eq!(code(&out), 1);
    for r in reports {
        for key in ["spec", "config", "verdict", "stats", "violations"] {
            assert!(r.get(key).is_some(), "report lacks `{key}`");
        }
    }
}

#[test]
fn family_table_lists_every_variant() {
    let out = run(&["mutex"]);
    let text = stdout(&out);
    for name in ["spin_lock", "ticket_mutex", "ring_buffer_mutex"] {
        assert!(text.contains(name), "{name} missing from:\n{text}");
    }
    assert!(text.contains("verdict") && text.contains("states"));
}

#[test]
fn list_shows_sources() {
    let out = run(&["list"]);
    assert_eq!(code(&out), 0);
    let text = stdout(&out);
    assert!(
        text.contains("spin_lock") && text.contains("seed 003"),
        "{text}"
    );
}

#[test]
fn show_prints_a_builtin_spec_source_exactly() {
    let out = run(&["show", "spin_lock"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let file = std::fs::read_to_string(repo().join("specs/spin_lock.gsync")).unwrap();
    assert_eq!(stdout(&out), file, "show prints the spec byte for byte");
    // It works from any directory: the specs are compiled in.
    let out = run_in(&std::env::temp_dir(), &["show", "ticket_mutex"]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).starts_with("//! name: ticket_mutex"));
}

#[test]
fn show_refuses_an_unknown_name_with_a_suggestion() {
    let out = run(&["show", "spin_lok"]);
    assert_eq!(code(&out), 2);
    assert!(stdout(&out).is_empty());
    assert!(
        stderr(&out).contains("no built-in spec named `spin_lok`; did you mean `spin_lock`?"),
        "{}",
        stderr(&out)
    );
    // A family is not a spec: say what to do instead.
    let out = run(&["show", "mutex"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("is a family"), "{}", stderr(&out));
    let out = run(&["show"]);
    assert_eq!(code(&out), 2, "the name is required");
    let out = run(&["show", "--help"]);
    assert!(stdout(&out).contains("gsync-check show spin_lock"));
}

#[test]
fn show_numbers_the_lines_a_trace_cites() {
    let file = std::fs::read_to_string(repo().join("specs/spin_lock.gsync")).unwrap();
    let out = run(&["show", "spin_lock", "--lines", "29-30"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let want: String = file
        .lines()
        .enumerate()
        .skip(28)
        .take(2)
        .map(|(i, l)| format!("{}  {l}\n", i + 1))
        .collect();
    assert_eq!(stdout(&out), want);
    let out = run(&["show", "spin_lock", "-n"]);
    assert_eq!(stdout(&out).lines().count(), file.lines().count());
    assert!(stdout(&out).starts_with(" 1  //! name: spin_lock"));
    // Ranges that make no sense are usage errors.
    for bad in ["30-29", "0-3", "x", "1-100000"] {
        let out = run(&["show", "spin_lock", "--lines", bad]);
        assert_eq!(code(&out), 2, "--lines {bad}: {}", stderr(&out));
    }
}

#[test]
fn help_has_examples() {
    let out = run(&["--help"]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).contains("Examples:"));
}

#[test]
fn builtins_work_from_any_directory() {
    let out = run_in(&std::env::temp_dir(), &["spin_lock"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

/// The verdicts of a family run as (spec, verdict, first violation kind).
fn family_verdicts(args: &[&str]) -> Vec<(String, String, String)> {
    let out = run(args);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{args:?}: no JSON; stderr: {}", stderr(&out)));
    json.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["spec"].as_str().unwrap().to_string(),
                r["verdict"].as_str().unwrap().to_string(),
                r["violations"][0]["kind"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            )
        })
        .collect()
}

#[test]
fn liveness_family_tables_under_weak_fairness() {
    let weak = |family: &str| {
        family_verdicts(&[
            family,
            "--blocks",
            "4",
            "--scheduler",
            "fair",
            "--memory-model",
            "sc",
            "--format",
            "json",
        ])
    };
    let mutex = weak("mutex");
    let kind = |rows: &[(String, String, String)], name: &str| {
        rows.iter()
            .find(|r| r.0 == name)
            .map(|r| (r.1.clone(), r.2.clone()))
            .unwrap_or_else(|| panic!("{name} missing"))
    };
    assert_eq!(
        kind(&mutex, "spin_lock"),
        ("violated".into(), "starvation".into())
    );
    assert_eq!(kind(&mutex, "ticket_mutex"), ("verified".into(), "".into()));
    let sem = weak("semaphore");
    assert_eq!(
        kind(&sem, "heterosync_semaphore"),
        ("violated".into(), "livelock".into())
    );
    assert_eq!(
        kind(&sem, "priority_semaphore"),
        ("violated".into(), "starvation".into())
    );
}

#[test]
fn too_few_resident_blocks_is_an_occupancy_deadlock_for_every_global_barrier() {
    let rows = family_verdicts(&[
        "barrier",
        "--blocks",
        "4",
        "--resident",
        "2",
        "--memory-model",
        "sc",
        "--format",
        "json",
    ]);
    for (spec, verdict, kind) in &rows {
        // The one barrier with a safety bug reports that first.
        if spec == "sense_reversing_barrier" {
            continue;
        }
        // Two kernel launches are the safe alternative: no in-kernel barrier.
        if spec == "two_kernel_barrier" {
            assert_eq!(verdict, "verified");
            continue;
        }
        assert_eq!(
            (verdict.as_str(), kind.as_str()),
            ("violated", "occupancy_deadlock"),
            "{spec}"
        );
    }
    let out = run(&["atomic_counter_barrier", "--blocks", "3", "--resident", "2"]);
    assert!(
        stdout(&out).contains("block 2, which can never become resident"),
        "{}",
        stdout(&out)
    );
    let out = run(&["atomic_counter_barrier", "--blocks", "2", "--resident", "2"]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
}

#[test]
fn liveness_defaults_apply_only_under_a_fair_scheduler() {
    let fair = run(&["spin_lock", "--scheduler", "fair", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&fair.stdout).unwrap();
    assert_eq!(
        json["config"]["params"]["iters"], 0,
        "the spec's `liveness: iters=0`"
    );
    let explicit = run(&[
        "spin_lock",
        "--scheduler",
        "fair",
        "--iters",
        "1",
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_slice(&explicit.stdout).unwrap();
    assert_eq!(
        json["config"]["params"]["iters"], 1,
        "the command line wins"
    );
    assert_eq!(
        json["verdict"], "verified",
        "one round each cannot starve anyone"
    );
}

#[test]
fn a_tiny_memory_limit_is_inconclusive_with_exit_3() {
    for args in [
        vec![
            "ticket_mutex",
            "--blocks",
            "5",
            "--no-symmetry",
            "--max-memory",
            "1",
            "--format",
            "json",
        ],
        vec![
            "ticket_mutex",
            "--blocks",
            "4",
            "--scheduler",
            "fair",
            "--max-memory",
            "1",
            "--format",
            "json",
        ],
    ] {
        let out = run(&args);
        assert_eq!(code(&out), 3, "{args:?}: {}", stderr(&out));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(json["limit"], "max_memory", "{args:?}");
    }
}

#[test]
fn ptx_is_the_default_memory_model_except_for_what_only_sc_models() {
    let model = |args: &[&str]| {
        let out = run(&[args, &["--format", "json"]].concat());
        let json: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| panic!("{args:?}: {}", stderr(&out)));
        json["config"]["memory_model"].as_str().unwrap().to_string()
    };
    assert_eq!(model(&["spin_lock"]), "ptx");
    assert_eq!(model(&["spin_lock", "--memory-model", "sc"]), "sc");
    // Lockstep warps (the spec's header) and the lock unit: sc only.
    assert_eq!(model(&["tinylock_mutex"]), "sc");
    assert_eq!(model(&["lockbit_alias_self"]), "sc");
    let out = run(&["tinylock_mutex", "--memory-model", "ptx"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("under --memory-model sc only"));
    let help = stdout(&run(&["--help"]));
    assert!(help.contains("Default: ptx"), "{help}");
}

/// The canonical fixpoint is on by default: under `ptx` it stores fewer
/// states than `--no-canonical-fixpoint`, the JSON config records it
/// either way (replays need it) and `--stats` names it either way; under
/// `sc`, which has no canonical form, the switch changes nothing and is no
/// error.
#[test]
fn the_canonical_fixpoint_is_the_default_and_changes_nothing_under_sc() {
    let run_json = |args: &[&str]| {
        let base = ["priority_semaphore", "--blocks", "3", "--stats"];
        let out = run(&[&base[..], args, &["--format", "json"]].concat());
        assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| panic!("{args:?}: {}", stderr(&out)));
        json
    };
    let states = |json: &serde_json::Value| json["stats"]["states"].as_u64().unwrap();
    let (on, off) = (run_json(&[]), run_json(&["--no-canonical-fixpoint"]));
    assert!(
        states(&on) < states(&off),
        "{} {}",
        states(&on),
        states(&off)
    );
    assert_eq!(on["config"]["canonical_fixpoint"], true);
    assert_eq!(off["config"]["canonical_fixpoint"], false);
    let sc = ["--memory-model", "sc"];
    let sc_off = run_json(&[&sc[..], &["--no-canonical-fixpoint"]].concat());
    assert_eq!(states(&sc_off), states(&run_json(&sc)));
    let stats = |args: &[&str]| {
        let base = ["priority_semaphore", "--blocks", "2", "--stats"];
        stdout(&run(&[&base[..], args].concat()))
    };
    let text = stats(&[]);
    assert!(
        text.contains("repeated writes merged until nothing merges"),
        "{text}"
    );
    let text = stats(&["--no-canonical-fixpoint"]);
    assert!(
        text.contains("repeated writes merged once per step (--no-canonical-fixpoint)"),
        "{text}"
    );
}

/// Occupancy is semantics, not a progress model: a block waiting for one
/// that can never become resident is an occupancy deadlock under every
/// scheduler, and a block that cannot start until another finishes cannot
/// be left unstarted by `obe` or `unfair` while the other spins.
#[test]
fn resident_keeps_its_meaning_under_every_scheduler() {
    for scheduler in [
        "deadlock",
        "fair",
        "obe",
        "hsa",
        "unfair",
        "blocks=obe,threads=fair",
    ] {
        let out = run(&[
            "xiao_feng_barrier",
            "--blocks",
            "3",
            "--resident",
            "2",
            "--scheduler",
            scheduler,
            "--memory-model",
            "sc",
            "--format",
            "json",
        ]);
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(json["config"]["resident"], 2, "{scheduler}");
        assert_eq!(
            json["violations"][0]["kind"], "occupancy_deadlock",
            "{scheduler}"
        );
        let spin = |resident: &[&str]| {
            let mut args = vec![
                "progress_hsa",
                "--scheduler",
                scheduler,
                "--memory-model",
                "sc",
            ];
            args.extend(resident);
            code(&run(&args))
        };
        // Block 1 spins on block 0's store; with one slot it starts only
        // after block 0 has finished.
        assert_eq!(spin(&["--resident", "1"]), 0, "{scheduler}");
        let hangs = ["obe", "unfair", "blocks=obe,threads=fair"].contains(&scheduler);
        assert_eq!(spin(&[]), i32::from(hangs), "{scheduler}");
    }
}

/// `replay` shows the trace it reproduced, as `check` shows it (before:
/// one line, "reproduced: KIND: MESSAGE").
#[test]
fn replay_prints_the_trace_it_reproduced() {
    // The committed counterexample's configuration.
    let checked = run(&["semaphore_check_outside_lock", "--memory-model", "sc"]);
    assert_eq!(code(&checked), 1, "{}", stderr(&checked));
    let check_text = stdout(&checked);
    let trace = &check_text[check_text.find("\ncounterexample:").expect("a trace")..];
    let file = "counterexamples/semaphore_check_outside_lock.json";
    assert!(repo().join(file).is_file(), "the committed counterexample");
    let out = run(&["replay", file]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("reproduced: "), "{text}");
    assert!(
        text.contains(trace),
        "the trace `check` prints is not in:\n{text}"
    );
}

/// `list` wraps its descriptions to the terminal, or to 100 columns where
/// the output is not one (before: lines of 500 characters and more).
#[test]
fn list_lines_fit_100_columns_off_a_terminal() {
    let out = run(&["list"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    for line in text.lines() {
        assert!(
            line.chars().count() <= 100,
            "{} columns: {line}",
            line.chars().count()
        );
    }
    // Nothing lost to the wrapping: every built-in is listed.
    for spec in spec_files() {
        let name = stem(&spec);
        assert!(
            text.lines()
                .any(|l| l.split_whitespace().next() == Some(name.as_str())),
            "{name} not listed"
        );
    }
}

/// `violated race` names either race; an unknown kind and a misspelt
/// option in an `expect` line are errors (exit 2), the kind located with a
/// suggestion, the option with clap's.
#[test]
fn expect_kinds_are_checked_and_race_names_either_race() {
    let text = std::fs::read_to_string(repo().join("specs/mp_flag_no_fence.gsync")).unwrap();
    let body: String = text
        .lines()
        .filter(|l| !l.starts_with("//! expect"))
        .map(|l| format!("{l}\n"))
        .collect();
    let with = |name: &str, expect: &str| write_temp_spec(name, &format!("{expect}\n{body}"));
    let race = with(
        "expect_race",
        "//! expect --memory-model ptx: violated race",
    );
    let out = run(&["verify", race.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    // `race` is a family of races only.
    let wrong = with(
        "expect_race_wrong",
        "//! expect --memory-model ptx --no-races: violated race",
    );
    assert_eq!(code(&run(&["verify", wrong.to_str().unwrap()])), 1);
    let unknown = with(
        "expect_unknown",
        "//! expect --memory-model ptx: violated heterogenous_race",
    );
    let out = run(&["verify", unknown.to_str().unwrap()]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains("expect_unknown.gsync:1:"), "{err}");
    assert!(err.contains("did you mean `heterogeneous_race`?"), "{err}");
    let out = run(&["check", unknown.to_str().unwrap()]);
    assert_eq!(
        code(&out),
        2,
        "`check` reads the header too: {}",
        stderr(&out)
    );
    let option = with("expect_option", "//! expect --blokcs 3: verified");
    let out = run(&["verify", option.to_str().unwrap()]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(stdout(&out).contains("--blocks"), "{}", stdout(&out));
}

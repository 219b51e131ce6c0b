//! Machine reports for CI: SARIF validates against the SARIF 2.1.0 schema,
//! JUnit has one test case per spec × configuration, `verify` checks every
//! expectation and fails when one is not met.

mod common;

use common::*;

fn sarif_validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(repo().join("tests/data/sarif-2.1.0-rtm.5.json")).unwrap();
    // rtm.5 ships a malformed `run.language` pattern (a stray `]`) that a
    // strict regex engine rejects; the errata's form is used instead.
    let text = text.replace(
        r#"^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$"#,
        r#"^[a-zA-Z]{2}(-[a-zA-Z]{2})?$"#,
    );
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .build(&schema)
        .expect("the SARIF schema compiles")
}

fn assert_valid_sarif(out: &std::process::Output) -> serde_json::Value {
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).expect("SARIF is JSON");
    let validator = sarif_validator();
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "invalid SARIF:\n{}", errors.join("\n"));
    sarif
}

#[test]
fn sarif_of_a_violation_validates_and_points_at_the_spec_line() {
    let out = run(&["sense_barrier_no_flip", "--format", "sarif"]);
    assert_eq!(code(&out), 1);
    let sarif = assert_valid_sarif(&out);
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "barrier_safety");
    assert_eq!(result["level"], "error");
    let location = &result["locations"][0]["physicalLocation"];
    assert_eq!(
        location["artifactLocation"]["uri"],
        "specs/sense_barrier_no_flip.gsync"
    );
    let line = location["region"]["startLine"].as_u64().unwrap() as usize;
    let text = std::fs::read_to_string(repo().join("specs/sense_barrier_no_flip.gsync")).unwrap();
    assert!(
        line >= 1 && line <= text.lines().count(),
        "line {line} is in the file"
    );
}

/// A spin deadlock is annotated where a thread spins forever (the
/// `atomicCAS` of the wait loop), not at the last step before it.
#[test]
fn sarif_of_a_spin_deadlock_points_at_the_spinning_instruction() {
    let spec = "tree_barrier_single";
    let out = run(&[spec, "--param", "iters=1", "--format", "sarif"]);
    assert_eq!(code(&out), 1);
    let sarif = assert_valid_sarif(&out);
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "deadlock");
    let line = result["locations"][0]["physicalLocation"]["region"]["startLine"]
        .as_u64()
        .unwrap() as usize;
    let text = std::fs::read_to_string(repo().join(format!("specs/{spec}.gsync"))).unwrap();
    let source_line = text.lines().nth(line - 1).unwrap();
    assert!(
        source_line.contains("if (atomicCAS("),
        "line {line}: {source_line}"
    );
}

#[test]
fn sarif_of_verify_validates() {
    let out = run(&["verify", "specs", "--format", "sarif"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let sarif = assert_valid_sarif(&out);
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(!results.is_empty(), "the known-buggy specs show up");
    assert!(
        results.iter().all(|r| r["level"] == "note"),
        "all violations are expected ones"
    );
}

#[test]
fn verify_passes_on_the_corpus_and_fails_on_a_wrong_expectation() {
    let out = run(&["verify", "specs"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).lines().last().unwrap().starts_with("verify: "));
    assert!(!stdout(&out).contains("FAIL"));

    let dir = std::env::temp_dir().join(format!("gsync-verify-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spec = std::fs::read_to_string(repo().join("specs/spin_lock.gsync")).unwrap();
    // Claim the unfair spin lock is starvation-free: verify must say no.
    let wrong = spec.replace(
        "//! expect --blocks 3 --iters 0 --scheduler fair --memory-model sc: violated starvation",
        "//! expect --blocks 3 --iters 0 --scheduler fair --memory-model sc: verified",
    );
    assert_ne!(wrong, spec);
    std::fs::write(dir.join("spin_lock.gsync"), wrong).unwrap();
    let out = run(&["verify", dir.to_str().unwrap()]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        stdout(&out)
            .contains("FAIL spin_lock [--blocks 3 --iters 0 --scheduler fair --memory-model sc]"),
        "{}",
        stdout(&out)
    );

    let out = run(&["verify", dir.to_str().unwrap(), "--format", "junit"]);
    let xml = stdout(&out);
    assert!(xml.contains("failures=\"1\""), "{xml}");
    assert!(xml.contains("<failure message="), "{xml}");
    let cases = xml.matches("<testcase ").count();
    let expects = spec.lines().filter(|l| l.starts_with("//! expect")).count();
    assert_eq!(cases, expects, "one test case per expectation");
}

#[test]
fn verify_rejects_missing_paths_and_bad_options() {
    let out = run(&["verify", "no/such/dir"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("no such file or directory"));
    let dir = std::env::temp_dir().join(format!("gsync-verify-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spec = std::fs::read_to_string(repo().join("specs/spin_lock.gsync"))
        .unwrap()
        .replace(
            "//! expect --blocks 4 --memory-model sc: verified",
            "//! expect --blokcs 4 --memory-model sc: verified",
        );
    std::fs::write(dir.join("spin_lock.gsync"), spec).unwrap();
    let out = run(&["verify", dir.to_str().unwrap()]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(stdout(&out).contains("bad options"), "{}", stdout(&out));
    // Located at the word, with clap's suggestion.
    let line = std::fs::read_to_string(dir.join("spin_lock.gsync"))
        .unwrap()
        .lines()
        .position(|l| l.contains("--blokcs"))
        .unwrap()
        + 1;
    assert!(
        stdout(&out).contains(&format!("spin_lock.gsync:{line}:12: bad options")),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("'--blocks'"), "{}", stdout(&out));
}

#[test]
fn junit_is_only_for_verify() {
    let out = run(&["spin_lock", "--format", "junit"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("verify"));
}

/// Applies a SARIF fix's replacements (line and column regions of one
/// artifact) to `text`.
fn apply_sarif_fix(text: &str, fix: &serde_json::Value) -> String {
    let offset = |line: u64, column: u64| -> usize {
        let start: usize = text
            .split_inclusive('\n')
            .take(line as usize - 1)
            .map(str::len)
            .sum();
        let rest = &text[start..];
        start
            + rest
                .char_indices()
                .nth(column as usize - 1)
                .map_or(rest.len(), |(i, _)| i)
    };
    let changes = fix["artifactChanges"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "one artifact: the spec");
    let mut edits: Vec<(usize, usize, String)> = changes[0]["replacements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let d = &r["deletedRegion"];
            let n = |k: &str| d[k].as_u64().unwrap();
            (
                offset(n("startLine"), n("startColumn")),
                offset(n("endLine"), n("endColumn")),
                r["insertedContent"]["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_string();
    for (from, to, inserted) in edits {
        out.replace_range(from..to, &inserted);
    }
    out
}

/// `--suggest-fix`: a checked fix is a SARIF `fixes` object (valid under
/// the 2.1.0 schema) whose replacements, applied to the spec's file, give
/// a spec that verifies; without the flag, or where no ordering change
/// helps, there is no `fixes`: an unchecked hint is never one.
#[test]
fn sarif_carries_a_checked_fix_that_verifies_when_applied() {
    let spec = "mp_flag_no_fence";
    let out = run(&[spec, "--suggest-fix", "--format", "sarif"]);
    assert_eq!(code(&out), 1, "still a violation: {}", stderr(&out));
    let sarif = assert_valid_sarif(&out);
    let result = &sarif["runs"][0]["results"][0];
    let fixes = result["fixes"].as_array().expect("a fixes array");
    assert_eq!(fixes.len(), 1);
    let fix = &fixes[0];
    let description = fix["description"]["text"].as_str().unwrap();
    assert!(description.contains("insert `fence."), "{description}");
    assert!(description.contains("checked"), "{description}");
    let uri = fix["artifactChanges"][0]["artifactLocation"]["uri"]
        .as_str()
        .unwrap();
    assert_eq!(uri, format!("specs/{spec}.gsync"));
    let original = std::fs::read_to_string(repo().join(uri)).unwrap();
    let fixed = apply_sarif_fix(&original, fix);
    assert_eq!(fixed.matches("fence.acq_rel.gpu();").count(), 2, "{fixed}");
    let dir = std::env::temp_dir().join(format!("gsync-sarif-fix-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("fixed.gsync");
    std::fs::write(&path, fixed).unwrap();
    for blocks in ["2", "3"] {
        let c = run(&["check", path.to_str().unwrap(), "--blocks", blocks]);
        assert_eq!(code(&c), 0, "--blocks {blocks}: {}", stdout(&c));
    }

    let plain = run(&[spec, "--format", "sarif"]);
    let sarif = assert_valid_sarif(&plain);
    assert!(sarif["runs"][0]["results"][0].get("fixes").is_none());
    for none in ["tree_barrier_single", "semaphore_check_outside_lock"] {
        let out = run(&[none, "--suggest-fix", "--format", "sarif"]);
        assert_eq!(code(&out), 1, "{none}");
        let sarif = assert_valid_sarif(&out);
        assert!(
            sarif["runs"][0]["results"][0].get("fixes").is_none(),
            "{none}: no ordering change cures it, so no fix"
        );
    }
}

/// JSON carries the search's result: a found fix with its replacements,
/// or `none` with the reason.
#[test]
fn json_reports_the_fix_search() {
    let out = run(&["mp_flag_no_fence", "--suggest-fix", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["fix"]["status"], "found", "{report}");
    assert_eq!(report["fix"]["replacements"].as_array().unwrap().len(), 2);
    assert!(
        report["fix"].get("seconds").is_none(),
        "timings only with --stats"
    );
    let out = run(&["tree_barrier_single", "--suggest-fix", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["fix"]["status"], "none", "{report}");
    let out = run(&["mp_flag_no_fence", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report.get("fix").is_none());
}

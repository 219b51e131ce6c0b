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
}

#[test]
fn junit_is_only_for_verify() {
    let out = run(&["spin_lock", "--format", "junit"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("verify"));
}

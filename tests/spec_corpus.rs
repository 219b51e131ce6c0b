//! Every spec's expected verdicts (its `//! expect` lines) hold, and every
//! known-buggy spec's committed counterexample is regenerated identically
//! and still replays.
//!
//! Set `GSYNC_BLESS=1` to rewrite `counterexamples/` after a deliberate change.

mod common;

use common::*;
use gsync_check::diag::Source;
use gsync_check::spec::ast::Expectation;

fn expectations(path: &std::path::Path) -> Vec<Expectation> {
    let text = std::fs::read_to_string(path).unwrap();
    let file = gsync_check::spec::parse(&Source::new(path.display().to_string(), text))
        .unwrap_or_else(|d| panic!("{} does not parse: {}", path.display(), d.message));
    file.header.expects
}

/// Runs one expectation; returns a description of the mismatch, if any.
fn check_expectation(name: &str, e: &Expectation) -> Option<String> {
    let mut args: Vec<&str> = vec![name];
    args.extend(e.args.iter().map(String::as_str));
    args.extend(["--format", "json"]);
    let out = run(&args);
    let json: serde_json::Value = match serde_json::from_slice(&out.stdout) {
        Ok(j) => j,
        Err(_) => {
            return Some(format!(
                "{name} {:?}: no JSON report; stderr: {}",
                e.args,
                stderr(&out)
            ))
        }
    };
    let verdict = json["verdict"].as_str().unwrap_or("?");
    let kind = json["violations"][0]["kind"].as_str();
    let expected_code = match e.verdict.as_str() {
        "verified" => 0,
        "violated" => 1,
        _ => 3,
    };
    let kind_ok = e.kind.is_none() || e.kind.as_deref() == kind;
    if verdict != e.verdict || !kind_ok || code(&out) != expected_code {
        return Some(format!(
            "{name} (line {}) {:?}: expected {} {}, got {verdict} {} (exit {})",
            e.line,
            e.args,
            e.verdict,
            e.kind.as_deref().unwrap_or(""),
            kind.unwrap_or(""),
            code(&out)
        ));
    }
    None
}

#[test]
fn every_spec_meets_its_expectations() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in spec_files() {
        let name = stem(&path);
        let expects = expectations(&path);
        // The default launch, under a named memory model or the default.
        let default_launch = |e: &Expectation| {
            e.args.is_empty() || (e.args.len() == 2 && e.args[0] == "--memory-model")
        };
        assert!(
            expects.iter().any(default_launch),
            "{name}: the header needs an `//! expect:` line for the default launch"
        );
        for e in &expects {
            checked += 1;
            failures.extend(check_expectation(&name, e));
        }
    }
    assert!(checked > 0, "no expectations found");
    assert!(
        failures.is_empty(),
        "{} of {checked} expectations failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The first `violated` expectation of each spec is its golden counterexample.
fn golden_cases() -> Vec<(String, Expectation)> {
    spec_files()
        .iter()
        .filter_map(|p| {
            let e = expectations(p)
                .into_iter()
                .find(|e| e.verdict == "violated")?;
            Some((stem(p), e))
        })
        .collect()
}

#[test]
fn committed_counterexamples_are_regenerated_identically() {
    let bless = std::env::var_os("GSYNC_BLESS").is_some();
    let dir = repo().join("counterexamples");
    let tmp = std::env::temp_dir().join(format!("gsync-golden-{}", std::process::id()));
    let cases = golden_cases();
    assert!(!cases.is_empty(), "every bug class needs a buggy spec");
    let mut failures = Vec::new();
    for (name, e) in &cases {
        let mut args: Vec<&str> = vec![name.as_str()];
        args.extend(e.args.iter().map(String::as_str));
        let out_dir = tmp.to_str().unwrap().to_string();
        args.extend(["--out", &out_dir, "--format", "json"]);
        let out = run(&args);
        assert_eq!(
            code(&out),
            1,
            "{name} {:?} should report a violation",
            e.args
        );
        let fresh = std::fs::read_to_string(tmp.join(format!("{name}.json"))).unwrap();
        let golden_path = dir.join(format!("{name}.json"));
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&golden_path, &fresh).unwrap();
            continue;
        }
        match std::fs::read_to_string(&golden_path) {
            Ok(golden) if golden == fresh => {}
            Ok(_) => failures.push(format!(
                "{name}: counterexample differs from {}",
                golden_path.display()
            )),
            Err(_) => failures.push(format!("{name}: missing {}", golden_path.display())),
        }
    }
    remove_and_assert_goldens_match(&tmp, &failures);
}

#[test]
fn committed_counterexamples_replay_and_have_a_spec() {
    if std::env::var_os("GSYNC_BLESS").is_some() {
        return; // the files are being rewritten by the test beside this one
    }
    let names: Vec<String> = golden_cases().into_iter().map(|(n, _)| n).collect();
    for entry in std::fs::read_dir(repo().join("counterexamples"))
        .unwrap()
        .flatten()
    {
        let path = entry.path();
        let name = stem(&path);
        assert!(
            names.contains(&name),
            "{} has no buggy spec expecting it",
            path.display()
        );
        let out = run(&["replay", path.to_str().unwrap()]);
        assert_eq!(
            code(&out),
            1,
            "replay of {name} did not reproduce: {}{}",
            stdout(&out),
            stderr(&out)
        );
        assert!(stdout(&out).starts_with("reproduced:"), "{}", stdout(&out));
    }
}

//! The deadlock check on the fly never changes a verdict: every built-in
//! spec is checked under each of its `//! expect` lines with it on (the
//! default) and off (`--no-early-deadlock`, the whole graph analysed), and
//! the verdicts and violation kinds must agree. The generated programs of
//! `tests/generated.rs` compare it too (`reduction_switches`).

mod common;

use common::{code, repo, run, stdout};
use gsync_check::diag::Source;

/// Verdict and violation kinds of a JSON report.
fn outcome(out: &std::process::Output) -> (i32, String, Vec<String>) {
    let report: serde_json::Value = serde_json::from_str(&stdout(out)).expect("a JSON report");
    let kinds = report["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .map(|v| v["kind"].as_str().unwrap_or("?").to_string())
        .collect();
    (code(out), report["verdict"].to_string(), kinds)
}

#[test]
fn early_deadlock_keeps_every_verdict_of_the_corpus() {
    let mut compared = 0;
    let mut specs: Vec<_> = std::fs::read_dir(repo().join("specs"))
        .expect("specs/")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "gsync"))
        .collect();
    specs.sort();
    for path in specs {
        let text = std::fs::read_to_string(&path).expect("readable");
        let file = gsync_check::spec::parse(&Source::new(path.display().to_string(), text))
            .expect("a built-in spec parses");
        let name = path.file_stem().and_then(|s| s.to_str()).expect("a name");
        for e in &file.header.expects {
            let mut args = vec![name];
            args.extend(e.args.iter().map(String::as_str));
            args.extend(["--format", "json", "--max-seconds", "60"]);
            let early = outcome(&run(&args));
            args.push("--no-early-deadlock");
            let full = outcome(&run(&args));
            assert_eq!(early, full, "{name} {:?}", e.args);
            compared += 1;
        }
    }
    assert!(
        compared > 100,
        "the corpus has its expectations: {compared}"
    );
}

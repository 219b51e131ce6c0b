//! Helpers shared by the integration tests: run the real binary.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `gsync-check ARGS` from the repository root.
pub fn run(args: &[&str]) -> Output {
    run_in(&repo(), args)
}

pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gsync-check"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run gsync-check")
}

pub fn code(out: &Output) -> i32 {
    out.status.code().expect("exited normally, not by a signal")
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every spec file under `specs/`, sorted.
pub fn spec_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo().join("specs"))
        .expect("specs/ exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "gsync"))
        .collect();
    files.sort();
    files
}

/// Writes `text` to `name.gsync` in this test process's scratch folder
/// and returns its path.
pub fn write_temp_spec(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gsync-specs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.gsync"));
    std::fs::write(&path, text).unwrap();
    path
}

pub fn stem(path: &Path) -> String {
    path.file_stem().unwrap().to_string_lossy().into_owned()
}

/// Asserts that `gsync-check ARGS` is refused as a usage error (exit 2)
/// whose message names `fragment`.
pub fn assert_usage_error(args: &[&str], fragment: &str) {
    let out = run(args);
    assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
    assert!(
        stderr(&out).contains(fragment),
        "{args:?}: `{fragment}` not in {}",
        stderr(&out)
    );
}

/// Ends a comparison of fresh output with committed goldens: removes the
/// scratch folder `tmp`, then fails listing what differed.
pub fn remove_and_assert_goldens_match(tmp: &Path, failures: &[String]) {
    let _ = std::fs::remove_dir_all(tmp);
    assert!(
        failures.is_empty(),
        "{}\n(rerun with GSYNC_BLESS=1 after a deliberate change)",
        failures.join("\n")
    );
}

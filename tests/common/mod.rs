//! Helpers shared by the integration tests: run the real binary.

#![allow(dead_code)]

pub mod rng;
pub mod verdicts;

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

/// `shared/` (the litmus corpus, HeteroSync's CUDA): beside the repository
/// in a fresh clone and in CI, inside it on a device machine, or above a
/// worktree; `GSYNC_SHARED` names it explicitly.
pub fn shared_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("GSYNC_SHARED") {
        return Some(PathBuf::from(dir));
    }
    let repo = repo();
    std::iter::once(repo.join("shared"))
        .chain(repo.ancestors().skip(1).map(|a| a.join("shared")))
        .find(|d| d.is_dir())
}

/// The PTX litmus corpus (`shared/litmus/PTX`), or why it is missing.
pub fn litmus_corpus() -> Result<PathBuf, String> {
    match shared_dir().map(|d| d.join("litmus/PTX")) {
        Some(dir) if dir.is_dir() => Ok(dir),
        Some(dir) => Err(format!("no litmus corpus at {}", dir.display())),
        None => {
            Err("no shared/ folder beside or above the repository (set GSYNC_SHARED to it)".into())
        }
    }
}

/// Why NVRTC cannot be used here, if it cannot.
pub fn nvrtc_missing() -> Option<String> {
    (!gsync_check::cuda::nvrtc::available()).then(|| {
        "NVRTC was not found (pip install nvidia-cuda-nvrtc and put it on LD_LIBRARY_PATH, as .ci/run does)".to_string()
    })
}

/// A test that needs something CI has but another machine may lack (the
/// litmus corpus, NVRTC); `missing` says what is missing, if anything.
/// The stable harness cannot skip at run time, so these tests run under
/// `libtest_mimic` (`harness = false`): a missing need is reported as
/// `ignored` in the summary, with a note saying why; under `CI=true` it is
/// a failure instead, since CI must run every test.
pub fn needs(
    name: &str,
    missing: Option<String>,
    test: impl FnOnce() + Send + 'static,
) -> libtest_mimic::Trial {
    let ci = std::env::var("CI").as_deref() == Ok("true");
    gated(name, missing, ci, test)
}

/// A test that cannot run on some machines by its nature (one about
/// having no GPU, on a machine with one): reported as `ignored` there,
/// with a note, under CI too.
pub fn only_where(
    name: &str,
    missing: Option<String>,
    test: impl FnOnce() + Send + 'static,
) -> libtest_mimic::Trial {
    gated(name, missing, false, test)
}

fn gated(
    name: &str,
    missing: Option<String>,
    must_run: bool,
    test: impl FnOnce() + Send + 'static,
) -> libtest_mimic::Trial {
    use libtest_mimic::Trial;
    match missing {
        Some(why) if must_run => {
            Trial::test(name, move || Err(format!("CI=true but {why}").into()))
        }
        // Run anyway with `--include-ignored`: then it fails on what is missing.
        missing => {
            if let Some(why) = &missing {
                println!("note: {name} ignored: {why}");
            }
            Trial::test(name, move || {
                test();
                Ok(())
            })
            .with_ignored_flag(missing.is_some())
        }
    }
}

/// Runs `trials` as the standard harness would (filters, `--include-ignored`).
pub fn run_trials(trials: Vec<libtest_mimic::Trial>) -> std::process::ExitCode {
    libtest_mimic::run(&libtest_mimic::Arguments::from_args(), trials).exit_code()
}

/// Runs `gsync-check ARGS` from the repository root with `GSYNC_SHARED`
/// set, so harnesses find HeteroSync wherever this machine keeps it.
pub fn gsync(shared: Option<&Path>, args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gsync-check"));
    c.args(args).current_dir(repo()).env("NO_COLOR", "1");
    if let Some(s) = shared {
        c.env("GSYNC_SHARED", s);
    }
    c.output().expect("run gsync-check")
}

/// What the CUDA front end's tests need and may lack here: the shared
/// folder, why libclang cannot be used (`None`: it can), and why the
/// tests that also read HeteroSync's sources cannot run.
pub struct CudaGates {
    pub shared: Option<PathBuf>,
    pub no_libclang: Option<String>,
    pub with_sources: Option<String>,
}

pub fn cuda_gates() -> CudaGates {
    let shared = shared_dir();
    let no_libclang = {
        let out = gsync(
            None,
            &["check", "tests/cuda/constructs.gsync", "--blocks", "1"],
        );
        stderr(&out)
            .contains("needs libclang")
            .then(|| "libclang 17+ is not installed (apt-get install libclang1-19 libclang-common-19-dev)".to_string())
    };
    let no_sources = match &shared {
        Some(d) if d.join("heterosync").is_dir() => None,
        Some(d) => Some(format!(
            "no HeteroSync sources at {}",
            d.join("heterosync").display()
        )),
        None => {
            Some("no shared/ folder beside or above the repository (set GSYNC_SHARED to it)".into())
        }
    };
    let with_sources = no_libclang.clone().or(no_sources);
    CudaGates {
        shared,
        no_libclang,
        with_sources,
    }
}

//! `gsync-check verify PATH...`: check every spec's `//! expect` lines, and
//! every kernel expectation in the `//!` header of a `.cu` file, for CI
//! before merge.

use super::args::{VerifyFormat as Format, VerifyLimits, VerifyOutputArgs};
use super::command::{Cli, Command};
use super::dist::{self, Ran, Session};
use super::dist_args::DistArgs;
use super::{config_from, strip_timings, to_json, write_counterexamples};
use crate::api::{self, Error, SpecSource};
use crate::format::text::render_stats;
use crate::format::{junit, sarif};
use crate::report::{CaseOutcome, CaseResult};
use crate::spec::ast::{Expectation, Header};
use colored::Colorize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Every `.gsync` file under `paths`, and every `.cu` file there whose
/// header has `//!` lines (a `.cu` without is a harness's source, not a
/// check), sorted; a missing path is an error.
fn spec_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_file() {
            files.push(p.clone());
        } else if p.is_dir() {
            collect(p, &mut files)?;
        } else {
            return Err(Error::Usage(format!(
                "{}: no such file or directory",
                p.display()
            )));
        }
    }
    files.sort();
    files.dedup();
    if files.is_empty() {
        let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(Error::Usage(format!(
            "no .gsync files (or .cu files with a `//!` header) under {}",
            shown.join(", ")
        )));
    }
    Ok(files)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), Error> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| Error::Usage(format!("{}: {e}", dir.display())))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "gsync") || has_header(&path) {
            out.push(path);
        }
    }
    Ok(())
}

fn is_cuda(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "cu")
}

/// A `.cu` file with `//!` lines at its top: kernel expectations to check.
fn has_header(path: &Path) -> bool {
    is_cuda(path)
        && std::fs::read_to_string(path)
            .is_ok_and(|text| !crate::spec::header::leading_lines(&text).is_empty())
}

/// Runs one expectation of a spec, on the session's processes where the
/// distributed explorer answers it; with whether it ran on this process
/// alone in a distributed run. A helping process gets `None`.
fn run_case(
    spec: &SpecSource,
    e: &Expectation,
    limits: &VerifyLimits,
    session: &Session,
) -> Option<(CaseResult, bool)> {
    let started = Instant::now();
    let (outcome, alone) = run_config(spec, e, limits, session)?;
    let passed = match &outcome {
        CaseOutcome::Report(report) => api::expectation_met(e, report),
        CaseOutcome::Error(_) => false,
    };
    let case = CaseResult {
        spec: spec.name.clone(),
        source: spec.origin.clone(),
        line: e.line,
        args: e.args.clone(),
        expected_verdict: e.verdict.clone(),
        expected_kind: e.kind.clone(),
        passed,
        outcome,
        seconds: started.elapsed().as_secs_f64(),
    };
    Some((case, alone))
}

/// Checks the spec under the options of an expectation, and whether it
/// ran on this process alone in a distributed run: a kernel, and what the
/// distributed explorer refuses (liveness), are checked by process 0 only,
/// and every process knows which those are. A helping process gets
/// `None` (process 0 reports).
fn run_config(
    spec: &SpecSource,
    e: &Expectation,
    limits: &VerifyLimits,
    session: &Session,
) -> Option<(CaseOutcome, bool)> {
    let alone = |outcome| (!session.is_peer()).then_some((outcome, session.distributed()));
    // The options are parsed exactly as the command line would parse them.
    let argv = ["gsync-check", "check", spec.origin.as_str()]
        .into_iter()
        .map(String::from)
        .chain(e.args.iter().cloned());
    let (check, kernel) = match Cli::try_parse_from_args(argv) {
        Ok(Some(Command::Check { check, kernel, .. })) => (check, kernel),
        Ok(_) => unreachable!("parsed as `check`"),
        Err(message) => {
            let at = option_column(&spec.text, e.line, &message)
                .map_or(String::new(), |c| format!(":{c}"));
            return alone(CaseOutcome::Error(format!(
                "{}:{}{at}: bad options: {message}",
                spec.origin, e.line
            )));
        }
    };
    let mut config = config_from(&check, None);
    limits.cap(&mut config.limits);
    if is_cuda(Path::new(&spec.origin)) {
        let Some(launch) = kernel.launch() else {
            return alone(CaseOutcome::Error(format!(
                "line {}: a `.cu` file's expectation names the kernel it checks: --kernel NAME (and --grid, --block, --arg NAME=VALUE), or the kernels launched together: --launch KERNEL<<<G,B>>>(ARGS) ...",
                e.line
            )));
        };
        if session.is_peer() {
            return None;
        }
        let report = api::prepare_kernel(Path::new(&spec.origin), &launch, &config);
        return alone(outcome(report.map(|p| api::run(&p))));
    }
    let prepared = match api::prepare(spec, &config) {
        Ok(p) if session.distributed() && dist::refused(&p) => {
            return alone(outcome(Ok(api::run(&p))));
        }
        Ok(p) => p,
        Err(err) => return alone(outcome(Err(err))),
    };
    if !session.distributed() {
        return Some((outcome(Ok(api::run(&prepared))), false));
    }
    match session.check_prepared(prepared) {
        Ok(Ran::Here) => unreachable!("a distributed session"),
        Ok(Ran::OneProcess(_)) => alone(outcome(api::check_spec(spec, &config))),
        Ok(Ran::Report(report)) => Some((outcome(Ok(*report)), false)),
        Ok(Ran::Peer(_)) => None,
        Err(err) => alone(outcome(Err(err))),
    }
}

fn outcome(report: Result<crate::report::Report, Error>) -> CaseOutcome {
    match report {
        Ok(report) => CaseOutcome::Report(Box::new(report)),
        Err(err) => CaseOutcome::Error(err.render(false).trim_end().to_string()),
    }
}

/// A file's expectations, and the file named as its header says.
fn expectations(path: &Path) -> Result<(SpecSource, Header), Error> {
    let spec = SpecSource::from_file(path)?;
    let header = if is_cuda(path) {
        api::cuda_header(&spec)?
    } else {
        api::parse(&spec)?.header
    };
    Ok((spec.named_by_header(&header), header))
}

pub(super) fn verify(
    paths: &[PathBuf],
    limits: &VerifyLimits,
    output: &VerifyOutputArgs,
    dist: &DistArgs,
) -> Result<i32, Error> {
    super::stats_need_timings(
        output.stats,
        matches!(output.format, Format::Sarif | Format::Junit),
    )?;
    let session = Session::start(dist, None)?;
    let code = verify_on(paths, limits, output, &session);
    session.finish(code)
}

/// [`verify`] on a session's processes (process 0 reports).
fn verify_on(
    paths: &[PathBuf],
    limits: &VerifyLimits,
    output: &VerifyOutputArgs,
    session: &Session,
) -> Result<i32, Error> {
    let mut cases = Vec::new();
    for path in spec_files(paths)? {
        let (spec, header) = expectations(&path)?;
        if header.expects.is_empty() {
            return Err(Error::Usage(format!(
                "{}: the header states no expectation; add `//! expect: verified` (or the verdict you expect)",
                path.display()
            )));
        }
        for e in &header.expects {
            let Some((mut case, alone)) = run_case(&spec, e, limits, session) else {
                continue;
            };
            if let CaseOutcome::Report(report) = &mut case.outcome {
                let stem = format!("{}.line{}", report.spec, e.line);
                // A kernel's counterexample is printed only: `replay` replays specs.
                if !is_cuda(&path) {
                    write_counterexamples(report, &spec, output.out.as_deref(), &stem)?;
                }
                if !output.stats && output.format == Format::Json {
                    strip_timings(report);
                }
            }
            if output.format == Format::Text {
                let mark = if case.passed {
                    "PASS".green().bold()
                } else {
                    "FAIL".red().bold()
                };
                println!("{mark} {}", case.summary());
                if alone && case.report().is_some() {
                    println!("     checked by process 0 alone: the distributed explorer does not decide this (a kernel, a deadlock decided on the labelled graph, or liveness of more than 64 threads)");
                }
                if let Some(report) = case.report().filter(|_| output.stats) {
                    println!("     {}", render_stats(report));
                }
            }
            cases.push(case);
        }
    }
    if session.is_peer() {
        return Ok(0);
    }
    let failed = cases.iter().filter(|c| !c.passed).count();
    let errors = cases.iter().filter(|c| c.error().is_some()).count();
    match output.format {
        Format::Text => println!("verify: {} passed, {} failed", cases.len() - failed, failed),
        Format::Json => println!("{}", to_json(&cases)),
        Format::Sarif => println!("{}", to_json(&sarif::from_cases(&cases))),
        Format::Junit => print!("{}", junit::render(&cases)),
    }
    Ok(if errors > 0 {
        super::EXIT_USAGE
    } else if failed > 0 {
        1
    } else {
        0
    })
}

/// The 1-based column, in line `line` of `text`, of the word clap's
/// `message` names (`unexpected argument '--blokcs'`, `invalid value
/// 'x' for ...`), where it is there.
fn option_column(text: &str, line: u32, message: &str) -> Option<usize> {
    let quoted = message.split('\'').nth(1).filter(|w| !w.is_empty())?;
    let row = text.lines().nth(line.checked_sub(1)? as usize)?;
    let expect = row.find("expect")?;
    row[expect..]
        .find(quoted)
        .map(|i| row[..expect + i].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_bad_option_is_located_at_its_column() {
        let text = "//! name: x\n//! expect --blokcs 4 --memory-model sc: verified\n";
        let message = "error: unexpected argument '--blokcs' found";
        assert_eq!(super::option_column(text, 2, message), Some(12));
        assert_eq!(super::option_column(text, 1, message), None);
        assert_eq!(super::option_column(text, 2, "no quotes"), None);
    }
}

//! The command-line front end: turns arguments into library calls, prints
//! reports and chooses the exit code.

pub mod args;
mod bench_checker;
pub mod command;
#[cfg(feature = "dist")]
mod dist;
#[cfg(feature = "dist")]
mod dist_args;
mod family;
mod gpu;
mod litmus;
mod litmus_gpu;
mod tune;
mod verify;

use crate::api::{self, CheckConfig, Error, SpecSource};
use crate::format::text::render_report;
use crate::format::{sarif, svg};
use crate::report::{Report, SavedCounterexample, Verdict};
use crate::trace::ReplayOutcome;
use args::{CheckArgs, ColorChoice, Format, OutputArgs, ReplayOutputArgs, TextOrJson};
use command::{Cli, Command};
use std::io::IsTerminal;
use std::path::Path;

/// Exit code of a usage or spec error.
pub const EXIT_USAGE: i32 = 2;

/// Runs the CLI; returns the process exit code.
pub fn main_with(cli: Cli) -> i32 {
    // Only the commands whose every long loop asks the limits: elsewhere
    // (a GPU run, a benchmark) nothing would read the flag, and the first
    // Ctrl-C would seem ignored.
    if matches!(
        cli.command,
        None | Some(
            Command::Check { .. }
                | Command::Verify { .. }
                | Command::Replay { .. }
                | Command::Relax(_)
                | Command::Repair(_)
        )
    ) {
        stop_on_signals();
    }
    let result = match cli.command {
        Some(Command::Check {
            file,
            check,
            kernel,
            output,
        }) => {
            set_color(output.color);
            match kernel.launch() {
                Some(launch) => check_kernel(&file, &launch, &check, &output),
                None => SpecSource::from_file(&file)
                    .and_then(|spec| check_one(&spec, &check, &output))
                    .map_err(|e| with_kernel_hint(&file, e)),
            }
        }
        Some(Command::Verify {
            paths,
            limits,
            output,
            dist,
        }) => {
            set_color(output.color);
            verify::verify(&paths, &limits, &output, &dist)
        }
        Some(Command::List) => {
            set_color(ColorChoice::Auto);
            family::list().map(|()| 0)
        }
        Some(Command::Show {
            name,
            line_numbers,
            lines,
        }) => show(&name, line_numbers, lines),
        Some(Command::Replay { file, output }) => {
            set_color(output.color);
            replay_file(&file, &output)
        }
        Some(Command::Litmus(args)) => litmus::run(&args),
        Some(Command::Emit(args)) => gpu::emit(&args),
        Some(Command::Run(args)) => gpu::run(&args),
        Some(Command::Bench(args)) => gpu::bench(&args),
        Some(Command::BenchChecker(args)) => bench_checker::run(&args),
        Some(Command::Relax(args)) => tune::relax(&args),
        Some(Command::Repair(args)) => tune::repair(&args),
        None => {
            set_color(cli.output.color);
            let name = cli.name.unwrap_or_default();
            by_name(&name, &cli.check, &cli.output)
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprint!(
                "{}",
                e.render(std::io::stderr().is_terminal() && colored_enabled())
            );
            EXIT_USAGE
        }
    }
}

/// Ctrl-C and SIGTERM set the explorer's interrupt flag, so the run ends
/// as a limit ends it: inconclusive (exit 3), with what it found so far.
/// A second signal ends the process at once (exit 130 or 143, as the
/// shell reports a process killed by it), for a run that does not stop.
fn stop_on_signals() {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let flag = crate::explore::interrupt_flag();
        for signal in [SIGINT, SIGTERM] {
            // The shutdown first: it sees the flag still clear on the first
            // signal, set on the second. Failing to register leaves the
            // default action (the run is killed), as before.
            let _ = signal_hook::flag::register_conditional_shutdown(
                signal,
                128 + signal,
                std::sync::Arc::clone(&flag),
            );
            let _ = signal_hook::flag::register(signal, std::sync::Arc::clone(&flag));
        }
    }
}

fn colored_enabled() -> bool {
    colored::control::SHOULD_COLORIZE.should_colorize()
}

fn set_color(choice: ColorChoice) {
    match choice {
        ColorChoice::Always => colored::control::set_override(true),
        ColorChoice::Never => colored::control::set_override(false),
        ColorChoice::Auto => {
            let on = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            colored::control::set_override(on);
        }
    }
}

/// Prints a built-in spec's source, exactly as compiled into the binary,
/// or some of its lines, numbered as a counterexample cites them.
fn show(name: &str, numbered: bool, range: Option<args::LineRange>) -> Result<i32, Error> {
    match SpecSource::builtin(name) {
        Some(spec) if !numbered && range.is_none() => {
            print!("{}", spec.text);
            Ok(0)
        }
        Some(spec) => {
            let lines: Vec<&str> = spec.text.lines().collect();
            let (from, to) = range.map_or((1, lines.len()), |r| (r.from, r.to));
            if to > lines.len() {
                return Err(Error::Usage(format!(
                    "`{name}` has {} lines: --lines {from}-{to} reaches past its end",
                    lines.len()
                )));
            }
            let width = to.to_string().len();
            for (i, line) in lines.iter().enumerate().take(to).skip(from - 1) {
                println!("{:>width$}  {line}", i + 1);
            }
            Ok(0)
        }
        None => {
            let names: Vec<String> = api::builtins().map(|s| s.name).collect();
            let hint = match crate::diag::suggest(name, names.iter().map(String::as_str)) {
                Some(s) => format!("; did you mean `{s}`?"),
                None if api::FAMILIES.contains(&name) => format!(
                    "; `{name}` is a family: `gsync-check list` shows its variants, each of which `show` prints"
                ),
                None => String::new(),
            };
            Err(Error::Usage(format!(
                "no built-in spec named `{name}`{hint}\n  `gsync-check list` shows the built-in specs"
            )))
        }
    }
}

/// A built-in spec, a family, or a path to a spec file.
fn by_name(name: &str, check: &CheckArgs, output: &OutputArgs) -> Result<i32, Error> {
    if let Some(spec) = SpecSource::builtin(name) {
        return check_one(&spec, check, output);
    }
    if api::FAMILIES.contains(&name) {
        return family::run_family(name, check, output);
    }
    let path = Path::new(name);
    if path.is_file() {
        return check_one(&SpecSource::from_file(path)?, check, output);
    }
    let names: Vec<String> = api::builtins().map(|s| s.name).collect();
    let candidates = names
        .iter()
        .map(String::as_str)
        .chain(api::FAMILIES.iter().copied());
    let hint = match crate::diag::suggest(name, candidates) {
        Some(s) => format!("; did you mean `{s}`?"),
        None => String::new(),
    };
    Err(Error::Usage(format!(
        "no built-in spec or family named `{name}`{hint}\n  `gsync-check list` shows the built-in specs; `gsync-check check FILE` checks a file"
    )))
}

/// The check configuration the arguments ask for; `declared` filters the
/// parameter overrides to those a spec has (for family runs).
pub fn config_from(args: &CheckArgs, declared: Option<&[String]>) -> CheckConfig {
    args.options.config(declared)
}

fn check_one(spec: &SpecSource, check: &CheckArgs, output: &OutputArgs) -> Result<i32, Error> {
    stats_need_timings(output.stats, output.format == Format::Sarif)?;
    let config = config_from(check, None);
    // The fix's search shares the run's --max-seconds: one deadline from now.
    let deadline = crate::explore::deadline_in(config.limits.max_seconds);
    #[cfg(feature = "dist")]
    let mut report = match dist::check(spec, &config, check)? {
        dist::Ran::Here => api::check_spec(spec, &config)?,
        dist::Ran::Report(report) => *report,
        dist::Ran::Peer(code) => return Ok(code),
        dist::Ran::OneProcess(e) => return Err(e),
    };
    #[cfg(not(feature = "dist"))]
    let mut report = api::check_spec(spec, &config)?;
    write_counterexamples(&report, spec, output.out.as_deref(), &report.spec)?;
    if output.suggest_fix && report.verdict == Verdict::Violated {
        let budget = crate::tune::Budget {
            deadline,
            ..Default::default()
        };
        report.fix = Some(crate::tune::suggest_fix(spec, &config, budget)?);
    }
    print_report(report, output)
}

/// Writes the SVG if asked, prints one check's report in the asked
/// format (timings only with `--stats`), and gives its exit code.
fn print_report(mut report: Report, output: &OutputArgs) -> Result<i32, Error> {
    write_svg(&report, output)?;
    if !output.stats {
        strip_timings(&mut report);
    }
    match output.format {
        Format::Json => println!("{}", to_json(&report)),
        Format::Text => print!("{}", render_report(&report, output.stats)),
        Format::Sarif => println!(
            "{}",
            to_json(&sarif::from_reports(std::slice::from_ref(&report)))
        ),
    }
    Ok(report.verdict.exit_code())
}

/// A `.cu` file read as a spec fails to parse: say how to check a kernel.
fn with_kernel_hint(file: &Path, e: Error) -> Error {
    match e {
        // A spec's hints (`there is no preprocessor`) do not fit a `.cu`.
        Error::Spec(mut d, source) if file.extension().is_some_and(|x| x == "cu") => {
            d.hint = Some(
                "a CUDA kernel is checked as it is launched with --kernel NAME (and --grid, --block, --arg NAME=VALUE)".into(),
            );
            Error::Spec(d, source)
        }
        e => e,
    }
}

/// `check FILE.cu --kernel NAME`: the kernel as launched.
fn check_kernel(
    file: &Path,
    launch: &api::KernelLaunch,
    check: &CheckArgs,
    output: &OutputArgs,
) -> Result<i32, Error> {
    stats_need_timings(output.stats, output.format == Format::Sarif)?;
    #[cfg(feature = "dist")]
    if check.dist.processes.is_some() || check.dist.local_processes.is_some() {
        return Err(Error::Usage(
            "a kernel is checked in one process: leave out the distribution options".into(),
        ));
    }
    if output.suggest_fix {
        return Err(Error::Usage(
            "--suggest-fix searches a fix in a spec's text: check the kernel's spec (or a .gsync written after it) with --suggest-fix, or `gsync-check repair`".into(),
        ));
    }
    if output.out.is_some() {
        return Err(Error::Usage(
            "--out saves counterexamples for `replay`, which replays specs; a kernel's counterexample is printed only".into(),
        ));
    }
    let prepared = api::prepare_kernel(file, launch, &config_from(check, None))?;
    let report = api::run(&prepared);
    print_report(report, output)
}

/// `--stats` adds timings to text and JSON; a format without them
/// (SARIF, JUnit) refuses it rather than ignore it.
pub fn stats_need_timings(stats: bool, format_has_none: bool) -> Result<(), Error> {
    if stats && format_has_none {
        return Err(Error::Usage(
            "--stats adds timings to text and JSON output; this format has none".into(),
        ));
    }
    Ok(())
}

/// Timings differ from run to run; JSON leaves them out unless `--stats`.
pub fn strip_timings(report: &mut Report) {
    report.stats.measured = None;
    if let Some(fix) = &mut report.fix {
        fix.seconds = None;
    }
}

pub fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).expect("reports serialize")
}

/// `--out DIR`: one JSON file per counterexample, `STEM.json`, then
/// `STEM.1.json`, ...
pub fn write_counterexamples(
    report: &Report,
    spec: &SpecSource,
    dir: Option<&Path>,
    stem: &str,
) -> Result<(), Error> {
    let Some(dir) = dir else {
        return Ok(());
    };
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::Usage(format!("cannot create {}: {e}", dir.display())))?;
    for (i, v) in report.violations.iter().enumerate() {
        let mut saved = SavedCounterexample::new(report, v, &spec.text);
        saved.locate_source_from(dir);
        // A header's name may hold anything: keep the file inside `dir`.
        let stem: String = stem
            .chars()
            .map(|c| match c {
                'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '-' | '.' => c,
                _ => '_',
            })
            .collect();
        let name = if i == 0 {
            format!("{stem}.json")
        } else {
            format!("{stem}.{i}.json")
        };
        let path = dir.join(name);
        std::fs::write(&path, to_json(&saved) + "\n")
            .map_err(|e| Error::Usage(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

/// `--svg FILE`: the first counterexample as a sequence diagram. A
/// verified run has none to draw; that is said, not silently skipped.
fn write_svg(report: &Report, output: &OutputArgs) -> Result<(), Error> {
    let Some(path) = &output.svg else {
        return Ok(());
    };
    let Some(violation) = report.violations.first() else {
        eprintln!(
            "note: {} has no counterexample to draw; {} not written",
            report.spec,
            path.display()
        );
        return Ok(());
    };
    save_svg(
        path,
        &svg::render_svg(&report.spec, &report.config, violation),
    )
}

fn save_svg(path: &Path, svg: &str) -> Result<(), Error> {
    std::fs::write(path, svg)
        .map_err(|e| Error::Usage(format!("cannot write {}: {e}", path.display())))
}

/// `--svg` draws one counterexample: refused where a family runs.
pub fn svg_needs_one_spec(output: &OutputArgs) -> Result<(), Error> {
    if output.suggest_fix {
        return Err(Error::Usage(
            "--suggest-fix searches a fix for one spec's violation: name a single spec, not a family (or use `gsync-check repair SPEC`)".into(),
        ));
    }
    match &output.svg {
        Some(_) => Err(Error::Usage(
            "--svg draws the counterexample of one spec: name a single spec, not a family".into(),
        )),
        None => Ok(()),
    }
}

fn replay_file(path: &Path, output: &ReplayOutputArgs) -> Result<i32, Error> {
    let text = crate::spec::input::read_text(path).map_err(Error::Usage)?;
    let saved = api::parse_counterexample(path, &text)?;
    let spec = api::counterexample_spec(&saved, path)?;
    if let Some(path) = &output.svg {
        save_svg(
            path,
            &svg::render_svg(&saved.spec, &saved.config, &saved.violation),
        )?;
    }
    let outcome = api::replay_counterexample(&saved, &spec)?;
    match output.format {
        TextOrJson::Json => println!("{}", to_json(&replay_json(&outcome))),
        TextOrJson::Text => {
            println!("{}", replay_text(&outcome));
            // As `check` shows it. On an unchanged spec every step matched
            // the recording, so the recorded trace is the one reproduced;
            // on an edited one its lines and values may be stale.
            if let ReplayOutcome::Reproduced {
                spec_changed: false,
                ..
            } = outcome
            {
                let mut trace = String::new();
                let names = crate::format::text::ThreadNames::of(&saved.config);
                crate::format::text::render_violation(&mut trace, &saved.violation, &names);
                print!("{trace}");
            }
        }
    }
    Ok(outcome.exit_code())
}

/// The replay's conclusion in words.
fn replay_text(outcome: &ReplayOutcome) -> String {
    const CHANGED: &str = "the spec changed since the counterexample was recorded";
    match outcome {
        ReplayOutcome::Reproduced {
            kind,
            message,
            spec_changed,
            ..
        } => {
            let note = if *spec_changed {
                format!("\nnote: {CHANGED}; the schedule still leads to the violation (`gsync-check check` shows its trace on the spec as it is now)")
            } else {
                String::new()
            };
            format!("reproduced: {kind}: {message}{note}")
        }
        ReplayOutcome::Fixed { step, reason } => format!(
            "fixed: the violation no longer happens: {}{reason}\nnote: {CHANGED}; this schedule is fixed, `gsync-check check` tells whether every one is",
            at(*step)
        ),
        ReplayOutcome::SpecChanged { step, reason } => {
            format!(
                "spec changed: {CHANGED} and the recording no longer applies: {}{reason}",
                at(*step)
            )
        }
        ReplayOutcome::Corrupt { step, reason } => format!(
            "corrupt: the spec is unchanged but the recording does not replay: {}{reason}",
            at(*step)
        ),
        ReplayOutcome::Inconclusive { step, reason } => {
            format!("inconclusive: {}{reason}", at(*step))
        }
    }
}

/// `at step N, ` (nothing for step 0: before the first step).
fn at(step: u32) -> String {
    if step == 0 {
        String::new()
    } else {
        format!("at step {step}, ")
    }
}

fn replay_json(outcome: &ReplayOutcome) -> serde_json::Value {
    let name = outcome.name();
    match outcome {
        ReplayOutcome::Reproduced {
            kind,
            message,
            step,
            spec_changed,
        } => serde_json::json!({
            "replay": name, "kind": kind, "message": message, "step": step,
            "spec_changed": spec_changed,
        }),
        ReplayOutcome::Fixed { step, reason }
        | ReplayOutcome::SpecChanged { step, reason }
        | ReplayOutcome::Corrupt { step, reason }
        | ReplayOutcome::Inconclusive { step, reason } => {
            serde_json::json!({"replay": name, "step": step, "reason": reason})
        }
    }
}

//! `gsync-check list` and family runs (every variant of barrier, mutex or
//! semaphore under one configuration, compared in a table).

use super::args::{CheckArgs, Format, OutputArgs};
use super::dist::{Ran, Session, Workers};
use super::{config_from, strip_timings, to_json, write_counterexamples};
use crate::api::declared_params;
use crate::api::{self, Error, SpecSource};
use crate::format::sarif;
use crate::format::text::{render_stats, verdict_colored};
use crate::report::{Limit, Report, Verdict};
use crate::spec::ast::SpecFile;
use colored::Colorize;
use std::io::IsTerminal;

/// Built-in specs with their parsed headers.
fn builtin_headers() -> Result<Vec<(SpecSource, SpecFile)>, Error> {
    api::builtins()
        .map(|s| {
            let file = api::parse(&s)?;
            Ok((s, file))
        })
        .collect()
}

pub(super) fn list() -> Result<(), Error> {
    let specs = builtin_headers()?;
    let width = list_width();
    for family in api::FAMILIES.iter().map(|f| Some(*f)).chain([None]) {
        let members: Vec<&(SpecSource, SpecFile)> = specs
            .iter()
            .filter(|(_, f)| match family {
                Some(fam) => f.header.family.as_deref() == Some(fam),
                None => !api::FAMILIES.contains(&f.header.family.as_deref().unwrap_or("")),
            })
            .collect();
        if members.is_empty() {
            continue;
        }
        println!("{}", family.unwrap_or("other").bold());
        for (s, f) in members {
            let h = &f.header;
            let description = wrap(h.description.as_deref().unwrap_or(""), width - NAME);
            let source = wrap(h.source.as_deref().unwrap_or(""), width - NAME);
            // A name wider than its column stands on a line of its own.
            let mut name = s.name.as_str();
            if name.chars().count() > NAME - 3 {
                println!("  {name}");
                name = "";
            }
            for line in &description {
                println!("  {name:<32} {line}");
                name = "";
            }
            for line in source {
                println!("  {:<32} {}", "", line.dimmed());
            }
        }
    }
    Ok(())
}

/// The columns before a description in `list`: two spaces, the name
/// padded to 32, a space.
const NAME: usize = 35;

/// The width `list` wraps to: the terminal's, or 100 columns where the
/// output is not a terminal (a file, a pipe); never narrower than the
/// names' column and 30 more.
fn list_width() -> usize {
    let width = std::io::stdout()
        .is_terminal()
        .then(terminal_columns)
        .flatten()
        .unwrap_or(100);
    width.max(NAME + 30)
}

/// The columns of the terminal on standard output, if it says.
fn terminal_columns() -> Option<usize> {
    #[cfg(unix)]
    {
        let mut size = libc::winsize {
            ws_row: 0,
            ws_col: 0,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: TIOCGWINSZ writes a `winsize` through the pointer, which
        // points at one; the descriptor is only read.
        let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
        (ok && size.ws_col > 0).then_some(usize::from(size.ws_col))
    }
    #[cfg(not(unix))]
    None
}

/// `text` in lines of at most `width` characters, broken between words (a
/// word longer than that stands on a line of its own); at least one line.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let line = lines.last_mut().expect("never empty");
        let len = line.chars().count();
        if len == 0 {
            line.push_str(word);
        } else if len + 1 + word.chars().count() <= width {
            line.push(' ');
            line.push_str(word);
        } else {
            lines.push(word.to_string());
        }
    }
    lines
}

pub(super) fn run_family(
    family: &str,
    check: &CheckArgs,
    output: &OutputArgs,
) -> Result<i32, Error> {
    super::stats_need_timings(output.stats, output.format == Format::Sarif)?;
    super::svg_needs_one_spec(output)?;
    let members: Vec<(SpecSource, SpecFile)> = builtin_headers()?
        .into_iter()
        .filter(|(_, f)| f.header.family.as_deref() == Some(family))
        .collect();
    let requested: Vec<String> = check
        .params
        .iter()
        .map(|(n, _)| n.clone())
        .chain(check.iters.map(|_| "iters".to_string()))
        .chain(check.size.map(|_| "size".to_string()))
        .collect();
    for name in &requested {
        if !members
            .iter()
            .any(|(_, f)| declared_params(f).contains(name))
        {
            return Err(Error::Usage(format!(
                "no {family} variant has a parameter `{name}`"
            )));
        }
    }
    let session = Session::start(
        &check.dist,
        Some(Workers::of(check, &config_from(check, None))),
    )?;
    if session.is_peer() {
        // A helping process of a distributed run: process 0 reports.
        let code = help_check(&members, check, &session);
        return session.finish(code);
    }
    let mut alone = Vec::new();
    let found = check_members(&members, check, (&session, &mut alone));
    let found = session.finish(found)?;
    let mut reports: Vec<Report> = Vec::new();
    let launch = config_from(check, None).launch;
    let mut not_checked: Vec<&str> = Vec::new();
    let mut searched_again: Vec<&str> = Vec::new();
    for (checked, (spec, _)) in found.into_iter().zip(&members) {
        let Some(Checked {
            mut report,
            seconds,
            passes,
        }) = checked
        else {
            not_checked.push(&spec.name);
            continue;
        };
        if passes > 1 {
            searched_again.push(&spec.name);
        }
        write_counterexamples(&report, spec, output.out.as_deref(), &report.spec)?;
        if output.format == Format::Text {
            print_row(&report, seconds, reports.is_empty(), family, &launch);
        }
        if !output.stats && output.format != Format::Text {
            strip_timings(&mut report);
        }
        reports.push(report);
    }
    // Variants left unchecked by an interrupt are unknowns.
    let unknown = (!not_checked.is_empty()).then_some(Verdict::Inconclusive);
    let worst = reports
        .iter()
        .map(|r| r.verdict)
        .chain(unknown)
        .fold(Verdict::Verified, Verdict::worst);
    match output.format {
        Format::Json => println!("{}", to_json(&reports)),
        Format::Sarif => println!("{}", to_json(&sarif::from_reports(&reports))),
        Format::Text => {
            let skipped: Vec<String> = requested
                .iter()
                .flat_map(|p| {
                    members
                        .iter()
                        .filter(move |(_, f)| !declared_params(f).contains(p))
                        .map(move |(s, _)| format!("{} (no `{p}`)", s.name))
                })
                .collect();
            if !skipped.is_empty() {
                println!(
                    "note: parameter overrides not applied to {}",
                    skipped.join(", ")
                );
            }
            if !searched_again.is_empty() {
                println!(
                    "note: {} ran out of {} share of --max-seconds and {} searched again with the time left: states are the better pass's, seconds both passes'",
                    searched_again.join(", "),
                    if searched_again.len() == 1 { "its" } else { "their" },
                    if searched_again.len() == 1 { "was" } else { "were" },
                );
            }
            if !alone.is_empty() {
                println!(
                    "note: checked by process 0 alone (the labelled state graph decides their deadlock): {}",
                    alone.join(", ")
                );
            }
            if !not_checked.is_empty() {
                println!("interrupted: not checked: {}", not_checked.join(", "));
            }
            if output.stats {
                for r in &reports {
                    println!("{:<32} {}", r.spec, render_stats(r));
                }
            }
            println!("details: gsync-check NAME [options] (one variant, with its counterexample)");
        }
    }
    Ok(worst.exit_code())
}

/// A variant's result: the report of its better pass and the time of all
/// its passes (a helping process of a distributed run has no report).
struct Checked {
    report: Report,
    seconds: f64,
    passes: u32,
}

/// A helping process of a distributed run: checks every member with the
/// others, in the same order and with the same shares of the time, and
/// returns the worst exit code.
fn help_check(
    members: &[(SpecSource, SpecFile)],
    check: &CheckArgs,
    session: &Session,
) -> Result<i32, Error> {
    let family_deadline = crate::explore::deadline_in(check.max_seconds);
    let mut worst = Verdict::Verified;
    for i in 0..members.len() {
        let share = family_deadline.map(|d| fair_share(d, members.len() - i));
        let config = member_config(&members[i], check, share);
        if let Ran::Peer(code) = session.check(&members[i].0, &config)? {
            worst = worst.worst(match code {
                0 => Verdict::Verified,
                1 => Verdict::Violated,
                _ => Verdict::Inconclusive,
            });
        }
    }
    Ok(worst.exit_code())
}

/// Member `(spec, file)`'s configuration: its own parameters, by `deadline`.
fn member_config(
    (_, file): &(SpecSource, SpecFile),
    check: &CheckArgs,
    deadline: Option<std::time::Instant>,
) -> crate::api::CheckConfig {
    let declared = declared_params(file);
    let mut config = config_from(check, Some(&declared));
    config.limits.deadline = deadline;
    config
}

/// Checks every member in turn, each within its share of `--max-seconds`
/// (which bounds the whole family), until done or interrupted (`None`:
/// not checked). Each variant gets an equal share of the time left (what
/// it does not use passes to the next), so one variant that explodes
/// cannot leave the cheap ones after it undecided. The time still left
/// then goes to the variants that ran out of theirs, searched again from
/// the start: the explorer cannot pause a search while others run, and a
/// paused search's visited set would count against `--max-memory`. A
/// distributed run searches each variant once: whether to search again
/// would hang on each process's own clock.
fn check_members(
    members: &[(SpecSource, SpecFile)],
    check: &CheckArgs,
    (session, alone): (&Session, &mut Vec<String>),
) -> Result<Vec<Option<Checked>>, Error> {
    let family_deadline = crate::explore::deadline_in(check.max_seconds);
    let mut found: Vec<Option<Checked>> = members.iter().map(|_| None).collect();
    for (i, slot) in found.iter_mut().enumerate() {
        if crate::explore::interrupted() {
            break;
        }
        let share = family_deadline.map(|d| fair_share(d, members.len() - i));
        let report = check_member(members, i, check, share, (session, alone))?;
        let seconds = seconds_of(&report);
        *slot = Some(Checked {
            report,
            seconds,
            passes: 1,
        });
    }
    let Some(deadline) = family_deadline.filter(|_| !session.distributed()) else {
        return Ok(found);
    };
    let pending: Vec<usize> = (0..members.len())
        .filter(|&i| found[i].as_ref().is_some_and(|c| out_of_time(&c.report)))
        .collect();
    for (k, &i) in pending.iter().enumerate() {
        let Some(first) = found[i].as_mut() else {
            continue;
        };
        let share = fair_share(deadline, pending.len() - k);
        // The search is deterministic and starts again from scratch: with
        // less than twice the first pass's time it would get little or no
        // further, so that time passes on to the next variant instead.
        let time = share.saturating_duration_since(std::time::Instant::now());
        if crate::explore::interrupted() || time.as_secs_f64() < 2.0 * first.seconds {
            continue;
        }
        let again = check_member(members, i, check, Some(share), (session, alone))?;
        first.seconds += seconds_of(&again);
        first.passes += 1;
        if again.verdict != Verdict::Inconclusive || again.stats.states >= first.report.stats.states
        {
            first.report = again;
        }
    }
    Ok(found)
}

/// Checks member `i` of `members` with its own parameters, by `deadline`,
/// on the session's processes (on this one alone where only one process
/// answers: its name goes to `alone`).
fn check_member(
    members: &[(SpecSource, SpecFile)],
    i: usize,
    check: &CheckArgs,
    deadline: Option<std::time::Instant>,
    (session, alone): (&Session, &mut Vec<String>),
) -> Result<Report, Error> {
    let spec = &members[i].0;
    let config = member_config(&members[i], check, deadline);
    let label = format!("{} ({} of {})", spec.name, i + 1, members.len());
    let running = (config.search.progress && std::io::stderr().is_terminal())
        .then(|| RunningLine::show(&label));
    crate::explore::set_progress_label(Some(label));
    crate::explore::set_progress_deadline(deadline.zip(check.max_seconds).map(|(d, total)| {
        let share = d.saturating_duration_since(std::time::Instant::now());
        format!("its {} s share of --max-seconds {total}", share.as_secs())
    }));
    let report = match session.check(spec, &config) {
        Ok(Ran::Here) => api::check_spec(spec, &config),
        Ok(Ran::Report(report)) => Ok(*report),
        Ok(Ran::Peer(_)) => unreachable!("process 0 reports"),
        Ok(Ran::OneProcess(_)) => {
            alone.push(spec.name.clone());
            api::check_spec(spec, &config)
        }
        Err(e) => Err(e),
    };
    crate::explore::set_progress_label(None);
    crate::explore::set_progress_deadline(None);
    drop(running);
    report
}

/// The wall-clock seconds of a check (0 where not measured).
fn seconds_of(r: &Report) -> f64 {
    r.stats.measured.as_ref().map_or(0.0, |m| m.seconds)
}

/// Whether `r` was cut off by the time limit.
fn out_of_time(r: &Report) -> bool {
    r.limit == Some(Limit::MaxSeconds)
}

/// The deadline of the next of `left` variants that share `family`: an
/// equal share of the time left (the last one gets all of it).
fn fair_share(family: std::time::Instant, left: usize) -> std::time::Instant {
    let now = std::time::Instant::now();
    let remaining = family.saturating_duration_since(now);
    now + remaining / left.max(1) as u32
}

/// One variant's row; `seconds`: all its passes'.
fn print_row(r: &Report, seconds: f64, first: bool, family: &str, launch: &crate::ir::Launch) {
    if first {
        println!(
            "{} family, {} block{} × {} thread{}, memory model {}, scheduler {}{}\n",
            family.bold(),
            launch.blocks,
            if launch.blocks == 1 { "" } else { "s" },
            launch.threads_per_block,
            if launch.threads_per_block == 1 {
                ""
            } else {
                "s"
            },
            r.config.memory_model,
            r.config.scheduler,
            r.config
                .resident
                .map(|n| format!(", {n} resident"))
                .unwrap_or_default()
        );
        println!(
            "{:<32} {:<13} {:<20} {:>10} {:>8}",
            "variant".bold(),
            "verdict".bold(),
            "violation".bold(),
            "states".bold(),
            "seconds".bold()
        );
    }
    let kind = match (r.violations.first(), &r.limit) {
        (Some(v), _) => v.kind.to_string(),
        (None, Some(l)) => format!("({l})"),
        (None, None) => "-".into(),
    };
    // Pad before colouring: escape codes would throw the columns off.
    let verdict = format!("{:<13}", r.verdict.name());
    let verdict = verdict.replace(r.verdict.name(), &verdict_colored(r.verdict).to_string());
    println!(
        "{:<32} {} {:<20} {:>10} {:>8.2}",
        r.spec, verdict, kind, r.stats.states, seconds
    );
}

/// While a variant is checked, a line on the terminal's stderr saying which
/// (the explorer's progress spinner draws below it); erased when it ends,
/// so the table is left as if it had not been there.
struct RunningLine;

impl RunningLine {
    fn show(label: &str) -> RunningLine {
        eprintln!("checking {label}...");
        RunningLine
    }
}

impl Drop for RunningLine {
    fn drop(&mut self) {
        // Up one line (the spinner has cleared its own), then clear it.
        eprint!("\x1b[1A\x1b[2K\r");
    }
}

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn wrap_breaks_between_words_within_the_width() {
        let text = "a lock-free tree barrier with per-SM counters, from HeteroSync";
        let lines = wrap(text, 20);
        assert!(lines.iter().all(|l| l.chars().count() <= 20), "{lines:?}");
        assert_eq!(lines.join(" "), text);
        assert_eq!(wrap("", 20), [""]);
        assert_eq!(wrap("unbreakable-word-longer-than-the-width", 10).len(), 1);
    }
}

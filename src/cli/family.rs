//! `gsync-check list` and family runs (every variant of barrier, mutex or
//! semaphore under one configuration, compared in a table).

use super::args::{CheckArgs, Format, OutputArgs};
use super::{config_from, strip_timings, to_json, write_counterexamples};
use colored::Colorize;
use gsync_check::api::declared_params;
use gsync_check::api::{self, Error, SpecSource};
use gsync_check::format::sarif;
use gsync_check::format::text::{render_stats, verdict_colored};
use gsync_check::report::{Report, Verdict};
use gsync_check::spec::ast::SpecFile;

/// Built-in specs with their parsed headers.
fn builtin_headers() -> Result<Vec<(SpecSource, SpecFile)>, Error> {
    api::builtins()
        .map(|s| {
            let file = api::parse(&s)?;
            Ok((s, file))
        })
        .collect()
}

pub fn list() -> Result<(), Error> {
    let specs = builtin_headers()?;
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
            println!(
                "  {:<32} {}",
                s.name,
                h.description.as_deref().unwrap_or("")
            );
            println!(
                "  {:<32} {}",
                "",
                h.source.as_deref().unwrap_or("").dimmed()
            );
        }
    }
    Ok(())
}

pub fn run_family(family: &str, check: &CheckArgs, output: &OutputArgs) -> Result<i32, Error> {
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
    let mut reports: Vec<Report> = Vec::new();
    // `--max-seconds` bounds the whole family: every variant shares one
    // deadline, and those reached after it are inconclusive at once.
    let deadline = gsync_check::explore::deadline_in(check.max_seconds);
    for (i, (spec, file)) in members.iter().enumerate() {
        let declared = declared_params(file);
        let config = api::CheckConfig {
            deadline,
            ..config_from(check, Some(&declared))
        };
        let running = config
            .progress
            .then(|| RunningLine::show(&spec.name, i + 1, members.len()));
        let report = api::check_spec(spec, &config);
        drop(running);
        let mut report = report?;
        write_counterexamples(&report, spec, output.out.as_deref(), &report.spec)?;
        if output.format == Format::Text {
            print_row(&report, reports.is_empty(), family, &config.launch);
        }
        if !output.stats && output.format != Format::Text {
            strip_timings(&mut report);
        }
        reports.push(report);
    }
    let worst = reports
        .iter()
        .fold(Verdict::Verified, |w, r| w.worst(r.verdict));
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

fn print_row(r: &Report, first: bool, family: &str, launch: &gsync_check::ir::Launch) {
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
        r.spec,
        verdict,
        kind,
        r.stats.states,
        r.stats.measured.as_ref().map_or(0.0, |m| m.seconds)
    );
}

/// While a variant is checked, a line on the terminal's stderr saying which
/// (the explorer's progress spinner draws below it); erased when it ends,
/// so the table is left as if it had not been there.
struct RunningLine;

impl RunningLine {
    fn show(name: &str, i: usize, n: usize) -> RunningLine {
        eprintln!("checking {name} ({i} of {n})...");
        RunningLine
    }
}

impl Drop for RunningLine {
    fn drop(&mut self) {
        // Up one line (the spinner has cleared its own), then clear it.
        eprint!("\x1b[1A\x1b[2K\r");
    }
}

//! `gsync-check litmus`: herd PTX litmus tests, one file or a directory
//! against an expectation file: their final conditions, or with
//! `--liveness` whether they terminate under a progress model.

use super::args::TextOrJson as Format;
use super::{to_json, EXIT_USAGE};
use crate::api::Error;
use crate::format::text::{render_violation, ThreadNames};
use crate::litmus::{self, Checked, Failure, LitmusConfig, Question};
use crate::model::{Progress, Scheduler};
use clap::Args;
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(Args, Debug, Clone)]
pub struct LitmusArgs {
    /// A `.litmus` file, or a directory of them (with --expect).
    pub path: PathBuf,

    /// Expected results, `path,0|1` per line, paths relative to the directory: 1 means the final condition holds, or with --liveness that the test terminates (Dat3M's convention)
    #[arg(long, value_name = "FILE.csv")]
    pub expect: Option<PathBuf>,

    /// Ask whether every execution terminates (under --scheduler) instead of checking the final condition; a hang is printed as a lasso: the steps to a cycle, then the cycle repeated forever
    #[arg(long, conflicts_with = "on_gpu")]
    pub liveness: bool,

    /// With --liveness: the progress model executions are judged under, as for specs: fair (default; weak fairness, what expected-liveness.csv assumes), strong, hsa, obe, hsa-obe, lobe, unfair, blocks=MODEL,threads=MODEL, or deadlock (only executions that get stuck)
    #[arg(long, value_name = "MODEL", requires = "liveness")]
    pub scheduler: Option<Scheduler>,

    /// Memory model: ptx (scoped PTX model) or sc (sequential consistency)
    #[arg(long, value_name = "MODEL", default_value = "ptx")]
    pub memory_model: crate::model::MemoryModel,

    /// Per test: give up (unsupported) after this many states, at least 1
    #[arg(long, value_name = "N", default_value_t = 2_000_000, value_parser = super::args::at_least_1::<u64>, allow_negative_numbers = true)]
    pub max_states: u64,

    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    #[command(flatten)]
    pub gpu: super::litmus_gpu::GpuLitmusArgs,
}

/// What the run asks of each test.
fn question(args: &LitmusArgs) -> Result<Question, Error> {
    if args.liveness {
        let scheduler = args.scheduler.unwrap_or(Scheduler::uniform(Progress::Fair));
        return Ok(Question::Termination(scheduler));
    }
    // Liveness expectations checked as final conditions would compare
    // "terminates" with "the condition holds": refuse rather than guess.
    if let Some(csv) = &args.expect {
        let named = csv
            .file_name()
            .is_some_and(|n| n.to_string_lossy().to_lowercase().contains("liveness"));
        if named {
            return Err(Error::Usage(format!(
                "{} looks like liveness expectations (1: the test terminates), but without --liveness each test's final condition is checked; add --liveness (and --scheduler MODEL, default fair)",
                csv.display()
            )));
        }
    }
    Ok(Question::Condition)
}

pub(super) fn run(args: &LitmusArgs) -> Result<i32, Error> {
    let question = question(args)?;
    let config = LitmusConfig {
        memory_model: args.memory_model,
        max_states: args.max_states,
        ..LitmusConfig::default()
    };
    if args.gpu.on_gpu {
        return super::litmus_gpu::run(
            &args.path,
            args.expect.as_deref(),
            config,
            args.format,
            &args.gpu,
        );
    }
    if args.path.is_dir() {
        let Some(expect) = &args.expect else {
            return Err(Error::Usage(format!(
                "{} is a directory: give the expected results with --expect FILE.csv",
                args.path.display()
            )));
        };
        let report =
            litmus::run_dir(&args.path, expect, &config, question).map_err(Error::Usage)?;
        match args.format {
            Format::Json => println!("{}", to_json(&report)),
            Format::Text => print!("{}", litmus::render_dir(&report)),
        }
        return Ok(i32::from(report.summary.unsound > 0));
    }
    // One file; an expectation file may name it (by its path's suffix).
    let expected = match &args.expect {
        None => None,
        Some(csv) => {
            let rows = litmus::read_expectations(csv).map_err(Error::Usage)?;
            let shown = args.path.to_string_lossy().replace('\\', "/");
            let row = rows
                .into_iter()
                .find(|(p, _)| shown.ends_with(p.as_str()))
                .map(|(_, e)| e);
            // An expectation file that does not name the test would be
            // silently unused.
            Some(row.ok_or_else(|| {
                Error::Usage(format!(
                    "{} has no row for {shown}: nothing to compare with",
                    csv.display()
                ))
            })?)
        }
    };
    match litmus::ask_file(&args.path, &config, question) {
        Ok(c) => {
            let agreement = expected.map(|e| litmus::agreement(c.quantifier, c.holds, e));
            match args.format {
                Format::Json => println!("{}", to_json(&json_of(&c, question, expected))),
                Format::Text => print!("{}", text_of(&c, question, expected)),
            }
            Ok(i32::from(agreement == Some(litmus::Agreement::Unsound)))
        }
        Err(f) => {
            let color = std::io::stderr().is_terminal();
            match args.format {
                Format::Json => println!(
                    "{}",
                    to_json(&serde_json::json!({
                        "agreement": "unsupported",
                        "reason": f.reason(),
                    }))
                ),
                Format::Text => eprint!("{}", f.render(color)),
            }
            Ok(match f {
                Failure::Unsupported(..) => 3,
                _ => EXIT_USAGE,
            })
        }
    }
}

/// One test's answer as JSON.
fn json_of(c: &Checked, question: Question, expected: Option<bool>) -> serde_json::Value {
    let agreement = expected.map(|e| litmus::agreement(c.quantifier, c.holds, e));
    match question {
        Question::Condition => serde_json::json!({
            "test": c.name,
            "quantifier": c.quantifier.keyword(),
            "model": c.holds,
            "expected": expected,
            "agreement": agreement,
            "outcomes": c.outcomes,
            "states": c.states,
        }),
        Question::Termination(scheduler) => serde_json::json!({
            "test": c.name,
            "scheduler": scheduler,
            "terminates": c.holds,
            "expected": expected,
            "agreement": agreement,
            "violation": c.violation,
            "states": c.states,
        }),
    }
}

/// One test's answer as text; under --liveness a hang's lasso follows.
fn text_of(c: &Checked, question: Question, expected: Option<bool>) -> String {
    let Question::Termination(scheduler) = question else {
        return litmus::render_checked(c, expected);
    };
    let mut out = litmus::render_termination(c, scheduler, expected);
    if let Some(v) = &c.violation {
        render_violation(&mut out, v, &ThreadNames::blocks_of(c.threads_per_block));
    }
    out
}

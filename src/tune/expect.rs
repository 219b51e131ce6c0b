//! The checks a variant of a spec must pass: its `//! expect` lines (for
//! `relax`) or one configuration that must verify (for `repair`), run on
//! a variant's text through `api` as `verify` runs them.

use crate::api::args::CheckOptions;
use crate::api::{self, CheckConfig, Error, SpecSource};
use crate::clock::Instant;
use crate::model::MemoryModel;
use crate::report::{Report, Verdict};
use crate::spec::ast::Expectation;
use clap::Parser;
use std::path::PathBuf;

/// One version of what a search edits: the spec's text and the texts of
/// the CUDA files it imports (by canonical path; none for a plain spec).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Variant {
    pub spec: String,
    pub cuda: Vec<(PathBuf, String)>,
}

impl Variant {
    /// The text of document `doc`: 0 the spec, k the k-th CUDA file.
    pub(super) fn doc(&self, doc: usize) -> &str {
        match doc {
            0 => &self.spec,
            k => &self.cuda[k - 1].1,
        }
    }

    /// The variant checked under `config`.
    pub(super) fn check(&self, spec: &SpecSource, config: &CheckConfig) -> Result<Report, Error> {
        let spec = SpecSource {
            text: self.spec.clone(),
            ..spec.clone()
        };
        api::check_spec_with(&spec, config, &self.cuda)
    }
}

/// An expect line's options, parsed as `check` parses them.
#[derive(Parser, Debug)]
#[command(no_binary_name = true)]
struct ExpectArgs {
    #[command(flatten)]
    options: CheckOptions,
}

/// Bounds and settings every check of a search shares.
#[derive(Clone, Copy, Debug, Default)]
pub struct Budget {
    /// The whole search ends here (`--max-seconds`).
    pub deadline: Option<Instant>,
    /// Each check stops after this many states (`--max-states`).
    pub max_states: Option<u64>,
    pub max_memory_mb: Option<u64>,
    /// Explorer threads of each check (default: as `check`).
    pub threads: Option<usize>,
}

impl Budget {
    /// `config` bounded by this budget, without progress output.
    pub fn apply(&self, mut config: CheckConfig) -> CheckConfig {
        let tighter = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
        config.limits.max_states = tighter(config.limits.max_states, self.max_states);
        config.limits.max_memory_mb = tighter(config.limits.max_memory_mb, self.max_memory_mb);
        config.limits.deadline = self.deadline;
        config.search.progress = false;
        if let Some(t) = self.threads {
            config.search.threads = t;
        }
        config
    }

    /// Whether the search must stop: the deadline passed or Ctrl-C.
    pub fn spent(&self) -> bool {
        crate::explore::interrupted() || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// One check a variant must pass: an expectation and its configuration.
#[derive(Clone, Debug)]
pub(super) struct Target {
    pub expect: Expectation,
    pub config: CheckConfig,
}

/// The spec's expectations as targets; an expect line whose options do
/// not parse is an error at its line.
pub(super) fn targets(
    spec: &SpecSource,
    expects: &[Expectation],
    budget: &Budget,
) -> Result<Vec<Target>, Error> {
    expects
        .iter()
        .map(|e| {
            let parsed = ExpectArgs::try_parse_from(&e.args).map_err(|err| {
                let first = err.to_string();
                let first = first.lines().next().unwrap_or("").to_string();
                Error::Usage(format!(
                    "{}:{}: the expect line's options do not parse: {first}",
                    spec.origin, e.line
                ))
            })?;
            Ok(Target {
                expect: e.clone(),
                config: budget.apply(parsed.options.config(None)),
            })
        })
        .collect()
}

/// How a variant fared.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Outcome {
    Holds,
    /// The expectation of this line (0: the command line's check) is not
    /// met: the report's verdict and kind, or the error.
    Fails {
        line: u32,
        got: String,
    },
    /// A check of this line reached a limit.
    Undecided {
        line: u32,
        got: String,
    },
}

/// Runs variants of one spec against its targets, the target that failed
/// last first (it is the likeliest to fail again).
pub(super) struct Checker {
    spec: SpecSource,
    targets: Vec<Target>,
    order: Vec<usize>,
    /// Checks run so far.
    pub checks: usize,
    /// Lines whose check ran under `ptx`.
    pub ptx_lines: Vec<u32>,
}

impl Checker {
    pub(super) fn new(spec: &SpecSource, targets: Vec<Target>) -> Checker {
        Checker {
            spec: spec.clone(),
            order: (0..targets.len()).collect(),
            targets,
            checks: 0,
            ptx_lines: Vec::new(),
        }
    }

    pub(super) fn add_targets(&mut self, extra: Vec<Target>) {
        self.order
            .extend(self.targets.len()..self.targets.len() + extra.len());
        self.targets.extend(extra);
    }

    pub(super) fn targets(&self) -> &[Target] {
        &self.targets
    }

    /// Whether every target holds for this variant of the spec.
    pub(super) fn evaluate(&mut self, variant: &Variant) -> Outcome {
        for k in 0..self.order.len() {
            let i = self.order[k];
            let t = &self.targets[i];
            self.checks += 1;
            let line = t.expect.line;
            let outcome = match variant.check(&self.spec, &t.config) {
                Err(e) => Outcome::Fails {
                    line,
                    got: first_line(&e.render(false)),
                },
                Ok(report) => {
                    if report.config.memory_model == MemoryModel::Ptx
                        && !self.ptx_lines.contains(&line)
                    {
                        self.ptx_lines.push(line);
                    }
                    if api::expectation_met(&t.expect, &report) {
                        continue;
                    }
                    match report.verdict {
                        Verdict::Inconclusive => Outcome::Undecided {
                            line,
                            got: describe(&report),
                        },
                        _ => Outcome::Fails {
                            line,
                            got: describe(&report),
                        },
                    }
                }
            };
            self.order.remove(k);
            self.order.insert(0, i);
            return outcome;
        }
        Outcome::Holds
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").trim().to_string()
}

/// A report's verdict as an expect line writes it: `violated deadlock`,
/// `inconclusive (max_states)`.
pub(super) fn describe(report: &Report) -> String {
    match (report.verdict, report.violations.first(), report.limit) {
        (Verdict::Violated, Some(v), _) => format!("violated {}", v.kind.name()),
        (Verdict::Inconclusive, _, Some(limit)) => format!("inconclusive ({})", limit.name()),
        (v, _, _) => v.name().to_string(),
    }
}

/// A variant of the spec checked under `config`, described.
pub(super) fn verdict_of(spec: &SpecSource, variant: &Variant, config: &CheckConfig) -> String {
    match variant.check(spec, config) {
        Ok(report) => describe(&report),
        Err(e) => format!("error: {}", first_line(&e.render(false))),
    }
}

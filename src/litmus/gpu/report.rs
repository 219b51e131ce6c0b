//! The GPU litmus run as text (one line per test, then what the model
//! forbids that was seen), as CSV (one row per test, environment and
//! outcome) and as JSON ([`GpuLitmusReport`]).

use super::super::column_width;
use super::compare::totals;
pub(crate) use super::corpus::{GpuLitmusReport, Status, TestResult};
use std::collections::BTreeSet;
use std::fmt::Write;

/// Instances whose outcome satisfies the test's condition, and all
/// finished instances.
pub(crate) fn condition_count(t: &TestResult) -> (u64, u64) {
    let mut hit = 0;
    let mut all = 0;
    for r in &t.runs {
        for o in &r.outcomes {
            all += o.count();
            if o.condition {
                hit += o.count();
            }
        }
    }
    (hit, all)
}

fn rate(hit: u64, all: u64) -> String {
    if all == 0 {
        "-".into()
    } else if hit == 0 {
        "0".into()
    } else {
        format!("{:.1e}", hit as f64 / all as f64)
    }
}

/// The text report; the summary is the last line.
pub(crate) fn render(report: &GpuLitmusReport) -> String {
    let width = column_width(report.tests.iter().map(|t| t.path.len()));
    let mut out = String::new();
    if let Some(g) = &report.gpu {
        let _ = writeln!(
            out,
            "{} ({} SMs, cc {}, driver {}); memory model {}; {} launches per environment ({})",
            g.name,
            g.sms,
            g.compute_capability,
            g.driver,
            report.memory_model.name(),
            report.options.launches,
            report
                .environments
                .iter()
                .map(|e| e.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let header = [
        "test",
        "cond",
        "instances",
        "cond seen",
        "rate",
        "seen",
        "model",
        "forbidden",
    ];
    out.push_str(&line(width, header.map(String::from), "status"));
    for t in &report.tests {
        out.push_str(&line(width, cells(t), &status(t)));
    }
    for t in report
        .tests
        .iter()
        .filter(|t| t.status == Status::Forbidden)
    {
        let v = t.verdict.as_ref().expect("judged");
        for (o, n) in &v.seen_forbidden {
            let _ = writeln!(
                out,
                "FORBIDDEN {}: {o} seen {n} times; the model allows only {:?}",
                t.path, t.model_allowed
            );
        }
        if v.hang_forbidden {
            let _ = writeln!(out, "FORBIDDEN {}: {} instances did not finish; the model says every fair execution terminates", t.path, v.unfinished);
        }
    }
    let count = |s: Status| report.tests.iter().filter(|t| t.status == s).count();
    let _ = writeln!(
        out,
        "litmus on the GPU: {} tests, {} run, {} with outcomes the model forbids, {} unsupported, {} errors",
        report.tests.len(),
        count(Status::Ok) + count(Status::Forbidden),
        count(Status::Forbidden),
        count(Status::Unsupported),
        count(Status::Error)
    );
    out
}

/// One line of the table: the test's path, its condition and figures, its status.
fn line(width: usize, c: [String; 8], status: &str) -> String {
    format!(
        "{:width$}  {:7}  {:>10}  {:>10}  {:>7}  {:>6}  {:>6}  {:>9}  {status}\n",
        c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]
    )
}

/// A test's cells: `-` for its figures when it did not run.
fn cells(t: &TestResult) -> [String; 8] {
    let mut c = [
        t.path.as_str(),
        t.quantifier.as_str(),
        "-",
        "-",
        "-",
        "-",
        "-",
        "-",
    ]
    .map(String::from);
    if !t.runs.is_empty() {
        let (hit, all) = condition_count(t);
        let forbidden = t
            .verdict
            .as_ref()
            .map_or(0, |v| v.seen_forbidden.iter().map(|(_, n)| n).sum::<u64>());
        c[2] = all.to_string();
        c[3] = hit.to_string();
        c[4] = rate(hit, all);
        c[5] = totals(&t.runs).len().to_string();
        c[6] = t.model_allowed.len().to_string();
        c[7] = forbidden.to_string();
    }
    c
}

/// The status, with the instances that did not finish and the reason.
fn status(t: &TestResult) -> String {
    let mut status = t.status.name().to_string();
    if let Some(v) = &t.verdict {
        if v.unfinished > 0 {
            let _ = write!(status, " ({} unfinished)", v.unfinished);
        }
    }
    if let Some(r) = &t.reason {
        let _ = write!(status, ": {r}");
    }
    status
}

/// One row per test, environment and outcome seen, plus one per outcome
/// the model allows that was not seen (count 0).
pub(crate) fn csv(report: &GpuLitmusReport) -> String {
    let mut out = String::from("path,environment,outcome,condition,allowed,one_sm,several_sms\n");
    for t in &report.tests {
        let allowed: BTreeSet<&str> = t.model_allowed.iter().map(String::as_str).collect();
        for r in &t.runs {
            for o in &r.outcomes {
                let _ = writeln!(
                    out,
                    "{},{},\"{}\",{},{},{},{}",
                    t.path,
                    r.environment,
                    o.outcome,
                    o.condition,
                    allowed.contains(o.outcome.as_str()),
                    o.one_sm,
                    o.several_sms
                );
            }
        }
        if let Some(v) = &t.verdict {
            for o in &v.allowed_unseen {
                let _ = writeln!(out, "{},all,\"{o}\",,true,0,0", t.path);
            }
        }
    }
    out
}

//! SARIF 2.1.0 output, so code-scanning tools annotate the spec line of
//! the violating step in a pull request.

use super::text::launches_text;
use crate::model::ViolationKind;
use crate::report::{CaseResult, FixStatus, Report};
use serde_json::{json, Value};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The repository path of a spec (`builtin:NAME` is `specs/NAME.gsync`).
fn artifact_uri(source: &str) -> String {
    match source.strip_prefix("builtin:") {
        Some(name) => format!("specs/{name}.gsync"),
        None => source.trim_start_matches("./").to_string(),
    }
}

/// One SARIF result per violation; `level` is `error` unless the violation
/// was expected (a known-buggy spec), then `note`.
fn results(report: &Report, expected: bool) -> Vec<Value> {
    let fixes = fixes(report);
    report
        .violations
        .iter()
        .map(|v| {
            let at = v.location.as_ref().or(v.trace.steps.last().map(|s| &s.span));
            let (line, column) = at.map_or((1, 1), |p| (p.line.max(1), p.column.max(1)));
            let config: Vec<String> = report.config.params.iter().map(|(k, val)| format!("{k}={val}")).collect();
            let mut result = json!({
                "ruleId": v.kind,
                "level": if expected { "note" } else { "error" },
                "message": {
                    "text": format!(
                        "{}: {} ({}, {} scheduler; {})",
                        v.kind,
                        v.message,
                        launches_text(&report.config),
                        report.config.scheduler,
                        config.join(", ")
                    )
                },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": artifact_uri(&report.source) },
                        "region": { "startLine": line, "startColumn": column }
                    }
                }],
                "properties": { "spec": report.spec, "property": v.property, "steps": v.trace.schedule.len() }
            });
            if let Some(fixes) = &fixes {
                result["fixes"] = fixes.clone();
            }
            result
        })
        .collect()
}

/// A checked fix (`check --suggest-fix`) as SARIF `fixes`: one fix whose
/// replacements are whole lines of the spec, so that code-scanning tools
/// can offer it as a suggested change. Nothing where no fix was found:
/// an unchecked hint is never a fix.
fn fixes(report: &Report) -> Option<Value> {
    let fix = report.fix.as_ref()?;
    if fix.status != FixStatus::Found || fix.replacements.is_empty() {
        return None;
    }
    let mut text = format!("{} ({})", fix.help.join("; "), fix.why);
    if let Some(c) = &fix.caveat {
        text += &format!("; warning: {c}");
    }
    let replacements: Vec<Value> = fix
        .replacements
        .iter()
        .map(|r| {
            json!({
                "deletedRegion": {
                    "startLine": r.start_line,
                    "startColumn": r.start_column,
                    "endLine": r.end_line,
                    "endColumn": r.end_column
                },
                "insertedContent": { "text": r.inserted }
            })
        })
        .collect();
    Some(json!([{
        "description": { "text": text },
        "artifactChanges": [{
            "artifactLocation": { "uri": artifact_uri(&report.source) },
            "replacements": replacements
        }]
    }]))
}

fn log(results: Vec<Value>) -> Value {
    let rules: Vec<Value> = ViolationKind::ALL
        .iter()
        .map(|k| json!({ "id": k, "shortDescription": { "text": k.name().replace('_', " ") } }))
        .collect();
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "gsync-check",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules
                }
            },
            "results": results
        }]
    })
}

/// A SARIF log of check reports (every violation is an error).
pub fn from_reports(reports: &[Report]) -> Value {
    log(reports.iter().flat_map(|r| results(r, false)).collect())
}

/// A SARIF log of a `verify` run: violations a spec expects are notes,
/// unexpected ones errors; an expectation of a violation that did not
/// happen is an error at the spec's `expect` line.
pub fn from_cases(cases: &[CaseResult]) -> Value {
    let mut all = Vec::new();
    for case in cases {
        if let Some(report) = case.report() {
            all.extend(results(report, case.passed));
        }
        if !case.passed && case.report().is_none_or(|r| r.violations.is_empty()) {
            all.push(json!({
                "ruleId": case.expected_kind.clone().unwrap_or_else(|| "assertion".into()),
                "level": "error",
                "message": { "text": format!("expectation not met: {}", case.summary()) },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": artifact_uri(&case.source) },
                        "region": { "startLine": case.line.max(1) }
                    }
                }]
            }));
        }
    }
    log(all)
}

//! Whether a report meets an `//! expect` line: its verdict, and the kind
//! of its first violation where the line names one (`verify` and the
//! tools that search for variants of a spec decide it alike).

use crate::report::Report;
use crate::spec::ast::Expectation;

/// Whether `report` meets the expectation `e`.
pub fn expectation_met(e: &Expectation, report: &Report) -> bool {
    let kind = report.violations.first().map(|v| v.kind.name());
    report.verdict.name() == e.verdict
        && e.kind
            .as_deref()
            .is_none_or(|k| kind.is_some_and(|got| crate::spec::header::kind_matches(k, got)))
}

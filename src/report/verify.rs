//! The outcome of checking one `//! expect` line of a spec (`verify`).

use super::Report;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct CaseResult {
    pub spec: String,
    /// `builtin:NAME` or the spec's path.
    pub source: String,
    /// 1-based line of the `expect` header line.
    pub line: u32,
    /// The options of the expectation.
    pub args: Vec<String>,
    pub expected_verdict: String,
    pub expected_kind: Option<String>,
    pub passed: bool,
    /// `report` or `error` in JSON.
    #[serde(flatten)]
    pub outcome: CaseOutcome,
    pub seconds: f64,
}

/// What running the configuration of a case gave.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CaseOutcome {
    /// It ran: its report.
    Report(Box<Report>),
    /// It could not be run (bad options, spec error): why.
    Error(String),
}

impl CaseResult {
    /// The report, unless the configuration could not be run.
    pub fn report(&self) -> Option<&Report> {
        match &self.outcome {
            CaseOutcome::Report(report) => Some(report),
            CaseOutcome::Error(_) => None,
        }
    }

    /// Why the configuration could not be run.
    pub fn error(&self) -> Option<&str> {
        match &self.outcome {
            CaseOutcome::Report(_) => None,
            CaseOutcome::Error(e) => Some(e),
        }
    }

    /// `spin_lock [--blocks 3]: expected verified, got violated starvation`.
    pub fn summary(&self) -> String {
        let expected = match &self.expected_kind {
            Some(k) => format!("{} {k}", self.expected_verdict),
            None => self.expected_verdict.clone(),
        };
        let got = match &self.outcome {
            CaseOutcome::Error(e) => format!("error: {e}"),
            CaseOutcome::Report(r) => match r.violations.first() {
                Some(v) => format!("{} {}", r.verdict.name(), v.kind),
                None => r.verdict.name().to_string(),
            },
        };
        format!(
            "{} [{}]: expected {expected}, got {got}",
            self.spec,
            self.config_name()
        )
    }

    /// The test-case name in JUnit: the options, or `default`.
    pub fn config_name(&self) -> String {
        if self.args.is_empty() {
            "default".to_string()
        } else {
            self.args.join(" ")
        }
    }
}

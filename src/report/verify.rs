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
    /// The report, unless the configuration could not be run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<Report>,
    /// Why it could not be run (bad options, spec error).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub seconds: f64,
}

impl CaseResult {
    /// `spin_lock [--blocks 3]: expected verified, got violated starvation`.
    pub fn summary(&self) -> String {
        let expected = match &self.expected_kind {
            Some(k) => format!("{} {k}", self.expected_verdict),
            None => self.expected_verdict.clone(),
        };
        let got = match (&self.report, &self.error) {
            (_, Some(e)) => format!("error: {e}"),
            (Some(r), None) => match r.violations.first() {
                Some(v) => format!("{} {}", r.verdict.name(), v.kind),
                None => r.verdict.name().to_string(),
            },
            (None, None) => "nothing".to_string(),
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

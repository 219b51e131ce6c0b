//! JUnit XML for CI systems: one test case per spec × configuration.

use super::xml::escape;
use crate::report::CaseResult;
use std::fmt::Write;

pub fn render(cases: &[CaseResult]) -> String {
    let failures = cases
        .iter()
        .filter(|c| !c.passed && c.error().is_none())
        .count();
    let errors = cases.iter().filter(|c| c.error().is_some()).count();
    let total: f64 = cases.iter().map(|c| c.seconds).sum();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"gsync-check verify\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{total:.3}\">",
        cases.len()
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"gsync-check\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{total:.3}\">",
        cases.len()
    );
    for c in cases {
        let _ = write!(
            out,
            "    <testcase classname=\"{}\" name=\"{}\" file=\"{}\" line=\"{}\" time=\"{:.3}\"",
            escape(&c.spec),
            escape(&c.config_name()),
            escape(&c.source),
            c.line,
            c.seconds
        );
        if c.passed {
            out.push_str("/>\n");
            continue;
        }
        out.push_str(">\n");
        let tag = if c.error().is_some() {
            "error"
        } else {
            "failure"
        };
        let detail = c
            .report()
            .and_then(|r| r.violations.first())
            .map(|v| format!("{}: {}\n{}", v.kind, v.message, v.waiting.join("\n")))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "      <{tag} message=\"{}\">{}</{tag}>",
            escape(&c.summary()),
            escape(&detail)
        );
        out.push_str("    </testcase>\n");
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_markup() {
        assert_eq!(escape("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
    }
}

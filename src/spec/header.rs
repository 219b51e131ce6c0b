//! The `//!` header: `key: value` lines with metadata and `expect` lines.

use super::ast::{Expectation, Header, Span};
use super::diag::{Diagnostic, SpecResult};
use super::lexer::HeaderLine;

const VERDICTS: &[&str] = &["verified", "violated", "inconclusive"];

pub fn parse_header(lines: &[HeaderLine]) -> SpecResult<Header> {
    let mut header = Header::default();
    for line in lines {
        parse_line(line, &mut header)?;
    }
    Ok(header)
}

/// Whitespace-separated words of `text` with their spans (`base` is where `text` starts).
fn words(text: &str, base: usize) -> Vec<(&str, Span)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((&text[s..i], Span::new(base + s, base + i)));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    out
}

fn is_word(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn parse_line(line: &HeaderLine, header: &mut Header) -> SpecResult<()> {
    let text = line.text.as_str();
    let all = words(text, line.start);
    let (Some(first), Some(last)) = (all.first(), all.last()) else {
        return Ok(()); // a blank `//!` line separates groups
    };
    let whole = first.1.to(last.1);
    let Some(colon) = text.find(':') else {
        return Err(Diagnostic::new(whole, "header line is not `key: value`")
            .label("expected `key: value`")
            .hint(
                "header lines look like `//! name: spin_lock`; use `//` for an ordinary comment",
            ));
    };
    let keys = words(&text[..colon], line.start);
    let value_start = line.start + colon + 1;
    let value = text[colon + 1..].trim();
    let Some(&(key, key_span)) = keys.first() else {
        return Err(Diagnostic::new(
            Span::new(value_start - 1, value_start),
            "missing key before `:`",
        )
        .label("no key")
        .hint("header lines look like `//! name: spin_lock`"));
    };
    if key == "expect" {
        let args = keys[1..].iter().map(|(w, _)| w.to_string()).collect();
        let expect = parse_expect(&text[colon + 1..], value_start, args, line.line, whole)?;
        header.expects.push(expect);
        return Ok(());
    }
    if let Some(&(extra, span)) = keys.get(1) {
        return Err(Diagnostic::new(
            span,
            format!("expected `:` after header key `{key}`, found `{extra}`"),
        )
        .label("a key is one word")
        .hint("only `expect` takes options before the `:`"));
    }
    if !is_word(key) {
        return Err(
            Diagnostic::new(key_span, format!("invalid header key `{key}`"))
                .label("not a word")
                .hint("keys are words such as `name`, `family`, `note` or `expect`"),
        );
    }
    if value.is_empty() {
        return Err(
            Diagnostic::new(key_span, format!("header key `{key}` has no value"))
                .label("value missing")
                .hint(format!("write `//! {key}: ...`")),
        );
    }
    let single = match key {
        "name" => &mut header.name,
        "family" => &mut header.family,
        "source" => &mut header.source,
        "description" => &mut header.description,
        "note" => {
            header.notes.push(value.to_string());
            return Ok(());
        }
        _ => {
            header.extra.push((key.to_string(), value.to_string()));
            return Ok(());
        }
    };
    if single.is_some() {
        return Err(
            Diagnostic::new(key_span, format!("duplicate header key `{key}`"))
                .label("given twice")
                .hint("`note` and `expect` may repeat; other keys appear once"),
        );
    }
    *single = Some(value.to_string());
    Ok(())
}

/// `VERDICT [KIND]`, the part of an `expect` line after the colon.
fn parse_expect(
    rest: &str,
    base: usize,
    args: Vec<String>,
    line: u32,
    whole: Span,
) -> SpecResult<Expectation> {
    let parts = words(rest, base);
    let Some(&(verdict, verdict_span)) = parts.first() else {
        return Err(Diagnostic::new(whole, "`expect` line has no verdict")
            .label("verdict missing")
            .hint("write e.g. `//! expect: verified` or `//! expect: violated deadlock`"));
    };
    if !VERDICTS.contains(&verdict) {
        return Err(
            Diagnostic::new(verdict_span, format!("unknown verdict `{verdict}`"))
                .label("expected `verified`, `violated` or `inconclusive`")
                .hint("write e.g. `//! expect: verified` or `//! expect: violated deadlock`"),
        );
    }
    let kind = match parts.get(1) {
        Some(&(kind, span)) if !is_word(kind) => {
            return Err(
                Diagnostic::new(span, format!("invalid violation kind `{kind}`"))
                    .label("expected a single word")
                    .hint("kinds are words such as `deadlock`, `assertion` or `mutual_exclusion`"),
            );
        }
        Some(&(kind, _)) => Some(kind.to_string()),
        None => None,
    };
    if let Some(&(extra, span)) = parts.get(2) {
        return Err(Diagnostic::new(
            span,
            format!("unexpected `{extra}` after the violation kind"),
        )
        .label("nothing may follow the kind")
        .hint("an `expect` line is `expect [OPTIONS]: VERDICT [KIND]`"));
    }
    Ok(Expectation {
        args,
        verdict: verdict.to_string(),
        kind,
        line,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::diag::Source;
    use crate::spec::lexer::lex;

    fn header(text: &str) -> SpecResult<Header> {
        parse_header(&lex(text).expect("lexes").header)
    }

    /// Message and `line:col` of the error for `text`.
    fn err(text: &str) -> (String, (u32, u32)) {
        let d = header(text).expect_err("should fail");
        (d.message, Source::new("t", text).line_col(d.span.start))
    }

    #[test]
    fn full_header() {
        let h = header(
            "//! name: spin_lock\n//! family: mutex\n//! source: seed 003, Algorithm 1\n\
             //! description: test-and-set lock\n//! note: one\n//!\n//! note: two\n\
             //! expect: verified\n//! expect --blocks 3 --param iters=2: violated deadlock\n\
             //! owner: someone: else\nparam x = 1;\n",
        )
        .unwrap();
        assert_eq!(h.name.as_deref(), Some("spin_lock"));
        assert_eq!(h.family.as_deref(), Some("mutex"));
        assert_eq!(h.source.as_deref(), Some("seed 003, Algorithm 1"));
        assert_eq!(h.description.as_deref(), Some("test-and-set lock"));
        assert_eq!(h.notes, vec!["one", "two"]);
        assert_eq!(
            h.extra,
            vec![("owner".to_string(), "someone: else".to_string())]
        );
        assert_eq!(
            h.expects,
            vec![
                Expectation {
                    args: vec![],
                    verdict: "verified".into(),
                    kind: None,
                    line: 8
                },
                Expectation {
                    args: ["--blocks", "3", "--param", "iters=2"]
                        .map(String::from)
                        .to_vec(),
                    verdict: "violated".into(),
                    kind: Some("deadlock".into()),
                    line: 9
                },
            ]
        );
    }

    #[test]
    fn bad_verdict() {
        let (msg, at) = err("//! name: a\n//! expect --blocks 2: passes\n");
        assert_eq!((msg.as_str(), at), ("unknown verdict `passes`", (2, 24)));
        let (msg, at) = err("//! expect:\n");
        assert_eq!((msg.as_str(), at), ("`expect` line has no verdict", (1, 5)));
        let (msg, at) = err("//! expect: violated deadlock now\n");
        assert!(msg.contains("unexpected `now`"), "{msg}");
        assert_eq!(at, (1, 31));
    }

    #[test]
    fn line_without_key() {
        let d = header("//! name: a\n//!   just some words\n").unwrap_err();
        assert_eq!(d.message, "header line is not `key: value`");
        assert!(d.hint.is_some());
        assert_eq!(
            Source::new("t", "//! name: a\n//!   just some words\n").line_col(d.span.start),
            (2, 7)
        );
    }

    #[test]
    fn other_header_errors() {
        assert_eq!(err("//! : x\n").0, "missing key before `:`");
        assert_eq!(
            err("//! my name: x\n"),
            (
                "expected `:` after header key `my`, found `name`".into(),
                (1, 8)
            )
        );
        assert_eq!(err("//! name:\n").0, "header key `name` has no value");
        assert_eq!(
            err("//! name: a\n//! name: b\n"),
            ("duplicate header key `name`".into(), (2, 5))
        );
    }
}

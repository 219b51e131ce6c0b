//! The `//!` header: `key: value` lines with metadata and `expect` lines.

use super::ast::{Expectation, Header, HeaderValue, Ident, Span};
use super::lexer::HeaderLine;
use crate::diag::{suggest, Diagnostic, SpecResult};

const VERDICTS: &[&str] = &["verified", "violated", "inconclusive"];

/// The violation kinds a report names (the model's `ViolationKind`; a test
/// there keeps the two lists equal), and `race`, which an `expect` line
/// may name for any race (`heterogeneous_race` or `data_race`).
pub const VIOLATION_KINDS: &[&str] = &[
    "deadlock",
    "simd_deadlock",
    "alias_deadlock",
    "occupancy_deadlock",
    "barrier_divergence",
    "livelock",
    "starvation",
    "heterogeneous_race",
    "data_race",
    "assertion",
    "mutual_exclusion",
    "barrier_safety",
];

/// The kind family an `expect` line may name instead of one kind.
pub(crate) const RACE_FAMILY: &str = "race";

/// Whether an expectation's kind is met by a report's first violation.
pub(crate) fn kind_matches(expected: &str, got: &str) -> bool {
    expected == got || (expected == RACE_FAMILY && got.ends_with("_race"))
}

/// Every header key. Any other is an error: a misspelt `expect` must not
/// silently drop the check it was meant to add.
pub(crate) const KEYS: &[&str] = &[
    "name",
    "family",
    "source",
    "description",
    "note",
    "expect",
    "liveness",
    "simt",
    "cuda",
    "cuda-define",
    "cuda-include",
    "cuda-timing",
    "cuda-arch",
];

pub(crate) fn parse_header(lines: &[HeaderLine]) -> SpecResult<Header> {
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
    let Some(entry) = Entry::split(line)? else {
        return Ok(()); // a blank `//!` line separates groups
    };
    let (key, key_span) = entry.keys[0];
    if !KEYS.contains(&key) {
        return Err(unknown_key(key, key_span));
    }
    if key == "expect" {
        let args = entry.keys[1..].iter().map(|(w, _)| w.to_string()).collect();
        let expect = parse_expect(entry.rest, entry.rest_start, args, line.line, entry.whole)?;
        header.expects.push(expect);
        return Ok(());
    }
    if let Some(&(extra, span)) = entry.keys.get(1) {
        return Err(Diagnostic::new(
            span,
            format!("expected `:` after header key `{key}`, found `{extra}`"),
        )
        .label("a key is one word")
        .hint("only `expect` takes options before the `:`"));
    }
    let value = entry.rest.trim();
    if value.is_empty() {
        return Err(
            Diagnostic::new(key_span, format!("header key `{key}` has no value"))
                .label("value missing")
                .hint(format!("write `//! {key}: ...`")),
        );
    }
    // The value runs from its first word to the end of the line.
    let value = HeaderValue {
        text: value.to_string(),
        span: Span {
            start: words(entry.rest, entry.rest_start)
                .first()
                .map_or(key_span.start, |w| w.1.start),
            end: entry.whole.end,
        },
    };
    match key {
        "note" => header.notes.push(value.text),
        // A harness's CUDA files and how to compile them (repeatable; the
        // CUDA front end reads them, `crate::clang_front`).
        _ if key.starts_with("cuda") => header.cuda.push((key.to_string(), value)),
        "simt" => set_once(&mut header.simt, value, key, key_span)?,
        "liveness" => {
            if !header.liveness.is_empty() {
                return Err(duplicate(key, key_span));
            }
            header.liveness = parse_liveness(entry.rest, entry.rest_start)?;
        }
        _ => {
            let slot = match key {
                "name" => &mut header.name,
                "family" => &mut header.family,
                "source" => &mut header.source,
                _ => &mut header.description,
            };
            set_once(slot, value.text, key, key_span)?;
        }
    }
    Ok(())
}

/// A header line split at its `:`.
struct Entry<'t> {
    /// The words before the `:` (the key first, then `expect`'s options).
    keys: Vec<(&'t str, Span)>,
    /// The text after the `:`, and where it starts.
    rest: &'t str,
    rest_start: usize,
    /// From the line's first word to its last.
    whole: Span,
}

impl<'t> Entry<'t> {
    /// `None` for a blank line.
    fn split(line: &'t HeaderLine) -> SpecResult<Option<Entry<'t>>> {
        let text = line.text.as_str();
        let all = words(text, line.start);
        let (Some(first), Some(last)) = (all.first(), all.last()) else {
            return Ok(None);
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
        let rest_start = line.start + colon + 1;
        if keys.is_empty() {
            return Err(Diagnostic::new(
                Span::new(rest_start - 1, rest_start),
                "missing key before `:`",
            )
            .label("no key")
            .hint("header lines look like `//! name: spin_lock`"));
        }
        Ok(Some(Entry {
            keys,
            rest: &text[colon + 1..],
            rest_start,
            whole,
        }))
    }
}

/// Sets a key that may appear once.
fn set_once<T>(slot: &mut Option<T>, value: T, key: &str, key_span: Span) -> SpecResult<()> {
    if slot.is_some() {
        return Err(duplicate(key, key_span));
    }
    *slot = Some(value);
    Ok(())
}

fn duplicate(key: &str, key_span: Span) -> Diagnostic {
    Diagnostic::new(key_span, format!("duplicate header key `{key}`"))
        .label("given twice")
        .hint("`note` and `expect` may repeat; other keys appear once")
}

fn unknown_key(key: &str, span: Span) -> Diagnostic {
    let d = Diagnostic::new(span, format!("unknown header key `{key}`")).label("not a header key");
    match suggest(key, KEYS.iter().copied()) {
        Some(known) => d.hint(format!("did you mean `{known}`?")),
        None => d.hint(format!(
            "the keys are {}; an ordinary comment is `//`",
            KEYS.iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// `NAME=INTEGER ...`, the value of a `liveness` line.
fn parse_liveness(rest: &str, base: usize) -> SpecResult<Vec<(Ident, i64)>> {
    let mut out = Vec::new();
    for (word, span) in words(rest, base) {
        let parsed = word
            .split_once('=')
            .filter(|(name, _)| is_word(name))
            .and_then(|(name, v)| Some((name, v.parse::<i64>().ok()?)));
        let Some((name, value)) = parsed else {
            return Err(
                Diagnostic::new(span, format!("expected NAME=INTEGER, found `{word}`"))
                    .label("not NAME=INTEGER")
                    .hint("e.g. `//! liveness: iters=0` (a parameter's value under a fair --scheduler)"),
            );
        };
        let name_span = Span::new(span.start as usize, span.start as usize + name.len());
        out.push((
            Ident {
                name: name.to_string(),
                span: name_span,
            },
            value,
        ));
    }
    Ok(out)
}

/// Every name on the `liveness:` line is a declared parameter.
pub(crate) fn check_liveness_names(header: &Header, params: &[&str]) -> SpecResult<()> {
    for (name, _) in &header.liveness {
        if params.contains(&name.name.as_str()) {
            continue;
        }
        let d = Diagnostic::new(
            name.span,
            format!("`liveness:` sets `{}`, which is not a parameter", name.name),
        )
        .label("no such parameter");
        return Err(match suggest(&name.name, params.iter().copied()) {
            Some(p) => d.hint(format!("did you mean `{p}`?")),
            None if params.is_empty() => d.hint("the spec declares no `param`"),
            None => d.hint(format!("the parameters are: {}", params.join(", "))),
        });
    }
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
        Some(&(kind, span)) if kind != RACE_FAMILY && !VIOLATION_KINDS.contains(&kind) => {
            let known = VIOLATION_KINDS.iter().copied().chain([RACE_FAMILY]);
            let d = Diagnostic::new(span, format!("unknown violation kind `{kind}`"))
                .label("not a kind a report names");
            return Err(match suggest(kind, known) {
                Some(k) => d.hint(format!("did you mean `{k}`?")),
                None => d.hint(format!(
                    "the kinds are {}, and `race` for either race",
                    VIOLATION_KINDS.join(", ")
                )),
            });
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

/// The `//!` lines at the top of a C/C++ file, before its first line of
/// code: ordinary comments (`//`, `/* */`) and blank lines may stand
/// between them, as a licence block or a `#pragma once` may not.
pub(crate) fn leading_lines(text: &str) -> Vec<HeaderLine> {
    let mut out = Vec::new();
    let mut in_block = false;
    let mut offset = 0;
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let trimmed = line.trim_start();
        if in_block {
            in_block = !trimmed.contains("*/");
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix("//!") {
            let at = start + (line.len() - trimmed.len()) + 3;
            out.push(HeaderLine {
                text: rest.to_string(),
                start: at,
                line: i as u32 + 1,
            });
        } else if let Some(rest) = trimmed.strip_prefix("/*") {
            in_block = !rest.contains("*/");
        } else if !(trimmed.is_empty() || trimmed.starts_with("//")) {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Source;
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
             //! simt: lockstep\n//! liveness: iters=0 n=-2\nparam x = 1;\n",
        )
        .unwrap();
        assert_eq!(h.name.as_deref(), Some("spin_lock"));
        assert_eq!(h.family.as_deref(), Some("mutex"));
        assert_eq!(h.source.as_deref(), Some("seed 003, Algorithm 1"));
        assert_eq!(h.description.as_deref(), Some("test-and-set lock"));
        assert_eq!(h.notes, vec!["one", "two"]);
        let simt = h.simt.as_ref().unwrap();
        assert_eq!(simt.text, "lockstep");
        assert_eq!(simt.span, Span::new(227, 235));
        let liveness: Vec<_> = h
            .liveness
            .iter()
            .map(|(n, v)| (n.name.as_str(), *v))
            .collect();
        assert_eq!(liveness, vec![("iters", 0), ("n", -2)]);
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
            err("//! name here: x\n"),
            (
                "expected `:` after header key `name`, found `here`".into(),
                (1, 10)
            )
        );
        assert_eq!(err("//! name:\n").0, "header key `name` has no value");
        assert_eq!(
            err("//! name: a\n//! name: b\n"),
            ("duplicate header key `name`".into(), (2, 5))
        );
        assert_eq!(
            err("//! liveness: iters=0\n//! liveness: x=1\n").0,
            "duplicate header key `liveness`"
        );
        assert_eq!(
            err("//! name: a\n//! liveness: iters=0 forever\n"),
            ("expected NAME=INTEGER, found `forever`".into(), (2, 23))
        );
        assert_eq!(
            err("//! liveness: =3\n").0,
            "expected NAME=INTEGER, found `=3`"
        );
    }

    /// A misspelt key is an error, never ignored: `expects:` would
    /// otherwise drop the check it was meant to add.
    #[test]
    fn unknown_keys_are_errors_with_a_suggestion() {
        let text = "//! name: a\n//! expects: violated deadlock\n";
        let d = header(text).unwrap_err();
        assert_eq!(d.message, "unknown header key `expects`");
        assert_eq!(d.hint.as_deref(), Some("did you mean `expect`?"));
        assert_eq!(Source::new("t", text).line_col(d.span.start), (2, 5));
        let d = header("//! expects --blocks 3: verified\n").unwrap_err();
        assert_eq!(d.message, "unknown header key `expects`");
        let d = header("//! descripton: x\n").unwrap_err();
        assert_eq!(d.hint.as_deref(), Some("did you mean `description`?"));
        let d = header("//! colour: blue\n").unwrap_err();
        assert_eq!(d.message, "unknown header key `colour`");
        assert!(d.hint.unwrap().contains("`name`, `family`"));
    }

    #[test]
    fn a_cuda_files_header_is_its_leading_comment_lines() {
        let text = "/* licence\n * text */\n// a comment\n\n//! name: k\n  //! expect --kernel k: verified\n#include <x>\n//! note: not header\n";
        let lines = leading_lines(text);
        let got: Vec<(&str, u32)> = lines.iter().map(|l| (l.text.as_str(), l.line)).collect();
        assert_eq!(got, [(" name: k", 5), (" expect --kernel k: verified", 6)]);
        // Each line's `start` is where its text begins in the file.
        assert!(text[lines[1].start..].starts_with(" expect"));
        let header = parse_header(&lines).unwrap();
        assert_eq!(header.expects[0].args, ["--kernel", "k"]);
    }
}

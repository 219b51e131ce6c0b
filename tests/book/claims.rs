//! Verdicts the book's prose claims, and the markers that back them.
//!
//! A *claim* is a paragraph (a run of prose lines, a list item or a table
//! row, outside fenced blocks and headings) of a chapter on the students'
//! path (`SUMMARY.md` before the contributors' part) that
//!
//! - names a spec (the file stem of a spec under `specs/`,
//!   `book/examples/` or `harnesses/`, or its `//! name:`, as a whole word,
//!   in prose or inline code) or comes right after the output of a
//!   `$ gsync-check` command (only markers and blank lines between), and
//! - uses a verdict word outside inline code: *verified* (`verif...`,
//!   `safe`), *violated* (`violat...`, `unsafe`), *deadlock* (`...deadlock...`),
//!   *starvation* (`starv...`), *livelock* (`livelock...`), *hang*
//!   (`hang(s)`: a deadlock, which includes spinning forever, or a livelock),
//!   *race* (`race(s)`, `racy`, `racing`) or *inconclusive*.
//!
//! Every claim must carry one or more markers on the lines right above it
//! (indented as the list item, where it is one):
//!
//! ```text
//! <!-- verdict: tree_barrier_single --param blocks_per_sm=1 --memory-model sc => violated deadlock -->
//! <!-- verdict: violated starvation -->
//! ```
//!
//! The first runs `gsync-check ARGS`; the second refers to the last
//! `$ gsync-check` command above it in the same file. Either way the
//! output's verdict must be the one stated (`verified`, `inconclusive`, or
//! `violated` with the violation kinds that must be among those reported),
//! each marker's spec must be named in the paragraph (or be the spec of the
//! command above it), each marker's verdict must be among the verdict
//! words of the paragraph, and each verdict word of the paragraph must be
//! one that a marker backs. A `violated` marker backs *violated* and the
//! words of its kinds (`deadlock` for any deadlock kind, `race` for both
//! race kinds, ...). A question (a paragraph ending in `?`) needs a marker
//! but may ask about any verdict word.
//!
//! A table is one paragraph with its markers above it, but each row that
//! claims a verdict of a spec it names needs a marker of that spec among
//! them, so one row's marker cannot go missing unnoticed.
//!
//! `<!-- verdict: expect SPEC -->` (a built-in's name or a spec file) backs
//! a summary of a spec's verdicts, such as a table row: every `//! expect`
//! line of the spec must hold (`gsync-check verify SPEC`), and the
//! verdicts of those lines back the paragraph's words.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

/// What a marker's command is.
#[derive(Clone, Debug)]
pub enum Target {
    /// The `$ gsync-check` command of the book at this index (in the order
    /// `parse` in `book.rs` finds them).
    Example(usize),
    /// `gsync-check ARGS`, run by the test.
    Command(Vec<String>),
    /// The `//! expect` lines of a spec (a built-in's name or a file), all
    /// met (`gsync-check verify`): for a table or a list that sums up a
    /// spec's verdicts.
    Expect(String),
}

/// A verdict as a marker states it.
#[derive(Clone, Debug, PartialEq)]
pub enum Expected {
    Verified,
    Inconclusive,
    Violated(Vec<String>),
}

/// The verdict words a paragraph may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    Verified,
    Violated,
    Deadlock,
    Starvation,
    Livelock,
    /// `hang(s)`: a deadlock (which includes spinning forever) or a livelock.
    Hang,
    Race,
    Inconclusive,
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::Verified => write!(f, "verified"),
            Expected::Inconclusive => write!(f, "inconclusive"),
            Expected::Violated(kinds) => write!(f, "violated {}", kinds.join(" ")),
        }
    }
}

/// The violation kinds `gsync-check` reports (`ViolationKind`).
use gsync_check::spec::VIOLATION_KINDS as KINDS;

impl std::str::FromStr for Expected {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let words: Vec<&str> = s.split([' ', ',']).filter(|w| !w.is_empty()).collect();
        match words.as_slice() {
            ["verified"] => Ok(Expected::Verified),
            ["inconclusive"] => Ok(Expected::Inconclusive),
            ["violated", kinds @ ..] if !kinds.is_empty() => {
                for k in kinds {
                    if !KINDS.contains(k) {
                        return Err(format!("`{k}` is not a violation kind ({KINDS:?})"));
                    }
                }
                Ok(Expected::Violated(
                    kinds.iter().map(|k| k.to_string()).collect(),
                ))
            }
            _ => Err(format!(
                "`{s}` is not `verified`, `inconclusive` or `violated KIND...`"
            )),
        }
    }
}

impl Expected {
    /// The verdict words this verdict backs in a paragraph.
    pub fn classes(&self) -> BTreeSet<Class> {
        match self {
            Expected::Verified => [Class::Verified].into(),
            Expected::Inconclusive => [Class::Inconclusive].into(),
            Expected::Violated(kinds) => std::iter::once(Class::Violated)
                .chain(
                    kinds
                        .iter()
                        .filter_map(|k| match k.as_str() {
                            k if k.ends_with("deadlock") => {
                                Some(vec![Class::Deadlock, Class::Hang])
                            }
                            "starvation" => Some(vec![Class::Starvation]),
                            "livelock" => Some(vec![Class::Livelock, Class::Hang]),
                            k if k.ends_with("race") => Some(vec![Class::Race]),
                            _ => None,
                        })
                        .flatten(),
                )
                .collect(),
        }
    }

    /// Whether a check's output (one spec, one configuration) has this
    /// verdict; otherwise what it has.
    pub fn holds_of(&self, output: &[String]) -> Result<(), String> {
        let (verdict, kinds) = verdict_of(output)?;
        let ok = match self {
            Expected::Verified => verdict == "VERIFIED",
            Expected::Inconclusive => verdict == "INCONCLUSIVE",
            Expected::Violated(want) => {
                verdict == "VIOLATED" && want.iter().all(|k| kinds.contains(k))
            }
        };
        if ok {
            Ok(())
        } else if kinds.is_empty() {
            Err(format!("the tool says {verdict}"))
        } else {
            Err(format!("the tool says {verdict} {}", kinds.join(" ")))
        }
    }
}

/// The verdict word of an output's `verdict:` line, and the kinds of the
/// violations it reports (lines `KIND [property]`).
pub fn verdict_of(output: &[String]) -> Result<(String, Vec<String>), String> {
    let verdict = output
        .iter()
        .find_map(|l| l.strip_prefix("verdict:"))
        .and_then(|rest| rest.split_whitespace().next())
        .ok_or_else(|| "its output has no `verdict:` line".to_string())?;
    let kinds = output
        .iter()
        .filter_map(|l| {
            let (kind, rest) = l.split_once(" [")?;
            (KINDS.contains(&kind) && rest.ends_with(']') && !rest.contains(' '))
                .then(|| kind.to_string())
        })
        .collect();
    Ok((verdict.to_string(), kinds))
}

/// A `<!-- verdict: ... -->` marker.
#[derive(Clone, Debug)]
pub struct Marker {
    pub file: String,
    /// 1-based.
    pub line: usize,
    pub target: Target,
    /// The verdict claimed; for `Target::Expect`, those of the spec's
    /// `expect` lines.
    pub expected: Vec<Expected>,
}

impl Marker {
    /// The spec its command checks: the first argument that names one.
    pub fn spec(&self, examples: &[super::Example], names: &BTreeSet<String>) -> Option<String> {
        match &self.target {
            Target::Example(i) => spec_of(&examples[*i].args, names),
            Target::Command(args) => spec_of(args, names),
            // A harness file: the name its header gives it.
            // (Either name will do: `NAME|STEM`.)
            Target::Expect(spec) => {
                let stem = spec_of(std::slice::from_ref(spec), names);
                match (spec_name(spec), stem) {
                    (Some(n), Some(s)) => Some(format!("{n}|{s}")),
                    (n, s) => n.or(s),
                }
            }
        }
    }
}

/// The spec a command checks: the first argument that is a spec's name, or
/// a path to a spec file (its stem).
pub fn spec_of(args: &[String], names: &BTreeSet<String>) -> Option<String> {
    args.iter().find_map(|a| {
        let stem = Path::new(a)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())?;
        names.contains(&stem).then_some(stem)
    })
}

/// A paragraph of prose with the markers right above it.
#[derive(Clone, Debug, Default)]
pub struct Paragraph {
    pub file: String,
    /// 1-based line of its first line.
    pub line: usize,
    pub text: String,
    pub markers: Vec<Marker>,
    /// The last `$ gsync-check` command above it in its file.
    pub last_example: Option<usize>,
    pub heading: bool,
    /// It comes right after a `$ gsync-check` command's output (only
    /// markers and blank lines between): "it deadlocks" there is a claim
    /// about that command.
    pub after_command: bool,
}

/// The names of every spec the book may name: built-in specs, the book's
/// examples, the harnesses.
pub fn spec_names(repo: &Path) -> BTreeSet<String> {
    fn walk(dir: &Path, out: &mut BTreeSet<String>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "gsync") {
                out.insert(p.file_stem().unwrap().to_string_lossy().into_owned());
            }
        }
    }
    let mut out = BTreeSet::new();
    for d in ["specs", "book/examples", "harnesses"] {
        walk(&repo.join(d), &mut out);
    }
    out
}

/// The chapters on the students' path: those `SUMMARY.md` lists before a
/// part whose title names contributors.
pub fn student_chapters(repo: &Path) -> Vec<PathBuf> {
    let src = repo.join("book/src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    let mut out = Vec::new();
    for line in summary.lines() {
        if line.starts_with('#') && line.to_lowercase().contains("contributors") {
            break;
        }
        if let Some(link) = line.split("](").nth(1).and_then(|r| r.split(')').next()) {
            out.push(src.join(link));
        }
    }
    out
}

fn is_list_item(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("- ")
        || t.starts_with("* ")
        || t.split_once(". ")
            .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// A file's paragraphs and markers; `first_example` is the index of the
/// first `$ gsync-check` command of this file (commands are counted as
/// `parse` counts them: lines of a ```` ```console ```` block).
pub fn paragraphs(path: &Path, first_example: usize) -> (Vec<Paragraph>, usize) {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).unwrap();
    let mut out: Vec<Paragraph> = Vec::new();
    let mut current: Option<Paragraph> = None;
    let mut pending: Vec<Marker> = Vec::new();
    let mut fence: Option<bool> = None; // Some(is_console) inside a fence
    let mut examples = first_example;
    let mut last_example: Option<usize> = None;
    // Set when a console block with a command closes, cleared by the next
    // paragraph or heading.
    let mut after_command = false;
    let flush = |current: &mut Option<Paragraph>, out: &mut Vec<Paragraph>| {
        if let Some(p) = current.take() {
            out.push(p);
        }
    };
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.starts_with("```") {
            flush(&mut current, &mut out);
            fence = match fence {
                Some(console) => {
                    after_command = console && last_example.is_some();
                    None
                }
                None => Some(t == "```console"),
            };
            continue;
        }
        if let Some(console) = fence {
            if console && line.starts_with("$ gsync-check") {
                last_example = Some(examples);
                examples += 1;
            }
            continue;
        }
        if let Some(body) = t.strip_prefix("<!--") {
            flush(&mut current, &mut out);
            if let Some(body) = body.trim().strip_prefix("verdict:") {
                let body = body
                    .trim()
                    .strip_suffix("-->")
                    .unwrap_or_else(|| panic!("{file}:{}: a verdict marker is one line", i + 1));
                if let Some(spec) = body.trim().strip_prefix("expect ") {
                    let spec = spec.trim().to_string();
                    let expected =
                        expect_lines(&spec).unwrap_or_else(|e| panic!("{file}:{}: {e}", i + 1));
                    pending.push(Marker {
                        file: file.clone(),
                        line: i + 1,
                        target: Target::Expect(spec),
                        expected,
                    });
                    continue;
                }
                let (target, expected) = match body.split_once("=>") {
                    Some((args, v)) => (
                        Target::Command(args.split_whitespace().map(String::from).collect()),
                        v,
                    ),
                    None => (
                        Target::Example(last_example.unwrap_or_else(|| {
                            panic!(
                                "{file}:{}: a verdict marker without a command needs a `$ gsync-check` command above it",
                                i + 1
                            )
                        })),
                        body,
                    ),
                };
                let expected = vec![expected
                    .trim()
                    .parse()
                    .unwrap_or_else(|e| panic!("{file}:{}: {e}", i + 1))];
                pending.push(Marker {
                    file: file.clone(),
                    line: i + 1,
                    target,
                    expected,
                });
            }
            continue;
        }
        if t.is_empty() {
            flush(&mut current, &mut out);
            continue;
        }
        let heading = t.starts_with('#');
        let table = t.starts_with('|');
        // A table is one paragraph: its rows join; a list item starts one.
        let in_table = current.as_ref().is_some_and(|p| p.text.starts_with('|'));
        if heading || (table != in_table) || (!table && is_list_item(line)) {
            flush(&mut current, &mut out);
        }
        match current.as_mut() {
            Some(p) => {
                // A table keeps its rows apart (`unbacked_rows` reads them).
                p.text.push(if table { '\n' } else { ' ' });
                p.text.push_str(t);
            }
            None => {
                current = Some(Paragraph {
                    file: file.clone(),
                    line: i + 1,
                    text: t.to_string(),
                    markers: std::mem::take(&mut pending),
                    last_example,
                    heading,
                    after_command: std::mem::take(&mut after_command),
                });
            }
        }
        if heading {
            flush(&mut current, &mut out);
        }
    }
    flush(&mut current, &mut out);
    assert!(
        pending.is_empty(),
        "{file}:{}: a verdict marker with no paragraph after it",
        pending[0].line
    );
    (out, examples)
}

/// A paragraph's text without its inline code, and its inline code spans.
fn split_code(text: &str) -> (String, Vec<String>) {
    let mut prose = String::new();
    let mut code = Vec::new();
    for (k, part) in text.split('`').enumerate() {
        if k % 2 == 0 {
            prose.push_str(part);
            prose.push(' ');
        } else {
            code.push(part.to_string());
        }
    }
    (prose, code)
}

/// The verdict words of a text.
pub fn classes(prose: &str) -> BTreeSet<Class> {
    let mut out = BTreeSet::new();
    for w in prose.split(|c: char| !c.is_ascii_alphanumeric() && c != '_') {
        let w = w.to_lowercase();
        let class = match w.as_str() {
            w if w.starts_with("verif") || w == "safe" => Class::Verified,
            w if w.starts_with("violat") || w == "unsafe" => Class::Violated,
            w if w.contains("deadlock") => Class::Deadlock,
            w if w.starts_with("starv") => Class::Starvation,
            w if w.starts_with("livelock") => Class::Livelock,
            "hang" | "hangs" => Class::Hang,
            "race" | "races" | "racy" | "racing" => Class::Race,
            "inconclusive" => Class::Inconclusive,
            _ => continue,
        };
        out.insert(class);
    }
    out
}

/// Whether a paragraph names a spec a verdict could be claimed of; the
/// name, if it does.
pub fn subject(text: &str, names: &BTreeSet<String>) -> Option<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .find(|w| names.contains(*w))
        .map(String::from)
}

/// What is wrong with a paragraph's claims, if anything (commands are not
/// run here: `last_spec` is the spec of the command above it, and
/// `marker_spec` the spec of a marker's command).
pub fn problems(
    p: &Paragraph,
    names: &BTreeSet<String>,
    last_spec: Option<&str>,
    marker_spec: &dyn Fn(&Marker) -> Option<String>,
) -> Vec<String> {
    let (prose, _) = split_code(&p.text);
    let said = classes(&prose);
    let words: BTreeSet<&str> = p
        .text
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .collect();
    let mut out = Vec::new();
    let at = format!("{}:{}", p.file, p.line);
    let is_claim =
        !p.heading && !said.is_empty() && (p.after_command || subject(&p.text, names).is_some());
    if p.heading && !p.markers.is_empty() {
        out.push(format!("{at}: a verdict marker above a heading"));
    }
    if is_claim && p.markers.is_empty() {
        out.push(format!(
            "{at}: a verdict claim with no `<!-- verdict: ... -->` marker above it ({:?} about `{}`): {}",
            said,
            subject(&p.text, names).unwrap_or_else(|| "the command above".to_string()),
            p.text
        ));
        return out;
    }
    let question = p.text.trim_end().ends_with('?');
    let mut backed = BTreeSet::new();
    for m in &p.markers {
        let classes: BTreeSet<Class> = m.expected.iter().flat_map(|e| e.classes()).collect();
        match marker_spec(m) {
            Some(spec)
                if spec
                    .split('|')
                    .any(|n| words.contains(n) || Some(n) == last_spec) => {}
            Some(spec) => out.push(format!(
                "{}:{}: the marker's spec `{spec}` is not named in the paragraph after it",
                m.file, m.line
            )),
            None => out.push(format!(
                "{}:{}: the marker's command names no spec",
                m.file, m.line
            )),
        }
        // A question may ask about any verdict; a marker that sums up a
        // spec's `expect` lines backs a table or list of its verdicts,
        // not each word.
        let summary = matches!(m.target, Target::Expect(_));
        if classes.is_disjoint(&said) && !question && !summary {
            out.push(format!(
                "{}:{}: the marker says {:?}, but the paragraph after it says none of {:?}: {}",
                m.file,
                m.line,
                m.expected.iter().map(|e| e.to_string()).collect::<Vec<_>>(),
                classes,
                p.text
            ));
        }
        backed.extend(classes);
    }
    if p.text.starts_with('|') && !p.markers.is_empty() {
        out.extend(unbacked_rows(p, names, marker_spec));
    }
    if !p.markers.is_empty() {
        for class in &said {
            if !backed.contains(class) && !question {
                out.push(format!(
                    "{at}: the paragraph says {class:?}, which none of its markers backs: {}",
                    p.text
                ));
            }
        }
    }
    out
}

/// A table is one paragraph, its markers above it; each row that claims
/// a verdict of a spec it names must still have a marker of its own
/// spec, or deleting one row's marker would go unnoticed.
fn unbacked_rows(
    p: &Paragraph,
    names: &BTreeSet<String>,
    marker_spec: &dyn Fn(&Marker) -> Option<String>,
) -> Vec<String> {
    let marked: BTreeSet<String> = p
        .markers
        .iter()
        .filter_map(marker_spec)
        .flat_map(|s| s.split('|').map(String::from).collect::<Vec<_>>())
        .collect();
    let mut out = Vec::new();
    for (k, row) in p.text.lines().enumerate() {
        let (prose, _) = split_code(row);
        if classes(&prose).is_empty() {
            continue;
        }
        let named: Vec<&str> = row
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .filter(|w| names.contains(*w))
            .collect();
        if !named.is_empty() && !named.iter().any(|n| marked.contains(*n)) {
            out.push(format!(
                "{}:{}: a table row claims a verdict of `{}` and no marker above the table is of that spec: {row}",
                p.file,
                p.line + k,
                named[0]
            ));
        }
    }
    out
}

/// The verdicts of a spec's `//! expect` lines (a built-in by name, else a
/// file under the repository).
pub fn expect_lines(spec: &str) -> Result<Vec<Expected>, String> {
    let repo = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let path = if spec.ends_with(".gsync") {
        repo.join(spec)
    } else {
        repo.join("specs").join(format!("{spec}.gsync"))
    };
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let out: Vec<Expected> = text
        .lines()
        .filter_map(|l| l.strip_prefix("//! expect"))
        .filter_map(|rest| rest.rsplit_once(':'))
        .map(|(_, v)| v.trim().parse())
        .collect::<Result<_, _>>()?;
    if out.is_empty() {
        return Err(format!("{} has no `//! expect` lines", path.display()));
    }
    Ok(out)
}

/// The `//! name:` of a spec file under the repository.
fn spec_name(path: &str) -> Option<String> {
    let repo = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(repo.join(path)).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("//! name:"))
        .map(|n| n.trim().to_string())
}

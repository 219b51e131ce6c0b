//! Sources, spans and located errors, shared by every front end and by the
//! layers that point back into the source (the IR's instructions, traces).
//! Every problem in an input names its file, line and column
//! and shows the offending text with a caret. Rendering goes through
//! `codespan-reporting`, which gets multi-line spans, tab widths and colour
//! right so we do not have to.

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor};
use serde::{Deserialize, Serialize};

/// A byte range `[start, end)` in the spec source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// One spec source: its display name (a path, or `builtin:NAME`) and text.
///
/// A harness that imports CUDA files is one source made of several files:
/// `text` is their concatenation, the spec first, and `files` says where
/// each further file starts, so a span anywhere still names its own file,
/// line and column.
#[derive(Clone, Debug)]
pub struct Source {
    pub name: String,
    pub text: String,
    /// Files appended after the spec's own text, in offset order.
    pub files: Vec<SourceFile>,
}

/// A file appended to a [`Source`]: its display name and first byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    pub name: String,
    pub start: u32,
}

impl Source {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Source {
        Source {
            name: name.into(),
            text: text.into(),
            files: Vec::new(),
        }
    }

    /// Appends a file's text; returns the offset of its first byte.
    pub fn append_file(&mut self, name: impl Into<String>, text: &str) -> u32 {
        if !self.text.ends_with('\n') {
            self.text.push('\n');
        }
        let start = self.text.len() as u32;
        self.text.push_str(text);
        self.files.push(SourceFile {
            name: name.into(),
            start,
        });
        start
    }

    /// The name and byte range of the file that holds `offset`.
    pub fn file_of(&self, offset: u32) -> (&str, std::ops::Range<usize>) {
        let i = self.files.partition_point(|f| f.start <= offset);
        let start = if i == 0 {
            0
        } else {
            self.files[i - 1].start as usize
        };
        let end = self
            .files
            .get(i)
            .map_or(self.text.len(), |f| f.start as usize);
        let name = if i == 0 {
            self.name.as_str()
        } else {
            self.files[i - 1].name.as_str()
        };
        (name, start..end)
    }

    /// 1-based line and column of a byte offset within its own file
    /// (columns count characters).
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let (_, range) = self.file_of(offset);
        let offset = (offset as usize).clamp(range.start, range.end.min(self.text.len()));
        let before = &self.text[range.start..floor_char_boundary(&self.text, offset)];
        let line = before.matches('\n').count() as u32 + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = before[line_start..].chars().count() as u32 + 1;
        (line, col)
    }

    /// `line L` for the spec's own text, `FILE:L` for an appended file (by
    /// its file name), for messages that point at a line.
    pub fn line_label(&self, offset: u32) -> String {
        let (line, _) = self.line_col(offset);
        match self.appended_file_name(offset) {
            Some(file) => format!("{file}:{line}"),
            None => format!("line {line}"),
        }
    }

    /// The short name (last path component) of the appended file holding
    /// `offset`; `None` in the spec's own text.
    pub fn appended_file_name(&self, offset: u32) -> Option<&str> {
        let (name, range) = self.file_of(offset);
        (range.start > 0).then(|| name.rsplit('/').next().unwrap_or(name))
    }

    /// The text of a span, for messages and traces.
    pub fn snippet(&self, span: Span) -> &str {
        let start = floor_char_boundary(&self.text, span.start as usize);
        let end = floor_char_boundary(&self.text, span.end as usize).max(start);
        &self.text[start..end]
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// An error in a spec (syntax, names, types, launch) with its location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub message: String,
    pub span: Span,
    /// Short text under the caret.
    pub label: String,
    /// How to fix it, when we can tell.
    pub hint: Option<String>,
}

impl Diagnostic {
    pub fn new(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            span,
            label: String::new(),
            hint: None,
        }
    }

    pub fn label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    /// `file:line:col: error: message`, then the source line with a caret and the hint.
    pub fn render(&self, source: &Source, color: bool) -> String {
        let (name, range) = source.file_of(self.span.start);
        let text = &source.text[range.clone()];
        let file = SimpleFile::new(name, text);
        let local = |offset: u32| (offset as usize).clamp(range.start, range.end) - range.start;
        let start = floor_char_boundary(text, local(self.span.start));
        let end = floor_char_boundary(text, local(self.span.end)).max(start);
        let mut diag = CsDiagnostic::error()
            .with_message(&self.message)
            .with_labels(vec![
                Label::primary((), start..end).with_message(&self.label)
            ]);
        if let Some(hint) = &self.hint {
            diag = diag.with_notes(vec![format!("hint: {hint}")]);
        }
        let mut buffer = if color {
            termcolor::Buffer::ansi()
        } else {
            termcolor::Buffer::no_color()
        };
        let config = term::Config::default();
        // Writing into an in-memory buffer cannot fail for a span inside the file.
        if term::emit(&mut buffer, &config, &file, &diag).is_err() {
            return format!("error: {}\n --> {}\n", self.message, self.location(source));
        }
        String::from_utf8_lossy(buffer.as_slice()).into_owned()
    }

    /// `file:line:col` of the start of the span.
    pub fn location(&self, source: &Source) -> String {
        let (line, col) = source.line_col(self.span.start);
        let (name, _) = source.file_of(self.span.start);
        format!("{name}:{line}:{col}")
    }
}

/// The closest candidate to `name` by edit distance, if close enough to suggest.
pub fn suggest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, c)| *d <= 2.max(name.len() / 3) && *d < c.len())
        .min()
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + (ca != *cb) as usize).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The result type of every front-end pass.
pub type SpecResult<T> = Result<T, Diagnostic>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        let names = ["lock", "count", "semSize"];
        assert_eq!(suggest("lokc", names.iter().copied()), Some("lock"));
        assert_eq!(suggest("semsize", names.iter().copied()), Some("semSize"));
        assert_eq!(suggest("zzzzzz", names.iter().copied()), None);
    }
}

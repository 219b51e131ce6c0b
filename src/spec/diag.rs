//! Located errors: every problem in a spec names its file, line and column
//! and shows the offending text with a caret. Rendering goes through
//! `codespan-reporting`, which gets multi-line spans, tab widths and colour
//! right so we do not have to.

use super::ast::Span;
use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor};

/// One spec source: its display name (a path, or `builtin:NAME`) and text.
#[derive(Clone, Debug)]
pub struct Source {
    pub name: String,
    pub text: String,
}

impl Source {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Source {
        Source {
            name: name.into(),
            text: text.into(),
        }
    }

    /// 1-based line and column of a byte offset (columns count characters).
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let offset = (offset as usize).min(self.text.len());
        let before = &self.text[..floor_char_boundary(&self.text, offset)];
        let line = before.matches('\n').count() as u32 + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = before[line_start..].chars().count() as u32 + 1;
        (line, col)
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
        let file = SimpleFile::new(source.name.as_str(), source.text.as_str());
        let start = floor_char_boundary(&source.text, self.span.start as usize);
        let end = floor_char_boundary(&source.text, self.span.end as usize).max(start);
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
            let (line, col) = source.line_col(self.span.start);
            return format!(
                "error: {}\n --> {}:{line}:{col}\n",
                self.message, source.name
            );
        }
        String::from_utf8_lossy(buffer.as_slice()).into_owned()
    }

    /// `file:line:col` of the start of the span.
    pub fn location(&self, source: &Source) -> String {
        let (line, col) = source.line_col(self.span.start);
        format!("{}:{line}:{col}", source.name)
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

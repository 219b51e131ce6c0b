//! The user's CUDA text as the program's `Source`: the translation unit
//! first, then each other user file an instruction is located in (a `.cu`
//! it includes), appended on first use. An instruction's span is its user
//! line (from the first non-blank character to the line's end); an
//! error's span starts at the column the debug location names, so that
//! it renders as `file:line:col`.

use crate::diag::Source;
use crate::diag::Span;
use crate::llvm::debug::{normalize, SourceLoc};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The source being built, and where each file's lines start in it.
pub(crate) struct Lines {
    pub(crate) source: Source,
    /// Per file (normalised, and canonical where it exists): its line
    /// starts as offsets into `source.text`, and the text's end.
    files: HashMap<PathBuf, (Vec<u32>, u32)>,
    /// Files that could not be read: no span, no second attempt.
    unreadable: Vec<PathBuf>,
}

fn key(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| normalize(path))
}

fn line_starts(text: &str, base: u32) -> Vec<u32> {
    std::iter::once(base)
        .chain(text.match_indices('\n').map(|(i, _)| base + i as u32 + 1))
        .collect()
}

impl Lines {
    /// The translation unit `tu` (its text already read) as the main file.
    pub(crate) fn new(tu: &Path, text: &str) -> Lines {
        let mut files = HashMap::new();
        files.insert(key(tu), (line_starts(text, 0), text.len() as u32));
        Lines {
            source: Source::new(tu.display().to_string(), text),
            files,
            unreadable: Vec::new(),
        }
    }

    /// The byte range of line `line` of `file` (whole, without its end).
    fn line_range(&mut self, file: &Path, line: u32) -> Option<(u32, u32)> {
        let k = key(file);
        if !self.files.contains_key(&k) {
            if self.unreadable.contains(&k) {
                return None;
            }
            let Ok(text) = std::fs::read_to_string(&k) else {
                self.unreadable.push(k);
                return None;
            };
            let start = self.source.append_file(file.display().to_string(), &text);
            let end = start + text.len() as u32;
            self.files
                .insert(k.clone(), (line_starts(&text, start), end));
        }
        let (starts, end) = &self.files[&k];
        let i = usize::try_from(line).ok()?.checked_sub(1)?;
        let from = *starts.get(i)?;
        let to = starts.get(i + 1).map_or(*end, |s| s.saturating_sub(1));
        Some((from, to.max(from)))
    }

    /// The span of `loc`'s whole line, leading blanks left out.
    pub(crate) fn line_span(&mut self, loc: &SourceLoc) -> Option<Span> {
        let (from, to) = self.line_range(&loc.file, loc.line)?;
        let text = &self.source.text[from as usize..to as usize];
        let text = text.trim_end_matches('\r');
        let lead = text.len() - text.trim_start().len();
        let from = from + lead as u32;
        let to = (from + text.trim().len() as u32).max(from);
        Some(Span::new(from as usize, to as usize))
    }

    /// The span from `loc`'s column to its line's end (an error's).
    pub(crate) fn point_span(&mut self, loc: &SourceLoc) -> Option<Span> {
        let (from, to) = self.line_range(&loc.file, loc.line)?;
        if loc.column == 0 {
            return self.line_span(loc);
        }
        let line = &self.source.text[from as usize..to as usize];
        let at = line
            .char_indices()
            .nth(loc.column as usize - 1)
            .map_or(line.len(), |(i, _)| i);
        let line = line.trim_end_matches('\r');
        let end = from + line.len().max(at + 1).min(line.len()) as u32;
        Some(Span::new(
            from as usize + at,
            (end as usize).max(from as usize + at),
        ))
    }

    /// The text of line `line` of `file`, from the source being built.
    pub(crate) fn text_from(&mut self, file: &Path, line: u32) -> Option<String> {
        let (from, _) = self.line_range(file, line)?;
        Some(self.source.text[from as usize..].to_string())
    }
}

/// Words that end a parameter's type, not name it.
const TYPE_WORDS: &[&str] = &[
    "int", "unsigned", "signed", "long", "short", "char", "bool", "float", "double", "void",
    "size_t",
];

/// The parameter names of the function `name` declared at the start of
/// `text` (its declaration onward): the last identifier of each
/// top-level, comma-separated part of its parameter list. `None` when the
/// text does not read as a declaration of `count` parameters (the debug
/// information clang emits for the device has line tables only, no
/// variables, so the names come from the source).
pub(crate) fn param_names(text: &str, name: &str, count: usize) -> Option<Vec<String>> {
    let at = text.find(&format!("{name}("))?;
    let body = &text[at + name.len() + 1..];
    let mut depth = 0usize;
    let mut parts = vec![String::new()];
    for c in body.chars() {
        match c {
            '(' | '[' | '<' => depth += 1,
            ')' if depth == 0 => break,
            ')' | ']' | '>' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(String::new());
                continue;
            }
            _ => {}
        }
        parts.last_mut()?.push(c);
    }
    let names: Vec<String> = parts
        .iter()
        .filter(|p| !p.trim().is_empty())
        .map(|p| {
            let p = p.split('=').next().unwrap_or("");
            let p = p.split('[').next().unwrap_or("");
            let p = p.trim();
            let ident: String = p
                .chars()
                .rev()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let ident: String = ident.chars().rev().collect();
            // `int` alone, or `unsigned int`: a type without a name.
            let unnamed = p.len() == ident.len() || TYPE_WORDS.contains(&ident.as_str());
            if unnamed {
                "?".to_string()
            } else {
                ident
            }
        })
        .collect();
    let plausible = names.len() == count
        && names
            .iter()
            .all(|n| n.starts_with(|c: char| c.is_alphabetic() || c == '_'));
    (plausible || count == 0)
        .then_some(names)
        .filter(|n| n.len() == count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_names_come_from_the_declaration() {
        let t =
            "__global__ void k(int *lock, volatile unsigned int* data,\n  int n = 3, int a[4]) {";
        assert_eq!(
            param_names(t, "k", 4).unwrap(),
            vec!["lock", "data", "n", "a"]
        );
        assert_eq!(param_names(t, "k", 3), None);
        assert_eq!(param_names("__global__ void k() {", "k", 0), Some(vec![]));
        assert_eq!(param_names("__global__ void k(int, int) {", "k", 2), None);
    }

    #[test]
    fn spans_are_user_lines() {
        let dir = std::env::temp_dir().join(format!("gsync-lower-src-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let tu = dir.join("k.cu");
        let inc = dir.join("inc.cu");
        std::fs::write(&tu, "a\n  hello();\n").unwrap();
        std::fs::write(&inc, "x\ny = 1;\n").unwrap();
        let mut l = Lines::new(&tu, "a\n  hello();\n");
        let loc = |file: &Path, line, column| SourceLoc {
            file: file.to_path_buf(),
            line,
            column,
        };
        let s = l.line_span(&loc(&tu, 2, 3)).unwrap();
        assert_eq!(l.source.snippet(s), "hello();");
        let p = l.point_span(&loc(&tu, 2, 5)).unwrap();
        assert_eq!(l.source.line_col(p.start), (2, 5));
        let s = l.line_span(&loc(&inc, 2, 0)).unwrap();
        assert_eq!(l.source.snippet(s), "y = 1;");
        assert_eq!(l.source.line_label(s.start), "inc.cu:2");
        assert!(l.line_span(&loc(&dir.join("none.cu"), 1, 0)).is_none());
        std::fs::remove_dir_all(dir).unwrap();
    }
}

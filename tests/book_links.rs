//! Every relative link of the book resolves in the built book: the target
//! exists under `book/src`, and a link to a `.md` file names a chapter of
//! `SUMMARY.md` (mdbook renders only those; a link to any other `.md`
//! becomes a dead `.html` link).

mod common;

use common::repo;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    repo().join("book/src")
}

/// The targets of the inline links and images of a Markdown text
/// (`[text](target "title")`, `![alt](target)`) and of HTML `src`/`href`
/// attributes.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for piece in text.split("](").skip(1) {
        if let Some(end) = piece.find(')') {
            let target = piece[..end].split_whitespace().next().unwrap_or("");
            out.push(target.to_string());
        }
    }
    for attr in ["src=\"", "href=\""] {
        for piece in text.split(attr).skip(1) {
            if let Some(end) = piece.find('"') {
                out.push(piece[..end].to_string());
            }
        }
    }
    out
}

/// The chapter files `SUMMARY.md` lists, relative to `book/src`.
fn chapters() -> Vec<PathBuf> {
    let summary = std::fs::read_to_string(src().join("SUMMARY.md")).unwrap();
    link_targets(&summary)
        .into_iter()
        .map(PathBuf::from)
        .collect()
}

fn is_relative(target: &str) -> bool {
    let external = ["#", "mailto:"].iter().any(|p| target.starts_with(p)) || target.contains("://");
    !target.is_empty() && !external
}

/// `a/b/../c` as `a/c` (the target may not exist, so no canonicalize).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[test]
fn every_relative_link_of_the_book_resolves() {
    let chapters = chapters();
    assert!(chapters.len() >= 10, "{chapters:?}");
    let mut broken = Vec::new();
    for chapter in &chapters {
        let text = std::fs::read_to_string(src().join(chapter))
            .unwrap_or_else(|e| panic!("SUMMARY.md lists {}: {e}", chapter.display()));
        let dir = chapter.parent().unwrap_or(Path::new(""));
        for target in link_targets(&text).into_iter().filter(|t| is_relative(t)) {
            let file = target.split('#').next().unwrap_or("");
            if file.is_empty() {
                continue;
            }
            let resolved = normalize(&dir.join(file));
            let why = if !src().join(&resolved).exists() {
                "no such file"
            } else if resolved.extension().is_some_and(|e| e == "md")
                && !chapters.contains(&resolved)
            {
                "a .md file that is not a chapter of SUMMARY.md (not rendered)"
            } else {
                continue;
            };
            broken.push(format!("{}: ({target}): {why}", chapter.display()));
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_check_catches_a_link_outside_the_summary() {
    // The case that broke the built book: a .md beside the chapters, not in it.
    let targets =
        link_targets("see [README](results/x/README.md \"t\") and ![p](a.svg) <img src=\"b.png\">");
    assert_eq!(targets, ["results/x/README.md", "a.svg", "b.png"]);
    assert!(!chapters().contains(&PathBuf::from("results/x/README.md")));
    assert_eq!(normalize(Path::new("a/b/../c.md")), PathBuf::from("a/c.md"));
}

//! The one-page language primer (`book/src/spec-primer.md`) lists the
//! reserved words and the atomics a student may use: each reserved word it
//! lists is refused as a name (a located error, exit 2), a word it does
//! not list is accepted, and each atomic it lists, with its `_block` and
//! `_system` forms, is accepted.

mod common;

use common::*;

fn primer() -> String {
    std::fs::read_to_string(repo().join("book/src/spec-primer.md")).unwrap()
}

/// The words between the backquotes after `lead` up to the paragraph's end.
fn listed(text: &str, lead: &str) -> Vec<String> {
    let start = text
        .find(lead)
        .unwrap_or_else(|| panic!("no `{lead}` in the primer"));
    let rest = &text[start + lead.len()..];
    let code = rest.split('`').nth(1).expect("a backquoted list");
    code.split_whitespace().map(String::from).collect()
}

/// The exit code and stderr of `check` on a spec text.
fn check_text(name: &str, text: &str) -> (i32, String) {
    let path = write_temp_spec(&format!("primer-{name}"), text);
    let out = run(&["check", path.to_str().unwrap(), "--max-seconds", "30"]);
    (code(&out), stderr(&out))
}

#[test]
fn every_reserved_word_the_primer_lists_is_refused_as_a_name() {
    let words = listed(&primer(), "**Reserved words**");
    assert!(words.len() >= 25, "{words:?}");
    for w in words.iter().chain(std::iter::once(&"sense".to_string())) {
        let text = format!("global u32 {w} = 0;\nharness master {{ {w} = 1; }}\n");
        let (code, err) = check_text(w, &text);
        match w.as_str() {
            "sense" => assert_ne!(code, 2, "an ordinary name is refused: {err}"),
            _ => {
                assert_eq!(code, 2, "`{w}` is accepted as a name");
                assert!(err.contains(":1:"), "`{w}`: not located: {err}");
            }
        }
    }
}

#[test]
fn every_atomic_the_primer_lists_is_accepted_at_each_scope() {
    let text = primer();
    let row = text
        .lines()
        .find(|l| l.starts_with("| atomics |"))
        .expect("the atomics row");
    let atomics: Vec<&str> = row
        .split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|c| c.split('(').next())
        .filter(|c| c.starts_with("atomic") && !c.ends_with("_block"))
        .collect();
    assert!(atomics.len() >= 10, "{atomics:?}");
    for a in atomics {
        let args = if a == "atomicCAS" { "x, 0, 1" } else { "x, 1" };
        let spec = format!(
            "global u32 x = 0;\nharness master {{ u32 o = {a}({args}); u32 b = {a}_block({args}); u32 s = {a}_system({args}); }}\n"
        );
        let (code, err) = check_text(a, &spec);
        assert_ne!(code, 2, "{a}: {err}");
    }
}

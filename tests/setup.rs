//! The README's set-up works as written (issue 42): exactly two commands on
//! a fresh machine, the first of which runs here as the README prints it,
//! the second being what CI runs; every apt line updates the package lists
//! first and answers yes.

mod common;

use common::*;

/// The README's fenced `sh` blocks under `## Set-up`, each as its lines.
fn setup_blocks() -> Vec<Vec<String>> {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let start = readme.find("\n## Set-up").expect("a Set-up section");
    let end = readme[start + 1..]
        .find("\n## ")
        .map_or(readme.len(), |e| start + 1 + e);
    let mut blocks = Vec::new();
    let mut block: Option<Vec<String>> = None;
    for line in readme[start..end].lines() {
        match (&mut block, line.trim_end()) {
            (None, "```sh") => block = Some(Vec::new()),
            (Some(_), "```") => blocks.extend(block.take()),
            (Some(b), l) => b.push(l.to_string()),
            _ => {}
        }
    }
    blocks
}

/// A command line without its trailing `# comment`.
fn command(line: &str) -> &str {
    line.split(" #").next().unwrap().trim()
}

#[test]
fn the_readme_setup_is_two_commands_and_the_first_runs_as_written() {
    let blocks = setup_blocks();
    let first = blocks.first().expect("a set-up block");
    assert_eq!(first.len(), 2, "two commands on a fresh machine: {first:?}");
    // CI runs exactly the README's test command.
    let ci = std::fs::read_to_string(repo().join(".ci/run")).unwrap();
    let test = command(&first[1]);
    assert_eq!(
        ci.lines().last().map(str::trim),
        Some(test),
        "the test command is CI's"
    );
    // The main job, as the binary that `cargo run --release --` builds.
    let run_words: Vec<&str> = command(&first[0]).split_whitespace().collect();
    assert_eq!(run_words[..3], ["cargo", "run", "--release"]);
    assert_eq!(run_words[3], "--");
    let out = run(&run_words[4..]);
    let text = stdout(&out);
    // The family has known-buggy variants: exit 1, with a row for each.
    assert_eq!(code(&out), 1, "{text}{}", stderr(&out));
    assert!(text.contains("semaphore family,"), "{text}");
    assert!(
        text.contains("VIOLATED") && text.contains("VERIFIED"),
        "{text}"
    );
}

/// In the README and the book: a fresh Debian has no package lists, and a
/// prompt stops a script.
#[test]
fn every_apt_line_updates_first_and_answers_yes() {
    let mut files = vec![repo().join("README.md")];
    for entry in std::fs::read_dir(repo().join("book/src"))
        .unwrap()
        .flatten()
    {
        if entry.path().extension().is_some_and(|e| e == "md") {
            files.push(entry.path());
        }
    }
    let text: String = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    let mut apt_lines = 0;
    for line in text.lines().filter(|l| !l.trim_start().starts_with('`')) {
        if !line.contains("apt-get install") {
            continue;
        }
        apt_lines += 1;
        let line = line.trim();
        assert!(
            line.starts_with("apt-get update && apt-get install -y "),
            "{line}"
        );
    }
    assert!(
        apt_lines >= 2,
        "the README and the getting-started page name the packages"
    );
}

/// Both say where the optional shared inputs come from.
#[test]
fn the_setup_says_where_each_shared_input_comes_from() {
    for file in ["README.md", "book/src/getting-started.md"] {
        let text = std::fs::read_to_string(repo().join(file)).unwrap();
        for part in [
            "shared/litmus/PTX",
            "hernanponcedeleon/Dat3M",
            "shared/heterosync",
            "mattsinc/heterosync",
            "shared/cuda-corpus",
            "SOURCE.md",
            "GSYNC_SHARED",
        ] {
            assert!(text.contains(part), "{file} does not name {part}");
        }
    }
}

/// The profile-guided build's training runs (`scripts/build-pgo.sh`) stay
/// runs of the checker: each line of `scripts/pgo-training.txt` ends with
/// a verdict (verified, violated, or inconclusive at its cap), as the
/// script requires; a renamed spec or option would end with exit 2 and
/// leave the build without its profile.
#[test]
fn every_pgo_training_run_ends_with_a_verdict() {
    let list = std::fs::read_to_string(repo().join("scripts/pgo-training.txt")).unwrap();
    let lines: Vec<&str> = list
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert!(lines.len() >= 8, "a training list of {} runs", lines.len());
    for line in lines {
        let args: Vec<&str> = line.split_whitespace().collect();
        let out = run(&args);
        assert!(
            matches!(code(&out), 0 | 1 | 3),
            "training run `gsync-check {line}` ended with exit {}: {}",
            code(&out),
            stderr(&out)
        );
    }
    let script = std::fs::read_to_string(repo().join("scripts/build-pgo.sh")).unwrap();
    assert!(
        script.contains("scripts/pgo-training.txt"),
        "the build script reads the list this test runs"
    );
}

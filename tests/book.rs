//! The book cannot drift from the tool: every `console` block in
//! `book/src` whose lines start with `$ gsync-check` is run, and its output
//! must be what the book shows (numbers with a decimal point, i.e. timings,
//! are compared as placeholders; a line `...` in the book skips the rest of
//! that output). `GSYNC_BLESS=1` rewrites the outputs shown in the book
//! from the tool, for a deliberate change; review the diff.
//!
//! Numbers the prose states about an output are checked too, where a marker
//! says which: a line `<!-- check: steps=27 -->` (several `KEY=N`, separated
//! by commas or spaces) refers to the last `$ gsync-check` command above it
//! in the same file, and each `KEY=N` must hold of that command's whole
//! output (not only the part the book shows), and `N` must appear in the
//! paragraph right after the marker (as digits or, up to twenty, as a word).
//! The keys are listed in [`stated`].

mod common;

use common::*;

/// One command and the output the book shows for it.
struct Example {
    file: String,
    /// 1-based line of the `$ gsync-check` line.
    line: usize,
    args: Vec<String>,
    expected: Vec<String>,
    /// The book shows only the beginning (`...`).
    prefix_only: bool,
}

/// A `<!-- check: KEY=N ... -->` marker: numbers the prose states about the
/// output of example `example`.
struct ProseCheck {
    file: String,
    /// 1-based line of the marker.
    line: usize,
    example: usize,
    claims: Vec<(String, u64)>,
    /// The paragraph after the marker.
    paragraph: String,
}

/// The book's chapters and the README.
fn documents() -> Vec<std::path::PathBuf> {
    let dir = repo().join("book/src");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.push(repo().join("README.md"));
    files.sort();
    files
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect()
}

fn examples() -> Vec<Example> {
    parse().0
}

/// The commands with their outputs, and the prose-number markers.
fn parse() -> (Vec<Example>, Vec<ProseCheck>) {
    let mut out = Vec::new();
    let mut checks = Vec::new();
    for path in documents() {
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut in_console = false;
        let mut current: Option<Example> = None;
        let first_of_file = out.len();
        for (i, line) in text.lines().enumerate() {
            if !in_console {
                if let Some(body) = line
                    .trim()
                    .strip_prefix("<!-- check:")
                    .and_then(|b| b.strip_suffix("-->"))
                {
                    let claims = body
                        .split([',', ' '])
                        .filter(|c| !c.is_empty())
                        .map(|c| {
                            let (k, v) = c.split_once('=').unwrap_or_else(|| {
                                panic!("{}:{}: `{c}` is not KEY=N", path.display(), i + 1)
                            });
                            let v = v.parse().unwrap_or_else(|_| {
                                panic!("{}:{}: `{v}` is not a number", path.display(), i + 1)
                            });
                            (k.to_string(), v)
                        })
                        .collect();
                    assert!(
                        out.len() > first_of_file,
                        "{}:{}: a check marker needs a `$ gsync-check` command above it",
                        path.display(),
                        i + 1
                    );
                    let paragraph = lines[i + 1..]
                        .iter()
                        .skip_while(|l| l.trim().is_empty())
                        .take_while(|l| !l.trim().is_empty())
                        .copied()
                        .collect::<Vec<_>>()
                        .join(" ");
                    checks.push(ProseCheck {
                        file: path.display().to_string(),
                        line: i + 1,
                        example: out.len() - 1,
                        claims,
                        paragraph,
                    });
                }
            }
            if line.trim_start().starts_with("```") {
                if in_console {
                    out.extend(current.take());
                }
                in_console = line.trim() == "```console";
                continue;
            }
            if !in_console {
                continue;
            }
            if let Some(cmd) = line.strip_prefix("$ gsync-check") {
                out.extend(current.take());
                current = Some(Example {
                    file: path.to_string_lossy().into_owned(),
                    line: i + 1,
                    args: cmd.split_whitespace().map(String::from).collect(),
                    expected: Vec::new(),
                    prefix_only: false,
                });
            } else if let Some(ex) = current.as_mut() {
                if line.trim() == "..." {
                    ex.prefix_only = true;
                } else if !ex.prefix_only {
                    ex.expected.push(line.to_string());
                }
            }
        }
    }
    (out, checks)
}

/// The value of a marker key for an output, if the output has one:
/// `steps` the number of the last step of the trace (the whole lasso, loop
/// included), `prefix` the N of `counterexample: N steps`, `states`,
/// `transitions` and `depth` those of the verdict line, `expect` the number
/// of `expect` lines (`//! expect` lines of `gsync-check show`, or `PASS`
/// and `FAIL` lines of `gsync-check verify`: one per `expect` line),
/// `lines` the number of lines.
fn stated(key: &str, output: &[String]) -> Option<u64> {
    let verdict = |name: &str| {
        let line = output.iter().find(|l| l.starts_with("verdict:"))?;
        let words: Vec<&str> = line
            .split(|c: char| c.is_whitespace() || c == '(' || c == ',' || c == ')')
            .filter(|w| !w.is_empty())
            .collect();
        let at = words.iter().position(|w| *w == name)?;
        words.get(at.checked_sub(1)?)?.parse().ok()
    };
    match key {
        "steps" => output
            .iter()
            .filter_map(|l| l.split('│').next()?.trim().parse::<u64>().ok())
            .max(),
        "prefix" => output.iter().find_map(|l| {
            let rest = l.strip_prefix("counterexample: ")?;
            // `1 step`, `27 steps`
            rest.strip_suffix(" steps")
                .or_else(|| rest.strip_suffix(" step"))?
                .parse()
                .ok()
        }),
        "depth" => {
            let line = output.iter().find(|l| l.starts_with("verdict:"))?;
            line.split("depth ")
                .nth(1)?
                .trim_end_matches(')')
                .parse()
                .ok()
        }
        "states" | "transitions" => verdict(key),
        "expect" => Some(
            output
                .iter()
                .filter(|l| {
                    ["//! expect", "PASS ", "FAIL "]
                        .iter()
                        .any(|p| l.starts_with(p))
                })
                .count() as u64,
        ),
        "lines" => Some(output.len() as u64),
        _ => None,
    }
}

/// Whether a paragraph states the number `n`: as digits (a whole word), or
/// spelled out up to twenty.
fn states_number(paragraph: &str, n: u64) -> bool {
    const WORDS: [&str; 21] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
    ];
    let digits = n.to_string();
    paragraph
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| w == digits || (n <= 20 && w.eq_ignore_ascii_case(WORDS[n as usize])))
}

#[test]
fn stated_reads_the_numbers_of_an_output() {
    let out: Vec<String> = [
        "x (2 blocks × 1 thread, warp 32, memory sc, iters=1)",
        "verdict: VIOLATED  (126 states, 162 transitions, depth 27)",
        "counterexample: 3 steps",
        " step │ block 0",
        "    1 │  29: atomicExch(lock, 1)",
        "      │      lock: 0 → 1",
        "then forever, repeating:",
        "   10 │  43: data",
        "//! expect --memory-model sc: verified",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(stated("states", &out), Some(126));
    assert_eq!(stated("transitions", &out), Some(162));
    assert_eq!(stated("depth", &out), Some(27));
    assert_eq!(stated("prefix", &out), Some(3));
    assert_eq!(stated("steps", &out), Some(10));
    assert_eq!(stated("expect", &out), Some(1));
    assert_eq!(stated("lines", &out), Some(9));
    assert_eq!(stated("colour", &out), None);
    let one = ["counterexample: 1 step".to_string()];
    assert_eq!(stated("prefix", &one), Some(1));
    assert!(states_number("the 27 steps show", 27));
    assert!(!states_number("the 271 steps show", 27));
    assert!(states_number("has Ten `expect` lines", 10));
}

/// Timings vary from run to run; everything else must match exactly.
/// A timing is masked, and so is the width of the white space around it:
/// a right-aligned column of seconds widens when a run takes 10 s instead
/// of 9 s on a busy machine, and the words must still match.
fn normalize(line: &str) -> String {
    line.split_whitespace()
        .map(|w| {
            let core = w.trim_end_matches([',', ')', 's']);
            let is_float =
                core.contains('.') && core.chars().all(|c| c.is_ascii_digit() || c == '.');
            if is_float && core.len() > 1 {
                w.replace(core, "#.##")
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Rewrites the output under each command with what the tool prints now.
fn bless(examples: &[Example], outputs: &[Vec<String>]) {
    let mut by_file: std::collections::BTreeMap<&str, Vec<(usize, usize)>> = Default::default();
    for (i, ex) in examples.iter().enumerate() {
        by_file
            .entry(ex.file.as_str())
            .or_default()
            .push((ex.line, i));
    }
    for (file, items) in by_file {
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut result: Vec<String> = Vec::new();
        let mut at = 0;
        for (line, i) in items {
            let ex = &examples[i];
            // Copy up to and including the command line, then skip the old
            // output (and a `...` marker) and write the new one.
            while at < line {
                result.push(lines[at].to_string());
                at += 1;
            }
            while at < lines.len()
                && !lines[at].starts_with("$ ")
                && !lines[at].trim_start().starts_with("```")
            {
                at += 1;
            }
            // A `...` block right under its command gets a screenful.
            let shown = match (ex.prefix_only, ex.expected.len()) {
                (true, 0 | 1) => 24,
                (true, n) => n,
                (false, _) => outputs[i].len(),
            };
            result.extend(outputs[i].iter().take(shown).cloned());
            if ex.prefix_only {
                result.push("...".to_string());
            }
        }
        result.extend(lines[at..].iter().map(|l| l.to_string()));
        std::fs::write(file, result.join("\n") + "\n").unwrap();
    }
}

#[test]
fn normalize_masks_timings_whatever_their_width() {
    let fast = "priority_semaphore      VERIFIED   -     819430     3.03";
    let slow = "priority_semaphore      VERIFIED   -     819430    13.03";
    assert_eq!(normalize(fast), normalize(slow));
    // Everything but a timing still counts.
    let other = "priority_semaphore      VERIFIED   -     819431    13.03";
    assert_ne!(normalize(fast), normalize(other));
    assert_eq!(normalize("took 0.01s,"), "took #.##s,");
}

/// The book writes the shared inputs as `../shared/...`, where a reader
/// who cloned beside them has them; the test finds them wherever
/// `shared_dir` does, and writes them back as the book does in the output.
/// `shared`: where `shared_dir` found the folder, looked up once.
fn run_example(ex: &Example, shared: Option<&str>) -> String {
    const BOOK_SHARED: &str = "../shared";
    let args: Vec<String> = ex
        .args
        .iter()
        .map(|a| match (shared, a.strip_prefix(BOOK_SHARED)) {
            (Some(dir), Some(rest)) => format!("{dir}{rest}"),
            _ => a.clone(),
        })
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = stdout(&run(&args));
    match shared {
        Some(dir) => out.replace(dir, BOOK_SHARED),
        None => out,
    }
}

#[test]
fn every_command_in_the_book_prints_what_the_book_shows() {
    let examples = examples();
    let shared = shared_dir().map(|d| d.to_string_lossy().into_owned());
    if std::env::var_os("GSYNC_BLESS").is_some() {
        let outputs: Vec<Vec<String>> = examples
            .iter()
            .map(|ex| {
                run_example(ex, shared.as_deref())
                    .lines()
                    .map(|l| l.trim_end().to_string())
                    .collect()
            })
            .collect();
        bless(&examples, &outputs);
        return;
    }
    assert!(examples.len() >= 5, "the book shows real commands");
    let (_, checks) = parse();
    let mut failures = Vec::new();
    let mut outputs: Vec<Vec<String>> = Vec::new();
    for ex in &examples {
        let actual: Vec<String> = run_example(ex, shared.as_deref())
            .lines()
            .map(normalize)
            .collect();
        outputs.push(actual.clone());
        let expected: Vec<String> = ex.expected.iter().map(|l| normalize(l)).collect();
        let matches = if ex.prefix_only {
            actual.len() >= expected.len() && actual[..expected.len()] == expected[..]
        } else {
            actual == expected
        };
        if !matches {
            failures.push(format!(
                "{}:{}: `gsync-check {}`\n--- book\n{}\n--- tool\n{}",
                ex.file,
                ex.line,
                ex.args.join(" "),
                expected.join("\n"),
                actual.join("\n")
            ));
        }
    }
    for check in &checks {
        let ex = &examples[check.example];
        for (key, claimed) in &check.claims {
            let actual = stated(key, &outputs[check.example]);
            if actual != Some(*claimed) {
                failures.push(format!(
                    "{}:{}: the prose says {key}={claimed} of `gsync-check {}` (line {}), the output has {}",
                    check.file,
                    check.line,
                    ex.args.join(" "),
                    ex.line,
                    actual.map_or("no such number".to_string(), |v| v.to_string())
                ));
            }
            if !states_number(&check.paragraph, *claimed) {
                failures.push(format!(
                    "{}:{}: the paragraph after the marker does not state {claimed} ({key}): {}",
                    check.file, check.line, check.paragraph
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The complete specs the book and the README show (fenced `gsync` blocks
/// that start with a `//! name:` header), with where they are.
fn complete_specs() -> Vec<(String, usize, String)> {
    let mut out = Vec::new();
    for path in documents() {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut block: Option<(usize, String)> = None;
        for (i, line) in text.lines().enumerate() {
            // ```gsync, or a cell: ```gsync,cell,...
            if line.trim() == "```gsync" || line.trim().starts_with("```gsync,") {
                block = Some((i + 2, String::new()));
            } else if line.trim_start().starts_with("```") {
                if let Some((at, body)) = block.take() {
                    if body.starts_with("//! name:") {
                        out.push((path.display().to_string(), at, body));
                    }
                }
            } else if let Some((_, body)) = block.as_mut() {
                body.push_str(line);
                body.push('\n');
            }
        }
    }
    out
}

#[test]
fn every_complete_spec_in_the_book_meets_its_expectations() {
    let specs = complete_specs();
    assert!(
        !specs.is_empty(),
        "the language chapter shows a complete spec"
    );
    let dir = std::env::temp_dir().join(format!("gsync-book-specs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (k, (file, line, body)) in specs.iter().enumerate() {
        let path = dir.join(format!("example{k}.gsync"));
        std::fs::write(&path, body).unwrap();
        let out = run(&["verify", path.to_str().unwrap()]);
        assert_eq!(
            code(&out),
            0,
            "{file}:{line}: the spec shown does not meet its `expect` lines\n{}{}",
            stdout(&out),
            stderr(&out)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The CUDA excerpts the book shows (fenced `cuda` blocks whose first line
/// is `// gsync-check emit NAME`): the spec and the lines that follow.
fn cuda_excerpts() -> Vec<(String, usize, String, Vec<String>)> {
    let mut out = Vec::new();
    for path in documents() {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut block: Option<(usize, Vec<String>)> = None;
        for (i, line) in text.lines().enumerate() {
            if line.trim() == "```cuda" {
                block = Some((i + 2, Vec::new()));
            } else if line.trim_start().starts_with("```") {
                if let Some((at, mut lines)) = block.take() {
                    let first = lines.first().cloned().unwrap_or_default();
                    if let Some(spec) = first.strip_prefix("// gsync-check emit ") {
                        lines.remove(0);
                        out.push((path.display().to_string(), at, spec.to_string(), lines));
                    }
                }
            } else if let Some((_, lines)) = block.as_mut() {
                lines.push(line.to_string());
            }
        }
    }
    out
}

#[test]
fn every_cuda_excerpt_in_the_book_is_what_emit_writes() {
    let excerpts = cuda_excerpts();
    assert!(!excerpts.is_empty(), "the GPU chapter shows generated CUDA");
    for (file, line, spec, lines) in excerpts {
        let path =
            std::env::temp_dir().join(format!("gsync-book-{spec}-{}.cu", std::process::id()));
        let out = run(&["emit", &spec, "-o", path.to_str().unwrap()]);
        assert_eq!(
            code(&out),
            0,
            "{file}:{line}: emit {spec}: {}",
            stderr(&out)
        );
        let emitted = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        let excerpt = lines.join("\n") + "\n";
        assert!(
            emitted.contains(&excerpt),
            "{file}:{line}: this excerpt is not in what `gsync-check emit {spec}` writes now:\n{excerpt}"
        );
    }
}

/// The example specs the book runs (`book/examples/`) meet the `expect`
/// lines of their headers, and the exercises' starting points too.
#[test]
fn the_book_examples_meet_their_expectations() {
    let out = run(&["verify", "book/examples"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains(" 0 failed"), "{}", stdout(&out));
}

/// The graded exercises (`book/exercises/NAME/`): the grader, given the
/// instructor's harness, passes the instructor's solution and fails the
/// empty starting point and every `*_attempt.gsync` (known wrong answers).
#[test]
fn graded_exercises_pass_their_solution_and_fail_the_rest() {
    let dir = repo().join("book/exercises");
    let grade = |exercise: &std::path::Path, answer: &std::path::Path| {
        std::process::Command::new("sh")
            .arg(dir.join("grade.sh"))
            .arg(exercise)
            .arg(answer)
            .arg(env!("CARGO_BIN_EXE_gsync-check"))
            .env("NO_COLOR", "1")
            .output()
            .expect("run grade.sh")
    };
    let mut exercises = 0;
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let exercise = entry.path();
        if !exercise.is_dir() {
            continue;
        }
        exercises += 1;
        let out = grade(&exercise, &exercise.join("solution.gsync"));
        assert_eq!(
            code(&out),
            0,
            "{}: the solution fails\n{}{}",
            exercise.display(),
            stdout(&out),
            stderr(&out)
        );
        let mut wrong = vec![exercise.join("student.gsync")];
        for f in std::fs::read_dir(&exercise).unwrap().flatten() {
            if f.file_name().to_string_lossy().ends_with("_attempt.gsync") {
                wrong.push(f.path());
            }
        }
        for answer in wrong {
            let out = grade(&exercise, &answer);
            assert_eq!(
                code(&out),
                1,
                "{}: graded as passing\n{}{}",
                answer.display(),
                stdout(&out),
                stderr(&out)
            );
        }
    }
    assert!(exercises >= 1, "the book has a graded exercise");
}

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

#[path = "book/claims.rs"]
mod claims;

use common::*;

fn main() -> std::process::ExitCode {
    use libtest_mimic::Trial;
    fn trial(name: &str, f: fn()) -> Trial {
        Trial::test(name, move || {
            f();
            Ok(())
        })
    }
    let (examples, _) = parse();
    let reads: Vec<bool> = examples
        .iter()
        .map(|ex| !shared_inputs(&ex.args).is_empty())
        .collect();
    let why = examples.iter().find_map(|ex| shared_missing(&ex.args));
    let without = reads.clone();
    run_trials(vec![
        trial(
            "stated_reads_the_numbers_of_an_output",
            stated_reads_the_numbers_of_an_output,
        ),
        trial(
            "normalize_masks_timings_whatever_their_width",
            normalize_masks_timings_whatever_their_width,
        ),
        trial("claims_are_found_and_judged", claims_are_found_and_judged),
        Trial::test(
            "every_command_in_the_book_prints_what_the_book_shows",
            move || {
                commands_print_what_the_book_shows(&|i| !without[i]);
                Ok(())
            },
        ),
        // The cells that read `../shared` (HeteroSync's CUDA, the litmus
        // corpus): ignored, with a note, where it is missing.
        needs(
            "the_commands_that_read_shared_inputs_print_what_the_book_shows",
            why.clone(),
            move || commands_print_what_the_book_shows(&|i| reads[i]),
        ),
        Trial::test(
            "every_verdict_the_book_claims_is_backed_by_a_command",
            || {
                every_verdict_the_book_claims_is_backed_by_a_command(false);
                Ok(())
            },
        ),
        needs(
            "every_verdict_claimed_of_shared_inputs_is_backed_by_a_command",
            shared_missing_of_markers(),
            || every_verdict_the_book_claims_is_backed_by_a_command(true),
        ),
        trial(
            "every_complete_spec_in_the_book_meets_its_expectations",
            every_complete_spec_in_the_book_meets_its_expectations,
        ),
        trial(
            "every_cuda_excerpt_in_the_book_is_what_emit_writes",
            every_cuda_excerpt_in_the_book_is_what_emit_writes,
        ),
        trial(
            "the_book_examples_meet_their_expectations",
            the_book_examples_meet_their_expectations,
        ),
        trial(
            "graded_exercises_pass_their_solution_and_fail_the_rest",
            graded_exercises_pass_their_solution_and_fail_the_rest,
        ),
        trial(
            "the_grader_prints_what_the_book_shows",
            the_grader_prints_what_the_book_shows,
        ),
        trial(
            "every_repository_path_the_book_cites_exists",
            every_repository_path_the_book_cites_exists,
        ),
    ])
}

/// The shared inputs a command reads (paths under `shared/`): an argument
/// `../shared/REST`, or a harness file whose `//! cuda:` lines go through a
/// folder named `shared`.
fn shared_inputs(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for a in args {
        if let Some(rest) = a.strip_prefix("../shared/") {
            out.push(rest.to_string());
        } else if a.ends_with(".gsync") {
            let Ok(text) = std::fs::read_to_string(repo().join(a)) else {
                continue;
            };
            for line in text.lines() {
                let Some(path) = line.strip_prefix("//! cuda:") else {
                    continue;
                };
                let path = path.trim();
                let parts: Vec<&str> = path.split('/').collect();
                if let Some(at) = parts.iter().position(|p| *p == "shared") {
                    out.push(parts[at + 1..].join("/"));
                } else if path.starts_with("${") {
                    // CUDA's own headers, where a variable names them.
                    out.push(path.to_string());
                }
            }
        }
    }
    out
}

/// What a command lacks of the shared inputs (`None`: it reads none, or all
/// are there).
fn shared_missing(args: &[String]) -> Option<String> {
    let needed = shared_inputs(args);
    for n in &needed {
        let Some(var) = n
            .strip_prefix("${")
            .and_then(|r| r.split_once('}'))
            .map(|(v, _)| v)
        else {
            continue;
        };
        match std::env::var_os(var) {
            Some(dir)
                if std::path::Path::new(
                    &n.replace(&format!("${{{var}}}"), &dir.to_string_lossy()),
                )
                .exists() => {}
            _ => {
                return Some(format!(
                    "{var} does not name CUDA's headers (see README, Optional inputs)"
                ))
            }
        }
    }
    let needed: Vec<&String> = needed.iter().filter(|n| !n.starts_with("${")).collect();
    let first = needed.first()?;
    match shared_dir() {
        None => Some(format!(
            "no shared/ folder beside or above the repository (set GSYNC_SHARED to it) for `{first}`"
        )),
        Some(dir) => needed
            .iter()
            .find(|n| !dir.join(n).exists())
            .map(|n| format!("no {} (set GSYNC_SHARED to the folder that has it)", dir.join(n).display())),
    }
}

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

/// Runs the book's commands that `select` picks (an example's index),
/// compares their outputs with the book's, and checks the prose markers
/// (`check:` numbers, `verdict:` claims on the command above) that refer
/// to them.
fn commands_print_what_the_book_shows(select: &dyn Fn(usize) -> bool) {
    let (examples, checks) = parse();
    let shared = shared_dir().map(|d| d.to_string_lossy().into_owned());
    if std::env::var_os("GSYNC_BLESS").is_some() {
        let outputs: Vec<Vec<String>> = examples
            .iter()
            .enumerate()
            .map(|(i, ex)| {
                if !select(i) {
                    return ex.expected.clone();
                }
                run_example(ex, shared.as_deref())
                    .lines()
                    .map(|l| l.trim_end().to_string())
                    .collect()
            })
            .collect();
        bless(&examples, &outputs);
        return;
    }
    let mut failures = Vec::new();
    let mut outputs: Vec<Option<Vec<String>>> = Vec::new();
    for (i, ex) in examples.iter().enumerate() {
        if !select(i) {
            outputs.push(None);
            continue;
        }
        let actual: Vec<String> = run_example(ex, shared.as_deref())
            .lines()
            .map(normalize)
            .collect();
        outputs.push(Some(actual.clone()));
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
        let Some(output) = &outputs[check.example] else {
            continue;
        };
        let ex = &examples[check.example];
        for (key, claimed) in &check.claims {
            let actual = stated(key, output);
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
    for marker in claims::Marker::all() {
        let claims::Target::Example(i) = marker.target else {
            continue;
        };
        let Some(output) = &outputs[i] else {
            continue;
        };
        if let Err(e) = marker.expected[0].holds_of(output) {
            failures.push(format!(
                "{}:{}: the prose claims `{}` of `gsync-check {}` (line {}), but {e}",
                marker.file,
                marker.line,
                marker.expected[0],
                examples[i].args.join(" "),
                examples[i].line
            ));
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
fn the_book_examples_meet_their_expectations() {
    let out = run(&["verify", "book/examples"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains(" 0 failed"), "{}", stdout(&out));
}

/// The graded exercises (`book/exercises/NAME/`): the grader, given the
/// instructor's harness, passes the instructor's solution and fails the
/// empty starting point and every `*_attempt.gsync` (known wrong answers,
/// at least three), each on the check its first line names.
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
        assert!(
            wrong.len() >= 4,
            "{}: a graded exercise has at least three known-wrong answers",
            exercise.display()
        );
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
            // A known-wrong answer says which check it must fail (a `FAIL`
            // line of the grader, or the construct it is refused for), and
            // fails that one.
            let text = std::fs::read_to_string(&answer).unwrap();
            if answer.ends_with("student.gsync") {
                continue;
            }
            let target = text
                .lines()
                .next()
                .and_then(|l| l.strip_prefix("// targets: "))
                .unwrap_or_else(|| panic!("{}: no `// targets: ...` first line", answer.display()));
            assert!(
                stdout(&out).lines().any(|l| l.contains(target)),
                "{}: does not fail what it targets ({target})\n{}",
                answer.display(),
                stdout(&out)
            );
        }
    }
    assert!(exercises >= 1, "the book has a graded exercise");

    // An exercise's own hint replaces the generic one: a plain increment
    // of the counter is told to use an atomic, not a fence or a flag.
    let counter = dir.join("atomic_counter");
    let out = grade(&counter, &counter.join("plain_increment_attempt.gsync"));
    let text = stdout(&out);
    let race = text
        .lines()
        .find(|l| l.trim_start().starts_with("heterogeneous_race:"))
        .unwrap_or_else(|| panic!("no race hint\n{text}"));
    assert!(
        race.contains("atomicAdd(total, 1)") && !race.contains("must itself be volatile"),
        "{race}"
    );

    // A right answer too large to check (u32 tickets that never wrap, so
    // the runs that never end have no finite state space) is undecided at
    // the grader's bound, exit 3, not failed.
    let unbounded =
        std::env::temp_dir().join(format!("gsync-unbounded-{}.gsync", std::process::id()));
    std::fs::write(
        &unbounded,
        "global u32 ticket = 0;\nglobal volatile u32 turn = 0;\n\
         fn lock_acquire() { u32 my = atomicAdd(ticket, 1); while (turn != my) { } __threadfence(); }\n\
         fn lock_try() -> bool { u32 next = turn; if (atomicCAS(ticket, next, next + 1) != next) { return false; } __threadfence(); return true; }\n\
         fn lock_release() { __threadfence(); turn = turn + 1; }\n",
    )
    .unwrap();
    let out = std::process::Command::new("sh")
        .arg(dir.join("grade.sh"))
        .arg(dir.join("fair_mutex"))
        .arg(&unbounded)
        .arg(env!("CARGO_BIN_EXE_gsync-check"))
        .env("NO_COLOR", "1")
        .env("GRADE_SECONDS", "2")
        .output()
        .expect("run grade.sh");
    let _ = std::fs::remove_file(&unbounded);
    let text = stdout(&out);
    assert_eq!(code(&out), 3, "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("UNDECIDED fair_mutex [--iters 0")),
        "{text}"
    );
    assert!(!text.lines().any(|l| l.starts_with("FAIL")), "{text}");
    assert!(text.contains(" failed (3 of them undecided)"), "{text}");
}

/// Every paragraph of the students' chapters, with the markers above it
/// (commands counted across the files as `parse` counts them).
fn all_paragraphs() -> Vec<claims::Paragraph> {
    let student: Vec<std::path::PathBuf> = claims::student_chapters(&repo());
    let mut out = Vec::new();
    let mut first = 0;
    for path in documents() {
        let (paragraphs, next) = claims::paragraphs(&path, first);
        first = next;
        if student.contains(&path) {
            out.extend(paragraphs);
        }
    }
    assert_eq!(
        first,
        examples().len(),
        "claims count the commands as parse does"
    );
    out
}

/// Every verdict marker of every chapter (the contributors' ones too).
impl claims::Marker {
    fn all() -> Vec<claims::Marker> {
        let mut out = Vec::new();
        let mut first = 0;
        for path in documents() {
            let (paragraphs, next) = claims::paragraphs(&path, first);
            first = next;
            out.extend(paragraphs.into_iter().flat_map(|p| p.markers));
        }
        out
    }
}

/// The verdict claims of the prose: each has markers, each marker fits
/// its paragraph (see `claims`); the markers that name a command of their
/// own are run (`shared`: those that read the shared inputs, or the
/// others), those on a command of the book are checked with its output.
fn every_verdict_the_book_claims_is_backed_by_a_command(shared: bool) {
    let examples = examples();
    let names = claims::spec_names(&repo());
    let mut failures = Vec::new();
    let mut claimed = 0;
    if !shared {
        for p in all_paragraphs() {
            let last_spec = p
                .last_example
                .and_then(|i| claims::spec_of(&examples[i].args, &names));
            failures.extend(claims::problems(&p, &names, last_spec.as_deref(), &|m| {
                m.spec(&examples, &names)
            }));
            claimed += usize::from(!p.markers.is_empty());
        }
        assert!(claimed >= 10, "the book claims verdicts ({claimed} found)");
    }
    let shared_at = shared_dir().map(|d| d.to_string_lossy().into_owned());
    for m in claims::Marker::all() {
        let args = match &m.target {
            claims::Target::Example(_) => continue,
            claims::Target::Command(args) => args.clone(),
            claims::Target::Expect(spec) if spec.ends_with(".gsync") => {
                vec!["verify".to_string(), spec.clone()]
            }
            claims::Target::Expect(spec) => {
                vec!["verify".to_string(), format!("specs/{spec}.gsync")]
            }
        };
        if shared_inputs(&args).is_empty() == shared {
            continue;
        }
        let ex = Example {
            file: m.file.clone(),
            line: m.line,
            args: args.clone(),
            expected: Vec::new(),
            prefix_only: false,
        };
        let output: Vec<String> = run_example(&ex, shared_at.as_deref())
            .lines()
            .map(String::from)
            .collect();
        if let claims::Target::Expect(spec) = &m.target {
            // Every `expect` line of the spec is met.
            if !output
                .iter()
                .any(|l| l.starts_with("verify:") && l.contains(" 0 failed"))
            {
                failures.push(format!(
                    "{}:{}: the prose sums up the `expect` lines of {spec}, which do not all hold:\n{}",
                    m.file,
                    m.line,
                    output.join("\n")
                ));
            }
        } else if let Err(e) = m.expected[0].holds_of(&output) {
            failures.push(format!(
                "{}:{}: the prose claims `{}` of `gsync-check {}`, but {e}",
                m.file,
                m.line,
                m.expected[0],
                args.join(" ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// What the markers that run a command of their own lack of the shared
/// inputs, if anything.
fn shared_missing_of_markers() -> Option<String> {
    claims::Marker::all().iter().find_map(|m| match &m.target {
        claims::Target::Command(args) => shared_missing(args),
        claims::Target::Expect(spec) => shared_missing(std::slice::from_ref(spec)),
        claims::Target::Example(_) => None,
    })
}

/// The claim finder on made-up paragraphs: it finds claims, and it fails
/// a marker that does not fit.
fn claims_are_found_and_judged() {
    use claims::*;
    let names: std::collections::BTreeSet<String> =
        ["spin_lock".to_string(), "ticket_mutex".to_string()].into();
    let para = |text: &str, markers: Vec<Marker>| Paragraph {
        file: "f.md".into(),
        line: 1,
        text: text.into(),
        markers,
        last_example: None,
        heading: false,
        after_command: false,
    };
    let marker = |args: &[&str], v: &str| Marker {
        file: "f.md".into(),
        line: 1,
        target: Target::Command(args.iter().map(|a| a.to_string()).collect()),
        expected: vec![v.parse().unwrap()],
    };
    let spec = |m: &Marker| match &m.target {
        Target::Command(a) => spec_of(a, &names),
        _ => None,
    };
    let judge = |p: &Paragraph| problems(p, &names, None, &spec);
    // Not claims: no verdict word, or no subject.
    assert!(judge(&para(
        "`spin_lock` takes the lock with `atomicExch`.",
        vec![]
    ))
    .is_empty());
    assert!(judge(&para("A deadlock is a state with no way out.", vec![])).is_empty());
    // A claim with no marker.
    assert_eq!(
        judge(&para("`spin_lock` starves a block.", vec![])).len(),
        1
    );
    assert_eq!(
        judge(&para(
            "`gsync-check spin_lock --simt its` is verified.",
            vec![]
        ))
        .len(),
        1
    );
    // A verdict word in inline code is not one of the prose.
    assert!(judge(&para("Run `gsync-check verify`.", vec![])).is_empty());
    let starves = marker(&["spin_lock", "--scheduler", "fair"], "violated starvation");
    assert!(judge(&para("`spin_lock` starves a block.", vec![starves.clone()])).is_empty());
    // The marker's verdict is not what the paragraph says.
    assert_eq!(
        judge(&para("`spin_lock` is verified.", vec![starves.clone()])).len(),
        2
    );
    // A second verdict word with no marker behind it.
    assert_eq!(
        judge(&para(
            "`spin_lock` starves a block; `ticket_mutex` is verified.",
            vec![starves.clone()]
        ))
        .len(),
        1
    );
    // The marker's spec is not the paragraph's.
    assert_eq!(
        judge(&para(
            "`ticket_mutex` starves a block.",
            vec![starves.clone()]
        ))
        .len(),
        1
    );
    // A question may ask whether it verifies.
    assert!(judge(&para("Does `spin_lock` verify, or starve?", vec![starves])).is_empty());
    assert_eq!(judge(&para("Does `spin_lock` starve?", vec![])).len(), 1);
    // Right after a command's output, "it deadlocks" is a claim about it.
    let mut after = para("Under `sc` it deadlocks.", vec![]);
    assert!(judge(&after).is_empty());
    after.after_command = true;
    assert_eq!(judge(&after).len(), 1);
    // What an output says.
    let out: Vec<String> = [
        "verdict: VIOLATED  (21 states, 42 transitions, depth 8)",
        "",
        "starvation [starvation]",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert!(Expected::Violated(vec!["starvation".into()])
        .holds_of(&out)
        .is_ok());
    assert!(Expected::Violated(vec!["deadlock".into()])
        .holds_of(&out)
        .is_err());
    assert!(Expected::Verified.holds_of(&out).is_err());
    assert!(Expected::Verified.holds_of(&[]).is_err());
}

/// The grader's runs the book shows (lines `$ book/exercises/grade.sh ...`
/// in a fenced `sh` block, the output under them) print what it shows.
fn the_grader_prints_what_the_book_shows() {
    let mut shown = 0;
    for path in documents() {
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(args) = line.strip_prefix("$ book/exercises/grade.sh ") else {
                continue;
            };
            let expected: Vec<&str> = lines[i + 1..]
                .iter()
                .take_while(|l| !l.starts_with("```") && !l.starts_with("$ "))
                .copied()
                .collect();
            let out = std::process::Command::new("sh")
                .arg("book/exercises/grade.sh")
                .args(args.split_whitespace())
                .arg(env!("CARGO_BIN_EXE_gsync-check"))
                .current_dir(repo())
                .env("NO_COLOR", "1")
                .output()
                .expect("run grade.sh");
            let actual = stdout(&out);
            let actual: Vec<&str> = actual.lines().collect();
            assert_eq!(
                actual,
                expected,
                "{}:{}: the grader prints something else",
                path.display(),
                i + 1
            );
            shown += 1;
        }
    }
    assert!(shown >= 1, "the book shows the grader at work");
}

/// The repository's files and folders the book names in inline code
/// (`src/clang_front/builtins.rs`, `specs/`): each must exist, so a
/// moved file cannot leave the book pointing at nothing. A pattern
/// (`*`) or a placeholder in capitals (`TARGET`) is not a path.
fn every_repository_path_the_book_cites_exists() {
    const ROOTS: [&str; 10] = [
        "src/",
        "tests/",
        "specs/",
        "book/",
        "harnesses/",
        "counterexamples/",
        "scripts/",
        "benches/",
        "fuzz/",
        "web/",
    ];
    let mut cited = 0;
    let mut missing = Vec::new();
    for path in documents() {
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, line) in text.lines().enumerate() {
            // Inline code: the odd-numbered pieces between backticks.
            for code in line.split('`').skip(1).step_by(2) {
                let file = code.split(':').next().unwrap_or_default();
                let placeholder = file
                    .split('/')
                    .any(|part| part.len() > 1 && part.chars().all(|c| c.is_ascii_uppercase()));
                if !ROOTS.iter().any(|r| file.starts_with(r))
                    || file.contains([' ', '*', '{', '<'])
                    || placeholder
                {
                    continue;
                }
                cited += 1;
                if !repo().join(file).exists() {
                    missing.push(format!("{}:{}: `{file}`", path.display(), i + 1));
                }
            }
        }
    }
    assert!(
        cited >= 20,
        "the book cites the repository's files ({cited} found)"
    );
    assert!(
        missing.is_empty(),
        "the book cites paths that do not exist:\n{}",
        missing.join("\n")
    );
}

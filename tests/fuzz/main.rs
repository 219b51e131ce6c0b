//! Fuzzing the three ways a user's file gets in (issue 17): the spec parser
//! (and the lowering and checker after it), the litmus parser (and the
//! translation), and replay of a saved counterexample.
//! Each case is a real input (`specs/`, `tests/litmus/`,
//! `counterexamples/`) mutated by a seeded, structure-aware mutator
//! (`mutate.rs`: bit flips, tokens spliced between files, truncations,
//! deep nesting, numbers at the edges, long chains, bytes that are not
//! UTF-8, JSON fields retyped, swapped or removed), driven through
//! `targets.rs`. The property: no panic, no stack overflow, no hang; every
//! input is accepted or refused with an error value.
//!
//! The cases run in a child process (this binary, started again with
//! `GSYNC_FUZZ_CHILD` set), one thread with a 2 MiB stack as a test thread
//! has: a panic is caught there, and a stack overflow, an abort or a hang
//! (no case finished within `GSYNC_FUZZ_HANG_SECS`, 60 by default) ends the
//! child, which the parent sees. Either way the failing input is written
//! to a file, and the failure names it and the seed and case that made it.
//!
//! `cargo test --release --test fuzz` runs a short, fixed set of cases; a
//! long run takes more, with another seed:
//! `GSYNC_FUZZ_ITERS=1000000 GSYNC_FUZZ_SEED=$RANDOM cargo test --release --test fuzz -- --nocapture`
//! (`GSYNC_FUZZ_FROM=N` starts at case N, to rerun one case). The summary
//! names the slowest case, and keeps its input if it took a second or more.

#[path = "../common/mod.rs"]
mod common;
mod mutate;
mod targets;

use common::rng::Rng;
use libtest_mimic::{Failed, Trial};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Each target with its number of cases in the short run (a few seconds
/// in all on two cores).
const TARGETS: [(&str, u64); 3] = [("spec", 4000), ("litmus", 4000), ("replay", 2000)];

/// The seed of the short run: the same cases every time.
const DEFAULT_SEED: u64 = 17;

/// The largest input made (deep nesting and long chains stay within it).
const MAX_LEN: usize = 64 << 10;

/// The stack a case runs on: a test thread's (2 MiB), smaller than the
/// CLI's main thread; every front end must fit in it.
const STACK: usize = 2 << 20;

fn main() -> std::process::ExitCode {
    if let Ok(target) = std::env::var("GSYNC_FUZZ_CHILD") {
        child(&target);
        return std::process::ExitCode::SUCCESS;
    }
    let mut trials: Vec<Trial> = TARGETS
        .iter()
        .map(|&(target, iters)| {
            Trial::test(format!("fuzz_{target}"), move || parent(target, iters))
        })
        .collect();
    trials.push(Trial::test(
        "every_prefix_of_a_spec",
        every_prefix_of_a_spec,
    ));
    common::run_trials(trials)
}

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v}: expected a non-negative integer")),
        Err(_) => default,
    }
}

/// The real inputs the cases start from.
struct Corpus {
    specs: Vec<Vec<u8>>,
    litmus: Vec<Vec<u8>>,
    counterexamples: Vec<Value>,
}

fn files(dir: &str, ext: &str) -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(common::repo().join(dir))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    paths.sort();
    paths.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

fn corpus() -> Corpus {
    let counterexamples = files("counterexamples", "json")
        .iter()
        .map(|bytes| serde_json::from_slice(bytes).unwrap())
        .collect();
    Corpus {
        specs: files("specs", "gsync"),
        litmus: files("tests/litmus", "litmus"),
        counterexamples,
    }
}

/// Where a counterexample's spec path is resolved from: as if the fuzzed
/// file were beside the committed ones.
fn counterexample_dir() -> PathBuf {
    common::repo().join("counterexamples")
}

/// The input of case `case` of `target` under `seed`: a function of the
/// three alone (and the corpus), so a failure is reproduced by naming them.
fn input(corpus: &Corpus, target: &str, seed: u64, case: u64) -> Vec<u8> {
    let tag = target
        .bytes()
        .fold(0u64, |h, b| h.wrapping_mul(31) ^ u64::from(b));
    let mut rng = Rng::new(seed.wrapping_mul(0xA24B_AED4_963E_E407) ^ tag ^ case.rotate_left(32));
    let all: Vec<&[u8]> = corpus
        .specs
        .iter()
        .chain(&corpus.litmus)
        .map(Vec::as_slice)
        .collect();
    match target {
        "spec" | "litmus" => {
            let own = if target == "spec" {
                &corpus.specs
            } else {
                &corpus.litmus
            };
            if rng.one_in(10) {
                return mutate::token_soup(&mut rng, &all, 400);
            }
            let base = rng.pick(own).clone();
            mutate::mutate_bytes(&mut rng, &base, &all, MAX_LEN)
        }
        "replay" => {
            let mut value = rng.pick(&corpus.counterexamples).clone();
            if !rng.one_in(8) {
                mutate::mutate_json(&mut rng, &mut value, &corpus.counterexamples);
            }
            let text = if rng.one_in(2) {
                serde_json::to_vec_pretty(&value).unwrap()
            } else {
                serde_json::to_vec(&value).unwrap()
            };
            if rng.one_in(6) {
                mutate::mutate_bytes(&mut rng, &text, &[], MAX_LEN.max(text.len()))
            } else {
                text
            }
        }
        _ => panic!("no fuzz target `{target}`"),
    }
}

fn run_case(target: &str, bytes: &[u8]) -> usize {
    match target {
        "spec" => targets::spec(bytes),
        "litmus" => targets::litmus(bytes),
        "replay" => targets::replay(bytes, &counterexample_dir()),
        _ => panic!("no fuzz target `{target}`"),
    }
}

/// The file a failing input is written to.
fn save_input(target: &str, seed: u64, case: u64, bytes: &[u8]) -> PathBuf {
    let ext = match target {
        "spec" => "gsync",
        "litmus" => "litmus",
        _ => "json",
    };
    let dir = std::env::temp_dir().join("gsync-fuzz");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{target}-seed{seed}-case{case}.{ext}"));
    std::fs::write(&path, bytes).unwrap();
    path
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(a panic without a message)".into())
}

/// The child: runs cases `from..from + iters`, saying on stdout which case
/// starts (`case N`), which panicked (`panic N`), and how far the inputs
/// got (`done COUNTS`).
fn child(target: &str) {
    let seed = env_u64("GSYNC_FUZZ_SEED", DEFAULT_SEED);
    let from = env_u64("GSYNC_FUZZ_FROM", 0);
    let iters = env_u64("GSYNC_FUZZ_ITERS", 0);
    let target = target.to_string();
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || {
            let corpus = corpus();
            let mut out = std::io::stdout().lock();
            let mut reached = [0u64; targets::STAGES.len() + 1];
            let mut slowest = (0.0, from);
            for case in from..from + iters {
                writeln!(out, "case {case}").unwrap();
                out.flush().unwrap();
                let started = Instant::now();
                let run = std::panic::catch_unwind(|| {
                    run_case(&target, &input(&corpus, &target, seed, case))
                });
                let seconds = started.elapsed().as_secs_f64();
                if seconds > slowest.0 {
                    slowest = (seconds, case);
                }
                match run {
                    Ok(stage) => reached[stage] += 1,
                    Err(payload) => {
                        let message = panic_message(&*payload).replace('\n', " ");
                        let message: String = message.chars().take(300).collect();
                        writeln!(out, "panic {case} {message}").unwrap();
                    }
                }
            }
            let counts: Vec<String> = reached.iter().map(u64::to_string).collect();
            writeln!(
                out,
                "done {:.2} {} {}",
                slowest.0,
                slowest.1,
                counts.join(" ")
            )
            .unwrap();
        })
        .unwrap()
        .join()
        .unwrap();
}

/// What went wrong in one case.
struct Failure {
    case: u64,
    what: String,
}

/// Runs `iters` cases of `target` in a child process and fails, naming
/// each failing case's seed and input file, on a panic, a crash or a hang.
fn parent(target: &'static str, default_iters: u64) -> Result<(), Failed> {
    let seed = env_u64("GSYNC_FUZZ_SEED", DEFAULT_SEED);
    let from = env_u64("GSYNC_FUZZ_FROM", 0);
    let iters = env_u64("GSYNC_FUZZ_ITERS", default_iters);
    let hang = Duration::from_secs(env_u64("GSYNC_FUZZ_HANG_SECS", 60));
    let started = Instant::now();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .env("GSYNC_FUZZ_CHILD", target)
        .env("GSYNC_FUZZ_SEED", seed.to_string())
        .env("GSYNC_FUZZ_FROM", from.to_string())
        .env("GSYNC_FUZZ_ITERS", iters.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut stderr = child.stderr.take().unwrap();
    let stderr = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut current = None;
    let mut failures = Vec::new();
    let mut done = None;
    let progress = Duration::from_secs(30);
    let mut shown = Instant::now();
    loop {
        match rx.recv_timeout(hang) {
            Ok(line) => {
                let (word, rest) = line.split_once(' ').unwrap_or((&line, ""));
                match word {
                    "case" => current = rest.parse::<u64>().ok(),
                    "panic" => {
                        let (case, message) = rest.split_once(' ').unwrap_or((rest, ""));
                        failures.push(Failure {
                            case: case.parse().unwrap(),
                            what: format!("panicked: {message}"),
                        });
                        current = None;
                    }
                    "done" => done = Some(rest.to_string()),
                    _ => {}
                }
                if shown.elapsed() > progress {
                    shown = Instant::now();
                    println!(
                        "fuzz {target}: at case {} of {from}..{} ({:.0} s)",
                        current.unwrap_or(0),
                        from + iters,
                        started.elapsed().as_secs_f64()
                    );
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                failures.push(Failure {
                    case: current.unwrap_or(from),
                    what: format!("did not finish within {} s (a hang)", hang.as_secs()),
                });
                current = None;
                break;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    let status = child.wait().unwrap();
    let stderr = stderr.join().unwrap();
    if done.is_none() {
        if let Some(case) = current {
            failures.push(Failure {
                case,
                what: format!("ended the process ({status}): a stack overflow or an abort"),
            });
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    if failures.is_empty() {
        let done =
            done.ok_or_else(|| format!("the child ended without a summary ({status}): {stderr}"))?;
        let words: Vec<&str> = done.split(' ').collect();
        let (slowest, slowest_case, counts) = (words[0], words[1], &words[2..]);
        let reached: Vec<String> = targets::STAGES
            .iter()
            .enumerate()
            .map(|(i, stage)| {
                let n: u64 = counts[i + 1..]
                    .iter()
                    .map(|c| c.parse::<u64>().unwrap())
                    .sum();
                format!("{stage} {n}")
            })
            .collect();
        // A slow case is worth a look (not a failure: no test depends on
        // timing); its input is kept.
        let kept = match (slowest.parse::<f64>(), slowest_case.parse::<u64>()) {
            (Ok(s), Ok(case)) if s >= 1.0 => {
                let path = save_input(target, seed, case, &input(&corpus(), target, seed, case));
                format!(", input {}", path.display())
            }
            _ => String::new(),
        };
        println!(
            "fuzz {target}: {iters} cases from {from}, seed {seed}, in {seconds:.1} s: {} (slowest: case {slowest_case}, {slowest} s{kept})",
            reached.join(", ")
        );
        return Ok(());
    }
    let corpus = corpus();
    let mut report = format!(
        "fuzz {target}, seed {seed}: {} failing case(s)\n",
        failures.len()
    );
    for f in failures.iter().take(10) {
        // A panic of the mutator itself is a failure too, reported as one.
        let bytes = std::panic::catch_unwind(|| input(&corpus, target, seed, f.case))
            .unwrap_or_else(|_| b"(the mutator panicked making this input)".to_vec());
        let path = save_input(target, seed, f.case, &bytes);
        report += &format!(
            "case {} {}\n  input: {}\n  rerun: GSYNC_FUZZ_SEED={seed} GSYNC_FUZZ_FROM={} GSYNC_FUZZ_ITERS=1 cargo test --release --test fuzz -- fuzz_{target}\n",
            f.case,
            f.what,
            path.display(),
            f.case
        );
    }
    let tail: String = stderr
        .chars()
        .rev()
        .take(4000)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    Err(format!("{report}child's stderr (end):\n{tail}").into())
}

/// Every prefix of a spec (cut at each character) parses or is refused.
fn every_prefix_of_a_spec() -> Result<(), Failed> {
    let text = std::fs::read_to_string(common::repo().join("specs/spin_lock.gsync")).unwrap();
    for (cut, _) in text.char_indices() {
        targets::spec(&text.as_bytes()[..cut]);
    }
    Ok(())
}

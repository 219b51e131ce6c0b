//! Long runs talk and stop cleanly (issue 42): where stderr is a file or
//! a pipe (CI logs, `2> err`), a progress line comes every few seconds with
//! how close the limits are; Ctrl-C (SIGINT) or SIGTERM ends the run as
//! inconclusive (exit 3) with what it decided so far: the partial search's
//! figures, a family's finished rows.

mod common;

use common::*;
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

/// `gsync-check ARGS` started with stdout and stderr to pipes; stderr's
/// lines arrive on the receiver as they are written.
fn start(args: &[&str]) -> (Child, Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gsync-check"))
        .args(args)
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start gsync-check");
    let err = child.stderr.take().unwrap();
    let (send, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = send.send(line);
        }
    });
    (child, lines)
}

/// The first progress line within `within`, and every line before it.
fn first_progress(lines: &Receiver<String>, within: Duration) -> (String, Vec<String>) {
    let deadline = Instant::now() + within;
    let mut seen = Vec::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match lines.recv_timeout(left) {
            Ok(line) if line.starts_with("progress") => return (line, seen),
            Ok(line) => seen.push(line),
            Err(_) => break,
        }
    }
    panic!("no progress line on stderr within {within:?}; it said: {seen:?}");
}

/// Sends `signal` (`INT`, `TERM`) and waits for the exit (killed after
/// a minute: a run that ignores the signal fails the test); its stdout
/// and exit code.
fn stop(mut child: Child, signal: &str) -> (String, i32) {
    let sent = Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(sent.success());
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("SIG{signal} did not end the run within a minute");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let code = status.code().expect("exited, not killed by the signal");
    (out, code)
}

/// A single spec that takes minutes (8 under the default limits): the
/// progress line names each limit, and SIGINT leaves the figures so far.
#[test]
fn a_long_check_reports_progress_on_a_pipe_and_sigint_keeps_its_figures() {
    let (child, lines) = start(&[
        "heterosync_semaphore",
        "--blocks",
        "12",
        "--threads",
        "1",
        "--max-seconds",
        "300",
    ]);
    let (line, _) = first_progress(&lines, Duration::from_secs(5));
    for part in [
        " states",
        "/s",
        "--max-states",
        "--max-memory",
        "--max-seconds",
    ] {
        assert!(line.contains(part), "`{part}` not in: {line}");
    }
    let (out, code) = stop(child, "INT");
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("verdict: INCONCLUSIVE"), "{out}");
    assert!(out.contains("interrupted (Ctrl-C or SIGTERM)"), "{out}");
    let states: u64 = out
        .split("INCONCLUSIVE  (")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no state count in: {out}"));
    assert!(states > 1000, "{out}");
}

/// A family whose second variant (`queue_lock_mcs`) takes minutes on one
/// thread while the first takes a moment.
const MUTEX_11_SC: [&str; 7] = [
    "mutex",
    "--blocks",
    "11",
    "--memory-model",
    "sc",
    "--threads",
    "1",
];

/// Under `--max-seconds` each variant of a family gets a share of it, and
/// the progress line counts down that share, saying so: the second of
/// seven variants gets a sixth of what the first left.
#[test]
fn a_family_variant_counts_down_its_share_of_max_seconds() {
    let (child, lines) = start(&[&MUTEX_11_SC[..], &["--max-seconds", "600"]].concat());
    let (line, _) = first_progress(&lines, Duration::from_secs(10));
    let (_, code) = stop(child, "TERM");
    assert_eq!(code, 3);
    assert!(line.contains("queue_lock_mcs (2 of 7)"), "{line}");
    let share: u64 = line
        .split("left of its ")
        .nth(1)
        .and_then(|rest| rest.strip_suffix(" s share of --max-seconds 600"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no share of --max-seconds 600 in: {line}"));
    assert!((85..=100).contains(&share), "{line}");
}

/// A family whose second variant takes long: SIGTERM during it prints the
/// finished row, the interrupted one as inconclusive, and names the
/// variants never checked; JSON keeps the limit's name.
#[test]
fn sigterm_during_a_family_keeps_the_rows_so_far() {
    let args = MUTEX_11_SC;
    let (child, lines) = start(&args);
    let (line, _) = first_progress(&lines, Duration::from_secs(10));
    assert!(line.contains("queue_lock_mcs (2 of 7)"), "{line}");
    let (out, code) = stop(child, "TERM");
    assert_eq!(code, 3, "{out}");
    let row = |name: &str| out.lines().find(|l| l.starts_with(name)).unwrap_or("");
    assert!(row("mutex_plain_unlock").contains("VERIFIED"), "{out}");
    assert!(
        row("queue_lock_mcs").contains("INCONCLUSIVE  (interrupted)"),
        "{out}"
    );
    assert!(
        out.contains("interrupted: not checked: ring_buffer_mutex, shared_spin_lock, spin_lock, spin_lock_backoff, ticket_mutex"),
        "{out}"
    );

    let (child, lines) = start(&[&args[..], &["--format", "json"]].concat());
    first_progress(&lines, Duration::from_secs(10));
    let (out, code) = stop(child, "INT");
    assert_eq!(code, 3, "{out}");
    let reports: serde_json::Value = serde_json::from_str(&out).expect("JSON on stdout");
    let reports = reports.as_array().expect("the reports so far");
    assert_eq!(reports.len(), 2, "{out}");
    assert_eq!(reports[1]["verdict"], "inconclusive");
    assert_eq!(reports[1]["limit"], "interrupted");
}

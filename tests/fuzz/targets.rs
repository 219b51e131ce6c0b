//! The entry points the fuzzers drive, shared by the stable harness
//! (`tests/fuzz/main.rs`) and the cargo-fuzz targets (`fuzz/`). Each takes
//! any bytes, as a user's file may hold, and must return: every input is
//! either accepted or refused with an error value, which is rendered too
//! (a diagnostic whose span is out of range must not crash the renderer).
//! The property is checked by the caller: no panic, no stack overflow, no
//! hang.

// `STAGES` is read by the stable harness only.
#![allow(dead_code)]

use gsync_check::api::Search;
use gsync_check::api::{self, CheckConfig, SpecSource};
use gsync_check::diag::Source;
use gsync_check::explore::Limits;
use gsync_check::format::svg::render_svg;
use gsync_check::format::text::render_report;
use gsync_check::litmus::{self, LitmusConfig, Question};
use gsync_check::spec::input::decode;
use std::path::Path;

/// How far an input got: decoded (UTF-8), parsed, prepared (lowered or, for
/// a counterexample, its spec found), then checked or replayed.
pub const STAGES: [&str; 4] = ["decoded", "parsed", "prepared", "ran"];

/// The bound on each exploration a fuzzed input starts, so that a case
/// stays fast (an exploration that reaches it ends as inconclusive).
const MAX_STATES: u64 = 2_000;

/// The widest launch a fuzzed counterexample is replayed on.
const MAX_THREADS: u64 = 128;

/// A spec file: read as text, parsed, lowered for the default launch and
/// checked up to [`MAX_STATES`] states. Returns how many of [`STAGES`] it
/// passed.
pub fn spec(bytes: &[u8]) -> usize {
    let text = match decode("fuzz.gsync", bytes.to_vec()) {
        Ok(text) => text,
        Err(message) => return refused(0, &message),
    };
    let spec = SpecSource {
        name: "fuzz".into(),
        origin: "fuzz.gsync".into(),
        text,
    };
    if let Err(e) = api::parse(&spec) {
        return refused(1, &e.render(false));
    }
    let config = CheckConfig {
        search: Search {
            threads: 1,
            ..Search::default()
        },
        limits: Limits {
            max_states: Some(MAX_STATES),
            max_seconds: Some(5.0),
            max_memory_mb: Some(256),
            ..CheckConfig::default().limits
        },
        ..CheckConfig::default()
    };
    let prepared = match api::prepare(&spec, &config) {
        Ok(p) => p,
        Err(e) => return refused(2, &e.render(false)),
    };
    let report = api::run(&prepared);
    std::hint::black_box(render_report(&report, true));
    4
}

/// A litmus test: read, parsed, translated and explored (its final
/// condition under `ptx`, termination under weak fairness), each bounded by
/// [`MAX_STATES`].
pub fn litmus(bytes: &[u8]) -> usize {
    let text = match decode("fuzz.litmus", bytes.to_vec()) {
        Ok(text) => text,
        Err(message) => return refused(0, &message),
    };
    let source = Source::new("fuzz.litmus", text);
    let test = match litmus::parse_source(&source) {
        Ok(test) => test,
        Err(f) => return refused(1, &f.render(false)),
    };
    let config = LitmusConfig {
        max_states: MAX_STATES,
        ..LitmusConfig::default()
    };
    let mut stage = 2;
    match litmus::ask_parsed(test.clone(), &source, &config, Question::Condition) {
        Ok(checked) => {
            std::hint::black_box(litmus::render_checked(&checked, Some(true)));
            stage = 4;
        }
        Err(f) => {
            std::hint::black_box((f.reason(), f.render(false)));
        }
    }
    match litmus::ask_parsed(test, &source, &config, Question::FAIR_TERMINATION) {
        Ok(checked) => std::hint::black_box(litmus::render_checked(&checked, None)),
        Err(f) => std::hint::black_box(f.render(false)),
    };
    stage
}

/// A saved counterexample, as if it were the file `dir/fuzz.json` (a
/// spec path in it is relative to `dir`): read, parsed, its spec found,
/// drawn as SVG and replayed.
pub fn replay(bytes: &[u8], dir: &Path) -> usize {
    let path = dir.join("fuzz.json");
    let text = match decode("fuzz.json", bytes.to_vec()) {
        Ok(text) => text,
        Err(message) => return refused(0, &message),
    };
    let mut saved = match api::parse_counterexample(&path, &text) {
        Ok(saved) => saved,
        Err(e) => return refused(1, &e.render(false)),
    };
    // Stepping a wide launch under `ptx` costs more than linear time in its
    // threads (34 steps of 1,024 blocks take 40 s: slow, not wrong); the
    // fuzzer keeps to narrow ones.
    let launch = saved.config.launch;
    if u64::from(launch.blocks) * u64::from(launch.threads_per_block) > MAX_THREADS {
        return 2;
    }
    // Replay searches from a deadlock's state within the recorded limits:
    // the fuzzer's are smaller.
    let limits = &mut saved.config.limits;
    limits.max_states = Some(limits.max_states.unwrap_or(MAX_STATES).min(MAX_STATES));
    limits.max_memory_mb = Some(limits.max_memory_mb.unwrap_or(512).min(512));
    let spec = match api::counterexample_spec(&saved, &path) {
        Ok(spec) => spec,
        Err(e) => return refused(2, &e.render(false)),
    };
    std::hint::black_box(render_svg(&saved.spec, &saved.config, &saved.violation));
    match api::replay_counterexample(&saved, &spec) {
        Ok(outcome) => {
            std::hint::black_box((outcome.name(), outcome.exit_code()));
            4
        }
        Err(e) => refused(3, &e.render(false)),
    }
}

/// An input refused at `stage` with `message` (kept from being optimized
/// away: the rendering is part of what must not crash).
fn refused(stage: usize, message: &str) -> usize {
    std::hint::black_box(message);
    stage
}

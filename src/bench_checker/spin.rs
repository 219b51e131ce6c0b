//! A peer comparison: the spin-lock and ticket mutexes, written in Promela
//! (`benches/promela/`), verified by SPIN with its default reductions
//! (partial-order reduction, dead-variable elimination) next to
//! gsync-check on the same algorithm and the same number of processes
//! (blocks), in the same run: states stored and seconds of both.
//!
//! SPIN's time is the search time the compiled verifier `pan` reports
//! (the ratio column uses it); the wall time of `pan` (with allocating its
//! hash table) and generating and compiling it (`spin -a`, `cc`) are shown
//! apart.
//! gsync-check's time is the whole check (parse, lowering, search,
//! analyses).

use crate::api::{self, CheckConfig, SpecSource};
use crate::model::MemoryModel;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// The Promela models and the built-in spec each mirrors.
pub const MODELS: &[(&str, &str)] = &[
    (
        "spin_lock",
        include_str!("../../benches/promela/spin_lock.pml"),
    ),
    (
        "ticket_mutex",
        include_str!("../../benches/promela/ticket_mutex.pml"),
    ),
];

/// One algorithm at one process count, both tools.
#[derive(Clone, Debug)]
pub struct Comparison {
    pub spec: String,
    pub processes: u32,
    pub spin: Result<SpinRun, String>,
    pub gsync_states: u64,
    pub gsync_seconds: f64,
    pub gsync_verdict: String,
}

#[derive(Clone, Debug)]
pub struct SpinRun {
    pub states: u64,
    pub errors: u64,
    /// Search time as `pan` reports it (`elapsed time`, 10 ms resolution).
    pub seconds: f64,
    /// Wall time of the `pan` process (with allocating its tables).
    pub wall_seconds: f64,
    /// `spin -a` plus compiling `pan`.
    pub build_seconds: f64,
}

/// Whether a `spin` executable can be run.
pub fn available() -> bool {
    Command::new("spin")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs SPIN on a Promela model for `n` processes, in a fresh directory.
pub fn run_spin(name: &str, promela: &str, n: u32, dir: &Path) -> Result<SpinRun, String> {
    let dir = dir.join(format!("{name}-{n}"));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("model.pml"), promela).map_err(|e| e.to_string())?;
    let build = Instant::now();
    run_in(&dir, "spin", &["-a", &format!("-DN={n}"), "model.pml"])?;
    run_in(&dir, "cc", &["-O2", "-o", "pan", "pan.c"])?;
    let build_seconds = build.elapsed().as_secs_f64();
    // pan allocates its stack for the depth bound up front: start small
    // and grow it only when pan says the bound was too small.
    let mut depth = 100_000u64;
    let (out, seconds) = loop {
        let start = Instant::now();
        let out = run_in(&dir, "./pan", &[&format!("-m{depth}")])?;
        let seconds = start.elapsed().as_secs_f64();
        if !out.contains("max search depth too small") || depth >= 1_000_000_000 {
            break (out, seconds);
        }
        depth *= 10;
    };
    let _ = std::fs::remove_dir_all(&dir);
    let number_before = |what: &str| -> Option<u64> {
        out.lines()
            .find(|l| l.contains(what))?
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    };
    let states = number_before("states, stored").ok_or("no state count in pan's output")?;
    let errors = out
        .split("errors: ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next()?.parse().ok())
        .ok_or("no error count in pan's output")?;
    let reported = out
        .split("elapsed time ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next()?.parse().ok())
        .ok_or("no elapsed time in pan's output")?;
    Ok(SpinRun {
        states,
        errors,
        seconds: reported,
        wall_seconds: seconds,
        build_seconds,
    })
}

fn run_in(dir: &Path, program: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{program} failed: {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .next()
                .unwrap_or("")
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Compares both tools for every model at each process count.
pub fn compare(processes: &[u32], out: &mut dyn FnMut(&str)) -> Vec<Comparison> {
    let dir = std::env::temp_dir().join(format!("gsync-spin-{}", std::process::id()));
    out(&format!(
        "{:<14} {:>5} {:>12} {:>8} {:>8} {:>8} {:>12} {:>10}  {:>8} {:>9} {:>8}",
        "algorithm",
        "procs",
        "SPIN states",
        "SPIN s",
        "pan s",
        "build s",
        "gsync states",
        "gsync s",
        "states÷",
        "search÷",
        "wall÷"
    ));
    let mut rows = Vec::new();
    for (name, promela) in MODELS {
        let spec = SpecSource::builtin(name).expect("the compared specs are built in");
        for &n in processes {
            let c = compare_one(&spec, promela, n, &dir);
            out(&format_comparison(&c));
            rows.push(c);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    rows
}

fn compare_one(spec: &SpecSource, promela: &str, n: u32, dir: &Path) -> Comparison {
    let spin = run_spin(&spec.name, promela, n, dir);
    let mut config = CheckConfig::default();
    config.launch.blocks = n;
    // SPIN's interleavings are sequentially consistent.
    config.semantics.memory_model = Some(MemoryModel::Sc);
    let start = Instant::now();
    let report = api::check_spec(spec, &config);
    let gsync_seconds = start.elapsed().as_secs_f64();
    let (gsync_states, gsync_verdict) = match &report {
        Ok(r) => (r.stats.states, r.verdict.name().to_string()),
        Err(e) => (0, format!("error: {e}")),
    };
    Comparison {
        spec: spec.name.clone(),
        processes: n,
        spin,
        gsync_states,
        gsync_seconds,
        gsync_verdict,
    }
}

pub fn format_comparison(c: &Comparison) -> String {
    match &c.spin {
        Ok(s) => format!(
            "{:<14} {:>5} {:>12} {:>8.2} {:>8.3} {:>8.2} {:>12} {:>10.4}  {:>7.1}x {:>9} {:>7.1}x{}",
            c.spec,
            c.processes,
            s.states,
            s.seconds,
            s.wall_seconds,
            s.build_seconds,
            c.gsync_states,
            c.gsync_seconds,
            s.states as f64 / c.gsync_states.max(1) as f64,
            // pan reports 10 ms steps: below that the ratio is unknown.
            if s.seconds >= 0.01 {
                format!("{:.1}x", s.seconds / c.gsync_seconds.max(1e-9))
            } else {
                "<10ms".to_string()
            },
            s.wall_seconds / c.gsync_seconds.max(1e-9),
            if s.errors == 0 && c.gsync_verdict == "verified" {
                String::new()
            } else {
                format!("  (SPIN errors {}, gsync {})", s.errors, c.gsync_verdict)
            }
        ),
        Err(e) => format!(
            "{:<14} {:>5} SPIN: {e}; gsync-check {} states in {:.4} s",
            c.spec, c.processes, c.gsync_states, c.gsync_seconds
        ),
    }
}

//! The `ptx` memory model at scale (issue 19's targets), measured as users
//! run it: the default memory model (ptx), the unfair scheduler, one
//! explorer thread, every reduction at its default.
//!
//! 1. States stored under ptx against sc for every built-in spec at 3
//!    blocks, with the median and largest ratio (specs refused under ptx,
//!    the lock unit and lockstep warps, are left out; a run that stops at
//!    a violation stores the states up to it).
//! 2. Families as `gsync-check FAMILY --blocks N` runs them, each in a
//!    fresh process of the release binary: verdicts, states, wall seconds
//!    and peak RSS of the whole family.
//!
//! Run with `cargo bench --bench ptx` (`-- ratios` or `-- families` for
//! one part; `--max-seconds S` per family, default 120).

use gsync_check::api::{self, CheckConfig};
use gsync_check::ir::Launch;
use gsync_check::model::MemoryModel;
use std::process::Command;
use std::time::Instant;

/// The family runs of the targets.
const FAMILIES: &[(&str, u32)] = &[
    ("semaphore", 4),
    ("semaphore", 6),
    ("mutex", 6),
    ("barrier", 4),
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let only = |part: &str| {
        !args.iter().any(|a| a == "ratios" || a == "families") || args.iter().any(|a| a == part)
    };
    let max_seconds = args
        .iter()
        .position(|a| a == "--max-seconds")
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| "120".into());
    if only("ratios") {
        ratios();
    }
    if only("families") {
        families(&max_seconds);
    }
}

/// Stored states of `spec` at 3 blocks under `model`, or why not.
fn states(spec: &api::SpecSource, model: MemoryModel) -> Result<(u64, String), String> {
    let config = CheckConfig {
        launch: Launch {
            blocks: 3,
            ..Launch::default()
        },
        memory_model: Some(model),
        max_seconds: Some(120.0),
        ..CheckConfig::default()
    };
    let report = api::check_spec(spec, &config).map_err(|e| e.render(false))?;
    Ok((report.stats.states, report.verdict.name().to_string()))
}

fn ratios() {
    println!("## States under ptx against sc, every spec at 3 blocks (one thread)\n");
    println!("| spec | sc states | sc verdict | ptx states | ptx verdict | ratio |");
    println!("| --- | ---: | --- | ---: | --- | ---: |");
    let mut ratios = Vec::new();
    for spec in api::builtins() {
        let (Ok((sc, scv)), Ok((ptx, ptxv))) = (
            states(&spec, MemoryModel::Sc),
            states(&spec, MemoryModel::Ptx),
        ) else {
            continue;
        };
        let ratio = ptx as f64 / sc.max(1) as f64;
        ratios.push(ratio);
        println!(
            "| {} | {sc} | {scv} | {ptx} | {ptxv} | {ratio:.1} |",
            spec.name
        );
    }
    ratios.sort_by(f64::total_cmp);
    let median = ratios[ratios.len() / 2];
    let max = ratios.last().copied().unwrap_or(0.0);
    println!(
        "\n{} specs: median ratio {median:.1}, largest {max:.1}\n",
        ratios.len()
    );
}

fn families(max_seconds: &str) {
    let bin = env!("CARGO_BIN_EXE_gsync-check");
    println!("## Families, defaults (ptx, unfair), one thread, a process each\n");
    println!("| run | verdicts | states | seconds | peak RSS MiB |");
    println!("| --- | --- | ---: | ---: | ---: |");
    for &(family, blocks) in FAMILIES {
        let start = Instant::now();
        let out = Command::new(bin)
            .args([family, "--blocks", &blocks.to_string()])
            .args(["--threads", "1", "--format", "json", "--stats"])
            .args(["--max-seconds", max_seconds])
            .output()
            .expect("run gsync-check");
        let wall = start.elapsed().as_secs_f64();
        let reports: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("a JSON array of reports");
        let reports = reports.as_array().expect("one report per variant");
        let states: u64 = reports
            .iter()
            .map(|r| r["stats"]["states"].as_u64().unwrap_or(0))
            .sum();
        let rss = reports
            .iter()
            .filter_map(|r| r["stats"]["peak_rss_bytes"].as_u64())
            .max()
            .unwrap_or(0);
        let undecided = reports
            .iter()
            .filter(|r| r["verdict"] == "inconclusive")
            .count();
        let verdicts = match undecided {
            0 => format!("all {} decided", reports.len()),
            n => format!("{n} of {} inconclusive", reports.len()),
        };
        println!(
            "| `{family} --blocks {blocks}` | {verdicts} | {states} | {wall:.1} | {} |",
            rss >> 20
        );
    }
}

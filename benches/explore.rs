//! Explorer throughput on the built-in families: states, transitions,
//! states/s and peak memory for each variant, measured on the real
//! checker (the same path as the CLI).
//!
//! Run with `cargo bench --bench explore` (optionally a filter:
//! `cargo bench --bench explore -- semaphore`).

use gsync_check::api::{self, CheckConfig};
use gsync_check::ir::Launch;
use std::time::Instant;

/// (family, blocks) pairs from the acceptance criteria.
const RUNS: &[(&str, u32)] = &[("semaphore", 4), ("mutex", 5), ("barrier", 4)];

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    println!(
        "{:<34} {:>7} {:>11} {:>12} {:>9} {:>12} {:>10} {:>10}",
        "spec", "blocks", "states", "transitions", "seconds", "states/s", "store MiB", "B/state"
    );
    for (family, blocks) in RUNS {
        if filter.as_deref().is_some_and(|f| !family.contains(f)) {
            continue;
        }
        let mut total_states = 0u64;
        let start = Instant::now();
        for spec in api::builtins() {
            let file = api::parse(&spec).expect("built-in specs parse");
            if file.header.family.as_deref() != Some(family) {
                continue;
            }
            let config = CheckConfig {
                launch: Launch {
                    blocks: *blocks,
                    ..Launch::default()
                },
                ..CheckConfig::default()
            };
            let report = match api::check_spec(&spec, &config) {
                Ok(r) => r,
                Err(e) => {
                    println!(
                        "{:<34} error: {}",
                        spec.name,
                        e.render(false).lines().next().unwrap_or("")
                    );
                    continue;
                }
            };
            let s = &report.stats;
            let (seconds, rate, store) = s.measured.as_ref().map_or((0.0, 0.0, 0), |m| {
                (m.seconds, m.states_per_second, m.peak_store_bytes)
            });
            total_states += s.states;
            println!(
                "{:<34} {:>7} {:>11} {:>12} {:>9.3} {:>12.0} {:>10.1} {:>10.0}   {}",
                spec.name,
                blocks,
                s.states,
                s.transitions,
                seconds,
                rate,
                store as f64 / (1024.0 * 1024.0),
                store as f64 / s.states.max(1) as f64,
                report.verdict.name()
            );
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "{:<34} {:>7} {:>11} {:>12} {:>9.3} {:>12.0}\n",
            format!("= {family} family"),
            blocks,
            total_states,
            "",
            secs,
            total_states as f64 / secs
        );
    }
    if let Some(rss) = gsync_check::explore::peak_rss_bytes() {
        println!(
            "peak RSS of the process: {:.1} MiB",
            rss as f64 / (1024.0 * 1024.0)
        );
    }
}

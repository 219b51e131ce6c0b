//! The explorer's own worker pool against rayon on the same searches, in
//! the same run: each search is run with both pools, alternating, and the
//! median wall time of each is printed (with the speed-up over one
//! thread). The states and transitions must agree: the result of a search
//! does not depend on the pool.
//!
//! Run with `cargo bench --bench pool` (options: `-- --threads 2 --rounds 5`).

use gsync_check::api::Semantics;
use gsync_check::api::{self, CheckConfig, SpecSource};
use gsync_check::explore::{explore, Options, WorkerPool};
use gsync_check::ir::Launch;
use gsync_check::model::MemoryModel;
use gsync_check::reduce::{Reduced, Reductions};
use std::time::Instant;

/// Searches of a few seconds each, under the default memory model (ptx)
/// and under sc, with the reductions the checker would use.
const RUNS: &[(&str, u32, MemoryModel)] = &[
    ("priority_semaphore", 3, MemoryModel::Ptx),
    ("ticket_mutex", 4, MemoryModel::Sc),
    ("priority_semaphore", 11, MemoryModel::Sc),
    ("sense_reversing_barrier_fixed", 6, MemoryModel::Sc),
];

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Seconds, states and transitions of one search of `run`.
fn search(run: &(&str, u32, MemoryModel), pool: WorkerPool, threads: usize) -> (f64, u64, u64) {
    let (name, blocks, memory_model) = *run;
    let spec = SpecSource::builtin(name).expect("a built-in spec");
    let config = CheckConfig {
        launch: Launch {
            blocks,
            ..Launch::default()
        },
        semantics: Semantics {
            memory_model: Some(memory_model),
            ..Semantics::default()
        },
        ..CheckConfig::default()
    };
    let prepared = api::prepare(&spec, &config).expect("the spec prepares");
    let model = api::model_of(&prepared);
    let (reduced, _) = Reduced::new(&model, Reductions::ALL);
    let options = Options {
        threads,
        pool,
        ..Options::default()
    };
    let start = Instant::now();
    let ex = explore(&reduced, &options);
    let seconds = start.elapsed().as_secs_f64();
    (seconds, ex.stats().states, ex.stats().transitions)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let threads = arg("--threads", 2);
    let rounds = arg("--rounds", 5);
    println!(
        "{:<38} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "search", "states", "1 thread", "own", "rayon", "own x", "rayon x"
    );
    for run in RUNS {
        let (mut one, mut own, mut rayon) = (Vec::new(), Vec::new(), Vec::new());
        let mut counts = None;
        for _ in 0..rounds {
            for (pool, n, times) in [
                (WorkerPool::Own, 1, &mut one),
                (WorkerPool::Own, threads, &mut own),
                (WorkerPool::Rayon, threads, &mut rayon),
            ] {
                let (s, states, transitions) = search(run, pool, n);
                assert_eq!(
                    *counts.get_or_insert((states, transitions)),
                    (states, transitions),
                    "a pool changed the search"
                );
                times.push(s);
            }
        }
        let (one, own, rayon) = (median(one), median(own), median(rayon));
        let name = format!("{} --blocks {} ({})", run.0, run.1, run.2);
        println!(
            "{name:<38} {:>9} {:>8.2}s {:>8.2}s {:>8.2}s {:>8.2}x {:>8.2}x",
            counts.map_or(0, |c| c.0),
            one,
            own,
            rayon,
            one / own,
            one / rayon
        );
    }
}

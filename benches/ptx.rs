//! The `ptx` memory model at scale (issue 19's targets), measured as users
//! run it: the default memory model (ptx), the unfair scheduler, one
//! explorer thread, every reduction at its default.
//!
//! 1. States stored under ptx against sc for every built-in spec at 3
//!    blocks, with the median and largest ratio (specs refused under ptx,
//!    the lock unit and lockstep warps, are left out; a run that stops at
//!    a violation stores the states up to it).
//! 2. Families as `gsync-check FAMILY --blocks N` runs them, each in a
//!    fresh process of the release binary: verdicts, states, wall and CPU seconds
//!    and peak RSS of the whole family.
//!
//! 3. Where the ptx states of `priority_semaphore --blocks 3` are: how many
//!    `sc` states they project to, and how many stay distinct when one
//!    kind of ptx word is erased from every state.
//!
//! Run with `cargo bench --bench ptx` (`-- ratios`, `-- families` or
//! `-- where` for one part; `--max-seconds S` per family, default 120).

use gsync_check::api::Semantics;
use gsync_check::api::{self, CheckConfig};
use gsync_check::explore::Limits;
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
        let parts = ["ratios", "families", "where"];
        !args.iter().any(|a| parts.contains(&a.as_str())) || args.iter().any(|a| a == part)
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
    if only("where") {
        where_the_states_are("priority_semaphore", 3);
    }
}

/// Searches `name` at `blocks` as the check does (every reduction) and
/// counts its states with each kind of ptx word erased.
fn where_the_states_are(name: &str, blocks: u32) {
    use gsync_check::explore::{explore, Options};
    use gsync_check::model::memory::WordKind as K;
    use gsync_check::reduce::{Reduced, Reductions};
    use rustc_hash::FxHashSet;
    let spec = api::SpecSource::builtin(name).expect("a built-in spec");
    let config = CheckConfig {
        launch: Launch {
            blocks,
            ..Launch::default()
        },
        ..CheckConfig::default()
    };
    let prepared = api::prepare(&spec, &config).expect("it prepares");
    let model = api::model_of(&prepared);
    let words = gsync_check::explore::TransitionSystem::state_words(&model);
    assert!(
        (0..words).any(|i| model.word_kind(i).is_some()),
        "ptx is the default"
    );
    let (reduced, _) = Reduced::new(&model, Reductions::ALL);
    let all = explore(&reduced, &Options::default());
    let kind = |i: usize| model.word_kind(i);
    type Erase = dyn Fn(Option<K>) -> bool;
    let distinct = |erase: &Erase| {
        let mut seen = FxHashSet::default();
        for id in 0..all.num_states() as u32 {
            let s = all.state(id).iter().enumerate();
            seen.insert(
                s.map(|(i, w)| if erase(kind(i)) { 0 } else { *w })
                    .collect::<Vec<_>>(),
            );
        }
        seen.len()
    };
    println!("\n## Where the ptx states of `{name} --blocks {blocks}` are\n");
    println!("| erased | distinct states left |\n| --- | ---: |");
    const VIEWS: [K; 3] = [K::ThreadView, K::ReleaseView, K::ScView];
    let rows: [(&str, &Erase); 7] = [
        ("nothing", &|_| false),
        ("the SC-fence views", &|k| k == Some(K::ScView)),
        ("the threads' views", &|k| k == Some(K::ThreadView)),
        ("the writes' release views", &|k| k == Some(K::ReleaseView)),
        ("the writers and bases of the writes", &|k| {
            k == Some(K::Writer)
        }),
        ("every view", &|k| k.is_some_and(|k| VIEWS.contains(&k))),
        ("all of the ptx state (the sc projection)", &|k| k.is_some()),
    ];
    for (what, erase) in rows {
        println!("| {what} | {} |", distinct(erase));
    }
}

/// Stored states of `spec` at 3 blocks under `model`, or why not.
fn states(spec: &api::SpecSource, model: MemoryModel) -> Result<(u64, String), String> {
    let config = CheckConfig {
        launch: Launch {
            blocks: 3,
            ..Launch::default()
        },
        semantics: Semantics {
            memory_model: Some(model),
            ..Semantics::default()
        },
        limits: Limits {
            max_seconds: Some(120.0),
            ..CheckConfig::default().limits
        },
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
    println!("| run | verdicts | states | wall s | CPU s | peak RSS MiB |");
    println!("| --- | --- | ---: | ---: | ---: | ---: |");
    for &(family, blocks) in FAMILIES {
        let start = Instant::now();
        let cpu_before = children_cpu_seconds();
        let out = Command::new(bin)
            .args([family, "--blocks", &blocks.to_string()])
            .args(["--threads", "1", "--format", "json", "--stats"])
            .args(["--max-seconds", max_seconds])
            .output()
            .expect("run gsync-check");
        let wall = start.elapsed().as_secs_f64();
        let cpu = children_cpu_seconds() - cpu_before;
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
            "| `{family} --blocks {blocks}` | {verdicts} | {states} | {wall:.1} | {cpu:.1} | {} |",
            rss >> 20
        );
    }
}

/// User and system seconds of the finished child processes: the CPU time
/// a family took, which other load on the machine inflates far less than
/// the wall time.
fn children_cpu_seconds() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

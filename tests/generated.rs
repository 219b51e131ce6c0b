//! Reductions never change a verdict, on programs nobody wrote: small
//! random spin-loop programs (`generated/program.rs`: message passing,
//! store buffering, spin locks, handshakes, counter barriers and random
//! mixes, with every kind of access, scope and fence) are checked under
//! `sc` and `ptx` with every reduction on (the default), with each one
//! switched off in turn ([`reduction_switches`]), and with all of them off
//! (`--no-por --no-symmetry`, no canonical form). Verdicts and violation
//! kinds must agree with the default's, and every counterexample found
//! with reductions on must replay on the real semantics. Some seeds run
//! under the fair schedulers as well, and some with fewer blocks resident
//! than launched.
//!
//! The default run covers 100+ seeds per memory model in seconds. The long
//! run is an ignored test:
//!
//! ```sh
//! cargo test --release --test generated -- --ignored --nocapture
//! GSYNC_GENERATED_SEEDS=50000 cargo test --release --test generated -- --ignored --nocapture
//! GSYNC_GENERATED_SEEDS=1234..1235 cargo test --release --test generated -- --ignored --nocapture
//! ```
//!
//! `GSYNC_GENERATED_SEEDS` is a count (seeds `0..N`, default 10,000), a
//! range `A..B` or a list `A,B,C`. A disagreement names the seed, the memory model, the
//! configurations and their reports, prints the program and writes it to a
//! file, so `gsync-check check FILE` reproduces it.

mod common;
#[path = "generated/program.rs"]
mod program;

use common::verdicts::{kinds, replays};
use gsync_check::api::Search;
use gsync_check::api::Semantics;
use gsync_check::api::{self, CheckConfig, SpecSource};
use gsync_check::explore::Limits;
use gsync_check::ir::Launch;
use gsync_check::model::{MemoryModel, Scheduler};
use gsync_check::report::{Report, Verdict};
use program::{generate, generate_only, Fault, Generated};
use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::time::Instant;

/// A reduction's name and how to switch it off.
type Switch = (&'static str, fn(&mut CheckConfig));

/// The reductions cross-checked: a name and how to switch the reduction
/// off in a [`CheckConfig`] (a switch may turn off several, as `--no-por`
/// does). **A new reduction gets a line here**: each line is compared
/// against the default, and all of them together against the default.
fn reduction_switches() -> Vec<Switch> {
    vec![
        ("--no-symmetry", |c| c.reductions.symmetry = false),
        ("--no-ample-sets", |c| c.reductions.ample_sets = false),
        ("--no-fuse-local", |c| c.semantics.fuse_local_steps = false),
        ("--no-por", |c| {
            c.semantics.fuse_local_steps = false;
            c.reductions.ample_sets = false;
            c.reductions.awaits = false;
        }),
        ("canonical_memory: false", |c| {
            c.semantics.canonical_memory = false
        }),
        ("--no-forget", |c| c.reductions.forget = false),
        ("--no-await", |c| c.reductions.awaits = false),
        ("--no-view-refresh", |c| c.semantics.refresh_views = false),
        ("--no-drop-dead-writes", |c| {
            c.semantics.drop_dead_writes = false
        }),
        ("--no-canonical-fixpoint", |c| {
            c.semantics.canonical_fixpoint = false
        }),
        ("--no-early-deadlock", |c| c.search.early_deadlock = false),
        // Not a reduction (lossless), compared all the same.
        ("--no-tree-compression", |c| {
            c.search.tree_compression = false
        }),
    ]
}

/// The configurations compared with `base` (the default, every reduction
/// on): each reduction off alone, then all of them off.
fn configurations(base: &CheckConfig) -> Vec<(String, CheckConfig)> {
    let switches = reduction_switches();
    let mut all_off = base.clone();
    let mut out = Vec::new();
    for (name, off) in &switches {
        let mut config = base.clone();
        off(&mut config);
        off(&mut all_off);
        out.push((name.to_string(), config));
    }
    let names: Vec<&str> = switches.iter().map(|(n, _)| *n).collect();
    out.push((format!("all off ({})", names.join(", ")), all_off));
    out
}

/// States at which a run stops as inconclusive: a generated program is
/// small, and one that explodes only costs its comparison.
const MAX_STATES: u64 = 50_000;

/// The scheduler of seed `seed`: the deadlock-only check, or where
/// `fair`, weak fairness on even seeds and on odd ones in turn each other
/// progress model, uniform, and the default pair of levels.
fn scheduler_of(seed: u64, fair: bool) -> Scheduler {
    use gsync_check::model::{Levels, Progress};
    const OTHERS: [Progress; 6] = [
        Progress::Strong,
        Progress::Obe,
        Progress::Hsa,
        Progress::HsaObe,
        Progress::Lobe,
        Progress::Unfair,
    ];
    match (fair, seed % 2) {
        (false, _) => Scheduler::Deadlock,
        (true, 0) => Scheduler::uniform(Progress::Fair),
        (true, _) => match (seed / 2) as usize % (OTHERS.len() + 1) {
            i if i < OTHERS.len() => Scheduler::uniform(OTHERS[i]),
            _ => Scheduler::Progress(Levels::DEFAULT_PAIR),
        },
    }
}

/// The configuration with every reduction on for `g` under `model` and
/// `scheduler`. Under `ptx`, races are reported on even seeds and not on
/// odd ones (then the racing loads' values reach the assertions); one
/// seed in eight has one block fewer resident than the launch has.
fn base_config(g: &Generated, model: MemoryModel, scheduler: Scheduler) -> CheckConfig {
    let mut params = Vec::new();
    // Under a fair scheduler, a looping harness runs forever half the time.
    if scheduler != Scheduler::Deadlock && g.endless && g.seed % 4 < 2 {
        params.push(("iters".to_string(), 0));
    }
    CheckConfig {
        launch: Launch {
            blocks: g.blocks,
            threads_per_block: g.threads,
            ..Launch::default()
        },
        params,
        scheduler,
        semantics: Semantics {
            memory_model: Some(model),
            races: model == MemoryModel::Sc || g.seed.is_multiple_of(2),
            resident: (g.seed % 8 == 5 && g.blocks > 1).then_some(g.blocks - 1),
            ..Semantics::default()
        },
        search: Search {
            threads: 1,
            ..Search::default()
        },
        limits: Limits {
            max_states: Some(MAX_STATES),
            ..CheckConfig::default().limits
        },
        ..CheckConfig::default()
    }
}

/// What the seeds of a run came to.
#[derive(Default)]
struct Tally {
    programs: u64,
    /// Programs the checker refused (a spec or usage error), with one
    /// example message.
    refused: u64,
    refusal: Option<String>,
    /// Pairs (default, other) compared, and those skipped because one of
    /// the two was inconclusive.
    compared: u64,
    inconclusive: u64,
    /// Pairs that stopped at violations of different sources, each of
    /// which both configurations find alone ([`resolve_tie`]), and those
    /// where a run of that check was inconclusive.
    ties: u64,
    ties_unresolved: u64,
    /// Counterexamples replayed, and those whose replay could not judge
    /// within the report's limits (a deadlock's way out not found).
    replayed: u64,
    replays_inconclusive: u64,
    /// The default's outcome of each check: `verified`, or a violation kind.
    outcomes: BTreeMap<String, u64>,
    /// States stored by the default and by the all-off run, where both ended.
    states_default: u64,
    states_all_off: u64,
    disagreements: Vec<String>,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.programs += other.programs;
        self.refused += other.refused;
        self.refusal = self.refusal.take().or(other.refusal);
        self.compared += other.compared;
        self.inconclusive += other.inconclusive;
        self.ties += other.ties;
        self.ties_unresolved += other.ties_unresolved;
        self.replayed += other.replayed;
        self.replays_inconclusive += other.replays_inconclusive;
        for (k, n) in other.outcomes {
            *self.outcomes.entry(k).or_default() += n;
        }
        self.states_default += other.states_default;
        self.states_all_off += other.states_all_off;
        self.disagreements.extend(other.disagreements);
    }

    fn summary(&self) -> String {
        let outcomes: Vec<String> = self
            .outcomes
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        format!(
            "{} programs ({} refused), {} comparisons ({} skipped as inconclusive; {} ties of two violations, {} of them unresolved), {} counterexamples replayed ({} more inconclusive); default verdicts: {}; states default/all off {}/{}; {} disagreements",
            self.programs,
            self.refused,
            self.compared,
            self.inconclusive,
            self.ties,
            self.ties_unresolved,
            self.replayed,
            self.replays_inconclusive,
            outcomes.join(", "),
            self.states_default,
            self.states_all_off,
            self.disagreements.len()
        )
    }
}

fn describe(r: &Report) -> String {
    let kinds: Vec<String> = kinds(r).iter().map(|k| k.to_string()).collect();
    format!(
        "{:?} [{}] ({} states)",
        r.verdict,
        kinds.join(", "),
        r.stats.states
    )
}

fn outcome(r: &Report) -> String {
    match r.verdict {
        Verdict::Violated => kinds(r)[0].to_string(),
        v => format!("{v:?}").to_lowercase(),
    }
}

/// The command line that checks the program as `config` does, where the
/// CLI has the options (the canonical form has none).
fn command_line(path: &str, config: &CheckConfig) -> String {
    let mut cmd = format!(
        "gsync-check check {path} --blocks {} --threads-per-block {} --memory-model {} --scheduler {} --max-states {}",
        config.launch.blocks,
        config.launch.threads_per_block,
        config.semantics.memory_model(),
        config.scheduler,
        MAX_STATES
    );
    for (name, value) in &config.params {
        cmd += &format!(" --param {name}={value}");
    }
    if let Some(resident) = config.semantics.resident {
        cmd += &format!(" --resident {resident}");
    }
    let flags = [
        (!config.semantics.races, " --no-races"),
        (!config.reductions.symmetry, " --no-symmetry"),
        (!config.reductions.ample_sets, " --no-ample-sets"),
        (!config.semantics.fuse_local_steps, " --no-fuse-local"),
        (!config.reductions.forget, " --no-forget"),
        (!config.reductions.awaits, " --no-await"),
        (!config.semantics.refresh_views, " --no-view-refresh"),
        (!config.semantics.drop_dead_writes, " --no-drop-dead-writes"),
        (
            !config.semantics.canonical_fixpoint,
            " --no-canonical-fixpoint",
        ),
    ];
    for (on, flag) in flags {
        if on {
            cmd += flag;
        }
    }
    cmd
}

/// Everything needed to reproduce a disagreement: the seed, the model,
/// both configurations and reports, the program (also written to a file).
fn disagreement(
    g: &Generated,
    what: &str,
    (name_a, a, ra): (&str, &CheckConfig, &Report),
    (name_b, b, rb): (&str, &CheckConfig, &Report),
) -> String {
    let path = common::write_temp_spec(&format!("gen_{}", g.seed), &g.text);
    let path = path.display().to_string();
    format!(
        "seed {seed}, memory model {model}, scheduler {sched}, {blocks} blocks × {threads}, races {races}, params {params:?}: {what}\n  \
         {name_a}: {da}\n    {ca}\n  {name_b}: {db}\n    {cb}\n\
         program (shape {shape}, written to {path}):\n{text}\n\
         reproduce: GSYNC_GENERATED_SEEDS={seed}..{next} cargo test --release --test generated -- --ignored --nocapture",
        seed = g.seed,
        next = g.seed + 1,
        model = a.semantics.memory_model(),
        sched = a.scheduler,
        blocks = g.blocks,
        threads = g.threads,
        races = if a.semantics.races { "reported" } else { "not reported" },
        params = a.params,
        da = describe(ra),
        db = describe(rb),
        ca = command_line(&path, a),
        cb = command_line(&path, b),
        shape = g.shape,
        text = g.text,
    )
}

/// A panic while checking `g` (the checker's, or a refusal of a
/// configuration the default accepted), with the program.
fn panicked(
    g: &Generated,
    model: MemoryModel,
    scheduler: Scheduler,
    panic: Box<dyn std::any::Any + Send>,
) -> String {
    let message = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("(no message)");
    let path = common::write_temp_spec(&format!("gen_{}", g.seed), &g.text);
    format!(
        "seed {seed}, memory model {model}, scheduler {scheduler}, {blocks} blocks × {threads}: panicked: {message}\n\
         program (shape {shape}, written to {path}):\n{text}\n\
         reproduce: GSYNC_GENERATED_SEEDS={seed}..{next} cargo test --release --test generated -- --ignored --nocapture",
        seed = g.seed,
        next = g.seed + 1,
        blocks = g.blocks,
        threads = g.threads,
        shape = g.shape,
        path = path.display(),
        text = g.text,
    )
}

fn spec_of(g: &Generated) -> SpecSource {
    SpecSource {
        name: format!("gen_{}", g.seed),
        origin: format!("generated:{}", g.seed),
        text: g.text.clone(),
    }
}

fn check(g: &Generated, config: &CheckConfig, name: &str) -> Report {
    api::check_spec(&spec_of(g), config)
        .unwrap_or_else(|e| panic!("seed {}: {name} refuses the program: {e}", g.seed))
}

/// The run ended within the limits (a deadlock found before a limit is a
/// verdict, but then another violation may lie beyond it).
fn ended(r: &Report) -> bool {
    r.verdict != Verdict::Inconclusive && r.stats.states < MAX_STATES
}

fn agree(a: &Report, b: &Report) -> bool {
    a.verdict == b.verdict && kinds(a) == kinds(b)
}

/// The source of the safety violation `r` stopped at, if it did.
fn first_fault(r: &Report) -> Option<Fault> {
    Fault::of(&r.violations.first()?.property)
}

/// Two runs that stopped at safety violations of different sources may
/// both be right: when a program has several, which one a breadth-first
/// search meets first depends on how steps are counted (`--no-fuse-local`
/// counts every local instruction) and on the order states are expanded
/// in (symmetry stores representatives). Then each source is checked
/// alone, on the program with only its violations live
/// ([`generate_only`]), where the two configurations must agree.
/// `Ok(true)`: a tie; `Ok(false)`: a run of a variant was inconclusive;
/// `Err`: a disagreement.
fn resolve_tie(
    g: &Generated,
    a: (&str, &CheckConfig, &Report),
    b: (&str, &CheckConfig, &Report),
) -> Result<bool, String> {
    let (Some(fa), Some(fb)) = (first_fault(a.2), first_fault(b.2)) else {
        return Err(disagreement(g, "verdicts or violation kinds differ", a, b));
    };
    for fault in [fa, fb] {
        let variant = generate_only(g.seed, fault);
        let only = |c: &CheckConfig| {
            let mut c = c.clone();
            c.semantics.races =
                c.semantics.memory_model() == MemoryModel::Sc || fault == Fault::Race;
            c
        };
        let (ca, cb) = (only(a.1), only(b.1));
        let (ra, rb) = (check(&variant, &ca, a.0), check(&variant, &cb, b.0));
        if !ended(&ra) || !ended(&rb) {
            return Ok(false);
        }
        // Both stopped at a race: a heterogeneous race and a data race may
        // be a tie of their own.
        let races = first_fault(&ra) == Some(Fault::Race) && first_fault(&rb) == Some(Fault::Race);
        if !agree(&ra, &rb) && !races {
            let what = format!(
                "verdicts or violation kinds differ on the program with only its {fault:?} violations live (with all of them, {} and {})",
                describe(a.2),
                describe(b.2)
            );
            return Err(disagreement(
                &variant,
                &what,
                (a.0, &ca, &ra),
                (b.0, &cb, &rb),
            ));
        }
    }
    Ok(true)
}

/// Checks program `g` under every configuration and compares each with
/// the default; replays every counterexample found with reductions on.
fn cross_check(g: &Generated, model: MemoryModel, scheduler: Scheduler, tally: &mut Tally) {
    tally.programs += 1;
    let base = base_config(g, model, scheduler);
    let default = match api::check_spec(&spec_of(g), &base) {
        Ok(report) => report,
        Err(e) => {
            tally.refused += 1;
            tally
                .refusal
                .get_or_insert_with(|| format!("seed {}: {e}\n{}", g.seed, g.text));
            return;
        }
    };
    let default_name = "default (every reduction on)";
    *tally.outcomes.entry(outcome(&default)).or_default() += 1;
    let replay = |config: &CheckConfig, report: &Report, tally: &mut Tally| {
        // Saved choices assume the canonical form (`Semantics::canonical_memory`).
        if !config.semantics.canonical_memory && model == MemoryModel::Ptx {
            return;
        }
        match replays(&spec_of(g), report) {
            Ok(inconclusive) => {
                let n = report.violations.len() as u64;
                tally.replayed += n - inconclusive as u64;
                tally.replays_inconclusive += inconclusive as u64;
            }
            Err(e) => {
                let d = (default_name, &base, &default);
                let it = ("this run", config, report);
                let message = format!("a counterexample does not replay: {e}");
                tally.disagreements.push(disagreement(g, &message, d, it));
            }
        }
    };
    replay(&base, &default, tally);
    for (name, config) in configurations(&base) {
        let report = check(g, &config, &name);
        replay(&config, &report, tally);
        if !ended(&default) || !ended(&report) {
            tally.inconclusive += 1;
            continue;
        }
        tally.compared += 1;
        if name.starts_with("all off") {
            tally.states_default += default.stats.states;
            tally.states_all_off += report.stats.states;
            if std::env::var_os("GSYNC_GENERATED_VERBOSE").is_some() {
                println!(
                    "seed {} {model} {scheduler} {} {}×{}: {} / all off {}",
                    g.seed,
                    g.shape,
                    g.blocks,
                    g.threads,
                    describe(&default),
                    describe(&report)
                );
            }
        }
        if agree(&default, &report) {
            continue;
        }
        let d = (default_name, &base, &default);
        let it = (name.as_str(), &config, &report);
        match resolve_tie(g, d, it) {
            Ok(true) => tally.ties += 1,
            Ok(false) => tally.ties_unresolved += 1,
            Err(message) => tally.disagreements.push(message),
        }
    }
}

/// The seeds of the long run: `GSYNC_GENERATED_SEEDS` (a count `N`, a
/// range `A..B` or a list `A,B,C`), else `0..default`.
fn seeds_from_env(default: u64) -> Vec<u64> {
    let Ok(text) = std::env::var("GSYNC_GENERATED_SEEDS") else {
        return (0..default).collect();
    };
    let parse = |s: &str| -> u64 {
        s.trim()
            .parse()
            .unwrap_or_else(|_| panic!("GSYNC_GENERATED_SEEDS: `{text}` is not N, A..B or A,B,C"))
    };
    match text.split_once("..") {
        Some((a, b)) => (parse(a)..parse(b)).collect(),
        None if text.contains(',') => text.split(',').map(parse).collect(),
        None => (0..parse(&text)).collect(),
    }
}

/// Cross-checks the programs of `seeds` under each of `models`, on
/// `workers` threads, and prints a summary.
fn run_seeds(
    what: &str,
    seeds: &[u64],
    models: &[MemoryModel],
    fair: bool,
    workers: usize,
) -> Tally {
    let started = Instant::now();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let tally = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut tally = Tally::default();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&seed) = seeds.get(i) else {
                            return tally;
                        };
                        let g = generate(seed);
                        let scheduler = scheduler_of(seed, fair);
                        for &model in models {
                            let check = || cross_check(&g, model, scheduler, &mut tally);
                            if let Err(panic) = std::panic::catch_unwind(AssertUnwindSafe(check)) {
                                tally
                                    .disagreements
                                    .push(panicked(&g, model, scheduler, panic));
                            }
                        }
                    }
                })
            })
            .collect();
        let mut tally = Tally::default();
        for h in handles {
            tally.add(h.join().expect("a worker panicked"));
        }
        tally
    });
    let range = match (seeds.first(), seeds.last()) {
        (Some(a), Some(b)) => format!("{} seeds ({a}..={b})", seeds.len()),
        _ => "no seeds".to_string(),
    };
    println!(
        "{what}: {range} under {models:?}: {} in {:.1} s",
        tally.summary(),
        started.elapsed().as_secs_f64()
    );
    tally
}

/// Fails on any disagreement (listing them all, the first in full) and
/// where more than one program in ten was refused.
fn assert_agreed(tally: &Tally) {
    if let Some(refusal) = &tally.refusal {
        println!("first refused program: {refusal}");
    }
    // Programs the checker refuses are skipped, but they must stay rare.
    assert!(
        tally.refused * 10 < tally.programs.max(1),
        "{} of {} generated programs refused; first: {}",
        tally.refused,
        tally.programs,
        tally.refusal.as_deref().unwrap_or("")
    );
    let Some(first) = tally.disagreements.first() else {
        return;
    };
    for d in &tally.disagreements {
        let head: Vec<&str> = d
            .lines()
            .take_while(|l| !l.starts_with("program"))
            .collect();
        println!("disagreement: {}", head.join("\n"));
    }
    panic!(
        "{} disagreements (listed above); the first:\n{first}",
        tally.disagreements.len()
    );
}

/// Asserts that the run compared enough to mean something: most pairs
/// ended, and the default found both correct and broken programs.
fn assert_meaningful(tally: &Tally) {
    assert!(
        tally.inconclusive * 4 < tally.compared + tally.inconclusive,
        "{}",
        tally.summary()
    );
    assert!(
        tally.outcomes.get("verified").copied().unwrap_or(0) * 10 > tally.programs,
        "{}",
        tally.summary()
    );
    assert!(
        tally.outcomes.len() >= 3 && tally.replayed > 0,
        "{}",
        tally.summary()
    );
}

/// Seeds of the default run, per memory model (each test runs on one
/// thread; the harness runs the tests side by side).
const SEEDS: u64 = 200;

#[test]
fn reductions_keep_the_verdicts_of_generated_programs_under_sc() {
    let seeds: Vec<u64> = (0..SEEDS).collect();
    let tally = run_seeds("sc", &seeds, &[MemoryModel::Sc], false, 1);
    assert_agreed(&tally);
    assert_meaningful(&tally);
}

/// Seeds past the default range whose programs once disagreed, kept in
/// the default run: 764 and 2913 (a block-scope release of another block
/// continued by an atomic reached the atomic's own block when its writer
/// was remembered, and nobody when it was forgotten), 606 (with writers
/// forgotten, the renaming tracked along a symmetric path named the wrong
/// block, so the counterexample did not replay).
const REGRESSIONS: [u64; 3] = [606, 764, 2913];

#[test]
fn reductions_keep_the_verdicts_of_generated_programs_under_ptx() {
    let seeds: Vec<u64> = (0..SEEDS).chain(REGRESSIONS).collect();
    let tally = run_seeds("ptx", &seeds, &[MemoryModel::Ptx], false, 1);
    assert_agreed(&tally);
    assert_meaningful(&tally);
}

/// Under the progress models (fair on even seeds; strong, OBE, HSA, HSA+OBE,
/// LOBE, unfair and the default pair in turn on odd ones), where liveness
/// is checked too.
#[test]
fn reductions_keep_the_verdicts_of_generated_programs_under_fair_schedulers() {
    let seeds: Vec<u64> = (0..SEEDS / 4).collect();
    let models = [MemoryModel::Sc, MemoryModel::Ptx];
    let tally = run_seeds("fair", &seeds, &models, true, 1);
    assert_agreed(&tally);
    assert_meaningful(&tally);
}

/// The long run: 10,000 seeds (or `GSYNC_GENERATED_SEEDS`) under `sc` and
/// `ptx`, and every tenth of them under the fair schedulers as well, on
/// every core. See the module's documentation.
#[test]
#[ignore = "long: 10,000 seeds (GSYNC_GENERATED_SEEDS=N, A..B or A,B,C)"]
fn reductions_keep_the_verdicts_of_many_generated_programs() {
    let seeds = seeds_from_env(10_000);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let models = [MemoryModel::Sc, MemoryModel::Ptx];
    let mut tally = run_seeds("deadlock", &seeds, &models, false, workers);
    let fair: Vec<u64> = seeds.iter().copied().step_by(10).collect();
    tally.add(run_seeds("fair", &fair, &models, true, workers));
    assert_agreed(&tally);
}

/// The generator is deterministic and writes every construct it promises.
#[test]
fn the_generator_covers_the_language() {
    assert_eq!(generate(7).text, generate(7).text);
    assert_ne!(generate(7).text, generate(8).text);
    let all: String = (0..300).map(|s| generate(s).text).collect();
    for construct in [
        "atomicCAS",
        "atomicExch",
        "atomicAdd",
        "atomicOr",
        "atomicAnd",
        "atomicInc",
        "_block(",
        "_system(",
        ".acquire",
        ".release",
        ".acq_rel",
        "global volatile",
        "load.volatile(",
        "store.volatile(",
        "__threadfence();",
        "__threadfence_block();",
        "fence.acq_rel.gpu();",
        "while (atomicCAS(",
        "backoff();",
        "critical {",
        "check mutual_exclusion;",
        "check capacity(1);",
        "check barrier;",
        "phase {",
        "assert(",
        "progress;",
        "if (blockIdx == 0)",
        "else if (blockIdx == 1)",
        "[blockIdx]",
        "param iters",
        "iters == 0 || i < iters",
    ] {
        assert!(
            all.contains(construct),
            "no generated program has `{construct}`"
        );
    }
    let shapes: std::collections::BTreeSet<&str> = (0..300).map(|s| generate(s).shape).collect();
    assert_eq!(shapes.len(), 6, "{shapes:?}");
}

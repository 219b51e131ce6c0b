//! Distributed exploration on timely-dataflow (feature `dist`): the states
//! are partitioned by hash over the workers of every process, each BFS
//! level is expanded by the owners of its states and their successors
//! sent to theirs (`search`), the deadlock analysis runs on the
//! partitioned graph (`backward`), and a counterexample is rebuilt from
//! parents held by their owners. Verdicts, state counts and
//! counterexamples are those of the single-process explorer with the same
//! reductions, ample sets included: the proviso's passes (`proviso`) find
//! the states the sequential explorer expands fully, by their sequential
//! ids, on the partitioned graph.
//!
//! Process 0 builds the report; the others return only the exit code.
//!
//! **Liveness.** Under a progress model the search runs with the
//! reductions the sequential check uses there (no symmetry, ample sets or
//! awaits: the per-thread analyses read every thread's steps). Its graph
//! is labelled where it lies (the search takes each step once for its
//! target and its label, as `check::graph` does, and sends the label with
//! the target, whose owner keeps the edge in; `labels` sends each edge
//! back to its source's owner, so each edge is kept at both ends with its
//! label: the thread, whether it progressed, its memory effect),
//! and `liveness` decides what `check::analyse` decides, in its order:
//! deadlock with labels (which states can finish, and per thread which can
//! still progress, by backward propagation), then livelock, then the
//! starvation of each thread. Fair cycles are searched as in
//! `check::liveness`, its worklist run on all its items at once: strongly
//! connected components by colouring (`colour`: Orzan's greatest-id
//! propagation forward, then backward reachability within each colour from
//! its root), each judged by the sequential judge from sums over its
//! states and edges, and the components it prunes (strong fairness) or
//! restricts (memory fairness) searched again as new items. The fair
//! component with the smallest state is the sequential choice; only it is
//! gathered, on process 0, which builds the sequential lasso from it (the
//! stem by parents). Launches of more than 64 threads (the labels' bit
//! sets) are refused before the run starts, and `verify` and families
//! check them on process 0 alone and say so: never a wrong verdict.

mod backward;
mod colour;
mod connect;
mod interned;
mod labels;
mod liveness;
mod memory;
mod partition;
mod preds;
mod proviso;
mod quarter;
mod rounds;
mod search;
mod slots;
mod succs;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};
use timely::communication::Hooks;

use crate::api::{model_of, report_of, Error, Prepared};
use crate::check::{
    concretize_findings, explain_deadlock, CheckResult, Checkable, DistributedRun, Finding, Judge,
    SearchNote,
};
use crate::explore::{explore, Options, Stats, TransitionSystem};
use crate::model::ViolationKind;
use crate::reduce::{Reduced, Reductions};
use crate::report::Report;
use backward::Stuck;
use liveness::Live;
use search::{Edges, Ending, Searched};

/// Exit code of a distributed run that ended without a verdict (a process
/// died, a host could not be reached).
pub(crate) const EXIT_FAILED: i32 = 4;

/// Where this process stands among the processes of a run.
#[derive(Clone, Debug)]
pub(crate) struct Cluster {
    pub processes: usize,
    pub process: usize,
    /// One `host:port` a line, process 0 first (timely's `-h` file);
    /// without it, `localhost:2101` and up.
    pub hostfile: Option<PathBuf>,
    /// Worker threads of this process.
    pub workers: usize,
    /// How long to wait for every process to connect.
    pub connect_timeout: Duration,
}

/// What a process of a distributed run returns.
pub(crate) enum Outcome {
    /// Process 0: the report.
    Report(Box<Report>),
    /// Another process: the run's exit code.
    Peer(i32),
    /// Every process: only the single-process explorer answers this spec
    /// (its labelled graph decides the deadlock); the error to give.
    OneProcess(Error),
}

/// What worker 0 of every process brings back.
struct Found {
    searched: Searched,
    stuck: Stuck,
    /// Where the search left steps out and found a violation: the search
    /// again without those reductions, as the sequential check retraces
    /// (`check::shortest`), where it fits its budget and finds one.
    retraced: Option<(Searched, Stuck)>,
    /// Under a progress model, or where the deadlock needed labels, what
    /// the analyses of the labelled graph found.
    live: Option<Live>,
    /// The search reported is the full graph's, searched again for labels
    /// (with the reductions of `Reductions::per_thread`).
    again: bool,
    /// Peak resident bytes of each process.
    rss: Vec<u64>,
    seconds: f64,
}

/// Checks a prepared spec on this process's workers of `cluster`.
pub(crate) fn check(prepared: Prepared, cluster: &Cluster) -> Result<Outcome, Error> {
    refuse(&prepared)?;
    let config = timely::Config::from_args(timely_args(cluster).into_iter()).map_err(failed)?;
    let (builders, guard) = communication(config.communication, cluster)?;
    let prepared = Arc::new(prepared);
    on_lost_process();
    let shared = Arc::clone(&prepared);
    let place = (cluster.process, cluster.workers);
    let guards = timely::execute::execute_from(builders, guard, config.worker, move |worker| {
        run_worker(&shared, worker, place)
    });
    let guards = guards.map_err(failed)?;
    let found = guards
        .join()
        .into_iter()
        .map(|r| r.map_err(|e| failed(format!("a worker failed: {e}"))))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
        .next()
        .expect("worker 0 of every process reports");
    if let Stuck::NeedsLabels(why) = found.stuck {
        return Ok(Outcome::OneProcess(needs_one_process(why)));
    }
    let model = model_of(&prepared);
    let (reduced, _) = Reduced::new(&model, reductions(&prepared));
    let result = result_of((&model, &reduced, reductions(&prepared)), &found, cluster);
    let report = report_of(&prepared, &model, &result, found.seconds);
    Ok(match cluster.process {
        0 => Outcome::Report(Box::new(report)),
        _ => Outcome::Peer(report.verdict.exit_code()),
    })
}

/// What the distributed explorer cannot answer: refused before it starts.
pub(crate) fn refuse(prepared: &Prepared) -> Result<(), Error> {
    let config = &prepared.config;
    let threads = model_of(prepared).threads.count();
    if config.scheduler.checks_liveness() && threads > liveness::MAX_THREADS {
        return Err(Error::Usage(format!(
            "--scheduler {}: the distributed liveness analyses hold at most {} threads, this launch has {threads}; run it with one process (without --processes or --local-processes)",
            config.scheduler,
            liveness::MAX_THREADS
        )));
    }
    if config.search.hash_compaction {
        return Err(Error::Usage(
            "--hash-compaction: the distributed explorer keeps each process's states exactly; leave it out, or run with one process".into(),
        ));
    }
    Ok(())
}

fn needs_one_process(why: &str) -> Error {
    Error::Usage(format!(
        "{why}: whether that is a deadlock is decided on the labelled state graph, which only the single-process explorer builds; run it with one process (without --processes or --local-processes)"
    ))
}

/// The reductions of a distributed search: those asked, or under a
/// progress model those the sequential check searches with (the per-thread
/// analyses read every thread's steps).
fn reductions(prepared: &Prepared) -> Reductions {
    let asked = prepared.config.reductions;
    match prepared.config.scheduler.checks_liveness() {
        true => asked.per_thread(),
        false => asked,
    }
}

/// timely's own arguments for this process.
fn timely_args(cluster: &Cluster) -> Vec<String> {
    let mut args = vec![
        "gsync-check".to_string(),
        "-w".into(),
        cluster.workers.to_string(),
        "-n".into(),
        cluster.processes.to_string(),
        "-p".into(),
        cluster.process.to_string(),
    ];
    if let Some(h) = &cluster.hostfile {
        args.extend(["-h".to_string(), h.display().to_string()]);
    }
    args
}

/// Empty buffers (1 MiB each, or the largest record's size) each of
/// timely's connections keeps for reuse.
const RETAINED_BUFFERS: usize = 4;

/// timely's communication for this process: within one process its own
/// allocators; across processes over streams connected by `connect`
/// (timely's start-up pauses a second at a time), ending the process with
/// a clear error when they have not all connected within the timeout.
fn communication(
    config: timely::CommunicationConfig,
    cluster: &Cluster,
) -> Result<(Vec<AllocatorBuilder>, Box<dyn std::any::Any + Send>), Error> {
    let timely::CommunicationConfig::Cluster {
        threads,
        process,
        addresses,
        ..
    } = config
    else {
        return config.try_build().map_err(failed);
    };
    let sockets = match connect::sockets(&addresses, process, cluster.connect_timeout) {
        Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
            let hosts = cluster
                .hostfile
                .as_ref()
                .map_or("localhost:2101 and up".into(), |h| h.display().to_string());
            eprintln!(
                "error: distributed run: the {} processes did not all connect within {:.0} s (addresses: {hosts}); no verdict",
                cluster.processes,
                cluster.connect_timeout.as_secs_f64()
            );
            std::process::exit(EXIT_FAILED);
        }
        other => other.map_err(failed)?,
    };
    let mut hooks = Hooks::default();
    // Timely keeps every buffer a connection ever filled for reuse, by
    // default: a burst of records left them holding it for the rest of
    // the run (#43: about 100 MiB a process at 2 × 1 after the first
    // colouring). A few are kept; the others are freed.
    hooks.refill.limit = Some(RETAINED_BUFFERS);
    let local =
        ProcessBuilder::new_typed_vector(threads, hooks.refill.clone(), hooks.spill.clone());
    let (builders, guard) =
        initialize_networking_from_sockets(local, sockets, process, threads, hooks)
            .map_err(failed)?;
    let builders = builders.into_iter().map(AllocatorBuilder::Tcp).collect();
    Ok((builders, Box::new(guard)))
}

/// An error of timely's set-up, as the user sees it.
fn failed(e: impl std::fmt::Display) -> Error {
    Error::Usage(format!("distributed run: {e}"))
}

/// A process that dies breaks its connections: timely's communication
/// threads panic on the others. End the process there with a clear error,
/// never a verdict.
fn on_lost_process() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info.to_string();
        if msg.contains("timely communication error") || msg.contains("Clean shutdown") {
            eprintln!(
                "error: distributed run: lost the connection to another process ({msg}); no verdict"
            );
            std::process::exit(EXIT_FAILED);
        }
        default(info);
    }));
}

/// One worker: search its partition, then the deadlock analysis, and the
/// retrace of a violation found with steps left out.
fn run_worker(
    prepared: &Prepared,
    worker: &mut timely::worker::Worker,
    (process, workers): (usize, usize),
) -> Option<Found> {
    let model = model_of(prepared);
    let (reduced, _) = Reduced::new(&model, reductions(prepared));
    let opts = prepared.config.explore_options();
    let mut rounds = rounds::Rounds::new(worker, workers);
    // The clock starts once every worker is there: timely starts a
    // process's workers as soon as its own connections are made, a second
    // before the last process's at times (its wait for connections sleeps
    // a second), which the first round's wait counted.
    rounds.gather(Vec::new());
    let timed = waits_wanted();
    // What a round costs among these workers with nothing to do.
    let empty_round = timed.then(|| {
        let start = Instant::now();
        for _ in 0..EMPTY_ROUNDS {
            rounds.gather(Vec::new());
        }
        start.elapsed() / EMPTY_ROUNDS
    });
    let before = rounds.waits();
    let started = Instant::now();
    let (full, _) = Reduced::new(&model, reductions(prepared).per_thread());
    let mut again = false;
    let (searched, stuck, live) = match prepared.config.scheduler.levels() {
        None => match search_and_analyse(&reduced, &mut rounds, &opts) {
            // As the sequential check: the full graph searched again, and
            // its deadlock decided with labels.
            (_, Stuck::NeedsLabels(_)) if labels_fit(&full) => {
                again = true;
                search_live(&full, None, &mut rounds, &opts)
            }
            (searched, stuck) => (searched, stuck, None),
        },
        Some(levels) => {
            let judge = Judge {
                model: &reduced,
                levels,
                memory_fairness: true,
            };
            search_live(&reduced, Some(&judge), &mut rounds, &opts)
        }
    };
    let violated = violated(&searched, &stuck);
    let retraced = match violated && reduced.leaves_steps_out() && !again {
        true => retrace(&model, &reduced, &mut rounds, (&opts, searched.states)),
        false => None,
    };
    let rss = crate::explore::peak_rss_bytes().unwrap_or(0);
    let rss = rounds.gather(vec![process as u64, rss]);
    let mut per_process = vec![0; rss.iter().map(|v| v[0] as usize + 1).max().unwrap_or(1)];
    for v in &rss {
        per_process[v[0] as usize] = per_process[v[0] as usize].max(v[1]);
    }
    let seconds = started.elapsed().as_secs_f64();
    if let Some(empty_round) = empty_round {
        // Where a worker's time goes (#43): rounds, the time spent idle at
        // their ends, and in the search, its steps and its exchanges.
        let (n, waited, _) = rounds.waits();
        let s = &searched.spent;
        // The slowest worker's steps before each exchange, summed: what
        // the others wait for beyond the rounds' own cost.
        let steps = rounds.gather(s.steps.clone());
        let slowest: u64 = (0..s.steps.len())
            .map(|r| {
                steps
                    .iter()
                    .filter_map(|v| v.get(r))
                    .max()
                    .copied()
                    .unwrap_or(0)
            })
            .sum();
        let line = format!(
            "worker {}: {} rounds, waited {:.3} s of {seconds:.3} s; search {:.3} s: {} rounds, \
             expand {:.3} s (the slowest worker's, exchange by exchange, {:.3} s), \
             exchanges {:.3} s (idle {:.3} s, keeping what came {:.3} s); \
             deadlock analysis {:.3} s; an empty round {:.1} us\n",
            rounds.index(),
            n - before.0,
            (waited - before.1).as_secs_f64(),
            s.search.as_secs_f64(),
            s.rounds,
            s.expand.as_secs_f64(),
            slowest as f64 / 1e6,
            s.exchange.as_secs_f64(),
            s.waited.as_secs_f64(),
            s.handled.as_secs_f64(),
            s.analysis.as_secs_f64(),
            empty_round.as_secs_f64() * 1e6,
        );
        // One write, so that the lines of the processes do not interleave.
        let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
    }
    // Every worker knows the outcome: the first of each process brings it.
    let first = rounds.index().is_multiple_of(workers);
    first.then_some(Found {
        searched,
        stuck,
        retraced,
        live,
        again,
        rss: per_process,
        seconds,
    })
}

/// An empty partition of one of `peers` workers for the states of `sys`,
/// stored as the single explorer stores them (write histories interned
/// unless `--no-tree-compression`).
fn partition_for(sys: &Reduced, opts: &Options, peers: usize) -> partition::Partition {
    let parts = match opts.no_tree_compression {
        false => sys.state_parts(),
        true => Vec::new(),
    };
    partition::Partition::new(sys.state_words(), parts, peers)
}

/// Rounds with nothing to do that `GSYNC_DIST_WAITS` times before the
/// search.
const EMPTY_ROUNDS: u32 = 200;

/// Whether `GSYNC_DIST_WAITS` asks where the workers' time goes (#43):
/// the search's and the liveness analyses' rounds, waits and phases.
fn waits_wanted() -> bool {
    std::env::var_os("GSYNC_DIST_WAITS").is_some()
}

/// A search of `sys` on a partition of its own, and its deadlock analysis
/// when complete.
fn search_and_analyse(
    sys: &Reduced,
    rounds: &mut rounds::Rounds<'_>,
    opts: &Options,
) -> (Searched, Stuck) {
    let memory = memory::Memory::new(rounds);
    memory.end("setup", &[]);
    let mut part = partition_for(sys, opts, rounds.peers());
    let mut searched = search::search(sys, rounds, &mut part, opts, Edges::Sources);
    memory.end("search", &part.held());
    let analysis = std::time::Instant::now();
    let stuck = match searched.ending {
        Ending::Complete => backward::find(sys, rounds, &mut part),
        _ => Stuck::None,
    };
    searched.spent.analysis = analysis.elapsed();
    memory.end("deadlock", &part.held());
    (searched, stuck)
}

/// A search of `sys` on a partition of its own that labels its edges, and
/// its deadlock analysis with labels when complete, then under `judge`'s
/// progress models its liveness analyses.
fn search_live(
    sys: &Reduced,
    judge: Option<&Judge<'_, Reduced>>,
    rounds: &mut rounds::Rounds<'_>,
    opts: &Options,
) -> (Searched, Stuck, Option<Live>) {
    let mut part = partition_for(sys, opts, rounds.peers());
    let mut searched = search::search(sys, rounds, &mut part, opts, Edges::Labelled);
    let live = match searched.ending {
        Ending::Complete => match liveness::analyse(sys, judge, rounds, &mut part, opts) {
            Ok(live) => Some(live),
            // As the sequential check: the analyses' limit ends the run.
            Err(kind) => {
                searched.ending = Ending::Limit(kind);
                None
            }
        },
        _ => None,
    };
    (searched, Stuck::None, live)
}

/// Whether a search and its analysis found a violation.
fn violated(searched: &Searched, stuck: &Stuck) -> bool {
    matches!(searched.ending, Ending::Fault { .. } | Ending::Stuck { .. })
        || matches!(stuck, Stuck::At(_))
}

/// Whether the labels' bit sets hold the threads of `sys`.
fn labels_fit(sys: &Reduced) -> bool {
    sys.thread_count() <= liveness::MAX_THREADS
}

/// The search again without the reductions that leave steps out, within
/// the sequential retrace's budget (`states`: the first search's); its
/// outcome where it found a violation.
fn retrace(
    model: &crate::model::Model,
    searched: &Reduced,
    rounds: &mut rounds::Rounds<'_>,
    (opts, states): (&Options, u64),
) -> Option<(Searched, Stuck)> {
    let wanted = crate::check::retrace_reductions(searched);
    let (full, _) = Reduced::new(model, wanted);
    if full.symmetry().is_some() != wanted.symmetry {
        return None;
    }
    let opts = Options {
        max_states: Some(crate::check::retrace_max_states(states, opts)),
        ..opts.clone()
    };
    let (again, stuck) = search_and_analyse(&full, rounds, &opts);
    violated(&again, &stuck).then_some((again, stuck))
}

/// The check result of a distributed search, with its finding rebuilt
/// (from the retrace where there is one).
fn result_of(
    (model, reduced, asked): (&crate::model::Model, &Reduced, Reductions),
    found: &Found,
    cluster: &Cluster,
) -> CheckResult {
    let s = &found.searched;
    let full;
    let (sys, (at, stuck)) = match &found.retraced {
        Some(again) => {
            (full, _) = Reduced::new(model, crate::check::retrace_reductions(reduced));
            (&full, (&again.0, &again.1))
        }
        None if found.again => {
            (full, _) = Reduced::new(model, asked.per_thread());
            (&full, (s, &found.stuck))
        }
        None => (reduced, (s, &found.stuck)),
    };
    let mut findings: Vec<Finding> = match (&at.ending, stuck, &found.live) {
        (Ending::Fault { path, step }, _, _) => vec![fault_finding(sys, path, *step)],
        (Ending::Complete, Stuck::At(path), _) => {
            vec![deadlock_finding(sys, path, &at.full, None)]
        }
        (Ending::Stuck { path, no_finals }, _, _) => {
            // As the sequential check explains a deadlock decided on the
            // fly: where no state seen was final, the first unfinished
            // thread is the one that never progresses.
            let state = replay(sys, path);
            let thread = no_finals
                .then(|| (0..sys.thread_count()).find(|&t| !sys.is_finished(&state, t)))
                .flatten();
            vec![deadlock_finding(sys, path, &at.full, thread)]
        }
        (_, _, Some(Live::Deadlock { path, thread })) => {
            vec![deadlock_finding(sys, path, &at.full, *thread)]
        }
        (_, _, Some(Live::Cycle(Some(finding)))) => vec![(**finding).clone()],
        // Another process: only the verdict counts (process 0 reports).
        (_, _, Some(Live::Cycle(None))) => vec![Finding {
            kind: ViolationKind::Livelock,
            property: "livelock",
            message: String::new(),
            waiting: Vec::new(),
            schedule: Vec::new(),
            cycle: Vec::new(),
        }],
        _ => Vec::new(),
    };
    concretize_findings(
        sys,
        matches!(at.ending, Ending::Fault { .. }),
        &mut findings,
    );
    let limit = match s.ending {
        Ending::Limit(kind) => Some(kind),
        _ => None,
    };
    CheckResult {
        fault: matches!(s.ending, Ending::Fault { .. }),
        findings,
        limit,
        stats: Stats {
            states: s.states,
            transitions: s.transitions,
            max_depth: s.max_depth,
            ample_reduced: s.reduced,
            seconds: found.seconds,
            peak_bytes: s.bytes,
            peak_rss_bytes: found.rss.iter().copied().max(),
            ..Stats::default()
        },
        reductions: Some(Box::new(SearchNote::Distributed(DistributedRun {
            processes: cluster.processes,
            workers: cluster.workers,
            states_per_worker: found.searched.per_worker.clone(),
            peak_rss_bytes_per_process: found.rss.clone(),
        }))),
    }
}

/// The state the actions `path` lead to from the initial state.
fn replay(sys: &Reduced, path: &[u32]) -> Vec<u32> {
    let mut s = vec![0u32; sys.state_words()];
    sys.initial_state(&mut s);
    sys.canonicalize(&mut s);
    let mut next = s.clone();
    for &a in path {
        next.copy_from_slice(&s);
        sys.step_from_copy(&s, a, &mut next)
            .expect("a step on the path to a fault succeeds");
        sys.canonicalize(&mut next);
        std::mem::swap(&mut s, &mut next);
    }
    s
}

/// The finding of a fault at the end of `path` (its last step failed, or
/// the state it reaches breaks an invariant).
fn fault_finding(sys: &Reduced, path: &[u32], step: bool) -> Finding {
    let (prefix, last) = match step {
        true => path.split_at(path.len() - 1),
        false => (path, &[][..]),
    };
    let s = replay(sys, prefix);
    let fault = match last {
        [a] => {
            let mut next = s.clone();
            sys.step_from_copy(&s, *a, &mut next).err()
        }
        _ => sys.check_state(&s).err(),
    }
    .expect("the fault happens again");
    let mut finding = Finding {
        kind: fault.kind,
        property: fault.property,
        message: fault.message,
        waiting: Vec::new(),
        schedule: path.to_vec(),
        cycle: Vec::new(),
    };
    sys.refine_fault(&mut finding);
    finding
}

/// The finding of the first state that cannot finish, at the end of
/// `path`: where its threads end up is searched from it on this process
/// (every state reachable from it cannot finish either), in the reduced
/// graph of the search (`full`: the states its proviso expanded fully);
/// `thread`: the one that can never progress there, where the harness
/// never finishes (every state reachable from it keeps it so).
fn deadlock_finding(
    sys: &Reduced,
    path: &[u32],
    full: &[Vec<u32>],
    thread: Option<usize>,
) -> Finding {
    let stuck = replay(sys, path);
    let rooted = crate::explore::Rooted::reduced(sys, stuck, full);
    let opts = Options {
        keep_edges: true,
        ..Options::default()
    };
    let sub = explore(&rooted, &opts);
    let mut finding = explain_deadlock(sys, &sub, 0, &|_| true, thread);
    let mut schedule = path.to_vec();
    schedule.append(&mut finding.schedule);
    finding.schedule = schedule;
    finding
}

//! Memory fairness in the liveness check: the stale-read lassos of `ptx`
//! go away, the real livelocks stay.

use super::graph::LabeledGraph;
use super::liveness;
use super::{Finding, Settings};
use crate::api::Semantics;
use crate::diag::Source;
use crate::explore::{explore, Options, Outcome, TransitionSystem};
use crate::ir::Launch;
use crate::model::memory::Recency;
use crate::model::{
    thread_of, Levels, MemoryModel, Model, ModelOptions, Progress, Scheduler, ViolationKind,
};
use crate::reduce::{Reduced, Reductions};
use crate::spec::lower;

const TWO_BLOCKS: Launch = Launch {
    blocks: 2,
    threads_per_block: 1,
    warp_size: 32,
};

/// The liveness finding of `text` (with `overrides` of its parameters)
/// under weak fairness and `model`, with memory fairness on or off. With
/// it on, the lasso of a finding is checked to be memory fair; returned
/// with how many older reads its cycle has.
fn liveness_finding(
    text: &str,
    overrides: &[(String, i64)],
    options: ModelOptions,
    memory_fairness: bool,
) -> Option<(Finding, usize)> {
    let source = Source::new("t.gsync", text);
    let file = crate::spec::parse(&source).unwrap_or_else(|d| panic!("parse: {}", d.message));
    let prog = lower(&file, &source, TWO_BLOCKS, overrides)
        .unwrap_or_else(|d| panic!("lower: {}", d.message));
    let m = Model::new(&prog, options);
    let opts = Options {
        keep_edges: true,
        ..Options::default()
    };
    let e = explore(&m, &opts);
    assert!(
        matches!(e.outcome(), Outcome::Complete),
        "{:?}",
        e.outcome()
    );
    let sys = Reduced::none(&m);
    let graph = LabeledGraph::build(&sys, &e, &opts).expect("no limits");
    let found = liveness::find_with(
        &sys,
        &e,
        &graph,
        (Levels::uniform(Progress::Fair), &opts),
        memory_fairness,
    )
    .expect("no limits")?;
    let older = match memory_fairness {
        true => assert_memory_fair(&m, &found),
        false => 0,
    };
    Some((found, older))
}

fn liveness(text: &str, model: MemoryModel, memory_fairness: bool) -> Option<ViolationKind> {
    let options = ModelOptions {
        memory_model: model,
        ..ModelOptions::default()
    };
    liveness_finding(text, &[], options, memory_fairness).map(|(f, _)| f.kind)
}

/// `text` livelocks under `ptx` only where stores may stay invisible
/// forever: memory fairness removes the livelock, and `sc` never has it.
fn assert_livelock_only_without_memory_fairness(text: &str) {
    assert_eq!(
        liveness(text, MemoryModel::Ptx, false),
        Some(ViolationKind::Livelock)
    );
    assert_eq!(liveness(text, MemoryModel::Ptx, true), None);
    assert_eq!(liveness(text, MemoryModel::Sc, true), None);
}

/// Replays a lasso: a thread that reads an older write of a location in the
/// cycle also reads the newest there, or the cycle writes a new newest one;
/// a write landing before the newest is matched by one that becomes it.
/// Returns how many older reads the cycle has.
fn assert_memory_fair(m: &Model, f: &Finding) -> usize {
    let mut s = vec![0u32; m.state_words()];
    let mut next = s.clone();
    m.initial_state(&mut s);
    for &a in &f.schedule {
        m.step(&s, a, &mut next).unwrap();
        std::mem::swap(&mut s, &mut next);
    }
    let mut effects = vec![];
    for &a in &f.cycle {
        let (result, labels) = m.step_labels(&s, a, &mut next);
        result.unwrap();
        effects.extend(labels.memory.map(|e| (thread_of(a), e)));
        std::mem::swap(&mut s, &mut next);
    }
    let renewed = |x: u32| {
        effects
            .iter()
            .any(|(_, e)| e.location == x && e.write == Some(Recency::Newest))
    };
    let mut older = 0;
    for (t, e) in &effects {
        if e.read == Some(Recency::Older) {
            older += 1;
            let fresh = effects.iter().any(|(u, d)| {
                u == t && d.location == e.location && d.read == Some(Recency::Newest)
            });
            assert!(
                fresh || renewed(e.location),
                "thread {t} only reads old writes of {}",
                e.location
            );
        }
        if e.write == Some(Recency::Older) {
            assert!(
                renewed(e.location),
                "writes to {} never become the newest",
                e.location
            );
        }
    }
    older
}

/// Block 1 waits for block 0's one store.
const LATE_FLAG: &str = "
global volatile i32 flag = 0;
harness master {
    if (blockIdx == 0) { flag = 1; } else { while (flag == 0) { } }
}";

/// Block 0 raises and lowers the flag forever; block 1 may look only while
/// it is down, under any memory model.
const TOGGLED_FLAG: &str = "
global volatile i32 flag = 0;
harness master {
    if (blockIdx == 0) {
        while (true) { flag = 1; flag = 0; progress; }
    } else {
        while (flag == 0) { }
    }
}";

#[test]
fn a_store_nobody_overwrites_becomes_visible_to_a_spinning_reader() {
    // Without memory fairness block 1 may read the initial 0 forever after
    // block 0 finished: a livelock no GPU has.
    assert_livelock_only_without_memory_fairness(LATE_FLAG);
}

/// Block 1 writes `x = 2` until block 0 has seen a 2.
const REPEATED_STORE: &str = "
global volatile i32 x = 0;
global volatile i32 seen = 0;
harness master {
    if (blockIdx == 0) {
        x = 1;
        while (x != 2) { }
        seen = 1;
    } else {
        while (seen == 0) { x = 2; }
    }
}";

#[test]
fn stores_do_not_keep_landing_before_a_write_forever() {
    // Without memory fairness every `x = 2` may land before block 0's
    // `x = 1` in coherence order, so block 0 reads 1 forever.
    assert_livelock_only_without_memory_fairness(REPEATED_STORE);
}

#[test]
fn a_reader_that_keeps_missing_new_writes_still_starves() {
    // Every read of block 1 may read the newest write (0): memory fairness
    // allows it, so the starvation SC has is still found under ptx.
    for model in [MemoryModel::Sc, MemoryModel::Ptx] {
        assert_eq!(
            liveness(TOGGLED_FLAG, model, true),
            Some(ViolationKind::Starvation),
            "{model:?}"
        );
    }
}

#[test]
fn lassos_under_ptx_meet_memory_fairness() {
    // Livelocks and starvation under ptx whose lassos may read behind
    // writers that keep writing (allowed); each lasso must still meet every
    // memory-fairness requirement it asks (checked by `liveness_finding`).
    // With the canonical fixpoint (the default) the lassos these specs give
    // read only newest writes; without it heterosync_semaphore's reads an
    // older one, so the check is run both ways.
    let mut older = 0;
    for (spec, kind) in [
        ("heterosync_semaphore", ViolationKind::Livelock),
        ("priority_semaphore", ViolationKind::Starvation),
        ("spin_lock_semaphore", ViolationKind::Starvation),
    ] {
        let path = format!("{}/specs/{spec}.gsync", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(path).unwrap();
        let overrides = [("iters".to_string(), 0)];
        for canonical_fixpoint in [true, false] {
            let options = ModelOptions {
                memory_model: MemoryModel::Ptx,
                canonical_fixpoint,
                ..ModelOptions::default()
            };
            let (f, n) = liveness_finding(&text, &overrides, options, true)
                .unwrap_or_else(|| panic!("{spec} has its sc liveness bug under ptx too"));
            assert_eq!(
                f.kind, kind,
                "{spec}, canonical fixpoint {canonical_fixpoint}"
            );
            older += n;
        }
    }
    assert!(
        older > 0,
        "no lasso read an older write: the check above checked nothing"
    );
}

/// The settings of a check without reductions.
fn settings(scheduler: Scheduler, limits: Options) -> Settings {
    Settings {
        scheduler,
        reductions: Reductions::NONE,
        limits,
    }
}

/// `ticket_mutex` (2 blocks, sc) prepared for a weakly fair check.
fn ticket_mutex_under_weak_fairness() -> crate::api::Prepared {
    let spec = crate::api::SpecSource::builtin("ticket_mutex").unwrap();
    let config = crate::api::CheckConfig {
        scheduler: Scheduler::uniform(Progress::Fair),
        semantics: Semantics {
            memory_model: Some(MemoryModel::Sc),
            ..Semantics::default()
        },
        ..crate::api::CheckConfig::default()
    };
    crate::api::prepare(&spec, &config).unwrap()
}

/// The graph analyses after a search count against the memory limit even
/// when the search itself stopped at another limit: what does not fit is
/// not built, and the check ends at the memory limit instead.
#[test]
fn analyses_after_a_state_limit_stay_within_the_memory_limit() {
    let prepared = ticket_mutex_under_weak_fairness();
    let model = crate::api::model_of(&prepared);
    let run = |max_memory_bytes| {
        let opts = Options {
            max_states: Some(300),
            max_memory_bytes,
            ..Options::default()
        };
        super::check(&model, &settings(Scheduler::uniform(Progress::Fair), opts))
    };
    let free = run(None);
    assert_eq!(free.limit, Some(crate::explore::LimitKind::States));
    let (search, analyses) = (free.stats.peak_bytes, free.stats.analysis_bytes);
    assert!(analyses > 0, "weak fairness labels the graph");
    let fits = run(Some(search + analyses));
    assert_eq!(fits.limit, Some(crate::explore::LimitKind::States));
    assert_eq!(fits.stats.analysis_bytes, analyses);
    let short = run(Some(search + analyses / 2));
    assert_eq!(short.limit, Some(crate::explore::LimitKind::Memory));
    assert_eq!(
        short.stats.analysis_bytes, 0,
        "nothing built past the limit"
    );
    assert_eq!(short.stats.states, free.stats.states);
}

/// A reduced search cut short by a limit before any final state is not
/// searched again without the reductions (to label the graph for a harness
/// that might never finish): that search would get less far still, and
/// spend the limits a second time. Its own outcome is the answer.
#[test]
fn a_reduced_search_cut_short_is_not_searched_again() {
    let spec = crate::api::SpecSource::builtin("sense_reversing_barrier_fixed").unwrap();
    let config = crate::api::CheckConfig {
        launch: Launch {
            blocks: 4,
            ..TWO_BLOCKS
        },
        semantics: Semantics {
            memory_model: Some(MemoryModel::Sc),
            ..Semantics::default()
        },
        ..crate::api::CheckConfig::default()
    };
    let prepared = crate::api::prepare(&spec, &config).unwrap();
    let model = crate::api::model_of(&prepared);
    let opts = Options {
        max_states: Some(200),
        ..Options::default()
    };
    let all = Settings {
        reductions: Reductions::ALL,
        ..settings(Scheduler::Deadlock, opts)
    };
    let cut = super::check(&model, &all);
    assert_eq!(cut.limit, Some(crate::explore::LimitKind::States));
    assert!(cut.findings.is_empty(), "{:?}", cut.findings);
    let Some(super::SearchNote::Reductions(log)) = cut.reductions.as_deref() else {
        panic!("a search in one process notes its reductions");
    };
    assert!(
        log.symmetry.is_ok() && log.ample_sets.is_ok(),
        "the reported search is the reduced one: {log:?}"
    );
    assert!(cut.stats.states <= 201, "{} states", cut.stats.states);
}

/// The analyses after a search stop at the check's deadline too: the
/// labelled graph and the fair-cycle search each give up with the limit
/// instead of running past it.
#[test]
fn analyses_stop_at_the_deadline() {
    let prepared = ticket_mutex_under_weak_fairness();
    let model = crate::api::model_of(&prepared);
    let free = Options {
        keep_edges: true,
        ..Options::default()
    };
    let e = explore(&model, &free);
    assert!(e.is_complete());
    let passed = Options {
        deadline: Some(std::time::Instant::now()),
        ..free.clone()
    };
    let limit = Some(crate::explore::LimitKind::Time);
    let sys = Reduced::none(&model);
    assert_eq!(LabeledGraph::build(&sys, &e, &passed).err(), limit);
    let graph = LabeledGraph::build(&sys, &e, &free).unwrap();
    let found = liveness::find(&sys, &e, &graph, Levels::uniform(Progress::Fair), &passed);
    assert_eq!(found.err(), limit);
    assert!(liveness::find(&sys, &e, &graph, Levels::uniform(Progress::Fair), &free).is_ok());
    // The whole check, with its deadline already passed, is inconclusive.
    let cut = super::check(
        &model,
        &settings(Scheduler::uniform(Progress::Fair), passed),
    );
    assert_eq!(cut.limit, limit);
    assert!(cut.findings.is_empty());
}

/// `step_labels` writes the successor `step` writes (its contract, which
/// the distributed labelling relies on): every action of every state of
/// specs under `ptx` (with its memory effects) and `sc`, on the model and
/// on the reduced model the analyses see.
#[test]
fn step_labels_writes_the_successor_step_writes() {
    let specs = [
        (include_str!("../../specs/mp_flag.gsync"), MemoryModel::Ptx),
        (
            include_str!("../../specs/ticket_mutex.gsync"),
            MemoryModel::Ptx,
        ),
        (
            include_str!("../../specs/ticket_mutex.gsync"),
            MemoryModel::Sc,
        ),
    ];
    let mut compared = 0;
    for (text, memory_model) in specs {
        let source = Source::new("t.gsync", text);
        let file = crate::spec::parse(&source).expect("parses");
        let prog = lower(&file, &source, TWO_BLOCKS, &[]).expect("lowers");
        let options = ModelOptions {
            memory_model,
            ..ModelOptions::default()
        };
        let m = Model::new(&prog, options);
        let reduced = Reduced::none(&m);
        let e = explore(&m, &Options::default());
        let (mut actions, mut stepped, mut labelled) = (
            Vec::new(),
            vec![0; m.state_words()],
            vec![0; m.state_words()],
        );
        for id in 0..e.num_states() as u32 {
            let s = e.state(id);
            actions.clear();
            m.actions(s, &mut actions);
            for &a in &actions {
                let took = m.step(s, a, &mut stepped).is_ok();
                let (result, _) = m.step_labels(s, a, &mut labelled);
                assert_eq!(
                    (took, &stepped),
                    (result.is_ok(), &labelled),
                    "state {id}, {a:#x}"
                );
                let (result, _) = super::Checkable::step_labels(&reduced, s, a, &mut labelled);
                assert_eq!(
                    (took, &stepped),
                    (result.is_ok(), &labelled),
                    "reduced, {id}"
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 100, "only {compared} steps compared");
}

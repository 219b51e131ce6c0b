//! The level-synchronous breadth-first search of one worker (LTSmin's
//! `pins2lts-dist` design on timely): each worker expands the states of
//! the current level it owns, sends every successor to its owner, and the
//! owners keep the new ones. A state's first position (the smallest
//! (parent rank, action index) it was reached at) decides its parent and,
//! once the level is complete, its rank, so that parents, the first fault,
//! and the state counts at it are those of the sequential explorer. With
//! ample sets, a search that has nothing left to expand runs the proviso
//! as the sequential explorer does (`super::proviso` finds the same
//! states, by their sequential ids) and expands the states it chose fully
//! in a further level, whose new states are searched on in levels again.

use super::labels;
use super::partition::{owner, Partition, ROOT};
use super::proviso;
use super::rounds::{Key, Msg, Ptr, Reached, Rounds, RECORD_BYTES};
use super::succs::States;
use crate::check::Checkable;
use crate::explore::{LimitKind, Options, TransitionSystem};
use crate::model::Violation;
use std::time::Duration;

/// The most states a worker expands between two exchanges.
const BATCH: usize = 4096;
/// About the most bytes of successors a worker sends in one exchange
/// (taking four successors a state, each its words: a code to another
/// process is shorter): timely keeps its buffers at the most
/// a round had in flight, so this bounds each process's memory beyond its
/// states (16 MiB a round at 4,096 states of 1 KiB made tens of MiB).
const BATCH_BYTES: usize = 2 << 20;

/// States a worker expands between two exchanges, for states of `words`
/// words: within [`BATCH_BYTES`] (a 32nd of the memory limit if less).
fn batch_len(words: usize, opts: &Options) -> usize {
    let budget = opts
        .max_memory_bytes
        .map_or(BATCH_BYTES, |m| BATCH_BYTES.min((m / 32) as usize));
    let per_state = 4 * (words * 4 + std::mem::size_of::<Reached>());
    (budget / per_state).clamp(16, BATCH)
}

/// How the search ended, the same on every worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Ending {
    Complete,
    /// A fault: the actions from the initial state to where it was found
    /// (with `step`, the last one is the step that failed; otherwise the
    /// state reached by them broke an invariant).
    Fault {
        path: Vec<u32>,
        step: bool,
    },
    /// With `Options::early_deadlock`: the actions to the first state
    /// expanded that is not final and has no step (a deadlock decided on
    /// the fly, as the sequential explorer decides it), and whether no
    /// state stored by then was final.
    Stuck {
        path: Vec<u32>,
        no_finals: bool,
    },
    Limit(LimitKind),
}

/// The figures of a search, the same on every worker.
#[derive(Clone, Debug)]
pub(super) struct Searched {
    pub ending: Ending,
    pub states: u64,
    pub transitions: u64,
    pub max_depth: u32,
    /// States held by each worker.
    pub per_worker: Vec<u64>,
    /// States expanded by an ample subset only.
    pub reduced: u64,
    /// Bytes the workers' partitions held at the end (`Partition::bytes`).
    pub bytes: u64,
    /// The states the proviso expanded fully (every worker has them all).
    pub full: Vec<Vec<u32>>,
    /// This worker's time in the search.
    pub spent: Spent,
}

/// Which edges the search keeps at their targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Edges {
    /// Their sources (`Partition::preds`): the deadlock analysis and the
    /// proviso.
    Sources,
    /// Their sources, places among the sources' steps and labels
    /// (`Partition::labelled`), for the labelled graph (`labels`) of a
    /// search without ample sets: each step taken once gives its target
    /// and its label.
    Labelled,
}

/// How the states of a level are expanded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// By their ample sets (a BFS level).
    Ample,
    /// Fully, by the proviso: only the steps outside the ample set, whose
    /// successors the BFS did not generate.
    Full,
}

/// A level's states on this worker: (position among all workers' states
/// of the level, index), in order.
type Frontier = Vec<(u64, u32)>;

/// The proviso's bookkeeping across levels, the same on every worker.
struct Passes {
    /// The first sequential id of each level.
    starts: Vec<u64>,
    /// States the proviso expanded fully in completed passes.
    full_done: u64,
    /// The first level of the states the next pass looks at, and where
    /// their predecessors start in `Partition::preds`.
    range: (u32, usize),
    full: Vec<Vec<u32>>,
}

/// A stopping event of a level: its position, its kind (`STEP_FAILED`,
/// `BROKE_INVARIANT`, `STUCK`), and the failed action.
type Event = (Key, u64, u32);

/// A step failed at the event's position.
const STEP_FAILED: u64 = 0;
/// The new state first reached at the event's position broke an invariant.
const BROKE_INVARIANT: u64 = 1;
/// The state expanded at the event's position (rank, 0) has no step and
/// is not final: it has no successors, so no other event shares its rank.
const STUCK: u64 = 2;

struct Level {
    depth: u32,
    /// Every worker's states of this level.
    count: u64,
    /// States of all earlier levels and this one.
    total: u64,
    /// Transitions of all earlier levels.
    transitions: u64,
}

/// Where a worker's time in the search went (#43; `GSYNC_DIST_WAITS`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Spent {
    /// Taking the steps of a batch's states, up to its exchange.
    pub expand: Duration,
    /// The batches' exchanges: waiting, and keeping the successors that
    /// came (as they came).
    pub exchange: Duration,
    /// The search's rounds, the time this worker waited idle at their
    /// ends, and the time it handled their records there.
    pub rounds: u64,
    pub waited: Duration,
    pub handled: Duration,
}

/// Searches `sys` on this worker's partition, keeping the `edges` into
/// each state.
pub(super) fn search<S: Checkable>(
    sys: &S,
    rounds: &mut Rounds<'_>,
    part: &mut Partition,
    opts: &Options,
    edges: Edges,
) -> Searched {
    let mut spent = Spent::default();
    let (n, waited, handled) = rounds.waits();
    let mut searched = levels(sys, rounds, part, opts, edges, &mut spent);
    let after = rounds.waits();
    spent.rounds = after.0 - n;
    spent.waited = after.1 - waited;
    spent.handled = after.2 - handled;
    searched.spent = spent;
    searched
}

/// The search's levels, as [`search`]; the time spent in them is added to
/// `spent`.
fn levels<S: Checkable>(
    sys: &S,
    rounds: &mut Rounds<'_>,
    part: &mut Partition,
    opts: &Options,
    edges: Edges,
    spent: &mut Spent,
) -> Searched {
    // Every step of a state is then an edge, at its place in action order.
    assert!(
        edges == Edges::Sources || !sys.reduces(),
        "labelled edges are kept for the full graph only"
    );
    let me = rounds.index() as u32;
    let peers = rounds.peers();
    let mut cur = vec![0u32; sys.state_words()];
    sys.initial_state(&mut cur);
    sys.canonicalize(&mut cur);
    let mut invalid = 0;
    if owner(&cur, peers) == me {
        let (l, _) = part
            .insert(&cur, 0, (0, 0), ROOT, 0)
            .expect("room for one state");
        part.set_rank(l, 0);
        part.finals.push(sys.is_final(&cur));
        invalid = u64::from(sys.check_state(&cur).is_err());
    }
    let mut level = Level {
        depth: 0,
        count: 1,
        total: 1,
        transitions: 0,
    };
    let mut passes = Passes {
        starts: vec![0],
        full_done: 0,
        range: (0, 0),
        full: Vec::new(),
    };
    if rounds.sum(vec![invalid])[0] > 0 {
        let ending = Ending::Fault {
            path: Vec::new(),
            step: false,
        };
        return done(rounds, part, ending, &level, (0, &mut passes));
    }
    let mut frontier = ranked(part);
    let mut mode = Mode::Ample;
    // Each worker's successors of the last batch: the next batch's
    // buffers start at that size instead of growing to it.
    let mut sizes = vec![(0, 0); peers];
    loop {
        let first_new = part.len() as u32;
        part.new_level();
        let at = (&frontier[..], level.count, level.depth, mode);
        let keep = (edges, passes.range.0);
        let work = (&mut *rounds, &mut sizes[..], &mut *spent);
        let expanded = expand_level(sys, work, part, at, opts, keep);
        // New states that break an invariant, at their first position.
        let bad = (expanded.broken.iter())
            .map(|&l| (part.key(l), BROKE_INVARIANT, 0u32))
            .min();
        let event = expanded.fault.into_iter().chain(bad).min();
        let new = u64::from(part.len() as u32 - first_new);
        let mine = [limit_code(expanded.limit), new, expanded.succs];
        let mut mine = mine.to_vec();
        mine.extend(encode_event(event));
        // The new states' first positions travel to every worker in the
        // same round (left unused where the search ends), and each ranks
        // its own: a level costs its expansion and this round.
        let own = sorted_keys(part, first_new);
        let out = (0..peers as u32).flat_map(|w| own.iter().map(move |&(k, _)| (w, k)));
        let (all, runs) = rounds.gather_runs(out, (Msg::Keys, keys_of), mine);
        if let Some(kind) = first_limit(all.iter().map(|v| v[0])) {
            let t = level.transitions;
            let ending = Ending::Limit(kind);
            return done(rounds, part, ending, &level, (t, &mut passes));
        }
        let event = all.iter().filter_map(|v| decode_event(&v[3..])).min();
        if let Some(event) = event {
            let level_of = (&frontier[..], mode, &level);
            return stop_at(
                rounds,
                part,
                (event, first_new),
                &expanded,
                level_of,
                passes,
            );
        }
        let new: u64 = all.iter().map(|v| v[1]).sum();
        level.transitions += all.iter().map(|v| v[2]).sum::<u64>();
        if mode == Mode::Full {
            for &(_, l) in &frontier {
                part.set_full(l);
            }
            passes.full_done += level.count;
        }
        if new == 0 {
            // Nothing left to expand: the proviso may choose states to
            // expand fully (none after a pass, which ends the search as
            // in the sequential explorer).
            let chosen = match (mode, sys.reduces()) {
                (Mode::Ample, true) => {
                    proviso::unexpanded(rounds, part, passes.range, &passes.starts)
                }
                _ => Vec::new(),
            };
            if chosen.is_empty() {
                let t = level.transitions;
                return done(rounds, part, Ending::Complete, &level, (t, &mut passes));
            }
            passes.full.extend(gather_states(rounds, part, &chosen));
            // The next pass looks at the states this one finds.
            passes.range = (level.depth + 1, part.preds.len());
            frontier = chosen
                .iter()
                .enumerate()
                .filter(|(_, c)| c.1 == rounds.index() as u32)
                .map(|(i, c)| (i as u64, c.2))
                .collect();
            mode = Mode::Full;
            part.store_depths();
            level.count = chosen.len() as u64;
            continue;
        }
        if level.total + new > opts.max_states.unwrap_or(u64::MAX) {
            level.total = opts.max_states.unwrap_or(u64::MAX);
            let t = level.transitions;
            let ending = Ending::Limit(LimitKind::States);
            return done(rounds, part, ending, &level, (t, &mut passes));
        }
        rank_level(part, &own, &runs);
        part.newest = first_new as usize;
        passes.starts.push(level.total);
        level = Level {
            depth: level.depth + 1,
            count: new,
            total: level.total + new,
            transitions: level.transitions,
        };
        frontier = ranked(part);
        mode = Mode::Ample;
    }
}

/// The states of the newest level on this worker, with their ranks.
fn ranked(part: &Partition) -> Frontier {
    part.newest_range().map(|l| (part.rank(l), l)).collect()
}

/// The words of the states `chosen` (id, worker, index), on every worker.
fn gather_states(
    rounds: &mut Rounds<'_>,
    part: &Partition,
    chosen: &[(u64, u32, u32)],
) -> Vec<Vec<u32>> {
    let me = rounds.index() as u32;
    let mine: Vec<u64> = chosen
        .iter()
        .filter(|c| c.1 == me)
        .flat_map(|c| part.state(c.2).into_iter().map(u64::from))
        .collect();
    let words = part.words().max(1);
    rounds
        .gather(mine)
        .iter()
        .flat_map(|v| {
            v.chunks(words)
                .map(|c| c.iter().map(|&w| w as u32).collect())
        })
        .collect()
}

/// The figures of a search that ended at the end of `level` with
/// `transitions`, the same on every worker.
fn done(
    rounds: &mut Rounds<'_>,
    part: &Partition,
    ending: Ending,
    level: &Level,
    (transitions, passes): (u64, &mut Passes),
) -> Searched {
    let per_worker = rounds.gather(vec![
        part.len() as u64,
        part.reduced_count() as u64,
        part.bytes() as u64,
    ]);
    // The sequential explorer counts levels, or, once the proviso has
    // expanded a state fully, the BFS tree's depths.
    let max_depth = match passes.full_done {
        0 => level.depth,
        _ => {
            let end = part.level_first(level.depth + 1);
            max_depth(rounds, part, |l| l < end)
        }
    };
    Searched {
        ending,
        states: level.total,
        transitions,
        max_depth,
        per_worker: per_worker.iter().map(|v| v[0]).collect(),
        reduced: per_worker.iter().map(|v| v[1]).sum(),
        bytes: per_worker.iter().map(|v| v[2]).sum(),
        full: std::mem::take(&mut passes.full),
        spent: Spent::default(),
    }
}

/// The largest depth in the BFS tree of the states `counted`.
fn max_depth(rounds: &mut Rounds<'_>, part: &Partition, counted: impl Fn(u32) -> bool) -> u32 {
    let mine = (0..part.len() as u32)
        .filter(|&l| counted(l))
        .map(|l| part.depth(l))
        .max()
        .unwrap_or(0);
    let all = rounds.gather(vec![u64::from(mine)]);
    all.iter().map(|v| v[0]).max().unwrap_or(0) as u32
}

/// What expanding a level found on this worker.
struct Expanded {
    /// Successors generated per expanded state: (rank, count).
    per_state: Vec<(u64, u64)>,
    succs: u64,
    fault: Option<Event>,
    limit: Option<LimitKind>,
    /// New states that break an invariant (checked on the words received,
    /// not decoded again).
    broken: Vec<u32>,
}

/// Expands this worker's states `frontier` of level `depth` in batches,
/// one exchange each (as many as the busiest worker needs), and keeps the
/// new successors at level `depth + 1`; `edges` says which edges are
/// kept, and those into levels before `range` are the proviso's `leaving`;
/// `sizes` has the last batch's successors for each worker; the time
/// spent is added to `spent`.
fn expand_level<S: Checkable>(
    sys: &S,
    (rounds, sizes, spent): (&mut Rounds<'_>, &mut [(usize, usize)], &mut Spent),
    part: &mut Partition,
    (frontier, count, depth, mode): (&[(u64, u32)], u64, u32, Mode),
    opts: &Options,
    (edges, range): (Edges, u32),
) -> Expanded {
    let me = rounds.index() as u32;
    let peers = rounds.peers();
    // Edges from here into states before this are the proviso's `leaving`.
    let before_range = part.level_first(range);
    // As many batches as the level's states fill on every worker (their
    // owners' hashes spread them evenly), each worker's states split
    // evenly among them: no round to agree on the number.
    let batch = batch_len(sys.state_words(), opts);
    let batches = count.div_ceil((batch * peers) as u64).max(1);
    let per_batch = frontier.len().div_ceil(batches as usize).max(1);
    let mut found = Expanded {
        per_state: Vec::new(),
        succs: 0,
        fault: None,
        limit: None,
        broken: Vec::new(),
    };
    let (mut actions, mut ample) = (Vec::new(), Vec::new());
    let mut state = vec![0u32; sys.state_words()];
    let mut next = state.clone();
    let mut todo = frontier.iter();
    let labelled = edges == Edges::Labelled;
    for _ in 0..batches {
        let started = std::time::Instant::now();
        let mut out: Vec<Outgoing> = (sizes.iter().enumerate())
            .map(|(to, &(b, r))| Outgoing::with_room(rounds.is_remote(to as u32), (b, r), labelled))
            .collect();
        for &(order, local) in todo.by_ref().take(per_batch) {
            if found.limit.is_some() {
                break;
            }
            found.limit = opts.limit_reached();
            part.read(local, &mut state);
            let from_depth = part.depth(local);
            actions.clear();
            ample.clear();
            match mode {
                Mode::Ample => {
                    if sys.ample_actions(&state, &mut actions) {
                        part.set_reduced(local);
                    }
                    // An ample set is empty only where no step is enabled.
                    if opts.early_deadlock && actions.is_empty() && !sys.is_final(&state) {
                        let at = ((order, 0), STUCK, 0);
                        found.fault = Some(found.fault.map_or(at, |f| f.min(at)));
                    }
                }
                Mode::Full => {
                    sys.actions(&state, &mut actions);
                    sys.ample_actions(&state, &mut ample);
                }
            }
            let mut n = 0;
            for (pos, &a) in actions.iter().enumerate() {
                if ample.contains(&a) {
                    // Taken by the search already.
                    continue;
                }
                next.copy_from_slice(&state);
                let Ok(effect) = step(sys, &state, a, &mut next, labelled) else {
                    let at = ((order, pos as u32), STEP_FAILED, a);
                    found.fault = Some(found.fault.map_or(at, |f| f.min(at)));
                    break;
                };
                sys.canonicalize(&mut next);
                let w = owner(&next, peers);
                let to = &mut out[w as usize];
                to.states.push(&next);
                to.reached
                    .push(((order, pos as u32), (me, local), a, from_depth));
                to.effects.extend(effect);
                if to.states.bytes() >= RECORD_BYTES {
                    let room = to.emptied();
                    rounds.post(w, std::mem::replace(to, room).into_msg());
                }
                n += 1;
            }
            found.per_state.push((order, n));
            found.succs += n;
        }
        for (size, to) in sizes.iter_mut().zip(&out) {
            *size = (to.states.bytes(), to.reached.len());
        }
        let out = out
            .into_iter()
            .enumerate()
            .filter(|(_, to)| !to.reached.is_empty())
            .map(|(w, to)| (w as u32, to.into_msg()));
        let expanded = std::time::Instant::now();
        spent.expand += expanded - started;
        let into = (depth + 1, edges, mode, before_range);
        rounds.exchange_each(out.collect::<Vec<_>>(), |m| {
            keep_succs(sys, part, (&mut found, &mut next), m, into);
        });
        spent.exchange += expanded.elapsed();
    }
    found
}

/// Keeps the successors of a record `m` of the level's exchange (others
/// are left alone) at `level` (`into`: the level, the edges kept, the
/// mode, the first index of the proviso's range); `next` is room for one
/// state.
fn keep_succs<S: Checkable>(
    sys: &S,
    part: &mut Partition,
    (found, next): (&mut Expanded, &mut [u32]),
    m: Msg,
    (level, edges, mode, before_range): (u32, Edges, Mode, u32),
) {
    let Msg::Succs {
        states,
        reached,
        effects,
    } = m
    else {
        return;
    };
    let mut read = states.reader();
    for (i, (key, from, action, from_depth)) in reached.into_iter().enumerate() {
        let words = read.next(next);
        let edge = (words, key, from, action);
        let Some((l, new)) = keep(sys, part, edge, (level, from_depth + 1)) else {
            // The run's states would not fit a word (`Packing`): it ends
            // as the single explorer's does at 2^32.
            found.limit = Some(LimitKind::States);
            continue;
        };
        if new && sys.check_state(words).is_err() {
            found.broken.push(l);
        }
        match edges {
            Edges::Sources => part.add_pred(l, from),
            Edges::Labelled => {
                let t = sys.thread_of(action);
                let label = labels::with_effect(t, action, effects[i]);
                part.add_labelled(l, from, key.1, label);
            }
        }
        if mode == Mode::Ample && l < before_range {
            part.leaving.push(from);
        }
    }
}

/// Takes action `a` from `state` into `next` (which holds a copy of it);
/// with `labelled`, also the word of its label beyond its action.
fn step<S: Checkable>(
    sys: &S,
    state: &[u32],
    a: u32,
    next: &mut [u32],
    labelled: bool,
) -> Result<Option<u64>, Violation> {
    match labelled {
        false => sys.step_from_copy(state, a, next).map(|()| None),
        true => {
            let (result, labels) = sys.step_labels(state, a, next);
            result.map(|()| Some(labels::effect(&labels)))
        }
    }
}

/// Successors bound for one worker, until they leave as a message.
struct Outgoing {
    states: States,
    reached: Vec<Reached>,
    /// Empty unless the edges are labelled.
    effects: Vec<u64>,
}

impl Outgoing {
    /// Room for `bytes` bytes of states (as codes where `coded`: for a
    /// worker of another process) and `reached` successors (and as many
    /// labels where `labelled`).
    fn with_room(coded: bool, (bytes, reached): (usize, usize), labelled: bool) -> Self {
        Outgoing {
            states: States::with_room(coded, bytes),
            reached: Vec::with_capacity(reached),
            effects: Vec::with_capacity(if labelled { reached } else { 0 }),
        }
    }

    /// Empty ones of the same kinds, with as much room.
    fn emptied(&self) -> Self {
        Outgoing {
            states: self.states.emptied(),
            reached: Vec::with_capacity(self.reached.capacity()),
            effects: Vec::with_capacity(self.effects.capacity()),
        }
    }

    fn into_msg(self) -> Msg {
        Msg::Succs {
            states: self.states,
            reached: self.reached,
            effects: self.effects,
        }
    }
}

/// Keeps one received successor: a new state at `level` (`depth` in the
/// BFS tree), or an earlier position of a state new in this level; its
/// index, and whether it is new; `None` where it is new and the
/// partition is full.
fn keep<S: TransitionSystem<Action = u32>>(
    sys: &S,
    part: &mut Partition,
    (words, key, from, action): (&[u32], Key, Ptr, u32),
    (level, depth): (u32, u32),
) -> Option<(u32, bool)> {
    match part.insert(words, level, key, from, action)? {
        (l, false) => {
            if part.is_newest(l) && key < part.key(l) {
                part.set_key(l, key);
                part.set_parent(l, from, action);
                part.set_depth(l, depth);
            }
            Some((l, false))
        }
        (l, true) => {
            part.set_depth(l, depth);
            part.finals.push(sys.is_final(words));
            Some((l, true))
        }
    }
}

/// This worker's states new in the level, by first position: (key, index).
fn sorted_keys(part: &Partition, first_new: u32) -> Vec<(Key, u32)> {
    let mut own: Vec<(Key, u32)> = part
        .newest_range_from(first_new)
        .map(|l| (part.key(l), l))
        .collect();
    own.sort_unstable();
    own
}

fn keys_of(m: Msg) -> Option<Vec<Key>> {
    match m {
        Msg::Keys(v) => Some(v),
        _ => None,
    }
}

/// Gives this worker's states new in the level (`own`, in order) their
/// ranks: the number of the level's first positions before each, counted
/// in every run of them that every worker sent (first positions are
/// distinct: one position reaches one state). One walk per run, where a
/// round to rankers of ranges and one back cost two rounds a level.
fn rank_level(part: &mut Partition, own: &[(Key, u32)], runs: &[Vec<Key>]) {
    let mut ranks = vec![0u64; own.len()];
    for run in runs {
        let mut before = 0;
        for (rank, (key, _)) in ranks.iter_mut().zip(own) {
            while before < run.len() && run[before] < *key {
                before += 1;
            }
            *rank += before as u64;
        }
    }
    for (&(_, local), rank) in own.iter().zip(ranks) {
        part.set_rank(local, rank);
    }
}

/// Ends the search at the level's first event: the states and transitions
/// a sequential search had stored when it met it, and the path to it.
fn stop_at(
    rounds: &mut Rounds<'_>,
    part: &Partition,
    ((key, kind, action), first_new): (Event, u32),
    expanded: &Expanded,
    (frontier, mode, level): (&[(u64, u32)], Mode, &Level),
    mut passes: Passes,
) -> Searched {
    let step = kind == STEP_FAILED;
    let before = |k: &Key| *k < key || (kind == BROKE_INVARIANT && *k == key);
    let kept_new = || {
        part.newest_range_from(first_new)
            .filter(|&l| before(&part.key(l)))
    };
    let kept = kept_new().count() as u64;
    let finals = match kind {
        STUCK => (0..first_new)
            .chain(kept_new())
            .filter(|&l| part.finals.get(l))
            .count() as u64,
        _ => 0,
    };
    // Successors of states before the event's; in a BFS level, the event's
    // own before it, and the edge to a rejected state (the sequential
    // proviso counts a state's steps once it has taken them all).
    let mut succs: u64 = expanded
        .per_state
        .iter()
        .filter(|(r, _)| *r < key.0)
        .map(|(_, n)| n)
        .sum();
    if mode == Mode::Ample && expanded.per_state.iter().any(|(r, _)| *r == key.0) {
        succs += u64::from(key.1) + u64::from(kind == BROKE_INVARIANT);
    }
    let all = rounds.sum(vec![kept, succs, finals]);
    // Where the event is: the expanded state (a failed step) or the new one.
    let at = match kind {
        STEP_FAILED | STUCK => frontier.iter().find(|f| f.0 == key.0).map(|f| f.1),
        _ => part
            .newest_range_from(first_new)
            .find(|&l| part.key(l) == key),
    };
    let mut path = walk(rounds, part, at);
    if step {
        path.push(action);
    }
    let full_done = passes.full_done + if mode == Mode::Full { key.0 } else { 0 };
    let max_depth = match full_done {
        0 => level.depth + u32::from(all[0] > 0),
        _ => max_depth(rounds, part, |l| l < first_new || before(&part.key(l))),
    };
    let per_worker = rounds.gather(vec![
        part.len() as u64,
        part.reduced_count() as u64,
        part.bytes() as u64,
    ]);
    let ending = match kind {
        STUCK => Ending::Stuck {
            path,
            no_finals: all[2] == 0,
        },
        _ => Ending::Fault { path, step },
    };
    Searched {
        ending,
        states: level.total + all[0],
        transitions: level.transitions + all[1],
        max_depth,
        per_worker: per_worker.iter().map(|v| v[0]).collect(),
        reduced: per_worker.iter().map(|v| v[1]).sum(),
        bytes: per_worker.iter().map(|v| v[2]).sum(),
        full: std::mem::take(&mut passes.full),
        spent: Spent::default(),
    }
}

/// The actions from the initial state to a state (held by the worker that
/// passes `Some(its index)`), following parents from worker to worker.
pub(super) fn walk(rounds: &mut Rounds<'_>, part: &Partition, start: Option<u32>) -> Vec<u32> {
    let me = rounds.index() as u32;
    let mut at = start;
    let mut path = Vec::new();
    loop {
        let mine = match at {
            Some(l) => {
                let ((w, p), via) = part.parent(l);
                vec![1, u64::from(via), u64::from(w), u64::from(p)]
            }
            None => vec![0],
        };
        let all = rounds.gather(mine);
        let v = all
            .iter()
            .find(|v| v[0] == 1)
            .expect("one worker holds the state");
        let parent = (v[2] as u32, v[3] as u32);
        if parent == ROOT {
            break;
        }
        path.push(v[1] as u32);
        at = (parent.0 == me).then_some(parent.1);
    }
    path.reverse();
    path
}

fn encode_event(event: Option<Event>) -> Vec<u64> {
    match event {
        Some(((r, k), kind, a)) => vec![r, u64::from(k), kind, u64::from(a)],
        None => Vec::new(),
    }
}

fn decode_event(v: &[u64]) -> Option<Event> {
    match v {
        [r, k, kind, a] => Some(((*r, *k as u32), *kind, *a as u32)),
        _ => None,
    }
}

/// A worker's limit as a figure for a round (0: none); every worker
/// reads the same [`first_limit`] of the round's figures.
pub(super) fn limit_code(limit: Option<LimitKind>) -> u64 {
    limit.map_or(0, |k| 1 + k as u64)
}

/// The limit that the workers' figures of one round name first, if any.
pub(super) fn first_limit(codes: impl IntoIterator<Item = u64>) -> Option<LimitKind> {
    let code = codes.into_iter().filter(|&c| c > 0).min()?;
    Some(match code - 1 {
        0 => LimitKind::States,
        1 => LimitKind::Time,
        2 => LimitKind::Memory,
        _ => LimitKind::Interrupted,
    })
}

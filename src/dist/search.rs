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
use super::rounds::{Key, Msg, Outbox, Ptr, Reached, Rounds, RECORD_BYTES};
use super::succs::{Incoming, States};
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

/// A level's states on this worker: (order, index), in order; the order
/// is the state's rank among all workers' states of the level, or, until
/// the level's own round ranks it, its first position (`pack`).
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
#[derive(Clone, Debug, Default)]
pub(super) struct Spent {
    /// Taking the steps of the levels' states.
    pub expand: Duration,
    /// The same, exchange by exchange (a level's), in microseconds:
    /// every worker's side by side show how long the slowest stepped in
    /// each.
    pub steps: Vec<u64>,
    /// Keeping the successors that came between batches, and the
    /// levels' exchanges: waiting, and keeping what came there.
    pub exchange: Duration,
    /// The search's rounds, the time this worker waited idle at their
    /// ends, and the time it handled their records there.
    pub rounds: u64,
    pub waited: Duration,
    pub handled: Duration,
    /// The whole search, and the deadlock analysis after it (set by
    /// `dist::search_and_analyse`): what the steps and exchanges leave
    /// is the levels' own bookkeeping (ranks, parents, the proviso).
    pub search: Duration,
    pub analysis: Duration,
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
    let started = std::time::Instant::now();
    let (n, waited, handled) = rounds.waits();
    let mut searched = levels(sys, rounds, part, opts, edges, &mut spent);
    let after = rounds.waits();
    spent.rounds = after.0 - n;
    spent.waited = after.1 - waited;
    spent.handled = after.2 - handled;
    spent.search = started.elapsed();
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
    // The frontier's orders are ranks (the first level, a proviso's pass)
    // or first positions whose ranks come in the frontier's own round.
    let mut keyed = false;
    let mut mode = Mode::Ample;
    // The frontier's count where it is not known yet: this worker's
    // share, summed in the frontier's own round; and the mode of the
    // level that found it.
    let mut pending: Option<(u64, Mode)> = None;
    // Below this many states in all, no worker's new states can pass a
    // limit, so a level's count may wait for the next level's round.
    let bound = opts.max_states.unwrap_or(u64::MAX).min(part.capacity());
    // Each worker's successors of the last batch: the next batch's
    // buffers start at that size instead of growing to it.
    let mut sizes = vec![(0, 0); peers];
    loop {
        let first_new = part.len() as u32;
        part.new_level();
        let depth = level.depth + u32::from(pending.is_some());
        let at = (&frontier[..], keyed, depth, mode);
        let keep = (edges, passes.range.0);
        let work = (&mut *rounds, &mut sizes[..], &mut *spent);
        let share = pending.map_or(0, |p| p.0);
        let mut expanded = expand_level(sys, work, part, at, (opts, share), keep);
        if let Some((_, found_by)) = pending.take() {
            let count = expanded.figures.iter().map(|v| v[PENDING]).sum();
            if count == 0 {
                // The frontier was empty: the level before it found no
                // new states.
                let no_new = (&mut level, &mut passes, found_by);
                match after_no_new(sys, rounds, part, no_new) {
                    Ok(chosen) => (frontier, keyed, mode) = (chosen, false, Mode::Full),
                    Err(searched) => return *searched,
                }
                continue;
            }
            advance(&mut level, &mut passes, count);
        }
        let figures = std::mem::take(&mut expanded.figures);
        let succs: u64 = figures.iter().map(|v| v[SUCCS]).sum();
        let here = part.len() as u64 - u64::from(first_new);
        let mut limit = first_limit(figures.iter().map(|v| v[LIMIT]));
        let new = match succs {
            0 => Some(0),
            _ if level.total + succs > bound => {
                // Near a limit: the receivers' limits and the level's
                // count decide before the next level.
                let all = rounds.gather(vec![limit_code(expanded.limit), here]);
                limit = first_limit(all.iter().map(|v| v[0]));
                Some(all.iter().map(|v| v[1]).sum::<u64>())
            }
            _ => None,
        };
        if let Some(kind) = limit {
            let t = level.transitions;
            let ending = Ending::Limit(kind);
            return done(rounds, part, ending, &level, (t, &mut passes));
        }
        let runs = Runs(std::mem::take(&mut expanded.runs));
        let rank_of = |order: u64| if keyed { runs.rank_of(order) } else { order };
        if keyed {
            runs.rank(part, &frontier);
        }
        let next = ranked_new(part, first_new, keyed.then_some(&runs));
        let event = figures
            .iter()
            .filter_map(|v| decode_event(&v[EVENT..]))
            .min();
        if let Some(((order, pos), kind, action)) = event {
            let event = ((rank_of(order), pos), kind, action);
            let ranked: Frontier = frontier.iter().map(|&(o, l)| (rank_of(o), l)).collect();
            for s in &mut expanded.per_state {
                s.0 = rank_of(s.0);
            }
            let level_of = (&ranked[..], mode, &level);
            return stop_at(
                rounds,
                part,
                (event, first_new),
                &expanded,
                level_of,
                passes,
            );
        }
        level.transitions += succs;
        if mode == Mode::Full {
            for &(_, l) in &frontier {
                part.set_full(l);
            }
            passes.full_done += level.count;
        }
        match new {
            Some(0) => {
                let no_new = (&mut level, &mut passes, mode);
                match after_no_new(sys, rounds, part, no_new) {
                    Ok(chosen) => (frontier, keyed, mode) = (chosen, false, Mode::Full),
                    Err(searched) => return *searched,
                }
                continue;
            }
            Some(new) if level.total + new > opts.max_states.unwrap_or(u64::MAX) => {
                level.total = opts.max_states.unwrap_or(u64::MAX);
                let t = level.transitions;
                let ending = Ending::Limit(LimitKind::States);
                return done(rounds, part, ending, &level, (t, &mut passes));
            }
            Some(new) => advance(&mut level, &mut passes, new),
            None => pending = Some((here, mode)),
        }
        part.newest = first_new as usize;
        (frontier, keyed, mode) = (next, true, Mode::Ample);
    }
}

/// Figures of a level's exchange, by place: the worker's limit
/// (`limit_code`), its successors, its share of the level it expands
/// where that level's count is pending, and its first event
/// (`encode_event`).
const LIMIT: usize = 0;
const SUCCS: usize = 1;
const PENDING: usize = 2;
const EVENT: usize = 3;

/// The level after `level` holds `count` states: it is the next one.
fn advance(level: &mut Level, passes: &mut Passes, count: u64) {
    passes.starts.push(level.total);
    *level = Level {
        depth: level.depth + 1,
        count,
        total: level.total + count,
        transitions: level.transitions,
    };
}

/// The search found no new states after `level`, expanded in `mode`:
/// the proviso may choose states to expand fully (none after a pass,
/// which ends the search as in the sequential explorer); the frontier of
/// the states chosen on this worker, by their order among all chosen, or
/// the search's figures where it ends.
fn after_no_new<S: Checkable>(
    sys: &S,
    rounds: &mut Rounds<'_>,
    part: &mut Partition,
    (level, passes, mode): (&mut Level, &mut Passes, Mode),
) -> Result<Frontier, Box<Searched>> {
    let chosen = match (mode, sys.reduces()) {
        (Mode::Ample, true) => proviso::unexpanded(rounds, part, passes.range, &passes.starts),
        _ => Vec::new(),
    };
    if chosen.is_empty() {
        let t = level.transitions;
        let searched = done(rounds, part, Ending::Complete, level, (t, passes));
        return Err(Box::new(searched));
    }
    passes.full.extend(gather_states(rounds, part, &chosen));
    // The next pass looks at the states this one finds.
    passes.range = (level.depth + 1, part.preds.len());
    part.store_depths();
    level.count = chosen.len() as u64;
    let me = rounds.index() as u32;
    Ok(chosen
        .iter()
        .enumerate()
        .filter(|(_, c)| c.1 == me)
        .map(|(i, c)| (i as u64, c.2))
        .collect())
}

/// A level's first position in one word, in the same order: ranks and
/// action indices are below 2^32 (`Packing`).
fn pack((rank, pos): Key) -> u64 {
    let rank = u32::try_from(rank).expect("fewer than 2^32 states a run");
    (u64::from(rank) << 32) | u64::from(pos)
}

/// This worker's new states from `first_new` on, ordered by their first
/// positions, packed (`pack`): their first positions become (the rank of
/// the parent, the action's index) by the parents' level's `runs` (none:
/// the parents' orders were ranks already).
fn ranked_new(part: &mut Partition, first_new: u32, runs: Option<&Runs>) -> Frontier {
    let mut new: Vec<(Key, u32)> = part
        .newest_range_from(first_new)
        .map(|l| (part.key(l), l))
        .collect();
    new.sort_unstable();
    if let Some(runs) = runs {
        let orders: Vec<u64> = new.iter().map(|((o, _), _)| *o).collect();
        for ((key, l), rank) in new.iter_mut().zip(runs.ranks(&orders)) {
            key.0 = rank;
            part.set_key(*l, *key);
        }
    }
    new.into_iter().map(|(key, l)| (pack(key), l)).collect()
}

/// Every worker's orders of a level's states, a sorted run a record: a
/// state's rank is the number of orders before its own, in all runs.
struct Runs(Vec<Vec<u64>>);

impl Runs {
    /// The rank of the state of order `order`.
    fn rank_of(&self, order: u64) -> u64 {
        self.0
            .iter()
            .map(|run| run.partition_point(|&o| o < order) as u64)
            .sum()
    }

    /// The ranks of `orders`, sorted: one walk a run.
    fn ranks(&self, orders: &[u64]) -> Vec<u64> {
        let mut ranks = vec![0u64; orders.len()];
        for run in &self.0 {
            let mut before = 0;
            for (rank, &order) in ranks.iter_mut().zip(orders) {
                while before < run.len() && run[before] < order {
                    before += 1;
                }
                *rank += before as u64;
            }
        }
        ranks
    }

    /// Gives this worker's states of the level (`frontier`, sorted by
    /// order) their ranks: a round to rankers of ranges and one back cost
    /// two rounds a level.
    fn rank(&self, part: &mut Partition, frontier: &[(u64, u32)]) {
        let orders: Vec<u64> = frontier.iter().map(|f| f.0).collect();
        for (&(_, l), rank) in frontier.iter().zip(self.ranks(&orders)) {
            part.set_rank(l, rank);
        }
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
    /// Successors generated per expanded state: (order, count).
    per_state: Vec<(u64, u64)>,
    succs: u64,
    fault: Option<Event>,
    limit: Option<LimitKind>,
    /// Every worker's figures of the level's exchange, by index (`LIMIT`
    /// and on).
    figures: Vec<Vec<u64>>,
    /// Where the level's orders were first positions: every worker's,
    /// in runs.
    runs: Vec<Vec<u64>>,
}

/// Expands this worker's states `frontier` of level `depth` in batches,
/// and keeps the new successors at level `depth + 1`. A batch's records
/// leave as it ends and what reached this worker meanwhile is kept; the
/// level ends in one exchange once this worker's share is done, which
/// carries each worker's figures, with `share` (`PENDING`): a round after
/// every batch had every worker wait for the slowest at each (#43: 421
/// rounds against 136 at `priority_semaphore --blocks 6`, 8 × 2). Where
/// `keyed`, the frontier's orders (sorted) go to every worker first;
/// `edges` says which edges are kept, and those into levels before
/// `range` are the proviso's `leaving`; `sizes` has the last batch's
/// successors for each worker; the time spent is added to `spent`.
fn expand_level<S: Checkable>(
    sys: &S,
    (rounds, sizes, spent): (&mut Rounds<'_>, &mut [(usize, usize)], &mut Spent),
    part: &mut Partition,
    (frontier, keyed, depth, mode): (&[(u64, u32)], bool, u32, Mode),
    (opts, share): (&Options, u64),
    (edges, range): (Edges, u32),
) -> Expanded {
    let me = rounds.index() as u32;
    let peers = rounds.peers();
    // Edges from here into states before this are the proviso's `leaving`.
    let before_range = part.level_first(range);
    // This worker's states split evenly among as many batches as they
    // fill.
    let batch = batch_len(sys.state_words(), opts);
    let per_batch = frontier
        .len()
        .div_ceil(frontier.len().div_ceil(batch).max(1));
    let mut found = Expanded {
        per_state: Vec::new(),
        succs: 0,
        fault: None,
        limit: None,
        figures: vec![Vec::new(); peers],
        runs: Vec::new(),
    };
    // The orders leave first, to travel while this worker steps.
    let mut orders = Outbox::new(peers, Msg::Keys);
    if keyed {
        for w in 0..peers as u32 {
            for &(order, _) in frontier {
                orders.push(rounds, w, order);
            }
        }
    }
    let mut orders = Some(orders);
    let (mut actions, mut ample) = (Vec::new(), Vec::new());
    let mut state = vec![0u32; sys.state_words()];
    let mut next = state.clone();
    let mut todo = frontier.iter();
    let labelled = edges == Edges::Labelled;
    // This worker's stepping since the last exchange (`Spent::steps`).
    let mut stepped = Duration::ZERO;
    loop {
        let started = std::time::Instant::now();
        let mut out: Vec<Outgoing> = (sizes.iter().enumerate())
            .map(|(to, &(b, r))| Outgoing::with_room(rounds.is_remote(to as u32), (b, r), labelled))
            .collect();
        for &(order, local) in todo.by_ref().take(per_batch.max(1)) {
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
                        found.note(((order, 0), STUCK, 0));
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
                    found.note(((order, pos as u32), STEP_FAILED, a));
                    break;
                };
                sys.canonicalize(&mut next);
                // Checked here, where its position is known before the
                // exchange: the first successor that breaks an invariant
                // is new (a state stored before was checked then).
                if sys.check_state(&next).is_err() {
                    found.note(((order, pos as u32), BROKE_INVARIANT, 0));
                }
                let w = owner(&next, peers);
                let to = &mut out[w as usize];
                let wire = |out: &mut Vec<u8>| part.encode_wire(&next, out);
                to.states.push(&next, (wire, || sys.is_final(&next)));
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
            if labelled {
                part.set_steps(local, n);
            }
            found.succs += n;
        }
        for (size, to) in sizes.iter_mut().zip(&out) {
            *size = (to.states.bytes(), to.reached.len());
        }
        let into = (depth + 1, edges, mode, before_range);
        // The batch's records, and the frontier's orders where they have
        // not left yet.
        let mut msgs: Vec<(u32, Msg)> = out
            .into_iter()
            .enumerate()
            .filter(|(_, to)| !to.reached.is_empty())
            .map(|(w, to)| (w as u32, to.into_msg()))
            .collect();
        msgs.extend(orders.take().map(Outbox::into_msgs).unwrap_or_default());
        let expanded = std::time::Instant::now();
        spent.expand += expanded - started;
        stepped += expanded - started;
        if todo.len() > 0 && found.limit.is_none() {
            // No round before this worker's share is done: the batch's
            // records leave now and what came so far is kept, so that the
            // records in flight stay about a batch's.
            for (w, m) in msgs {
                rounds.post(w, m);
            }
            rounds.take_early(|m| match m {
                Msg::Keys(run) => found.runs.push(run),
                m => keep_succs(sys, part, &mut found, m, into),
            });
            spent.exchange += expanded.elapsed();
            continue;
        }
        let mut mine = vec![limit_code(found.limit), found.succs, share];
        mine.extend(encode_event(found.fault));
        msgs.extend(rounds.to_all(mine));
        spent
            .steps
            .push(std::mem::take(&mut stepped).as_micros() as u64);
        let mut figures = vec![Vec::new(); peers];
        rounds.exchange_each(msgs, |m| match m {
            Msg::Keys(run) => found.runs.push(run),
            Msg::Figures { from, values } => figures[from as usize] = values,
            m => keep_succs(sys, part, &mut found, m, into),
        });
        spent.exchange += expanded.elapsed();
        found.figures = figures;
        return found;
    }
}

impl Expanded {
    /// A stopping event at this worker: the first one counts.
    fn note(&mut self, at: Event) {
        self.fault = Some(self.fault.map_or(at, |f| f.min(at)));
    }
}

/// Keeps the successors of a record `m` of the level's exchange (others
/// are left alone) at `level` (`into`: the level, the edges kept, the
/// mode, the first index of the proviso's range).
fn keep_succs<S: Checkable>(
    sys: &S,
    part: &mut Partition,
    found: &mut Expanded,
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
        let edge = (read.next(sys.state_words()), key, from, action);
        let Some((l, _)) = keep(sys, part, edge, (level, from_depth + 1)) else {
            // The run's states would not fit a word (`Packing`): it ends
            // as the single explorer's does at 2^32.
            found.limit = Some(LimitKind::States);
            continue;
        };
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
    (state, key, from, action): (Incoming<'_>, Key, Ptr, u32),
    (level, depth): (u32, u32),
) -> Option<(u32, bool)> {
    let (held, is_final) = match state {
        Incoming::Words(words) => {
            let held = part.insert(words, level, key, from, action)?;
            (held, held.1 && sys.is_final(words))
        }
        Incoming::Wire(wire, is_final) => {
            (part.insert_wire(wire, level, key, from, action)?, is_final)
        }
    };
    match held {
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
            part.finals.push(is_final);
            Some((l, true))
        }
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

//! A bug hunt (`--hunt`): for launches the exhaustive search cannot
//! finish, a swarm of bounded random walks over the threads looks for a
//! violation instead of a proof.
//!
//! Each walk starts at the initial state and takes one enabled step after
//! another, chosen by its own random generator (seeded from `--seed` and
//! the walk's index, and diversified: some walks keep running the thread
//! that moved last, so that one block can get far ahead of the others).
//! A walk ends at a safety violation, at a final state, at a stuck state
//! (no step enabled, harness not finished), or after `depth` steps. Now
//! and then (after 64, 128, 256... steps, and at the last) it asks whether
//! the harness can still finish from where it is: every state reachable
//! from there is searched, within a small budget ([`TRAP_BUDGET`]); a
//! search that closes without a final state and without a step that passes
//! a progress point is a deadlock (every unfinished thread is stuck, as
//! the full analysis defines it), spinning threads included.
//!
//! Walks run in rounds of [`ROUND`] on the worker threads, and the first
//! violation in walk order wins: the report depends on the seed, not on
//! the number of threads or their timing (unless a limit stops the hunt).
//! The violation found is then shortened: a breadth-first check bounded to
//! [`SHORTEN_STATES`] states may find the same kind of violation by a
//! shortest trace; otherwise steps are removed from the walk's schedule as
//! long as its replay still ends in the same kind of violation (delta
//! debugging). A hunt that finds nothing is inconclusive: walks sample the
//! interleavings, they do not cover them.
//!
//! The walks step the model itself (only the awaits reduction, which
//! leaves out failed polls that change nothing, is kept): schedules are
//! real threads' steps, and replay as they are.

use super::deadlock::{describe, explain};
use super::{check, CheckResult, Checkable, Finding, Settings};
use crate::clock::Instant;
use crate::explore::TransitionSystem;
use crate::explore::{explore, LimitKind, Options, Outcome, Rooted, StateId, Stats};
use crate::model::{Model, Violation, ViolationKind};
use crate::reduce::{Reduced, Reductions};
use crate::rng::SplitMix64;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};

/// How to hunt: the seed of the walks, how many, and how deep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hunt {
    pub seed: u64,
    pub walks: u64,
    pub depth: u32,
}

impl Hunt {
    pub const DEFAULT_WALKS: u64 = 100_000;
    pub const DEFAULT_DEPTH: u32 = 5_000;
}

impl Default for Hunt {
    fn default() -> Hunt {
        Hunt {
            seed: 0,
            walks: Hunt::DEFAULT_WALKS,
            depth: Hunt::DEFAULT_DEPTH,
        }
    }
}

/// Walks per round: the unit of determinism (the first violation in walk
/// order within the first round that has one).
const ROUND: u64 = 32;
/// States the first search for a way out of a walk's state may store;
/// each later one of the same walk may store twice as many as the one
/// before, up to [`TRAP_MAX`] (a deadlocked walk keeps asking until the
/// region it spins in fits; a walk that goes on pays little).
const TRAP_FIRST: u64 = 256;
/// States a search for a way out may store at most.
const TRAP_MAX: u64 = 65_536;
/// The recent states a walk remembers: a state seen again among them (the
/// threads that moved went round in loops) is when to ask.
const RECENT: usize = 64;
/// States the breadth-first check that shortens a violation may store.
const SHORTEN_STATES: u64 = 200_000;
/// Replays the delta debugging of a schedule may try.
const SHORTEN_TRIES: usize = 200;
/// Steps between two looks at the limits within a walk.
const LOOK_EVERY: u32 = 256;

/// What a walk found: the schedule from the initial state.
#[derive(Clone, Debug)]
enum Found {
    /// A step (the last of the schedule) or the state it reached raised
    /// a safety violation.
    Fault(Vec<u32>, Violation),
    /// The schedule ends where the harness can no longer finish and an
    /// unfinished thread can never progress again; the states reachable
    /// from there (how many).
    Stuck(Vec<u32>, u64),
}

/// How a walk ended.
enum Walked {
    Clean,
    Found(Found),
    Limit(LimitKind),
    /// An earlier walk of the round found a violation: this one stopped.
    Cancelled,
}

/// Searches `model` by random walks (see the module). The check's limits
/// bound the whole hunt; steps count as states for `--max-states`.
pub(crate) fn hunt(model: &Model, settings: &Settings, hunt: Hunt) -> CheckResult {
    let started = Instant::now();
    let wanted = Reductions {
        awaits: settings.reductions.awaits,
        ..Reductions::NONE
    };
    let (sys, _) = Reduced::new(model, wanted);
    let opts = &settings.limits;
    let swarm = Swarm {
        sys: &sys,
        opts,
        hunt,
        steps: AtomicU64::new(0),
        best: AtomicU64::new(u64::MAX),
    };
    let (found, limit, walks) = swarm.run();
    let mut stats = Stats {
        states: swarm.steps.load(Ordering::Relaxed),
        transitions: swarm.steps.load(Ordering::Relaxed),
        ..Stats::default()
    };
    let mut findings = Vec::new();
    let mut fault = false;
    if let Some(found) = found {
        fault = matches!(found, Found::Fault(..));
        let finding = finding_of(&sys, &found);
        // The bounded breadth-first check reports what it meets on the
        // fly: safety violations and stuck states, not spinning threads.
        let spins = matches!(found, Found::Stuck(_, n) if n > 1);
        let bfs = (!spins)
            .then(|| bfs_shortest(model, settings, &finding))
            .flatten();
        let finding = bfs.unwrap_or_else(|| finding_of(&sys, &shorten(&sys, opts, found)));
        stats.max_depth = finding.schedule.len() as u32;
        findings.push(finding);
    }
    stats.expanded = walks;
    stats.seconds = started.elapsed().as_secs_f64();
    stats.states_per_second = stats.states as f64 / stats.seconds.max(1e-9);
    stats.peak_rss_bytes = crate::explore::peak_rss_bytes();
    CheckResult {
        limit: match findings.is_empty() {
            true => Some(limit.unwrap_or(LimitKind::Walks)),
            false => None,
        },
        findings,
        stats,
        reductions: None,
        fault,
    }
}

/// The walks of one hunt, shared by the worker threads.
struct Swarm<'a, 'm, 'p> {
    sys: &'a Reduced<'m, 'p>,
    opts: &'a Options,
    hunt: Hunt,
    /// Steps taken by all walks.
    steps: AtomicU64,
    /// The least index of a walk of this round that found a violation.
    best: AtomicU64,
}

impl Swarm<'_, '_, '_> {
    /// Runs rounds of walks until one finds a violation, the walks run
    /// out, or a limit stops them: the first violation in walk order, the
    /// limit, and the walks run.
    fn run(&self) -> (Option<Found>, Option<LimitKind>, u64) {
        let threads = self.opts.threads.max(1);
        let mut walked = 0;
        while walked < self.hunt.walks {
            let first = walked;
            let n = ROUND.min(self.hunt.walks - first);
            let next = AtomicU64::new(first);
            let results = std::sync::Mutex::new(Vec::new());
            std::thread::scope(|scope| {
                for _ in 0..threads.min(n as usize) {
                    scope.spawn(|| {
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            if i >= first + n {
                                break;
                            }
                            let walked = self.walk(i);
                            if let Walked::Found(_) = walked {
                                self.best.fetch_min(i, Ordering::Relaxed);
                            }
                            results.lock().expect("no walk panics").push((i, walked));
                        }
                        // The walker's share of the heap count (explore::heap).
                        crate::explore::heap::settle();
                    });
                }
            });
            walked += n;
            let mut results = results.into_inner().expect("no walk panics");
            results.sort_by_key(|(i, _)| *i);
            // A violation found is real even where a limit stopped
            // another walk: the first in walk order is reported.
            let mut limit = None;
            for (_, result) in results {
                match result {
                    Walked::Found(found) => return (Some(found), None, walked),
                    Walked::Limit(l) => limit = limit.or(Some(l)),
                    Walked::Clean | Walked::Cancelled => {}
                }
            }
            if limit.is_some() {
                return (None, limit, walked);
            }
        }
        (None, None, walked)
    }

    /// Walk number `index` (see the module).
    fn walk(&self, index: u64) -> Walked {
        let sys = self.sys;
        let mut rng = Rng::new(self.hunt.seed, index);
        // Percent of steps that stay with the thread that moved last.
        let stay = [0, 50, 90][rng.below(3)];
        let mut state = vec![0u32; sys.state_words()];
        sys.initial_state(&mut state);
        let mut next = state.clone();
        let mut schedule = Vec::new();
        if let Err(v) = sys.check_state(&state) {
            return Walked::Found(Found::Fault(schedule, v));
        }
        let (mut actions, mut mine) = (Vec::new(), Vec::new());
        let mut last = usize::MAX;
        let mut recent = [0u64; RECENT];
        // When the next search for a way out may run, the gap after it,
        // and its budget.
        let (mut next_look, mut gap, mut budget) = (RECENT as u32, RECENT as u32, TRAP_FIRST);
        for depth in 1..=self.hunt.depth {
            if depth % LOOK_EVERY == 0 {
                if let Some(end) = self.look(index) {
                    return end;
                }
            }
            actions.clear();
            sys.actions(&state, &mut actions);
            if actions.is_empty() {
                self.steps
                    .fetch_add(u64::from(depth % LOOK_EVERY), Ordering::Relaxed);
                return match sys.is_final(&state) {
                    true => Walked::Clean,
                    false => Walked::Found(Found::Stuck(schedule, 1)),
                };
            }
            mine.clear();
            mine.extend(actions.iter().filter(|&&a| sys.thread_of(a) == last));
            let choices = match !mine.is_empty() && rng.below(100) < stay {
                true => &mine,
                false => &actions,
            };
            let a = choices[rng.below(choices.len())];
            schedule.push(a);
            next.copy_from_slice(&state);
            if let Err(v) = sys.step_from_copy(&state, a, &mut next) {
                return Walked::Found(Found::Fault(schedule, v));
            }
            std::mem::swap(&mut state, &mut next);
            if let Err(v) = sys.check_state(&state) {
                return Walked::Found(Found::Fault(schedule, v));
            }
            last = sys.thread_of(a);
            let h = hash(&state);
            let seen = recent.contains(&h);
            recent[depth as usize % RECENT] = h;
            let look = depth == self.hunt.depth || (seen && depth >= next_look);
            if look && self.best.load(Ordering::Relaxed) < index {
                return Walked::Cancelled;
            }
            if look {
                let budget_now = match depth == self.hunt.depth {
                    true => TRAP_MAX,
                    false => budget,
                };
                match trapped(sys, self.opts, &state, budget_now) {
                    Trap::Open => {
                        next_look = depth.saturating_add(gap);
                        gap = gap.saturating_mul(2);
                        budget = (budget * 2).min(TRAP_MAX);
                    }
                    Trap::Stuck(n) => return Walked::Found(Found::Stuck(schedule, n)),
                    Trap::Fault(more, v) => {
                        schedule.extend(more);
                        return Walked::Found(Found::Fault(schedule, v));
                    }
                }
            }
        }
        self.steps
            .fetch_add(u64::from(self.hunt.depth % LOOK_EVERY), Ordering::Relaxed);
        Walked::Clean
    }

    /// Counts [`LOOK_EVERY`] steps and says whether the walk must stop: a
    /// limit of the check, or an earlier walk of the round found a violation.
    fn look(&self, index: u64) -> Option<Walked> {
        let steps = self
            .steps
            .fetch_add(u64::from(LOOK_EVERY), Ordering::Relaxed);
        if self.best.load(Ordering::Relaxed) < index {
            return Some(Walked::Cancelled);
        }
        if self.opts.max_states.is_some_and(|m| steps >= m) {
            return Some(Walked::Limit(LimitKind::States));
        }
        self.opts.limit_reached().map(Walked::Limit)
    }
}

/// Whether the harness can still finish from a state.
enum Trap {
    /// Not known: the search met a final state, or every unfinished
    /// thread passes a progress point somewhere, or it did not close
    /// within its budget.
    Open,
    /// No: every state reachable from it was searched (this many), none
    /// is final, and some unfinished thread passes no progress point in
    /// any of them, so it can never progress again.
    Stuck(u64),
    /// A safety violation is reachable from it, by these steps.
    Fault(Vec<u32>, Violation),
}

/// How a search from a walk's state ends early.
#[derive(Clone, Debug)]
enum Exit {
    /// A final state: the harness can finish from there.
    Final,
    /// A safety violation.
    Fault(Violation),
}

/// The system started at `root`, where a final state ends the search (a
/// way out is all the question needs).
struct Escape<'a, 'm, 'p> {
    sys: &'a Reduced<'m, 'p>,
    root: &'a [u32],
}

impl TransitionSystem for Escape<'_, '_, '_> {
    type Action = u32;
    type Fault = Exit;

    fn state_words(&self) -> usize {
        self.sys.state_words()
    }

    fn initial_state(&self, out: &mut [u32]) {
        out.copy_from_slice(self.root);
    }

    fn actions(&self, state: &[u32], out: &mut Vec<u32>) {
        self.sys.actions(state, out);
    }

    fn step(&self, state: &[u32], a: u32, out: &mut [u32]) -> Result<(), Exit> {
        self.sys.step(state, a, out).map_err(Exit::Fault)
    }

    fn step_from_copy(&self, state: &[u32], a: u32, out: &mut [u32]) -> Result<(), Exit> {
        self.sys.step_from_copy(state, a, out).map_err(Exit::Fault)
    }

    fn check_state(&self, state: &[u32]) -> Result<(), Exit> {
        if self.sys.is_final(state) {
            return Err(Exit::Final);
        }
        self.sys.check_state(state).map_err(Exit::Fault)
    }

    fn is_final(&self, state: &[u32]) -> bool {
        self.sys.is_final(state)
    }
}

/// Searches every state reachable from `state` within `budget` states,
/// stopping at a final state: whether the harness can still finish (see
/// [`Trap`]).
fn trapped(sys: &Reduced, opts: &Options, state: &[u32], budget: u64) -> Trap {
    let escape = Escape { sys, root: state };
    let options = Options {
        max_states: Some(budget),
        deadline: opts.deadline,
        max_memory_bytes: opts.max_memory_bytes,
        keep_edges: true,
        ..Options::default()
    };
    let ex = explore(&escape, &options);
    match ex.outcome() {
        Outcome::Complete => {}
        Outcome::Fault {
            fault: Exit::Fault(v),
            ..
        } => {
            let path = ex.fault_path().unwrap_or_default();
            return Trap::Fault(path.into_iter().map(|(_, a)| a).collect(), v.clone());
        }
        _ => return Trap::Open,
    }
    // The threads that pass a progress point somewhere in the region.
    let threads = sys.thread_count();
    let mut progress = vec![false; threads];
    let mut s = vec![0u32; sys.state_words()];
    let mut next = s.clone();
    for id in 0..ex.num_states() as StateId {
        ex.read_state(id, &mut s);
        for (a, _) in ex.successors(id) {
            if sys.step_labels(&s, a, &mut next).1.progressed {
                progress[sys.thread_of(a)] = true;
            }
        }
    }
    // The full analysis's deadlock at `state`: an unfinished thread that
    // can never progress again (and no final state is reachable).
    match (0..threads).any(|t| !sys.is_finished(state, t) && !progress[t]) {
        true => Trap::Stuck(ex.num_states() as u64),
        false => Trap::Open,
    }
}

/// A hash of a state's words, to notice a walk coming back to a state.
fn hash(state: &[u32]) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    for &w in state {
        h.write_u32(w);
    }
    h.finish()
}

/// Where a replay ends: its last state, and the violation that cut it
/// (the steps taken up to it) if one did.
type Replayed = (Vec<u32>, Option<(usize, Violation)>);

/// Replays `schedule` on `sys` from the initial state, each step enabled
/// where it is taken: the state it ends in, or the violation a step or a
/// state raises on the way with the schedule cut there; `None` where a
/// step is not enabled.
fn replay(sys: &Reduced, schedule: &[u32]) -> Option<Replayed> {
    let mut state = vec![0u32; sys.state_words()];
    sys.initial_state(&mut state);
    if let Err(v) = sys.check_state(&state) {
        return Some((state, Some((0, v))));
    }
    let mut next = state.clone();
    let mut actions = Vec::new();
    for (i, &a) in schedule.iter().enumerate() {
        actions.clear();
        sys.actions(&state, &mut actions);
        if !actions.contains(&a) {
            return None;
        }
        next.copy_from_slice(&state);
        let stepped = sys.step_from_copy(&state, a, &mut next);
        if let Err(v) = stepped {
            return Some((state, Some((i + 1, v))));
        }
        std::mem::swap(&mut state, &mut next);
        if let Err(v) = sys.check_state(&state) {
            return Some((state, Some((i + 1, v))));
        }
    }
    Some((state, None))
}

/// The violation `found` again by `schedule`, if its replay ends in the
/// same kind (a fault of the same kind on the way cuts it there).
fn again(
    sys: &Reduced,
    (opts, budget): (&Options, u64),
    found: &Found,
    schedule: &[u32],
) -> Option<Found> {
    let (end, fault) = replay(sys, schedule)?;
    match (found, fault) {
        (Found::Fault(_, was), Some((at, v))) if v.kind == was.kind => {
            Some(Found::Fault(schedule[..at].to_vec(), v))
        }
        (Found::Stuck(..), None) => match trapped(sys, opts, &end, budget) {
            Trap::Stuck(n) => Some(Found::Stuck(schedule.to_vec(), n)),
            _ => None,
        },
        _ => None,
    }
}

/// Delta debugging of a walk's schedule: removes runs of steps (halves,
/// quarters, ... single steps) while the replay still ends in the same
/// kind of violation, within [`SHORTEN_TRIES`] replays and the limits.
fn shorten(sys: &Reduced, opts: &Options, found: Found) -> Found {
    // A region about the size of the one found is searched per replay.
    let budget = match &found {
        Found::Stuck(_, n) => (n * 4).clamp(TRAP_FIRST, TRAP_MAX),
        Found::Fault(..) => TRAP_FIRST,
    };
    let opts = (opts, budget);
    let mut found = trim(sys, opts, found);
    let mut tries = SHORTEN_TRIES;
    let schedule = |f: &Found| match f {
        Found::Fault(s, _) | Found::Stuck(s, _) => s.clone(),
    };
    let mut size = schedule(&found).len() / 2;
    while size >= 1 && tries > 0 {
        let mut at = 0;
        loop {
            let current = schedule(&found);
            if at >= current.len() || tries == 0 || opts.0.limit_reached().is_some() {
                break;
            }
            tries -= 1;
            let end = (at + size).min(current.len());
            let candidate = [&current[..at], &current[end..]].concat();
            match again(sys, opts, &found, &candidate) {
                Some(shorter) => found = shorter,
                None => at += size,
            }
        }
        size /= 2;
    }
    found
}

/// The shortest prefix of a deadlock's schedule that is stuck already
/// (binary search: a state from which the harness cannot finish leads
/// only to such states, so being stuck is monotone along the schedule,
/// up to the search's budget): the walk may have spun a while before it
/// looked.
fn trim(sys: &Reduced, opts: (&Options, u64), found: Found) -> Found {
    let Found::Stuck(schedule, _) = &found else {
        return found;
    };
    let (mut lo, mut hi) = (0, schedule.len());
    let mut best = None;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match again(sys, opts, &found, &schedule[..mid]) {
            Some(shorter) => (hi, best) = (mid, Some(shorter)),
            None => lo = mid + 1,
        }
    }
    best.unwrap_or(found)
}

/// The finding for what a walk found: a fault as the search reports it,
/// a deadlock explained as the graph analysis explains it (who waits on
/// what where the threads end up), after the walk's schedule.
fn finding_of(sys: &Reduced, found: &Found) -> Finding {
    match found {
        Found::Fault(schedule, v) => {
            let mut finding = Finding {
                kind: v.kind,
                property: v.property,
                message: v.message.clone(),
                waiting: Vec::new(),
                schedule: schedule.clone(),
                cycle: Vec::new(),
            };
            sys.refine_fault(&mut finding);
            finding
        }
        Found::Stuck(schedule, _) => {
            let end = replay(sys, schedule).map(|(end, _)| end);
            // The walk searched the same state the same way: it is stuck.
            let region = end.as_ref().map(|e| {
                let rooted = Rooted::new(sys, e.clone());
                let options = Options {
                    max_states: Some(TRAP_MAX),
                    keep_edges: true,
                    ..Options::default()
                };
                explore(&rooted, &options)
            });
            let mut finding = match (region, &end) {
                (Some(ex), _) if ex.is_complete() => explain(sys, &ex, 0, &|_| true, None),
                (_, end) => Finding {
                    kind: ViolationKind::Deadlock,
                    property: "deadlock",
                    message: "no execution can finish the harness".into(),
                    waiting: end.as_ref().map_or_else(Vec::new, |e| describe(sys, e)),
                    schedule: Vec::new(),
                    cycle: Vec::new(),
                },
            };
            finding.schedule.splice(0..0, schedule.iter().copied());
            finding
        }
    }
}

/// A shortest trace to the same kind of violation, from a breadth-first
/// check bounded to [`SHORTEN_STATES`] states, where that finds one no
/// longer than `finding`'s.
fn bfs_shortest(model: &Model, settings: &Settings, finding: &Finding) -> Option<Finding> {
    let max = settings
        .limits
        .max_states
        .map_or(SHORTEN_STATES, |m| m.min(SHORTEN_STATES));
    let bounded = Settings {
        limits: Options {
            max_states: Some(max),
            progress: false,
            ..settings.limits.clone()
        },
        ..settings.clone()
    };
    let result = check(model, &bounded);
    let length = |f: &Finding| f.schedule.len();
    result
        .findings
        .into_iter()
        .find(|f| f.kind == finding.kind && length(f) <= length(finding))
}

/// A walk's random numbers: SplitMix64, seeded from the hunt's seed and
/// the walk's index (so each walk is reproducible on its own).
struct Rng(SplitMix64);

impl Rng {
    fn new(seed: u64, index: u64) -> Rng {
        let mut rng = SplitMix64::new(seed ^ index.wrapping_mul(0xA076_1D64_78BD_642F));
        rng.next_u64();
        Rng(rng)
    }

    /// A number below `n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        self.0.below(n as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn walks_of_one_seed_repeat_and_walks_differ() {
        let draw = |seed, index| {
            let mut r = Rng::new(seed, index);
            (0..8).map(|_| r.below(1000)).collect::<Vec<_>>()
        };
        assert_eq!(draw(7, 3), draw(7, 3));
        assert_ne!(draw(7, 3), draw(7, 4));
        assert_ne!(draw(7, 3), draw(8, 3));
    }
}

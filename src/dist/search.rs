//! The level-synchronous breadth-first search of one worker (LTSmin's
//! `pins2lts-dist` design on timely): each worker expands the states of
//! the current level it owns, sends every successor to its owner, and the
//! owners keep the new ones. A state's first position (the smallest
//! (parent rank, action index) it was reached at) decides its parent and,
//! once the level is complete, its rank, so that parents, the first fault,
//! and the state counts at it are those of the sequential explorer.

use super::partition::{owner, Partition, ROOT};
use super::rounds::{Key, Msg, Ptr, Rounds};
use crate::explore::{LimitKind, Options, TransitionSystem};

/// States expanded by a worker between two exchanges.
const BATCH: usize = 4096;

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
}

/// A stopping event of a level: its position, whether a step failed there
/// (`0`) or a new state broke an invariant (`1`), and the failed action.
type Event = (Key, u64, u32);

struct Level {
    depth: u32,
    /// Every worker's states of this level.
    count: u64,
    /// States of all earlier levels and this one.
    total: u64,
    /// Transitions of all earlier levels.
    transitions: u64,
}

/// Searches `sys` on this worker's partition; `keep_preds` keeps the
/// edges into each state for the deadlock analysis.
pub(super) fn search<S>(
    sys: &S,
    rounds: &mut Rounds<'_>,
    part: &mut Partition,
    opts: &Options,
    keep_preds: bool,
) -> Searched
where
    S: TransitionSystem<Action = u32>,
{
    let me = rounds.index() as u32;
    let peers = rounds.peers();
    let mut cur = vec![0u32; sys.state_words()];
    sys.initial_state(&mut cur);
    sys.canonicalize(&mut cur);
    let mut invalid = 0;
    if owner(&cur, peers) == me {
        let l = part.insert(&cur, 0, (0, 0), ROOT, 0);
        part.rank[l as usize] = 0;
        part.finals.push(sys.is_final(&cur));
        invalid = u64::from(sys.check_state(&cur).is_err());
    }
    let mut level = Level {
        depth: 0,
        count: 1,
        total: 1,
        transitions: 0,
    };
    let done = |rounds: &mut Rounds<'_>, part: &Partition, ending, level: &Level, t| {
        let per_worker = rounds.gather(vec![part.len() as u64]);
        Searched {
            ending,
            states: level.total,
            transitions: t,
            max_depth: level.depth,
            per_worker: per_worker.into_iter().map(|v| v[0]).collect(),
        }
    };
    if rounds.sum(vec![invalid])[0] > 0 {
        let ending = Ending::Fault {
            path: Vec::new(),
            step: false,
        };
        return done(rounds, part, ending, &level, 0);
    }
    loop {
        let frontier = part.newest_range();
        let first_new = part.len() as u32;
        let at = (frontier, level.depth);
        let expanded = expand_level(sys, rounds, part, at, opts, keep_preds);
        let depth = level.depth;
        // New states that break an invariant, at their first position.
        let bad = part
            .newest_range_from(first_new)
            .filter(|&l| sys.check_state(part.state(l)).is_err())
            .map(|l| (part.key[l as usize], 1u64, 0u32))
            .min();
        let event = expanded.fault.into_iter().chain(bad).min();
        let new = u64::from(part.len() as u32 - first_new);
        let mine = [
            expanded.limit.map_or(0, |k| 1 + k as u64),
            new,
            expanded.succs,
        ];
        let mut mine = mine.to_vec();
        mine.extend(encode_event(event));
        let all = rounds.gather(mine);
        if let Some(kind) = all.iter().filter(|v| v[0] > 0).map(|v| v[0]).min() {
            let t = level.transitions;
            return done(rounds, part, Ending::Limit(limit_kind(kind)), &level, t);
        }
        let event = all.iter().filter_map(|v| decode_event(&v[3..])).min();
        if let Some(event) = event {
            return stop_at(rounds, part, (event, first_new), &expanded, level);
        }
        let new: u64 = all.iter().map(|v| v[1]).sum();
        level.transitions += all.iter().map(|v| v[2]).sum::<u64>();
        if new == 0 {
            let t = level.transitions;
            return done(rounds, part, Ending::Complete, &level, t);
        }
        if level.total + new > opts.max_states.unwrap_or(u64::MAX) {
            level.total = opts.max_states.unwrap_or(u64::MAX);
            let t = level.transitions;
            return done(rounds, part, Ending::Limit(LimitKind::States), &level, t);
        }
        rank_level(rounds, part, first_new, level.count);
        part.newest = first_new as usize;
        level = Level {
            depth: depth + 1,
            count: new,
            total: level.total + new,
            transitions: level.transitions,
        };
    }
}

/// What expanding a level found on this worker.
struct Expanded {
    /// Successors generated per expanded state: (rank, count).
    per_state: Vec<(u64, u64)>,
    succs: u64,
    fault: Option<Event>,
    limit: Option<LimitKind>,
}

/// Expands this worker's states `frontier` of the level in batches, one
/// exchange each (as many as the busiest worker needs), and keeps the new
/// successors at level `depth + 1`.
fn expand_level<S>(
    sys: &S,
    rounds: &mut Rounds<'_>,
    part: &mut Partition,
    (frontier, depth): (std::ops::Range<u32>, u32),
    opts: &Options,
    keep_preds: bool,
) -> Expanded
where
    S: TransitionSystem<Action = u32>,
{
    let me = rounds.index() as u32;
    let peers = rounds.peers();
    let batches = rounds.gather(vec![frontier.len().div_ceil(BATCH) as u64]);
    let batches = batches.iter().map(|v| v[0]).max().unwrap_or(0);
    let mut found = Expanded {
        per_state: Vec::new(),
        succs: 0,
        fault: None,
        limit: None,
    };
    let (mut actions, mut state) = (Vec::new(), vec![0u32; sys.state_words()]);
    let mut next = state.clone();
    let mut todo = frontier;
    for _ in 0..batches {
        let mut out = Vec::new();
        for local in todo.by_ref().take(BATCH) {
            if found.limit.is_some() {
                break;
            }
            found.limit = opts.limit_reached();
            state.copy_from_slice(part.state(local));
            let rank = part.rank[local as usize];
            actions.clear();
            sys.actions(&state, &mut actions);
            let mut n = 0;
            for (pos, &a) in actions.iter().enumerate() {
                next.copy_from_slice(&state);
                if sys.step_from_copy(&state, a, &mut next).is_err() {
                    let at = ((rank, pos as u32), 0, a);
                    found.fault = Some(found.fault.map_or(at, |f| f.min(at)));
                    break;
                }
                sys.canonicalize(&mut next);
                let key = (rank, pos as u32);
                let succ = Msg::Succ {
                    words: next.clone(),
                    key,
                    from: (me, local),
                    action: a,
                };
                out.push((owner(&next, peers), succ));
                n += 1;
            }
            found.per_state.push((rank, n));
            found.succs += n;
        }
        for m in rounds.exchange(out) {
            if let Msg::Succ {
                words,
                key,
                from,
                action,
            } = m
            {
                keep(
                    sys,
                    part,
                    (&words, key, from, action),
                    depth + 1,
                    keep_preds,
                );
            }
        }
    }
    found
}

/// Keeps one received successor: a new state, or an earlier position of a
/// state new in this level; and the edge, for the deadlock analysis.
fn keep<S: TransitionSystem<Action = u32>>(
    sys: &S,
    part: &mut Partition,
    (words, key, from, action): (&[u32], Key, Ptr, u32),
    depth: u32,
    keep_preds: bool,
) {
    let l = match part.find(words) {
        Some(l) => {
            let i = l as usize;
            if part.level[i] == depth && key < part.key[i] {
                part.key[i] = key;
                part.parent[i] = from;
                part.via[i] = action;
            }
            l
        }
        None => {
            let l = part.insert(words, depth, key, from, action);
            part.finals.push(sys.is_final(words));
            l
        }
    };
    if keep_preds {
        part.preds.push((l, from));
    }
}

/// Gives the states new in this level (on every worker) their ranks: each
/// worker sorts the first positions of a range of parent ranks, and the
/// counts of the ranges before it offset its ranks.
fn rank_level(rounds: &mut Rounds<'_>, part: &mut Partition, first_new: u32, count: u64) {
    let me = rounds.index() as u32;
    let peers = rounds.peers() as u128;
    let out: Vec<(u32, Msg)> = part
        .newest_range_from(first_new)
        .map(|local| {
            let key = part.key[local as usize];
            let w = (u128::from(key.0) * peers / u128::from(count.max(1))) as u32;
            (
                w,
                Msg::Key {
                    key,
                    owner: me,
                    local,
                },
            )
        })
        .collect();
    let mut keys: Vec<(Key, u32, u32)> = rounds
        .exchange(out)
        .into_iter()
        .filter_map(|m| match m {
            Msg::Key { key, owner, local } => Some((key, owner, local)),
            _ => None,
        })
        .collect();
    keys.sort_unstable();
    let counts = rounds.gather(vec![keys.len() as u64]);
    let offset: u64 = counts[..me as usize].iter().map(|v| v[0]).sum();
    let ranks = keys.iter().enumerate().map(|(i, &(_, owner, local))| {
        let rank = offset + i as u64;
        (owner, Msg::Rank { local, rank })
    });
    for m in rounds.exchange(ranks.collect::<Vec<_>>()) {
        if let Msg::Rank { local, rank } = m {
            part.rank[local as usize] = rank;
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
    level: Level,
) -> Searched {
    let step = kind == 0;
    let before = |k: &Key| *k < key || (!step && *k == key);
    let kept = part
        .newest_range_from(first_new)
        .filter(|&l| before(&part.key[l as usize]))
        .count() as u64;
    // Successors of states before the event's, the event's own before it,
    // and the edge to a rejected state.
    let mut succs: u64 = expanded
        .per_state
        .iter()
        .filter(|(r, _)| *r < key.0)
        .map(|(_, n)| n)
        .sum();
    if expanded.per_state.iter().any(|(r, _)| *r == key.0) {
        succs += u64::from(key.1) + u64::from(!step);
    }
    let all = rounds.sum(vec![kept, succs]);
    // Where the event is: the expanded state (a failed step) or the new one.
    let at = match step {
        true => part
            .newest_range()
            .take_while(|&l| l < first_new)
            .find(|&l| part.rank[l as usize] == key.0),
        false => part
            .newest_range_from(first_new)
            .find(|&l| part.key[l as usize] == key),
    };
    let mut path = walk(rounds, part, at);
    if step {
        path.push(action);
    }
    let per_worker = rounds.gather(vec![part.len() as u64]);
    Searched {
        ending: Ending::Fault { path, step },
        states: level.total + all[0],
        transitions: level.transitions + all[1],
        max_depth: level.depth + u32::from(all[0] > 0),
        per_worker: per_worker.into_iter().map(|v| v[0]).collect(),
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
                let (w, p) = part.parent[l as usize];
                vec![
                    1,
                    u64::from(part.via[l as usize]),
                    u64::from(w),
                    u64::from(p),
                ]
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

fn limit_kind(code: u64) -> LimitKind {
    match code - 1 {
        0 => LimitKind::States,
        1 => LimitKind::Time,
        2 => LimitKind::Memory,
        _ => LimitKind::Interrupted,
    }
}

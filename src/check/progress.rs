//! Which cycles a progress model admits: the guarantees of `--scheduler`
//! judged on a strongly connected component of the state graph.
//!
//! The launch is a tree: the grid's children are its blocks, a block's
//! children its threads. Each level has a progress model ([`Levels`]). As
//! in Dat3M's forward-progress encoding, a group that *runs* (the grid
//! always does) passes the guarantee on to some of its children:
//!
//! - every group that runs and can run keeps at least one child that can
//!   run running (minimal progress: something always moves);
//! - `fair` (and `strong`): every child runs;
//! - `hsa`: child `i` runs if no lower-numbered child can run;
//! - `obe`: a child that has run once runs;
//! - `hsa-obe`: both;
//! - `lobe`: child `i` runs if it or a higher-numbered child has run once;
//! - `unfair`: only the minimal progress.
//!
//! A thread that runs is treated with weak fairness: on the cycle it moves,
//! or it is disabled somewhere. A component holds a cycle the models admit
//! iff the cycle through all of it does: moving and being disabled
//! somewhere only grow with the cycle, and a child that can run on a
//! smaller cycle (enabled somewhere, unfinished) can on the larger one,
//! where a thread that stops being able to run is disabled somewhere, so
//! fair. Which threads are finished and which have run once is the same in
//! every state of a component (both are permanent, and a cycle returns to
//! where it started). Strong fairness (only as the model of every level)
//! is decided by pruning in `liveness`.

use crate::model::{Levels, Progress};

/// What a component shows of one thread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Seen {
    pub finished: bool,
    /// It has taken a step (on the cycle or before it).
    pub started: bool,
    /// It moves on some edge of the component.
    pub moves: bool,
    pub enabled_somewhere: bool,
    pub disabled_somewhere: bool,
}

impl Seen {
    /// Weak fairness holds for it on the cycle through the component.
    fn fair(&self) -> bool {
        self.moves || self.disabled_somewhere
    }

    /// It can still run: unfinished, and enabled somewhere.
    fn can_run(&self) -> bool {
        !self.finished && self.enabled_somewhere
    }
}

/// A child of a group as its parent's model sees it.
struct Child {
    can_run: bool,
    started: bool,
    /// If it can be kept running: the threads whose fairness that relies
    /// on (the witnesses a lasso shows). `None`: it cannot.
    runs: Option<Vec<usize>>,
}

/// Whether the cycle through a component showing `seen` (one entry per
/// thread, `threads_per_block` a block) is admitted by `levels`: the
/// threads whose weak fairness it relies on, in order; `None` if the
/// models rule it out.
pub(super) fn admitted(
    levels: Levels,
    threads_per_block: usize,
    seen: &[Seen],
) -> Option<Vec<usize>> {
    let blocks: Vec<Child> = seen
        .chunks(threads_per_block.max(1))
        .enumerate()
        .map(|(b, threads)| {
            let leaves: Vec<Child> = threads
                .iter()
                .enumerate()
                .map(|(i, s)| leaf(b * threads_per_block + i, s))
                .collect();
            group(levels.threads, &leaves)
        })
        .collect();
    group(levels.blocks, &blocks).runs
}

fn leaf(t: usize, s: &Seen) -> Child {
    Child {
        can_run: s.can_run(),
        started: s.started,
        runs: match (s.finished, s.fair()) {
            (true, _) => Some(Vec::new()),
            (false, true) => Some(vec![t]),
            (false, false) => None,
        },
    }
}

/// Whether the model guarantees child `i` of `children` (given that the
/// group runs).
fn guaranteed(model: Progress, children: &[Child], i: usize) -> bool {
    let hsa = || !children[..i].iter().any(|c| c.can_run);
    let obe = || children[i].started;
    match model {
        Progress::Fair | Progress::Strong => true,
        Progress::Hsa => hsa(),
        Progress::Obe => obe(),
        Progress::HsaObe => hsa() || obe(),
        Progress::Lobe => children[i..].iter().any(|c| c.started),
        Progress::Unfair => false,
    }
}

/// A group of `children` under `model`: it can be kept running if every
/// guaranteed child can, and, if it can run, some child that can run does.
fn group(model: Progress, children: &[Child]) -> Child {
    let can_run = children.iter().any(|c| c.can_run);
    let started = children.iter().any(|c| c.started);
    let fails = Child {
        can_run,
        started,
        runs: None,
    };
    let mut relied = Vec::new();
    let mut someone_runs = !can_run;
    for (i, c) in children.iter().enumerate() {
        if !guaranteed(model, children, i) {
            continue;
        }
        let Some(threads) = &c.runs else {
            return fails;
        };
        relied.extend_from_slice(threads);
        someone_runs |= c.can_run;
    }
    if !someone_runs {
        // Minimal progress: the first child that can run and be kept running.
        let Some(threads) = children
            .iter()
            .filter(|c| c.can_run)
            .find_map(|c| c.runs.as_ref())
        else {
            return fails;
        };
        relied.extend_from_slice(threads);
    }
    relied.sort_unstable();
    relied.dedup();
    Child {
        can_run,
        started,
        runs: Some(relied),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spins (enabled everywhere, moves).
    const SPINS: Seen = Seen {
        finished: false,
        started: true,
        moves: true,
        enabled_somewhere: true,
        disabled_somewhere: false,
    };
    /// Could move all along but never does, and never has.
    const IDLE: Seen = Seen {
        finished: false,
        started: false,
        moves: false,
        enabled_somewhere: true,
        disabled_somewhere: false,
    };
    /// Has run before the cycle, could move all along, never does on it.
    const PAUSED: Seen = Seen {
        started: true,
        ..IDLE
    };
    const DONE: Seen = Seen {
        finished: true,
        started: true,
        moves: false,
        enabled_somewhere: false,
        disabled_somewhere: true,
    };
    /// Blocked (a barrier) all along.
    const BLOCKED: Seen = Seen {
        finished: false,
        started: true,
        moves: false,
        enabled_somewhere: false,
        disabled_somewhere: true,
    };

    fn uniform(p: &str) -> Levels {
        Levels::uniform(p.parse().unwrap())
    }

    fn admits(p: &str, seen: &[Seen]) -> bool {
        admitted(uniform(p), 1, seen).is_some()
    }

    const ALL: [&str; 6] = ["fair", "hsa", "obe", "hsa-obe", "lobe", "unfair"];

    /// The models that admit a cycle on which these threads (each a block) behave so.
    fn admitting(seen: &[Seen]) -> Vec<&'static str> {
        ALL.into_iter().filter(|p| admits(p, seen)).collect()
    }

    #[test]
    fn a_spinner_and_a_thread_that_never_started() {
        // Thread 0 spins on a flag thread 1 would write (progressFair).
        assert_eq!(
            admitting(&[SPINS, IDLE]),
            ["hsa", "obe", "hsa-obe", "lobe", "unfair"]
        );
        // Thread 1 spins on a flag thread 0 would write (progressHSA):
        // HSA keeps the lowest running, LOBE every thread below a started one.
        assert_eq!(admitting(&[IDLE, SPINS]), ["obe", "unfair"]);
    }

    #[test]
    fn a_spinner_and_a_thread_that_stopped_after_running() {
        // Thread 1 ran once, then stopped while thread 0 spins (progressOBE).
        assert_eq!(admitting(&[SPINS, PAUSED]), ["hsa", "unfair"]);
        // Thread 0 ran once, then stopped while thread 1 spins (progressOBE-HSA).
        assert_eq!(admitting(&[PAUSED, SPINS]), ["unfair"]);
    }

    #[test]
    fn finished_and_blocked_threads_need_nothing() {
        for p in ALL {
            assert!(admits(p, &[DONE, SPINS]), "{p}");
            assert!(admits(p, &[BLOCKED, SPINS]), "{p}");
        }
        // HSA passes over a thread that cannot run to the next one.
        assert!(!admits("hsa", &[BLOCKED, IDLE, SPINS]));
        assert!(admits("hsa", &[BLOCKED, SPINS, IDLE]));
    }

    #[test]
    fn the_witnesses_are_the_threads_relied_on() {
        assert_eq!(
            admitted(uniform("fair"), 1, &[SPINS, BLOCKED]),
            Some(vec![0, 1])
        );
        assert_eq!(admitted(uniform("hsa"), 1, &[SPINS, IDLE]), Some(vec![0]));
        assert_eq!(
            admitted(uniform("unfair"), 1, &[IDLE, SPINS]),
            Some(vec![1])
        );
        assert_eq!(
            admitted(uniform("obe"), 1, &[DONE, SPINS, IDLE]),
            Some(vec![1])
        );
    }

    #[test]
    fn levels_differ_between_and_within_blocks() {
        // Two blocks of two threads: block 0 has thread 0 spinning and
        // thread 1 idle; block 1 never started.
        let seen = [SPINS, IDLE, IDLE, IDLE];
        let levels = |b: &str, t: &str| Levels {
            blocks: b.parse().unwrap(),
            threads: t.parse().unwrap(),
        };
        // Fair within a block: thread 1 must move.
        assert!(admitted(levels("obe", "fair"), 2, &seen).is_none());
        assert!(admitted(levels("unfair", "fair"), 2, &seen).is_none());
        // Unfair within, OBE between: block 1 need never start.
        assert_eq!(admitted(levels("obe", "unfair"), 2, &seen), Some(vec![0]));
        // Fair between blocks: block 1 must run, and in it someone moves.
        assert!(admitted(levels("fair", "unfair"), 2, &seen).is_none());
        // Thread 1 moving too: OBE between blocks admits it, fair does not.
        let seen = [SPINS, SPINS, IDLE, IDLE];
        assert_eq!(admitted(levels("obe", "fair"), 2, &seen), Some(vec![0, 1]));
        assert!(admitted(levels("fair", "fair"), 2, &seen).is_none());
        // HSA between blocks: the lowest block that can run is block 0.
        assert_eq!(admitted(levels("hsa", "fair"), 2, &seen), Some(vec![0, 1]));
    }

    #[test]
    fn lobe_guarantees_every_thread_below_a_started_one() {
        // Thread 2 has run: threads 0 and 1 must run too.
        assert!(!admits("lobe", &[IDLE, SPINS, SPINS]));
        assert!(admits("lobe", &[SPINS, SPINS, IDLE]));
        // OBE guarantees only the started ones.
        assert!(admits("obe", &[IDLE, SPINS, SPINS]));
    }

    #[test]
    fn unfair_admits_any_cycle_on_which_something_moves() {
        assert!(admits("unfair", &[IDLE, IDLE, SPINS]));
        assert!(admits("unfair", &[PAUSED, SPINS, PAUSED]));
    }
}

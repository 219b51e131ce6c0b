//! The analyses on small hand-made systems: each toy is a few threads
//! whose program is a table, so that the answer (deadlock, livelock,
//! starvation, verified) can be worked out by hand and the analyses are
//! tested without the model.

use super::analyse::{analyse, Outcome};
use super::{CheckResult, Checkable, Finding};
use crate::explore::{Options, TransitionSystem};
use crate::model::{Labeled, Progress, Scheduler, StepLabels, Violation, ViolationKind};

/// `pc` of a finished thread.
const DONE: u32 = 99;
/// Set in a thread's pc word once it has taken a step (when tracked).
const RAN: u32 = 1 << 31;

const DEADLOCK: Scheduler = Scheduler::Deadlock;
const FAIR: Scheduler = Scheduler::uniform(Progress::Fair);
const STRONG: Scheduler = Scheduler::uniform(Progress::Strong);
const UNFAIR: Scheduler = Scheduler::uniform(Progress::Unfair);

/// What a thread does at a pc. Shared words are `s[threads..]`.
#[derive(Clone, Copy)]
enum Op {
    /// Waits (disabled) until `s[word] == value`, then goes on.
    Await(usize, u32),
    /// Goes back to `pc` unless `s[word] == value`, then goes on: a spin
    /// loop, enabled all along.
    SpinUntil(usize, u32, u32),
    /// `s[word] = value`.
    Set(usize, u32),
    /// If `s[word] == 0` sets it to 1 and goes on, else goes back to `pc`.
    TryLock(usize, u32),
    /// Jumps to `pc` if `s[word] == value`, else goes on.
    IfGoto(usize, u32, u32),
    /// A progress point (`progress;`).
    Progress,
    /// Jumps to `pc`.
    Jump(u32),
    Done,
}

/// Threads running their tables over shared words.
#[derive(Clone)]
struct Toy {
    programs: Vec<Vec<Op>>,
    shared: usize,
    /// Consecutive threads per block (the progress models' levels).
    threads_per_block: usize,
    /// Record which threads have taken a step (the OBE models).
    track_started: bool,
}

impl Toy {
    /// Threads over shared words, each a block of its own.
    fn new(programs: Vec<Vec<Op>>, shared: usize) -> Toy {
        Toy {
            programs,
            shared,
            threads_per_block: 1,
            track_started: false,
        }
    }

    fn pc(&self, s: &[u32], t: usize) -> u32 {
        s[t] & !RAN
    }

    fn op(&self, s: &[u32], t: usize) -> Op {
        match self.pc(s, t) {
            DONE => Op::Done,
            pc => self.programs[t][pc as usize],
        }
    }

    fn word(&self, w: usize) -> usize {
        self.programs.len() + w
    }
}

impl TransitionSystem for Toy {
    type Action = u32;
    type Fault = Violation;

    fn state_words(&self) -> usize {
        self.programs.len() + self.shared
    }

    fn initial_state(&self, out: &mut [u32]) {
        out.fill(0);
    }

    fn actions(&self, s: &[u32], out: &mut Vec<u32>) {
        for t in 0..self.programs.len() {
            let enabled = match self.op(s, t) {
                Op::Done => false,
                Op::Await(w, v) => s[self.word(w)] == v,
                _ => true,
            };
            if enabled {
                out.push(t as u32);
            }
        }
    }

    fn step(&self, s: &[u32], a: u32, out: &mut [u32]) -> Result<(), Violation> {
        self.step_labels(s, a, out).0
    }

    fn is_final(&self, s: &[u32]) -> bool {
        (0..self.programs.len()).all(|t| self.pc(s, t) == DONE)
    }
}

impl Checkable for Toy {
    fn thread_count(&self) -> usize {
        self.programs.len()
    }

    fn is_finished(&self, s: &[u32], t: usize) -> bool {
        self.pc(s, t) == DONE
    }

    fn threads_per_block(&self) -> usize {
        self.threads_per_block
    }

    fn has_run(&self, s: &[u32], t: usize) -> bool {
        !self.track_started || s[t] & RAN != 0
    }

    fn step_labels(&self, s: &[u32], a: u32, out: &mut [u32]) -> Labeled {
        out.copy_from_slice(s);
        let t = a as usize;
        let pc = self.pc(s, t);
        let mut next = pc + 1;
        let mut progressed = false;
        match self.op(s, t) {
            Op::Await(..) => {}
            Op::SpinUntil(w, v, back) => {
                if s[self.word(w)] != v {
                    next = back;
                }
            }
            Op::Set(w, v) => out[self.word(w)] = v,
            Op::TryLock(w, back) => match s[self.word(w)] {
                0 => out[self.word(w)] = 1,
                _ => next = back,
            },
            Op::IfGoto(w, v, to) => {
                if s[self.word(w)] == v {
                    next = to;
                }
            }
            Op::Progress => progressed = true,
            Op::Jump(to) => next = to,
            Op::Done => unreachable!("a finished thread does not move"),
        }
        if next as usize == self.programs[t].len() {
            next = DONE;
            progressed = true;
        }
        out[t] = next | if self.track_started { RAN } else { 0 };
        let labels = StepLabels {
            progressed,
            memory: None,
        };
        (Ok(()), labels)
    }

    fn steps_on(&self, s: &[u32], t: usize) -> bool {
        let pc = self.pc(s, t);
        pc != DONE
            && !matches!(
                self.programs[t][pc as usize],
                Op::Await(..) | Op::SpinUntil(..) | Op::TryLock(..)
            )
    }

    fn thread_positions(&self, s: &[u32]) -> Vec<(usize, String)> {
        (0..self.programs.len())
            .filter(|&t| self.pc(s, t) != DONE)
            .map(|t| (t, format!("is at {}", self.pc(s, t))))
            .collect()
    }
}

fn check(toy: &Toy, scheduler: Scheduler) -> CheckResult {
    let toy = Toy {
        track_started: scheduler.needs_started(),
        ..toy.clone()
    };
    match analyse(&toy, &Options::default(), scheduler, false) {
        Outcome::Done(analysis) => *analysis,
        Outcome::NeedsFullGraph(_) | Outcome::NeedsStates => unreachable!("a toy is not reduced"),
    }
}

/// The one finding of checking `toy` under `scheduler`, which must be of
/// `kind`.
fn the_finding(toy: &Toy, scheduler: Scheduler, kind: ViolationKind) -> Finding {
    let a = check(toy, scheduler);
    assert_eq!(kinds(&a), [kind]);
    a.findings[0].clone()
}

fn kinds(a: &CheckResult) -> Vec<ViolationKind> {
    a.findings.iter().map(|f| f.kind).collect()
}

/// Replays a finding's stem and cycle on the toy: every step is enabled,
/// and the cycle returns to where it started. Returns the threads that
/// passed a progress point in the cycle.
fn assert_replays(toy: &Toy, f: &Finding) -> Vec<usize> {
    let toy = &Toy {
        track_started: false,
        ..toy.clone()
    };
    let mut s = vec![0u32; toy.state_words()];
    let mut next = s.clone();
    let mut take = |s: &mut Vec<u32>, a: u32| {
        let mut enabled = Vec::new();
        toy.actions(s, &mut enabled);
        assert!(enabled.contains(&a), "{a} not enabled in {s:?}");
        let (result, labels) = toy.step_labels(s, a, &mut next);
        result.unwrap();
        s.copy_from_slice(&next);
        labels.progressed
    };
    for &a in &f.schedule {
        take(&mut s, a);
    }
    let entry = s.clone();
    let mut progressed = Vec::new();
    for &a in &f.cycle {
        if take(&mut s, a) {
            progressed.push(a as usize);
        }
    }
    assert_eq!(s, entry, "the cycle returns to its entry");
    progressed
}

/// t0 sets the flag t1 waits for: nothing to find.
#[test]
fn a_handshake_is_verified_under_every_scheduler() {
    let toy = Toy::new(vec![vec![Op::Set(0, 1)], vec![Op::Await(0, 1)]], 1);
    for scheduler in [DEADLOCK, FAIR, STRONG] {
        let a = check(&toy, scheduler);
        assert!(a.findings.is_empty() && a.limit.is_none(), "{scheduler}");
    }
}

/// Each thread waits for a flag only the other sets after its own wait:
/// both blocked, the shortest stuck state is the initial one.
#[test]
fn waiting_for_each_other_is_a_deadlock() {
    let toy = Toy::new(
        vec![
            vec![Op::Await(0, 1), Op::Set(1, 1)],
            vec![Op::Await(1, 1), Op::Set(0, 1)],
        ],
        2,
    );
    let f = &the_finding(&toy, DEADLOCK, ViolationKind::Deadlock);
    assert!(f.schedule.is_empty() && f.cycle.is_empty(), "{f:?}");
    assert!(
        f.message.contains("every unfinished thread is blocked"),
        "{}",
        f.message
    );
    assert_eq!(f.waiting, ["thread 0 is at 0", "thread 1 is at 0"]);
}

/// t0 spins on a flag nobody sets while t1 could finish: a deadlock whose
/// threads spin, reported with the cycle they repeat; t1, which takes no
/// step in it, is not said to spin.
#[test]
fn spinning_on_a_flag_nobody_sets_is_a_deadlock_with_a_cycle() {
    let toy = Toy::new(vec![vec![Op::SpinUntil(0, 1, 0)], vec![Op::Set(1, 1)]], 2);
    let f = &the_finding(&toy, DEADLOCK, ViolationKind::Deadlock);
    assert!(f.message.contains("spin forever"), "{}", f.message);
    assert_eq!(f.cycle, [0]);
    assert_eq!(
        f.waiting,
        [
            "thread 0 is at 0",
            "thread 1 is at 0 (takes no step in the cycle below: whatever it does, the harness cannot finish)"
        ]
    );
    assert_replays(&toy, f);
}

/// A thread that sets variable `v` and clears it again, forever, never
/// passing a progress point.
fn looping(v: usize) -> Vec<Op> {
    vec![Op::Set(v, 1), Op::Set(v, 0), Op::Jump(0)]
}

/// t0 spins until t1 sets the flag: the harness can finish, so no
/// deadlock; but an unfair scheduler may run t0 alone forever, which weak
/// fairness rules out (t1 is enabled all along).
#[test]
fn a_spin_another_thread_ends_is_fine_under_weak_fairness() {
    let toy = Toy::new(vec![vec![Op::SpinUntil(0, 1, 0)], vec![Op::Set(0, 1)]], 1);
    assert!(check(&toy, DEADLOCK).findings.is_empty());
    assert!(check(&toy, FAIR).findings.is_empty());
}

/// Two threads loop forever and never pass a progress point: the harness
/// never finishes and no thread can progress again, which is a deadlock
/// whose threads spin (found before any fair cycle is looked for).
#[test]
fn looping_without_progress_is_a_deadlock_of_spinning_threads() {
    let toy = Toy::new(vec![looping(0), looping(1)], 2);
    for scheduler in [DEADLOCK, FAIR] {
        let a = check(&toy, scheduler);
        assert_eq!(kinds(&a), [ViolationKind::Deadlock], "{scheduler}");
        let f = &a.findings[0];
        assert!(
            f.message.contains("can never progress again"),
            "{}",
            f.message
        );
        assert_replays(&toy, f);
    }
}

/// The polite livelock: each thread raises its flag, backs off if the
/// other's is up, and retries. Either could get through (no deadlock),
/// but both can keep backing off forever, each moving in every round:
/// a weakly fair cycle without progress. Unfair: no liveness question.
#[test]
fn backing_off_in_step_is_a_livelock() {
    let polite = |mine: usize, other: usize| {
        vec![
            Op::Set(mine, 1),
            Op::IfGoto(other, 0, 4),
            Op::Set(mine, 0),
            Op::Jump(0),
            Op::Progress,
            Op::Set(mine, 0),
            Op::Jump(0),
        ]
    };
    let toy = Toy::new(vec![polite(0, 1), polite(1, 0)], 2);
    assert!(check(&toy, DEADLOCK).findings.is_empty());
    for scheduler in [FAIR, STRONG] {
        let a = check(&toy, scheduler);
        assert_eq!(kinds(&a), [ViolationKind::Livelock], "{scheduler}");
        let f = &a.findings[0];
        assert!(assert_replays(&toy, f).is_empty(), "nobody progresses");
        for t in [0, 1] {
            assert!(f.cycle.contains(&t), "both move: {f:?}");
        }
    }
}

/// A lock taken in a loop: t1 can keep winning while t0 keeps failing.
/// t0 moves on every failed try, so the cycle is fair under weak and
/// strong fairness alike, and t0 starves while t1 progresses.
#[test]
fn losing_a_lock_forever_is_starvation() {
    let locker = vec![Op::TryLock(0, 0), Op::Progress, Op::Set(0, 0), Op::Jump(0)];
    let toy = Toy::new(vec![locker.clone(), locker], 1);
    for scheduler in [FAIR, STRONG] {
        let a = check(&toy, scheduler);
        assert_eq!(kinds(&a), [ViolationKind::Starvation], "{scheduler}");
        let f = &a.findings[0];
        assert!(
            f.message
                .contains("thread 0 never progresses while thread 1 keeps progressing"),
            "{}",
            f.message
        );
        let progressed = assert_replays(&toy, f);
        assert!(
            !progressed.is_empty() && progressed.iter().all(|&t| t == 1),
            "{progressed:?}"
        );
    }
    assert!(check(&toy, DEADLOCK).findings.is_empty());
}

/// A thread waiting for a flag nobody sets is deadlocked even while the
/// other thread keeps moving.
#[test]
fn waiting_while_the_other_loops_is_a_deadlock() {
    let toy = Toy::new(vec![looping(0), vec![Op::Await(1, 1), Op::Progress]], 2);
    let f = &the_finding(&toy, FAIR, ViolationKind::Deadlock);
    assert!(f.waiting.contains(&"thread 1 is at 0".to_string()), "{f:?}");
    assert_replays(&toy, f);
}

/// The progress models this file checks every toy under, in the order of
/// the expectation strings below.
const MODELS: [&str; 6] = ["fair", "hsa", "obe", "hsa-obe", "lobe", "unfair"];

/// Which of [`MODELS`] find a livelock in `toy`: each thread a block of
/// its own, as Dat3M runs its progress programs.
fn hanging_under(toy: &Toy) -> Vec<&'static str> {
    MODELS
        .into_iter()
        .filter(|m| {
            let a = check(toy, m.parse().unwrap());
            match kinds(&a).as_slice() {
                [] => false,
                [ViolationKind::Livelock] => {
                    assert_replays(toy, &a.findings[0]);
                    true
                }
                other => panic!("{m}: {other:?}"),
            }
        })
        .collect()
}

/// Dat3M's progress programs (benchmarks/progress), as toys: `x` is word
/// 0; a spin loop is `SpinUntil`. Their expected verdicts under FAIR, HSA,
/// OBE and UNFAIR are those of Dat3M's `CProgressTest`; HSA+OBE and LOBE
/// follow from the definitions (book/src/progress-models.md).
#[test]
fn dat3m_progress_programs_hang_where_dat3m_says() {
    // progressFair: thread 0 spins until x == 1, thread 1 sets it.
    let fair = Toy::new(vec![vec![Op::SpinUntil(0, 1, 0)], vec![Op::Set(0, 1)]], 1);
    assert_eq!(
        hanging_under(&fair),
        ["hsa", "obe", "hsa-obe", "lobe", "unfair"]
    );
    // progressHSA: thread 0 sets x = 1, thread 1 spins until it is.
    let hsa = Toy::new(vec![vec![Op::Set(0, 1)], vec![Op::SpinUntil(0, 1, 0)]], 1);
    assert_eq!(hanging_under(&hsa), ["obe", "unfair"]);
    // progressOBE: thread 0 spins while x != 0, thread 1 sets x = 1, then 0.
    let obe = Toy::new(
        vec![
            vec![Op::SpinUntil(0, 0, 0)],
            vec![Op::Set(0, 1), Op::Set(0, 0)],
        ],
        1,
    );
    assert_eq!(hanging_under(&obe), ["hsa", "unfair"]);
    // progressOBE-HSA: the same with the threads swapped.
    let obe_hsa = Toy::new(
        vec![
            vec![Op::Set(0, 1), Op::Set(0, 0)],
            vec![Op::SpinUntil(0, 0, 0)],
        ],
        1,
    );
    assert_eq!(hanging_under(&obe_hsa), ["unfair"]);
    // progressUnfair: thread 1 starts (Await) only once thread 0 has set x.
    let unfair = Toy::new(
        vec![
            vec![Op::Set(0, 1)],
            vec![Op::Await(0, 1), Op::SpinUntil(0, 1, 1)],
        ],
        1,
    );
    assert!(hanging_under(&unfair).is_empty());
    // Deadlock only: none of them can get stuck.
    for toy in [&fair, &hsa, &obe, &obe_hsa, &unfair] {
        assert!(check(toy, DEADLOCK).findings.is_empty());
    }
}

/// Under `unfair` a thread may spin forever while the one it waits for is
/// never scheduled; that is a livelock whose lasso shows only the spinner.
#[test]
fn unfair_reports_a_spinner_whose_partner_never_runs() {
    let toy = Toy::new(vec![vec![Op::SpinUntil(0, 1, 0)], vec![Op::Set(0, 1)]], 1);
    let f = &the_finding(&toy, UNFAIR, ViolationKind::Livelock);
    assert!(
        f.message.starts_with("under the unfair scheduler"),
        "{}",
        f.message
    );
    assert!(f.schedule.is_empty() && f.cycle == [0], "{f:?}");
}

/// Two blocks of two threads: in block 0 thread 0 spins until thread 1
/// sets x; block 1 sets y, which nobody reads. OBE among blocks lets block
/// 1 never start; fair within a block makes thread 1 run, unfair does not.
#[test]
fn the_models_apply_per_level() {
    let toy = Toy {
        threads_per_block: 2,
        ..Toy::new(
            vec![
                vec![Op::SpinUntil(0, 1, 0)],
                vec![Op::Set(0, 1)],
                vec![Op::Set(1, 1)],
                vec![Op::Set(1, 2)],
            ],
            2,
        )
    };
    let hangs = |s: &str| !check(&toy, s.parse().unwrap()).findings.is_empty();
    assert!(!hangs("blocks=obe,threads=fair"));
    assert!(!hangs("fair"));
    assert!(hangs("blocks=obe,threads=unfair"));
    assert!(hangs("blocks=fair,threads=unfair"));
    assert!(hangs("blocks=unfair,threads=unfair"));
    // Unfair among blocks still runs one block fairly: the spinning one,
    // whose other thread then sets x.
    assert!(!hangs("blocks=unfair,threads=fair"));
    // HSA within block 0: thread 0 is the lowest, thread 1 may wait forever.
    assert!(hangs("blocks=fair,threads=hsa"));
}

/// Thread 0 loops forever passing a progress point once thread 1 has set
/// the flag, and finishes if it looks first. The states after the flag
/// cannot finish, but nobody there is stuck: not a deadlock, and no
/// liveness violation either (thread 0 keeps progressing).
#[test]
fn looping_through_progress_forever_is_not_a_deadlock() {
    let toy = Toy::new(
        vec![
            vec![Op::IfGoto(0, 1, 2), Op::Jump(4), Op::Progress, Op::Jump(2)],
            vec![Op::Set(0, 1)],
        ],
        1,
    );
    for scheduler in [DEADLOCK, FAIR, UNFAIR] {
        let a = check(&toy, scheduler);
        assert!(a.findings.is_empty(), "{scheduler}: {:?}", a.findings);
    }
    // With a third thread that, once the flag is set, waits for a word
    // nobody sets, the same states are a deadlock again: thread 2 can
    // never progress there.
    let toy = Toy::new(
        vec![
            vec![Op::IfGoto(0, 1, 2), Op::Jump(4), Op::Progress, Op::Jump(2)],
            vec![Op::Set(0, 1)],
            vec![Op::IfGoto(0, 1, 2), Op::Jump(3), Op::Await(1, 1)],
        ],
        2,
    );
    let f = &the_finding(&toy, DEADLOCK, ViolationKind::Deadlock);
    assert_eq!(f.schedule, [1, 0], "{f:?}");
    assert!(f.waiting.iter().any(|w| w.starts_with("thread 2")), "{f:?}");
    assert_replays(&toy, f);
}

//! Launch occupancy and the scheduler: which progress model liveness is
//! judged under.
//!
//! **Occupancy.** A GPU runs only as many blocks at once as its SMs have
//! slots for (`--resident R`, or `--sms S --blocks-per-sm B`). The other
//! blocks start in block order as resident blocks finish. Which blocks have
//! started is derived from the state (the first `R + finished` blocks), so
//! occupancy costs no state words. A block that waits for a block that can
//! never start is in an *occupancy deadlock*: the global barrier needs every
//! block resident (seeds 002 and 003). A block waiting at
//! `__kernel_boundary()` has ended its kernel and frees its slot, so a
//! kernel boundary, unlike a software grid barrier, works at any occupancy.
//! Occupancy is semantics (which steps exist), whatever the scheduler.
//!
//! **Scheduler.** `deadlock` (the default) checks no liveness: only
//! deadlocks. Otherwise a [`Levels`] names a progress model ([`Progress`])
//! for the blocks of the grid and one for the threads of a block, as
//! Sorensen, Evrard and Donaldson define them ("GPU schedulers: how fair is
//! fair enough?", CONCUR 2018) and Dat3M's `ProgressModel` encodes them:
//! a child of a group (a block of the grid, a thread of a block) is
//! *guaranteed* when the group runs and the model says so, and a
//! guaranteed thread is scheduled with weak fairness. Which cycles of the
//! state graph that admits is decided in `check::progress`;
//! `book/src/progress-models.md` gives the definitions as formulas.

use super::named::named_choices;
use super::threads::Threads;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A progress model: which children of a group (blocks of the grid, or
/// threads of a block) the scheduler guarantees to keep running.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Progress {
    /// Every child (weak fairness: one that can always move eventually moves).
    Fair,
    /// Every child, with strong fairness (one that can move again and
    /// again eventually moves); only as the model of every level.
    Strong,
    /// The lowest-numbered child that can still run.
    Hsa,
    /// Every child that has run at least once (occupancy-bound execution).
    Obe,
    /// The union of `hsa` and `obe`.
    HsaObe,
    /// A child that has run once, and every lower-numbered one (linear OBE).
    Lobe,
    /// None: only that something keeps running.
    Unfair,
}

named_choices!(Progress, "progress model", {
    Fair => "fair",
    Strong => "strong",
    Hsa => "hsa",
    Obe => "obe",
    HsaObe => "hsa-obe",
    Lobe => "lobe",
    Unfair => "unfair",
});

impl Progress {
    /// Whether the model needs to know which threads have run once.
    pub fn needs_started(self) -> bool {
        matches!(self, Progress::Obe | Progress::HsaObe | Progress::Lobe)
    }

    /// Its name in reports' sentences.
    pub fn title(self) -> &'static str {
        match self {
            Progress::Fair => "weak fairness",
            Progress::Strong => "strong fairness",
            Progress::Hsa => "HSA",
            Progress::Obe => "OBE",
            Progress::HsaObe => "HSA+OBE",
            Progress::Lobe => "LOBE",
            Progress::Unfair => "no fairness",
        }
    }

    /// What it guarantees, of the children of a group named `what` (`thread`, `block`).
    fn promise(self, what: &str) -> String {
        match self {
            Progress::Fair | Progress::Strong => format!("every {what} is scheduled fairly"),
            Progress::Hsa => format!("only the lowest-numbered {what} that can still run is scheduled fairly"),
            Progress::Obe => {
                format!("a {what} that has run once is scheduled fairly; the others may never start")
            }
            Progress::HsaObe => format!(
                "the lowest-numbered {what} that can still run and every {what} that has run once are scheduled fairly"
            ),
            Progress::Lobe => format!(
                "a {what} that has run once is scheduled fairly, and so is every lower-numbered {what}"
            ),
            Progress::Unfair => format!("no {what} is sure to be scheduled"),
        }
    }
}

/// A progress model for each level of the launch: among the blocks of
/// the grid, and among the threads of a block (its warps' threads alike:
/// warps are not a level of their own).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Levels {
    pub blocks: Progress,
    pub threads: Progress,
}

impl Levels {
    /// The same model at every level.
    pub const fn uniform(p: Progress) -> Levels {
        Levels {
            blocks: p,
            threads: p,
        }
    }

    /// The pair a `--scheduler KEY=MODEL` list starts from: OBE among
    /// blocks (a block that has started runs to the end, as on NVIDIA
    /// GPUs, but nothing promises that every block starts) and weak
    /// fairness among the threads of a block (warps of a resident block
    /// are interleaved, and since Volta the threads of a warp too).
    pub const DEFAULT_PAIR: Levels = Levels {
        blocks: Progress::Obe,
        threads: Progress::Fair,
    };

    pub fn is_uniform(self) -> bool {
        self.blocks == self.threads
    }

    /// Whether a thread's first step must be recorded (OBE and its kin).
    pub fn needs_started(self) -> bool {
        self.blocks.needs_started() || self.threads.needs_started()
    }

    /// Strong fairness for every thread.
    pub fn is_strong(self) -> bool {
        self.blocks == Progress::Strong
    }
}

/// `--scheduler`: which liveness question a check asks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Scheduler {
    /// No liveness question: deadlocks only (a reachable state from which
    /// the harness can never finish, or a thread can never progress).
    #[default]
    Deadlock,
    /// Livelock and starvation under these progress models.
    Progress(Levels),
}

impl Scheduler {
    /// Every name `--scheduler` accepts alone.
    pub const NAMES: &'static str =
        "deadlock, fair (alias weak), strong, hsa, obe, hsa-obe, lobe, unfair";

    /// The same progress model at every level.
    pub const fn uniform(p: Progress) -> Scheduler {
        Scheduler::Progress(Levels::uniform(p))
    }

    /// Whether livelock and starvation are looked for.
    pub fn checks_liveness(self) -> bool {
        matches!(self, Scheduler::Progress(_))
    }

    pub fn levels(self) -> Option<Levels> {
        match self {
            Scheduler::Deadlock => None,
            Scheduler::Progress(l) => Some(l),
        }
    }

    /// Whether the model must record which threads have run once.
    pub fn needs_started(self) -> bool {
        self.levels().is_some_and(Levels::needs_started)
    }

    /// How a finding names the assumption (`under weak fairness`, ...).
    pub fn under(self) -> String {
        let Some(l) = self.levels() else {
            return "without a fairness assumption".into();
        };
        if l.is_uniform() {
            return match l.blocks {
                Progress::Fair | Progress::Strong => format!("under {}", l.blocks.title()),
                Progress::Hsa => {
                    format!("under the HSA scheduler ({})", l.blocks.promise("thread"))
                }
                Progress::Unfair => format!(
                    "under the unfair scheduler ({})",
                    l.blocks.promise("thread")
                ),
                p => format!("under {} ({})", p.title(), p.promise("thread")),
            };
        }
        format!(
            "under {self} (blocks: {}; threads of a block: {})",
            l.blocks.promise("block"),
            l.threads.promise("thread")
        )
    }
}

impl std::fmt::Display for Scheduler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scheduler::Deadlock => f.write_str("deadlock"),
            Scheduler::Progress(l) if l.is_uniform() => f.write_str(l.blocks.name()),
            Scheduler::Progress(l) => write!(f, "blocks={},threads={}", l.blocks, l.threads),
        }
    }
}

/// One model's name; `weak` is the old name of `fair`.
fn progress_named(word: &str) -> Result<Progress, String> {
    match word {
        "weak" => Ok(Progress::Fair),
        "deadlock" => Err(
            "`deadlock` is not a progress model (it checks no liveness): give it alone, --scheduler deadlock".into(),
        ),
        w => w.parse(),
    }
}

impl std::str::FromStr for Scheduler {
    type Err = String;

    /// `deadlock`, one model for every level (`obe`), or `KEY=MODEL`
    /// pairs (`blocks=obe,threads=fair`), a missing key taking its model
    /// from [`Levels::DEFAULT_PAIR`].
    fn from_str(s: &str) -> Result<Scheduler, String> {
        let s = s.trim();
        if s == "deadlock" {
            return Ok(Scheduler::Deadlock);
        }
        if !s.contains('=') {
            return progress_named(s).map(Scheduler::uniform).map_err(|e| {
                format!(
                    "{e}; --scheduler takes {}, or blocks=MODEL,threads=MODEL",
                    Scheduler::NAMES
                )
            });
        }
        let mut levels = Levels::DEFAULT_PAIR;
        let mut seen: Vec<&str> = Vec::new();
        for pair in s.split(',') {
            let Some((key, value)) = pair.split_once('=') else {
                return Err(format!(
                    "`{pair}` is not KEY=MODEL (e.g. blocks=obe,threads=fair)"
                ));
            };
            let (key, value) = (key.trim(), value.trim());
            let model = progress_named(value)?;
            if seen.contains(&key) {
                return Err(format!("`{key}` is given twice"));
            }
            match key {
                "blocks" => levels.blocks = model,
                "threads" => levels.threads = model,
                k => {
                    return Err(format!(
                        "unknown level `{k}` (known: blocks, the blocks of the grid; threads, the threads of a block)"
                    ))
                }
            }
            seen.push(key);
        }
        let strong = [levels.blocks, levels.threads].contains(&Progress::Strong);
        if strong && !levels.is_uniform() {
            return Err(
                "`strong` is strong fairness for every thread: give it alone, --scheduler strong"
                    .into(),
            );
        }
        Ok(Scheduler::Progress(levels))
    }
}

impl Serialize for Scheduler {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Scheduler {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Scheduler, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// How many blocks are resident at once (`--resident`): all, or a
/// fixed number of slots.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Occupancy {
    pub resident: Option<u32>,
}

impl Occupancy {
    /// How many blocks (a prefix in block order) are or were resident: all of them,
    /// or with `resident` slots, one more for every block that finished.
    pub fn resident_blocks(&self, th: &Threads, s: &[u32]) -> usize {
        let tpb = th.layout.threads_per_block;
        let blocks = th.layout.threads / tpb;
        let Some(resident) = self.resident else {
            return blocks;
        };
        // A block waiting at the kernel boundary has ended its kernel and
        // given up its slot, like a finished one.
        let done = |t: usize| {
            th.is_finished(s, t)
                || (th.is_waiting_at_barrier(s, t)
                    && matches!(
                        th.prog.code[th.pc(s, t) as usize].op,
                        crate::ir::Op::KernelBoundary
                    ))
        };
        let finished = (0..blocks)
            .filter(|b| (b * tpb..(b + 1) * tpb).all(done))
            .count();
        (resident as usize + finished).min(blocks)
    }

    /// Whether thread `t`'s block has become resident.
    pub fn is_resident(&self, th: &Threads, s: &[u32], t: usize) -> bool {
        th.layout.block_of(t) < self.resident_blocks(th, s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Scheduler, String> {
        s.parse()
    }

    #[test]
    fn names_and_pairs_parse_and_print_back() {
        assert_eq!(parse("deadlock"), Ok(Scheduler::Deadlock));
        for p in Progress::ALL {
            let s = Scheduler::uniform(p);
            assert_eq!(parse(p.name()), Ok(s));
            assert_eq!(parse(&s.to_string()), Ok(s));
        }
        assert_eq!(parse("weak"), Ok(Scheduler::uniform(Progress::Fair)));
        let pair = parse("blocks=obe,threads=fair").unwrap();
        assert_eq!(pair, Scheduler::Progress(Levels::DEFAULT_PAIR));
        assert_eq!(pair.to_string(), "blocks=obe,threads=fair");
        // A key left out takes the default pair's model; a uniform pair prints as one name.
        assert_eq!(parse("threads=fair"), Ok(pair));
        assert_eq!(
            parse(" threads = hsa , blocks = hsa ").unwrap().to_string(),
            "hsa"
        );
        assert_eq!(
            parse("blocks=unfair").unwrap().levels(),
            Some(Levels {
                blocks: Progress::Unfair,
                threads: Progress::Fair
            })
        );
    }

    #[test]
    fn bad_schedulers_are_refused_with_the_reason() {
        let err = |s: &str| parse(s).unwrap_err();
        assert!(
            err("fiar").contains("unknown progress model `fiar`"),
            "{}",
            err("fiar")
        );
        assert!(err("fiar").contains("deadlock, fair"), "{}", err("fiar"));
        assert!(err("warps=fair").contains("unknown level `warps`"));
        assert!(err("blocks=obe,blocks=fair").contains("given twice"));
        assert!(err("blocks=strong").contains("give it alone"));
        assert!(err("threads=deadlock").contains("not a progress model"));
        assert!(err("blocks=obe,fair").contains("not KEY=MODEL"));
        assert!(parse("blocks=strong,threads=strong").is_ok());
    }

    #[test]
    fn only_the_obe_models_need_to_know_who_ran() {
        let needs = |s: &str| parse(s).unwrap().needs_started();
        assert!(needs("obe") && needs("hsa-obe") && needs("lobe") && needs("threads=fair"));
        assert!(!needs("fair") && !needs("hsa") && !needs("unfair") && !needs("deadlock"));
    }

    #[test]
    fn reports_spell_the_scheduler_as_the_command_line_does() {
        let json = serde_json::to_string(&parse("blocks=obe,threads=fair").unwrap()).unwrap();
        assert_eq!(json, "\"blocks=obe,threads=fair\"");
        let back: Scheduler = serde_json::from_str("\"weak\"").unwrap();
        assert_eq!(back, Scheduler::uniform(Progress::Fair));
        assert!(serde_json::from_str::<Scheduler>("\"often\"").is_err());
    }
}

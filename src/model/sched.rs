//! Launch occupancy and the scheduler (fairness) models.
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
//!
//! **Fairness.** Which infinite executions count when deciding liveness:
//!
//! - `unfair`: none is excluded; only deadlocks are reported.
//! - `weak`: weak fairness (justice) per thread: a thread that is enabled
//!   continuously from some point on eventually steps. The usual assumption
//!   for GPU threads of resident blocks (Sorensen et al., "GPU schedulers:
//!   how fair is fair enough?", CONCUR 2018).
//! - `strong`: strong fairness (compassion) per thread: a thread enabled
//!   infinitely often steps infinitely often.
//! - `obe`: occupancy-bound execution (CONCUR 2018): weak fairness among the
//!   resident blocks only. In this model a block that has not started has no
//!   enabled step, so `obe` coincides with `weak` under `--resident`; it is
//!   kept as its own name so reports say which assumption was made.
//! - `hsa`: the HSA progress model (CONCUR 2018; Sorensen, Evrard,
//!   Donaldson, OOPSLA 2021 progress models): only the threads of the
//!   lowest-numbered unfinished block are guaranteed to be scheduled
//!   fairly (weakly); the others may starve.
//!
//! How a cycle of the state graph is judged fair is in `check::liveness`.

use super::named::named_choices;
use super::threads::Threads;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheduler {
    #[default]
    Unfair,
    Weak,
    Strong,
    Obe,
    Hsa,
}

named_choices!(Scheduler, "scheduler", {
    Unfair => "unfair",
    Weak => "weak",
    Strong => "strong",
    Obe => "obe",
    Hsa => "hsa",
});

/// How many blocks are resident at once (`--resident`): all, or a
/// fixed number of slots.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Occupancy {
    pub resident: Option<u32>,
}

impl Occupancy {
    /// How many blocks (a prefix in block order) have started: all of them,
    /// or with `resident` slots, one more for every block that finished.
    pub fn started_blocks(&self, th: &Threads, s: &[u32]) -> usize {
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
    pub fn has_started(&self, th: &Threads, s: &[u32], t: usize) -> bool {
        th.layout.block_of(t) < self.started_blocks(th, s)
    }
}

impl Scheduler {
    /// The threads the scheduler treats fairly in state `s`: every thread,
    /// or under `hsa` those of the lowest-numbered unfinished block.
    pub fn fairly_scheduled(self, th: &Threads, s: &[u32]) -> std::ops::Range<usize> {
        match self {
            Scheduler::Hsa => {
                let lowest = (0..th.count()).find(|t| !th.is_finished(s, *t));
                match lowest {
                    Some(t) => th.layout.block_threads(t),
                    None => 0..0,
                }
            }
            _ => 0..th.count(),
        }
    }
}

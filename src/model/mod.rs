//! The semantics of a lowered program as a transition system.
//!
//! A [`Model`] is made of parts, each owning its words of the packed state
//! (`state::Layout`) and reading the others only through [`Threads`]:
//!
//! - [`Threads`] (`threads`): pcs, flags, locals; expressions;
//! - [`Memory`] (`memory`): sequential consistency, or the scoped PTX model
//!   (histories and views);
//! - [`Warps`] (`simt`): independent threads or lockstep warps with their
//!   reconvergence stacks, and warp collectives;
//! - [`LockBits`] (`lockbits`): the Fermi shared-memory lock unit;
//! - [`Occupancy`] (`sched`): which blocks are resident;
//! - the properties checked while stepping (`properties`).
//!
//! `step` and `exec` compose them into one step of a thread (or warp).
//! `facts` holds what the code tells ahead of any state (the words each
//! thread may still access, the views an SC fence refreshes), computed once
//! for the `ptx` canonical form. The model is pure semantics: the
//! reductions the checker may use on top of it (symmetry, ample sets,
//! awaits) live in `crate::reduce`, adapters over it chosen by the checker,
//! and leave the model as it is.

pub(crate) mod bars;
pub(crate) mod exec;
pub(crate) mod facts;
pub(crate) mod lockbits;
pub mod memory;
mod named;
mod properties;
pub(crate) mod sched;
pub(crate) mod simt;
pub(crate) mod state;
mod step;
pub(crate) mod threads;

use crate::explore::TransitionSystem;
use crate::ir::{Op, Program};
use lockbits::LockBits;
pub use memory::Memory;
use named::named_choices;
pub use sched::{Levels, Occupancy, Progress, Scheduler};
use serde::{Deserialize, Serialize};
pub use simt::{BranchOrder, SimtMode, Warps};
use state::Layout;
pub use step::{Labeled, StepLabels};
pub use threads::Threads;

/// The kinds of violation a report names (`violations[].kind` in JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ViolationKind {
    Deadlock,
    SimdDeadlock,
    AliasDeadlock,
    OccupancyDeadlock,
    BarrierDivergence,
    Livelock,
    Starvation,
    HeterogeneousRace,
    DataRace,
    Assertion,
    MutualExclusion,
    /// A thread left its k-th `phase` before another entered its k-th.
    BarrierSafety,
}

named_choices!(ViolationKind, "violation kind", {
    Deadlock => "deadlock",
    SimdDeadlock => "simd_deadlock",
    AliasDeadlock => "alias_deadlock",
    OccupancyDeadlock => "occupancy_deadlock",
    BarrierDivergence => "barrier_divergence",
    Livelock => "livelock",
    Starvation => "starvation",
    HeterogeneousRace => "heterogeneous_race",
    DataRace => "data_race",
    Assertion => "assertion",
    MutualExclusion => "mutual_exclusion",
    BarrierSafety => "barrier_safety",
});

/// A safety violation found while stepping or in a state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub kind: ViolationKind,
    /// Which property: `assert`, `capacity`, `barrier`, `invariant`, `runtime`.
    pub property: &'static str,
    pub message: String,
    /// The instruction that violated it, when a step did.
    pub pc: Option<crate::ir::Pc>,
}

/// What one executed instruction did, for counterexamples.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Event {
    pub thread: u32,
    pub pc: crate::ir::Pc,
    pub reads: Vec<(String, i64)>,
    pub writes: Vec<(String, i64)>,
    /// Something the reader should know (`released block 0 from __syncthreads()`).
    pub note: Option<String>,
    /// The lanes of the thread's warp that executed the instruction
    /// (`None` when the warp has one thread).
    pub active: Option<u64>,
}

/// `--memory-model`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryModel {
    /// Sequential consistency: every access acts on one memory at once.
    Sc,
    /// The scoped PTX model of `memory` (the default: what GPUs do).
    #[default]
    Ptx,
}

named_choices!(MemoryModel, "memory model", {
    Sc => "sc",
    Ptx => "ptx",
});

/// What the semantics is: which memory model, SIMT mode, launch occupancy
/// and lock unit, and which checks run while stepping. Reductions are not
/// here: they are the checker's (`crate::reduce`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelOptions {
    /// Run thread-local instructions in the same step as the visible
    /// instruction before them (they commute with every other thread):
    /// what one step of a thread is, so what a counterexample shows.
    pub fuse_local_steps: bool,
    /// At most this many blocks are resident on the GPU at once; the others
    /// start, in block order, as resident blocks finish. `None`: all resident.
    pub resident: Option<u32>,
    pub simt: SimtMode,
    /// Under lockstep: which side of a divergent branch runs first.
    pub branch_order: BranchOrder,
    /// Number of lock bits of the shared-memory lock unit.
    pub lock_bits: u32,
    /// CUDA's rule: a `__syncthreads()` that a live thread of the block
    /// leaves without reaching is `barrier_divergence`. Off, exited threads
    /// just stop counting, as PTX `bar.sync` does (the litmus front end).
    pub barrier_divergence: bool,
    /// Which memory model gives loads their values.
    pub memory_model: MemoryModel,
    /// Under `ptx`, report heterogeneous and data races (litmus tests race
    /// on purpose and turn this off).
    pub races: bool,
    /// Under `ptx`, store states in canonical form (unreadable writes
    /// dropped, views clamped: `memory/canon.rs`). Off only to cross-check.
    pub canonical_memory: bool,
    /// Under `ptx` with the canonical form, raise a thread's view of a
    /// location to the SC-fence views where its next SC fence comes before
    /// any use of that view (`facts::Refreshes`). Off only to cross-check.
    pub refresh_views: bool,
    /// Under `ptx` with the canonical form, remove the writes no step can
    /// read any more from the middle of a history too (`memory::canon`,
    /// dead writes). Off only to cross-check.
    pub drop_dead_writes: bool,
    /// Under `ptx` with the canonical form, repeat its merge of repeated
    /// writes until nothing merges (`memory::fixpoint`): fewer states.
    /// Off only to cross-check.
    pub canonical_fixpoint: bool,
    /// Record in each thread's flags whether it has taken a step: the OBE
    /// progress models guarantee only threads that have run once
    /// (`Scheduler::needs_started`). Off, states do not tell a thread that
    /// has spun back to its first instruction from one that never ran.
    pub track_started: bool,
}

impl Default for ModelOptions {
    fn default() -> ModelOptions {
        ModelOptions {
            fuse_local_steps: true,
            resident: None,
            simt: SimtMode::Its,
            branch_order: BranchOrder::ThenFirst,
            lock_bits: lockbits::DEFAULT_LOCK_BITS,
            barrier_divergence: true,
            memory_model: MemoryModel::default(),
            races: true,
            canonical_memory: true,
            refresh_views: true,
            drop_dead_writes: true,
            canonical_fixpoint: true,
            track_started: false,
        }
    }
}

/// An action of the transition system: a thread and, under `ptx`, which of
/// its memory instruction's alternatives (the write a load reads, where a
/// store lands in coherence order) it takes. Under `sc` the action is the
/// thread index.
pub fn thread_of(action: u32) -> usize {
    (action & 0xFFFF) as usize
}

/// The semantics of a program under its options.
pub struct Model<'p> {
    pub(crate) prog: &'p Program,
    pub(crate) threads: Threads<'p>,
    pub(crate) memory: Memory,
    pub(crate) warps: Warps,
    pub(crate) lock_bits: LockBits,
    pub(crate) bars: bars::NamedBarriers,
    pub(crate) occupancy: Occupancy,
    options: ModelOptions,
    /// `invisible[pc]`: the instruction can be fused into the step before it.
    invisible: Vec<bool>,
    /// What the `ptx` canonical form knows of the code ahead of any state
    /// (`facts`); the ample sets reuse its futures.
    facts: facts::Facts,
}

/// Longest run of fused thread-local instructions: a purely local infinite
/// loop must still yield so the explorer sees it repeat.
const MAX_FUSED: usize = 256;

impl<'p> Model<'p> {
    pub fn new(prog: &'p Program, options: ModelOptions) -> Model<'p> {
        let ptx = options.memory_model == MemoryModel::Ptx;
        // A block with one participating thread passes `__syncthreads()`
        // alone (independent threads, sequential consistency: no memory
        // effect), so the barrier is as local as an assignment there.
        let lone_barrier = !ptx
            && options.simt == SimtMode::Its
            && (prog.launch.threads_per_block == 1
                || prog.participants == crate::ir::Participants::Master);
        let invisible = prog
            .code
            .iter()
            // Under sequential consistency a fence orders nothing extra.
            .map(|i| {
                i.op.is_thread_local()
                    || (!ptx && matches!(i.op, Op::Fence(_)))
                    || (lone_barrier && matches!(i.op, Op::SyncThreads))
            })
            .collect();
        let mut layout = Layout::new(prog);
        let memory = Memory::new(prog, &mut layout, &options);
        let warps = Warps::new(prog, &mut layout, &options);
        let lock_bits = LockBits::new(prog, &mut layout, options.lock_bits);
        let bars = bars::NamedBarriers::new(prog, &mut layout);
        let mut model = Model {
            prog,
            threads: Threads::new(prog, layout),
            memory,
            warps,
            lock_bits,
            bars,
            occupancy: Occupancy {
                resident: options.resident,
            },
            options,
            invisible,
            facts: facts::Facts::default(),
        };
        model.facts = facts::Facts::for_canonical_form(&model);
        model
    }

    pub fn options(&self) -> &ModelOptions {
        &self.options
    }

    /// Whether the canonical form raises the views an SC fence refreshes
    /// before any use (`facts::Refreshes`): under `ptx` with it on, where
    /// each thread's future accesses are known.
    pub fn refreshes_views(&self) -> bool {
        memory::Foresight::refreshes(&self.facts)
    }

    /// What word `i` of a state holds under `ptx` (`None` under `sc`, or
    /// for a word of another part): for measuring what the store keeps.
    pub fn word_kind(&self, i: usize) -> Option<memory::WordKind> {
        self.memory.ptx()?.word_kind(i)
    }

    /// The facts the canonical form uses (`facts`).
    pub(crate) fn facts(&self) -> &facts::Facts {
        &self.facts
    }

    /// Whether the instruction at `pc` is fused into the step before it.
    pub(crate) fn is_fused(&self, pc: crate::ir::Pc) -> bool {
        self.invisible[pc as usize]
    }
}

impl TransitionSystem for Model<'_> {
    type Action = u32;
    type Fault = Violation;

    fn state_words(&self) -> usize {
        self.threads.layout.words()
    }

    fn initial_state(&self, out: &mut [u32]) {
        self.threads.layout.initial(self.prog, out);
        if let Some(w) = self.memory.ptx() {
            w.initial(out);
        }
        self.settle_all(out);
    }

    fn actions(&self, s: &[u32], out: &mut Vec<u32>) {
        if self.warps.is_lockstep() {
            return self.warp_actions(s, out);
        }
        let th = &self.threads;
        let started = self.occupancy.resident_blocks(th, s) * th.layout.threads_per_block;
        for t in 0..started {
            if !th.is_finished(s, t) && !th.is_blocked(s, t) {
                match self.memory.ptx() {
                    Some(w) => w.alternatives(th, s, t, out),
                    None => out.push(t as u32),
                }
            }
        }
    }

    fn step(&self, s: &[u32], t: u32, out: &mut [u32]) -> Result<(), Violation> {
        out.copy_from_slice(s);
        self.step_from_copy(s, t, out)
    }

    fn step_from_copy(&self, _: &[u32], t: u32, out: &mut [u32]) -> Result<(), Violation> {
        self.run_action(out, t, &mut exec::StepCtx::default())
    }

    fn check_state(&self, s: &[u32]) -> Result<(), Violation> {
        properties::check_invariants(&self.threads, s)
    }

    fn state_parts(&self) -> Vec<std::ops::Range<usize>> {
        self.memory
            .ptx()
            .map_or_else(Vec::new, memory::PtxMemory::state_parts)
    }

    fn is_final(&self, s: &[u32]) -> bool {
        (0..self.threads.count()).all(|t| self.threads.is_finished(s, t))
    }
}

#[cfg(test)]
pub(crate) mod tests;

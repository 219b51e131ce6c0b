//! The semantics of a lowered program as a transition system.
//!
//! One module per concern: `state` (the packed global state), `eval`
//! (expressions), `exec` (one thread step: instructions, memory, barriers,
//! critical sections and phases), `memory` (the scoped `ptx` memory model,
//! hooked into `exec` for memory instructions and fences).

mod eval;
mod exec;
pub mod lockbits;
pub mod memory;
mod named;
mod por;
pub mod sched;
pub mod simt;
pub mod state;
pub mod symmetry;

use crate::explore::TransitionSystem;
use crate::ir::cfg::Liveness;
use crate::ir::{Op, Pc, Program};
use exec::StepCtx;
use lockbits::LockBits;
pub use sched::Scheduler;
use serde::{Deserialize, Serialize};
use simt::Warps;
pub use simt::{BranchOrder, SimtMode};
use state::{Layout, FINISHED, FLAGS, PC, WAITING_BARRIER};

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
}

impl ViolationKind {
    pub fn name(self) -> &'static str {
        match self {
            ViolationKind::Deadlock => "deadlock",
            ViolationKind::SimdDeadlock => "simd_deadlock",
            ViolationKind::AliasDeadlock => "alias_deadlock",
            ViolationKind::OccupancyDeadlock => "occupancy_deadlock",
            ViolationKind::BarrierDivergence => "barrier_divergence",
            ViolationKind::Livelock => "livelock",
            ViolationKind::Starvation => "starvation",
            ViolationKind::HeterogeneousRace => "heterogeneous_race",
            ViolationKind::DataRace => "data_race",
            ViolationKind::Assertion => "assertion",
            ViolationKind::MutualExclusion => "mutual_exclusion",
        }
    }
}

/// A safety violation found while stepping or in a state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub kind: ViolationKind,
    /// Which property: `assert`, `capacity`, `barrier`, `invariant`, `runtime`.
    pub property: &'static str,
    pub message: String,
    /// The instruction that violated it, when a step did.
    pub pc: Option<Pc>,
}

/// What one executed instruction did, for counterexamples.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Event {
    pub thread: u32,
    pub pc: Pc,
    pub reads: Vec<(String, i64)>,
    pub writes: Vec<(String, i64)>,
    /// Something the reader should know (`released block 0 from __syncthreads()`).
    pub note: Option<String>,
    /// The lanes of the thread's warp that executed the instruction
    /// (`None` when the warp has one thread).
    pub active: Option<u64>,
}

/// Options of the semantics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelOptions {
    /// Run thread-local instructions in the same step as the visible
    /// instruction before them (they commute with every other thread).
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
    #[serde(default)]
    pub memory_model: MemoryModel,
    /// Under `ptx`, report heterogeneous and data races (litmus tests race
    /// on purpose and turn this off).
    #[serde(default = "yes")]
    pub races: bool,
    /// Under `ptx`, store states in canonical form (unreadable writes
    /// dropped, views clamped: `memory/canon.rs`). Off only to cross-check.
    #[serde(default = "yes")]
    pub canonical_memory: bool,
}

fn yes() -> bool {
    true
}

/// `--memory-model`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryModel {
    /// Sequential consistency: every access acts on one memory at once.
    #[default]
    Sc,
    /// The scoped PTX model of `memory.rs`.
    Ptx,
}

impl MemoryModel {
    pub fn name(self) -> &'static str {
        match self {
            MemoryModel::Sc => "sc",
            MemoryModel::Ptx => "ptx",
        }
    }

    pub fn parse(name: &str) -> Option<MemoryModel> {
        match name {
            "sc" => Some(MemoryModel::Sc),
            "ptx" => Some(MemoryModel::Ptx),
            _ => None,
        }
    }

    /// Like `parse`, with the message every front end gives for a name
    /// that is not a model.
    pub fn parse_or_explain(name: &str) -> Result<MemoryModel, String> {
        MemoryModel::parse(name)
            .ok_or_else(|| format!("unknown memory model `{name}` (known: sc, ptx)"))
    }
}

/// An action of the transition system: a thread and, under `ptx`, which of
/// its memory instruction's alternatives (the write a load reads, where a
/// store lands in coherence order) it takes. Under `sc` the action is the
/// thread index.
pub fn thread_of(action: u32) -> usize {
    (action & 0xFFFF) as usize
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
            memory_model: MemoryModel::Sc,
            races: true,
            canonical_memory: true,
        }
    }
}

/// The sequentially consistent semantics of a program.
pub struct Model<'p> {
    pub prog: &'p Program,
    pub layout: Layout,
    liveness: Liveness,
    options: ModelOptions,
    /// `invisible[pc]`: the instruction can be fused into the step before it.
    invisible: Vec<bool>,
    pub warps: Warps,
    lock_bits: LockBits,
    /// The `ptx` memory model, when selected.
    ptx_memory: Option<memory::PtxMemory>,
    /// Interchangeable blocks, when symmetry reduction is on.
    symmetry: Option<symmetry::Symmetry>,
    /// Ample sets of independent steps, when that reduction is on.
    por: Option<por::Independence>,
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
                || prog.participants == crate::spec::ast::Participants::Master);
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
        let ptx_memory = ptx.then(|| {
            memory::PtxMemory::new(prog, &mut layout, options.races, options.canonical_memory)
        });
        let warps = Warps::new(prog, &mut layout, &options);
        let lock_bits = LockBits::new(prog, &mut layout, options.lock_bits);
        Model {
            prog,
            layout,
            liveness: Liveness::compute(&prog.code, prog.locals.len()),
            options,
            invisible,
            warps,
            lock_bits,
            ptx_memory,
            symmetry: None,
            por: None,
        }
    }

    /// Turns symmetry reduction on: the explorer then stores one
    /// representative per class of states equal up to renaming
    /// interchangeable blocks. Returns why not when the program or the
    /// options break the symmetry (nothing changes then).
    pub fn enable_symmetry(&mut self) -> Result<&symmetry::Symmetry, String> {
        self.reducible()?;
        if self.prog.devices.windows(2).any(|d| d[0] != d[1]) {
            return Err("blocks run on different GPUs".into());
        }
        let memory = self
            .ptx_memory
            .as_ref()
            .map(|w| w.block_words(self.prog, &self.layout.var_base));
        let sym = symmetry::Symmetry::infer(self.prog, &self.layout, memory)?;
        Ok(self.symmetry.insert(sym))
    }

    /// Why the reductions (symmetry, ample sets) cannot be used: they are
    /// described for sequential consistency, independent thread scheduling
    /// and every block resident from the start.
    fn reducible(&self) -> Result<(), String> {
        if self.options.resident.is_some() {
            return Err("blocks start in order under --resident".into());
        }
        if self.warps.is_lockstep() || self.lock_bits.has_state() {
            return Err("lockstep warp stacks and lock bits are not described to it yet".into());
        }
        Ok(())
    }

    /// Turns partial-order reduction of independent steps on (ample sets,
    /// `por`); returns why not when the semantics has steps it does not
    /// describe (nothing changes then).
    pub fn enable_por(&mut self) -> Result<(), String> {
        self.reducible()?;
        if self.ptx_memory.is_some() {
            return Err("the ptx memory model's state is not described to it yet".into());
        }
        self.por = Some(por::Independence::new(self)?);
        Ok(())
    }

    /// Whether ample sets are in use.
    pub fn has_por(&self) -> bool {
        self.por.is_some()
    }

    /// The symmetry in use, if any.
    pub fn symmetry(&self) -> Option<&symmetry::Symmetry> {
        self.symmetry.as_ref()
    }

    pub fn options(&self) -> &ModelOptions {
        &self.options
    }

    pub fn pc(&self, s: &[u32], t: usize) -> u32 {
        s[self.layout.thread(t, PC)]
    }

    pub fn is_finished(&self, s: &[u32], t: usize) -> bool {
        self.pc(s, t) == FINISHED
    }

    pub fn is_waiting_at_barrier(&self, s: &[u32], t: usize) -> bool {
        s[self.layout.thread(t, FLAGS)] & WAITING_BARRIER != 0
    }

    /// Takes one step of thread `t`, recording what happened into `events`.
    pub fn step_recorded(
        &self,
        s: &[u32],
        t: u32,
        out: &mut [u32],
        events: &mut Vec<Event>,
    ) -> Result<(), Violation> {
        out.copy_from_slice(s);
        let mut ctx = StepCtx {
            events: Some(events),
            progressed: false,
            choice: t >> 16,
        };
        self.run_thread(out, thread_of(t), &mut ctx)
    }

    /// Runs the thread-local instructions at the start of `t`'s program, so
    /// every step begins at a visible instruction. Stops before one that
    /// would fail: the failure is then reported by the step that runs it.
    fn settle(&self, s: &mut [u32], t: usize) {
        let mut scratch = s.to_vec();
        for _ in 0..MAX_FUSED {
            let pc = self.pc(s, t);
            if pc == FINISHED || !self.invisible[pc as usize] {
                break;
            }
            scratch.copy_from_slice(s);
            if self.exec_one(&mut scratch, t, pc).is_err() {
                break;
            }
            s.copy_from_slice(&scratch);
        }
        self.clear_dead_locals(s, t);
    }

    /// Takes one step of thread `t`; also says whether it passed a progress
    /// point (for the liveness checks).
    pub fn step_progress(
        &self,
        s: &[u32],
        t: u32,
        out: &mut [u32],
    ) -> (Result<(), Violation>, bool) {
        out.copy_from_slice(s);
        let mut ctx = StepCtx {
            choice: t >> 16,
            ..StepCtx::default()
        };
        let result = self.run_thread(out, thread_of(t), &mut ctx);
        (result, ctx.progressed)
    }

    /// Under `ptx`, whether action `a` in `s` reads or writes the newest
    /// write of its location (memory fairness of the liveness checks).
    pub fn memory_effect(&self, s: &[u32], a: u32) -> Option<memory::MemoryEffect> {
        self.ptx_memory.as_ref()?.effect(self, s, a)
    }

    /// Whether `local` may still be read at `pc`.
    fn is_live(&self, pc: Pc, local: u32) -> bool {
        (pc as usize) < self.prog.code.len() && self.liveness.is_live(pc, local)
    }

    /// Zeroes the locals of `t` that are dead at its pc, so states that differ
    /// only in values nobody will read again are the same state.
    fn clear_dead_locals(&self, s: &mut [u32], t: usize) {
        let pc = self.pc(s, t);
        let range = self.layout.locals_range(t);
        if pc == FINISHED {
            s[range].fill(0);
            return;
        }
        for (l, w) in range.enumerate() {
            if s[w] != 0 && !self.liveness.is_live(pc, l as u32) {
                s[w] = 0;
            }
        }
    }
}

impl TransitionSystem for Model<'_> {
    type Action = u32;
    type Fault = Violation;

    fn state_words(&self) -> usize {
        self.layout.words()
    }

    fn initial_state(&self, out: &mut [u32]) {
        self.layout.initial(self.prog, out);
        if let Some(w) = &self.ptx_memory {
            w.initial(out);
        }
        if self.warps.is_lockstep() {
            self.init_warps(out);
            if self.options.fuse_local_steps {
                for w in 0..self.warps.count(self.layout.threads) {
                    self.settle_warp(out, w);
                }
            }
            return;
        }
        if self.options.fuse_local_steps {
            for t in 0..self.layout.threads {
                self.settle(out, t);
            }
        }
    }

    fn actions(&self, s: &[u32], out: &mut Vec<u32>) {
        if self.warps.is_lockstep() {
            return self.warp_actions(s, out);
        }
        let started = self.started_blocks(s) * self.layout.threads_per_block;
        for t in 0..started {
            if !self.is_finished(s, t) && !self.is_blocked(s, t) {
                match &self.ptx_memory {
                    Some(w) => w.alternatives(self, s, t, out),
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
        let mut ctx = StepCtx {
            choice: t >> 16,
            ..StepCtx::default()
        };
        self.run_thread(out, thread_of(t), &mut ctx)
    }

    fn check_state(&self, s: &[u32]) -> Result<(), Violation> {
        self.check_invariants(s)
    }

    fn is_final(&self, s: &[u32]) -> bool {
        (0..self.layout.threads).all(|t| self.is_finished(s, t))
    }

    fn canonicalize(&self, s: &mut [u32]) {
        if let Some(sym) = &self.symmetry {
            sym.canonicalize(s);
        }
    }

    fn ample_actions(&self, s: &[u32], out: &mut Vec<u32>) -> bool {
        let start = out.len();
        self.actions(s, out);
        self.por
            .as_ref()
            .is_some_and(|p| p.reduce(self, s, out, start))
    }

    fn reduces(&self) -> bool {
        self.por.is_some()
    }
}

#[cfg(test)]
mod tests;

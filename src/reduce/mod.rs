//! The reductions, a layer over the model (which never imports them): [`Reduced`] is the model's
//! transition system with representatives of symmetric states
//! (`symmetry`), ample sets of independent steps (`por`), states that
//! forget what no future step reads (`memory::canon`'s `forget`: the
//! writers of writes under `ptx`), and without the failed polls that read
//! a stale write (`awaits`) where they apply. The checker chooses
//! them once ([`Reductions`]); a search of the full graph uses the model
//! itself, which the reductions never change.

pub(crate) mod awaits;
pub(crate) mod por;
pub(crate) mod symmetry;

use crate::explore::TransitionSystem;
use crate::model::memory::PtxMemory;
use crate::model::{Model, Violation};
use awaits::Awaits;
use por::Independence;
use serde::{Deserialize, Serialize};
use symmetry::Symmetry;

pub use crate::model::facts::NoFutures;
pub use symmetry::{Asymmetry, Classes, Holds, IdUse, Indexed};

/// Which reductions to use where they are sound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reductions {
    /// One representative per class of states equal up to renaming
    /// interchangeable blocks.
    pub symmetry: bool,
    /// Only an ample set of independent steps from each state (with the
    /// explorer's proviso).
    pub ample_sets: bool,
    /// Under `ptx`, store states without the writers of writes that no
    /// step can tell apart by their writer. The stored graph is a quotient
    /// of the model's by states with the same futures, with the same
    /// threads on the same edges: the per-thread analyses run on it too.
    pub forget: bool,
    /// Under `ptx`, leave out the failed iterations of a polling loop that
    /// read an older write than the latest (`awaits`).
    pub awaits: bool,
}

impl Reductions {
    pub const NONE: Reductions = Reductions {
        symmetry: false,
        ample_sets: false,
        forget: false,
        awaits: false,
    };
    pub const ALL: Reductions = Reductions {
        symmetry: true,
        ample_sets: true,
        forget: true,
        awaits: true,
    };

    /// These reductions, less those that rename threads or leave steps out
    /// (symmetry, ample sets, awaits): what keeps the model's own graph,
    /// thread by thread and edge by edge.
    pub fn per_thread(self) -> Reductions {
        Reductions {
            symmetry: false,
            ample_sets: false,
            awaits: false,
            ..self
        }
    }
}

/// A model with the reductions that apply to it.
pub struct Reduced<'m, 'p> {
    model: &'m Model<'p>,
    symmetry: Option<Symmetry>,
    ample: Option<Independence>,
    /// The `ptx` memory whose unread writers are forgotten.
    forget: Option<&'m PtxMemory>,
    awaits: Option<Awaits<'m>>,
}

/// Why a reduction asked for does not apply to a model, as data
/// (`format::reductions` words it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Inapplicable {
    /// Symmetry and ample sets: blocks start in order under `--resident`.
    Resident,
    /// Symmetry and ample sets: lockstep warp stacks and lock bits are not
    /// described to them yet.
    LockstepOrLockBits,
    /// Symmetry and ample sets: named barriers are not described to them
    /// yet.
    NamedBarriers,
    /// Symmetry: blocks run on different GPUs.
    DifferentGpus,
    /// Symmetry: the blocks are not interchangeable.
    Asymmetric(Asymmetry),
    /// Ample sets: each thread's future accesses are not known.
    NoFutures(NoFutures),
    /// Awaits: under `sc` a failed poll is a self-loop already.
    UnderSc,
    /// Awaits: a lockstep warp's step is not one thread's poll.
    LockstepPoll,
}

impl<'m, 'p> Reduced<'m, 'p> {
    /// `model` with the reductions of `wanted` that apply to it; says why
    /// each one asked for is off (symmetry, ample sets, awaits: `None` for
    /// one on or not asked for).
    pub fn new(
        model: &'m Model<'p>,
        wanted: Reductions,
    ) -> (Reduced<'m, 'p>, [Option<Inapplicable>; 3]) {
        let symmetry = wanted.symmetry.then(|| infer_symmetry(model));
        let ample = wanted
            .ample_sets
            .then(|| reducible(model).and_then(|()| ample_sets(model)));
        let awaits = wanted.awaits.then(|| Awaits::new(model));
        let refusals = [refusal(&symmetry), refusal(&ample), refusal(&awaits)];
        let reduced = Reduced {
            model,
            symmetry: symmetry.and_then(Result::ok),
            ample: ample.and_then(Result::ok),
            forget: model.memory.ptx().filter(|_| wanted.forget),
            awaits: awaits.and_then(Result::ok),
        };
        (reduced, refusals)
    }

    /// `model` with no reduction: its full graph.
    pub fn none(model: &'m Model<'p>) -> Reduced<'m, 'p> {
        Reduced {
            model,
            symmetry: None,
            ample: None,
            forget: None,
            awaits: None,
        }
    }

    pub fn model(&self) -> &'m Model<'p> {
        self.model
    }

    /// The symmetry in use, if any.
    pub fn symmetry(&self) -> Option<&Symmetry> {
        self.symmetry.as_ref()
    }

    /// Whether ample sets are in use.
    pub fn has_ample_sets(&self) -> bool {
        self.ample.is_some()
    }

    /// Whether the ample sets let spinning threads sleep on their lassos.
    pub fn lets_spinners_sleep(&self) -> bool {
        self.ample
            .as_ref()
            .is_some_and(Independence::lets_spinners_sleep)
    }

    /// Whether the graph names other threads or has fewer edges than the
    /// model's own (symmetry, ample sets, awaits): the per-thread analyses
    /// need a search without them. Forgetting keeps every thread's edges.
    pub fn is_reduced(&self) -> bool {
        self.symmetry.is_some() || self.ample.is_some() || self.awaits.is_some()
    }

    /// Whether steps are left out (ample sets, awaits): a breadth-first
    /// trace may then be longer than the model's shortest.
    pub fn leaves_steps_out(&self) -> bool {
        self.ample.is_some() || self.awaits.is_some()
    }

    /// Whether stale failed polls are left out.
    pub fn skips_stale_polls(&self) -> bool {
        self.awaits.is_some()
    }

    /// Whether states forget the writers no step reads.
    pub fn forgets(&self) -> bool {
        self.forget.is_some()
    }

    /// Forgets in `s` the writers no step reads, where the search does.
    pub fn forget_writers(&self, s: &mut [u32]) {
        if let Some(memory) = self.forget {
            memory.forget(s);
        }
    }
}

/// Why a reduction asked for is off (`None`: on, or not asked for).
fn refusal<T>(outcome: &Option<Result<T, Inapplicable>>) -> Option<Inapplicable> {
    match outcome {
        Some(Err(why)) => Some(why.clone()),
        _ => None,
    }
}

/// Why the reductions cannot be used on `model`: they are described for
/// independent thread scheduling and every block resident from the start.
fn reducible(model: &Model) -> Result<(), Inapplicable> {
    if model.options().resident.is_some() {
        return Err(Inapplicable::Resident);
    }
    if model.warps.is_lockstep() || model.lock_bits.has_state() {
        return Err(Inapplicable::LockstepOrLockBits);
    }
    if model.bars.has_state() {
        return Err(Inapplicable::NamedBarriers);
    }
    Ok(())
}

fn infer_symmetry(model: &Model) -> Result<Symmetry, Inapplicable> {
    reducible(model)?;
    let prog = model.prog;
    if prog.devices.windows(2).any(|d| d[0] != d[1]) {
        return Err(Inapplicable::DifferentGpus);
    }
    let layout = &model.threads.layout;
    let memory = model
        .memory
        .ptx()
        .map(|w| w.block_words(prog, &layout.var_base));
    Symmetry::infer(prog, layout, memory).map_err(Inapplicable::Asymmetric)
}

fn ample_sets(model: &Model) -> Result<Independence, Inapplicable> {
    Independence::new(model).map_err(Inapplicable::NoFutures)
}

impl TransitionSystem for Reduced<'_, '_> {
    type Action = u32;
    type Fault = Violation;

    fn state_words(&self) -> usize {
        self.model.state_words()
    }

    fn initial_state(&self, out: &mut [u32]) {
        self.model.initial_state(out)
    }

    fn actions(&self, s: &[u32], out: &mut Vec<u32>) {
        let start = out.len();
        self.model.actions(s, out);
        if let Some(awaits) = &self.awaits {
            awaits.retain(self.model, s, out, start);
        }
    }

    fn step(&self, s: &[u32], a: u32, out: &mut [u32]) -> Result<(), Violation> {
        self.model.step(s, a, out)
    }

    fn step_from_copy(&self, s: &[u32], a: u32, out: &mut [u32]) -> Result<(), Violation> {
        self.model.step_from_copy(s, a, out)
    }

    fn check_state(&self, s: &[u32]) -> Result<(), Violation> {
        self.model.check_state(s)
    }

    fn state_parts(&self) -> Vec<std::ops::Range<usize>> {
        self.model.state_parts()
    }

    fn is_final(&self, s: &[u32]) -> bool {
        self.model.is_final(s)
    }

    fn canonicalize(&self, s: &mut [u32]) {
        self.forget_writers(s);
        if let Some(sym) = &self.symmetry {
            sym.canonicalize(s);
        }
    }

    fn ample_actions(&self, s: &[u32], out: &mut Vec<u32>) -> bool {
        let start = out.len();
        self.actions(s, out);
        self.ample
            .as_ref()
            .is_some_and(|p| p.reduce(self.model, s, out, start))
    }

    fn reduces(&self) -> bool {
        self.ample.is_some()
    }
}

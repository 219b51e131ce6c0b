//! What a model's code tells ahead of any state, computed once per model:
//! per thread and pc, the memory words the thread may still access
//! ([`Futures`]); the values of its locals that never come from memory
//! (`values`) and the control flow they refine ([`RefinedFlow`]); and the
//! views its next SC fence refreshes before any use ([`Refreshes`]).
//!
//! The `ptx` canonical form reads them through [`Foresight`] (so the memory
//! model does not depend on these analyses), and the ample sets and awaits
//! of `reduce` read them directly.

mod flow;
mod futures;
mod refresh;
mod values;

pub(crate) use flow::{pure_locals, RefinedFlow};
pub use futures::NoFutures;
pub(crate) use futures::{no_warp_collectives, phase_word, Footprint, Futures, ScWords};
pub(crate) use refresh::Refreshes;

use super::memory::Foresight;
use super::threads::Threads;
use super::{MemoryModel, Model};
use crate::ir::Pc;
use std::sync::Arc;

/// Bits over the memory words of a state.
pub(crate) type Bits = [u64];

pub(crate) fn set(bits: &mut Bits, w: usize) {
    bits[w / 64] |= 1 << (w % 64);
}

pub(crate) fn get(bits: &Bits, w: usize) -> bool {
    bits[w / 64] >> (w % 64) & 1 == 1
}

/// Clears `bits`. Most bit sets are one word long (up to 64 threads or
/// words), and there this is one store where `fill` calls `memset`: the
/// ample set clears a dozen of them a state.
pub(crate) fn clear(bits: &mut Bits) {
    match bits {
        [w] => *w = 0,
        _ => bits.fill(0),
    }
}

/// The facts the `ptx` canonical form uses, where they are known.
#[derive(Default)]
pub(crate) struct Facts {
    /// The memory words each thread may still access (`None`: every
    /// unfinished thread counts as a reader); the ample sets reuse it.
    pub(crate) futures: Option<Arc<Futures>>,
    /// The views each thread's next SC fence refreshes before it uses
    /// them, where the model's options ask for the refresh.
    refreshes: Option<Refreshes>,
}

impl Facts {
    /// The facts for `model`'s canonical form: none unless it runs under
    /// `ptx` with the canonical form, and none for lockstep warps (a warp's
    /// stack, not its threads' pcs, says where each thread is).
    pub(crate) fn for_canonical_form(model: &Model) -> Facts {
        let options = model.options();
        let wanted = options.memory_model == MemoryModel::Ptx
            && options.canonical_memory
            && !model.warps.is_lockstep();
        if !wanted {
            return Facts::default();
        }
        let futures = Futures::for_canonical_form(model).map(Arc::new);
        let refreshes = match model.memory.ptx() {
            Some(ptx) if options.refresh_views && futures.is_some() => {
                Some(Refreshes::compute(model, ptx))
            }
            _ => None,
        };
        Facts { futures, refreshes }
    }
}

impl Foresight for Facts {
    #[inline]
    fn future(&self, t: usize, pc: Pc) -> Option<(&[u64], &[u64])> {
        self.futures.as_deref().map(|f| f.sets(t, pc))
    }

    #[inline]
    fn refreshed(&self, th: &Threads, s: &[u32], t: usize) -> Option<(&[u64], &[u64])> {
        self.refreshes.as_ref()?.at(th, s, t)
    }

    #[inline]
    fn refreshes(&self) -> bool {
        self.refreshes.is_some()
    }
}

//! Which memory words each thread may still read and write, per pc
//! ([`Futures`]), with the words that stand for the phase counts and the
//! SC-fence views after them, and the words one step accesses
//! ([`Footprint`]).

use super::values::LocalValues;
use super::{set, Bits};
use crate::ir::{cfg, Loc, MemOrder, Op, Order};
use crate::model::state::FINISHED;
use crate::model::Model;
use serde::{Deserialize, Serialize};

/// More precomputed future sets than this turn the reduction off.
pub(crate) const MAX_TABLE_BYTES: usize = 64 << 20;

/// Why the table of each thread's future accesses is not built (the ample
/// sets need it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoFutures {
    /// Warp-collective instructions read the other lanes' positions
    /// (several lanes of a warp in a block).
    WarpCollectives,
    /// The table would take this many MiB (over [`MAX_TABLE_BYTES`]).
    TooLarge { mib: usize },
}

/// The memory words one step accesses: none (thread-local), one location,
/// or the SC-fence views an SC fence orders with (its block's and maybe
/// the device's); all read, or all written.
#[derive(Clone, Copy)]
pub(crate) struct Footprint {
    pub(crate) words: [usize; 2],
    pub(crate) len: u8,
    pub(crate) write: bool,
}

impl Footprint {
    pub(crate) const LOCAL: Footprint = Footprint {
        words: [0; 2],
        len: 0,
        write: false,
    };

    pub(crate) fn one(w: usize, write: bool) -> Footprint {
        Footprint {
            words: [w, 0],
            len: 1,
            write,
        }
    }

    pub(crate) fn words(&self) -> &[usize] {
        &self.words[..self.len as usize]
    }
}

/// Under `ptx`, the words of the future sets that stand for the SC-fence
/// views, after the memory words and the phase words (`phase_word`): the
/// device's, then one per block. An SC fence reads and writes its block's
/// view, and the device's where it orders device-wide
/// (`PtxMemory::sc_fence_orders_device`): a `fence.sc.cta` of one block and
/// one of another commute.
#[derive(Clone, Copy)]
pub(crate) struct ScWords {
    pub(crate) device: usize,
}

impl ScWords {
    pub(crate) fn of(model: &Model) -> ScWords {
        let layout = &model.threads.layout;
        let phase_words = if model.prog.checks.barrier {
            layout.threads
        } else {
            0
        };
        ScWords {
            device: layout.mem_words + phase_words,
        }
    }

    /// One past the last word.
    pub(crate) fn end(&self, model: &Model) -> usize {
        self.device + 1 + model.prog.launch.blocks as usize
    }

    /// The words an SC fence of thread `t` at `scope` reads and writes.
    pub(crate) fn of_fence(&self, model: &Model, t: usize, scope: crate::ir::Scope) -> Footprint {
        let block = self.device + 1 + model.threads.layout.block_of(t);
        let orders_device = model
            .memory
            .ptx()
            .is_some_and(|w| w.sc_fence_orders_device(scope));
        Footprint {
            words: [block, self.device],
            len: 1 + orders_device as u8,
            write: true,
        }
    }
}

/// Which memory words (and, after them, the phase words and the SC-fence
/// word: [`Independence`]) each thread may still read and write, per pc:
/// a backward closure over the control-flow graph. Computed once per
/// model (`Model::futures`) and shared by the ample sets and the `ptx`
/// canonical form (`memory::canon`), which treats a thread that never
/// accesses a location again as no reader of it.
pub(crate) struct Futures {
    /// `u64` words per bit set.
    pub(crate) width: usize,
    pcs: usize,
    /// For thread `t` at `pc`: the words it may still read, then the words
    /// it may still write, at `(t * pcs + pc) * 2 * width`.
    table: Vec<u64>,
}

impl Futures {
    /// The table for the `ptx` canonical form: where the ample sets would
    /// have one (the two are cross-checked together by the tests).
    pub(crate) fn for_canonical_form(model: &Model) -> Option<Futures> {
        no_warp_collectives(model)
            .and_then(|()| Futures::compute(model))
            .ok()
    }

    /// The table for `model`, or why it is not built (too large).
    pub(crate) fn compute(model: &Model) -> Result<Futures, NoFutures> {
        let prog = model.prog;
        let layout = &model.threads.layout;
        let ptx = model.memory.ptx().is_some();
        let sc_words = ScWords::of(model);
        let width = if ptx {
            sc_words.end(model)
        } else {
            sc_words.device
        }
        .div_ceil(64)
        .max(1);
        let pcs = prog.code.len();
        let bytes = layout.threads * pcs * 2 * width * 8;
        if bytes > MAX_TABLE_BYTES {
            return Err(NoFutures::TooLarge { mib: bytes >> 20 });
        }
        let mut init = vec![0u32; layout.words()];
        layout.initial(prog, &mut init);
        let mut table = vec![0u64; layout.threads * pcs * 2 * width];
        for t in 0..layout.threads {
            if init[layout.thread(t, crate::model::state::PC)] == FINISHED {
                continue;
            }
            let rows = &mut table[t * pcs * 2 * width..(t + 1) * pcs * 2 * width];
            let values = LocalValues::compute(model, &init, t);
            let words = |loc: &Loc, out: &mut Bits| loc_words(model, &values, t, loc, out);
            for (pc, instr) in prog.code.iter().enumerate() {
                let (reads, writes) =
                    rows[pc * 2 * width..(pc + 1) * 2 * width].split_at_mut(width);
                match &instr.op {
                    Op::Load { access, .. } => words(&access.loc, reads),
                    Op::Store { access, .. } => words(&access.loc, writes),
                    Op::Atomic { access, .. } => {
                        words(&access.loc, reads);
                        words(&access.loc, writes);
                    }
                    Op::LockBitTry { loc, .. } | Op::LockBitRelease { loc, .. } => {
                        words(loc, reads);
                        words(loc, writes);
                    }
                    Op::PhaseEnter => phase_word(model, t)
                        .into_iter()
                        .for_each(|w| set(writes, w)),
                    Op::PhaseExit => (0..layout.threads)
                        .filter(|u| model.threads.takes_part(*u))
                        .filter_map(|u| phase_word(model, u))
                        .for_each(|w| set(reads, w)),
                    Op::Fence(MemOrder {
                        order: Order::Sc,
                        scope,
                    }) if ptx => {
                        for &w in sc_words.of_fence(model, t, *scope).words() {
                            set(writes, w);
                        }
                    }
                    _ => {}
                }
            }
            close_over_successors(model, rows, 2 * width);
        }
        Ok(Futures { width, pcs, table })
    }

    /// The words thread `t` at `pc` may still read, and those it may still
    /// write.
    #[inline]
    pub(crate) fn sets(&self, t: usize, pc: crate::ir::Pc) -> (&[u64], &[u64]) {
        let base = (t * self.pcs + pc as usize) * 2 * self.width;
        self.table[base..base + 2 * self.width].split_at(self.width)
    }
}

/// Why the ample sets are off where warp-collective instructions read the
/// other lanes' positions (several lanes of a warp in a block).
pub(crate) fn no_warp_collectives(model: &Model) -> Result<(), NoFutures> {
    let prog = model.prog;
    let collective = prog.code.iter().any(|i| i.op.is_warp_collective());
    if collective && prog.launch.threads_per_block > 1 && prog.launch.warp_size > 1 {
        return Err(NoFutures::WarpCollectives);
    }
    Ok(())
}

/// Under `check barrier`, the word that stands for thread `t`'s count of
/// entered phases (*phases* in the module docs), after the memory words.
pub(crate) fn phase_word(model: &Model, t: usize) -> Option<usize> {
    model
        .prog
        .checks
        .barrier
        .then(|| model.threads.layout.mem_words + t)
}

/// Marks the words thread `t` may access through `loc` in `out`.
pub(crate) fn loc_words(model: &Model, values: &LocalValues, t: usize, loc: &Loc, out: &mut Bits) {
    let block = model.threads.layout.block_of(t);
    let word = |index: u32| model.threads.layout.mem(model.prog, loc.var, index, block);
    let indices = match &loc.index {
        None => Some(vec![0]),
        Some(e) => values.eval(model, t, e),
    };
    match indices {
        // An index out of bounds faults instead of accessing anything.
        Some(is) => is
            .into_iter()
            .filter_map(|i| model.threads.index(loc.var, i).ok())
            .for_each(|i| set(out, word(i))),
        None => (0..model.prog.vars[loc.var as usize].len).for_each(|i| set(out, word(i))),
    }
}

/// Makes each pc's sets (`stride` words each) include those of every pc
/// reachable from it: a backward fixpoint over the control-flow graph.
fn close_over_successors(model: &Model, table: &mut [u64], stride: usize) {
    let code = &model.prog.code;
    let succs: Vec<Vec<usize>> = (0..code.len())
        .map(|pc| {
            cfg::successors(code, pc as u32)
                .into_iter()
                .map(|p| p as usize)
                .filter(|p| *p < code.len())
                .collect()
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for pc in (0..code.len()).rev() {
            for &n in &succs[pc] {
                for k in 0..stride {
                    let add = table[n * stride + k] & !table[pc * stride + k];
                    if add != 0 {
                        table[pc * stride + k] |= add;
                        changed = true;
                    }
                }
            }
        }
    }
}

//! Which of a thread's views an SC fence refreshes before the thread can
//! use them (the `ptx` canonical form's *view refresh*, `memory::canon`).
//!
//! A thread uses its view of location `x` only when it accesses `x` (which
//! writes it may read, where its store lands) or when it publishes its view
//! (a release write, a fence, a barrier, a warp collective). An SC fence
//! first joins the SC-fence views into the thread's view. So where, on
//! every path from the thread's pc, an SC fence comes before any access of
//! `x` and any other publication, the thread's view of `x` will be at least
//! what the SC-fence views hold for `x` now (they only grow, and an entry
//! the canonical form clears is one no reader needs) before anyone can
//! tell it apart: raising the view to it now changes no future. The
//! semaphores' and mutexes' blocks spin on their lock with relaxed atomics
//! and fence after taking it, so their views of the protected data stop
//! keeping old writes, and their own old views, apart.
//!
//! The analysis is a greatest fixed point, per thread, with one level per
//! word: no refresh, a refresh by the block's SC-fence view (`fence.sc.cta`,
//! or `.gpu` with several GPUs), or by the block's and the device's
//! (`fence.sc.gpu` on one GPU, `.sys`); a path that ends (the thread exits)
//! or never uses the view again does not constrain it. It runs on the
//! thread's control flow refined by the values of its *tracked* locals:
//! those computed only from constants, builtins and each other, never from
//! memory (`LocalValues` bounds their values). A spin loop's `while
//! (!acquired)` or `while (true)` then leaves only where the code sets its
//! flag or breaks, after the fence, instead of also at the first test.

use super::flow::RefinedFlow;
use super::futures::loc_words;
use super::values::LocalValues;
use super::Bits;
use crate::ir::{MemOrder, Op, Order};
use crate::model::memory::PtxMemory;
use crate::model::state::{FINISHED, PC};
use crate::model::threads::Threads;
use crate::model::Model;

/// Per thread and node of its refined control flow, the words whose view
/// the next SC fence refreshes.
pub(crate) struct Refreshes {
    /// `u64` words per bit set.
    width: usize,
    threads: Vec<Option<LocalFlow>>,
}

/// One thread's refined control flow, with its table.
struct LocalFlow {
    flow: RefinedFlow,
    /// Per node, `2 * width` words: the words the block's SC-fence view
    /// refreshes, then those the device's refreshes as well (a subset).
    table: Vec<u64>,
    /// Per pc: whether the next SC fence refreshes any word at some node
    /// there (most pcs have none: no need to find the node).
    refreshing: Vec<bool>,
}

/// What an instruction does to the views the analysis follows.
enum Effect<'a> {
    /// Nothing: the levels after it hold before it.
    Pass,
    /// Uses these words' views (an access, or one performed early from here).
    Uses(&'a Bits),
    /// Publishes or uses every view.
    UsesAll,
    /// An SC fence joining the block's view, and the device's where `true`.
    Fence(bool),
}

impl Refreshes {
    /// The table for `model` under its `ptx` memory `ptx`.
    pub(crate) fn compute(model: &Model, ptx: &PtxMemory) -> Refreshes {
        let layout = &model.threads.layout;
        let width = layout.mem_words.div_ceil(64).max(1);
        let mut init = vec![0u32; layout.words()];
        layout.initial(model.prog, &mut init);
        let threads = (0..layout.threads)
            .map(|t| {
                (init[layout.thread(t, PC)] != FINISHED)
                    .then(|| LocalFlow::compute(model, ptx, &init, t, width))
            })
            .collect();
        Refreshes { width, threads }
    }

    /// For thread `t` in `s`: the words its next SC fence refreshes from
    /// the block's SC-fence view, and those it refreshes from the device's
    /// as well (`None`: nothing refreshed there, or nothing known: no
    /// refresh).
    #[inline]
    pub(crate) fn at(&self, th: &Threads, s: &[u32], t: usize) -> Option<(&[u64], &[u64])> {
        let local = self.threads[t].as_ref()?;
        if !*local.refreshing.get(th.pc(s, t) as usize)? {
            return None;
        }
        let row = local.flow.node(th, s)?;
        let base = row * 2 * self.width;
        Some(local.table[base..base + 2 * self.width].split_at(self.width))
    }
}

impl LocalFlow {
    fn compute(model: &Model, ptx: &PtxMemory, init: &[u32], t: usize, width: usize) -> LocalFlow {
        // A store or atomic that may be performed from a pc, before the
        // load there, is used there.
        let early = ptx.early_ops();
        let values = LocalValues::compute(model, init, t);
        let flow = RefinedFlow::compute(model, init, t, &values);
        let prog = model.prog;
        let pcs = prog.code.len();
        let mut uses = vec![0u64; pcs * width];
        for pc in 0..pcs {
            let row = &mut uses[pc * width..(pc + 1) * width];
            let at = std::iter::once(pc).chain(early[pc].map(|e| e as usize));
            for loc in at.filter_map(|p| prog.code[p].op.access().map(|a| &a.loc)) {
                loc_words(model, &values, t, loc, row);
            }
        }
        let effect = |pc: usize| -> Effect {
            let own = &uses[pc * width..(pc + 1) * width];
            match &prog.code[pc].op {
                Op::Load { .. } => Effect::Uses(own),
                Op::Store { access, .. } | Op::Atomic { access, .. } => match access.order {
                    Order::Release | Order::AcqRel | Order::Sc => Effect::UsesAll,
                    _ => Effect::Uses(own),
                },
                Op::Fence(MemOrder {
                    order: Order::Sc,
                    scope,
                }) => Effect::Fence(ptx.sc_fence_orders_device(*scope)),
                op if op.is_thread_local() => Effect::Pass,
                Op::Exit
                | Op::CriticalEnter { .. }
                | Op::CriticalExit
                | Op::PhaseEnter
                | Op::PhaseExit => Effect::Pass,
                _ => Effect::UsesAll,
            }
        };
        // Greatest fixed point: start from "refreshed" everywhere (a path
        // that never uses a view again constrains nothing) and lower.
        let mut table = flow.solve_backward(
            2 * width,
            !0,
            |a, b| a & b,
            |pc, meet| match effect(pc as usize) {
                Effect::Pass => {}
                Effect::Uses(words) => {
                    for half in meet.chunks_mut(width) {
                        half.iter_mut().zip(words).for_each(|(a, w)| *a &= !w);
                    }
                }
                Effect::UsesAll => meet.fill(0),
                Effect::Fence(device) => {
                    let (block, dev) = meet.split_at_mut(width);
                    block.fill(!0);
                    dev.fill(if device { !0 } else { 0 });
                }
            },
        );
        // Only memory words have views (the top fills whole `u64`s).
        let words = model.threads.layout.mem_words;
        for row in table.chunks_mut(width) {
            for (i, w) in row.iter_mut().enumerate() {
                let valid = words.saturating_sub(i * 64).min(64);
                *w &= if valid == 64 { !0 } else { (1u64 << valid) - 1 };
            }
        }
        let mut refreshing = vec![false; pcs];
        for (row, &pc) in table.chunks(2 * width).zip(&flow.nodes) {
            refreshing[pc as usize] |= row[..width].iter().any(|&w| w != 0);
        }
        LocalFlow {
            flow,
            table,
            refreshing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Source;
    use crate::ir::{Launch, Pc};
    use crate::model::{MemoryModel, ModelOptions};
    use crate::spec::lower;

    /// A lock taken in a `while (!acquired)` loop, `data` updated under it.
    const LOCKED: &str = "global u32 lock = 0;\nglobal u32 data = 0;\nharness all {\n bool acq = false;\n while (!acq) {\n  if (atomicCAS(lock, 0, 1) == 0) { FENCE acq = true; }\n }\n data = data + 1;\n __threadfence();\n atomicExch(lock, 0);\n}";

    /// Whether thread 0 at the first instruction matching `at`, with its
    /// locals as in the initial state, has `var`'s view refreshed by the
    /// block's SC-fence view and by the device's.
    fn refreshed(text: &str, at: fn(&Op) -> bool, var: &str) -> (bool, bool) {
        let source = Source::new("t.gsync", text);
        let file = crate::spec::parse(&source).unwrap_or_else(|d| panic!("{}", d.message));
        let launch = Launch {
            blocks: 2,
            threads_per_block: 1,
            warp_size: 32,
        };
        let prog = lower(&file, &source, launch, &[]).unwrap_or_else(|d| panic!("{}", d.message));
        let options = ModelOptions {
            memory_model: MemoryModel::Ptx,
            ..ModelOptions::default()
        };
        let model = Model::new(&prog, options);
        let table = Refreshes::compute(&model, model.memory.ptx().unwrap());
        let layout = &model.threads.layout;
        let mut s = vec![0u32; layout.words()];
        layout.initial(&prog, &mut s);
        let pc = prog
            .code
            .iter()
            .position(|i| at(&i.op))
            .expect("the instruction");
        model.threads.set_pc(&mut s, 0, pc as Pc);
        let v = prog.vars.iter().position(|v| v.name == var).unwrap();
        let w = layout.mem(&prog, v as u32, 0, 0);
        let flow = &table.threads[0].as_ref().expect("a live thread").flow;
        flow.node(&model.threads, &s).expect("a node");
        let bit = |b: &[u64]| b[w / 64] >> (w % 64) & 1 == 1;
        // `None` at a node where nothing is refreshed.
        table
            .at(&model.threads, &s, 0)
            .map_or((false, false), |(block, device)| (bit(block), bit(device)))
    }

    fn is_cas(op: &Op) -> bool {
        matches!(
            op,
            Op::Atomic {
                op: crate::ir::AtomicOp::Cas,
                ..
            }
        )
    }

    fn is_load(op: &Op) -> bool {
        matches!(op, Op::Load { .. })
    }

    #[test]
    fn a_lock_loop_fences_before_the_data_it_protects() {
        let text = LOCKED.replace("FENCE", "__threadfence();");
        // The loop is left only once `acq` is set, after the fence: the
        // first test of `!acq` (acq false) cannot leave it.
        assert_eq!(refreshed(&text, is_cas, "data"), (true, true));
        assert_eq!(refreshed(&text, is_cas, "lock"), (false, false));
        assert_eq!(refreshed(&text, is_load, "data"), (false, false));
    }

    #[test]
    fn a_block_fence_refreshes_from_the_block_only() {
        let text = LOCKED.replace("FENCE", "__threadfence_block();");
        assert_eq!(refreshed(&text, is_cas, "data"), (true, false));
    }

    #[test]
    fn a_release_or_a_missing_fence_refreshes_nothing() {
        let release = LOCKED.replace("FENCE", "store.release.gpu(lock, 1); __threadfence();");
        assert_eq!(refreshed(&release, is_cas, "data"), (false, false));
        let none = LOCKED.replace("FENCE", "");
        assert_eq!(refreshed(&none, is_cas, "data"), (false, false));
    }

    #[test]
    fn a_flag_read_from_memory_is_not_tracked() {
        // `acq` comes from memory: the first test may leave the loop.
        let text = "global u32 lock = 0;\nglobal u32 data = 0;\nharness all {\n bool acq = false;\n while (!acq) {\n  acq = atomicCAS(lock, 0, 1) == 0;\n  if (acq) { __threadfence(); }\n }\n data = data + 1;\n}";
        assert_eq!(refreshed(text, is_cas, "data"), (false, false));
    }
}

//! Races under the `ptx` model (HRF): a conflicting access to a location
//! whose write is not ordered before the access by synchronization of a
//! wide enough scope, and is not morally strong with it. Between blocks it
//! is a `heterogeneous_race`, within a block a `data_race`.
//!
//! A write is ordered before an access when the accessing thread's view
//! already covers it (release/acquire, fences, barriers move views), so a
//! race is a write of another thread beyond the view. Detected when the
//! later access is a read or a write that can see the write (W→R, W→W);
//! a read followed by an unordered write (R→W) is not reported.

use super::layout::*;
use super::PtxMemory;
use crate::ir::{Op, Order, Pc, Scope};
use crate::model::threads::Threads;
use crate::model::{Violation, ViolationKind};

impl PtxMemory {
    /// Fails when an access of `t` at `pc` to `x` races with a write.
    pub(super) fn check_race(
        &self,
        th: &Threads,
        s: &[u32],
        t: usize,
        pc: Pc,
        x: usize,
        (strong, scope): (bool, Scope),
    ) -> Result<(), Violation> {
        // Every access of such a location is strong and in the scope of
        // every other (`Locations::race_free`): no write races with it.
        if self.locations.race_free[x] {
            return Ok(());
        }
        let cur = get(s, self.sec.thread_view(t, CUR), x);
        for p in cur + 1..self.len(s, x) {
            let meta = s[self.sec.msg(x, p) + 1];
            let Some(w) = writer(meta) else { continue };
            if w == t || self.morally_strong(meta, t, strong, scope) {
                continue;
            }
            return Err(self.race(th, s, t, pc, (x, p), meta, strong));
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn race(
        &self,
        th: &Threads,
        s: &[u32],
        t: usize,
        pc: Pc,
        (x, p): (usize, usize),
        meta: u32,
        strong: bool,
    ) -> Violation {
        let prog = th.prog;
        let w = writer(meta).expect("races are with written values");
        // A forgotten writer (`forget`) is another block's thread; the
        // report takes its message from the run replayed with writers kept.
        let known = w < self.sec.threads;
        let wpc = write_pc(meta);
        let at = |pc: Pc| {
            let span = prog.code[pc as usize].span;
            let (_, col) = prog.source.line_col(span.start);
            let line = prog.source.line_label(span.start);
            let text = prog.source.snippet(span);
            format!(
                "`{}` ({line}:{col})",
                text.lines().next().unwrap_or("").trim()
            )
        };
        let same_block = known && self.same_block(t, w);
        let writer_name = match known {
            true => th.thread_name(w),
            false => "another block".to_string(),
        };
        let both_strong = strong && meta & STRONG != 0;
        let name = self.location(th, pc);
        let ours = describe(&prog.code[pc as usize].op);
        let theirs = describe(&prog.code[wpc as usize].op);
        let (kind, why, need) = if same_block {
            (
                ViolationKind::DataRace,
                "no __syncthreads(), fence or release/acquire orders them".to_string(),
                "the two accesses need an order within the block: a __syncthreads() between them, or a release (or __threadfence_block()) where the write is published and an acquire (or __threadfence_block()) where that is observed".to_string(),
            )
        } else if both_strong {
            (
                ViolationKind::HeterogeneousRace,
                "they are block-scope operations of different blocks, atomic and ordered only within their own block".to_string(),
                "accesses of different blocks are atomic with each other only at device scope (atomicCAS rather than atomicCAS_block, .gpu rather than .cta, __threadfence() rather than __threadfence_block())".to_string(),
            )
        } else {
            let far = self.sec.thread_view(t, FAR);
            let why = if get(s, far, x) >= p {
                format!("{} observed a device-scope release that covers the write, but never acquired it: a __threadfence() (or an .acquire access) is missing after that observation", th.thread_name(t))
            } else if known && self.block_scope_release(s, w) {
                format!("{writer_name}'s last fence is block-scope: it does not order the write for another block")
            } else {
                "no device-scope synchronization orders them (a plain access is not atomic and not ordered by itself)".to_string()
            };
            (
                ViolationKind::HeterogeneousRace,
                why,
                "the write must be ordered before the other access at device scope (a __threadfence() or .gpu release where it is published, a __threadfence() or .gpu acquire where that is observed), or both must be device-scope atomics".to_string(),
            )
        };
        Violation {
            kind,
            property: "race",
            message: format!(
                "{} on `{name}`: {}'s {ours} {} and {}'s {theirs} {} conflict: {why}. Hint (not a checked fix): {need}; read the counterexample for where the order is missing (it may be an access outside the synchronization)",
                kind.name().replace('_', " "),
                th.thread_name(t),
                at(pc),
                writer_name,
                at(wpc),
            ),
            pc: Some(pc),
        }
    }

    /// Whether the writer's last fence was block-scope.
    fn block_scope_release(&self, s: &[u32], w: usize) -> bool {
        let flags = s[self.sec.flags(w)];
        flags & HAS_REL != 0 && flags_rel_scope(flags) == Scope::Cta
    }

    fn location(&self, th: &Threads, pc: Pc) -> String {
        match th.prog.code[pc as usize].op.access() {
            Some(a) => th.prog.vars[a.loc.var as usize].name.clone(),
            None => "?".into(),
        }
    }
}

/// `plain store`, `volatile load`, `block-scope atomicCAS`, ...
fn describe(op: &Op) -> String {
    let what = match op {
        Op::Load { .. } => "load",
        Op::Store { .. } => "store",
        Op::Atomic { op, .. } => op.cuda_name(),
        _ => "access",
    };
    let (order, scope) = op
        .access()
        .map_or((Order::Weak, Scope::Gpu), |a| (a.order, a.scope));
    let order = match order {
        Order::Weak if !matches!(op, Op::Atomic { .. }) => "plain ",
        Order::Volatile => "volatile ",
        Order::Relaxed | Order::Weak => "",
        Order::Acquire => "acquire ",
        Order::Release => "release ",
        Order::AcqRel | Order::Sc => "acq_rel ",
    };
    let scope = match scope {
        Scope::Cta if !order.starts_with("plain") => "block-scope ",
        _ => "",
    };
    format!("{scope}{order}{what}")
}

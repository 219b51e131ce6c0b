//! The control-flow graph of a lowered program: successors, immediate
//! post-dominators (the reconvergence points of divergent warps) and
//! live thread-local slots (so dead values can be cleared and states that
//! differ only in dead values are one state).

use super::{Expr, Instr, Loc, LocalId, Op, Pc};
use petgraph::algo::dominators;
use petgraph::graph::{DiGraph, NodeIndex};

/// Successor pcs of instruction `pc`.
pub(crate) fn successors(code: &[Instr], pc: Pc) -> Vec<Pc> {
    match &code[pc as usize].op {
        Op::Branch {
            then_pc, else_pc, ..
        } => {
            if then_pc == else_pc {
                vec![*then_pc]
            } else {
                vec![*then_pc, *else_pc]
            }
        }
        Op::Jump { target } => vec![*target],
        Op::Exit => vec![],
        _ => vec![pc + 1],
    }
}

/// The immediate post-dominator of every instruction: where the paths out of
/// a branch meet again. `None` for instructions from which the exit cannot
/// be reached (an infinite loop) and for the exit itself.
pub(crate) fn immediate_post_dominators(code: &[Instr]) -> Vec<Option<Pc>> {
    // Post-dominators are dominators of the reversed graph rooted at a
    // virtual exit node that every `Exit` instruction flows into.
    let mut g: DiGraph<(), ()> = DiGraph::with_capacity(code.len() + 1, code.len() * 2);
    let nodes: Vec<NodeIndex> = (0..=code.len()).map(|_| g.add_node(())).collect();
    let exit = nodes[code.len()];
    for pc in 0..code.len() {
        if matches!(code[pc].op, Op::Exit) {
            g.add_edge(exit, nodes[pc], ());
        }
        for s in successors(code, pc as Pc) {
            g.add_edge(nodes[s as usize], nodes[pc], ());
        }
    }
    let doms = dominators::simple_fast(&g, exit);
    (0..code.len())
        .map(|pc| {
            doms.immediate_dominator(nodes[pc])
                .filter(|d| *d != exit)
                .map(|d| d.index() as Pc)
        })
        .collect()
}

/// For every pc, the set of locals whose value may still be read from there
/// on (a bit set of `words` u64 words per pc, flattened).
pub(crate) struct Liveness {
    words: usize,
    bits: Vec<u64>,
}

impl Liveness {
    pub(crate) fn is_live(&self, pc: Pc, local: LocalId) -> bool {
        let w = pc as usize * self.words + local as usize / 64;
        self.bits[w] >> (local % 64) & 1 == 1
    }

    /// Computes live locals by backward data-flow to a fixed point.
    pub(crate) fn compute(code: &[Instr], num_locals: usize) -> Liveness {
        let words = num_locals.div_ceil(64).max(1);
        let n = code.len();
        let mut uses = vec![0u64; n * words];
        let mut defs = vec![0u64; n * words];
        for (pc, instr) in code.iter().enumerate() {
            let mut used = Vec::new();
            let def = op_reads_writes(&instr.op, &mut used);
            for l in used {
                uses[pc * words + l as usize / 64] |= 1 << (l % 64);
            }
            if let Some(d) = def {
                defs[pc * words + d as usize / 64] |= 1 << (d % 64);
            }
        }
        let succs: Vec<Vec<Pc>> = (0..n).map(|pc| successors(code, pc as Pc)).collect();
        // Strong liveness: `x = e` reads the locals of `e` only if `x` is
        // live afterwards, so a counter that only feeds its own increment
        // (`i++` of a loop that runs forever) is dead, not counting forever.
        let assigned: Vec<Option<LocalId>> = code
            .iter()
            .map(|i| match i.op {
                Op::Assign { dst, .. } => Some(dst),
                _ => None,
            })
            .collect();
        let mut live_in = vec![0u64; n * words];
        let mut out = vec![0u64; words];
        let mut changed = true;
        while changed {
            changed = false;
            for pc in (0..n).rev() {
                out.fill(0);
                for s in &succs[pc] {
                    for (w, o) in out.iter_mut().enumerate() {
                        *o |= live_in[*s as usize * words + w];
                    }
                }
                let faint = assigned[pc].is_some_and(|d| out[d as usize / 64] >> (d % 64) & 1 == 0);
                for (w, o) in out.iter().enumerate() {
                    let new_in = if faint {
                        *o
                    } else {
                        uses[pc * words + w] | (o & !defs[pc * words + w])
                    };
                    if new_in != live_in[pc * words + w] {
                        live_in[pc * words + w] = new_in;
                        changed = true;
                    }
                }
            }
        }
        Liveness {
            words,
            bits: live_in,
        }
    }
}

/// Appends the locals `op` reads to `used`; returns the local it writes.
pub(crate) fn op_reads_writes(op: &Op, used: &mut Vec<LocalId>) -> Option<LocalId> {
    let loc = |l: &Loc, used: &mut Vec<LocalId>| {
        if let Some(i) = &l.index {
            expr_locals(i, used);
        }
    };
    match op {
        Op::Assign { dst, value } => {
            expr_locals(value, used);
            Some(*dst)
        }
        Op::Load { dst, access } => {
            loc(&access.loc, used);
            Some(*dst)
        }
        Op::Store { access, value } => {
            loc(&access.loc, used);
            expr_locals(value, used);
            None
        }
        Op::LockBitRelease { loc: l, value } => {
            loc(l, used);
            expr_locals(value, used);
            None
        }
        Op::Atomic {
            dst,
            access,
            operands,
            ..
        } => {
            loc(&access.loc, used);
            operands.iter().for_each(|e| expr_locals(e, used));
            *dst
        }
        Op::SyncWarp { mask } => {
            expr_locals(mask, used);
            None
        }
        Op::Vote {
            dst, mask, pred, ..
        } => {
            expr_locals(mask, used);
            expr_locals(pred, used);
            Some(*dst)
        }
        Op::ActiveMask { dst } => Some(*dst),
        Op::Shuffle {
            dst,
            mask,
            value,
            src,
        } => {
            [mask, value, src]
                .into_iter()
                .for_each(|e| expr_locals(e, used));
            Some(*dst)
        }
        Op::LockBitTry {
            pred,
            value,
            loc: l,
        } => {
            loc(l, used);
            // Two destinations: the value is reported through `used` being
            // untouched; treat the predicate as the definition and keep the
            // value live conservatively by not killing it.
            let _ = value;
            Some(*pred)
        }
        Op::Assert { cond, .. } | Op::Branch { cond, .. } => {
            expr_locals(cond, used);
            None
        }
        Op::CriticalEnter { weight } => {
            expr_locals(weight, used);
            None
        }
        Op::NamedBarrier { count, .. } => {
            if let Some(c) = count {
                expr_locals(c, used);
            }
            None
        }
        Op::Fence(_)
        | Op::SyncThreads
        | Op::KernelBoundary
        | Op::Backoff
        | Op::CriticalExit
        | Op::PhaseEnter
        | Op::PhaseExit
        | Op::Progress
        | Op::Jump { .. }
        | Op::Exit => None,
    }
}

/// Appends every local that `e` reads.
pub(crate) fn expr_locals(e: &Expr, out: &mut Vec<LocalId>) {
    match e {
        Expr::Local(l) => out.push(*l),
        Expr::Const(_) | Expr::Builtin(_) => {}
        Expr::Unary(_, a) => expr_locals(a, out),
        Expr::Binary(_, a, b) => {
            expr_locals(a, out);
            expr_locals(b, out);
        }
        Expr::Ternary(c, a, b) => {
            expr_locals(c, out);
            expr_locals(a, out);
            expr_locals(b, out);
        }
        Expr::Fma(_, abc) => abc.iter().for_each(|x| expr_locals(x, out)),
        Expr::Global(_, i) => {
            if let Some(i) = i {
                expr_locals(i, out);
            }
        }
    }
}

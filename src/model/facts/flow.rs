//! A thread's control flow refined by the values of its *tracked* locals:
//! those computed only from constants, builtins and each other, never from
//! memory. A loop counted by such a local (`for (i = 0; i < iters; i++)`)
//! then leaves after its last round instead of also at the first test, and
//! a `while (!acquired)` only where the code sets its flag. The view
//! refresh (`refresh.rs`: the locals `LocalValues` bounds) and the writes a
//! thread may still make (`reduce::awaits`: every such local, where the flow
//! stays small) are backward fixed points on it (`solve_backward`).

use super::values::LocalValues;
use crate::ir::{cfg, to_raw, Expr, LocalId, Op, Pc, Program};
use crate::model::state;
use crate::model::threads::Threads;
use crate::model::Model;
use std::collections::HashMap;

/// A thread's refined control flow with more nodes than this falls back to
/// one node per pc (no local tracked).
const MAX_NODES: usize = 1 << 16;
/// The same bound where every local not computed from memory is tracked
/// (`RefinedFlow::for_thread`), smaller: a counter that never stops runs
/// into it, and the flow then falls back to `compute`.
const MAX_UNROLLED_NODES: usize = 1 << 12;

/// One thread's control flow: nodes (a pc and the tracked locals' values)
/// reachable from its initial state, and their successors.
pub(crate) struct RefinedFlow {
    /// The pc of each node.
    pub nodes: Vec<Pc>,
    /// The successors of each node.
    pub succs: Vec<Vec<usize>>,
    /// Per pc: where its nodes are in `ids` (and, `slots.len()` words
    /// each, in `envs`).
    nodes_at: Vec<std::ops::Range<usize>>,
    /// The nodes, grouped by pc.
    ids: Vec<usize>,
    /// The thread whose flow this is.
    thread: usize,
    /// The state words of the thread's tracked locals (two for a 64-bit
    /// one).
    slots: Vec<usize>,
    /// Those words at each node of `ids`, one node after another: a node
    /// is found by comparing words, as the model stores them.
    envs: Vec<u32>,
}

impl RefinedFlow {
    /// Thread `t`'s flow from the initial state `init`, tracking every
    /// local of `pure` (`pure_locals`) where that keeps the flow small (a
    /// loop counted by such a local is then unrolled: the writes after its
    /// last round are known unreachable), else as `compute` does.
    pub(crate) fn for_thread(
        model: &Model,
        init: &[u32],
        t: usize,
        pure: &[LocalId],
    ) -> RefinedFlow {
        match refine(model, init, t, pure, MAX_UNROLLED_NODES) {
            Some((nodes, succs)) => RefinedFlow::of_graph(model, t, pure, nodes, succs),
            None => RefinedFlow::compute(model, init, t, &LocalValues::compute(model, init, t)),
        }
    }

    /// The same, with the bounds on its locals' values already computed
    /// (one node per pc where tracking its locals gives too many).
    pub(crate) fn compute(
        model: &Model,
        init: &[u32],
        t: usize,
        values: &LocalValues,
    ) -> RefinedFlow {
        let tracked: Vec<LocalId> = (0..model.prog.locals.len() as LocalId)
            .filter(|&l| values.is_finite(l))
            .collect();
        let (nodes, succs, tracked) = match refine(model, init, t, &tracked, MAX_NODES) {
            Some(graph) => (graph.0, graph.1, tracked),
            None => {
                let plain = refine(model, init, t, &[], MAX_NODES).expect("one node per pc fits");
                (plain.0, plain.1, Vec::new())
            }
        };
        RefinedFlow::of_graph(model, t, &tracked, nodes, succs)
    }

    #[allow(clippy::type_complexity)]
    fn of_graph(
        model: &Model,
        t: usize,
        tracked: &[LocalId],
        nodes: Vec<(Pc, Box<[i64]>)>,
        succs: Vec<Vec<usize>>,
    ) -> RefinedFlow {
        let (layout, locals) = (&model.threads.layout, &model.prog.locals);
        let ty = |l: LocalId| locals[l as usize].ty;
        let slots = tracked
            .iter()
            .flat_map(|&l| (0..ty(l).words()).map(move |i| layout.local(t, l) + i))
            .collect();
        let mut ids: Vec<usize> = (0..nodes.len()).collect();
        ids.sort_by_key(|&id| nodes[id].0);
        let first_at = |pc: usize| ids.partition_point(|&id| (nodes[id].0 as usize) < pc);
        let nodes_at = (0..model.prog.code.len())
            .map(|pc| first_at(pc)..first_at(pc + 1))
            .collect();
        let mut envs = Vec::new();
        for &id in &ids {
            for (&l, &v) in tracked.iter().zip(nodes[id].1.iter()) {
                let raw = to_raw(ty(l), v);
                envs.extend((0..ty(l).words()).map(|i| (raw >> (32 * i)) as u32));
            }
        }
        RefinedFlow {
            thread: t,
            nodes: nodes.into_iter().map(|(pc, _)| pc).collect(),
            succs,
            nodes_at,
            ids,
            slots,
            envs,
        }
    }

    /// The greatest (or least) fixed point of a backward analysis with
    /// rows of `words` words per node: a node's row is the join (`join`:
    /// `&` or `|`, with `identity` its unit) of its successors' rows, then
    /// changed by `transfer` for the node's pc. Every row starts at
    /// `identity`.
    pub(crate) fn solve_backward(
        &self,
        words: usize,
        identity: u64,
        join: impl Fn(u64, u64) -> u64,
        transfer: impl Fn(Pc, &mut [u64]),
    ) -> Vec<u64> {
        let mut rows = vec![identity; self.nodes.len() * words];
        let mut row = vec![identity; words];
        let mut changed = true;
        while changed {
            changed = false;
            for n in (0..self.nodes.len()).rev() {
                row.fill(identity);
                for &m in &self.succs[n] {
                    let next = &rows[m * words..(m + 1) * words];
                    row.iter_mut()
                        .zip(next)
                        .for_each(|(a, &b)| *a = join(*a, b));
                }
                transfer(self.nodes[n], &mut row);
                let at = &mut rows[n * words..(n + 1) * words];
                if *at != *row {
                    at.copy_from_slice(&row);
                    changed = true;
                }
            }
        }
        rows
    }

    /// The node the flow's thread is at in `s` (`None`: none, a state the
    /// flow does not know).
    #[inline]
    pub(crate) fn node(&self, th: &Threads, s: &[u32]) -> Option<usize> {
        let at = self.nodes_at.get(th.pc(s, self.thread) as usize)?;
        let k = self.slots.len();
        let envs = self.envs.get(at.start * k..at.end * k)?;
        let found = match k {
            0 => (!at.is_empty()).then_some(0),
            _ => envs
                .chunks_exact(k)
                .position(|env| self.slots.iter().zip(env).all(|(&w, &v)| s[w] == v)),
        };
        found.map(|i| self.ids[at.start + i])
    }
}

/// The nodes (pc, tracked locals' values) reachable from thread `t`'s
/// initial state and each node's successors, or `None` past `max_nodes`.
/// Branches on tracked locals alone go one way; the others both ways.
/// Values are kept as the model keeps them: dead locals read 0.
#[allow(clippy::type_complexity)]
fn refine(
    model: &Model,
    init: &[u32],
    t: usize,
    tracked: &[LocalId],
    max_nodes: usize,
) -> Option<(Vec<(Pc, Box<[i64]>)>, Vec<Vec<usize>>)> {
    let th = &model.threads;
    let code = &model.prog.code;
    let ty = |l: LocalId| model.prog.locals[l as usize].ty;
    let mut scratch = init.to_vec();
    let normal = |pc: Pc, mut env: Box<[i64]>| {
        for (v, &l) in env.iter_mut().zip(tracked) {
            if !th.is_live(pc, l) {
                *v = 0;
            }
        }
        (pc, env)
    };
    let start_pc = th.pc(init, t);
    let start: Box<[i64]> = tracked
        .iter()
        .map(|&l| state::load(init, th.layout.local(t, l), ty(l)))
        .collect();
    let mut index: HashMap<(Pc, Box<[i64]>), usize> = HashMap::new();
    let mut nodes = vec![normal(start_pc, start)];
    index.insert(nodes[0].clone(), 0);
    let mut succs: Vec<Vec<usize>> = Vec::new();
    let mut locals = Vec::new();
    while succs.len() < nodes.len() {
        let (pc, env) = nodes[succs.len()].clone();
        for (&v, &l) in env.iter().zip(tracked) {
            state::store(&mut scratch, th.layout.local(t, l), ty(l), v);
        }
        // An expression over tracked locals (and constants) has one value.
        let mut known = |e: &Expr| -> Option<Result<i64, ()>> {
            locals.clear();
            cfg::expr_locals(e, &mut locals);
            let pure = !has_global(e) && locals.iter().all(|l| tracked.contains(l));
            pure.then(|| th.eval(e, &scratch, t).map_err(|_| ()))
        };
        let mut next: Vec<(Pc, Box<[i64]>)> = Vec::new();
        match &code[pc as usize].op {
            Op::Branch {
                cond,
                then_pc,
                else_pc,
            } => match known(cond) {
                Some(Ok(c)) => next.push((if c != 0 { *then_pc } else { *else_pc }, env.clone())),
                Some(Err(())) => {}
                None => {
                    next.push((*then_pc, env.clone()));
                    next.push((*else_pc, env.clone()));
                }
            },
            Op::Assign { dst, value } if tracked.contains(dst) => {
                match known(value) {
                    Some(Ok(v)) => {
                        let mut env = env.clone();
                        let k = tracked.iter().position(|l| l == dst).expect("tracked");
                        env[k] = crate::ir::wrap(ty(*dst), v);
                        next.push((pc + 1, env));
                    }
                    // A fault ends the thread's run.
                    Some(Err(())) => {}
                    // Not a tracked local after all: refine nothing.
                    None => return None,
                }
            }
            _ => next.extend(
                cfg::successors(code, pc)
                    .into_iter()
                    .map(|p| (p, env.clone())),
            ),
        }
        let mut out = Vec::new();
        for (p, env) in next {
            if p as usize >= code.len() {
                continue;
            }
            let key = normal(p, env);
            let id = match index.get(&key) {
                Some(&id) => id,
                None => {
                    if nodes.len() >= max_nodes {
                        return None;
                    }
                    index.insert(key.clone(), nodes.len());
                    nodes.push(key);
                    nodes.len() - 1
                }
            };
            out.push(id);
        }
        succs.push(out);
    }
    Some((nodes, succs))
}

/// The locals written only by assignments of expressions over constants,
/// builtins and each other: never from memory (the same for every thread).
pub(crate) fn pure_locals(prog: &Program) -> Vec<LocalId> {
    let mut pure = vec![true; prog.locals.len()];
    let mut used = Vec::new();
    let mut changed = true;
    while changed {
        changed = false;
        for instr in &prog.code {
            let dst = match &instr.op {
                // Two destinations, both from memory.
                Op::LockBitTry { value: Some(v), .. } if pure[*v as usize] => Some(*v),
                Op::Assign { dst, value } => {
                    used.clear();
                    cfg::expr_locals(value, &mut used);
                    let from_pure = !has_global(value) && used.iter().all(|&l| pure[l as usize]);
                    (!from_pure).then_some(*dst)
                }
                op => {
                    used.clear();
                    cfg::op_reads_writes(op, &mut used)
                }
            };
            if let Some(d) = dst.filter(|&d| pure[d as usize]) {
                pure[d as usize] = false;
                changed = true;
            }
        }
    }
    (0..prog.locals.len() as LocalId)
        .filter(|&l| pure[l as usize])
        .collect()
}

fn has_global(e: &Expr) -> bool {
    match e {
        Expr::Global(..) => true,
        Expr::Const(_) | Expr::Builtin(_) | Expr::Local(_) => false,
        Expr::Unary(_, a) => has_global(a),
        Expr::Binary(_, a, b) => has_global(a) || has_global(b),
        Expr::Ternary(a, b, c) => has_global(a) || has_global(b) || has_global(c),
        Expr::Fma(_, abc) => abc.iter().any(has_global),
    }
}

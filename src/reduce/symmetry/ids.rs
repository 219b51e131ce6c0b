//! Which storage holds block ids: a small type inference over the lowered
//! program, treating `blockIdx` as a *scalarset* (Ip & Dill): values that may
//! only be copied, offset by a constant (`blockIdx + 1`) and compared for
//! equality. Renaming blocks then renames those values consistently, so a
//! permutation of interchangeable blocks maps executions to executions.
//! SM ids (`blockIdx / blocks_per_sm`, scaled and offset) are a second
//! scalarset, used as indices or compared with constants; the ring
//! neighbour `(blockIdx + k) % nblocks` is an id under rotations only.
//!
//! Anything else done with a block id (arithmetic, ordering, indexing that
//! `shapes` cannot give an owner, branching on it directly) makes the
//! inference fail, and symmetry is not used. Comparing an id with a
//! constant (`blockIdx == 0`, `my_sm == 0`, `blockIdx % blocks_per_sm ==
//! 0`) is allowed but singles out that block, SM or rank: it is then never
//! permuted.

use super::kind::Kind;
use super::shapes::{self, Access, Owned, Shape};
use super::why::{Asymmetry, Holds, IdUse};
use crate::ir::{
    eval_binary, eval_unary, AtomicOp, Builtin, Expr, Loc, LocalId, LocalInit, MemAccess, Op,
    Program, VarId,
};
use crate::ir::{BinOp, Participants, Storage, Type};

/// The inferred kinds, and the blocks that code singles out by a constant.
pub(super) struct BlockIds {
    pub locals: Vec<Kind>,
    pub vars: Vec<Kind>,
    /// Blocks that must stay where they are (sorted, deduplicated).
    pub fixed: Vec<u32>,
    /// Blocks per SM (1: no SM structure in the code).
    pub g: i64,
    /// SMs that must stay where they are, and ranks within an SM that
    /// must (both sorted, deduplicated).
    pub fixed_sms: Vec<u32>,
    pub fixed_ranks: Vec<u32>,
    /// Per variable: the words of it that belong to a block or SM.
    pub owned: Vec<Option<Owned>>,
    /// Blocks form a ring (the code names ring neighbours): only rotations.
    pub cyclic: bool,
}

/// SMs and ranks singled out by comparisons: (blocks per SM, SM or rank).
#[derive(Default)]
struct Groups {
    fixed_sms: Vec<(i64, i64)>,
    fixed_ranks: Vec<(i64, i64)>,
}

/// Infers the kinds, or says why block ids are used asymmetrically.
pub(super) fn infer(
    prog: &Program,
    live_at_entry: &dyn Fn(LocalId) -> bool,
) -> Result<BlockIds, Asymmetry> {
    let mut inf = Inference {
        prog,
        blocks: i64::from(prog.launch.blocks),
        locals: vec![Kind::Bottom; prog.locals.len()],
        vars: vec![Kind::Bottom; prog.vars.len()],
        fixed: Vec::new(),
        groups: Groups::default(),
        access: vec![Access::Unused; prog.vars.len()],
        cyclic: false,
    };
    inf.seed_initial_values();
    // Kinds only grow: iterate the flow to a fixed point.
    loop {
        let before = (inf.locals.clone(), inf.vars.clone());
        for instr in &prog.code {
            inf.flow(&instr.op);
        }
        if (inf.locals.clone(), inf.vars.clone()) == before {
            break;
        }
    }
    for instr in &prog.code {
        inf.validate(&instr.op).map_err(|what| Asymmetry::At {
            line: prog.source.line_label(instr.span.start),
            what,
        })?;
    }
    for (inv, _) in &prog.checks.invariants {
        if mentions_builtin(inv) {
            return Err(Asymmetry::InvariantPerThread);
        }
        inf.plain_expr(inv).map_err(Asymmetry::Invariant)?;
    }
    inf.check_slots(live_at_entry)?;
    inf.finish()
}

struct Inference<'p> {
    prog: &'p Program,
    blocks: i64,
    locals: Vec<Kind>,
    vars: Vec<Kind>,
    fixed: Vec<u32>,
    groups: Groups,
    access: Vec<Access>,
    /// Some block's ring neighbour is named (`(blockIdx + 1) % nblocks`):
    /// only rotations of the blocks keep the code's meaning.
    cyclic: bool,
}

impl Inference<'_> {
    /// The one SM size the code uses, the owned words, and what is fixed.
    fn finish(self) -> Result<BlockIds, Asymmetry> {
        let mut sizes: Vec<i64> = self.groups.fixed_sms.iter().map(|(g, _)| *g).collect();
        sizes.extend(self.groups.fixed_ranks.iter().map(|(g, _)| *g));
        for k in self.locals.iter().chain(&self.vars) {
            if let Kind::Unit { g, .. } = k {
                sizes.push(*g);
            }
        }
        for a in &self.access {
            if let Access::Unit { g, .. } = a {
                sizes.push(*g);
            }
        }
        sizes.retain(|g| *g > 1);
        sizes.sort_unstable();
        sizes.dedup();
        if sizes.len() > 1 {
            return Err(Asymmetry::SmSizes(sizes));
        }
        let g = sizes.first().copied().unwrap_or(1);
        if self.cyclic && g > 1 {
            return Err(Asymmetry::RingInSms);
        }
        let mut owned = Vec::with_capacity(self.prog.vars.len());
        for (v, var) in self.prog.vars.iter().enumerate() {
            let o = shapes::owned(self.access[v], i64::from(var.len), self.blocks, g).map_err(
                |how| Asymmetry::Indexed {
                    name: var.name.clone(),
                    how,
                },
            )?;
            owned.push(o);
        }
        let pick = |v: &[(i64, i64)]| -> Vec<u32> {
            let mut out: Vec<u32> = v
                .iter()
                .filter(|(_, x)| *x >= 0 && *x < self.blocks)
                .map(|(_, x)| *x as u32)
                .collect();
            out.sort_unstable();
            out.dedup();
            out
        };
        let mut fixed = self.fixed;
        fixed.sort_unstable();
        fixed.dedup();
        Ok(BlockIds {
            fixed_sms: pick(&self.groups.fixed_sms),
            fixed_ranks: pick(&self.groups.fixed_ranks),
            locals: self.locals,
            vars: self.vars,
            fixed,
            g,
            owned,
            cyclic: self.cyclic,
        })
    }

    /// Initial values flow into their slots; a per-thread local equal to
    /// `blockIdx + k` in every thread that runs is an id.
    fn seed_initial_values(&mut self) {
        let tpb = self.prog.launch.threads_per_block as usize;
        for (l, local) in self.prog.locals.iter().enumerate() {
            self.locals[l] = match &local.init {
                LocalInit::Zero => Kind::Const(0),
                LocalInit::PerThread(values) => {
                    let running: Vec<(i64, i64)> = values
                        .iter()
                        .enumerate()
                        .filter(|(t, _)| {
                            self.prog.participants == Participants::All || t % tpb == 0
                        })
                        .map(|(t, v)| ((t / tpb) as i64, crate::ir::from_raw(local.ty, *v)))
                        .collect();
                    per_block_kind(&running)
                }
            };
        }
        for (v, var) in self.prog.vars.iter().enumerate() {
            let mut k = Kind::Bottom;
            for raw in &var.init {
                k = k.join(Kind::Const(crate::ir::from_raw(var.ty, *raw)));
            }
            self.vars[v] = k;
        }
    }

    fn local(&mut self, l: LocalId, k: Kind) {
        let slot = &mut self.locals[l as usize];
        *slot = slot.join(k);
    }

    fn var(&mut self, v: VarId, k: Kind) {
        let slot = &mut self.vars[v as usize];
        *slot = slot.join(k);
    }

    /// One round of flow through an instruction.
    fn flow(&mut self, op: &Op) {
        match op {
            Op::Assign { dst, value } => {
                let k = self.expr(value);
                self.local(*dst, k);
            }
            Op::Load {
                dst,
                access: MemAccess { loc, .. },
            } => {
                let k = self.vars[loc.var as usize];
                self.local(*dst, k);
            }
            Op::Store {
                access: MemAccess { loc, .. },
                value,
            } => {
                let k = self.expr(value);
                self.var(loc.var, k);
            }
            Op::Atomic { .. } => {
                let (dst, op, loc, operands) = atomic_parts(op);
                let stored = match op {
                    AtomicOp::Exch => self.expr(&operands[0]),
                    AtomicOp::Cas => self.expr(&operands[1]),
                    // Arithmetic on memory: plain data.
                    _ => Kind::Plain,
                };
                self.var(loc.var, stored);
                if let Some(d) = dst {
                    let k = self.vars[loc.var as usize];
                    self.local(d, k);
                }
            }
            _ => {}
        }
    }

    /// The kind of an expression's value.
    fn expr(&self, e: &Expr) -> Kind {
        match e {
            Expr::Const(c) => Kind::Const(*c),
            Expr::Local(l) => self.locals[*l as usize],
            Expr::Builtin(Builtin::BlockIdx) => Kind::Id(0),
            Expr::Builtin(_) => Kind::Plain,
            Expr::Global(v, _) => self.vars[*v as usize],
            Expr::Unary(op, a) => match self.expr(a) {
                Kind::Const(c) => Kind::Const(eval_unary(*op, c)),
                Kind::Id(_) | Kind::Unit { .. } | Kind::Rank(_) | Kind::Top => Kind::Top,
                _ => Kind::Plain,
            },
            Expr::Binary(op, a, b) => binary(*op, self.expr(a), self.expr(b), self.blocks),
            Expr::Ternary(c, a, b) => match self.expr(c) {
                Kind::Id(_) | Kind::Unit { .. } | Kind::Rank(_) | Kind::Top => Kind::Top,
                _ => self.expr(a).join(self.expr(b)),
            },
            Expr::Fma(f, abc) => match abc.each_ref().map(|x| self.expr(x)) {
                [Kind::Const(a), Kind::Const(b), Kind::Const(c)] => {
                    Kind::Const(crate::ir::float::fma(*f, a, b, c))
                }
                ks if ks.iter().any(|k| {
                    matches!(
                        k,
                        Kind::Id(_) | Kind::Unit { .. } | Kind::Rank(_) | Kind::Top
                    )
                }) =>
                {
                    Kind::Top
                }
                _ => Kind::Plain,
            },
        }
    }

    /// Checks an expression whose value is used as data (a branch
    /// condition, an index, an assertion); records the blocks it singles out.
    fn plain_expr(&mut self, e: &Expr) -> Result<(), IdUse> {
        self.walk(e)?;
        match self.expr(e) {
            Kind::Id(_) => Err(IdUse::BlockIdAsNumber),
            Kind::Unit { .. } => Err(IdUse::SmIdAsNumber),
            Kind::Rank(_) => Err(IdUse::RankAsNumber),
            _ => Ok(()),
        }
    }

    /// Checks every subexpression: no `Top`, indices plain, and records the
    /// blocks singled out by comparisons with constants.
    fn walk(&mut self, e: &Expr) -> Result<(), IdUse> {
        if self.expr(e) == Kind::Top {
            return Err(IdUse::Combined);
        }
        match e {
            Expr::Global(v, Some(i)) => self.index_of(*v, i),
            Expr::Unary(_, a) => self.walk(a),
            Expr::Binary(op, a, b) => {
                self.walk(a)?;
                self.walk(b)?;
                if matches!(op, BinOp::Eq | BinOp::Ne) {
                    self.compare(self.expr(a), b);
                    self.compare(self.expr(b), a);
                }
                self.cyclic |= self.is_ring_neighbour(*op, a, b);
                Ok(())
            }
            Expr::Ternary(c, a, b) => {
                self.plain_expr(c)?;
                self.walk(a)?;
                self.walk(b)
            }
            Expr::Fma(_, abc) => abc.iter().try_for_each(|x| self.walk(x)),
            _ => Ok(()),
        }
    }

    /// Whether `a op b` is `(id + k) % nblocks`.
    fn is_ring_neighbour(&self, op: BinOp, a: &Expr, b: &Expr) -> bool {
        op == BinOp::Rem
            && matches!(self.expr(a), Kind::Id(k) if k != 0)
            && self.expr(b) == Kind::Const(self.blocks)
    }

    /// Whether `e` computes `(id + k) % nblocks` somewhere.
    fn names_ring_neighbour(&self, e: &Expr) -> bool {
        match e {
            Expr::Binary(op, a, b) => {
                self.is_ring_neighbour(*op, a, b)
                    || self.names_ring_neighbour(a)
                    || self.names_ring_neighbour(b)
            }
            Expr::Unary(_, a) => self.names_ring_neighbour(a),
            Expr::Ternary(c, a, b) => [c, a, b].iter().any(|x| self.names_ring_neighbour(x)),
            Expr::Fma(_, abc) => abc.iter().any(|x| self.names_ring_neighbour(x)),
            _ => false,
        }
    }

    /// `id + k` compared (or overwritten) with the constants `other` may be.
    fn compare(&mut self, kind: Kind, other: &Expr) {
        let mut cs = constants(other);
        if let Kind::Const(c) = self.expr(other) {
            cs.push(c);
        }
        for c in cs {
            self.compare_const(kind, c);
        }
    }

    fn compare_const(&mut self, kind: Kind, c: i64) {
        match kind {
            Kind::Rank(g) => self.groups.fixed_ranks.push((g, c)),
            _ => {
                let Some((g, a, k)) = kind.as_unit() else {
                    return;
                };
                if (c - k) % a != 0 {
                    return; // no unit has this value
                }
                let unit = (c - k) / a;
                if g == 1 {
                    self.single_out(unit);
                } else {
                    self.groups.fixed_sms.push((g, unit));
                }
            }
        }
    }

    fn single_out(&mut self, block: i64) {
        if (0..self.blocks).contains(&block) {
            self.fixed.push(block as u32);
        }
    }

    fn validate(&mut self, op: &Op) -> Result<(), IdUse> {
        match op {
            Op::Assign { dst, value } => {
                self.walk(value)?;
                self.compare(self.locals[*dst as usize], value);
            }
            Op::Load {
                dst,
                access: MemAccess { loc, .. },
            } => {
                self.index(loc)?;
                if let Kind::Const(c) = self.vars[loc.var as usize] {
                    self.compare_const(self.locals[*dst as usize], c);
                }
            }
            Op::Store {
                access: MemAccess { loc, .. },
                value,
            } => {
                self.index(loc)?;
                self.walk(value)?;
                self.compare(self.vars[loc.var as usize], value);
            }
            Op::Atomic { .. } => {
                let (dst, op, loc, operands) = atomic_parts(op);
                self.index(loc)?;
                if let (Some(d), Kind::Const(c)) = (dst, self.vars[loc.var as usize]) {
                    self.compare_const(self.locals[d as usize], c);
                }
                for e in operands {
                    self.walk(e)?;
                }
                let var = self.vars[loc.var as usize];
                if let Kind::Id(_) = var {
                    if !matches!(op, AtomicOp::Exch | AtomicOp::Cas) {
                        return Err(IdUse::AtomicOnId { op });
                    }
                }
                for e in operands {
                    let k = self.expr(e);
                    if matches!(k, Kind::Id(_)) && var.join(k) != var {
                        return Err(IdUse::AtomicMixes { op });
                    }
                    // The CAS compare value and the stored values meet the old value.
                    self.compare(var, e);
                }
            }
            Op::Branch { cond: e, .. } | Op::Assert { cond: e, .. } => self.plain_expr(e)?,
            Op::CriticalEnter { weight } => self.plain_expr(weight)?,
            // No operands: nothing to check.
            Op::Fence(_) | Op::SyncThreads | Op::KernelBoundary | Op::Backoff => {}
            Op::NamedBarrier { count, .. } => {
                if let Some(c) = count {
                    self.plain_expr(c)?
                }
            }
            Op::CriticalExit | Op::PhaseEnter | Op::PhaseExit | Op::Progress => {}
            Op::Jump { .. } | Op::Exit => {}
            other => {
                let debug = format!("{other:?}");
                let op = debug.split([' ', '{', '(']).next().unwrap_or("?");
                return Err(IdUse::Unhandled { op: op.to_string() });
            }
        }
        Ok(())
    }

    fn index(&mut self, loc: &crate::ir::Loc) -> Result<(), IdUse> {
        match &loc.index {
            Some(i) => self.index_of(loc.var, i),
            None => Ok(()),
        }
    }

    /// Checks index `i` of variable `v`: plain data, or (global arrays)
    /// an index naming the thread's block or SM, whose words it owns.
    fn index_of(&mut self, v: VarId, i: &Expr) -> Result<(), IdUse> {
        if self.prog.vars[v as usize].storage == Storage::Shared {
            return self.plain_expr(i);
        }
        let shape = shapes::shape(self.prog, self.blocks, i, &|e| self.expr(e));
        self.cyclic |= self.names_ring_neighbour(i);
        if matches!(shape, Shape::Plain(_) | Shape::Stride | Shape::Bad) {
            self.plain_expr(i)?;
        }
        let slot = &mut self.access[v as usize];
        *slot = slot.join(shape);
        Ok(())
    }

    /// Final checks per slot: no mixed use, and ids fit their type.
    ///
    /// Initial values in memory are data like any other: an id word that
    /// starts as 0 (`last_block[] = 0`) names block 0, and renaming blocks
    /// renames it too, so it singles nothing out. The reduction needs renamings that
    /// map steps to steps (they do: code treats ids only as names, and
    /// constants in code single blocks out); the initial state need not be
    /// a fixed point: the search then explores an isomorphic copy of the
    /// graph (from the representative of the initial state), with the same
    /// verdicts, and `Symmetry::concretize` maps its traces back. A local's
    /// initial id read before written (other than the thread's own) still
    /// singles its block out: the ample sets evaluate indices over the
    /// values locals take from the real initial state.
    fn check_slots(&mut self, live_at_entry: &dyn Fn(LocalId) -> bool) -> Result<(), Asymmetry> {
        let prog = self.prog;
        let holds = |name: &str, what: Holds| Asymmetry::Holds {
            name: name.to_string(),
            what,
        };
        for (v, var) in prog.vars.iter().enumerate() {
            match self.vars[v] {
                Kind::Top => return Err(holds(&var.name, Holds::IdsAndData)),
                Kind::Unit { .. } | Kind::Rank(_) => {
                    return Err(holds(&var.name, Holds::SmIdsOrRanks))
                }
                Kind::Id(k) => self.fits(var.ty, k, &var.name)?,
                _ => {}
            }
        }
        for (l, local) in prog.locals.iter().enumerate() {
            match self.locals[l] {
                Kind::Top => return Err(holds(&local.name, Holds::IdsAndData)),
                Kind::Rank(_) => return Err(holds(&local.name, Holds::Rank)),
                Kind::Id(k) => self.fits(local.ty, k, &local.name)?,
                Kind::Unit { g, a, c } => {
                    let top = a * ((self.blocks + g - 1) / g - 1) + c;
                    if c < 0 || crate::ir::wrap(local.ty, top) != top {
                        return Err(holds(&local.name, Holds::IdsTooWide));
                    }
                }
                _ => {}
            }
            let kind = self.locals[l];
            if kind.is_name() && live_at_entry(l as LocalId) {
                match &local.init {
                    LocalInit::Zero => self.compare_const(kind, 0),
                    LocalInit::PerThread(values) if !self.own_names(values, local.ty, kind) => {
                        for raw in values {
                            self.compare_const(kind, crate::ir::from_raw(local.ty, *raw));
                        }
                    }
                    LocalInit::PerThread(_) => {}
                }
            }
        }
        Ok(())
    }

    /// Whether every running thread's initial value is `kind` of its own
    /// block (`blockIdx + k`, or its SM's id).
    fn own_names(&self, values: &[u64], ty: Type, kind: Kind) -> bool {
        let tpb = self.prog.launch.threads_per_block as usize;
        let Some((g, a, c)) = kind.as_unit() else {
            return false;
        };
        values.iter().enumerate().all(|(t, v)| {
            let runs = self.prog.participants == Participants::All || t % tpb == 0;
            !runs || crate::ir::from_raw(ty, *v) == a * ((t / tpb) as i64 / g) + c
        })
    }

    /// `id + k` must be representable in `ty` for every block.
    fn fits(&self, ty: Type, k: i64, name: &str) -> Result<(), Asymmetry> {
        let top = k + self.blocks - 1;
        if ty == Type::Bool || k < 0 || crate::ir::wrap(ty, top) != top {
            return Err(Asymmetry::Holds {
                name: name.to_string(),
                what: Holds::BlockIdsTooWide,
            });
        }
        Ok(())
    }
}

/// The kind of a per-thread initial value, from (block, value) of every
/// thread that runs: a constant, `a * (block / g) + c` with `a > 0` (an
/// id, possibly of the block's SM), or plain data.
fn per_block_kind(running: &[(i64, i64)]) -> Kind {
    let Some(&(b0, v0)) = running.first() else {
        return Kind::Const(0);
    };
    let Some(&(g, vg)) = running.iter().find(|(_, v)| *v != v0) else {
        return Kind::Const(v0);
    };
    let a = vg - v0;
    let fits = b0 == 0 && g > 0 && a > 0 && running.iter().all(|(b, v)| *v == a * (b / g) + v0);
    if fits {
        Kind::unit(g, a, v0)
    } else {
        Kind::Plain
    }
}

/// The parts of an atomic instruction (panics on another instruction).
fn atomic_parts(op: &Op) -> (Option<LocalId>, AtomicOp, &Loc, &[Expr]) {
    match op {
        Op::Atomic {
            dst,
            op,
            access,
            operands,
        } => (*dst, *op, &access.loc, operands),
        _ => unreachable!("called on atomics only"),
    }
}

/// The kind of `a op b`, with `blocks` blocks in the launch.
fn binary(op: BinOp, a: Kind, b: Kind, blocks: i64) -> Kind {
    use Kind::*;
    match (op, a, b) {
        (_, Top, _) | (_, _, Top) => Top,
        // The ring successor `(blockIdx + k) % nblocks` is a block id (only
        // rotations of the blocks keep it one: see `Inference::cyclic`).
        (BinOp::Rem, Id(k), Const(n)) if n == blocks && (1..n).contains(&k) => Id(0),
        (_, Const(x), Const(y)) => eval_binary(op, x, y).map_or(Plain, Const),
        (BinOp::Add, Id(k), Const(c)) | (BinOp::Add, Const(c), Id(k)) => Id(k + c),
        (BinOp::Sub, Id(k), Const(c)) => Id(k - c),
        (BinOp::Eq | BinOp::Ne, Id(k), Id(j)) if k == j => Plain,
        (BinOp::Eq | BinOp::Ne, Id(_), Const(_) | Bottom)
        | (BinOp::Eq | BinOp::Ne, Const(_) | Bottom, Id(_)) => Plain,
        // SM ids and ranks (`blockIdx / blocks_per_sm`, `% blocks_per_sm`).
        (BinOp::Div, Id(0), Const(1)) => Id(0),
        (BinOp::Div, Id(0), Const(g)) if g > 1 => Kind::unit(g, 1, 0),
        (BinOp::Rem, Id(0), Const(1)) => Const(0),
        (BinOp::Rem, Id(0), Const(g)) if g > 1 => Rank(g),
        (BinOp::Mul, u, Const(m)) | (BinOp::Mul, Const(m), u) if u.is_name() && m > 0 => {
            let (g, a, c) = u.as_unit().expect("a name");
            Kind::unit(g, a * m, c * m)
        }
        (BinOp::Add, Unit { g, a, c }, Const(k)) | (BinOp::Add, Const(k), Unit { g, a, c }) => {
            Kind::unit(g, a, c + k)
        }
        (BinOp::Sub, Unit { g, a, c }, Const(k)) => Kind::unit(g, a, c - k),
        (BinOp::Eq | BinOp::Ne, Unit { .. } | Rank(_), Const(_) | Bottom)
        | (BinOp::Eq | BinOp::Ne, Const(_) | Bottom, Unit { .. } | Rank(_)) => Plain,
        (BinOp::Eq | BinOp::Ne, x @ (Unit { .. } | Rank(_)), y) if x == y => Plain,
        (_, Id(_) | Unit { .. } | Rank(_), _) | (_, _, Id(_) | Unit { .. } | Rank(_)) => Top,
        _ => Plain,
    }
}

/// The constants an expression may evaluate to directly.
fn constants(e: &Expr) -> Vec<i64> {
    match e {
        Expr::Const(c) => vec![*c],
        Expr::Ternary(_, a, b) => [constants(a), constants(b)].concat(),
        Expr::Binary(op, a, b) => match (&**a, &**b) {
            (Expr::Const(x), Expr::Const(y)) => eval_binary(*op, *x, *y).into_iter().collect(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

fn mentions_builtin(e: &Expr) -> bool {
    match e {
        Expr::Builtin(_) => true,
        Expr::Const(_) | Expr::Local(_) => false,
        Expr::Global(_, i) => i.as_deref().is_some_and(mentions_builtin),
        Expr::Unary(_, a) => mentions_builtin(a),
        Expr::Binary(_, a, b) => mentions_builtin(a) || mentions_builtin(b),
        Expr::Ternary(c, a, b) => mentions_builtin(c) || mentions_builtin(a) || mentions_builtin(b),
        Expr::Fma(_, abc) => abc.iter().any(mentions_builtin),
    }
}

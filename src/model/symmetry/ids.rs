//! Which storage holds block ids: a small type inference over the lowered
//! program, treating `blockIdx` as a *scalarset* (Ip & Dill): values that may
//! only be copied, offset by a constant (`blockIdx + 1`) and compared for
//! equality. Renaming blocks then renames those values consistently, so a
//! permutation of interchangeable blocks maps executions to executions.
//!
//! Anything else done with a block id (arithmetic, ordering, indexing,
//! branching on it directly) makes the inference fail, and symmetry is not
//! used. Comparing an id with a constant (`blockIdx == 0`) is allowed but
//! singles out that block: it is then never permuted.

use crate::ir::{
    eval_binary, eval_unary, AtomicOp, Builtin, Expr, Loc, LocalId, LocalInit, Op, Program, VarId,
};
use crate::spec::ast::{BinOp, Participants, Type};

/// What a slot (local or memory variable) holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Nothing flows in (yet).
    Bottom,
    /// Always this constant.
    Const(i64),
    /// Ordinary data, never a block id.
    Plain,
    /// `id + k` for a block id `id`, or a constant sentinel.
    Id(i64),
    /// Mixed use: symmetry cannot rename it.
    Top,
}

impl Kind {
    fn join(self, other: Kind) -> Kind {
        use Kind::*;
        match (self, other) {
            (Bottom, x) | (x, Bottom) => x,
            (Top, _) | (_, Top) => Top,
            (Const(a), Const(b)) if a == b => Const(a),
            (Const(_) | Plain, Const(_) | Plain) => Plain,
            (Id(k), Id(j)) if k == j => Id(k),
            (Id(k), Const(_)) | (Const(_), Id(k)) => Id(k),
            _ => Top,
        }
    }
}

/// The inferred kinds, and the blocks that code singles out by a constant.
pub struct BlockIds {
    pub locals: Vec<Kind>,
    pub vars: Vec<Kind>,
    /// Blocks that must stay where they are (sorted, deduplicated).
    pub fixed: Vec<u32>,
}

/// Infers the kinds, or says why block ids are used asymmetrically.
pub fn infer(prog: &Program, live_at_entry: &dyn Fn(LocalId) -> bool) -> Result<BlockIds, String> {
    let mut inf = Inference {
        prog,
        blocks: i64::from(prog.launch.blocks),
        locals: vec![Kind::Bottom; prog.locals.len()],
        vars: vec![Kind::Bottom; prog.vars.len()],
        fixed: Vec::new(),
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
        inf.validate(&instr.op).map_err(|why| {
            let (line, _) = prog.source.line_col(instr.span.start);
            format!("line {line}: {why}")
        })?;
    }
    for (inv, _) in &prog.checks.invariants {
        if mentions_builtin(inv) {
            return Err("an invariant depends on the thread evaluating it".into());
        }
        inf.plain_expr(inv)?;
    }
    inf.check_slots(live_at_entry)?;
    let mut fixed = inf.fixed;
    fixed.sort_unstable();
    fixed.dedup();
    Ok(BlockIds {
        locals: inf.locals,
        vars: inf.vars,
        fixed,
    })
}

struct Inference<'p> {
    prog: &'p Program,
    blocks: i64,
    locals: Vec<Kind>,
    vars: Vec<Kind>,
    fixed: Vec<u32>,
}

impl Inference<'_> {
    /// Initial values flow into their slots; a per-thread local equal to
    /// `blockIdx + k` in every thread that runs is an id.
    fn seed_initial_values(&mut self) {
        let tpb = self.prog.launch.threads_per_block as usize;
        for (l, local) in self.prog.locals.iter().enumerate() {
            self.locals[l] = match &local.init {
                LocalInit::Zero => Kind::Const(0),
                LocalInit::PerThread(values) => {
                    let running: Vec<(usize, i64)> = values
                        .iter()
                        .enumerate()
                        .filter(|(t, _)| {
                            self.prog.participants == Participants::All || t % tpb == 0
                        })
                        .map(|(t, v)| (t, crate::ir::from_raw(local.ty, *v)))
                        .collect();
                    let offset = running.first().map(|(t, v)| v - (t / tpb) as i64);
                    let same = running.windows(2).all(|w| w[0].1 == w[1].1);
                    match offset {
                        None => Kind::Const(0),
                        Some(_) if same && self.blocks > 1 => Kind::Const(running[0].1),
                        Some(k) if running.iter().all(|(t, v)| v - (t / tpb) as i64 == k) => {
                            Kind::Id(k)
                        }
                        Some(_) => Kind::Plain,
                    }
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
            Op::Load { dst, loc, .. } => {
                let k = self.vars[loc.var as usize];
                self.local(*dst, k);
            }
            Op::Store { loc, value, .. } => {
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
                Kind::Id(_) | Kind::Top => Kind::Top,
                _ => Kind::Plain,
            },
            Expr::Binary(op, a, b) => binary(*op, self.expr(a), self.expr(b)),
            Expr::Ternary(c, a, b) => match self.expr(c) {
                Kind::Id(_) | Kind::Top => Kind::Top,
                _ => self.expr(a).join(self.expr(b)),
            },
        }
    }

    /// Checks an expression whose value is used as data (a branch
    /// condition, an index, an assertion); records the blocks it singles out.
    fn plain_expr(&mut self, e: &Expr) -> Result<(), String> {
        self.walk(e)?;
        match self.expr(e) {
            Kind::Id(_) => Err("a block id is used as a number or condition".into()),
            _ => Ok(()),
        }
    }

    /// Checks every subexpression: no `Top`, indices plain, and records the
    /// blocks singled out by comparisons with constants.
    fn walk(&mut self, e: &Expr) -> Result<(), String> {
        if self.expr(e) == Kind::Top {
            return Err("block ids are combined with other data".into());
        }
        match e {
            Expr::Global(_, Some(i)) => self.plain_expr(i),
            Expr::Unary(_, a) => self.walk(a),
            Expr::Binary(op, a, b) => {
                self.walk(a)?;
                self.walk(b)?;
                if matches!(op, BinOp::Eq | BinOp::Ne) {
                    self.compare(self.expr(a), b);
                    self.compare(self.expr(b), a);
                }
                Ok(())
            }
            Expr::Ternary(c, a, b) => {
                self.plain_expr(c)?;
                self.walk(a)?;
                self.walk(b)
            }
            _ => Ok(()),
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
        if let Kind::Id(k) = kind {
            self.single_out(c - k);
        }
    }

    fn single_out(&mut self, block: i64) {
        if (0..self.blocks).contains(&block) {
            self.fixed.push(block as u32);
        }
    }

    fn validate(&mut self, op: &Op) -> Result<(), String> {
        match op {
            Op::Assign { dst, value } => {
                self.walk(value)?;
                self.compare(self.locals[*dst as usize], value);
            }
            Op::Load { dst, loc, .. } => {
                self.index(loc)?;
                if let Kind::Const(c) = self.vars[loc.var as usize] {
                    self.compare_const(self.locals[*dst as usize], c);
                }
            }
            Op::Store { loc, value, .. } => {
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
                        return Err(format!("{} on a block id", op.cuda_name()));
                    }
                }
                for e in operands {
                    let k = self.expr(e);
                    if matches!(k, Kind::Id(_)) && var.join(k) != var {
                        return Err(format!("{} mixes a block id with data", op.cuda_name()));
                    }
                    // The CAS compare value and the stored values meet the old value.
                    self.compare(var, e);
                }
            }
            Op::Branch { cond: e, .. } | Op::Assert { cond: e, .. } => self.plain_expr(e)?,
            Op::CriticalEnter { weight } => self.plain_expr(weight)?,
            // No operands: nothing to check.
            Op::Fence { .. } | Op::SyncThreads | Op::KernelBoundary | Op::Backoff => {}
            Op::CriticalExit | Op::PhaseEnter | Op::PhaseExit | Op::Progress => {}
            Op::Jump { .. } | Op::Exit => {}
            other => {
                return Err(format!(
                    "symmetry reduction does not handle `{}` yet",
                    format!("{other:?}")
                        .split([' ', '{', '('])
                        .next()
                        .unwrap_or("?")
                ))
            }
        }
        Ok(())
    }

    fn index(&mut self, loc: &crate::ir::Loc) -> Result<(), String> {
        match &loc.index {
            Some(i) => self.plain_expr(i),
            None => Ok(()),
        }
    }

    /// Final checks per slot: no mixed use, ids fit their type, and initial
    /// values that name a block single it out.
    fn check_slots(&mut self, live_at_entry: &dyn Fn(LocalId) -> bool) -> Result<(), String> {
        let prog = self.prog;
        for (v, var) in prog.vars.iter().enumerate() {
            match self.vars[v] {
                Kind::Top => return Err(format!("`{}` holds block ids and other data", var.name)),
                Kind::Id(k) => {
                    self.fits(var.ty, k, &var.name)?;
                    for raw in &var.init {
                        self.single_out(crate::ir::from_raw(var.ty, *raw) - k);
                    }
                }
                _ => {}
            }
        }
        for (l, local) in prog.locals.iter().enumerate() {
            match self.locals[l] {
                Kind::Top => {
                    return Err(format!("`{}` holds block ids and other data", local.name))
                }
                Kind::Id(k) => {
                    self.fits(local.ty, k, &local.name)?;
                    // An initial constant read before written names block c - k
                    // (per-thread initial ids are the thread's own block).
                    if live_at_entry(l as LocalId) {
                        match &local.init {
                            LocalInit::Zero => self.single_out(-k),
                            LocalInit::PerThread(values) if !self.own_ids(values, k) => {
                                for raw in values {
                                    self.single_out(crate::ir::from_raw(local.ty, *raw) - k);
                                }
                            }
                            LocalInit::PerThread(_) => {}
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Whether every running thread's initial value is its own `blockIdx + k`.
    fn own_ids(&self, values: &[u32], k: i64) -> bool {
        let tpb = self.prog.launch.threads_per_block as usize;
        values.iter().enumerate().all(|(t, v)| {
            let runs = self.prog.participants == Participants::All || t % tpb == 0;
            !runs || i64::from(*v) - k == (t / tpb) as i64
        })
    }

    /// `id + k` must be representable in `ty` for every block.
    fn fits(&self, ty: Type, k: i64, name: &str) -> Result<(), String> {
        let top = k + self.blocks - 1;
        if ty == Type::Bool || k < 0 || crate::ir::wrap(ty, top) != top {
            return Err(format!("`{name}` holds block ids that do not fit its type"));
        }
        Ok(())
    }
}

/// The parts of an atomic instruction (panics on another instruction).
fn atomic_parts(op: &Op) -> (Option<LocalId>, AtomicOp, &Loc, &[Expr]) {
    match op {
        Op::Atomic {
            dst,
            op,
            loc,
            operands,
            ..
        } => (*dst, *op, loc, operands),
        _ => unreachable!("called on atomics only"),
    }
}

fn binary(op: BinOp, a: Kind, b: Kind) -> Kind {
    use Kind::*;
    match (op, a, b) {
        (_, Top, _) | (_, _, Top) => Top,
        (_, Const(x), Const(y)) => eval_binary(op, x, y).map_or(Plain, Const),
        (BinOp::Add, Id(k), Const(c)) | (BinOp::Add, Const(c), Id(k)) => Id(k + c),
        (BinOp::Sub, Id(k), Const(c)) => Id(k - c),
        (BinOp::Eq | BinOp::Ne, Id(k), Id(j)) if k == j => Plain,
        (BinOp::Eq | BinOp::Ne, Id(_), Const(_) | Bottom)
        | (BinOp::Eq | BinOp::Ne, Const(_) | Bottom, Id(_)) => Plain,
        (_, Id(_), _) | (_, _, Id(_)) => Top,
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
    }
}

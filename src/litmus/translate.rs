//! Translation of a litmus test into the project's IR.
//!
//! The IR has one program for every thread, so the program starts with a
//! dispatch on `(blockIdx, threadIdx)` that jumps to each litmus thread's
//! code. CTAs become blocks (in increasing order of their ids), the threads
//! of a CTA become threads of its block in column order; blocks are padded
//! to the largest CTA with threads that exit at once. Registers are locals
//! (initialised per thread), locations are `global` `i32` variables.
//!
//! A finished thread's locals are cleared by the model (they are dead), so
//! before exiting each thread copies the registers the final condition reads
//! into global variables named `P1:r1` (weak stores to locations no other
//! thread touches). The final condition is then evaluated over memory.

use super::parse::{Instr, Litmus, Operand, Stmt, Term};
use crate::ir::memop::{order_named, scope_named};
use crate::ir::{
    AtomicOp, Builtin, Checks, Expr, Instr as IrInstr, Launch, Loc, LocalInit, LocalVar, MemOrder,
    MemVar, Op, Order, Pc, Program, Scope, VarId,
};
use crate::spec::ast::{BinOp, Header, Participants, Span, Storage, Type};
use crate::spec::diag::Source;
use std::collections::BTreeMap;

/// Why a test cannot be expressed, with the text responsible.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported {
    pub reason: String,
    pub span: Span,
}

fn unsupported<T>(span: Span, reason: impl Into<String>) -> Result<T, Unsupported> {
    Err(Unsupported {
        reason: reason.into(),
        span,
    })
}

/// A translated test: the program and where the final condition's terms live.
pub struct Translated {
    pub program: Program,
    /// The variable holding each term of the final condition.
    pub terms: BTreeMap<Term, VarId>,
}

/// Where each litmus thread runs.
struct Placement {
    /// (block, thread within block) per litmus thread.
    slots: Vec<(u32, u32)>,
    launch: Launch,
    /// The GPU of each block (empty when all share one).
    devices: Vec<u32>,
}

fn place(test: &Litmus) -> Result<Placement, Unsupported> {
    // CTA ids are per GPU: a block is a (gpu, cta) pair.
    let ctas: Vec<(u32, u32)> = {
        let mut c: Vec<(u32, u32)> = test.threads.iter().map(|t| (t.gpu, t.cta)).collect();
        c.sort_unstable();
        c.dedup();
        c
    };
    let mut per_block = vec![0u32; ctas.len()];
    let mut slots = vec![];
    for t in &test.threads {
        let b = ctas.binary_search(&(t.gpu, t.cta)).expect("cta listed") as u32;
        slots.push((b, per_block[b as usize]));
        per_block[b as usize] += 1;
    }
    let mut devices: Vec<u32> = ctas.iter().map(|(g, _)| *g).collect();
    if devices.iter().all(|d| *d == devices[0]) {
        devices.clear();
    }
    Ok(Placement {
        slots,
        devices,
        launch: Launch {
            blocks: ctas.len().max(1) as u32,
            threads_per_block: per_block.iter().copied().max().unwrap_or(1).max(1),
            warp_size: 32,
        },
    })
}

/// `scope` where a qualifier names one, else PTX's default for atomics and
/// fences, `.sys`.
fn scope_or_sys(quals: &[String], scope: Scope) -> Scope {
    if quals.iter().any(|q| scope_named(q).is_some()) {
        scope
    } else {
        Scope::Sys
    }
}

fn order_scope(instr: &Instr, quals: &[String]) -> Result<(MemOrder, Vec<String>), Unsupported> {
    let mut order = None;
    let mut scope = None;
    let mut rest = vec![];
    for q in quals {
        match (order_named(q), scope_named(q)) {
            (Some(o), _) => order = Some(o),
            (_, Some(s)) => scope = Some(s),
            // Type suffixes carry nothing the IR needs (every location is 32-bit).
            _ if matches!(
                q.as_str(),
                "u32" | "s32" | "b32" | "global" | "u64" | "s64" | "b64"
            ) =>
            {
                if q.ends_with("64") {
                    return unsupported(
                        instr.span,
                        format!("64-bit access `.{q}`: locations are 32-bit in the IR"),
                    );
                }
            }
            _ => rest.push(q.clone()),
        }
    }
    let order = order.unwrap_or(Order::Weak);
    // `volatile` is relaxed at system scope; weak accesses have no scope
    // (Cta is recorded); other orders default to .sys as in PTX.
    let scope = match order {
        Order::Volatile => Scope::Sys,
        Order::Weak => scope.unwrap_or(Scope::Cta),
        _ => scope.unwrap_or(Scope::Sys),
    };
    Ok((MemOrder::new(order, scope), rest))
}

fn atomic_op(name: &str) -> Option<AtomicOp> {
    Some(match name {
        "add" => AtomicOp::Add,
        "sub" => AtomicOp::Sub,
        "exch" => AtomicOp::Exch,
        "cas" => AtomicOp::Cas,
        "inc" => AtomicOp::Inc,
        "dec" => AtomicOp::Dec,
        "and" => AtomicOp::And,
        "or" => AtomicOp::Or,
        "xor" => AtomicOp::Xor,
        "max" => AtomicOp::Max,
        "min" => AtomicOp::Min,
        _ => return None,
    })
}

fn is_barrier(opcode: &[String]) -> bool {
    matches!(opcode.first().map(String::as_str), Some("bar" | "barrier"))
}

/// Checks that every `bar.sync` can be the IR's block-wide `__syncthreads()`:
/// a constant barrier id, no thread count other than the whole CTA, not
/// inside a loop or skipped by a branch, and every thread of the CTA passes
/// the same sequence of barrier ids (so no barrier synchronises a subset of
/// the block).
pub(crate) fn check_barriers(test: &Litmus) -> Result<(), Unsupported> {
    let mut by_cta: BTreeMap<u32, Vec<(usize, Vec<i64>)>> = BTreeMap::new();
    let cta_size = |cta: u32| test.threads.iter().filter(|t| t.cta == cta).count() as i64;
    for t in &test.threads {
        let instrs: Vec<&Instr> = t
            .code
            .iter()
            .filter_map(|s| match s {
                Stmt::Instr(i) => Some(i),
                Stmt::Label(..) => None,
            })
            .collect();
        let mut labels = BTreeMap::new();
        let mut n = 0;
        for s in &t.code {
            match s {
                Stmt::Label(l, _) => {
                    labels.insert(l.clone(), n);
                }
                Stmt::Instr(_) => n += 1,
            }
        }
        let mut ids = vec![];
        for (i, instr) in instrs.iter().enumerate() {
            if !is_barrier(&instr.opcode) {
                continue;
            }
            let kind = instr.opcode.get(1).map(String::as_str);
            let kind = if kind == Some("cta") {
                instr.opcode.get(2).map(String::as_str)
            } else {
                kind
            };
            if kind != Some("sync") {
                return unsupported(
                    instr.span,
                    format!(
                        "`{}`: only bar.sync has an IR counterpart (__syncthreads)",
                        instr.opcode.join(".")
                    ),
                );
            }
            let id =
                match instr.operands.first() {
                    Some(Operand::Imm(v)) => *v,
                    Some(_) => return unsupported(
                        instr.span,
                        "barrier id in a register: the IR has only the block-wide __syncthreads",
                    ),
                    None => 0,
                };
            match &instr.operands[1.min(instr.operands.len())..] {
                [] => {}
                [Operand::Imm(c)] if *c == cta_size(t.cta) => {}
                [Operand::Imm(c)] => {
                    return unsupported(
                        instr.span,
                        format!("named barrier for {c} of the CTA's {} threads: the IR has only the block-wide __syncthreads", cta_size(t.cta)),
                    )
                }
                _ => {
                    return unsupported(
                        instr.span,
                        "barrier with a register thread count or extra operands (quorum form)",
                    )
                }
            }
            for (j, other) in instrs.iter().enumerate() {
                let target = match (other.opcode[0].as_str(), other.operands.last()) {
                    ("goto" | "bra" | "beq" | "bne", Some(Operand::Name(l))) => {
                        labels.get(l).copied()
                    }
                    _ => None,
                };
                if let Some(k) = target {
                    let crosses = if k <= j {
                        k <= i && i < j
                    } else {
                        j < i && i < k
                    };
                    if crosses {
                        return unsupported(instr.span, "barrier inside a loop or behind a branch: its instances cannot be matched statically");
                    }
                }
            }
            ids.push(id);
        }
        by_cta.entry(t.cta).or_default().push((t.id, ids));
    }
    for members in by_cta.values() {
        let any = members.iter().any(|(_, ids)| !ids.is_empty());
        if !any {
            continue;
        }
        let first = &members[0].1;
        if let Some((t, _)) = members.iter().find(|(_, ids)| ids != first) {
            return unsupported(
                test.threads[*t].span,
                "the threads of this CTA pass different barrier sequences: a named barrier for part of a block has no IR counterpart",
            );
        }
    }
    Ok(())
}

struct Builder<'a> {
    test: &'a Litmus,
    vars: Vec<MemVar>,
    var_ids: BTreeMap<String, VarId>,
    locals: Vec<LocalVar>,
    local_ids: BTreeMap<String, u32>,
    code: Vec<IrInstr>,
}

impl Builder<'_> {
    fn var(&mut self, name: &str, span: Span) -> VarId {
        if let Some(v) = self.var_ids.get(name) {
            return *v;
        }
        let init = self
            .test
            .mem_init
            .iter()
            .find(|(n, ..)| n == name)
            .map_or(0, |(_, v, _)| *v);
        let id = self.vars.len() as VarId;
        self.vars.push(MemVar {
            name: name.to_string(),
            storage: Storage::Global,
            ty: Type::I32,
            volatile: false,
            len: 1,
            is_array: false,
            init: vec![init as i32 as u32],
            span,
        });
        self.var_ids.insert(name.to_string(), id);
        id
    }

    fn local(&mut self, name: &str) -> u32 {
        if let Some(l) = self.local_ids.get(name) {
            return *l;
        }
        let id = self.locals.len() as u32;
        self.locals.push(LocalVar {
            name: name.to_string(),
            ty: Type::I32,
            init: LocalInit::Zero,
        });
        self.local_ids.insert(name.to_string(), id);
        id
    }

    fn value(&mut self, op: &Operand, instr: &Instr) -> Result<Expr, Unsupported> {
        match op {
            Operand::Imm(v) => Ok(Expr::Const(*v)),
            Operand::Reg(r) => Ok(Expr::Local(self.local(r))),
            Operand::Name(n) => unsupported(
                instr.span,
                format!("`{n}` used as a value: addresses in registers are not supported"),
            ),
        }
    }

    fn reg(&mut self, op: Option<&Operand>, instr: &Instr) -> Result<u32, Unsupported> {
        match op {
            Some(Operand::Reg(r)) => Ok(self.local(r)),
            _ => unsupported(instr.span, "expected a register operand"),
        }
    }

    fn loc(&mut self, op: Option<&Operand>, instr: &Instr) -> Result<Loc, Unsupported> {
        match op {
            Some(Operand::Name(n)) => Ok(Loc {
                var: self.var(n, instr.span),
                index: None,
            }),
            _ => unsupported(instr.span, "expected a memory location operand"),
        }
    }

    fn emit(&mut self, op: Op, span: Span) {
        self.code.push(IrInstr { op, span });
    }

    /// Translates one instruction; branches get their target patched later.
    fn instr(
        &mut self,
        instr: &Instr,
        fixups: &mut Vec<(usize, String, Span)>,
    ) -> Result<(), Unsupported> {
        let head = instr.opcode[0].as_str();
        let quals = &instr.opcode[1..];
        match head {
            "ld" => self.load(instr, quals),
            "st" => self.store(instr, quals),
            "atom" | "red" => self.atomic(instr, quals, head == "atom"),
            "fence" | "membar" => self.fence(instr, quals, head == "membar"),
            "bar" | "barrier" => {
                // `check_barriers` accepted it: a block-wide barrier.
                self.emit(Op::SyncThreads, instr.span);
                Ok(())
            }
            "goto" | "bra" => {
                arity(instr, 1)?;
                let label = label(instr, &instr.operands[0], "expected a label")?;
                fixups.push((self.code.len(), label, instr.span));
                self.emit(Op::Jump { target: 0 }, instr.span);
                Ok(())
            }
            "beq" | "bne" => self.branch(instr, head == "beq", fixups),
            "mov" => {
                arity(instr, 2)?;
                let dst = self.reg(instr.operands.first(), instr)?;
                let value = self.value(&instr.operands[1], instr)?;
                self.emit(Op::Assign { dst, value }, instr.span);
                Ok(())
            }
            "add" | "sub" | "mul" | "and" | "or" | "xor" => self.arith(instr, head),
            _ => unsupported(
                instr.span,
                format!("instruction `{}`", instr.opcode.join(".")),
            ),
        }
    }

    fn load(&mut self, instr: &Instr, quals: &[String]) -> Result<(), Unsupported> {
        let ops = &instr.operands;
        arity(instr, 2)?;
        let dst = self.reg(ops.first(), instr)?;
        if quals.is_empty() && !matches!(ops[1], Operand::Name(_)) {
            // herd's `ld r0, 1`: a register move.
            let value = self.value(&ops[1], instr)?;
            self.emit(Op::Assign { dst, value }, instr.span);
            return Ok(());
        }
        let (mo, rest) = order_scope(instr, quals)?;
        if !rest.is_empty() || matches!(mo.order, Order::Release | Order::AcqRel | Order::Sc) {
            return unsupported(instr.span, format!("load `{}`", instr.opcode.join(".")));
        }
        let access = mo.at(self.loc(ops.get(1), instr)?);
        self.emit(Op::Load { dst, access }, instr.span);
        Ok(())
    }

    fn store(&mut self, instr: &Instr, quals: &[String]) -> Result<(), Unsupported> {
        let ops = &instr.operands;
        arity(instr, 2)?;
        let (mo, rest) = order_scope(instr, quals)?;
        if !rest.is_empty() || matches!(mo.order, Order::Acquire | Order::AcqRel | Order::Sc) {
            return unsupported(instr.span, format!("store `{}`", instr.opcode.join(".")));
        }
        let access = mo.at(self.loc(ops.first(), instr)?);
        let value = self.value(&ops[1], instr)?;
        self.emit(Op::Store { access, value }, instr.span);
        Ok(())
    }

    /// `atom` (the old value into a register) or `red` (no result).
    fn atomic(&mut self, instr: &Instr, quals: &[String], atom: bool) -> Result<(), Unsupported> {
        let ops = &instr.operands;
        let (mo, rest) = order_scope(instr, quals)?;
        let op = match rest.as_slice() {
            [name] => atomic_op(name),
            _ => None,
        };
        let Some(op) = op else {
            return unsupported(instr.span, format!("atomic `{}`", instr.opcode.join(".")));
        };
        if mo.order == Order::Weak && quals.iter().any(|q| q == "weak")
            || mo.order == Order::Volatile
        {
            return unsupported(instr.span, "atomics cannot be weak or volatile");
        }
        // An atomic without an order is relaxed.
        let order = if mo.order == Order::Weak {
            Order::Relaxed
        } else {
            mo.order
        };
        let mo = MemOrder::new(order, scope_or_sys(quals, mo.scope));
        let (dst, rest_ops) = if atom {
            arity(instr, 2 + op.operands())?;
            (Some(self.reg(ops.first(), instr)?), &ops[1..])
        } else {
            arity(instr, 1 + op.operands())?;
            (None, &ops[..])
        };
        let access = mo.at(self.loc(rest_ops.first(), instr)?);
        let mut operands = vec![];
        for o in &rest_ops[1..] {
            operands.push(self.value(o, instr)?);
        }
        let atomic = Op::Atomic {
            dst,
            op,
            access,
            operands,
        };
        self.emit(atomic, instr.span);
        Ok(())
    }

    /// `fence.sc`/`fence.acq_rel` at a scope, or the old `membar.{cta,gl,sys}`.
    fn fence(&mut self, instr: &Instr, quals: &[String], membar: bool) -> Result<(), Unsupported> {
        arity(instr, 0)?;
        let refused = || unsupported(instr.span, format!("fence `{}`", instr.opcode.join(".")));
        let mo = if membar {
            let scope = match quals {
                [q] if q == "cta" => Scope::Cta,
                [q] if q == "gl" => Scope::Gpu,
                [q] if q == "sys" => Scope::Sys,
                _ => return refused(),
            };
            MemOrder::new(Order::Sc, scope)
        } else {
            let (mo, rest) = order_scope(instr, quals)?;
            if !rest.is_empty() || !matches!(mo.order, Order::Sc | Order::AcqRel) {
                return refused();
            }
            // `fence.sc` without an order qualifier is not valid PTX; a
            // bare `fence` (order Weak here) was rejected just above.
            MemOrder::new(mo.order, scope_or_sys(quals, mo.scope))
        };
        self.emit(Op::Fence(mo), instr.span);
        Ok(())
    }

    /// `beq a, b, L` / `bne a, b, L`: to `L` when the test holds, else on.
    fn branch(
        &mut self,
        instr: &Instr,
        eq: bool,
        fixups: &mut Vec<(usize, String, Span)>,
    ) -> Result<(), Unsupported> {
        let ops = &instr.operands;
        arity(instr, 3)?;
        let a = self.value(&ops[0], instr)?;
        let b = self.value(&ops[1], instr)?;
        let label = label(instr, &ops[2], "expected a label as the last operand")?;
        let cmp = if eq { BinOp::Eq } else { BinOp::Ne };
        fixups.push((self.code.len(), label, instr.span));
        let next = self.code.len() as Pc + 1;
        let branch = Op::Branch {
            cond: Expr::Binary(cmp, Box::new(a), Box::new(b)),
            then_pc: 0,
            else_pc: next,
        };
        self.emit(branch, instr.span);
        Ok(())
    }

    /// `add`, `sub`, `mul`, `and`, `or`, `xor`: `dst = a OP b`.
    fn arith(&mut self, instr: &Instr, head: &str) -> Result<(), Unsupported> {
        let ops = &instr.operands;
        arity(instr, 3)?;
        let dst = self.reg(ops.first(), instr)?;
        let a = self.value(&ops[1], instr)?;
        let b = self.value(&ops[2], instr)?;
        let op = match head {
            "add" => BinOp::Add,
            "sub" => BinOp::Sub,
            "mul" => BinOp::Mul,
            "and" => BinOp::BitAnd,
            "or" => BinOp::BitOr,
            _ => BinOp::BitXor,
        };
        let value = Expr::Binary(op, Box::new(a), Box::new(b));
        self.emit(Op::Assign { dst, value }, instr.span);
        Ok(())
    }
}

/// Refuses an instruction with other than `n` operands.
fn arity(instr: &Instr, n: usize) -> Result<(), Unsupported> {
    if instr.operands.len() == n {
        Ok(())
    } else {
        unsupported(
            instr.span,
            format!(
                "`{}` expects {n} operands, found {}",
                instr.opcode.join("."),
                instr.operands.len()
            ),
        )
    }
}

/// The label a branch operand names.
fn label(instr: &Instr, op: &Operand, refusal: &str) -> Result<String, Unsupported> {
    match op {
        Operand::Name(label) => Ok(label.clone()),
        _ => unsupported(instr.span, refusal),
    }
}

fn is_thread(block: u32, thread: u32) -> Expr {
    let eq = |b: Builtin, v: u32| {
        Expr::Binary(
            BinOp::Eq,
            Box::new(Expr::Builtin(b)),
            Box::new(Expr::Const(i64::from(v))),
        )
    };
    Expr::Binary(
        BinOp::And,
        Box::new(eq(Builtin::BlockIdx, block)),
        Box::new(eq(Builtin::ThreadIdx, thread)),
    )
}

/// Translates a parsed test into a program for the IR.
pub fn translate(test: &Litmus, source: &Source) -> Result<Translated, Unsupported> {
    let placement = place(test)?;
    check_barriers(test)?;
    let mut b = Builder {
        test,
        vars: vec![],
        var_ids: BTreeMap::new(),
        locals: vec![],
        local_ids: BTreeMap::new(),
        code: vec![],
    };
    // Locations in order of declaration, then of use.
    for (name, _, span) in &test.mem_init {
        b.var(name, *span);
    }
    let mut terms = vec![];
    test.condition.terms(&mut terms);
    let mut term_vars = BTreeMap::new();
    for t in &terms {
        match t {
            Term::Mem(m) => {
                let v = b.var(m, test.condition_span);
                term_vars.insert(t.clone(), v);
            }
            Term::Reg(th, r) => {
                let v = b.var(&format!("P{th}:{r}"), test.condition_span);
                term_vars.insert(t.clone(), v);
            }
            Term::Int(_) => {}
        }
    }
    // Dispatch: one test per litmus thread, padding threads exit.
    let n = test.threads.len();
    for (i, t) in test.threads.iter().enumerate() {
        let (blk, th) = placement.slots[i];
        let pc = b.code.len() as Pc;
        b.emit(
            Op::Branch {
                cond: is_thread(blk, th),
                then_pc: 0,
                else_pc: pc + 1,
            },
            t.span,
        );
    }
    b.emit(
        Op::Exit,
        test.threads.first().map_or(Span::default(), |t| t.span),
    );
    for (i, t) in test.threads.iter().enumerate() {
        let start = b.code.len() as Pc;
        if let Op::Branch { then_pc, .. } = &mut b.code[i].op {
            *then_pc = start;
        }
        let mut labels: BTreeMap<String, Pc> = BTreeMap::new();
        let mut fixups = vec![];
        for s in &t.code {
            match s {
                Stmt::Label(l, span) => {
                    if labels.insert(l.clone(), b.code.len() as Pc).is_some() {
                        return unsupported(
                            *span,
                            format!("label `{l}` defined twice in P{}", t.id),
                        );
                    }
                }
                Stmt::Instr(instr) => b.instr(instr, &mut fixups)?,
            }
        }
        for (at, label, span) in fixups {
            let Some(&target) = labels.get(&label) else {
                return unsupported(span, format!("no label `{label}` in P{}", t.id));
            };
            match &mut b.code[at].op {
                Op::Jump { target: tg } => *tg = target,
                Op::Branch { then_pc, .. } => *then_pc = target,
                _ => unreachable!("fixups are jumps and branches"),
            }
        }
        // Copy the registers the condition reads into memory, then exit.
        for term in &terms {
            if let Term::Reg(th, r) = term {
                if *th == t.id {
                    let value = Expr::Local(b.local(r));
                    let var = term_vars[term];
                    let access =
                        MemOrder::new(Order::Weak, Scope::Cta).at(Loc { var, index: None });
                    b.emit(Op::Store { access, value }, test.condition_span);
                }
            }
        }
        b.emit(Op::Exit, t.span);
    }
    // Registers named in the initial state but never used still need a slot.
    for (_, r, _, _) in &test.reg_init {
        b.local(r);
    }
    let threads = placement.launch.threads() as usize;
    for local in b.locals.iter_mut() {
        let name = &local.name;
        let mut values = vec![0u32; threads];
        let mut any = false;
        for (th, r, v, _) in &test.reg_init {
            if r == name && *th < n {
                let (blk, tt) = placement.slots[*th];
                values[(blk * placement.launch.threads_per_block + tt) as usize] = *v as i32 as u32;
                any |= *v != 0;
            }
        }
        if any {
            local.init = LocalInit::PerThread(values);
        }
    }
    let program = Program {
        source: source.clone(),
        header: Header {
            name: Some(test.name.clone()),
            ..Header::default()
        },
        launch: placement.launch,
        params: vec![],
        vars: b.vars,
        locals: b.locals,
        code: b.code,
        participants: Participants::All,
        checks: Checks::default(),
        unsupported: vec![],
        devices: placement.devices,
        inlined: vec![],
        spec_locals: vec![],
    };
    Ok(Translated {
        program,
        terms: term_vars,
    })
}

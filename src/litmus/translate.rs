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

use super::decode::{arith_op, atomic_op, branch_cmp, membar_scope, unsupported, Unsupported};
use super::parse::{Instr, Litmus, Operand, Stmt, Term, Thread};
use crate::diag::Source;
use crate::diag::Span;
use crate::ir::{order_named, scope_named};
use crate::ir::{
    About, Builtin, Checks, Expr, Instr as IrInstr, Launch, Loc, LocalInit, LocalVar, MemOrder,
    MemVar, Op, Order, Pc, Program, Scope, VarId,
};
use crate::ir::{BinOp, Participants, Storage, Type};
use std::collections::BTreeMap;

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

fn place(test: &Litmus) -> Placement {
    // CTA ids are per GPU: a block is a (gpu, cta) pair.
    let ctas = test.ctas();
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
    Placement {
        slots,
        devices,
        launch: Launch {
            blocks: ctas.len().max(1) as u32,
            threads_per_block: per_block.iter().copied().max().unwrap_or(1).max(1),
            warp_size: 32,
        },
    }
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
                    return instr.refuse(format!(
                        "64-bit access `.{q}`: locations are 32-bit in the IR"
                    ));
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

/// Builds the program: memory, registers and code.
struct Builder<'a> {
    test: &'a Litmus,
    vars: Vec<MemVar>,
    var_ids: BTreeMap<String, VarId>,
    locals: Vec<LocalVar>,
    local_ids: BTreeMap<String, u32>,
    code: Vec<IrInstr>,
    barriers: super::barriers::Plan,
    /// The (gpu, cta) of the thread being translated.
    cta: (u32, u32),
}

/// A branch or jump whose target label is known once its thread is read:
/// (instruction, label, span).
type Fixup = (usize, String, Span);

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
            init: vec![u64::from(init as i32 as u32)],
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
            Operand::Name(n) => instr.refuse(format!(
                "`{n}` used as a value: addresses in registers are not supported"
            )),
        }
    }

    /// The local of register operand `i`.
    fn reg(&mut self, instr: &Instr, i: usize) -> Result<u32, Unsupported> {
        Ok(self.local(instr.register(i)?))
    }

    /// The location operand `i` names.
    fn loc(&mut self, instr: &Instr, i: usize) -> Result<Loc, Unsupported> {
        Ok(Loc {
            var: self.var(instr.location(i)?, instr.span),
            index: None,
        })
    }

    fn emit(&mut self, op: Op, span: Span) {
        self.code.push(IrInstr { op, span });
    }

    /// Translates one instruction; branches get their target patched later.
    fn instr(&mut self, instr: &Instr, fixups: &mut Vec<Fixup>) -> Result<(), Unsupported> {
        let head = instr.opcode[0].as_str();
        let quals = &instr.opcode[1..];
        match head {
            "ld" => self.load(instr, quals),
            "st" => self.store(instr, quals),
            "atom" | "red" => self.atomic(instr, quals, head == "atom"),
            "fence" | "membar" => self.fence(instr, quals, head == "membar"),
            "bar" | "barrier" => {
                let op = self.barriers.op(self.cta, instr)?;
                self.emit(op, instr.span);
                Ok(())
            }
            "goto" | "bra" => {
                instr.arity(1)?;
                let label = instr.label(0, "expected a label")?;
                fixups.push((self.code.len(), label.to_string(), instr.span));
                self.emit(Op::Jump { target: 0 }, instr.span);
                Ok(())
            }
            "mov" => {
                instr.arity(2)?;
                let dst = self.reg(instr, 0)?;
                let value = self.value(&instr.operands[1], instr)?;
                self.emit(Op::Assign { dst, value }, instr.span);
                Ok(())
            }
            _ => {
                if let Some(cmp) = branch_cmp(head) {
                    self.branch(instr, cmp, fixups)
                } else if let Some(op) = arith_op(head) {
                    self.arith(instr, op)
                } else {
                    instr.refuse(format!("instruction `{}`", instr.text()))
                }
            }
        }
    }

    fn load(&mut self, instr: &Instr, quals: &[String]) -> Result<(), Unsupported> {
        let ops = &instr.operands;
        instr.arity(2)?;
        let dst = self.reg(instr, 0)?;
        if quals.is_empty() && !matches!(ops[1], Operand::Name(_)) {
            // herd's `ld r0, 1`: a register move.
            let value = self.value(&ops[1], instr)?;
            self.emit(Op::Assign { dst, value }, instr.span);
            return Ok(());
        }
        let (mo, rest) = order_scope(instr, quals)?;
        if !rest.is_empty() || matches!(mo.order, Order::Release | Order::AcqRel | Order::Sc) {
            return instr.refuse(format!("load `{}`", instr.text()));
        }
        let access = mo.at(self.loc(instr, 1)?);
        self.emit(Op::Load { dst, access }, instr.span);
        Ok(())
    }

    fn store(&mut self, instr: &Instr, quals: &[String]) -> Result<(), Unsupported> {
        instr.arity(2)?;
        let (mo, rest) = order_scope(instr, quals)?;
        if !rest.is_empty() || matches!(mo.order, Order::Acquire | Order::AcqRel | Order::Sc) {
            return instr.refuse(format!("store `{}`", instr.text()));
        }
        let access = mo.at(self.loc(instr, 0)?);
        let value = self.value(&instr.operands[1], instr)?;
        self.emit(Op::Store { access, value }, instr.span);
        Ok(())
    }

    /// `atom` (the old value into a register) or `red` (no result).
    fn atomic(&mut self, instr: &Instr, quals: &[String], atom: bool) -> Result<(), Unsupported> {
        let (mo, rest) = order_scope(instr, quals)?;
        let op = match rest.as_slice() {
            [name] => atomic_op(name),
            _ => None,
        };
        let Some(op) = op else {
            return instr.refuse(format!("atomic `{}`", instr.text()));
        };
        if mo.order == Order::Weak && quals.iter().any(|q| q == "weak")
            || mo.order == Order::Volatile
        {
            return instr.refuse("atomics cannot be weak or volatile");
        }
        // An atomic without an order is relaxed.
        let order = if mo.order == Order::Weak {
            Order::Relaxed
        } else {
            mo.order
        };
        let mo = MemOrder::new(order, scope_or_sys(quals, mo.scope));
        // The location follows the destination register of an `atom`.
        let at = usize::from(atom);
        instr.arity(at + 1 + op.operands())?;
        let dst = if atom {
            Some(self.reg(instr, 0)?)
        } else {
            None
        };
        let access = mo.at(self.loc(instr, at)?);
        let mut operands = vec![];
        for o in &instr.operands[at + 1..] {
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
        instr.arity(0)?;
        let refused = || instr.refuse(format!("fence `{}`", instr.text()));
        let mo = if membar {
            let scope = match quals {
                [q] => membar_scope(q),
                _ => None,
            };
            let Some(scope) = scope else {
                return refused();
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
        cmp: BinOp,
        fixups: &mut Vec<Fixup>,
    ) -> Result<(), Unsupported> {
        let ops = &instr.operands;
        instr.arity(3)?;
        let a = self.value(&ops[0], instr)?;
        let b = self.value(&ops[1], instr)?;
        let label = instr.label(2, "expected a label as the last operand")?;
        fixups.push((self.code.len(), label.to_string(), instr.span));
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
    fn arith(&mut self, instr: &Instr, op: BinOp) -> Result<(), Unsupported> {
        let ops = &instr.operands;
        instr.arity(3)?;
        let dst = self.reg(instr, 0)?;
        let a = self.value(&ops[1], instr)?;
        let b = self.value(&ops[2], instr)?;
        let value = Expr::Binary(op, Box::new(a), Box::new(b));
        self.emit(Op::Assign { dst, value }, instr.span);
        Ok(())
    }

    /// The variables of the locations in order of declaration, then those
    /// of the final condition's terms (a register's as `P1:r1`): each term
    /// with its variable.
    fn locations(&mut self) -> (Vec<Term>, BTreeMap<Term, VarId>) {
        let test = self.test;
        for (name, _, span) in &test.mem_init {
            self.var(name, *span);
        }
        let mut terms = vec![];
        test.condition.terms(&mut terms);
        let mut term_vars = BTreeMap::new();
        for t in &terms {
            let name = match t {
                Term::Mem(m) => m.clone(),
                Term::Reg(th, r) => format!("P{th}:{r}"),
                Term::Int(_) => continue,
            };
            term_vars.insert(t.clone(), self.var(&name, test.condition_span));
        }
        (terms, term_vars)
    }

    /// The dispatch: one branch per litmus thread to its code (patched by
    /// [`Builder::thread`]), then the exit of the padding threads.
    fn dispatch(&mut self, placement: &Placement) {
        let test = self.test;
        for (i, t) in test.threads.iter().enumerate() {
            let (blk, th) = placement.slots[i];
            let pc = self.code.len() as Pc;
            self.emit(
                Op::Branch {
                    cond: is_thread(blk, th),
                    then_pc: 0,
                    else_pc: pc + 1,
                },
                t.span,
            );
        }
        self.emit(
            Op::Exit,
            test.threads.first().map_or(Span::default(), |t| t.span),
        );
    }

    /// The code of litmus thread `i`: its instructions, then the copy of the
    /// registers the condition reads into their variables, then the exit.
    fn thread(
        &mut self,
        i: usize,
        terms: &[Term],
        term_vars: &BTreeMap<Term, VarId>,
    ) -> Result<(), Unsupported> {
        let test = self.test;
        let t = &test.threads[i];
        self.cta = (t.gpu, t.cta);
        let start = self.code.len() as Pc;
        if let Op::Branch { then_pc, .. } = &mut self.code[i].op {
            *then_pc = start;
        }
        self.body(t)?;
        for term in terms {
            if let Term::Reg(th, r) = term {
                if *th == t.id {
                    let value = Expr::Local(self.local(r));
                    let var = term_vars[term];
                    let access =
                        MemOrder::new(Order::Weak, Scope::Cta).at(Loc { var, index: None });
                    self.emit(Op::Store { access, value }, test.condition_span);
                }
            }
        }
        self.emit(Op::Exit, t.span);
        Ok(())
    }

    /// A thread's statements, its jumps resolved to its labels.
    fn body(&mut self, t: &Thread) -> Result<(), Unsupported> {
        let mut labels: BTreeMap<String, Pc> = BTreeMap::new();
        let mut fixups = vec![];
        for s in &t.code {
            match s {
                Stmt::Label(l, span) => {
                    if labels.insert(l.clone(), self.code.len() as Pc).is_some() {
                        return unsupported(
                            *span,
                            format!("label `{l}` defined twice in P{}", t.id),
                        );
                    }
                }
                Stmt::Instr(instr) => self.instr(instr, &mut fixups)?,
            }
        }
        for (at, label, span) in fixups {
            let Some(&target) = labels.get(&label) else {
                return unsupported(span, format!("no label `{label}` in P{}", t.id));
            };
            match &mut self.code[at].op {
                Op::Jump { target: tg } => *tg = target,
                Op::Branch { then_pc, .. } => *then_pc = target,
                _ => unreachable!("fixups are jumps and branches"),
            }
        }
        Ok(())
    }

    /// Every register of the initial state gets a slot; registers given a
    /// value other than 0 start with it in their thread.
    fn init_registers(&mut self, placement: &Placement) {
        let test = self.test;
        for (_, r, _, _) in &test.reg_init {
            self.local(r);
        }
        let threads = placement.launch.threads() as usize;
        for local in self.locals.iter_mut() {
            let mut values = vec![0u64; threads];
            let mut any = false;
            for (th, r, v, _) in &test.reg_init {
                if *r == local.name && *th < test.threads.len() {
                    let (blk, tt) = placement.slots[*th];
                    values[(blk * placement.launch.threads_per_block + tt) as usize] =
                        u64::from(*v as i32 as u32);
                    any |= *v != 0;
                }
            }
            if any {
                local.init = LocalInit::PerThread(values);
            }
        }
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
    let placement = place(test);
    let mut b = Builder {
        test,
        vars: vec![],
        var_ids: BTreeMap::new(),
        locals: vec![],
        local_ids: BTreeMap::new(),
        code: vec![],
        barriers: super::barriers::plan(test)?,
        cta: (0, 0),
    };
    let (terms, term_vars) = b.locations();
    b.dispatch(&placement);
    for i in 0..test.threads.len() {
        b.thread(i, &terms, &term_vars)?;
    }
    b.init_registers(&placement);
    let program = Program {
        source: source.clone(),
        about: About::default(),
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
        launches: vec![],
    };
    Ok(Translated {
        program,
        terms: term_vars,
    })
}
